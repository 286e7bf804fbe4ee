"""eval.json, metrics.json and task distillation's and compression's evaluation.json read
into their dataclasses and written back: the same keys, values and order; older records filled in from
the dataclasses' defaults; a malformed one refused, naming its file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from biocompact.entries import parse_record
from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.classifier_evaluation import ClassifierEvaluation, ClassifierScores
from biocompact.records.compressed_format import CompressedFormatEvaluation, LatencyMeasurement
from biocompact.records.language_model import (
    Distillation,
    LanguageModelRecord,
    ModelDescription,
    Pretraining,
)
from biocompact.records.metrics import FoldScores, MetricsRecord

TRAINING = {"steps": 2, "batch_size": 4, "learning_rate": 0.001, "seed": 0}
FIGURES = {
    "parameters": 1000,
    "heldout_loss": 6.5,
    "perplexity": 665.14,
    "heldout_tokens": 40,
    "fill_mask": [
        {"text": "a [MASK]", "answer": "b", "predictions": [{"token": "b", "score": 0.5}]}
    ],
}
# an ELECTRA model's record as pretraining writes it: every key a pretraining record has
ELECTRA = {
    "model": "electra-small",
    "init": "scratch",
    "family": "electra",
    "objective": "electra",
    "architecture": {"hidden_size": 64, "model_type": "electra"},
    "steps": 2,
    "train_tokens": 256,
    "training": TRAINING,
    **FIGURES,
    "generator_parameters": 400,
    "heldout_model": "generator",
    "replaced_token_accuracy": 0.85,
}
# a MiniLMv2 student's, whose options are all a method records
STUDENT = {
    "model": "student",
    "teacher": "results/pretraining/teacher/model",
    "method": "minilmv2",
    "student_init": "teacher_layers",
    "student_layers": None,
    "temperature": 2.0,
    "alpha": {"qq": 1.0, "kk": 1.0, "vv": 1.0},
    "layer_map": [2, 4],
    "minilmv2": {"relation_heads": 4, "teacher_layer": 4},
    "mlm_head_trained": False,
    "architecture": {"num_hidden_layers": 2},
    "steps": 2,
    "train_tokens": 256,
    "training": TRAINING,
    **FIGURES,
    "next_sentence_accuracy": 0.5,
    "sentence_order_accuracy": 0.75,
}


def _written(path: Path, record: dict) -> Path:
    write_json(path, record)
    return path


def _refused(read: Callable[[Path], object], path: Path, content: str, message: str) -> None:
    """``read`` of ``path`` holding ``content`` raises a ValueError matching ``message``
    that begins with the file's name."""
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        read(path)
    assert str(error.value).startswith(f"{path}: ")


def test_an_eval_record_holds_its_fields():
    electra = parse_record(LanguageModelRecord, ELECTRA)
    assert electra.description == ModelDescription(
        model="electra-small",
        origin=Pretraining(family="electra", objective="electra"),
        architecture={"hidden_size": 64, "model_type": "electra"},
    )
    assert (electra.generator_parameters, electra.heldout_model) == (400, "generator")
    student = parse_record(LanguageModelRecord, STUDENT).description
    assert student.distilled and not electra.description.distilled
    assert student.origin == Distillation(
        teacher="results/pretraining/teacher/model",
        method="minilmv2",
        student_init="teacher_layers",
        student_layers=None,
        temperature=2.0,
        alpha={"qq": 1.0, "kk": 1.0, "vv": 1.0},
        layer_map=[2, 4],
        minilmv2={"relation_heads": 4, "teacher_layer": 4},
        mlm_head_trained=False,
    )


def test_a_distilled_record_writes_only_the_options_its_method_read():
    """DistilBERT's options: temperature and alpha; no layer map, no MiniLMv2 section."""
    origin = Distillation(
        teacher="t",
        method="distilbert",
        student_init="teacher_layers",
        student_layers=[0, 2],
        temperature=2.0,
        alpha={"mlm": 2.0, "soft": 5.0, "align": 1.0},
        mlm_head_trained=True,
    )
    assert list(record_data(origin)) == [
        "teacher",
        "method",
        "student_init",
        "student_layers",
        "temperature",
        "alpha",
        "mlm_head_trained",
    ]


