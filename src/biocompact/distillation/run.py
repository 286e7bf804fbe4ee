"""The distillation job: initialise a student from its teacher and distil on the shared corpus.

``python -m biocompact.distillation.run SPEC.json`` runs the job whose ``DistillationSpec``
is in SPEC.json; torchrun starts it that way, once per GPU (``biocompact.training.launch``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from transformers import AutoModelForMaskedLM, PreTrainedModel

from biocompact.distillation.methods import trains_mlm_head
from biocompact.distillation.objectives import METHODS
from biocompact.distillation.settings import DistillationSettings
from biocompact.distillation.student import initialise_student
from biocompact.distillation.teacher_head import check_teacher_head
from biocompact.locations import portable_location
from biocompact.records.language_model import Distillation, ModelDescription
from biocompact.training.language_model_job import LanguageModelSpec
from biocompact.training.launch import job_main
from biocompact.training.loop import pick_device
from biocompact.training.precision import inference_dtype
from biocompact.training.stage import load_corpus, train_and_publish


@dataclass(frozen=True, kw_only=True)
class DistillationSpec(LanguageModelSpec):
    """A distillation job: the student's settings and its teacher's folder (or hub name)."""

    settings: DistillationSettings
    teacher_dir: str


def load_teacher(teacher_dir: str | os.PathLike, method: str) -> PreTrainedModel:
    """The teacher with its MLM head; a checkpoint without one (its head weights missing,
    e.g. a hub checkpoint the DAG could not read) is refused for a method that reads logits."""
    teacher, loading = AutoModelForMaskedLM.from_pretrained(teacher_dir, output_loading_info=True)
    encoder = f"{teacher.base_model_prefix}."
    head_missing = [key for key in loading["missing_keys"] if not key.startswith(encoder)]
    check_teacher_head(method, not head_missing, f"teacher {teacher_dir}")
    return teacher


def run_distillation(spec: DistillationSpec) -> dict:
    """Distil student ``spec.name`` from the teacher in ``spec.teacher_dir`` as
    ``spec.settings`` say.

    ``spec.outputs`` names the ``model``, ``log`` and ``eval`` paths; the teacher runs in
    bf16 where the student trains in bf16 autocast (``inference_dtype``); ``spec.tracking``
    adds trackers to the TensorBoard curves.
    """
    settings, teacher_dir = spec.settings, spec.teacher_dir
    teacher = load_teacher(teacher_dir, settings.method)
    corpus, tokenizer, batcher = load_corpus(spec.dataset_dir, teacher_dir, spec.masking)
    student = initialise_student(
        teacher,
        settings.student_init,
        settings.student_layers,
        settings.student_architecture,
        settings.training.seed,
    )
    teacher = teacher.to(inference_dtype(pick_device(), settings.training.bf16))  # type: ignore[arg-type]  # functools.wraps on PreTrainedModel.to loses the method's binding
    objective = METHODS[settings.method](student, teacher, settings.options)
    description = ModelDescription(
        model=spec.name,
        origin=Distillation(
            teacher=portable_location(teacher_dir),
            method=settings.method,
            student_init=portable_location(settings.student_init),
            student_layers=settings.student_layers,
            **objective.options_record(),
            mlm_head_trained=trains_mlm_head(objective.alpha),  # what the model card offers
        ),
        architecture=student.config.to_diff_dict(),
    )
    return train_and_publish(
        objective,
        corpus,
        tokenizer,
        batcher,
        settings=settings.training,
        checkpoint_dir=spec.checkpoint_dir,
        outputs=spec.outputs,
        probes=spec.probes,
        description=description,
        threads=spec.threads,
        tracking=spec.tracking,
        run_name=f"distillation/{spec.name}",
    )


if __name__ == "__main__":
    job_main(run_distillation, DistillationSpec.read)
