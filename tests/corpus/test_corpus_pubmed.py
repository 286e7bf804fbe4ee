"""Parsing PubMed XML: real NCBI files, structured abstracts, versions, deletions, bad input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from biocompact.corpus.download import evict_if_unreadable
from biocompact.corpus.errors import CorpusFileError
from biocompact.corpus.pubmed import Citation, Deletion, iter_pubmed, parse_pubmed, read_citations

# <PubmedArticle> and <DeleteCitation><PMID> elements, counted once with lxml.
REAL_FILES = {
    "baseline/pubmed20n1015.xml.gz": (29, 0),
    "baseline/pubmed21n1062.xml.gz": (29, 0),
    "baseline/pubmed22n1114.xml.gz": (33, 0),
    "baseline/pubmed23n1166.xml.gz": (34, 0),
    "baseline/pubmed24n1219.xml.gz": (30, 0),
    "updatefiles/pubmed20n1016.xml.gz": (28, 262),
    "updatefiles/pubmed21n1063.xml.gz": (33, 0),
    "updatefiles/pubmed22n1115.xml.gz": (30, 48),
    "efetch/pubmed-29768149.xml": (1, 0),
    "efetch/test_current_medline.xml.gz": (4, 0),
}


def pubmed_xml(body: str) -> bytes:
    declaration = '<?xml version="1.0" encoding="UTF-8"?>'
    return f"{declaration}\n<PubmedArticleSet>{body}</PubmedArticleSet>".encode()


def article(pmid: str, version: int = 1, abstract: str = "Text.", title: str = "Title.") -> str:
    return (
        f'<PubmedArticle><MedlineCitation><PMID Version="{version}">{pmid}</PMID><Article>'
        f"<Journal><JournalIssue><PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate>"
        f"</JournalIssue></Journal><ArticleTitle>{title}</ArticleTitle>"
        f"<Abstract><AbstractText>{abstract}</AbstractText></Abstract>"
        f"<Language>eng</Language></Article></MedlineCitation></PubmedArticle>"
    )


@pytest.mark.parametrize("name", sorted(REAL_FILES))
def test_real_files(shared_data, tmp_path, name):
    records, deletions = REAL_FILES[name]
    documents, meta = tmp_path / "d.jsonl.gz", tmp_path / "d.json"
    summary = parse_pubmed(shared_data / "pubmed" / name, documents, meta)
    assert summary["records"] == summary["documents"] == records
    assert len(summary["deleted_pmids"]) == deletions
    assert json.loads(meta.read_text()) == summary
    citations = list(read_citations(documents))
    assert len(citations) == records
    assert all(c["pmid"].isdigit() and c["language"] and c["title"] for c in citations)


def test_fields_labels_and_versions(shared_data):
    path = shared_data / "pubmed/baseline/pubmed20n1015.xml.gz"
    labelled = {c.pmid: c for c in iter_pubmed(path, section_labels=True) if c.version == 1}
    plain = {c.pmid: c for c in iter_pubmed(path, section_labels=False) if c.version == 1}
    structured = labelled["31810487"]
    assert (structured.year, structured.language) == (2019, "eng")
    assert structured.title.startswith("Risk factors for the development of acute respiratory")
    sections = structured.abstract.split("\n")
    labels = [section.split(":")[0] for section in sections]
    assert labels == ["BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"]
    assert plain["31810487"].abstract.split("\n")[0].startswith("Clinical and epidemiological")
    versions = [c.version for c in iter_pubmed(path) if c.pmid == "31814964"]
    assert versions == [1, 2, 3]


def test_nested_markup_and_deletions(shared_data):
    path = shared_data / "pubmed/baseline/pubmed22n1114.xml.gz"
    baseline = {c.pmid: c for c in iter_pubmed(path)}
    # <sub>A</sub> inside title and abstract is kept as text
    assert "α1β3γ2L GABAA receptor" in baseline["34853153"].title
    assert baseline["34853153"].abstract.startswith("The γ-aminobutyric acid type A (GABAA)")
    records = list(iter_pubmed(shared_data / "pubmed/updatefiles/pubmed20n1016.xml.gz"))
    deletions = [r.pmid for r in records if not isinstance(r, Citation)]
    assert deletions[:3] == ["31034065", "31034066", "31088950"]
    assert deletions[-1] == "31845705"


def test_synthetic_record(tmp_path):
    path = tmp_path / "one.xml.gz"
    path.write_bytes(
        gzip.compress(pubmed_xml(article("12", 2, "See <i>E. <b>coli</b></i>  here.", "")))
    )
    (citation,) = iter_pubmed(path)
    assert citation == Citation("12", 2, 1998, "eng", "", "See E. coli here.")


def corrupt_gzip(tmp_path: Path) -> Path:
    data = gzip.compress(pubmed_xml(article("1") * 50))
    return write(tmp_path, data[: len(data) // 2])


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "input" / "bad.xml.gz"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return path


BAD_INPUTS = {
    "truncated gzip": (corrupt_gzip, "corrupt or truncated gzip"),
    "not gzip": (lambda tmp: write(tmp, b"<PubmedArticleSet/>"), "corrupt or truncated gzip"),
    "empty file": (lambda tmp: write(tmp, b""), "empty file"),
    "empty document": (lambda tmp: write(tmp, gzip.compress(b"")), "malformed XML"),
    "malformed XML": (
        lambda tmp: write(tmp, gzip.compress(pubmed_xml(article("1")).replace(b"</Article>", b""))),
        "line 2: malformed XML",
    ),
    "non-UTF-8 bytes": (
        lambda tmp: write(
            tmp,
            gzip.compress(
                pubmed_xml(article("1", title="caf\xe9")).replace(
                    "caf\xe9".encode(), "caf\xe9".encode("latin-1")
                )
            ),
        ),
        "line 2: malformed XML",
    ),
    "foreign root": (
        lambda tmp: write(tmp, gzip.compress(b"<html><body/></html>")),
        "root element is <html>",
    ),
    "bad PMID": (
        lambda tmp: write(tmp, gzip.compress(pubmed_xml(article("1") + article("x2")))),
        "record 2: PMID 'x2' is not a number",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_names_file_and_leaves_no_output(tmp_path, case):
    make, problem = BAD_INPUTS[case]
    path = make(tmp_path)
    out = tmp_path / "out"
    with pytest.raises(CorpusFileError) as error:
        parse_pubmed(path, out / "bad.jsonl.gz", out / "bad.json")
    assert str(error.value).startswith(f"{path}: ")
    assert problem in str(error.value)
    assert not out.exists() or list(out.iterdir()) == []


def test_real_medline_dtd_file(shared_data, tmp_path):
    """NLM's pre-2017 MEDLINE layout: <MedlineCitationSet> of bare <MedlineCitation>s."""
    path = shared_data / "pubmed/medline/medline16n0902.xml.gz"
    summary = parse_pubmed(path, tmp_path / "d.jsonl.gz", tmp_path / "d.json")
    assert summary["records"] == summary["documents"] == 604
    assert summary["deleted_pmids"] == ["26432306"]
    first = next(read_citations(tmp_path / "d.jsonl.gz"))
    assert (first["pmid"], first["year"], first["language"]) == ("17942999", 2007, "eng")
    assert first["title"].startswith("Neuroplasticity in the processing of pitch dimensions")
    assert first["abstract"].count("\n") == 3  # PURPOSE, METHODS, RESULTS, CONCLUSIONS


