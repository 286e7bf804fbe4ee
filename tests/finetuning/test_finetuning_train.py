"""End-to-end fine-tuning on tiny slices of the real data (tiny BERT, 1-2 epochs on CPU)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from finetuning_tasks import parsed_task
from prediction_scores import scores_from_predictions
from tiny_models import HYPERPARAMETERS, MINILM, save_modernbert
from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

from biocompact.entries import parse_entry
from biocompact.finetuning.baseline import majority_baseline
from biocompact.finetuning.train import FinetuneRun, finetune
from biocompact.records.base import record_data
from biocompact.taskfiles.readers import DatasetFormatError
from biocompact.taskfiles.settings import Hyperparameters

RECORD_KEYS = [
    "model",
    "task",
    "seed",
    "family",
    "primary_metric",
    "metrics",
    "dev_metrics",
    "definitions",
    "best_epoch",
    "train_examples",
    "dev_examples",
    "test_examples",
    "train_seconds",
    "hyperparameters",
    "model_path",
]


@pytest.fixture(scope="module")
def tiny_modernbert(tmp_path_factory, repo_root) -> str:
    """A 2-layer, 32-wide ModernBERT (global, then 8-token local attention) with a
    ModernBERT-type byte-level vocabulary of the demo's general text."""
    architecture = {
        "num_hidden_layers": 2,
        "hidden_size": 32,
        "num_attention_heads": 2,
        "intermediate_size": 48,
        "local_attention": 8,
    }
    return str(save_modernbert(tmp_path_factory.mktemp("tiny-modernbert"), architecture, repo_root))


# the task families beyond NER (the families demo's) run with a BERT and a ModernBERT
BOTH_FAMILIES = pytest.mark.parametrize("model_fixture", ["tiny_model", "tiny_modernbert"])


def sentences(path: Path, first: int, count: int) -> str:
    """``count`` blank-line-terminated sentences of a BioBERT NER file from sentence ``first``."""
    blocks = path.read_text(encoding="utf-8").split("\n\n")
    return "\n\n".join(blocks[first : first + count]) + "\n\n"


def lines(path: Path, first: int, count: int) -> str:
    """``count`` lines of ``path`` from line ``first`` (0-based)."""
    all_lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(all_lines[first : first + count])


@pytest.fixture(scope="module")
def ner_task(shared_data, tmp_path_factory) -> dict:
    """50 train, 20 dev and 20 test sentences of NCBI-disease."""
    folder = tmp_path_factory.mktemp("ncbi")
    source = shared_data / "ner" / "NCBI-disease"
    for split, name, count in [("train", "train", 50), ("dev", "devel", 20), ("test", "test", 20)]:
        (folder / f"{split}.tsv").write_text(sentences(source / f"{name}.tsv", 0, count))
    return task_config(folder, family="ner")


@pytest.fixture(scope="module")
def re_task(shared_data, tmp_path_factory) -> dict:
    """60 train and 20 dev sentences of GAD fold 1 train, 30 of its test file (with header)."""
    folder = tmp_path_factory.mktemp("gad")
    source = shared_data / "re" / "GAD" / "1"
    (folder / "train.tsv").write_text(lines(source / "train.tsv", 0, 60))
    (folder / "dev.tsv").write_text(lines(source / "train.tsv", 60, 20))
    (folder / "test.tsv").write_text(lines(source / "test.tsv", 0, 31))
    return task_config(folder, family="re", metric="binary_f1")


def task_config(folder: Path, **settings) -> dict:
    return {
        "format": "biobert_tsv",
        **{split: str(folder / f"{split}.tsv") for split in ("train", "dev", "test")},
        "hyperparameters": dict(HYPERPARAMETERS),
        **settings,
    }


