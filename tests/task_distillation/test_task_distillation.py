"""Task-specific distillation on transfer data (BioXtract): the soft-label loss against
hand-computed values, the randomised transfer data, the stored teacher outputs, the
students of stage 3 on a tiny BERT, the summary and the report's table."""

from __future__ import annotations

import gzip
import json
import logging
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import lxml.html
import pytest
import torch
from planted_evaluation import DEV_SENTENCE, PUBMEDQA_PMID, TEST_SENTENCE, planted_tasks
from snakemake_runs import dry_run
from tiny_models import HYPERPARAMETERS
from torchrun_jobs import run_on_two_processes

from biocompact.entries import parse_entry
from biocompact.records.base import record_data
from biocompact.records.classifier_evaluation import ClassifierEvaluation, ClassifierScores
from biocompact.report.aggregation import aggregate
from biocompact.report.render import build_report
from biocompact.task_distillation.randomised import QUESTION_STARTERS, randomised_examples
from biocompact.task_distillation.settings import TransferSetSettings
from biocompact.task_distillation.summary import SETTINGS, read_summary, write_summary
from biocompact.task_distillation.transfer import (
    build_transfer_set,
    read_source,
    read_transfer_set,
    write_transfer_set,
)
from biocompact.training.launch import SPEC_FILE, JobSpec


def _transfer(entry: dict) -> TransferSetSettings:
    """A transfer-set entry with the schema's defaults, parsed."""
    return parse_entry(
        TransferSetSettings, {"format": "text", "max_examples": None, **entry, "name": "transfer"}
    )


# ----------------------------------------------------------------------------- the loss


def test_binary_soft_label_loss_is_the_hand_computed_cross_entropy():
    from biocompact.task_distillation.soft_labels import soft_label_loss

    logits = torch.tensor(
        [[0.0, 1.0], [2.0, 0.0]]
    )  # margins of the positive label (index 1): 1, -2
    soft = torch.tensor([[0.8], [0.1]])
    # q_S = sigmoid(1) = 0.7310586, sigmoid(-2) = 0.1192029
    first = -(0.8 * math.log(0.7310586) + 0.2 * math.log(1 - 0.7310586))  # 0.5132617
    second = -(0.1 * math.log(0.1192029) + 0.9 * math.log(1 - 0.1192029))  # 0.3269280
    assert soft_label_loss(logits, soft, 1.0).item() == pytest.approx(
        (first + second) / 2, abs=1e-6
    )
    assert soft_label_loss(logits[:1], soft[:1], 1.0).item() == pytest.approx(0.5132617, abs=1e-6)
    # T = 2: q_S = sigmoid(0.5) = 0.6224593 -> 0.8 * 0.4740770 + 0.2 * 0.9740770
    assert soft_label_loss(logits[:1], soft[:1], 2.0).item() == pytest.approx(0.5740770, abs=1e-6)
    # the positive label in column 0: the margin changes sign
    assert soft_label_loss(logits[:1], soft[:1], 1.0, positive=0).item() == pytest.approx(
        -(0.8 * math.log(1 - 0.7310586) + 0.2 * math.log(0.7310586)), abs=1e-6
    )


def test_multiclass_soft_label_loss_is_the_hand_computed_soft_cross_entropy():
    from biocompact.task_distillation.soft_labels import soft_label_loss

    logits = torch.tensor([[0.0, math.log(2.0), 0.0]])  # p_S = 1/4, 1/2, 1/4
    soft = torch.tensor([[0.5, 0.25, 0.25]])
    expected = 0.5 * math.log(4) + 0.25 * math.log(2) + 0.25 * math.log(4)  # 1.2130076
    assert soft_label_loss(logits, soft, 1.0).item() == pytest.approx(expected, abs=1e-6)
    assert expected == pytest.approx(1.2130076, abs=1e-6)


def test_teacher_probabilities_sigmoid_for_two_labels_softmax_otherwise():
    from biocompact.task_distillation.soft_labels import teacher_probabilities

    binary = teacher_probabilities(torch.tensor([[1.0, 3.0]]), temperature=2.0)
    assert binary.shape == (1, 1)
    assert binary.item() == pytest.approx(
        1 / (1 + math.exp(-1.0)), abs=1e-6
    )  # sigmoid((3 - 1) / 2)
    assert teacher_probabilities(
        torch.tensor([[1.0, 3.0]]), 2.0, positive=0
    ).item() == pytest.approx(1 / (1 + math.exp(1.0)), abs=1e-6)
    three = teacher_probabilities(torch.tensor([[0.0, math.log(2.0), 0.0]]), temperature=1.0)
    assert three.tolist()[0] == pytest.approx([0.25, 0.5, 0.25], abs=1e-6)


# ----------------------------------------------------------------------------- randomised data

SOURCE = ["the cat sat on the mat", "a dog ran in the park today", "rain fell on the old town"]


def test_randomised_data_is_deterministic_for_a_seed():
    first = randomised_examples(SOURCE, 50, seed=7, questions=True)
    assert first == randomised_examples(SOURCE, 50, seed=7, questions=True)
    assert first != randomised_examples(SOURCE, 50, seed=8, questions=True)
    assert [e.text for e in randomised_examples(SOURCE, 5, seed=7)] == [
        e.text for e in randomised_examples(SOURCE, 5, seed=7)
    ]


def test_randomised_vocabulary_comes_only_from_the_source_passages():
    vocabulary = {word for passage in SOURCE for word in passage.split()}
    lengths = {len(passage.split()) for passage in SOURCE}
    for example in randomised_examples(SOURCE, 200, seed=1):
        assert set(example.text.split()) <= vocabulary
        assert len(example.text.split()) in lengths
        assert example.text_pair is None and example.label == ""


def test_randomised_questions_are_a_question_word_then_passage_words():
    for example in randomised_examples(SOURCE, 200, seed=2, questions=True, starters=["is", "how"]):
        starter, *words = example.text.split()
        assert starter in {"is", "how"}
        assert 3 <= len(words) <= 10
        assert set(words) <= set(example.text_pair.split())
    assert "is" in QUESTION_STARTERS


def test_randomised_words_follow_unigram_frequencies():
    examples = randomised_examples(["a a a a a a a a a b"], 300, seed=3)
    words = [word for example in examples for word in example.text.split()]
    assert set(words) == {"a", "b"}
    assert words.count("a") / len(words) == pytest.approx(0.9, abs=0.03)


