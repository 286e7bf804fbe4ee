"""Efficiency benchmark on a tiny BERT: exact parameter counts, hand-counted FLOPs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
from snakemake_runs import OFFLINE_ENV, REPO_ROOT, SNAKEMAKE, planned_jobs
from tiny_models import MINILM
from transformers import AutoModel, BertConfig, BertForMaskedLM, BertModel

from biocompact.efficiency.benchmark import (
    FLOPS_FORMULA,
    benchmark,
    can_measure_cpu_peak,
    flops_per_token,
    interleaved_timings,
    measurement,
    parameter_counts,
    peak_activations_mb,
    weights_mb,
)
from biocompact.records.base import record_data
from biocompact.records.efficiency import ParameterCounts

TINY = BertConfig(
    vocab_size=30,
    hidden_size=8,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=16,
    max_position_embeddings=16,
    type_vocab_size=2,
)
# One layer by hand: Q, K, V 3 * (8*8 + 8) = 216; attention output 8*8 + 8 = 72; LayerNorm 16;
# intermediate 8*16 + 16 = 144; output 16*8 + 8 = 136; LayerNorm 16 -> 600.
LAYER = 600
# Word 30*8 + position 16*8 + type 2*8 + LayerNorm 16 = 400; pooler 8*8 + 8 = 72.
EMBEDDING, POOLER = 400, 72
# The keys of a result file and of its architecture and measurements, in the order the
# stage has written them since it measured weights and activations apart
RESULT_KEYS = [
    "model",
    "model_path",
    "parameters",
    "weights_mb",
    "architecture",
    "flops_formula",
    "measurements",
    "compared_with",
    "devices",
    "threads",
    "repeats",
    "timing",
    "torch",
]
ARCHITECTURE_KEYS = [
    "layers",
    "hidden_size",
    "intermediate_size",
    "attention_heads",
    "vocab_size",
    "max_position_embeddings",
]
MEASUREMENT_KEYS = [
    "device",
    "batch_size",
    "sequence_length",
    "latency_ms",
    "latency_ms_runs",
    "latency_ms_min",
    "latency_ms_max",
    "latency_ms_q1",
    "latency_ms_q3",
    "sequences_per_second",
    "tokens_per_second",
    "flops_per_token",
    "peak_activations_mb",
]


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The tiny BERT and a one-layer copy of it."""
    folder = tmp_path_factory.mktemp("tiny")
    paths = {"tiny": folder / "tiny", "tinier": folder / "tinier"}
    BertModel(TINY).save_pretrained(paths["tiny"])
    BertModel(BertConfig(**{**TINY.to_dict(), "num_hidden_layers": 1})).save_pretrained(
        paths["tinier"]
    )
    return paths


def test_parameter_counts_by_hand():
    model = BertModel(TINY)
    counts = parameter_counts(model)
    assert (
        counts.total == sum(p.numel() for p in model.parameters()) == 2 * LAYER + EMBEDDING + POOLER
    )
    assert counts == ParameterCounts(
        total=1672,
        embedding=EMBEDDING,
        non_embedding=2 * LAYER + POOLER,
        layers=2 * LAYER,
    )


def test_flops_formula_by_hand():
    # Per token and layer, multiply-adds: Q, K, V, output 4 * 8 * 8 = 256, feed-forward 2 * 8 * 16 = 256,
    # scores and weighted sum at S = 4: 2 * 4 * 8 = 64 -> 576; two layers, two FLOPs each -> 2304.
    matmul_only = 2 * 2 * (4 * 8 * 8 + 2 * 8 * 16 + 2 * 4 * 8)
    biases_and_norms = 2 * 2 * (LAYER - (4 * 8 * 8 + 2 * 8 * 16))
    assert flops_per_token(2 * LAYER, layers=2, hidden_size=8, sequence_length=4) == 2656
    assert matmul_only + biases_and_norms == 2656


class Recorder:
    """Stands for a model: records the order of its calls in a shared list."""

    def __init__(self, name: str, calls: list[str]) -> None:
        self.name, self.calls = name, calls
        self.config = BertConfig(vocab_size=30)

    def __call__(self, **inputs) -> None:
        self.calls.append(self.name)


