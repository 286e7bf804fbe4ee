"""Sentence splitting of the latest citations, and the corpus statistics."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from biocompact.corpus.sentences import build_splitter, chunks, split_sentences
from biocompact.corpus.stats import sum_corpus_stats
from biocompact.files.atomic import write_json
from biocompact.records.base import record_data

ABBREVIATIONS = (
    "Growth of E. coli K-12 was inhibited at 37 degrees C (Fig. 2). "
    "As reported by Smith et al. in 2001, the effect was dose-dependent. "
    "The difference was significant (p < 0.05). "
    "Expression of IL-2 rose 3.5-fold vs. controls, i.e. in treated mice."
)


@pytest.fixture(scope="module")
def splitter():
    return build_splitter("scispacy", None)


def test_biomedical_abbreviations(splitter):
    structured = (
        "BACKGROUND: Sepsis is common.\nMETHODS: We enrolled 1,657 patients. Data were analysed."
    )
    assert list(splitter.split([ABBREVIATIONS, "", structured])) == [
        [
            "Growth of E. coli K-12 was inhibited at 37 degrees C (Fig. 2).",
            "As reported by Smith et al. in 2001, the effect was dose-dependent.",
            "The difference was significant (p < 0.05).",
            "Expression of IL-2 rose 3.5-fold vs. controls, i.e. in treated mice.",
        ],
        [],
        [
            "BACKGROUND: Sepsis is common.",
            "METHODS: We enrolled 1,657 patients.",
            "Data were analysed.",
        ],
    ]


def test_long_inputs_are_cut_at_spaces(splitter):
    assert list(chunks("aaa bb c dddd", max_chars=6)) == ["aaa bb", "c dddd"]
    assert list(chunks("abcdefgh", max_chars=3)) == ["abc", "def", "gh"]
    assert list(chunks("", max_chars=3)) == []
    splitter.max_chars = 40
    try:
        (sentences,) = splitter.split(["word " * 100])
    finally:
        splitter.max_chars = 10_000
    assert " ".join(sentences) == ("word " * 100).strip()
    assert max(len(sentence) for sentence in sentences) <= 40


def test_unknown_splitter_and_missing_model():
    with pytest.raises(ValueError, match="unknown sentence splitter 'pysbd-fast'"):
        build_splitter("pysbd-fast")
    with pytest.raises(RuntimeError, match="'en_core_sci_nonexistent' is not installed"):
        build_splitter("scispacy", "en_core_sci_nonexistent")


def test_split_sentences_file(tmp_path):
    citations = [
        {
            "pmid": "1",
            "version": 1,
            "year": 2001,
            "title": "E. coli growth.",
            "abstract": ABBREVIATIONS,
        },
        {"pmid": "2", "version": 1, "year": None, "title": "Old title.", "abstract": "Old text."},
        {"pmid": "2", "version": 2, "year": None, "title": "New  title.", "abstract": "New text."},
        {"pmid": "3", "version": 1, "year": 2001, "title": "Title only.", "abstract": ""},
        {"pmid": "4", "version": 1, "year": 2001, "title": "Deleted later.", "abstract": "Gone."},
    ]
    documents, keep = tmp_path / "p.jsonl.gz", tmp_path / "p.keep.txt.gz"
    with gzip.open(documents, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps({**c, "language": "eng"}) + "\n" for c in citations)
    keep.write_bytes(gzip.compress(b"1\n2\n3\n"))
    sentences, stats = tmp_path / "s.txt.gz", tmp_path / "s.stats.json"
    pmids = tmp_path / "s.pmids.txt.gz"
    result = split_sentences(documents, keep, sentences, stats, include_title=True, pmids=pmids)
    text = gzip.open(sentences, "rt", encoding="utf-8").read()
    assert text.split("\n\n")[1:] == ["New title.\nNew text.", ""]
    # each written document's PMID, in shard order (PMID 2 is its version 2)
    assert gzip.open(pmids, "rt", encoding="utf-8").read() == "1\n2\n"
    assert text.startswith("E. coli growth.\nGrowth of E. coli K-12")
    lines = [line for line in text.splitlines() if line]
    assert (
        result
        == json.loads(stats.read_text())
        == {
            "documents": 2,
            "sentences": 7,
            "words": sum(len(line.split()) for line in lines),
            "characters": sum(len(line) for line in lines),
            "per_year": {"2001": 1, "unknown": 1},
            "skipped": {"no_abstract": 1, "not_latest": 2},
        }
    )
    without_title = split_sentences(documents, keep, sentences, stats, include_title=False)
    assert without_title["sentences"] == 5


def test_corpus_stats(tmp_path):
    paths = []
    for stem, documents, year in [("a", 2, "2001"), ("b", 3, "2002")]:
        write_json(
            tmp_path / f"{stem}.stats.json",
            {
                "documents": documents,
                "sentences": 10 * documents,
                "words": 100 * documents,
                "characters": 1000 * documents,
                "per_year": {year: documents, "2000": 1},
                "skipped": {"no_abstract": 1, "not_latest": documents},
            },
        )
        write_json(
            tmp_path / f"{stem}.json",
            {
                "file": f"{stem}.xml.gz",
                "records": documents + 4,
                "documents": documents + 4,
                "skipped": {"book_article": 1},
                "deleted_pmids": ["7"],
            },
        )
        paths.append(stem)
    result = sum_corpus_stats(
        [tmp_path / f"{s}.stats.json" for s in paths],
        [tmp_path / f"{s}.json" for s in paths],
        paths,
        tmp_path / "stats.json",
    )
    assert (
        record_data(result)
        == json.loads((tmp_path / "stats.json").read_text())
        == {
            "files": ["a", "b"],
            "records": 13,
            "documents": 5,
            "sentences": 50,
            "words": 500,
            "characters": 5000,
            "per_year": {"2000": 2, "2001": 2, "2002": 3},
            "skipped": {"book_article": 2, "no_abstract": 2, "not_latest": 5},
            "sources": {
                "pubmed": {
                    "records": 13,
                    "documents": 5,
                    "sentences": 50,
                    "words": 500,
                    "characters": 5000,
                },
                "pmc": {"records": 0, "documents": 0, "sentences": 0, "words": 0, "characters": 0},
                "text": {"records": 0, "documents": 0, "sentences": 0, "words": 0, "characters": 0},
            },
        }
    )


def test_corpus_stage_never_imports_torch(repo_root):
    code = (
        "import sys\n"
        "from biocompact.corpus import download, listing, pmc, pubmed, sentence_eval\n"
        "from biocompact.corpus import local_text, sentence_rules, sentences, stats, updates\n"
        "from biocompact.corpus import decontamination, evaluation_text\n"
        "list(sentences.build_splitter().split(['One. Two.']))\n"
        "list(sentences.build_splitter('scispacy').split(['One. Two.']))\n"
        "assert not {'torch', 'transformers'} & set(sys.modules), 'torch imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=repo_root, timeout=120)