def test_an_older_pretraining_record_reads_with_the_defaults(tmp_path):
    """Written before init, family, the architecture and the training settings were
    recorded (or with a null objective)."""
    older = {
        key: value
        for key, value in ELECTRA.items()
        if key not in ("init", "family", "architecture", "training")
    }
    older["objective"] = None
    read = LanguageModelRecord.read(_written(tmp_path / "eval.json", older))
    assert read.description.origin == Pretraining(init="scratch", family="bert", objective="mlm")
    assert (read.description.architecture, read.training) == ({}, {})


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not a JSON language model record"),
        ("[1, 2]", "a list, not an object"),
        (json.dumps({**STUDENT, "init": "scratch"}), r"keys of no Distillation record: \['init'\]"),
        (
            json.dumps({k: v for k, v in ELECTRA.items() if k != "heldout_loss"}),
            r"lacks \['heldout_loss'\]",
        ),
        (
            json.dumps({k: v for k, v in STUDENT.items() if k != "mlm_head_trained"}),
            r"lacks \['mlm_head_trained'\]",
        ),
    ],
)
def test_a_malformed_eval_record_is_refused_naming_its_file(tmp_path, content, message):
    _refused(LanguageModelRecord.read, tmp_path / "eval.json", content, message)


RUN = {
    "model": "tiny",
    "task": "ner",
    "seed": 1,
    "family": "ner",
    "primary_metric": "f1",
    "metrics": {"f1": 0.5, "precision": 0.4},
    "dev_metrics": {"f1": 0.6, "precision": 0.5},
    "definitions": {"f1": "entity F1", "precision": "entity precision"},
    "best_epoch": 2.0,
    "train_examples": 10,
    "dev_examples": 4,
    "test_examples": 5,
    "train_seconds": 1.25,
    "hyperparameters": {"epochs": 3, "batch_size": 16, "learning_rate": 5e-05},
    "model_path": "results/pretraining/tiny/model",
    "dev_source": "dev.tsv",
    "labels": ["B-ENT", "I-ENT", "O"],
    "subsampled": {"test": {"used": 5, "of": 9}},
    "majority_baseline": {"f1": 0.0, "precision": 0.0},
    "constant_floors": {"all-positive": {"f1": 0.1, "precision": 0.05}},
    "best_step": 12,
    "truncated_words": 3,
    "untokenizable_words": 0,
    "grid_search": [{"learning_rate": 5e-05, "dev": 0.6}, {"learning_rate": 1e-4, "dev": 0.5}],
    "pooling": "mean (from the checkpoint's sentence-transformers configuration)",
    "hardware": "CPU (x86_64, 2 cores)",
    "selection": "This checkpoint is seed 1.",
}
FOLD = {
    "metrics": {"f1": 0.5},
    "dev_metrics": {"f1": 0.6},
    "best_epoch": 1.0,
    "train_examples": 5,
    "dev_examples": 2,
    "test_examples": 3,
    "dev_source": "dev.tsv",
}
# a cross-validated baseline: folds instead of best_step, no hyperparameters
FOLDS = {
    **{key: RUN[key] for key in list(RUN)[: list(RUN).index("majority_baseline")]},
    "seed": None,
    "best_epoch": None,
    "hyperparameters": None,
    "model_path": None,
    "fold_aggregate": "median over folds",
    "folds": {"1": FOLD, "2": FOLD},
    "truncated_words": 3,
    "untokenizable_words": 0,
    "grid_search": {"1": [{"dev": 0.6}], "2": [{"dev": 0.5}]},
}
# task distillation's evaluation.json of a teacher, as its job writes it
TEACHER_EVALUATION = {
    "setting": "teacher",
    "model": "tiny",
    "task": "demo-re",
    "seed": 1,
    "model_path": "results/task_distillation/teachers/tiny/demo-re/seed1/model",
    "primary_metric": "roc_auc",
    "metrics": {"accuracy": 0.75, "roc_auc": 0.8},
    "definitions": {"accuracy": "share of correct predictions", "roc_auc": "ROC AUC of '1'"},
    "test_units": 40,
    "train_examples": 100,
    "train_seconds": 2.5,
    "hyperparameters": {"epochs": 3, "batch_size": 16, "learning_rate": 5e-05},
}
# and of a student fine-tuned directly: the student fields first and last, a null temperature
STUDENT_EVALUATION = {
    "experiment": "demo-re-extraction",
    "transfer": "bio",
    "setting": "direct",
    "model": "student",
    "task": "demo-re",
    "seed": 2,
    "model_path": "results/distillation/student/model",
    "primary_metric": "roc_auc",
    "metrics": {"accuracy": 0.7, "roc_auc": 0.65, "teacher_agreement": 0.9},
    "definitions": {
        "accuracy": "share of correct predictions",
        "roc_auc": "ROC AUC of '1'",
        "teacher_agreement": "share of test units whose predicted label is the teacher's",
    },
    "test_units": 40,
    "train_examples": 60,
    "train_seconds": 1.25,
    "hyperparameters": {"epochs": 3, "batch_size": 16, "learning_rate": 5e-05},
    "temperature": None,
}
# compression's evaluation.json of an int8 model timed at batch 1 and 8, as its job writes it
BATCH_ONE = {
    "device": "cpu",
    "batch_size": 1,
    "sequence_length": 16,
    "latency_ms": 2.0,
    "latency_ms_runs": [2.5, 2.0, 1.5],
    "latency_ms_min": 1.5,
    "latency_ms_max": 2.5,
    "latency_ms_q1": 1.5,
    "latency_ms_q3": 2.5,
    "sequences_per_second": 500.0,
    "tokens_per_second": 8000.0,
}
INT8_EVALUATION = {
    "model": "tiny",
    "task": "demo-re",
    "seed": 1,
    "format": "int8",
    "model_path": "results/compression/tiny/demo-re/seed1/int8/model",
    "primary_metric": "binary_f1",
    "metrics": {"binary_f1": 0.5, "accuracy": 0.75},
    "test_examples": 300,
    "weights_file": "model_int8.pt",
    "size_bytes": 1250000,
    "size_mb": 1.25,
    "threads": 2,
    "repeats": 3,
    "timing": "interleaved rounds",
    "compared_with": ["fp32", "onnx"],
    "measurements": [
        BATCH_ONE,
        {
            **BATCH_ONE,
            "batch_size": 8,
            "latency_ms": 8.0,
            "latency_ms_runs": [8.0, 9.0, 7.0],
            "latency_ms_min": 7.0,
            "latency_ms_max": 9.0,
            "latency_ms_q1": 7.0,
            "latency_ms_q3": 9.0,
            "sequences_per_second": 1000.0,
            "tokens_per_second": 16000.0,
        },
    ],
    "torch": "2.5.1",
}
# and of a format timed at no length (none fitted its positions) by a job naming no model
UNTIMED_EVALUATION = {**INT8_EVALUATION, "model": None, "task": None, "measurements": []}