def run(model: str, task: dict, out: Path, seed: int = 1) -> tuple[dict, str]:
    record = record_data(
        finetune(
            FinetuneRun(model, parsed_task(**task), seed, model_name="tiny"),
            outputs={
                "metrics": str(out / "metrics.json"),
                "predictions": str(out / "predictions.tsv"),
            },
        )
    )
    assert json.loads((out / "metrics.json").read_text()) == record
    return record, (out / "predictions.tsv").read_text()


def test_ner_finetune_writes_metrics_and_conll_predictions(
    tiny_model, ner_task, tmp_path, monkeypatch
):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    out = tmp_path / "out"
    out.mkdir()
    record, predictions = run(tiny_model, ner_task, out)
    assert list(scratch.iterdir()) == []  # the Trainer's scratch folder is gone
    assert list(record)[: len(RECORD_KEYS)] == RECORD_KEYS
    assert (record["model"], record["task"], record["seed"], record["family"]) == (
        "tiny",
        "t",
        1,
        "ner",
    )
    assert record["primary_metric"] == "f1"
    assert set(record["metrics"]) == set(record["dev_metrics"]) == set(record["definitions"])
    assert set(record["metrics"]) == {
        "f1",
        "precision",
        "recall",
        "strict_f1",
        "strict_precision",
        "strict_recall",
        "word_macro_f1",
    }
    counts = (record["train_examples"], record["dev_examples"], record["test_examples"])
    assert counts == (50, 20, 20)
    assert record["best_epoch"] == 1 and record["labels"] == ["B-ENT", "I-ENT", "O"]
    assert record["hyperparameters"] == parse_entry(Hyperparameters, HYPERPARAMETERS).as_record()
    assert record["truncated_words"] > 0  # a few NCBI sentences exceed 48 sub-tokens
    blocks = predictions.rstrip("\n").split("\n\n")
    assert len(blocks) == 20
    rows = [row.split("\t") for block in blocks for row in block.split("\n")]
    assert all(len(row) == 3 for row in rows)
    gold_tokens = sentences(Path(ner_task["test"]), 0, 20).split()[::2]
    assert [row[0] for row in rows] == gold_tokens
    # nothing else left behind; tensorboard/: the run's curves (test_tensorboard_events.py)
    assert sorted(path.name for path in out.iterdir()) == [
        "metrics.json",
        "predictions.tsv",
        "tensorboard",
    ]


@BOTH_FAMILIES
def test_re_finetune_is_deterministic_for_a_seed(model_fixture, request, re_task, tmp_path):
    tiny_model = request.getfixturevalue(model_fixture)
    task = {**re_task, "hyperparameters": {**HYPERPARAMETERS, "epochs": 2}}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, first_predictions = run(tiny_model, task, tmp_path / "a", seed=3)
    second, second_predictions = run(tiny_model, task, tmp_path / "b", seed=3)
    assert first["primary_metric"] == "binary_f1"
    assert set(first["metrics"]) == {"accuracy", "macro_f1", "micro_f1", "binary_f1"}
    assert first["best_epoch"] in (1, 2)
    for key in ("metrics", "dev_metrics", "best_epoch"):
        assert first[key] == second[key]
    assert first_predictions == second_predictions
    # the constant floors on the same test examples, for the card: the 30 test sentences are
    # all "1", which the majority class (37 of 60 training labels) and all-positive predict
    assert first["majority_baseline"]["binary_f1"] == 1.0
    assert first["constant_floors"] == {"all-positive": first["majority_baseline"]}
    rows = first_predictions.splitlines()
    assert rows[0] == "index\tgold\tpredicted" and len(rows) == 1 + 30
    assert [row.split("\t")[0] for row in rows[1:]] == [str(i) for i in range(30)]


