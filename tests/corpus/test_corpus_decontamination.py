"""Decontamination: planted evaluation text found in the pretraining text, exactly, and
removed; the counts of contamination.json against a hand count."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest
from planted_evaluation import DEV_SENTENCE, HOC_PMID, PUBMEDQA_PMID, planted_tasks

from biocompact.corpus.decontamination import (
    MULTIPLIER,
    DecontaminationSettings,
    EvaluationIndex,
    build_evaluation_index,
    contamination_summary,
    decontaminate_shard,
    window_hashes,
    words,
)
from biocompact.corpus.evaluation_text import (
    EvaluationExample,
    EvaluationSplit,
    evaluation_splits,
    normalise_pmid,
)
from biocompact.corpus.sentences import split_sentences
from biocompact.corpus.textshards import iter_documents
from biocompact.entries import parse_entry
from biocompact.files.atomic import read_json
from biocompact.records.base import record_data
from biocompact.records.contamination import DocumentCounts, ShardMatches
from biocompact.taskfiles.formats import FORMATS
from biocompact.taskfiles.settings import FinetuningTask


def _shard(path: Path, documents: list[list[str]], pmids: list[str] | None = None) -> Path:
    """A sentence shard (and its PMIDs file beside it) as the sentence jobs write them."""
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines("\n".join(document) + "\n\n" for document in documents)
    if pmids is not None:
        with gzip.open(path.with_suffix(".pmids.gz"), "wt", encoding="utf-8") as handle:
            handle.writelines(pmid + "\n" for pmid in pmids)
    return path


@pytest.fixture
def tasks(tmp_path: Path) -> list[FinetuningTask]:
    return planted_tasks(tmp_path / "tasks")


# The planted corpus: three shards, the third local text without PMIDs.
PLANTED = {
    "pubmed": (
        [
            # the test sentence in other case, whitespace and punctuation
            [
                "Title one.",
                "IN YOUNG   women ; carriers of the VARIANT showed an increased risk of breast "
                "cancer compared with controls !",
            ],
            # the test sentence split differently by the corpus
            [
                "In young women, carriers of the variant showed an increased risk.",
                "Of breast cancer compared with controls.",
            ],
            # a PMID of HoC's test set (its text shares nothing)
            ["An unrelated title.", "Nothing here overlaps with anything."],
            # a near miss: the dev sentence's first 12 words, then other words
            [
                "Expression of the receptor was measured by quantitative PCR in liver biopsies "
                "obtained at surgery."
            ],
        ],
        ["1", "2", HOC_PMID, "3"],
    ),
    "pmc": (
        [
            ["A clean sentence about something else entirely."],  # PubMedQA's PMID
            [f"{DEV_SENTENCE[:-1]} and controls."],  # the dev sentence
        ],
        [PUBMEDQA_PMID, "4"],
    ),
    "text": ([["Another clean document.", "It has two sentences."]], None),
}
KEPT = [PLANTED["pubmed"][0][3], PLANTED["text"][0][0]]


def _decontaminate(index: EvaluationIndex, tmp_path: Path) -> tuple[list[ShardMatches], list]:
    records, kept = [], []
    for name, (documents, pmids) in PLANTED.items():
        shard = _shard(tmp_path / f"{name}.txt.gz", documents, pmids)
        out = tmp_path / f"{name}.clean.txt.gz"
        records.append(
            decontaminate_shard(
                index,
                shard,
                out,
                tmp_path / f"{name}.matches.json",
                shard.with_suffix(".pmids.gz") if pmids is not None else None,
            )
        )
        kept += list(iter_documents([out]))
    return records, kept


def _split(
    meta: dict,
    examples_found: tuple[int, int],
    pmid: tuple[int, int],
    ngram: tuple[int, int],
    removed: int,
) -> dict:
    """A split's expected entry: (examples found by PMID, by n-gram), (documents, sentences)
    matched by PMID and by n-gram, documents removed."""
    return {
        **meta,
        "pmid": {"documents": pmid[0], "sentences": pmid[1], "examples": examples_found[0]},
        "ngram": {"documents": ngram[0], "sentences": ngram[1], "examples": examples_found[1]},
        "documents_removed": removed,
    }


def test_planted_overlaps_are_found_counted_and_removed(tasks, tmp_path):
    index = build_evaluation_index(tasks, 13, tmp_path / "evaluation.npz")
    assert EvaluationIndex.load(tmp_path / "evaluation.npz").splits == index.splits
    records, kept = _decontaminate(EvaluationIndex.load(tmp_path / "evaluation.npz"), tmp_path)
    # the pretraining text keeps the near miss and the clean document, and nothing planted
    assert kept == KEPT
    summary = contamination_summary(index, records)
    files = {task.name: task for task in tasks}

    def meta(task: str, split: str, family: str, examples: int, under: int, pmids: int) -> dict:
        # every example here under the n-gram length has a PMID or none does
        unchecked = under if not pmids else 0
        return {
            "task": task,
            "split": split,
            "family": family,
            "files": [getattr(files[task], split)],
            "examples": examples,
            "examples_under_ngram": under,
            "examples_with_pmid": pmids,
            "examples_unchecked": unchecked,
        }

    assert record_data(summary) == {
        "ngram": 13,
        "tasks": ["re-task", "hoc-task", "qa-task", "ner-task"],
        "corpus": {
            "shards": 3,
            "documents": 7,
            "sentences": 11,
            "documents_removed": 5,
            "sentences_removed": 8,
            "documents_matched_by_pmid": 2,
            "documents_matched_by_ngram": 3,
        },
        "splits": [
            # the dev sentence in the PMC shard: one document, one sentence
            _split(meta("re-task", "dev", "re", 1, 0, 0), (0, 1), (0, 0), (1, 1), 1),
            # the test sentence twice: one sentence in the first document, both in the second;
            # the masked sentence has no 13 words between its masks
            _split(meta("re-task", "test", "re", 2, 1, 0), (0, 1), (0, 0), (2, 3), 2),
            _split(meta("hoc-task", "test", "dc", 1, 1, 1), (1, 0), (1, 2), (0, 0), 1),
            _split(meta("qa-task", "test", "qa_yesno", 1, 1, 1), (1, 0), (1, 1), (0, 0), 1),
            # no dev file, and a test split with nothing to match: rows of zeros
            _split(meta("ner-task", "test", "ner", 1, 1, 0), (0, 0), (0, 0), (0, 0), 0),
        ],
        "shards": [
            {
                "shard": str(tmp_path / "pubmed.txt.gz"),
                "documents": 4,
                "sentences": 7,
                "documents_removed": 3,
                "sentences_removed": 6,
                "documents_matched_by_pmid": 1,
                "documents_matched_by_ngram": 2,
            },
            {
                "shard": str(tmp_path / "pmc.txt.gz"),
                "documents": 2,
                "sentences": 2,
                "documents_removed": 2,
                "sentences_removed": 2,
                "documents_matched_by_pmid": 1,
                "documents_matched_by_ngram": 1,
            },
            {
                "shard": str(tmp_path / "text.txt.gz"),
                "documents": 1,
                "sentences": 2,
                "documents_removed": 0,
                "sentences_removed": 0,
                "documents_matched_by_pmid": 0,
                "documents_matched_by_ngram": 0,
            },
        ],
    }
    pubmed = ShardMatches.read(tmp_path / "pubmed.matches.json")
    assert pubmed == records[0]
    assert list(read_json(tmp_path / "pubmed.matches.json")) == [
        "shard",
        *DocumentCounts.names(),
        "splits",
        "matched_ngrams",
        "matched_pmids",
    ]
    assert pubmed.matched_pmids == [12345] and len(pubmed.matched_ngrams) == 5


def test_examples_neither_long_enough_nor_with_a_pmid_are_counted_unchecked():
    """With 5-word n-grams: a 6-word sentence is checked by its n-grams, a 3-word one with a
    PMID by its PMID; a 3-word one whose PMID is no number, and one of 6 words whose mask
    leaves halves of 2 and 4 words (no 5-word n-gram) without a PMID, by nothing: 3 under the
    n-gram length, 1 with a PMID, 2 unchecked of 4."""
    examples = (
        EvaluationExample(("one two three four five six",)),
        EvaluationExample(("short with pmid",), ("12345",)),
        EvaluationExample(("short bad pmid",), ("PMC-x",)),
        EvaluationExample(("a b @GENE$ c d e f",)),
    )
    split = EvaluationSplit("t", "test", "re", ("test.tsv",), examples)
    (meta,) = EvaluationIndex.build([split], ngram=5).splits
    assert (meta.examples_under_ngram, meta.examples_with_pmid) == (3, 1)
    assert meta.examples_unchecked == 2


def test_the_near_miss_matches_at_twelve_words(tasks, tmp_path):
    """The near miss shares exactly 12 words with the dev sentence: n-grams of 12 find it."""
    index = build_evaluation_index(tasks, 12, tmp_path / "evaluation.npz")
    _, kept = _decontaminate(index, tmp_path)
    assert kept == [PLANTED["text"][0][0]]


def test_a_pmid_with_a_new_version_still_matches(tasks, tmp_path):
    """HoC's PMID 12345, revised in PubMed (version 2): its latest record is still removed."""
    citations = [
        {"pmid": HOC_PMID, "version": 1, "title": "Old.", "abstract": "Old text."},
        {"pmid": HOC_PMID, "version": 2, "title": "New.", "abstract": "New text."},
        {"pmid": "6", "version": 1, "title": "Kept.", "abstract": "Kept text."},
    ]
    documents = tmp_path / "p.jsonl.gz"
    with gzip.open(documents, "wt", encoding="utf-8") as handle:
        handle.writelines(
            json.dumps({**c, "year": 2001, "language": "eng"}) + "\n" for c in citations
        )
    keep = tmp_path / "p.keep.txt.gz"
    keep.write_bytes(gzip.compress(b"12345\n6\n"))
    shard, pmids = tmp_path / "s.txt.gz", tmp_path / "s.pmids.txt.gz"
    split_sentences(documents, keep, shard, tmp_path / "s.json", pmids=pmids)
    assert gzip.open(pmids, "rt").read() == "12345\n6\n"
    index = build_evaluation_index(tasks, 13, tmp_path / "evaluation.npz")
    out = tmp_path / "clean.txt.gz"
    record = decontaminate_shard(index, shard, out, tmp_path / "m.json", pmids)
    assert list(iter_documents([out])) == [["Kept.", "Kept text."]]
    assert record.counts.documents_matched_by_pmid == 1 and record.matched_pmids == [12345]
    assert normalise_pmid("12345.2") == "12345"  # a versioned PMID in a dataset too


