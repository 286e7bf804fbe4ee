"""Rule distill: task-agnostic distillation of one student (resumable, data-parallel on its GPUs and nodes)."""

from biocompact.language_model_job import train_language_model
from biocompact.runlog import job_logging

with job_logging(snakemake):
    train_language_model(
        snakemake, "biocompact.distillation.run", teacher_dir=snakemake.params.teacher
    )
