"""Downloading PubMed files from NCBI's layout, with MD5 sidecars and retries."""

from __future__ import annotations

import hashlib
import io
import urllib.error
from pathlib import Path

import pytest

from biocompact.corpus.download import (
    download_file,
    download_pubmed_file,
    pubmed_url,
    read_md5_sidecar,
    source_url,
)
from biocompact.corpus.errors import CorpusFileError
from biocompact.files import download as url_download
from biocompact.files.download import copy_with_digest

PAYLOAD = b"\x1f\x8b pretend this is a gzipped PubMed file"
DIGEST = hashlib.md5(PAYLOAD).hexdigest()


def make_source(root: Path, stem: str = "pubmed25n0001", digest: str = DIGEST) -> Path:
    folder = root / "source" / "baseline"
    folder.mkdir(parents=True)
    (folder / f"{stem}.xml.gz").write_bytes(PAYLOAD)
    (folder / f"{stem}.xml.gz.md5").write_text(f"MD5({stem}.xml.gz)= {digest}\n")
    return root / "source"


def test_url_layout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert pubmed_url("https://ftp.ncbi.nlm.nih.gov/pubmed/", "updatefiles", "a.xml.gz") == (
        "https://ftp.ncbi.nlm.nih.gov/pubmed/updatefiles/a.xml.gz"
    )
    assert pubmed_url("demo/pubmed", "baseline", "a.xml.gz") == (
        (tmp_path / "demo/pubmed/baseline/a.xml.gz").as_uri()
    )
    with pytest.raises(ValueError, match="folder"):
        pubmed_url("demo", "updates", "a.xml.gz")


def test_sidecar_parsing():
    line = "MD5(pubmed25n0001.xml.gz)= 0123456789ABCDEF0123456789abcdef\n"
    assert read_md5_sidecar(line, "pubmed25n0001.xml.gz", "u") == "0123456789abcdef" * 2
    with pytest.raises(CorpusFileError, match="u: sidecar is for 'pubmed25n0001.xml.gz'"):
        read_md5_sidecar(line, "pubmed25n0002.xml.gz", "u")
    with pytest.raises(CorpusFileError, match="not an NCBI MD5 sidecar"):
        read_md5_sidecar("<html>404</html>", "pubmed25n0001.xml.gz", "u")


@pytest.mark.parametrize("as_url", [True, False])
def test_download_verified(tmp_path, as_url):
    source = make_source(tmp_path)
    output = tmp_path / "raw" / "pubmed25n0001.xml.gz"
    location = source.as_uri() if as_url else str(source)
    assert download_pubmed_file(location, "baseline", "pubmed25n0001", output) == DIGEST
    assert output.read_bytes() == PAYLOAD  # byte for byte, not re-compressed


def test_checksum_mismatch_leaves_nothing(tmp_path):
    wrong = "0" * 32
    source = make_source(tmp_path, digest=wrong)
    output = tmp_path / "raw" / "pubmed25n0001.xml.gz"
    with pytest.raises(CorpusFileError) as error:
        download_pubmed_file(source.as_uri(), "baseline", "pubmed25n0001", output)
    message = str(error.value)
    assert "pubmed25n0001.xml.gz" in message and wrong in message and DIGEST in message
    assert list(output.parent.iterdir()) == []
    # without verification the same file is accepted
    download_pubmed_file(source.as_uri(), "baseline", "pubmed25n0001", output, verify_md5=False)
    assert output.read_bytes() == PAYLOAD


def test_missing_file_fails_at_once(tmp_path):
    source = make_source(tmp_path)
    with pytest.raises(CorpusFileError, match=r"pubmed25n0009\.xml\.gz\.md5: download failed"):
        download_pubmed_file(str(source), "baseline", "pubmed25n0009", tmp_path / "out.xml.gz")
    assert not (tmp_path / "out.xml.gz").exists()


def test_transient_errors_are_retried(tmp_path, monkeypatch):
    responses = iter(
        [
            urllib.error.HTTPError("u", 503, "busy", None, None),
            ConnectionResetError("reset"),
            io.BytesIO(f"MD5(x.xml.gz)= {DIGEST}".encode()),
            io.BytesIO(PAYLOAD),
        ]
    )

    def fake_urlopen(url, timeout):
        response = next(responses)
        if isinstance(response, Exception):
            raise response
        return response

    monkeypatch.setattr(url_download.urllib.request, "urlopen", fake_urlopen)
    monkeypatch.setattr(url_download.time, "sleep", lambda seconds: None)
    output = tmp_path / "x.xml.gz"
    download_pubmed_file("https://example.org/pubmed", "baseline", "x", output, backoff_s=0)
    assert output.read_bytes() == PAYLOAD


def test_client_errors_are_not_retried(tmp_path, monkeypatch):
    calls = []

    def fake_urlopen(url, timeout):
        calls.append(url)
        raise urllib.error.HTTPError(url, 404, "not found", None, None)

    monkeypatch.setattr(url_download.urllib.request, "urlopen", fake_urlopen)
    with pytest.raises(CorpusFileError, match="404"):
        download_pubmed_file("https://example.org/pubmed", "baseline", "x", tmp_path / "x.xml.gz")
    assert len(calls) == 1


def test_pmc_file_with_and_without_sidecar(tmp_path):
    folder = tmp_path / "pmc"
    folder.mkdir()
    (folder / "bulk.tar.gz").write_bytes(PAYLOAD)
    url = source_url(str(folder), "bulk.tar.gz")
    assert url == (folder / "bulk.tar.gz").as_uri()
    assert download_file(url, tmp_path / "a", verify_md5=False) == DIGEST
    with pytest.raises(CorpusFileError, match=r"bulk\.tar\.gz\.md5: download failed"):
        download_file(url, tmp_path / "b")
    (folder / "bulk.tar.gz.md5").write_text(f"MD5(bulk.tar.gz)= {DIGEST}\n")
    assert download_file(url, tmp_path / "b") == DIGEST
    assert (tmp_path / "b").read_bytes() == PAYLOAD


def test_copy_with_digest_overwrites_the_target_and_returns_the_copys_digest(tmp_path):
    # digests of b"abc" from RFC 1321 (MD5) and FIPS 180-2 (SHA-256), appendix B.1
    for algorithm, expected in (
        ("md5", "900150983cd24fb0d6963f7d28e17f72"),
        ("sha256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ):
        with open(tmp_path / "copy", "w+b") as target:
            target.write(b"left over from a failed attempt")
            assert copy_with_digest(io.BytesIO(b"abc"), target, algorithm) == expected
        assert (tmp_path / "copy").read_bytes() == b"abc"