def test_pmids_and_documents_must_agree(tasks, tmp_path):
    index = build_evaluation_index(tasks, 13, tmp_path / "evaluation.npz")
    shard = _shard(tmp_path / "s.txt.gz", [["One."], ["Two."]], ["1"])
    with pytest.raises(ValueError, match="fewer PMIDs than the documents"):
        decontaminate_shard(
            index, shard, tmp_path / "o.txt.gz", tmp_path / "m.json", shard.with_suffix(".pmids.gz")
        )
    assert not (tmp_path / "o.txt.gz").exists()  # nothing half-written
    shard = _shard(tmp_path / "s.txt.gz", [["One."]], ["1", "2"])
    with pytest.raises(ValueError, match="more PMIDs than the documents"):
        decontaminate_shard(
            index, shard, tmp_path / "o.txt.gz", tmp_path / "m.json", shard.with_suffix(".pmids.gz")
        )


def test_normalised_words_and_pmids():
    assert words("IL-2 Receptor’s  α-chain, 5.3% ＰＣＲ ﬁbrosis under_score") == [
        "il", "2", "receptor", "s", "α", "chain", "5", "3", "pcr", "fibrosis", "under", "score",
    ]  # fmt: skip
    assert normalise_pmid(" http://www.ncbi.nlm.nih.gov/pubmed/23092129 ") == "23092129"
    assert normalise_pmid("123") == "123" and normalise_pmid("PMC123") is None
    assert normalise_pmid("") is None