def test_randomised_from_real_abstracts_draws_only_their_words(shared_data):
    path = next((shared_data / "text").iterdir())
    passages = [e.text for e in read_source(path, "text")]
    vocabulary = {word for passage in passages for word in passage.split()}
    examples = randomised_examples(passages, 20, seed=0)
    assert all(set(example.text.split()) <= vocabulary for example in examples)
    assert randomised_examples(passages, 20, seed=0) == examples


# ----------------------------------------------------------------------------- transfer sets


def test_transfer_sets_from_text_harness_format_and_randomised(tmp_path, repo_root):
    text = tmp_path / "text.txt.gz"
    with gzip.open(text, "wt", encoding="utf-8") as handle:
        handle.write("First passage.\n\n  Second passage.  \nThird.\n")
    record = build_transfer_set(
        _transfer({"path": str(text), "format": "text", "max_examples": 2}),
        tmp_path / "t.jsonl",
    )
    # the record's file as the rule writes it: these keys in this order
    assert list(record_data(record).items()) == [
        ("name", "transfer"),
        ("examples", 2),
        ("checked_test_sets", []),
        ("ngram", None),
        ("dropped", 0),
        ("dropped_by_task", {}),
    ]
    examples = read_transfer_set(tmp_path / "t.jsonl")
    assert [(e.text, e.label, e.text_pair) for e in examples] == [
        ("First passage.", "", None),
        ("Second passage.", "", None),
    ]
    train = repo_root / "demo/tasks/re/train.tsv"
    build_transfer_set(
        _transfer({"path": str(train), "format": "biobert_tsv", "max_examples": None}),
        tmp_path / "re.jsonl",
    )
    labelled = read_transfer_set(tmp_path / "re.jsonl")
    assert len(labelled) == 600 and {e.label for e in labelled} == {"0", "1"}
    assert labelled[0].text == train.read_text(encoding="utf-8").split("\n")[0].split("\t")[0]
    settings = {
        "randomised": {
            "source": str(text),
            "examples": 4,
            "seed": 0,
            "questions": True,
            "question_starters": ["is"],
        }
    }
    build_transfer_set(_transfer(settings), tmp_path / "random.jsonl")
    rows = [json.loads(line) for line in (tmp_path / "random.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and all(
        row["text"].startswith("is ") and row["text_pair"] for row in rows
    )
    assert all(row["label"] is None for row in rows)


@pytest.fixture
def evaluation_index(tmp_path: Path):
    """The index of the planted tasks' dev and test text (tests/planted_evaluation.py)."""
    from biocompact.corpus.decontamination import build_evaluation_index

    return build_evaluation_index(planted_tasks(tmp_path / "tasks"), 13, tmp_path / "e.npz")


def test_transfer_examples_that_overlap_a_test_set_are_dropped_and_counted(
    tmp_path, evaluation_index
):
    """Of five lines, the test sentence (other case and spacing) is dropped; the dev
    sentence (not a test set) and a near miss of 12 test words are kept; the set stops at
    max_examples 3 kept, so the fifth line is never read."""
    lines = [
        "A first clean passage.",
        TEST_SENTENCE.upper().replace(" ", "  "),
        DEV_SENTENCE,
        "In young women, carriers of the variant showed an increased risk of stroke.",
        "A passage never reached.",
    ]
    text = tmp_path / "passages.txt"
    text.write_text("\n".join(lines) + "\n")
    settings = _transfer({"path": str(text), "max_examples": 3})
    record = build_transfer_set(settings, tmp_path / "t.jsonl", evaluation_index)
    assert [e.text for e in read_transfer_set(tmp_path / "t.jsonl")] == [
        lines[0],
        lines[2],
        lines[3],
    ]
    assert list(record_data(record).items()) == [
        ("name", "transfer"),
        ("examples", 3),
        ("checked_test_sets", ["re-task", "hoc-task", "qa-task", "ner-task"]),
        ("ngram", 13),
        ("dropped", 1),
        ("dropped_by_task", {"re-task": 1}),
    ]
    # without the index nothing is dropped
    unchecked = build_transfer_set(settings, tmp_path / "u.jsonl")
    assert (unchecked.examples, unchecked.dropped) == (3, 0)


def test_a_pubmedqa_transfer_example_with_a_test_pmid_is_dropped(tmp_path, evaluation_index):
    transfer = {
        PUBMEDQA_PMID: {"QUESTION": "Q1?", "CONTEXTS": ["Other text."], "final_decision": "no"},
        "778": {"QUESTION": "Q2?", "CONTEXTS": ["More text."], "final_decision": "yes"},
    }
    (tmp_path / "transfer.json").write_text(json.dumps(transfer))
    settings = _transfer({"path": str(tmp_path / "transfer.json"), "format": "pubmedqa_json"})
    record = build_transfer_set(settings, tmp_path / "t.jsonl", evaluation_index)
    assert [e.id for e in read_transfer_set(tmp_path / "t.jsonl")] == ["778"]
    assert (record.dropped, record.dropped_by_task) == (1, {"qa-task": 1})


def test_a_real_harness_file_as_labelled_transfer_set(shared_data, tmp_path):
    fold = shared_data / "re" / "GAD" / "1" / "train.tsv"
    build_transfer_set(
        _transfer({"path": str(fold), "format": "biobert_tsv", "max_examples": 50}),
        tmp_path / "gad.jsonl",
    )
    examples = read_transfer_set(tmp_path / "gad.jsonl")
    assert len(examples) == 50 and {e.label for e in examples} <= {"0", "1"}
    assert all("@GENE$" in e.text for e in examples)


# ----------------------------------------------------------------------------- tiny teacher and students


@pytest.fixture(scope="module")
def re_task(repo_root, tmp_path_factory) -> dict:
    """80 train, 20 dev and 40 test sentences of the demo RE task."""
    folder = tmp_path_factory.mktemp("re")
    source = repo_root / "demo/tasks/re"
    train = source.joinpath("train.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    test = source.joinpath("test.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "train.tsv").write_text("".join(train[:80]))
    (folder / "dev.tsv").write_text("".join(train[80:100]))
    (folder / "test.tsv").write_text("".join(test[:41]))
    return {
        "name": "tiny-re",
        "family": "re",
        "format": "biobert_tsv",
        "train": str(folder / "train.tsv"),
        "dev": str(folder / "dev.tsv"),
        "test": str(folder / "test.tsv"),
        "metric": "binary_f1",
        "hyperparameters": HYPERPARAMETERS,
    }


def _train_teacher(model: str, task: dict, folder: Path, **run) -> ClassifierEvaluation:
    """``train_teacher`` with seed 1, its outputs in ``folder``."""
    from biocompact.finetuning.train import FinetuneRun
    from biocompact.task_distillation.student import train_teacher
    from biocompact.taskfiles.settings import FinetuningTask

    files = {
        "model": "model",
        "metrics": "metrics.json",
        "predictions": "predictions.tsv",
        "evaluation": "evaluation.json",
        "evaluation_predictions": "evaluation.tsv",
    }
    return train_teacher(
        FinetuneRun(model, parse_entry(FinetuningTask, task), 1, **run),
        outputs={name: str(folder / file) for name, file in files.items()},
    )


def _soft_labels(
    teacher: str, transfer_set: str, task: dict, temperature: float, out: Path, **names
) -> dict:
    """Rule soft_labels of ``transfer_set`` into ``out``.jsonl and ``out``.json."""
    from biocompact.task_distillation.rules import soft_labels
    from biocompact.task_distillation.soft_labels import SoftLabelRun
    from biocompact.taskfiles.settings import FinetuningTask

    return soft_labels(
        SoftLabelRun(parse_entry(FinetuningTask, task), temperature, **names),
        inputs={"teacher": teacher, "transfer": transfer_set},
        outputs={"soft_labels": f"{out}.jsonl", "meta": f"{out}.json"},
    )


def _students(
    method: str,
    student_path: str,
    teacher_path: str,
    task: dict,
    *,
    seeds: list[int],
    out_evaluations: list[str],
    out_predictions: list[str],
    teacher_predictions: str,
    data_path: str | None = None,
    **run,
) -> list[ClassifierEvaluation]:
    """``run_students`` of its former arguments."""
    from biocompact.task_distillation.student import StudentRun, run_students
    from biocompact.taskfiles.settings import FinetuningTask

    return run_students(
        StudentRun(method, student_path, parse_entry(FinetuningTask, task), tuple(seeds), **run),
        inputs={
            "teacher": teacher_path,
            "teacher_predictions": teacher_predictions,
            "data": data_path,
        },
        outputs={"evaluations": out_evaluations, "predictions": out_predictions},
    )


@pytest.fixture(scope="module")
def teacher(tiny_model, re_task, tmp_path_factory) -> Path:
    """The tiny BERT fine-tuned on the tiny RE task (one torch thread, as every harness run)."""
    folder = tmp_path_factory.mktemp("teacher")
    _train_teacher(tiny_model, re_task, folder, model_name="tiny")
    return folder


def test_teacher_is_saved_and_evaluated_with_auc(teacher):
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(teacher / "model")
    assert model.config.id2label == {0: "0", 1: "1"}
    evaluation = json.loads((teacher / "evaluation.json").read_text())
    harness = json.loads((teacher / "metrics.json").read_text())
    assert evaluation["primary_metric"] == "roc_auc" and 0 <= evaluation["metrics"]["roc_auc"] <= 1
    assert evaluation["metrics"]["binary_f1"] == pytest.approx(harness["metrics"]["binary_f1"])
    assert evaluation["test_units"] == 40 and evaluation["setting"] == "teacher"
    assert (teacher / "evaluation.tsv").read_text().splitlines()[0] == "index\tgold\tpredicted"


def test_soft_labels_are_the_teachers_sigmoid_at_the_temperature(teacher, re_task, tmp_path):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from biocompact.task_distillation.soft_labels import read_soft_labels

    texts = ["the weather was sunny", "@GENE$ is associated with @DISEASE$ in this cohort"]
    write_transfer_set(tmp_path / "transfer.jsonl", read_transfer_set_from(texts, tmp_path))
    # in fp32, as the reference below (bf16 autocast, where the CPU has it, rounds at 1e-3)
    fp32_task = {**re_task, "hyperparameters": {**re_task["hyperparameters"], "bf16": False}}
    meta = _soft_labels(
        str(teacher / "model"),
        str(tmp_path / "transfer.jsonl"),
        fp32_task,
        2.0,
        tmp_path / "soft",
        transfer="t",
    )
    assert meta == json.loads((tmp_path / "soft.json").read_text())
    assert (meta["columns"], meta["activation"], meta["temperature"], meta["examples"]) == (
        ["1"],
        "sigmoid",
        2.0,
        2,
    )
    examples, soft = read_soft_labels(tmp_path / "soft.jsonl")
    assert [e.text for e in examples] == texts and all(len(row) == 1 for row in soft)
    model = AutoModelForSequenceClassification.from_pretrained(teacher / "model").eval()
    tokenizer = AutoTokenizer.from_pretrained(teacher / "model")
    for text, row in zip(texts, soft):
        with torch.no_grad():
            logits = model(**tokenizer(text, return_tensors="pt")).logits[0]
        assert row[0] == pytest.approx(
            torch.sigmoid((logits[1] - logits[0]) / 2.0).item(), abs=1e-5
        )


def read_transfer_set_from(texts: list[str], folder: Path):
    path = folder / "texts.txt"
    path.write_text("\n".join(texts) + "\n")
    return read_source(path, "text")


def test_soft_labels_refuse_single_texts_for_a_pair_task():
    from biocompact.task_distillation.soft_labels import check_input_kind
    from biocompact.taskfiles.readers import LabelledText

    single = [LabelledText("0", "a passage", "", "x", 1)]
    pair = [LabelledText("0", "is it?", "yes", "y", 1, text_pair="a passage")]
    check_input_kind(single, single, "t")
    with pytest.raises(
        ValueError,
        match="transfer set t: holds single texts but the task's examples are text pairs",
    ):
        check_input_kind(single, pair, "t")


def test_students_distilled_direct_and_untrained(teacher, re_task, tiny_model, tmp_path, repo_root):
    build_transfer_set(
        _transfer(
            {
                "path": str(repo_root / "demo/tasks/re/dev.tsv"),
                "format": "biobert_tsv",
                "max_examples": 60,
            }
        ),
        tmp_path / "transfer.jsonl",
    )
    _soft_labels(
        str(teacher / "model"), str(tmp_path / "transfer.jsonl"), re_task, 1.0, tmp_path / "soft"
    )
    common = {
        "student_path": tiny_model,
        "teacher_path": str(teacher / "model"),
        "task": re_task,
        "seeds": [1, 2],
        "teacher_predictions": str(teacher / "evaluation.tsv"),
        "experiment": "x",
        "model_name": "tiny-student",
    }
    records = {}
    for method, data in [
        ("distilled", tmp_path / "soft.jsonl"),
        ("direct", tmp_path / "transfer.jsonl"),
        ("untrained", None),
    ]:
        out = [str(tmp_path / method / f"seed{seed}.json") for seed in (1, 2)]
        predictions = [str(tmp_path / method / f"seed{seed}.tsv") for seed in (1, 2)]
        records[method] = _students(
            method,
            data_path=str(data) if data else None,
            out_evaluations=out,
            out_predictions=predictions,
            transfer=None if data is None else "dev",
            temperature=1.0 if method == "distilled" else None,
            **common,
        )
        for path, record in zip(out, records[method]):
            assert json.loads(Path(path).read_text()) == json.loads(json.dumps(record_data(record)))
            assert {"roc_auc", "binary_f1", "teacher_agreement"} <= set(record.scores.metrics)
            assert record.setting == method and record.scores.test_units == 40
    assert [r.train_examples for r in records["distilled"]] == [60, 60]
    assert [r.train_examples for r in records["untrained"]] == [0, 0]
    assert records["distilled"][0].temperature == 1.0 and records["direct"][0].temperature is None
    # the same seed gives the same untrained head
    rerun = _students(
        "untrained",
        out_evaluations=[str(tmp_path / "again.json")],
        out_predictions=[str(tmp_path / "again.tsv")],
        **{**common, "seeds": [1]},
    )
    assert rerun[0].scores.metrics == records["untrained"][0].scores.metrics


def test_task_distillation_specs_read_back_from_json_as_the_same_specs(tmp_path):
    """Every field set (none at its default), the task's and its hyperparameters' too: what
    a torchrun process reads is the spec its rule launched, every value of the type it had
    (text "3" among the folds stays text, epochs of 1 an int); a malformed one is an error
    naming the file."""
    from biocompact.finetuning.checkpoints import Checkpointing
    from biocompact.finetuning.train import FinetuneRun
    from biocompact.release.settings import CardSettings
    from biocompact.task_distillation.job import StudentsSpec, TeacherSpec, read_spec
    from biocompact.task_distillation.student import StudentRun
    from biocompact.taskfiles.settings import FinetuningTask
    from biocompact.tracking.trackers import TrackingSettings

    task = parse_entry(
        FinetuningTask,
        {
            "name": "t",
            "family": "re",
            "format": "blue_tsv",
            "train": "{fold}/train.tsv",
            "test": "{fold}/test.tsv",
            "preset": "p",
            "hyperparameters": {
                **HYPERPARAMETERS,
                "eval_steps": 5,
                "grid": {"learning_rate": [1e-3, 1e-4]},
                "threshold": 0.4,
            },
            "dataset": "d",
            "dev": "{fold}/dev.tsv",
            "folds": ["a", 2, "3"],
            "golden": "golden.json",
            "intermediate": "more.tsv",
            "max_train_examples": 10,
            "max_dev_examples": 11,
            "max_test_examples": 12,
            "metric": "f1",
            "negative_label": "false",
            "positive_labels": ["yes", "maybe"],
            "label_all_subtokens": True,
            "label_names": {"0": "no", "1": "yes"},
        },
    )
    checkpointing = Checkpointing(str(tmp_path / "checkpoints"), 7)
    teacher = TeacherSpec(
        run=FinetuneRun(
            "teacher/model",
            task,
            3,
            model_name="teacher",
            saved_label_names={"0": "no", "1": "yes"},
            card_settings=CardSettings("mit", ("en", "de"), ("biomedical",)),
            tracking=TrackingSettings(("tensorboard", "wandb"), "p", "m.db"),
        ),
        outputs={"metrics": "t/metrics.json", "model": "t/model"},
        threads=2,
        checkpointing=checkpointing,
        checkpoint_dir=checkpointing.folder,
    )
    students = StudentsSpec(
        run=StudentRun("distilled", "s", task, (1, 2), 2.0, "x", "general", "student"),
        inputs={"teacher": "t/model", "teacher_predictions": "t.tsv", "data": None},
        outputs={"evaluations": ["a/seed1/e.json", "a/seed2/e.json"], "predictions": ["1", "2"]},
        threads=3,
        checkpointing=checkpointing,
        checkpoint_dir=checkpointing.folder,
    )
    path = tmp_path / "job.json"
    for spec in (teacher, students):
        spec.write(path)
        read = read_spec(path)
        assert read == spec
        assert json.dumps(read.to_json()) == json.dumps(spec.to_json())
    path.write_text(path.read_text().replace('"threads": 3', '"threads": "three"'))
    with pytest.raises(
        ValueError, match=f"(?s){re.escape(str(path))}: not a StudentsSpec.*threads"
    ):
        read_spec(path)


def test_task_distillation_jobs_rebuild_their_runs_from_the_json_spec(
    re_task, tmp_path, monkeypatch
):
    """What every process of a teacher or students job runs: the rule's run, rebuilt from
    the spec as JSON, with its files and threads unchanged (one GPU: in this process)."""
    from biocompact.finetuning.train import FinetuneRun
    from biocompact.task_distillation import job, rules
    from biocompact.task_distillation.student import StudentRun
    from biocompact.taskfiles.settings import FinetuningTask

    calls = []
    monkeypatch.setattr(job, "train_teacher", lambda run, **files: calls.append((run, files)))
    monkeypatch.setattr(job, "run_students", lambda run, **files: calls.append((run, files)))
    task = parse_entry(FinetuningTask, re_task)
    teacher = FinetuneRun("tiny", task, 3, model_name="teacher")
    outputs = {"metrics": str(tmp_path / "t" / "metrics.json"), "model": str(tmp_path / "m")}
    rules.finetune_teacher(teacher, outputs=outputs, threads=2, gpus=0)
    students = StudentRun("distilled", "s", task, (1, 2), 2.0, "x", "general", "student")
    inputs = {"teacher": "t", "teacher_predictions": "t.tsv", "data": None}
    files = {"evaluations": ["a/seed1/e.json", "a/seed2/e.json"], "predictions": ["p1", "p2"]}
    rules.train_students(students, inputs=inputs, outputs=files, threads=1, gpus=1)
    spec = job.students_spec(students, inputs, files, 1)
    assert spec.checkpoint_dir == "a"
    spec.write(tmp_path / "job.json")
    job.run_job(job.read_spec(tmp_path / "job.json"))  # as a torchrun process reads it
    assert calls == [
        (teacher, {"outputs": outputs, "threads": 2, "checkpointing": None}),
        (students, {"inputs": inputs, "outputs": files, "threads": 1, "checkpointing": None}),
        (students, {"inputs": inputs, "outputs": files, "threads": 1, "checkpointing": None}),
    ]


def _torchrun(spec: JobSpec) -> None:
    """Run a task-distillation job ``spec`` under torchrun on two CPU processes (gloo), as
    its rule does on 2 GPUs, each keeping its students' weights (task_distillation_rank_weights)."""

    spec_path = Path(spec.checkpoint_dir) / SPEC_FILE
    run_on_two_processes("task_distillation_rank_weights", spec, spec_path, timeout=600)


def _same_shape(one_process: Path, two_processes: Path) -> None:
    """Two evaluation records (and their predictions files) alike but for the scores."""
    first, second = (json.loads(path.read_text()) for path in (one_process, two_processes))
    assert first.keys() == second.keys() and first["metrics"].keys() == second["metrics"].keys()
    assert first["test_units"] == second["test_units"] == 40
    rows = [
        path.with_suffix(".tsv").read_text().splitlines() for path in (one_process, two_processes)
    ]
    gold = [[row.split("\t")[:2] for row in lines] for lines in rows]
    assert gold[0] == gold[1]  # in dataset order, every test unit once


@pytest.mark.slow
def test_teacher_and_students_train_data_parallel_on_two_processes(
    teacher, re_task, tiny_model, tmp_path
):
    """The teacher's fine-tuning and the students' training under torchrun: rank 0 alone
    writes, the predictions come back in dataset order, and the students' weights are the
    same in both processes (DDP averaged their gradients). Both save resumable checkpoints
    on the way, removed at the end."""
    from safetensors.torch import load_file
    from task_distillation_rank_weights import rank_file, run_job_keeping_weights

    from biocompact.finetuning.checkpoints import Checkpointing
    from biocompact.finetuning.train import FinetuneRun
    from biocompact.task_distillation.job import students_spec, teacher_spec
    from biocompact.task_distillation.student import StudentRun
    from biocompact.taskfiles.settings import FinetuningTask

    task = parse_entry(FinetuningTask, re_task)
    files = {
        "model": "model",
        "metrics": "metrics.json",
        "predictions": "predictions.tsv",
        "evaluation": "evaluation.json",
        "evaluation_predictions": "evaluation.tsv",
    }
    out = tmp_path / "teacher"
    outputs = {name: str(out / file) for name, file in files.items()}
    checkpoints = Checkpointing(str(tmp_path / "teacher-checkpoints"), 2)
    run = FinetuneRun(tiny_model, task, 1, model_name="tiny")
    _torchrun(teacher_spec(run, outputs, 1, checkpoints))
    assert not Path(checkpoints.folder).exists()
    _same_shape(teacher / "evaluation.json", out / "evaluation.json")
    assert (
        load_file(out / "model" / "model.safetensors").keys()
        == load_file(teacher / "model" / "model.safetensors").keys()
    )
    # one TensorBoard event file: rank 0's
    assert len(list((out / "tensorboard").rglob("events.out.tfevents.*"))) == 1

    transfer = [f"@GENE$ and @DISEASE$ sentence {i}" for i in range(32)]
    rows = [
        {"id": str(i), "text": text, "text_pair": None, "label": "1", "soft_label": [i / 32]}
        for i, text in enumerate(transfer)
    ]
    (tmp_path / "soft.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    inputs = {
        "teacher": str(teacher / "model"),
        "teacher_predictions": str(teacher / "evaluation.tsv"),
        "data": str(tmp_path / "soft.jsonl"),
    }
    run = StudentRun("distilled", tiny_model, task, (1,), temperature=2.0, experiment="x")
    one, two = (tmp_path / "one-process" / "seed1", tmp_path / "two-processes" / "seed1")
    outputs = {
        "evaluations": [str(one / "evaluation.json")],
        "predictions": [str(one / "evaluation.tsv")],
    }
    run_job_keeping_weights(students_spec(run, inputs, outputs, 1))  # in this process
    outputs = {
        "evaluations": [str(two / "evaluation.json")],
        "predictions": [str(two / "evaluation.tsv")],
    }
    spec = students_spec(run, inputs, outputs, 1, Checkpointing(str(tmp_path / "checkpoints"), 1))
    _torchrun(spec)
    assert not (tmp_path / "checkpoints").exists()
    _same_shape(one / "evaluation.json", two / "evaluation.json")
    assert sorted(path.name for path in two.iterdir()) == ["evaluation.json", "evaluation.tsv"]
    first, second = (torch.load(rank_file(two.parent, rank, 1)) for rank in (0, 1))
    assert first.keys() == second.keys()
    for name, weights in first.items():
        assert torch.equal(weights, second[name]), name
    # each process trained on half of every batch: not the one-process run's weights
    alone = torch.load(rank_file(one.parent, 0, 1))
    assert any(not torch.equal(weights, alone[name]) for name, weights in first.items())


# ------------------------------------------------------------ killed jobs resume


def _kill_after_checkpoint(spec: JobSpec, checkpoint: Path) -> None:
    """Run the job ``spec`` in a process of its own, as its rule does on one GPU, and kill it
    with SIGKILL once ``checkpoint`` is complete (written last: the extra state)."""
    from biocompact.finetuning.checkpoints import EXTRA_STATE

    spec_path = Path(spec.checkpoint_dir) / SPEC_FILE
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    spec.write(spec_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "biocompact.task_distillation.job", str(spec_path)],
        env={**os.environ, "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""},
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while not (checkpoint / EXTRA_STATE).exists():
        assert process.poll() is None, "the job ended before the checkpoint"
        assert time.monotonic() < deadline, "no checkpoint was written"
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL


def _same_weights(first: dict, second: dict) -> None:
    assert first.keys() == second.keys()
    for name, tensor in first.items():
        assert torch.equal(tensor, second[name]), name


def test_a_killed_teacher_job_resumes_to_the_weights_of_an_uninterrupted_one(
    tiny_model, re_task, tmp_path, caplog
):
    """finetune_teacher's job (the harness with its dev choice) killed after a checkpoint
    and started again ends with the model and scores of a run never stopped; its
    checkpoints are gone once its outputs are written."""
    from safetensors.torch import load_file

    from biocompact.finetuning.checkpoints import Checkpointing
    from biocompact.finetuning.train import FinetuneRun
    from biocompact.task_distillation.job import read_spec, run_job, teacher_spec
    from biocompact.taskfiles.settings import FinetuningTask

    # 80 examples, 16 a batch, 4 epochs: 20 steps, a dev evaluation after each epoch
    task = parse_entry(
        FinetuningTask, {**re_task, "hyperparameters": {**HYPERPARAMETERS, "epochs": 4}}
    )
    run = FinetuneRun(tiny_model, task, 1, model_name="tiny")
    names = ("model", "metrics", "predictions", "evaluation", "evaluation_predictions")
    files = ("model", "metrics.json", "predictions.tsv", "evaluation.json", "evaluation.tsv")

    def outputs(folder: Path) -> dict[str, str]:
        return {name: str(folder / file) for name, file in zip(names, files)}

    run_job(teacher_spec(run, outputs(tmp_path / "straight"), 1))  # no checkpoints
    checkpoints = tmp_path / "checkpoints"
    spec = teacher_spec(run, outputs(tmp_path / "killed"), 1, Checkpointing(str(checkpoints), 3))
    point = checkpoints / "lr0.001-batch16-epochs4" / "task"
    # step 9 of 20: in the second epoch, after the first epoch's dev evaluation (the best so far)
    _kill_after_checkpoint(spec, point / "checkpoint-9")
    assert not (tmp_path / "killed" / "evaluation.json").exists()
    with caplog.at_level(logging.INFO, logger="biocompact.finetuning.checkpoints"):
        run_job(read_spec(Path(spec.checkpoint_dir) / SPEC_FILE))  # started again
    assert f"resuming from checkpoint {point / 'checkpoint-'}" in caplog.text

    straight, resumed = (
        load_file(tmp_path / folder / "model" / "model.safetensors")
        for folder in ("straight", "killed")
    )
    _same_weights(straight, resumed)
    records = [
        json.loads((tmp_path / f / "metrics.json").read_text()) for f in ("straight", "killed")
    ]
    for key in ("metrics", "dev_metrics", "best_epoch"):
        assert records[0][key] == records[1][key], key
    assert not checkpoints.exists()


def test_a_killed_students_job_resumes_every_seed_to_the_weights_of_an_uninterrupted_one(
    teacher, re_task, tiny_model, tmp_path, caplog
):
    """train_students' job killed in its second seed: started again, the first seed is read
    back from its last checkpoint (nothing trained again) and the second continues; both
    end with the weights and evaluations of a run never stopped."""
    from task_distillation_rank_weights import rank_file, run_job_keeping_weights

    from biocompact.finetuning.checkpoints import Checkpointing
    from biocompact.task_distillation.job import read_spec, students_spec
    from biocompact.task_distillation.student import StudentRun
    from biocompact.taskfiles.settings import FinetuningTask

    rows = [
        {
            "id": str(i),
            "text": f"@GENE$ and @DISEASE$ case {i}",
            "text_pair": None,
            "label": "1",
            "soft_label": [i / 48],
        }
        for i in range(48)
    ]
    (tmp_path / "soft.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    inputs = {
        "teacher": str(teacher / "model"),
        "teacher_predictions": str(teacher / "evaluation.tsv"),
        "data": str(tmp_path / "soft.jsonl"),
    }
    # 48 examples, 16 a batch, 5 epochs: 15 steps a seed
    task = parse_entry(
        FinetuningTask, {**re_task, "hyperparameters": {**HYPERPARAMETERS, "epochs": 5}}
    )
    run = StudentRun("distilled", tiny_model, task, (1, 2), temperature=2.0, experiment="x")

    def outputs(folder: Path) -> dict[str, list[str]]:
        return {
            "evaluations": [str(folder / f"seed{seed}" / "evaluation.json") for seed in (1, 2)],
            "predictions": [str(folder / f"seed{seed}" / "evaluation.tsv") for seed in (1, 2)],
        }

    run_job_keeping_weights(students_spec(run, inputs, outputs(tmp_path / "straight"), 1))
    checkpoints = tmp_path / "checkpoints"
    spec = students_spec(
        run, inputs, outputs(tmp_path / "killed"), 1, Checkpointing(str(checkpoints), 4)
    )
    _kill_after_checkpoint(spec, checkpoints / "seed2" / "checkpoint-8")
    assert (checkpoints / "seed1" / "checkpoint-15").is_dir()  # the first seed's last
    with caplog.at_level(logging.INFO, logger="biocompact.finetuning.checkpoints"):
        run_job_keeping_weights(read_spec(Path(spec.checkpoint_dir) / SPEC_FILE))  # started again
    for seed, step in ((1, 15), (2, 8)):
        assert (
            f"resuming from checkpoint {checkpoints / f'seed{seed}' / f'checkpoint-{step}'}"
            in caplog.text
        )
    for seed in (1, 2):
        straight, resumed = (
            torch.load(rank_file(tmp_path / folder, 0, seed)) for folder in ("straight", "killed")
        )
        _same_weights(straight, resumed)
        records = [
            json.loads((tmp_path / f / f"seed{seed}" / "evaluation.json").read_text())
            for f in ("straight", "killed")
        ]
        assert records[0]["metrics"] == records[1]["metrics"]
    assert not checkpoints.exists()


def test_checkpoints_of_other_settings_are_refused(tmp_path):
    from biocompact.finetuning.checkpoints import check_settings

    check_settings(tmp_path, {"run": {"seed": 1}})
    check_settings(tmp_path, {"run": {"seed": 1}})  # the same: resumed
    with pytest.raises(RuntimeError, match="were made with other settings; delete that folder"):
        check_settings(tmp_path, {"run": {"seed": 2}})


def test_distillation_trains_on_soft_labels_only(
    teacher, re_task, tiny_model, tmp_path, monkeypatch
):
    """The loss sees the soft labels and never the transfer set's own labels."""
    from biocompact.task_distillation import student

    seen = []
    original = student.soft_label_loss

    def spy(logits, soft, temperature, positive):
        seen.append((soft.shape, temperature, positive))
        return original(logits, soft, temperature, positive)

    monkeypatch.setattr(student, "soft_label_loss", spy)
    rows = [
        {
            "id": str(i),
            "text": f"@GENE$ and @DISEASE$ sentence {i}",
            "text_pair": None,
            "label": "1",
            "soft_label": [0.25],
        }
        for i in range(8)
    ]
    (tmp_path / "soft.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    _students(
        "distilled",
        tiny_model,
        str(teacher / "model"),
        re_task,
        seeds=[1],
        out_evaluations=[str(tmp_path / "e.json")],
        out_predictions=[str(tmp_path / "e.tsv")],
        teacher_predictions=str(teacher / "evaluation.tsv"),
        data_path=str(tmp_path / "soft.jsonl"),
        temperature=3.0,
    )
    assert seen and all(
        shape[1] == 1 and temperature == 3.0 and positive == 1
        for shape, temperature, positive in seen
    )


def test_direct_fine_tuning_needs_labels(teacher, re_task, tiny_model, tmp_path):
    with pytest.raises(ValueError, match="need the temperature"):
        _students(
            "distilled",
            tiny_model,
            str(teacher / "model"),
            re_task,
            seeds=[1],
            out_evaluations=[str(tmp_path / "e.json")],
            out_predictions=[str(tmp_path / "e.tsv")],
            teacher_predictions=str(teacher / "evaluation.tsv"),
            data_path=str(tmp_path / "s.jsonl"),
        )
    write_transfer_set(tmp_path / "t.jsonl", read_transfer_set_from(["no labels here"], tmp_path))
    with pytest.raises(ValueError, match="direct fine-tuning needs a label"):
        _students(
            "direct",
            tiny_model,
            str(teacher / "model"),
            re_task,
            seeds=[1],
            out_evaluations=[str(tmp_path / "e.json")],
            out_predictions=[str(tmp_path / "e.tsv")],
            teacher_predictions=str(teacher / "evaluation.tsv"),
            data_path=str(tmp_path / "t.jsonl"),
        )


def _yesno_file(path: Path, questions: range) -> None:
    """BioASQ yes/no snippets in BioBERT's SQuAD layout: two snippets per question; "yes" when
    the question's gene is said to cause the disease."""
    paragraphs = []
    for number in questions:
        answer = "yes" if number % 2 else "no"
        verb = "causes" if answer == "yes" else "is unrelated to"
        qid = f"{number:024d}"
        paragraphs += [
            {
                "context": f"Gene G{number} {verb} disease D{number}. {context}",
                "qas": [
                    {
                        "id": f"{qid}_{snippet:03d}",
                        "question": f"Does G{number} cause D{number}?",
                        "answer": answer,
                    }
                ],
            }
            for snippet, context in enumerate(["It was studied in mice.", "Cohorts were small."])
        ]
    path.write_text(json.dumps({"data": [{"title": "t", "paragraphs": paragraphs}]}))


def test_yes_no_teacher_soft_labels_on_randomised_questions_and_student(
    tiny_model, tmp_path, repo_root
):
    """A yes/no task: (question, snippet) pairs, scored per question; randomised transfer
    data with questions; soft labels of "yes"; the student's AUC per question."""
    for split, questions in [
        ("train", range(0, 40)),
        ("dev", range(40, 50)),
        ("test", range(50, 70)),
    ]:
        _yesno_file(tmp_path / f"{split}.json", questions)
    task = {
        "name": "tiny-yesno",
        "family": "qa_yesno",
        "format": "bioasq_yesno_json",
        **{split: str(tmp_path / f"{split}.json") for split in ("train", "dev", "test")},
        "hyperparameters": HYPERPARAMETERS,
    }
    teacher = tmp_path / "teacher"
    _train_teacher(tiny_model, task, teacher)
    build_transfer_set(
        _transfer(
            {
                "randomised": {
                    "source": str(repo_root / "demo/general/passages.txt"),
                    "examples": 40,
                    "seed": 0,
                    "questions": True,
                    "question_starters": ["is", "does"],
                }
            }
        ),
        tmp_path / "random.jsonl",
    )
    meta = _soft_labels(
        str(teacher / "model"), str(tmp_path / "random.jsonl"), task, 1.0, tmp_path / "soft"
    )
    assert (meta["labels"], meta["columns"], meta["activation"]) == (
        ["no", "yes"],
        ["yes"],
        "sigmoid",
    )
    [record] = _students(
        "distilled",
        tiny_model,
        str(teacher / "model"),
        task,
        seeds=[1],
        out_evaluations=[str(tmp_path / "s.json")],
        out_predictions=[str(tmp_path / "s.tsv")],
        teacher_predictions=str(teacher / "evaluation.tsv"),
        data_path=str(tmp_path / "soft.jsonl"),
        temperature=1.0,
    )
    assert record.scores.test_units == 20  # questions, not snippets
    assert {"accuracy", "macro_f1", "roc_auc", "teacher_agreement"} <= set(record.scores.metrics)
    assert "per question" in record.scores.definitions["roc_auc"]
    single = tmp_path / "single.jsonl"
    build_transfer_set(
        _transfer(
            {
                "path": str(repo_root / "demo/general/passages.txt"),
                "format": "text",
                "max_examples": 5,
            }
        ),
        single,
    )
    with pytest.raises(
        ValueError, match="holds single texts but the task's examples are text pairs"
    ):
        _soft_labels(str(teacher / "model"), str(single), task, 1.0, tmp_path / "x")


# ----------------------------------------------------------------------------- summary and report


def _evaluation(
    path: Path, setting: str, seed: int, auc: float, agreement: float | None = None
) -> None:
    """An ``evaluation.json`` of ``setting`` and ``seed``: ROC AUC ``auc``, accuracy 0.1
    less and, given, the ``agreement`` with the teacher."""
    metrics = {"roc_auc": auc, "accuracy": auc - 0.1}
    definitions = {"roc_auc": "ROC AUC of 1", "accuracy": "share correct"}
    if agreement is not None:
        metrics["teacher_agreement"] = agreement
        definitions["teacher_agreement"] = "share predicted as the teacher does"
    record = ClassifierEvaluation(
        setting=setting,
        model="small",
        task="re-b",
        seed=seed,
        model_path="small",
        scores=ClassifierScores(
            primary_metric="roc_auc", metrics=metrics, definitions=definitions, test_units=10
        ),
        train_examples=0,
        train_seconds=0.0,
        hyperparameters={},
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record_data(record)))


@pytest.fixture
def distillation_summary(tmp_path) -> Path:
    keys = {"experiment": "exp", "task": "re-b", "teacher": "big", "student": "small"}
    runs = [{**keys, "transfer": "", "setting": "teacher", "path": tmp_path / "teacher.json"}]
    _evaluation(tmp_path / "teacher.json", "teacher", 1, 0.95)
    values = {
        ("general", "distilled"): [0.70, 0.74, 0.72],
        ("bio", "distilled"): [0.80, 0.84, 0.82],
        ("bio", "direct"): [0.60, 0.61, 0.62],
        ("", "untrained"): [0.50, 0.52, 0.51],
    }
    for (transfer, setting), aucs in values.items():
        for seed, auc in enumerate(aucs, start=1):
            path = tmp_path / f"{transfer}-{setting}-{seed}.json"
            _evaluation(path, setting, seed, auc, agreement=auc + 0.05)
            runs.append({**keys, "transfer": transfer, "setting": setting, "path": path})
    write_summary(tmp_path / "summary.csv", runs)
    return tmp_path / "summary.csv"


def test_summary_medians_over_seeds(distillation_summary):
    summary = read_summary(distillation_summary)
    auc = summary[summary.metric == "roc_auc"].set_index(["transfer", "setting"])["median"]
    assert auc.to_dict() == pytest.approx(
        {
            ("", "teacher"): 0.95,
            ("general", "distilled"): 0.72,
            ("bio", "distilled"): 0.82,
            ("bio", "direct"): 0.61,
            ("", "untrained"): 0.51,
        }
    )
    row = summary[
        (summary.metric == "roc_auc")
        & (summary.transfer == "bio")
        & (summary.setting == "distilled")
    ]
    assert row["n_seeds"].item() == 3 and bool(row["primary"].item())
    assert row["min"].item() == pytest.approx(0.80) and row["std"].item() == pytest.approx(0.02)


def test_report_table_rows_are_transfer_sets_columns_the_settings(
    distillation_summary, tmp_path, repo_root
):
    metrics_path = tmp_path / "ft/{model}/{task}/seed{seed}/metrics.json"
    record = {
        "model": "big",
        "task": "re-b",
        "seed": 1,
        "family": "re",
        "primary_metric": "f1",
        "metrics": {"f1": 0.5},
        "definitions": {"f1": "F1"},
    }
    Path(str(metrics_path).format(model="big", task="re-b", seed=1)).parent.mkdir(parents=True)
    Path(str(metrics_path).format(model="big", task="re-b", seed=1)).write_text(json.dumps(record))
    aggregate(
        tmp_path / "scores.csv",
        tmp_path / "summary_ft.csv",
        tmp_path / "averages.csv",
        tmp_path / "s.md",
        models=["big"],
        tasks=["re-b"],
        seeds=[1],
        metrics_pattern=str(metrics_path),
    )
    output = tmp_path / "report.html"
    build_report(
        output,
        repo_root / "workflow/report/report.html.j2",
        summary=tmp_path / "summary_ft.csv",
        scores=tmp_path / "scores.csv",
        averages=tmp_path / "averages.csv",
        task_distillation=distillation_summary,
        source_dir=repo_root,
    )
    html = output.read_text(encoding="utf-8")
    header, *rows = html_table(html, "task-distillation-exp-roc_auc")
    assert header == ["Transfer set", *SETTINGS.values()]
    assert rows == [
        ["general", "95.0", "72.0 ± 2.0", "n/a", "51.0 ± 1.0"],
        ["bio", "95.0", "82.0 ± 2.0", "61.0 ± 1.0", "51.0 ± 1.0"],
    ]
    _, *agreement = html_table(html, "task-distillation-exp-teacher_agreement")
    assert agreement[1][:3] == ["bio", "", "87.0 ± 2.0"]
    assert 'href="#task-distillation"' in html


def html_table(html: str, table_id: str) -> list[list[str]]:
    """The cell texts of the table ``table_id``, row by row (header first)."""
    table = lxml.html.fromstring(html).get_element_by_id(table_id)
    return [[cell.text_content().strip() for cell in row] for row in table.iter("tr")]


# ----------------------------------------------------------------------------- the workflow


def test_demo_plans_one_teacher_soft_labels_per_transfer_set_and_student_jobs(
    tmp_path, repo_root, demo_config
):
    result = dry_run(tmp_path, demo_config, "task_distillation")
    assert result.returncode == 0, result.stderr[-3000:]
    counts = dict(
        line.split()
        for line in result.stdout.splitlines()
        if line.split()[:1]
        in (
            ["finetune_teacher"],
            ["soft_labels"],
            ["train_students"],
            ["untrained_students"],
            ["transfer_set"],
        )
        and len(line.split()) == 2
    )
    experiment = demo_config["task_distillation"]["experiments"]["demo-re-extraction"]
    transfers = len(experiment["transfer"])
    labelled = sum(
        "format" in demo_config["task_distillation"]["transfer_sets"][t]
        for t in experiment["transfer"]
    )
    assert counts == {
        "finetune_teacher": "1",
        "transfer_set": str(transfers),
        "soft_labels": str(transfers),
        "train_students": str(transfers + labelled),
        "untrained_students": "1",
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda td: td["experiments"]["demo-re-extraction"]["transfer"].append("nope"),
            "task_distillation.experiments.demo-re-extraction.transfer names 'nope'",
        ),
        (
            lambda td: td["experiments"]["demo-re-extraction"].update(task="demo-ner"),
            "task 'demo-ner' is not single-label classification or yes/no",
        ),
        (
            lambda td: td["transfer_sets"]["general-random"].update(
                path="demo/general/passages.txt"
            ),
            "task_distillation.transfer_sets.general-random needs either path or randomised",
        ),
    ],
)
def test_bad_task_distillation_config_is_named(tmp_path, repo_root, demo_config, change, message):
    change(demo_config["task_distillation"])
    result = dry_run(tmp_path, demo_config, "task_distillation")
    assert result.returncode != 0
    assert message in result.stdout + result.stderr
