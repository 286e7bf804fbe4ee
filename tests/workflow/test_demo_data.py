"""The committed demo data: reproducible from the generator and in the formats the pipeline reads."""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

import pubmed_parser
import pytest
from lxml import etree

PUBMED_FILES = {
    "baseline/demo25n0001.xml.gz": 1500,
    "baseline/demo25n0002.xml.gz": 1500,
    "updatefiles/demo25n0003.xml.gz": 300,
}
NER_COUNTS = {"train": 800, "devel": 200, "test": 300}
RE_COUNTS = {"train": 600, "dev": 200, "test": 300}

Sentence = list[tuple[str, str]]


@pytest.fixture(scope="module")
def demo(repo_root: Path) -> Path:
    return repo_root / "demo"


def _files(root: Path) -> dict[str, bytes]:
    """The data files under ``root`` (the scripts, their bytecode and the figures aside)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix not in (".py", ".pyc") and p.name != "figures.yaml"
    }


def _root(path: Path) -> etree._Element:
    with gzip.open(path) as handle:
        return etree.parse(handle).getroot()


def _pmids(root: etree._Element) -> list[str]:
    return root.xpath("PubmedArticle/MedlineCitation/PMID/text()")


def _read_ner(path: Path) -> list[Sentence]:
    sentences: list[Sentence] = [[]]
    for line in path.read_text(encoding="utf-8").splitlines():
        if line:
            token, tag = line.split("\t")
            sentences[-1].append((token, tag))
        elif sentences[-1]:
            sentences.append([])
    return [sentence for sentence in sentences if sentence]


def _entities(sentences: list[Sentence]) -> list[str]:
    found: list[list[str]] = []
    for sentence in sentences:
        inside = False
        for token, tag in sentence:
            if tag == "B":
                found.append([token])
            elif tag == "I" and inside:
                found[-1].append(token)
            inside = tag in {"B", "I"}
    return [" ".join(tokens).lower() for tokens in found]


def test_committed_demo_is_what_the_generator_writes(
    demo: Path, tmp_path: Path, demo_generator
) -> None:
    demo_generator.generate(tmp_path)
    committed, fresh = _files(demo), _files(tmp_path)
    assert sorted(committed) == sorted(fresh)
    assert [name for name in fresh if committed[name] != fresh[name]] == []


@pytest.mark.parametrize("name", PUBMED_FILES)
def test_md5_sidecar_matches(demo: Path, name: str) -> None:
    path = demo / "pubmed" / name
    sidecar = Path(f"{path}.md5").read_text(encoding="ascii")
    assert re.fullmatch(r"MD5\(([\w.]+)\)= ([0-9a-f]{32})\n", sidecar)
    assert sidecar == f"MD5({path.name})= {hashlib.md5(path.read_bytes()).hexdigest()}\n"


@pytest.mark.parametrize("name,count", PUBMED_FILES.items())
def test_pubmed_parser_reads_every_article(demo: Path, name: str, count: int) -> None:
    path = demo / "pubmed" / name
    articles = list(pubmed_parser.parse_medline_xml(str(path)))
    root = _root(path)
    assert len(articles) == count
    assert [a["pmid"] for a in articles] == _pmids(root)
    assert len(set(_pmids(root))) == count
    assert all(a["title"] for a in articles)
    assert [a["title"] for a in articles] == [
        "".join(t.itertext()) for t in root.iter("ArticleTitle")
    ]
    assert all(2015 <= int(a["pubdate"]) <= 2024 for a in articles)
    no_abstract = sum(not a["abstract"] for a in articles)
    assert no_abstract == len(root.xpath("PubmedArticle[not(.//Abstract)]"))
    assert 0.005 * count <= no_abstract <= 0.05 * count
    assert sum(a["languages"] == "eng" for a in articles) > 0.9 * count


def test_baseline_years_and_structured_abstracts(demo: Path) -> None:
    roots = [_root(demo / "pubmed" / name) for name in PUBMED_FILES if name.startswith("baseline")]
    years = {year for root in roots for year in root.xpath("//PubDate/Year/text()")}
    assert years == {str(year) for year in range(2015, 2025)}
    labelled = sum(len(root.xpath("PubmedArticle[.//AbstractText[@Label]]")) for root in roots)
    assert 0.1 * 3000 < labelled < 0.5 * 3000
    assert {"BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"} <= {
        category for root in roots for category in root.xpath("//AbstractText/@NlmCategory")
    }


def test_update_file_revises_adds_and_deletes(demo: Path) -> None:
    baseline = {
        pmid
        for name in PUBMED_FILES
        if name.startswith("baseline")
        for pmid in _pmids(_root(demo / "pubmed" / name))
    }
    update = _root(demo / "pubmed" / "updatefiles/demo25n0003.xml.gz")
    updated = set(_pmids(update))
    deleted = update.xpath("DeleteCitation/PMID/text()")
    assert update[-1].tag == "DeleteCitation"
    assert len(deleted) == len(set(deleted)) == 40
    assert set(deleted) <= baseline and not set(deleted) & updated
    assert len(updated & baseline) == 100
    assert len(updated - baseline) == 200
    assert update.xpath("PubmedArticle/MedlineCitation/PMID[@Version='2']")


@pytest.mark.parametrize("split,count", NER_COUNTS.items())
def test_ner_files_are_biobert_tsv(demo: Path, split: str, count: int) -> None:
    path = demo / "tasks" / "ner" / f"{split}.tsv"
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    for line in text.splitlines():
        assert line == "" or re.fullmatch(r"[^\t\s]+\t[BIO]", line), line
    sentences = _read_ner(path)
    assert len(sentences) == count
    for sentence in sentences:
        tags = [tag for _, tag in sentence]
        assert all(
            tag != "I" or previous in {"B", "I"} for previous, tag in zip(["O", *tags], tags)
        )
    lengths = [len(entity.split()) for entity in _entities(sentences)]
    assert len(lengths) > 0.5 * count and max(lengths) <= 4


def test_ner_test_has_unseen_disease_names(demo: Path) -> None:
    train = set(_entities(_read_ner(demo / "tasks" / "ner" / "train.tsv")))
    test = set(_entities(_read_ner(demo / "tasks" / "ner" / "test.tsv")))
    assert len(test - train) >= 0.2 * len(test)


@pytest.mark.parametrize("split,count", RE_COUNTS.items())
def test_re_files_are_gad_style(demo: Path, split: str, count: int) -> None:
    lines = (demo / "tasks" / "re" / f"{split}.tsv").read_text(encoding="utf-8").split("\n")
    assert lines.pop() == ""
    if split == "test":
        assert lines.pop(0) == "index\tsentence\tlabel"
        rows = [line.split("\t") for line in lines]
        assert [row[0] for row in rows] == [str(i) for i in range(count)]
        rows = [row[1:] for row in rows]
    else:
        rows = [line.split("\t") for line in lines]
    assert len(rows) == count
    assert all(len(row) == 2 and row[1] in {"0", "1"} for row in rows)
    assert all(s.count("@GENE$") == 1 and s.count("@DISEASE$") == 1 for s, _ in rows)
    assert 0.3 <= sum(label == "1" for _, label in rows) / count <= 0.5
