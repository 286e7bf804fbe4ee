"""The layer mapping g of layer-wise distillation (Rohanian et al. 2023, eq. 5), and the
teacher layers a DistilBERT-style student keeps (light: also checked when the DAG is built).

In a layer map, layers are numbered as in Rohanian et al. 2023: 0 is the embedding layer,
1..M the student's and 1..N the teacher's transformer layers. A map lists g(1), ..., g(M).
``student_layers`` number the teacher's transformer layers from 0, as its encoder does.
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


def every_other_layer(n_teacher_layers: int) -> list[int]:
    """DistilBERT's default: teacher layers 0, 2, 4, ..."""
    return list(range(0, n_teacher_layers, 2))


def resolve_student_layers(n_teacher: int, layers: list[int] | None) -> list[int]:
    """``layers`` checked against the teacher's depth, or every other layer when None."""
    if layers is None:
        return every_other_layer(n_teacher)
    if not layers or any(not 0 <= index < n_teacher for index in layers):
        raise ValueError(
            f"student_layers {list(layers)} must name layers 0..{n_teacher - 1} "
            f"of the {n_teacher}-layer teacher"
        )
    return list(layers)
