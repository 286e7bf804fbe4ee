"""The training jobs of task-specific distillation, launched on every GPU they ask for.

The teacher's fine-tuning (``train_teacher``) and the students' training (``run_students``)
run through ``biocompact.training.launch``: in the rule's process on one GPU (or the CPU),
else ``python -m biocompact.task_distillation.job SPEC.json`` once per GPU under torchrun,
where the Hugging Face Trainer itself trains data-parallel (it reads the process group that
``launch.job_main`` joined) and rank 0 alone writes. The spec holds the run's fields, its
task as the plain config entry (parsed again by every process), and its files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from biocompact.finetuning.settings import FinetuningTask
from biocompact.finetuning.train import FinetuneRun
from biocompact.task_distillation.student import StudentRun, run_students, train_teacher
from biocompact.training.launch import job_main, launch

MODULE = "biocompact.task_distillation.job"
TEACHER, STUDENTS = "teacher", "students"


def teacher_spec(run: FinetuneRun, outputs: Mapping[str, str], threads: int) -> dict[str, Any]:
    """The job spec of a teacher's fine-tuning (its run's model, task, seed and name: the
    fields the rule sets); the spec file goes beside its ``metrics``."""
    return {
        "stage": TEACHER,
        "run": {
            "model_path": run.model_path,
            "task": dict(run.task.entry),
            "seed": run.seed,
            "model_name": run.model_name,
        },
        "outputs": dict(outputs),
        "threads": threads,
        "checkpoint_dir": str(Path(outputs["metrics"]).parent),
    }


def students_spec(
    run: StudentRun,
    inputs: Mapping[str, str | None],
    outputs: Mapping[str, Sequence[str]],
    threads: int,
) -> dict[str, Any]:
    """The job spec of one experiment's students; the spec file goes in the folder that
    holds their seeds' folders."""
    return {
        "stage": STUDENTS,
        "run": {
            "method": run.method,
            "student_path": run.student_path,
            "task": dict(run.task.entry),
            "seeds": list(run.seeds),
            "temperature": run.temperature,
            "experiment": run.experiment,
            "transfer": run.transfer,
            "model_name": run.model_name,
        },
        "inputs": dict(inputs),
        "outputs": {name: list(paths) for name, paths in outputs.items()},
        "threads": threads,
        "checkpoint_dir": str(Path(outputs["evaluations"][0]).parent.parent),
    }


def launch_teacher(
    run: FinetuneRun, *, outputs: Mapping[str, str], threads: int, gpus: int
) -> None:
    """Fine-tune and evaluate the teacher (``train_teacher``) on ``gpus`` GPUs."""
    launch(MODULE, teacher_spec(run, outputs, threads), gpus=gpus)


def launch_students(
    run: StudentRun,
    *,
    inputs: Mapping[str, str | None],
    outputs: Mapping[str, Sequence[str]],
    threads: int,
    gpus: int,
) -> None:
    """Train and evaluate one experiment's students (``run_students``) on ``gpus`` GPUs."""
    launch(MODULE, students_spec(run, inputs, outputs, threads), gpus=gpus)


def run_job(spec: dict[str, Any]) -> None:
    """Run the teacher's or the students' job of ``spec`` in this process."""
    fields = {**spec["run"], "task": FinetuningTask.from_entry(spec["run"]["task"])}
    if spec["stage"] == TEACHER:
        train_teacher(FinetuneRun(**fields), outputs=spec["outputs"], threads=spec["threads"])
    else:
        run_students(
            StudentRun(**{**fields, "seeds": tuple(fields["seeds"])}),
            inputs=spec["inputs"],
            outputs=spec["outputs"],
            threads=spec["threads"],
        )


if __name__ == "__main__":
    job_main(run_job)