def test_window_hashes_by_hand():
    """Windows of 2 over word hashes 1 2 0 3 4 5: those without a 0, hashed h1 * M + h2."""
    starts, hashes = window_hashes(np.array([1, 2, 0, 3, 4, 5], np.uint64), 2)
    m = int(MULTIPLIER)
    assert starts.tolist() == [0, 3, 4]
    assert hashes.tolist() == [(a * m + b) % 2**64 for a, b in ((1, 2), (3, 4), (4, 5))]
    assert window_hashes(np.array([1, 2], np.uint64), 3)[0].tolist() == []


def test_bioasq_snippets_carry_the_pmids_of_their_questions_snippets(shared_data):
    """Snippets of BioASQ get the PMIDs of their question's snippet documents from the golden
    file; masks break n-grams."""
    bioasq = shared_data / "qa" / "bioasq"
    task = parse_entry(
        FinetuningTask,
        {
            "name": "bioasq",
            "family": "qa_factoid",
            "format": "squad_json",
            "train": "unused",
            "test": str(bioasq / "BioASQ-test-factoid-7b.json"),
            "golden": str(bioasq / "7B_golden.json"),
        },
    )
    (test,) = evaluation_splits(task)
    golden = {q["id"]: q for q in json.loads((bioasq / "7B_golden.json").read_text())["questions"]}
    entry = json.loads((bioasq / "BioASQ-test-factoid-7b.json").read_text())["data"][0]
    first = entry["paragraphs"][0]
    question = golden[first["qas"][0]["id"][:24]]
    assert test.examples[0].texts == (first["context"],)
    assert test.examples[0].pmids == tuple(
        dict.fromkeys(snippet["document"].rsplit("/", 1)[1] for snippet in question["snippets"])
    )


