"""Efficiency benchmark on a tiny BERT: exact parameter counts, hand-counted FLOPs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transformers import BertConfig, BertModel

from biocompact.efficiency import benchmark, flops_per_token, parameter_counts

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


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny") / "model"
    BertModel(TINY).save_pretrained(path)
    return path


def test_parameter_counts_by_hand():
    model = BertModel(TINY)
    counts = parameter_counts(model)
    assert (
        counts["total"]
        == sum(p.numel() for p in model.parameters())
        == 2 * LAYER + EMBEDDING + POOLER
    )
    assert counts == {
        "total": 1672,
        "embedding": EMBEDDING,
        "non_embedding": 2 * LAYER + POOLER,
        "layers": 2 * LAYER,
    }


def test_flops_formula_by_hand():
    # Per token and layer, multiply-adds: Q, K, V, output 4 * 8 * 8 = 256, feed-forward 2 * 8 * 16 = 256,
    # scores and weighted sum at S = 4: 2 * 4 * 8 = 64 -> 576; two layers, two FLOPs each -> 2304.
    matmul_only = 2 * 2 * (4 * 8 * 8 + 2 * 8 * 16 + 2 * 4 * 8)
    biases_and_norms = 2 * 2 * (LAYER - (4 * 8 * 8 + 2 * 8 * 16))
    assert flops_per_token(2 * LAYER, layers=2, hidden_size=8, sequence_length=4) == 2656
    assert matmul_only + biases_and_norms == 2656


def test_benchmark_writes_measurements(tiny_model: Path, tmp_path: Path):
    output = tmp_path / "tiny.json"
    result = benchmark(
        tiny_model, output, "tiny", batch_sizes=[1, 2], sequence_lengths=[4, 32], repeats=2
    )
    assert json.loads(output.read_text()) == result
    assert result["parameters"]["total"] == 1672
    cpu = [m for m in result["measurements"] if m["device"] == "cpu"]
    assert [(m["batch_size"], m["sequence_length"]) for m in cpu] == [
        (1, 4),
        (2, 4),
    ]  # 32 > 16 positions
    for m in cpu:
        assert len(m["latency_ms_runs"]) == 2 and m["latency_ms"] > 0
        assert m["tokens_per_second"] == pytest.approx(
            m["sequences_per_second"] * m["sequence_length"]
        )
        assert m["flops_per_token"] == 2656
        assert m["peak_memory_mb"] > 0
    assert result["peak_rss_delta_mb"] >= 0
