"""The layer mapping g of layer-wise distillation (Rohanian et al. 2023, eq. 5).

Layers are numbered as in the seed: 0 is the embedding layer, 1..M the student's and
1..N the teacher's transformer layers. A map lists g(1), ..., g(M).
"""

from __future__ import annotations

import math


def uniform_layer_map(n_student: int, n_teacher: int) -> list[int]:
    """TinyBERT's uniform strategy: g(l) = ceil(l N / M), so g(M) = N (every (N/M)-th layer)."""
    return [math.ceil(layer * n_teacher / n_student) for layer in range(1, n_student + 1)]


def resolve_layer_map(n_student: int, n_teacher: int, layer_map: list[int] | None) -> list[int]:
    """``layer_map`` checked against the two depths, or the uniform map when it is None."""
    if layer_map is None:
        return uniform_layer_map(n_student, n_teacher)
    layer_map = list(layer_map)
    if len(layer_map) != n_student or any(not 1 <= layer <= n_teacher for layer in layer_map):
        raise ValueError(
            f"layer_map {layer_map} must give one teacher layer in 1..{n_teacher} "
            f"for each of the student's {n_student} layers"
        )
    return layer_map
