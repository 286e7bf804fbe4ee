"""Which PubMed files: lists, numbered ranges, and NCBI's directory listing (cached)."""

from __future__ import annotations

import io

import pytest

from biocompact.corpus.listing import file_range, listed_names, pubmed_file_names
from biocompact.files import download as url_download

NCBI_INDEX = """<html><body><h1>Index of /pubmed/updatefiles</h1><pre>
<a href="pubmed25n1275.xml.gz">pubmed25n1275.xml.gz</a>      2025-01-02 14:05   3.1M
<a href="pubmed25n1275.xml.gz.md5">pubmed25n1275.xml.gz.md5</a>  2025-01-02 14:05   60
<a href="pubmed25n1276.xml.gz">pubmed25n1276.xml.gz</a>      2025-01-03 14:05   2.9M
<a href="README.txt">README.txt</a>
</pre></body></html>"""


def test_ranges_and_lists():
    assert file_range("pubmed25n", 9, 11) == ["pubmed25n0009", "pubmed25n0010", "pubmed25n0011"]
    assert file_range("x", 7, 7, digits=2) == ["x07"]
    with pytest.raises(ValueError, match="first 3 is after last 2"):
        file_range("x", 3, 2)
    pubmed = {"source": "s", "baseline": {"prefix": "p", "first": 1, "last": 2}, "updates": ["u"]}
    assert pubmed_file_names(pubmed, "baseline", "cache") == ["p0001", "p0002"]
    assert pubmed_file_names(pubmed, "updates", "cache") == ["u"]
    assert pubmed_file_names({**pubmed, "baseline": []}, "baseline", "cache") == []  # PubMed off


def test_ncbi_listing_is_fetched_once(tmp_path, monkeypatch):
    calls = []

    def fake_urlopen(url, timeout):
        calls.append(url)
        return io.BytesIO(NCBI_INDEX.encode())

    monkeypatch.setattr(url_download.urllib.request, "urlopen", fake_urlopen)
    assert listed_names(NCBI_INDEX) == ["pubmed25n1275", "pubmed25n1276"]
    pubmed = {"source": "https://ftp.ncbi.nlm.nih.gov/pubmed", "updates": "all"}
    for _ in range(2):
        assert pubmed_file_names(pubmed, "updates", tmp_path) == ["pubmed25n1275", "pubmed25n1276"]
    assert calls == ["https://ftp.ncbi.nlm.nih.gov/pubmed/updatefiles/"]
    assert (tmp_path / "updatefiles.txt").read_text() == "pubmed25n1275\npubmed25n1276\n"


def test_folder_listing(shared_data, tmp_path):
    pubmed = {"source": str(shared_data / "pubmed"), "baseline": "all"}
    names = pubmed_file_names(pubmed, "baseline", tmp_path)
    assert names == [
        "pubmed20n1015",
        "pubmed21n1062",
        "pubmed22n1114",
        "pubmed23n1166",
        "pubmed24n1219",
    ]
    with pytest.raises(ValueError, match="no .xml.gz files"):
        pubmed_file_names({"source": str(tmp_path), "updates": "all"}, "updates", tmp_path / "c")