def test_repeats_interleaved_across_models():
    calls: list[str] = []
    models = {name: Recorder(name, calls) for name in "ABC"}
    timings = interleaved_timings(models, 1, 4, repeats=4, device=torch.device("cpu"))
    # One warm-up each, then rounds whose first model moves by one: ABC, BCA, CAB, ABC.
    assert "".join(calls) == "ABC" + "ABC" + "BCA" + "CAB" + "ABC"
    assert {name: len(seconds) for name, seconds in timings.items()} == {"A": 4, "B": 4, "C": 4}


def test_measurement_median_and_spread_by_hand():
    row = measurement([0.040, 0.010, 0.030, 0.020], 2, 8, torch.device("cpu"))
    # Sorted 10, 20, 30, 40 ms: median 25; quartiles at (n + 1) p = 1.25 and 3.75 -> 12.5, 37.5.
    assert row.latency_ms == pytest.approx(25.0)
    assert (row.latency_ms_min, row.latency_ms_max) == pytest.approx((10.0, 40.0))
    assert (row.latency_ms_q1, row.latency_ms_q3) == pytest.approx((12.5, 37.5))
    assert row.latency_ms_runs == pytest.approx([40.0, 10.0, 30.0, 20.0])
    assert row.sequences_per_second == pytest.approx(2 / 0.025)  # 80
    assert row.tokens_per_second == pytest.approx(2 * 8 / 0.025)  # 640


def test_benchmark_writes_one_file_per_model(tiny_models: dict[str, Path], tmp_path: Path):
    outputs = {name: tmp_path / f"{name}.json" for name in tiny_models}
    results = benchmark(
        tiny_models, outputs, batch_sizes=[1, 2], sequence_lengths=[4, 32], repeats=3
    )
    for name, output in outputs.items():
        written = json.loads(output.read_text())
        assert written == record_data(results[name])
        # the file as the stage wrote it before its record: these keys in this order
        assert list(written) == RESULT_KEYS
        assert list(written["parameters"]) == ["total", "embedding", "non_embedding", "layers"]
        assert list(written["architecture"]) == ARCHITECTURE_KEYS
        assert all(list(row) == MEASUREMENT_KEYS for row in written["measurements"])
        assert written["architecture"]["layers"] == {"tiny": 2, "tinier": 1}[name]
        assert written["flops_formula"] == FLOPS_FORMULA and written["model_path"] == str(
            tiny_models[name]
        )
    tiny, tinier = results["tiny"], results["tinier"]
    assert tiny.parameters.total == 1672
    assert tiny.weights_mb == weights_mb(BertModel(TINY))
    assert tinier.parameters.layers == LAYER
    assert tiny.compared_with == ["tinier"] and tiny.timing == "interleaved rounds"
    assert tiny.devices["cpu"] and (tiny.threads, tiny.repeats) == (1, 3)
    cpu = [m for m in tiny.measurements if m.latency.device == "cpu"]
    assert [(m.latency.batch_size, m.latency.sequence_length) for m in cpu] == [
        (1, 4),
        (2, 4),
    ]  # 32 > 16 positions
    for m in cpu:
        assert len(m.latency.latency_ms_runs) == 3
        assert m.latency.latency_ms_min <= m.latency.latency_ms <= m.latency.latency_ms_max
        assert m.latency.tokens_per_second == pytest.approx(
            m.latency.sequences_per_second * m.latency.sequence_length
        )
        assert m.flops_per_token == 2656
        assert m.peak_activations_mb is not None and m.peak_activations_mb >= 0
    assert tinier.measurements[0].flops_per_token == 2 * LAYER + 4 * 1 * 4 * 8  # 1328


