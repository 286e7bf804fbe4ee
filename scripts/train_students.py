"""Train (or leave untrained) the student of one experiment once per seed and evaluate it
(data-parallel on its GPUs)."""

from biocompact.entries import parse_entry
from biocompact.finetuning.checkpoints import Checkpointing
from biocompact.task_distillation.rules import train_students
from biocompact.task_distillation.student import StudentRun
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    train_students(
        StudentRun(
            method=snakemake.params.method,
            student_path=snakemake.params.student_path,
            task=parse_entry(FinetuningTask, snakemake.params.task, "rule train_students"),
            seeds=tuple(snakemake.params.seeds),
            temperature=snakemake.params.temperature,
            experiment=snakemake.wildcards.experiment,
            transfer=snakemake.wildcards.get("transfer"),
            model_name=snakemake.params.student,
        ),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
        gpus=snakemake.resources.gpus_per_node,
        checkpointing=Checkpointing(
            snakemake.params.checkpoint_dir,
            every=snakemake.config["task_distillation"]["checkpoint_every"],
        ),
    )
