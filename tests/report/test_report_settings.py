"""The comparisons rule's params parsed into its study."""

from __future__ import annotations

import pytest

from biocompact.entries import parse_entry
from biocompact.report.settings import ComparisonStudy
from biocompact.taskfiles.settings import FinetuningTask

RE_ENTRY = {"name": "re", "family": "re", "format": "biobert_tsv", "train": "a", "test": "b"}
NER_ENTRY = {**RE_ENTRY, "name": "ner", "family": "ner"}
PATTERNS = {
    "metrics_pattern": "{model}/{task}/{seed}/m.json",
    "predictions_pattern": "{model}/{task}/{seed}/p.tsv",
    "baseline_metrics_pattern": "{task}/m.json",
    "baseline_predictions_pattern": "{task}/p.tsv",
}
COMPARISONS_PARAMS = {
    "models": ["teacher", "student"],
    "tasks": {"re": RE_ENTRY, "ner": NER_ENTRY},
    "seeds": [1, 2],
    **PATTERNS,
    "teachers": {"student": "teacher"},
    "average": "tasks",
    "blurb_types": {"re": "relation"},
    "resamples": 10,
    "seed": 0,
}


def test_the_comparisons_params_parse_with_each_task_entry_in_order():
    study = parse_entry(ComparisonStudy, COMPARISONS_PARAMS, "rule comparisons")
    assert study == ComparisonStudy(
        models=("teacher", "student"),
        tasks={"re": FinetuningTask(**RE_ENTRY), "ner": FinetuningTask(**NER_ENTRY)},
        seeds=(1, 2),
        **PATTERNS,
        teachers={"student": "teacher"},
        average="tasks",
        blurb_types={"re": "relation"},
        resamples=10,
        seed=0,
    )
    assert list(study.tasks) == ["re", "ner"]
    with pytest.raises(ValueError, match="rule comparisons: resamples is '10', not an integer"):
        parse_entry(ComparisonStudy, {**COMPARISONS_PARAMS, "resamples": "10"}, "rule comparisons")
