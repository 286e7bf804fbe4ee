"""Where training runs in bf16: autocast on devices that compute bf16 in hardware."""

from __future__ import annotations

import torch


def native_bf16(device: torch.device) -> bool:
    """Whether ``device`` computes bf16 in hardware: a CUDA GPU that reports it (Ampere and
    later) or a CPU with AVX512-BF16 or AMX, whose oneDNN kernels run bf16 matrix products
    faster than fp32 (measured: docs/speed.md, section "Figures behind code choices").
    Elsewhere bf16 is emulated, slower than fp32, and training stays in fp32."""
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    if device.type == "cpu":
        # torch's own CPU capability checks (torch.cpu has no public name for them)
        return torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
    return False


def inference_dtype(device: torch.device, bf16: bool) -> torch.dtype:
    """The weights of a frozen model that only runs inference beside training (a distillation
    teacher): bf16 where the training around it runs in bf16 autocast (``bf16`` set and the
    device computes bf16 natively), so that its matrix products need no casts; fp32
    elsewhere."""
    return torch.bfloat16 if bf16 and native_bf16(device) else torch.float32
