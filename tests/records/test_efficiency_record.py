"""An efficiency result (results/efficiency/{model}.json) read into its dataclass and written
back unchanged, a measurement's peak measured or not (null); a malformed one refused,
naming its file."""

from __future__ import annotations

import copy
import json

import pytest

from biocompact.entries import parse_record
from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.compressed_format import LatencyMeasurement
from biocompact.records.efficiency import EfficiencyResult

TIMING = {
    "device": "cpu",
    "batch_size": 32,
    "sequence_length": 128,
    "latency_ms": 220.6,
    "latency_ms_runs": [220.6, 228.1, 196.0],
    "latency_ms_min": 196.0,
    "latency_ms_max": 228.1,
    "latency_ms_q1": 196.0,
    "latency_ms_q3": 228.1,
    "sequences_per_second": 145.1,
    "tokens_per_second": 18571.5,
}
# as the efficiency job writes it (docs/outputs.md's example): a CPU measurement, and a
# GPU's whose latency a whole number of milliseconds kept an int
RESULT = {
    "model": "teacher",
    "model_path": "results/pretraining/teacher/model",
    "parameters": {
        "total": 4380928,
        "embedding": 1156096,
        "non_embedding": 3224832,
        "layers": 3159040,
    },
    "weights_mb": 16.72,
    "architecture": {
        "layers": 4,
        "hidden_size": 256,
        "intermediate_size": 1024,
        "attention_heads": 4,
        "vocab_size": 4000,
        "max_position_embeddings": 512,
    },
    "flops_formula": "2 * layer_parameters + 4 * layers * sequence_length * hidden_size",
    "measurements": [
        {**TIMING, "flops_per_token": 6842368, "peak_activations_mb": 44.1},
        {
            **TIMING,
            "device": "cuda",
            "latency_ms": 2,
            "flops_per_token": 6842368,
            "peak_activations_mb": 12.0,
        },
    ],
    "compared_with": ["teacher-distil"],
    "devices": {"cpu": "x86_64", "cuda": "NVIDIA H200"},
    "threads": 2,
    "repeats": 3,
    "timing": "interleaved rounds",
    "torch": "2.13.0+cpu",
}
# on a system that cannot reset a process's peak resident set (not Linux)
UNMEASURED_PEAK = {
    **RESULT,
    "measurements": [{**TIMING, "flops_per_token": 6842368, "peak_activations_mb": None}],
    "devices": {"cpu": "arm"},
}


@pytest.mark.parametrize("record", [RESULT, UNMEASURED_PEAK], ids=["measured", "no-peak"])
def test_an_efficiency_result_reads_back_and_writes_the_same_file(tmp_path, record):
    path = tmp_path / "teacher.json"
    write_json(path, record)
    read = EfficiencyResult.read(path)
    assert list(record_data(read).items()) == list(record.items())
    again = tmp_path / "again.json"
    write_json(again, record_data(read))
    assert again.read_bytes() == path.read_bytes()


def test_an_efficiency_result_holds_its_parameters_and_measurements():
    result = parse_record(EfficiencyResult, RESULT)
    assert (result.parameters.total, result.architecture.layers) == (4380928, 4)
    cpu, cuda = result.measurements
    assert cpu.latency == LatencyMeasurement(**TIMING)
    assert (cpu.flops_per_token, cpu.peak_activations_mb) == (6842368, 44.1)
    assert cuda.latency.latency_ms == 2 and type(cuda.latency.latency_ms) is int
    assert record_data(cpu) == RESULT["measurements"][0]


def _without(record: dict, *keys: str | int) -> dict:
    changed = copy.deepcopy(record)
    target = changed
    for key in keys[:-1]:
        target = target[key]
    del target[keys[-1]]
    return changed


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({**RESULT, "peak_memory_mb": 49.4}, r"keys of no efficiency record: \['peak_memory_mb'\]"),
        (_without(RESULT, "torch"), r"it lacks \['torch'\]"),
        (_without(RESULT, "measurements", 0, "latency_ms_q1"), r"it lacks \['latency_ms_q1'\]"),
        (
            {**RESULT, "architecture": {**RESULT["architecture"], "heads": 4}},
            r"keys of no architecture: \['heads'\]",
        ),
        ({**RESULT, "measurements": {}}, "its measurements are not a list"),
    ],
)
def test_a_malformed_efficiency_result_is_refused_naming_its_file(tmp_path, record, message):
    path = tmp_path / "teacher.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        EfficiencyResult.read(path)
    assert str(error.value).startswith(f"{path}: ")