def test_any_hf_checkpoint_works_and_missing_dev_is_carved_from_train(re_task, tmp_path):
    """The real 6-layer MiniLM (a plain BertModel checkpoint), a handful of steps."""
    task = {**re_task, "dev": None, "hyperparameters": {**HYPERPARAMETERS, "max_seq_length": 24}}
    record, _ = run(str(MINILM), task, tmp_path)
    assert (record["train_examples"], record["dev_examples"]) == (54, 6)
    assert record["dev_source"].startswith("10% of train")
    assert 0.0 <= record["metrics"]["binary_f1"] <= 1.0


def test_label_unseen_in_training_fails_naming_file_and_line(tiny_model, re_task, tmp_path):
    test_file = tmp_path / "test.tsv"
    test_file.write_text("index\tsentence\tlabel\n0\tA @GENE$ and @DISEASE$.\t1\n1\tB.\t2\n")
    with pytest.raises(DatasetFormatError, match=r"test\.tsv:3: label '2' never seen in training"):
        run(tiny_model, {**re_task, "test": str(test_file)}, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def outputs(folder: Path, name: str) -> dict[str, str]:
    """A majority baseline's outputs: ``name``.json (metrics) and ``name``.tsv (predictions)."""
    return {"metrics": str(folder / f"{name}.json"), "predictions": str(folder / f"{name}.tsv")}


def test_majority_baseline(re_task, ner_task, tmp_path):
    record = record_data(
        majority_baseline(parsed_task(**re_task, name="gad"), outputs=outputs(tmp_path, "re"))
    )
    assert json.loads((tmp_path / "re.json").read_text()) == record
    # The test predictions are written in the fine-tuning runs' form and give the same scores.
    rescored = scores_from_predictions(tmp_path / "re.json", tmp_path / "re.tsv", re_task)
    assert rescored == pytest.approx(record["metrics"])
    assert (record["model"], record["seed"], record["best_epoch"]) == ("majority-class", None, None)
    # train slice: 37 x "1", 23 x "0"; the 30 test sentences are all "1"
    assert record["metrics"]["accuracy"] == 1.0 and record["metrics"]["binary_f1"] == 1.0
    assert list(record)[: len(RECORD_KEYS)] == RECORD_KEYS
    ner = record_data(
        majority_baseline(parsed_task(**ner_task, name="ncbi"), outputs=outputs(tmp_path, "ner"))
    )
    assert ner["metrics"] == dict.fromkeys(
        [
            "f1",
            "precision",
            "recall",
            "strict_f1",
            "strict_precision",
            "strict_recall",
            "word_macro_f1",
        ],
        0.0,
    )


def test_warmup_ratio_of_one_is_rejected(tiny_model, re_task, tmp_path):
    task = {**re_task, "hyperparameters": {**HYPERPARAMETERS, "warmup_ratio": 1.0}}
    with pytest.raises(ValueError, match="warmup_ratio: Input should be less than 1"):
        run(tiny_model, task, tmp_path)


QA_HYPERPARAMETERS = {
    **HYPERPARAMETERS,
    "max_seq_length": 64,
    "doc_stride": 32,
    "max_answer_length": 30,
    "n_best": 5,
}


def squad_subset(source: Path, target: Path, count: int, answers: dict | None = None) -> Path:
    """The first ``count`` (question, snippet) entries of a SQuAD file; ``answers`` sets a
    yes/no ``answer`` per question id."""
    data = json.loads(source.read_text())
    paragraphs = [p for article in data["data"] for p in article["paragraphs"]][:count]
    for paragraph in paragraphs:
        for qa in paragraph["qas"]:
            if answers is not None:
                qa["answer"] = answers[qa["id"][:24]]
    target.write_text(json.dumps({"data": [{"title": "t", "paragraphs": paragraphs}]}))
    return target


@BOTH_FAMILIES
def test_factoid_qa_scored_per_question_against_the_golden_file(
    model_fixture, request, shared_data, tmp_path
):
    tiny_model = request.getfixturevalue(model_fixture)
    folder = shared_data / "qa" / "bioasq"
    task = {
        "family": "qa_factoid",
        "format": "squad_json",
        "train": str(
            squad_subset(folder / "BioASQ-train-factoid-7b.json", tmp_path / "tr.json", 60)
        ),
        "test": str(squad_subset(folder / "BioASQ-test-factoid-7b.json", tmp_path / "te.json", 12)),
        "golden": str(folder / "7B_golden.json"),
        # the 500 pieces of the tiny ModernBERT's general-text vocabulary cut questions finely
        "hyperparameters": {
            **QA_HYPERPARAMETERS,
            "max_seq_length": 64 if model_fixture == "tiny_model" else 128,
        },
    }
    (tmp_path / "out").mkdir()
    short = {**task, "hyperparameters": {**QA_HYPERPARAMETERS, "max_seq_length": 40}}
    with pytest.raises(ValueError, match=r"longest question is \d+ tokens.*doc_stride 32"):
        run(tiny_model, short, tmp_path / "out")
    record, predictions = run(tiny_model, task, tmp_path / "out")
    assert record["primary_metric"] == "mrr"
    assert set(record["metrics"]) == {"strict_accuracy", "lenient_accuracy", "mrr"}
    assert record["dev_source"].startswith("10% of train") and record["labels"] == []
    assert record["features"] > record["test_examples"] == 12  # long snippets give 2+ windows
    rows = [row.split("\t") for row in predictions.splitlines()]
    questions = {
        json.loads(t.read_text())["data"][0]["paragraphs"][i]["qas"][0]["id"][:24]
        for t in [tmp_path / "te.json"]
        for i in range(12)
    }
    assert rows[0] == ["question", "gold", "predicted"] and {r[0] for r in rows[1:]} == questions
    assert all(1 <= len(json.loads(r[2])) <= 5 for r in rows[1:])


@BOTH_FAMILIES
def test_yesno_questions_scored_per_question(model_fixture, request, shared_data, tmp_path):
    tiny_model = request.getfixturevalue(model_fixture)
    folder = shared_data / "qa" / "bioasq"
    golden = json.loads((folder / "7B_golden.json").read_text())["questions"]
    answers = {q["id"]: q["exact_answer"] for q in golden if q["type"] == "yesno"}
    source = folder / "BioASQ-test-yesno-7b.json"
    task = {
        "family": "qa_yesno",
        "format": "bioasq_yesno_json",
        "train": str(squad_subset(source, tmp_path / "tr.json", 80, answers)),
        "test": str(squad_subset(source, tmp_path / "te.json", 30)),
        "golden": str(folder / "7B_golden.json"),
        "hyperparameters": HYPERPARAMETERS,
    }
    (tmp_path / "out").mkdir()
    record, predictions = run(tiny_model, task, tmp_path / "out")
    assert (record["primary_metric"], record["labels"]) == ("accuracy", ["no", "yes"])
    assert set(record["metrics"]) == {"accuracy", "macro_f1", "roc_auc"}
    snippets = json.loads((tmp_path / "te.json").read_text())["data"][0]["paragraphs"]
    questions = list(dict.fromkeys(p["qas"][0]["id"][:24] for p in snippets))
    rows = [row.split("\t") for row in predictions.splitlines()]
    assert rows[0] == ["question", "gold", "predicted", "probabilities"]
    assert [row[0] for row in rows[1:]] == questions and len(questions) < 30
    assert [row[1] for row in rows[1:]] == [answers[q] for q in questions]
    with pytest.raises(DatasetFormatError, match=r"te\.json:\d+: .*no yes/no answer"):
        run(tiny_model, {**task, "golden": None}, tmp_path / "out")


@pytest.mark.parametrize("unit", ["abstract", "sentence"])
@BOTH_FAMILIES
def test_hoc_multilabel_sentence_and_abstract_scores(
    model_fixture, request, shared_data, tmp_path, unit
):
    """The first 40 test sentences are 4 abstracts (the last cut short): at the abstract
    level 4 test examples, each its own row and unit of the predictions file."""
    first_index, test_examples = {"abstract": ("11872299", 4), "sentence": ("11872299_s0", 40)}[
        unit
    ]
    tiny_model = request.getfixturevalue(model_fixture)
    source = shared_data / "dc" / "hoc"
    # HoC's dev file holds all 10 labels in its first 170 sentences: it trains here
    for split, name, count in (("train", "dev", 170), ("dev", "train", 40), ("test", "test", 40)):
        (tmp_path / f"{split}.tsv").write_text(lines(source / f"{name}.tsv", 0, count + 1))
    task = {
        "family": "dc",
        "format": "hoc_tsv",
        **{split: str(tmp_path / f"{split}.tsv") for split in ("train", "dev", "test")},
        "unit": unit,
        "hyperparameters": {**HYPERPARAMETERS, "pos_weight": "auto", "head_learning_rate": 1e-2},
    }
    (tmp_path / "out").mkdir()
    record, predictions = run(tiny_model, task, tmp_path / "out")
    assert record["primary_metric"] == "abstract_micro_f1"
    assert set(record["metrics"]) == {"micro_f1", "macro_f1", "abstract_micro_f1"}
    assert record["test_examples"] == test_examples
    assert "OR-ed" in record["definitions"]["abstract_micro_f1"]
    assert record["definitions"]["micro_f1"].startswith(f"{unit}-level micro F1")
    assert record["abstracts"] == 4 and record["truncated_abstracts"] <= 4
    assert record["truncated_examples"] <= test_examples
    assert record["hyperparameters"]["pos_weight"] == "auto"
    assert record["pooling"] == "cls (the checkpoint has no sentence-transformers mean pooling)"
    rows = [line.split("\t") for line in predictions.splitlines()[1:]]
    assert rows[0][0] == first_index and len(rows) == test_examples
    if unit == "abstract":
        assert all(index == document for index, _, _, document in rows)
        assert record["metrics"]["micro_f1"] == record["metrics"]["abstract_micro_f1"]
    rescored = scores_from_predictions(
        tmp_path / "out" / "metrics.json", tmp_path / "out" / "predictions.tsv", task
    )
    assert rescored == pytest.approx(record["metrics"])


def test_cross_validation_folds_with_a_grid_report_the_median(tiny_model, shared_data, tmp_path):
    for fold in ("1", "2"):
        source = shared_data / "re" / "GAD" / fold
        (tmp_path / fold).mkdir()
        (tmp_path / fold / "train.tsv").write_text(lines(source / "train.tsv", 0, 50))
        (tmp_path / fold / "test.tsv").write_text(lines(source / "test.tsv", 0, 21))
    task = {
        "family": "re",
        "format": "biobert_tsv",
        "folds": [1, 2],
        "train": str(tmp_path / "{fold}" / "train.tsv"),
        "test": str(tmp_path / "{fold}" / "test.tsv"),
        "hyperparameters": {**HYPERPARAMETERS, "grid": {"learning_rate": [1e-3, 1e-4]}},
    }
    (tmp_path / "out").mkdir()
    record, predictions = run(tiny_model, task, tmp_path / "out")
    folds = record["folds"]
    assert list(folds) == ["1", "2"] and record["fold_aggregate"] == "median over folds"
    for name, value in record["metrics"].items():
        assert value == pytest.approx(
            (folds["1"]["metrics"][name] + folds["2"]["metrics"][name]) / 2
        )
    assert (record["test_examples"], folds["1"]["train_examples"]) == (40, 45)
    grid = record["grid_search"]["1"]
    assert [point["learning_rate"] for point in grid] == [1e-3, 1e-4]
    assert predictions.startswith("# fold 1\nindex\tgold\tpredicted\n")
    assert predictions.count("# fold") == 2
    baseline = record_data(majority_baseline(parsed_task(**task), outputs=outputs(tmp_path, "b")))
    assert list(baseline["folds"]) == ["1", "2"]


@BOTH_FAMILIES
def test_sentence_similarity_regression_scored_by_pearson(model_fixture, request, tmp_path):
    tiny_model = request.getfixturevalue(model_fixture)
    """BIOSSES-style pairs (made up here) through a one-output regression head."""
    words = ["gene", "protein", "cell", "tumour", "drug", "dose", "trial", "patient"]
    rows = [
        {
            "sentence1": f"the {a} binds the {b}",
            "sentence2": f"a {b} is bound by {a}",
            "gold_label": float((i * 7) % 5),
            "pairID": f"p{i}",
        }
        for i, (a, b) in enumerate((a, b) for a in words for b in words if a != b)
    ]
    for split, part in (("train", rows[:40]), ("dev", rows[40:48]), ("test", rows[48:56])):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in part))
    task = {
        "family": "similarity",
        "format": "similarity_jsonl",
        **{split: str(tmp_path / f"{split}.jsonl") for split in ("train", "dev", "test")},
        "hyperparameters": dict(HYPERPARAMETERS),
    }
    out = tmp_path / "out"
    out.mkdir()
    record, predictions = run(tiny_model, task, out)
    assert record["primary_metric"] == "pearson" and record["labels"] == []
    assert set(record["metrics"]) == {"pearson", "spearman", "mse"}
    assert -1.0 <= record["metrics"]["pearson"] <= 1.0
    lines_ = predictions.splitlines()
    assert lines_[0] == "index\tgold\tpredicted" and len(lines_) == 9
    baseline = record_data(majority_baseline(parsed_task(**task), outputs=outputs(tmp_path, "b")))
    assert baseline["metrics"]["pearson"] == 0.0  # a constant prediction


