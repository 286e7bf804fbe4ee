"""The training jobs of task-specific distillation, launched on every GPU they ask for.

The teacher's fine-tuning (``train_teacher``) and the students' training (``run_students``)
run through ``biocompact.training.launch``: in the rule's process on one GPU (or the CPU),
else ``python -m biocompact.task_distillation.job SPEC.json`` once per GPU under torchrun,
where the Hugging Face Trainer itself trains data-parallel (it reads the process group that
``launch.job_main`` joined) and rank 0 alone writes. The spec holds the run's fields, its
task as the plain config entry (parsed again by every process), and its files.

With ``checkpointing`` (the rules' ``results/checkpoints/task_distillation/...``) every
training saves resumable checkpoints there (``biocompact.finetuning.checkpoints``), so a
job killed or stopped at its time limit and started again resumes where it was and ends
with the weights of an uninterrupted run; the spec file goes there too, and the folder is
removed once the job's outputs are written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from biocompact.finetuning import checkpoints
from biocompact.finetuning.checkpoints import Checkpointing
from biocompact.finetuning.settings import FinetuningTask
from biocompact.finetuning.train import FinetuneRun
from biocompact.task_distillation.student import StudentRun, run_students, train_teacher
from biocompact.training.launch import job_main

MODULE = "biocompact.task_distillation.job"
TEACHER, STUDENTS = "teacher", "students"


def _checkpoint_fields(checkpointing: Checkpointing | None, spec_dir: Path) -> dict[str, Any]:
    """Where the spec file goes (the checkpoints' folder, else ``spec_dir``) and the
    checkpointing of the job's trainings."""
    if checkpointing is None:
        return {"checkpoint_dir": str(spec_dir), "checkpointing": None}
    return {"checkpoint_dir": checkpointing.folder, "checkpointing": asdict(checkpointing)}


def teacher_spec(
    run: FinetuneRun,
    outputs: Mapping[str, str],
    threads: int,
    checkpointing: Checkpointing | None = None,
) -> dict[str, Any]:
    """The job spec of a teacher's fine-tuning (its run's model, task, seed and name: the
    fields the rule sets); the spec file goes into ``checkpointing``'s folder, or beside
    its ``metrics`` without checkpoints."""
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
        **_checkpoint_fields(checkpointing, Path(outputs["metrics"]).parent),
    }


def students_spec(
    run: StudentRun,
    inputs: Mapping[str, str | None],
    outputs: Mapping[str, Sequence[str]],
    threads: int,
    checkpointing: Checkpointing | None = None,
) -> dict[str, Any]:
    """The job spec of one experiment's students; the spec file goes into
    ``checkpointing``'s folder, or without checkpoints into the folder that holds their
    seeds' folders."""
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
        **_checkpoint_fields(checkpointing, Path(outputs["evaluations"][0]).parent.parent),
    }


def run_job(spec: dict[str, Any]) -> None:
    """Run the teacher's or the students' job of ``spec`` in this process, from its
    checkpoints if it has some (made with the same run and inputs), then remove them."""
    fields = {**spec["run"], "task": FinetuningTask.from_entry(spec["run"]["task"])}
    checkpointing = spec["checkpointing"] and Checkpointing(**spec["checkpointing"])
    if checkpointing is not None:
        checkpoints.check_settings(
            checkpointing.folder, {"run": spec["run"], "inputs": spec.get("inputs")}
        )
    if spec["stage"] == TEACHER:
        train_teacher(
            FinetuneRun(**fields),
            outputs=spec["outputs"],
            threads=spec["threads"],
            checkpointing=checkpointing,
        )
    else:
        run_students(
            StudentRun(**{**fields, "seeds": tuple(fields["seeds"])}),
            inputs=spec["inputs"],
            outputs=spec["outputs"],
            threads=spec["threads"],
            checkpointing=checkpointing,
        )
    checkpoints.remove(checkpointing)


if __name__ == "__main__":
    job_main(run_job)
