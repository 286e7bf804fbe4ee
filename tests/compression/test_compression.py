"""Compression: settings, int8 quantisation, ONNX export run by ONNX Runtime, the harness
re-scoring every format, the summary and its report table (tiny BERT, demo data)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from tiny_models import MINILM, TINY
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

from biocompact.compression.evaluation import evaluate_formats
from biocompact.compression.formats import WEIGHT_FILES, compress, load_format, weights_bytes
from biocompact.compression.onnx_runtime import OnnxModel
from biocompact.compression.quantisation import quantise_int8
from biocompact.compression.settings import CompressedEvaluation, CompressionSettings
from biocompact.compression.summary import read_summary, summary_frame, write_summary
from biocompact.entries import parse_entry
from biocompact.files.atomic import write_json
from biocompact.finetuning.train import FinetuneRun, finetune
from biocompact.records.base import record_data
from biocompact.records.compressed_format import CompressedFormatEvaluation, LatencyMeasurement
from biocompact.report.tables import compression_table
from biocompact.taskfiles.settings import FinetuningTask

REPO_ROOT = Path(__file__).resolve().parents[2]
TASKS = {"re": {"family": "re"}, "cv": {"family": "re", "folds": ["1", "2"]}}
TOLERANCE = 1e-4  # ONNX Runtime vs PyTorch logits, fp32 (different kernels, same arithmetic)


# --- settings ---------------------------------------------------------------------------


def settings(**section) -> CompressionSettings:
    return parse_entry(CompressionSettings, section).checked(["small", "big"], TASKS, [3, 4])


def test_settings_default_off_and_seed_is_the_first_fine_tuning_seed():
    assert settings().pairs == []
    chosen = settings(models=["small"], tasks=["re"])
    assert (chosen.pairs, chosen.seed) == ([("small", "re")], 3)
    assert chosen.all_formats == ("fp32", "int8", "onnx")
    assert settings(models=["small"], tasks=["re"], seed=7, formats=["onnx"]).all_formats == (
        "fp32",
        "onnx",
    )


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (
            {"models": ["tiny"], "tasks": ["re"]},
            "compression.models names 'tiny', which is not fine-tuned",
        ),
        ({"models": ["small"], "tasks": ["ner"]}, "compression.tasks names 'ner', which is not in"),
        ({"models": ["small"], "tasks": ["cv"]}, "'cv', a cross-validated task"),
        ({"models": ["small"], "tasks": ["re"], "formats": ["fp16"]}, "unknown format 'fp16'"),
        ({"models": ["small"]}, "compression.tasks is empty"),
    ],
)
def test_bad_settings_name_the_key(section, message):
    with pytest.raises(ValueError, match=message):
        settings(**section)


EVALUATION_PARAMS = {
    "formats": ("fp32", "int8"),
    "task": {"name": "re", "family": "re", "format": "biobert_tsv", "train": "a", "test": "b"},
    "model": "small",
    "task_name": "re",
    "seed": 3,
    "batch_sizes": [1, 8],
    "sequence_lengths": [128],
    "repeats": 5,
}


def test_evaluation_params_parse_with_their_task_entry():
    assert parse_entry(CompressedEvaluation, EVALUATION_PARAMS, "rule evaluate_compressed") == (
        CompressedEvaluation(
            formats=("fp32", "int8"),
            task=FinetuningTask(name="re", family="re", format="biobert_tsv", train="a", test="b"),
            model="small",
            task_name="re",
            seed=3,
            batch_sizes=(1, 8),
            sequence_lengths=(128,),
            repeats=5,
        )
    )
    with pytest.raises(ValueError, match="rule evaluate_compressed: unknown setting 'format'"):
        parse_entry(
            CompressedEvaluation,
            {**EVALUATION_PARAMS, "format": "int8"},
            "rule evaluate_compressed",
        )


# --- formats ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def classifier() -> BertForSequenceClassification:
    """A random 2-layer BERT classifier (3 labels) whose linear layers hold most weights."""
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=50,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=32,
        num_labels=3,
    )
    return BertForSequenceClassification(config).eval()


def padded_batch(batch: int, length: int) -> dict[str, torch.Tensor]:
    """Random ids; the first sequence padded after 3 tokens (a shape the export never saw)."""
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 50, (batch, length), generator=generator)
    mask = torch.ones_like(ids)
    mask[0, 3:] = 0
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": torch.zeros_like(ids)}


def linear_weights(model: torch.nn.Module) -> int:
    return sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear))


def test_int8_replaces_every_linear_shrinks_and_stays_close(classifier, tmp_path):
    quantised = quantise_int8(classifier)
    dynamic = torch.ao.nn.quantized.dynamic.Linear
    assert not any(type(m) is torch.nn.Linear for m in quantised.modules())
    # 2 layers x (Q, K, V, output, 2 feed-forward) + pooler + classifier
    assert sum(isinstance(m, dynamic) for m in quantised.modules()) == 2 * 6 + 2
    assert type(classifier.bert.encoder.layer[0].attention.self.query) is torch.nn.Linear  # a copy
    fp32_path, int8_path = tmp_path / "fp32.pt", tmp_path / "int8.pt"
    torch.save(classifier.state_dict(), fp32_path)
    torch.save(quantised.state_dict(), int8_path)
    saved = fp32_path.stat().st_size - int8_path.stat().st_size
    # each linear weight: 4 bytes -> 1 byte; scales, zero points and packing add a little
    assert 0.9 * 3 * linear_weights(classifier) < saved < 3 * linear_weights(classifier)
    inputs = padded_batch(3, 11)
    with torch.inference_mode():
        reference = classifier(**inputs).logits
        logits = quantised(**inputs).logits
    assert torch.allclose(logits, reference, atol=0.05)
    assert not torch.equal(logits, reference)  # really quantised


@pytest.fixture(scope="module")
def saved_classifier(classifier, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("classifier")
    classifier.save_pretrained(folder)
    AutoTokenizer.from_pretrained(MINILM).save_pretrained(folder)
    return folder


def test_onnx_export_runs_in_onnx_runtime_like_torch_at_any_shape(
    classifier, saved_classifier, tmp_path
):
    compress(saved_classifier, "onnx", tmp_path / "onnx")
    model = load_format(tmp_path / "onnx", "onnx")
    assert isinstance(model, OnnxModel)
    assert model.output_names == ["logits"]
    for batch, length in [(1, 5), (3, 11), (4, 32)]:  # dynamic batch and sequence axes
        inputs = padded_batch(batch, length)
        with torch.inference_mode():
            reference = classifier(**inputs).logits
        logits = model(**inputs)["logits"]
        assert logits.shape == (batch, 3)
        assert torch.allclose(logits, reference, atol=TOLERANCE)
    # without token types or mask: the defaults PyTorch uses (segment 0, attend everywhere)
    ids = padded_batch(2, 7)["input_ids"]
    with torch.inference_mode():
        assert torch.allclose(model(ids)["logits"], classifier(ids).logits, atol=TOLERANCE)


def test_int8_folder_reloads_the_same_model(classifier, saved_classifier, tmp_path):
    compress(saved_classifier, "int8", tmp_path / "int8")
    assert weights_bytes(tmp_path / "int8", "int8") < weights_bytes(saved_classifier, "fp32")
    inputs = padded_batch(2, 9)
    with torch.inference_mode():
        expected = quantise_int8(classifier)(**inputs).logits
        assert torch.equal(load_format(tmp_path / "int8", "int8")(**inputs).logits, expected)


def test_unknown_format_is_refused(saved_classifier, tmp_path):
    with pytest.raises(ValueError, match="unknown compression format 'fp16'"):
        compress(saved_classifier, "fp16", tmp_path / "fp16")


# --- re-scoring with the harness --------------------------------------------------------


@pytest.fixture(scope="module")
def finetuned(tmp_path_factory) -> tuple[Path, FinetuningTask, dict]:
    """A tiny BERT fine-tuned on the demo RE task (1 epoch) and saved: folder, task, record."""
    folder = tmp_path_factory.mktemp("finetuned")
    tokenizer = AutoTokenizer.from_pretrained(MINILM)
    config = BertConfig(vocab_size=tokenizer.vocab_size, max_position_embeddings=64, **TINY)
    BertForSequenceClassification(config).save_pretrained(folder / "init")
    tokenizer.save_pretrained(folder / "init")
    task = {
        "name": "demo-re",
        "family": "re",
        "format": "biobert_tsv",
        "metric": "binary_f1",
        **{
            split: str(REPO_ROOT / f"demo/tasks/re/{split}.tsv")
            for split in ("train", "dev", "test")
        },
        "hyperparameters": {
            "epochs": 1,
            "batch_size": 32,
            "learning_rate": 1.0e-3,
            "max_seq_length": 48,
            "warmup_ratio": 0.1,
            "weight_decay": 0.01,
        },
    }
    task = parse_entry(FinetuningTask, task)
    torch.set_num_threads(1)
    record = record_data(
        finetune(
            FinetuneRun(str(folder / "init"), task, 1),
            outputs={
                "metrics": str(folder / "metrics.json"),
                "predictions": str(folder / "predictions.tsv"),
                "model": str(folder / "fp32"),
            },
        )
    )
    return folder, task, record


def test_every_format_is_rescored_by_the_harness_timed_and_sized(finetuned, tmp_path):
    folder, task, record = finetuned
    paths = {"fp32": folder / "fp32"}
    for name in ("int8", "onnx"):
        paths[name] = tmp_path / name
        compress(folder / "fp32", name, paths[name])
    results = evaluate_formats(
        paths,
        task,
        1,
        {name: tmp_path / f"{name}.json" for name in paths},
        {name: tmp_path / f"{name}.tsv" for name in paths},
        batch_sizes=[1, 2],
        sequence_lengths=[16, 128],  # 128 > 64 positions: skipped
        repeats=3,
        model_name="tiny",
        task_name="demo-re",
    )
    predictions = {}
    for name in paths:
        assert json.loads((tmp_path / f"{name}.json").read_text()) == record_data(results[name])
        predictions[name] = (tmp_path / f"{name}.tsv").read_text()
        assert results[name].timing == "interleaved rounds"
        assert results[name].compared_with == [other for other in paths if other != name]
    # the saved model scores what the fine-tuning run scored, with the same predictions
    assert results["fp32"].metrics == record["metrics"]
    assert predictions["fp32"] == (folder / "predictions.tsv").read_text()
    assert results["fp32"].primary_metric == "binary_f1"
    assert results["onnx"].metrics["binary_f1"] == pytest.approx(
        record["metrics"]["binary_f1"], abs=0.01
    )
    for name, result in results.items():
        assert result.test_examples == 300
        assert [(m.batch_size, m.sequence_length) for m in result.measurements] == [
            (1, 16),
            (2, 16),
        ]
        for m in result.measurements:
            assert m.device == "cpu" and len(m.latency_ms_runs) == 3
            assert 0 < m.latency_ms_min <= m.latency_ms <= m.latency_ms_max
        assert result.size_bytes == (paths[name] / result.weights_file).stat().st_size
        assert result.size_mb == result.size_bytes / 1e6
    assert results["int8"].size_bytes < results["fp32"].size_bytes
    summary = write_summary([tmp_path / f"{name}.json" for name in paths], tmp_path / "s.csv")
    assert list(summary["format"]) == ["fp32", "int8", "onnx"]
    assert summary["score_change"].iloc[0] == 0
    assert summary["score_change"].iloc[2] == pytest.approx(
        results["onnx"].metrics["binary_f1"] - results["fp32"].metrics["binary_f1"]
    )
    assert summary["speedup"].iloc[0] != summary["speedup"].iloc[0]  # none for fp32
    assert (summary["speedup_min"].iloc[1:] <= summary["speedup_max"].iloc[1:]).all()


# --- summary and report table -----------------------------------------------------------


def evaluation(
    fmt: str, score: float, size: int, runs: list[float], model: str = "small"
) -> CompressedFormatEvaluation:
    """A hand-made evaluation.json: ``runs`` the latency (ms) per round at batch 1."""
    median = sorted(runs)[len(runs) // 2]
    first = LatencyMeasurement(
        device="cpu",
        batch_size=1,
        sequence_length=128,
        latency_ms=median,
        latency_ms_runs=runs,
        latency_ms_min=min(runs),
        latency_ms_max=max(runs),
        latency_ms_q1=min(runs),
        latency_ms_q3=max(runs),
        sequences_per_second=1000 / median,
        tokens_per_second=128 * 1000 / median,
    )
    second = replace(first, batch_size=32, latency_ms_runs=[10 * run for run in runs])
    return CompressedFormatEvaluation(
        model=model,
        task="re",
        seed=1,
        format=fmt,
        model_path=f"results/compression/{model}/re/seed1/{fmt}/model",
        primary_metric="binary_f1",
        metrics={"binary_f1": score, "accuracy": 0.5},
        test_examples=300,
        weights_file=WEIGHT_FILES[fmt],
        size_bytes=size,
        size_mb=size / 1e6,
        threads=1,
        repeats=len(runs),
        timing="interleaved rounds",
        compared_with=[other for other in WEIGHT_FILES if other != fmt],
        measurements=[first, second],
        torch="2.5.1",
    )


def test_summary_and_report_table_from_hand_made_evaluations(tmp_path):
    paths = []
    for fmt, score, size, runs in [
        ("fp32", 0.800, 40_000_000, [12.0, 11.0, 13.0]),
        ("int8", 0.788, 11_000_000, [6.0, 5.0, 6.5]),  # rounds: 2.0, 2.2, 2.0 x
        ("onnx", 0.800, 40_100_000, [12.5, 12.1, 14.0]),  # rounds: 0.96, 0.909, 0.929 x
    ]:
        paths.append(tmp_path / f"{fmt}.json")
        write_json(paths[-1], record_data(evaluation(fmt, score, size, runs)))
    write_summary(paths, tmp_path / "summary.csv")
    summary = read_summary(tmp_path / "summary.csv")
    assert summary["score_change"].round(6).tolist() == [0.0, -0.012, 0.0]
    assert summary["latency_ms"].tolist() == [12.0, 6.0, 12.5]  # batch 1: the first setting
    assert summary["latency_ms_min"].tolist() == [11.0, 5.0, 12.1]
    assert summary["latency_ms_max"].tolist() == [13.0, 6.5, 14.0]
    assert summary["speedup"].iloc[1:].round(4).tolist() == [2.0, round(13 / 14, 4)]
    assert summary["speedup_min"].iloc[1:].round(4).tolist() == [2.0, round(11 / 12.1, 4)]
    assert summary["speedup_max"].iloc[1:].round(4).tolist() == [2.2, 0.96]
    assert summary["slower_than_fp32"].tolist() == [False, False, True]
    table = compression_table(summary)
    assert table.columns == [
        "Model",
        "Task",
        "Metric",
        "fp32 score",
        "fp32 MB",
        "fp32 ms",
        "int8 score",
        "int8 Δ",
        "int8 MB",
        "int8 ms",
        "int8 speed-up",
        "onnx score",
        "onnx Δ",
        "onnx MB",
        "onnx ms",
        "onnx speed-up",
    ]
    [row] = table.rows
    assert [cell.text for cell in row] == [
        "small",
        "re",
        "binary_f1",
        "80.0",
        "40.00",
        "12.0 (11.0-13.0)",
        "78.8",
        "-1.2",
        "11.00",
        "6.0 (5.0-6.5)",
        "2.00x (2.00-2.20)",
        "80.0",
        "+0.0",
        "40.10",
        "12.5 (12.1-14.0)",
        "0.93x (0.91-0.96)",
    ]
    assert row[5].title.startswith("batch 1, sequence length 128, 1 thread(s); median (min-max)")
    assert [row[10].note, row[15].note] == ["", "check: slower than fp32 in every round"]


def test_a_format_faster_than_fp32_in_one_round_is_not_flagged():
    """Slower in two rounds of three but faster in one: within the machine's spread."""
    frame = summary_frame(
        [
            evaluation("fp32", 0.8, 1, [10.0, 10.0, 10.0]),
            evaluation("onnx", 0.8, 1, [11.0, 12.0, 9.0]),  # rounds: 0.909, 0.833, 1.111 x
        ]
    )
    onnx = frame.iloc[1]
    assert (round(onnx["speedup"], 4), round(onnx["speedup_max"], 4)) == (0.9091, 1.1111)
    assert not onnx["slower_than_fp32"]


def test_a_format_without_timings_has_no_speedup():
    fp32 = evaluation("fp32", 0.8, 1, [10.0])
    onnx = replace(evaluation("onnx", 0.8, 1, [9.0]), measurements=[])
    frame = summary_frame([fp32, onnx])
    assert frame["speedup"].isna().all() and not frame["slower_than_fp32"].any()


def test_summary_without_its_columns_is_refused(tmp_path):
    (tmp_path / "other.csv").write_text("model,task\na,b\n")
    with pytest.raises(ValueError, match="not a compression summary"):
        read_summary(tmp_path / "other.csv")