def _tiny_bert_config(**settings) -> BertConfig:
    """A one-layer, 8-wide BERT over a 10-token vocabulary."""
    return BertConfig(
        vocab_size=10,
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=8,
        **settings,
    )


def test_length_grouped_training_batches_and_length_sorted_evaluation(tmp_path):
    import torch
    from datasets import Dataset
    from transformers import Trainer, TrainingArguments

    from biocompact.finetuning.trainer import LengthGroupedTraining, length_sorted

    lengths = [3, 9, 5, 7, 2, 8, 4, 6]
    data = Dataset.from_dict({"input_ids": [[1] * n for n in lengths], "note": lengths})
    model = BertForMaskedLM(_tiny_bert_config())
    arguments = TrainingArguments(
        output_dir=str(tmp_path),
        per_device_train_batch_size=2,
        per_device_eval_batch_size=2,
        report_to=[],
        use_cpu=True,
    )
    grouped = type("Grouped", (LengthGroupedTraining, Trainer), {})
    trainer = grouped(model=model, args=arguments, train_dataset=data, eval_dataset=data)
    torch.manual_seed(0)
    loader = trainer.get_train_dataloader()
    assert loader.dataset.column_names == ["input_ids"]  # as Trainer: the model's inputs
    sampler = loader.batch_sampler.sampler
    assert sampler.lengths == lengths and sampler.batch_size == 2
    # transformers' grouping: sorted random megabatches, the longest example first
    order = [lengths[i] for i in sampler]
    assert sorted(order) == sorted(lengths) and order[0] == 9
    # evaluation from the shortest example (2 tokens, index 4) to the longest (9, index 1)
    ordered, order = length_sorted(data)
    assert list(order) == [4, 0, 6, 2, 7, 3, 5, 1]
    assert ordered["note"] == sorted(lengths)


