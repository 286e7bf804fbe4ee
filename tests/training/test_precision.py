"""Where training runs in bf16: the device's native bf16 decides, with a tested fp32 fallback."""

import pytest
import torch

from biocompact.entries import parse_entry
from biocompact.finetuning import trainer as finetuning_trainer
from biocompact.taskfiles.settings import Hyperparameters
from biocompact.training.precision import inference_dtype, native_bf16

HYPERPARAMETERS = {"epochs": 1, "batch_size": 4, "learning_rate": 1e-4}
HYPERPARAMETERS |= {"warmup_ratio": 0.1, "weight_decay": 0.0}


def test_a_cpu_has_native_bf16_with_avx512_bf16_or_amx(monkeypatch):
    cpu = torch.device("cpu")
    for avx512_bf16, amx, expected in [
        (False, False, False),
        (True, False, True),
        (False, True, True),
    ]:
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda v=avx512_bf16: v)
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda v=amx: v)
        assert native_bf16(cpu) is expected


def test_a_gpu_has_native_bf16_when_cuda_says_so(monkeypatch):
    for supported in (False, True):
        monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda v=supported: v)
        assert native_bf16(torch.device("cuda", 0)) is supported
    assert native_bf16(torch.device("meta")) is False


@pytest.mark.parametrize(
    ("native", "setting", "expected"),
    [(True, None, True), (True, True, True), (True, False, False), (False, True, False)],
)
def test_fine_tuning_uses_bf16_where_native_unless_switched_off(
    monkeypatch, tmp_path, native, setting, expected
):
    monkeypatch.setattr(finetuning_trainer, "native_bf16", lambda device: native)
    hyperparameters = HYPERPARAMETERS | ({} if setting is None else {"bf16": setting})
    arguments = finetuning_trainer.training_arguments(
        parse_entry(Hyperparameters, hyperparameters), 1, str(tmp_path)
    )
    assert arguments.bf16 is expected


@pytest.mark.parametrize(
    ("device", "native", "bf16", "expected"),
    [
        ("cuda", True, True, torch.bfloat16),  # a GPU with bf16: the teacher in bf16
        ("cuda", False, True, torch.float32),  # a GPU without it (before Ampere)
        ("cpu", True, True, torch.bfloat16),  # a CPU with AVX512-BF16 or AMX
        ("cpu", False, True, torch.float32),  # a CPU without: bf16 would be emulated
        ("cuda", True, False, torch.float32),  # bf16: false
    ],
)
def test_a_distillation_teacher_runs_in_bf16_where_training_runs_in_bf16(
    monkeypatch, device, native, bf16, expected
):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: native)
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: native)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    assert inference_dtype(torch.device(device), bf16) is expected
