"""The training jobs of task-specific distillation, launched on every GPU they ask for.

The teacher's fine-tuning (``train_teacher``) and the students' training (``run_students``)
run through ``biocompact.training.launch``: in the rule's process on one GPU (or the CPU),
else ``python -m biocompact.task_distillation.job SPEC.json`` once per GPU under torchrun,
where the Hugging Face Trainer itself trains data-parallel (it reads the process group that
``launch.job_main`` joined) and rank 0 alone writes. The spec (``TeacherSpec``,
``StudentsSpec``) holds the run, its files and its checkpointing; every process reads it
back with ``read_spec``.

With ``checkpointing`` (the rules' ``results/checkpoints/task_distillation/...``) every
training saves resumable checkpoints there (``biocompact.finetuning.checkpoints``), so a
job killed or stopped at its time limit and started again resumes where it was and ends
with the weights of an uninterrupted run; the spec file goes there too, and the folder is
removed once the job's outputs are written.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypedDict

from biocompact.files.atomic import read_json
from biocompact.finetuning import checkpoints
from biocompact.finetuning.checkpoints import Checkpointing
from biocompact.finetuning.train import FinetuneRun
from biocompact.task_distillation.student import StudentRun, run_students, train_teacher
from biocompact.training.launch import JobSpec, job_main

TEACHER, STUDENTS = "teacher", "students"
# What checkpoints must have been made with to be resumed (not where the outputs go)
RESUMED_WITH = ("run", "inputs")


@dataclass(frozen=True, kw_only=True)
class TaskDistillationSpec(JobSpec):
    """A job of task-specific distillation; its JSON names its ``stage``, which
    ``read_spec`` reads it as."""

    stage: ClassVar[str]
    checkpointing: Checkpointing | None = None

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, **super().to_json()}

    def resumed_with(self) -> dict[str, Any]:
        """The settings the job's checkpoints must have been made with: its run and inputs."""
        values = self.to_json()
        return {key: values[key] for key in RESUMED_WITH if key in values}


@dataclass(frozen=True, kw_only=True)
class TeacherSpec(TaskDistillationSpec):
    """A teacher's fine-tuning (``student.train_teacher``)."""

    stage: ClassVar[str] = TEACHER
    run: FinetuneRun
    outputs: dict[str, str]


@dataclass(frozen=True, kw_only=True)
class StudentsSpec(TaskDistillationSpec):
    """One experiment's students (``student.run_students``)."""

    stage: ClassVar[str] = STUDENTS
    run: StudentRun
    inputs: dict[str, Any]  # the rule's named input files: a path, a list of them, None
    outputs: dict[str, list[str]]


SPECS: dict[str, type[TeacherSpec] | type[StudentsSpec]] = {
    TEACHER: TeacherSpec,
    STUDENTS: StudentsSpec,
}


def read_spec(path: str | os.PathLike) -> TeacherSpec | StudentsSpec:
    """The teacher's or the students' spec in the JSON file ``path`` (as its ``stage``
    says)."""
    values = read_json(path)
    return SPECS[values.pop("stage")].from_json(values, path)


def _spec_dir(checkpointing: Checkpointing | None, spec_dir: Path) -> str:
    """Where the spec file goes: the checkpoints' folder, else ``spec_dir``."""
    return str(spec_dir) if checkpointing is None else checkpointing.folder


def teacher_spec(
    run: FinetuneRun,
    outputs: Mapping[str, str],
    threads: int,
    checkpointing: Checkpointing | None = None,
) -> TeacherSpec:
    """The job spec of a teacher's fine-tuning; the spec file goes into ``checkpointing``'s
    folder, or beside its ``metrics`` without checkpoints."""
    return TeacherSpec(
        run=run,
        outputs=dict(outputs),
        threads=threads,
        checkpointing=checkpointing,
        checkpoint_dir=_spec_dir(checkpointing, Path(outputs["metrics"]).parent),
    )


class StudentsInputs(TypedDict):
    """The named inputs of rules train_students and untrained_students."""

    student: Sequence[str]  # [] for a student not built here
    teacher: str
    teacher_predictions: str
    data: str | Sequence[str]  # [] for untrained students
    task_data: Sequence[str]


def students_spec(
    run: StudentRun,
    inputs: StudentsInputs,
    outputs: Mapping[str, Sequence[str]],
    threads: int,
    checkpointing: Checkpointing | None = None,
) -> StudentsSpec:
    """The job spec of one experiment's students; the spec file goes into
    ``checkpointing``'s folder, or without checkpoints into the folder that holds their
    seeds' folders."""
    return StudentsSpec(
        run=run,
        inputs=dict(inputs),
        outputs={name: list(paths) for name, paths in outputs.items()},
        threads=threads,
        checkpointing=checkpointing,
        checkpoint_dir=_spec_dir(checkpointing, Path(outputs["evaluations"][0]).parent.parent),
    )


def run_job(spec: TeacherSpec | StudentsSpec) -> None:
    """Run the teacher's or the students' job ``spec`` in this process, from its
    checkpoints if it has some (made with the same run and inputs), then remove them."""
    checkpointing = spec.checkpointing
    if checkpointing is not None:
        checkpoints.check_settings(checkpointing.folder, spec.resumed_with())
    if isinstance(spec, TeacherSpec):
        train_teacher(
            spec.run, outputs=spec.outputs, threads=spec.threads, checkpointing=checkpointing
        )
    else:
        run_students(
            spec.run,
            inputs=spec.inputs,
            outputs=spec.outputs,
            threads=spec.threads,
            checkpointing=checkpointing,
        )
    checkpoints.remove(checkpointing)


if __name__ == "__main__":
    job_main(run_job, read_spec)