def test_length_sorted_evaluation_returns_outputs_and_metrics_in_dataset_order(tmp_path):
    import numpy as np
    import torch
    from datasets import Dataset
    from transformers import (
        BertForTokenClassification,
        DataCollatorForTokenClassification,
        Trainer,
        TrainingArguments,
    )

    from biocompact.finetuning.trainer import (
        in_dataset_order,
        length_sorted,
        metrics_in_dataset_order,
    )

    lengths = [3, 9, 5, 7, 2, 8, 4, 6, 5]
    data = Dataset.from_dict(
        {
            "input_ids": [[(n + i) % 10 for i in range(n)] for n in lengths],
            "labels": [[i % 2 for i in range(n)] for n in lengths],
        }
    )
    ordered, order = length_sorted(data)
    torch.manual_seed(0)
    model = BertForTokenClassification(_tiny_bert_config(num_labels=2))
    seen = {}

    def record(name):
        def metrics(prediction):
            seen[name] = prediction
            return {"first_label": float(prediction.label_ids[0, 0])}

        return metrics

    def build(name, compute_metrics):
        arguments = TrainingArguments(
            output_dir=str(tmp_path / name),
            per_device_eval_batch_size=2,
            report_to=[],
            use_cpu=True,
        )
        return Trainer(
            model=model,
            args=arguments,
            data_collator=DataCollatorForTokenClassification(AutoTokenizer.from_pretrained(MINILM)),
            compute_metrics=compute_metrics,
        )

    plain = build("plain", record("plain"))
    sorted_ = build("sorted", metrics_in_dataset_order(record("sorted"), order))
    assert plain.evaluate(data)["eval_first_label"] == sorted_.evaluate(ordered)["eval_first_label"]
    predicted = sorted_.predict(ordered)
    restored = in_dataset_order((predicted.predictions, predicted.label_ids), order)
    for predictions, label_ids in (
        (seen["sorted"].predictions, seen["sorted"].label_ids),
        restored,
    ):
        assert np.array_equal(label_ids, seen["plain"].label_ids)
        real = seen["plain"].label_ids != -100
        assert np.allclose(predictions[real], seen["plain"].predictions[real], atol=1e-6)