def test_formats_are_the_task_families_readers():
    from biocompact.finetuning.tasks import FAMILIES

    harness = {
        (name, fmt): reader
        for name, families in FAMILIES.items()
        for family in families
        for fmt, reader in family.readers.items()
    }
    assert set(FORMATS) == set(harness)
    assert all(FORMATS[key].reader is harness[key] for key in harness)


def test_settings_and_the_schema_agree(repo_root):
    import yaml

    schema = yaml.safe_load((repo_root / "workflow/schemas/config.schema.yaml").read_text())
    section = schema["properties"]["decontamination"]["properties"]
    defaults = DecontaminationSettings()
    assert set(section) == set(DecontaminationSettings.__dataclass_fields__)
    assert all(getattr(defaults, key) == section[key]["default"] for key in section)
    settings = parse_entry(DecontaminationSettings, {"tasks": ["a"]})
    assert settings.checked_tasks(["a", "b"]) == ["a"]
    assert DecontaminationSettings().checked_tasks(["a", "b"]) == ["a", "b"]
    with pytest.raises(ValueError, match=r"decontamination.tasks names \['c'\]"):
        parse_entry(DecontaminationSettings, {"tasks": ["c"]}).checked_tasks(["a"])
    assert DecontaminationSettings().corpus_on(True) and not DecontaminationSettings().corpus_on(
        False
    )
    assert DecontaminationSettings(corpus=True).corpus_on(False)
    assert not DecontaminationSettings(corpus=False).corpus_on(True)


def _exact_ngrams(text: str, n: int) -> set[tuple[str, ...]]:
    """The n-grams of ``text`` as word tuples, written independently of the hashing code."""
    tokens = re.findall(r"[^\W_]+", text.lower())
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def test_real_abstracts_hold_real_test_sentences(shared_data, tmp_path):
    """GENIA's abstracts and the 725 real abstracts hold sentences of BC2GM's test set,
    tokenised differently ("40 - fold" there, "40-fold" here): the documents removed are
    exactly those an exact word-tuple search finds."""
    test = shared_data / "ner" / "BC2GM" / "test.tsv"
    task = parse_entry(
        FinetuningTask,
        {
            "name": "bc2gm",
            "family": "ner",
            "format": "biobert_tsv",
            "train": "x",
            "test": str(test),
        },
    )
    index = build_evaluation_index([task], 13, tmp_path / "evaluation.npz")
    documents = [
        [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for path in sorted((shared_data / "sentences" / "genia").glob("*/*.txt"))
    ]
    abstracts = (shared_data / "text" / "PubMedAbstract_1MB.txt").read_text(encoding="utf-8")
    documents += [[line] for line in abstracts.splitlines() if line.strip()]
    shard = _shard(tmp_path / "real.txt.gz", documents)
    out = tmp_path / "clean.txt.gz"
    record = decontaminate_shard(index, shard, out, tmp_path / "m.json")
    sentences = [
        " ".join(cells.split("\t")[0] for cells in block.splitlines())
        for block in test.read_text().split("\n\n")
        if block.strip()
    ]
    evaluation = set().union(*(_exact_ngrams(sentence, 13) for sentence in sentences))
    dirty = [d for d in documents if _exact_ngrams(" ".join(d), 13) & evaluation]
    assert record.counts.documents_removed == len(dirty) == 15  # docs/corpus.md
    kept = list(iter_documents([out]))
    assert len(kept) == len(documents) - len(dirty) and not any(d in kept for d in dirty)
    assert any("A 40-fold stimulation of chloramphenicol" in " ".join(d) for d in dirty)