@pytest.mark.parametrize(
    ("record_class", "record"),
    [
        (LanguageModelRecord, ELECTRA),
        (LanguageModelRecord, STUDENT),
        (MetricsRecord, RUN),
        (MetricsRecord, FOLDS),
        (ClassifierEvaluation, TEACHER_EVALUATION),
        (ClassifierEvaluation, STUDENT_EVALUATION),
        (CompressedFormatEvaluation, INT8_EVALUATION),
        (CompressedFormatEvaluation, UNTIMED_EVALUATION),
    ],
    ids=["pretrained", "distilled", "one fold", "folds", "teacher", "student", "int8", "untimed"],
)
def test_a_record_reads_back_and_writes_the_same_file(tmp_path, record_class, record):
    path = _written(tmp_path / "record.json", record)
    read = record_class.read(path)
    assert list(record_data(read).items()) == list(record.items())
    assert parse_record(record_class, record_data(read)) == read
    again = _written(tmp_path / "again.json", record_data(read))
    assert again.read_bytes() == path.read_bytes()


def test_a_metrics_record_holds_its_fields_and_the_family_statistics():
    run = parse_record(MetricsRecord, RUN)
    assert run.stats == {"truncated_words": 3, "untokenizable_words": 0}
    assert (run.best_step, run.selection, run.folds) == (12, "This checkpoint is seed 1.", None)
    folds = parse_record(MetricsRecord, FOLDS)
    fold = FoldScores(
        metrics={"f1": 0.5},
        dev_metrics={"f1": 0.6},
        best_epoch=1.0,
        train_examples=5,
        dev_examples=2,
        test_examples=3,
        dev_source="dev.tsv",
    )
    assert (folds.seed, folds.best_step, folds.folds) == (None, None, {"1": fold, "2": fold})