def medline_citation(pmid: str, body: str) -> str:
    return (
        f'<MedlineCitation Owner="NLM"><PMID Version="1">{pmid}</PMID><Article>'
        "<Journal><JournalIssue><PubDate><Year>2015</Year></PubDate></JournalIssue></Journal>"
        f"<ArticleTitle>T{pmid}.</ArticleTitle><Language>eng</Language></Article>{body}"
        "</MedlineCitation>"
    )


def test_medline_dtd_and_other_abstract(tmp_path):
    other = (
        '<OtherAbstract Type="Publisher" Language="fre"><AbstractText>Texte.</AbstractText>'
        '</OtherAbstract><OtherAbstract Type="plain-language-summary" Language="eng">'
        "<AbstractText>Plain words.</AbstractText></OtherAbstract>"
    )
    xml = (
        '<?xml version="1.0"?><MedlineCitationSet>'
        + medline_citation("1", other)
        + medline_citation("2", "")
        + "<DeleteCitation><PMID>7</PMID><PMID>8</PMID></DeleteCitation></MedlineCitationSet>"
    )
    path = tmp_path / "medline.xml"
    path.write_text(xml)
    records = list(iter_pubmed(path))
    assert records == [
        Citation("1", 1, 2015, "eng", "T1.", ""),
        Citation("2", 1, 2015, "eng", "T2.", ""),
        Deletion("7"),
        Deletion("8"),
    ]
    with_other = list(iter_pubmed(path, other_abstract=True))
    assert [r.abstract for r in with_other[:2]] == ["Plain words.", ""]


def test_other_abstract_never_replaces_an_abstract(tmp_path):
    body = article("5", abstract="Real abstract.").replace(
        "</Article>",
        '</Article><OtherAbstract Language="eng"><AbstractText>Other.</AbstractText>'
        "</OtherAbstract>",
    )
    path = tmp_path / "one.xml"
    path.write_bytes(pubmed_xml(body))
    (citation,) = iter_pubmed(path, other_abstract=True)
    assert citation.abstract == "Real abstract."


def test_unreadable_download_is_evicted(tmp_path):
    raw = corrupt_gzip(tmp_path)
    with pytest.raises(CorpusFileError) as error, evict_if_unreadable(raw):
        parse_pubmed(raw, tmp_path / "d.jsonl.gz", tmp_path / "d.json")
    assert not raw.exists()
    assert str(error.value).startswith(f"{raw}: corrupt or truncated gzip")
    assert "the next run downloads it again" in str(error.value)
