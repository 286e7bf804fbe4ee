"""PMC Open Access articles: real JATS files, safe streaming of packages, sampling, bad input."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import numpy as np
import pytest

from biocompact.corpus.errors import CorpusFileError
from biocompact.corpus.pmc import PmcOptions, parse_article, parse_pmc, sampled
from biocompact.corpus.sentences import split_pmc_sentences

# pmcid, pmid, year, abstract paragraphs, body <p> outside figures/tables,
# body with captions, tables and references: <p> + caption <p> + table rows + table-foot <p>
# + back/ref-list <ref>, each counted once with an XPath query
REAL_ARTICLES = {
    "1471-2180-11-174.nxml": ("3166277", "21810267", 2011, 3, 40, 171),
    "6605965a.nxml": ("2994229", "21045829", 2010, 4, 11, 45),
    "cc11003.nxml": ("3363814", "", 2012, 0, 4, 7),
    "mds526.nxml": ("3574550", "23149571", 2013, 4, 25, 176),
    "pone.0000217.nxml": ("1790863", "17299597", 2007, 3, 51, 87),
    "pone.0046493.nxml": ("3460867", "23029536", 2012, 1, 34, 148),
}
EVERYTHING = PmcOptions(captions=True, tables=True, references=True)


def lines(text: str) -> int:
    return len(text.split("\n")) if text else 0


@pytest.mark.parametrize("name", sorted(REAL_ARTICLES))
def test_real_articles(shared_data, name):
    pmcid, pmid, year, abstract, body, everything = REAL_ARTICLES[name]
    data = (shared_data / "pmc" / name).read_bytes()
    article = parse_article(data, PmcOptions(), name)
    assert (article.pmcid, article.pmid, article.year) == (pmcid, pmid, year)
    assert (lines(article.abstract), lines(article.body)) == (abstract, body)
    assert article.title and "\x00" not in article.body
    assert lines(parse_article(data, EVERYTHING, name).body) == everything


def test_citation_markers_and_inline_figures():
    xml = (
        b'<article><front><article-meta><article-id pub-id-type="pmc">7</article-id>'
        b"<title-group><article-title>T</article-title></title-group></article-meta></front>"
        b'<body><sec><title>Intro</title><p>Needed <xref ref-type="bibr">[1]</xref>. Seen '
        b'<xref ref-type="bibr">2</xref>, <xref ref-type="bibr">3</xref>\xe2\x80\x93'
        b'<xref ref-type="bibr">5</xref>, and (<xref ref-type="bibr">Li 2002</xref>) in '
        b'<xref ref-type="fig">Fig. 1</xref> with <i>E. <b>coli</b></i>'
        b"<fig><caption><p>A caption.</p></caption></fig>.</p></sec></body></article>"
    )
    article = parse_article(xml, PmcOptions(), "x")
    assert article.body == "Needed. Seen, and in Fig. 1 with E. coli."
    assert parse_article(xml, EVERYTHING, "x").body == (
        "Needed [1]. Seen 2, 3\u20135, and (Li 2002) in Fig. 1 with E. coli.\nA caption."
    )


def package(path: Path, members: dict[str, bytes], links: tuple[str, ...] = ()) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name in links:
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            archive.addfile(info)
    return path


def test_package_is_streamed_safely(shared_data, tmp_path):
    members = {
        f"PMC000xxxxxx/{name}": (shared_data / "pmc" / name).read_bytes()
        for name in sorted(REAL_ARTICLES)
    }
    members |= {
        "../evil.nxml": members["PMC000xxxxxx/cc11003.nxml"],
        "/tmp/absolute.nxml": b"<article/>",
        "PMC000xxxxxx/readme.txt": b"not an article",
    }
    source = package(tmp_path / "bulk.tar.gz", members, links=("PMC000xxxxxx/link.nxml",))
    out = tmp_path / "out"
    summary = parse_pmc(source, out / "p.jsonl.gz", out / "p.json")
    assert summary == {
        "file": "bulk.tar.gz",
        "records": 6,
        "documents": 6,
        "skipped": {"unsafe_member": 3},
    }
    documents = [json.loads(line) for line in gzip.open(out / "p.jsonl.gz", "rt")]
    assert [d["pmcid"] for d in documents] == [REAL_ARTICLES[n][0] for n in sorted(REAL_ARTICLES)]
    assert not (tmp_path / "evil.nxml").exists() and sorted(p.name for p in out.iterdir()) == [
        "p.json",
        "p.jsonl.gz",
    ]
    half = parse_pmc(source, out / "h.jsonl.gz", out / "h.json", PmcOptions(sample_fraction=0.5))
    kept = {json.loads(line)["pmcid"] for line in gzip.open(out / "h.jsonl.gz", "rt")}
    assert kept == {d["pmcid"] for d in documents if sampled(d["pmcid"], 0.5, 0)}
    assert half["skipped"]["not_sampled"] == 6 - len(kept)


def test_sampling_is_stable():
    keys = [f"PMC{number}" for number in range(2000)]
    chosen = [key for key in keys if sampled(key, 0.25, seed=1)]
    assert chosen == [key for key in keys if sampled(key, 0.25, seed=1)]
    assert 420 < len(chosen) < 580  # binomial(2000, 0.25): mean 500, sd 19
    assert chosen != [key for key in keys if sampled(key, 0.25, seed=2)]
    assert all(sampled(key, 1.0, 0) for key in keys[:10])


def test_dedupe_against_pubmed(shared_data, tmp_path):
    out = tmp_path / "out"
    parse_pmc(shared_data / "pmc/6605965a.nxml", out / "p.jsonl.gz", out / "p.json")
    np.save(tmp_path / "pmids.npy", np.array([1, 21045829, 99999999], dtype=np.int64))
    full = split_pmc_sentences(out / "p.jsonl.gz", out / "a.txt.gz", out / "a.json")
    dedup = split_pmc_sentences(
        out / "p.jsonl.gz",
        out / "b.txt.gz",
        out / "b.json",
        pubmed_pmids=tmp_path / "pmids.npy",
        pmids=out / "b.pmids.txt.gz",
    )
    assert (full["documents"], dedup["documents"]) == (1, 1)
    assert dedup["skipped"] == {"no_text": 0, "abstract_in_pubmed": 1}
    text = gzip.open(out / "a.txt.gz", "rt").read()
    assert text.startswith("Oral contraceptives, reproductive history and risk of colorectal")
    assert gzip.open(out / "b.txt.gz", "rt").read().startswith("Men tend to have")
    assert full["sentences"] > dedup["sentences"] and text.endswith("\n\n")
    # the body kept is still the article of PMID 21045829, for decontamination by PMID
    assert gzip.open(out / "b.pmids.txt.gz", "rt").read() == "21045829\n"


def article_bytes(body: bytes = b"<p>Text.</p>") -> bytes:
    return b'<?xml version="1.0" encoding="UTF-8"?>\n<article><body>' + body + b"</body></article>"


BAD_INPUTS = {
    "truncated archive": (
        lambda tmp: truncate(package(tmp / "in/x.tar.gz", {"a.nxml": article_bytes() * 500})),
        "x.tar.gz: corrupt or truncated archive",
    ),
    "not gzip": (lambda tmp: write(tmp / "in/x.tar.gz", b"plain bytes"), "corrupt or truncated"),
    "empty file": (lambda tmp: write(tmp / "in/x.nxml", b""), "x.nxml: empty file"),
    "malformed member": (
        lambda tmp: package(
            tmp / "in/x.tar.gz",
            {"ok.nxml": article_bytes(), "bad.nxml": b"<article>\n<body><p></body>"},
        ),
        "x.tar.gz:bad.nxml: line 2: malformed XML",
    ),
    "non-UTF-8 bytes": (
        lambda tmp: write(tmp / "in/x.nxml", article_bytes(b"<p>caf\xe9</p>")),
        "x.nxml: line 2: malformed XML",
    ),
    "foreign root": (lambda tmp: write(tmp / "in/x.nxml", b"<html/>"), "root element is <html>"),
}


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return path


def truncate(path: Path) -> Path:
    return write(path, path.read_bytes()[:200])


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_names_file_and_leaves_no_output(tmp_path, case):
    (tmp_path / "in").mkdir()
    make, problem = BAD_INPUTS[case]
    path = make(tmp_path)
    out = tmp_path / "out"
    with pytest.raises(CorpusFileError) as error:
        parse_pmc(path, out / "x.jsonl.gz", out / "x.json")
    assert str(error.value).startswith(str(path))
    assert problem in str(error.value)
    assert not out.exists() or list(out.iterdir()) == []