def test_an_older_metrics_record_reads_with_the_defaults(tmp_path):
    """Before subsampling, labels, the baseline and the hardware were recorded."""
    older = {
        key: value
        for key, value in RUN.items()
        if key not in ("subsampled", "labels", "majority_baseline", "hardware", "train_seconds")
    }
    read = MetricsRecord.read(_written(tmp_path / "metrics.json", older))
    assert (read.subsampled, read.labels, read.majority_baseline, read.hardware) == (
        {},
        [],
        None,
        None,
    )
    assert read.train_seconds == 0.0
    assert "majority_baseline" not in record_data(read) and "hardware" not in record_data(read)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({**RUN, "metrics": [0.5]}, "its metrics are not an object"),
        (
            {**RUN, "notes": "by hand"},
            "keys that are neither fields nor counts: {'notes': 'by hand'}",
        ),
        ({k: v for k, v in RUN.items() if k != "primary_metric"}, r"lacks \['primary_metric'\]"),
    ],
)
def test_a_malformed_metrics_record_is_refused_naming_its_file(tmp_path, record, message):
    path = _written(tmp_path / "metrics.json", record)
    with pytest.raises(ValueError, match=message) as error:
        MetricsRecord.read(path)
    assert str(error.value).startswith(f"{path}: a malformed metrics record")


def test_an_evaluation_record_holds_its_scores_and_only_a_student_its_student_fields():
    teacher = parse_record(ClassifierEvaluation, TEACHER_EVALUATION)
    assert teacher.scores == ClassifierScores(
        primary_metric="roc_auc",
        metrics={"accuracy": 0.75, "roc_auc": 0.8},
        definitions={"accuracy": "share of correct predictions", "roc_auc": "ROC AUC of '1'"},
        test_units=40,
    )
    assert (teacher.experiment, teacher.transfer, teacher.temperature) == (None, None, None)
    student = parse_record(ClassifierEvaluation, STUDENT_EVALUATION)
    assert (student.experiment, student.transfer, student.setting) == (
        "demo-re-extraction",
        "bio",
        "direct",
    )
    # an untrained student's record keeps its null transfer and temperature
    untrained = record_data(
        parse_record(
            ClassifierEvaluation, {**STUDENT_EVALUATION, "transfer": None, "setting": "untrained"}
        )
    )
    assert (untrained["transfer"], untrained["temperature"]) == (None, None)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("{", "not a JSON task distillation evaluation"),
        (
            json.dumps({**TEACHER_EVALUATION, "temperature": 1.0}),
            r"keys of no teacher record: \['temperature'\]",
        ),
        (
            json.dumps({k: v for k, v in STUDENT_EVALUATION.items() if k != "test_units"}),
            r"lacks \['test_units'\]",
        ),
        (
            json.dumps({**STUDENT_EVALUATION, "definitions": TEACHER_EVALUATION["definitions"]}),
            r"metrics without a definition: \['teacher_agreement'\]",
        ),
    ],
)
def test_a_malformed_evaluation_record_is_refused_naming_its_file(tmp_path, record, message):
    _refused(ClassifierEvaluation.read, tmp_path / "evaluation.json", record, message)


def test_a_compressed_format_record_holds_its_score_and_measurements():
    int8 = parse_record(CompressedFormatEvaluation, INT8_EVALUATION)
    assert (int8.format, int8.primary_score, int8.size_mb) == ("int8", 0.5, 1.25)
    assert int8.measurements[0] == LatencyMeasurement(**BATCH_ONE)
    assert [(m.batch_size, m.latency_ms) for m in int8.measurements] == [(1, 2.0), (8, 8.0)]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("{", "not a JSON compressed format evaluation"),
        (
            json.dumps({**INT8_EVALUATION, "notes": "by hand"}),
            r"keys of no compressed format evaluation: \['notes'\]",
        ),
        (
            json.dumps({k: v for k, v in INT8_EVALUATION.items() if k != "size_mb"}),
            r"lacks \['size_mb'\]",
        ),
        (json.dumps({**INT8_EVALUATION, "measurements": BATCH_ONE}), "measurements are not a list"),
        (
            json.dumps({**INT8_EVALUATION, "measurements": [{**BATCH_ONE, "flops": 1}]}),
            r"keys of no measurement: \['flops'\]",
        ),
        (
            json.dumps({**UNTIMED_EVALUATION, "measurements": [{"batch_size": 1}]}),
            r"lacks \['device', 'sequence_length'",
        ),
    ],
)
def test_a_malformed_compressed_format_record_is_refused_naming_its_file(tmp_path, record, message):
    _refused(CompressedFormatEvaluation.read, tmp_path / "evaluation.json", record, message)