def test_the_timing_jobs_take_every_core_of_a_local_run(tmp_path: Path):
    """In a dry run of the demo with --cores 2, the one efficiency job (both models) and the
    compression timing job (every format of the compressed model) ask for both cores, so no
    other job runs beside their measurements."""
    shutil.copy(REPO_ROOT / "config.yaml", tmp_path / "config.yaml")
    (tmp_path / "demo").symlink_to(REPO_ROOT / "demo")
    result = subprocess.run(
        [*SNAKEMAKE, "-n", "--cores", "2"],
        capture_output=True,
        text=True,
        env=OFFLINE_ENV,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert planned_jobs(result)["efficiency"] == 1
    job = re.search(r"\nrule efficiency:\n(.*?)\n\n", result.stdout, re.S).group(1)
    assert "results/efficiency/teacher.json, results/efficiency/teacher-distil.json" in job
    threads = re.search(r"threads: (\d+)", job)
    assert int(threads.group(1)) == min(2, len(os.sched_getaffinity(0)))
    assert planned_jobs(result)["evaluate_compressed"] == 1
    job = re.search(r"\nrule evaluate_compressed:\n(.*?)\n\n", result.stdout, re.S).group(1)
    for fmt in ("fp32", "int8", "onnx"):
        assert f"/{fmt}/evaluation.json" in job
    threads = re.search(r"threads: (\d+)", job)
    assert int(threads.group(1)) == min(2, len(os.sched_getaffinity(0)))


def test_weights_mb_by_hand():
    """fp32 parameters and the two int64 buffers of 16 positions (position and token type
    ids); the masked-LM head's decoder shares the word embeddings' 30 x 8, counted once."""
    assert weights_mb(BertModel(TINY)) * 2**20 == 1672 * 4 + 2 * 16 * 8  # 6,944 bytes
    # No pooler (-72); head transform 8*8 + 8 + LayerNorm 16 = 88; decoder bias 30.
    assert weights_mb(BertForMaskedLM(TINY)) * 2**20 == (1672 - 72 + 88 + 30) * 4 + 2 * 16 * 8


def test_the_same_weights_saved_two_ways_measure_alike(tmp_path: Path):
    """all-MiniLM-L6-v2 as shipped (safetensors, loaded memory-mapped: a pass makes resident
    only the embedding rows it reads) and its weights saved as a PyTorch .bin (read into
    memory): the same weights, 22,713,216 fp32 parameters (embeddings 11,918,592, six layers of
    1,774,464, pooler 147,840) and two int64 buffers of 512 positions, and the same peaks of
    each pass within 2 MB (before the weights were made resident: 50.6 MB against 86.9 MB at
    batch 1 x 128; since, the two differ by up to 1.2 MB from run to run, the allocator's
    pages: 4.38 against 3.19 MB at 1 x 128 in a full run). A pass of 8 tokens adds under 2 MB (the imports alone hold hundreds, the
    model's code's first load and pass about 20 more, the weights 86.7); the peak grows with
    the batch and the length."""
    if not can_measure_cpu_peak():
        pytest.skip("this system cannot reset a process's peak resident set")
    model = AutoModel.from_pretrained(MINILM)
    (tmp_path / "bin").mkdir()
    model.config.save_pretrained(tmp_path / "bin")
    torch.save(model.state_dict(), tmp_path / "bin" / "pytorch_model.bin")
    loaded = AutoModel.from_pretrained(tmp_path / "bin")
    assert 11_918_592 + 6 * 1_774_464 + 147_840 == 22_713_216
    assert weights_mb(model) * 2**20 == weights_mb(loaded) * 2**20 == 22_713_216 * 4 + 2 * 512 * 8
    cpu = torch.device("cpu")
    mapped = peak_activations_mb(MINILM, [1, 8], [8, 128], cpu, threads=1)
    copied = peak_activations_mb(tmp_path / "bin", [1, 8], [8, 128], cpu, threads=1)
    for shape, peak in mapped.items():
        assert peak == pytest.approx(copied[shape], abs=2.0), shape
    assert 0 <= mapped[(1, 8)] < 2 < mapped[(1, 128)] < 10 < mapped[(8, 128)]


def test_the_report_refuses_an_efficiency_file_of_the_older_memory_figure(tmp_path):
    """A result file of the stage before weights and activations were measured apart (one
    ``peak_memory_mb``) names itself and the command that measures it again."""
    from biocompact.report.load import read_efficiency

    old = tmp_path / "minilm.json"
    old.write_text(json.dumps({"model": "minilm", "measurements": [{"peak_memory_mb": 49.4}]}))
    with pytest.raises(
        ValueError,
        match=r"minilm.json: written by an older efficiency stage.*--forcerun efficiency",
    ):
        read_efficiency([old])