def test_a_sentence_transformers_checkpoint_is_fine_tuned_and_saved_with_mean_pooling(
    tiny_model, re_task, tmp_path
):
    """The tiny BERT with all-MiniLM-L6-v2's modules.json and 1_Pooling: ``auto`` pools by
    mean, and the saved model, reloaded, predicts the test file as the run did."""
    import shutil

    from transformers import AutoTokenizer

    from biocompact.finetuning.pooling import load_sequence_classifier
    from biocompact.finetuning.tasks import get_family
    from biocompact.finetuning.trainer import predict_logits

    checkpoint = tmp_path / "st"
    shutil.copytree(tiny_model, checkpoint)
    shutil.copy(MINILM / "modules.json", checkpoint)
    shutil.copytree(MINILM / "1_Pooling", checkpoint / "1_Pooling")
    out = tmp_path / "out"
    out.mkdir()
    task = parsed_task(**re_task)
    record = record_data(
        finetune(
            FinetuneRun(str(checkpoint), task, 1, model_name="st"),
            outputs={
                "metrics": str(out / "metrics.json"),
                "predictions": str(out / "predictions.tsv"),
                "model": str(out / "model"),
            },
        )
    )
    assert record["pooling"] == "mean (from the checkpoint's sentence-transformers configuration)"
    assert record["hyperparameters"]["pooling"] == "auto"
    family = get_family("re", "biobert_tsv")
    model = load_sequence_classifier(out / "model")
    examples = family.read_split(task, "test")
    tokenizer = AutoTokenizer.from_pretrained(out / "model")
    encoded = family.encode(examples, tokenizer, record["labels"], task)
    logits = predict_logits(model, family, tokenizer, encoded.dataset, task.training, 1)
    rows = (out / "predictions.tsv").read_text().splitlines()[1:]
    assert family.decode(logits, encoded, record["labels"]) == [r.split("\t")[2] for r in rows]
    card = (out / "model" / "README.md").read_text()
    assert "load_sequence_classifier" in card
