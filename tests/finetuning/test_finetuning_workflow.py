"""The example configs build a DAG: seed presets and the public-dataset task registry."""

from __future__ import annotations

from dataclasses import replace

import yaml
from snakemake_runs import planned_jobs, run_with_configs

from biocompact.taskfiles.folds import fold_tasks, task_files
from biocompact.taskfiles.settings import FinetuningTask


def test_fold_paths_and_task_files():
    task = FinetuningTask(
        name="t",
        family="re",
        format="blue_tsv",
        train="d/{fold}/train.tsv",
        test="d/{fold}/test.tsv",
        folds=(1, 2),
    )
    task = replace(task, golden="g.json")
    assert [(fold, settings.train) for fold, settings in fold_tasks(task)] == [
        ("1", "d/1/train.tsv"),
        ("2", "d/2/train.tsv"),
    ]
    assert task_files(task) == [
        "d/1/train.tsv",
        "d/1/test.tsv",
        "d/2/train.tsv",
        "d/2/test.tsv",
        "g.json",
    ]
    plain = FinetuningTask(name="t", family="re", format="blue_tsv", train="t", test="u")
    assert fold_tasks(plain) == [(None, plain)]


def test_benchmark_config_builds_every_task_dag(repo_root, shared_data, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "demo").symlink_to(repo_root / "demo")
    (tmp_path / "shared").symlink_to(shared_data.parent)
    models = run / "models.yaml"
    # the demo's compression names teacher-distil, which this layer no longer fine-tunes
    layer = {
        "finetuning": {"models": ["teacher"], "seeds": [1]},
        "compression": {"models": [], "tasks": []},
    }
    models.write_text(yaml.safe_dump(layer))
    configs = [
        repo_root / "config.yaml",
        repo_root / "configs/published-presets.yaml",
        repo_root / "configs/benchmark.yaml",
        models,
    ]
    result = run_with_configs(run, configs, "-n", "--cores", "1", "finetuning")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    planned = planned_jobs(result)
    # 2 demo + 6 benchmark tasks; the demo's save_models: best keeps the model of every task
    # but the cross-validated one
    assert planned["finetune"] + planned["finetune_kept"] == 8
    assert planned["finetune"] == 1 and planned["majority_baseline"] == 8


def _dry_run(run, *configs: str) -> dict[str, int]:
    result = run_with_configs(run, list(configs), "-n", "--cores", "1")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return planned_jobs(result)


def test_blurb_config_downloads_once_and_converts_every_split(repo_root, tmp_path):
    counts = _dry_run(tmp_path, str(repo_root / "configs/blurb.yaml"))
    # one archive; 13 datasets x train/dev/test; 2 models x 13 tasks x 5 seeds; one efficiency
    # job measures both models together
    assert counts == {
        "download_dataset": 1,
        "prepare_dataset": 39,
        "finetune": 130,
        "majority_baseline": 13,
        "efficiency": 1,
        "aggregate": 1,
        "comparisons": 1,
        "report": 1,
        "all": 1,
    }
