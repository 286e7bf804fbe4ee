"""Train (or leave untrained) the student of one experiment once per seed and evaluate it."""

from biocompact.runlog import job_logging
from biocompact.task_distillation.student import run_students

with job_logging(snakemake):
    run_students(
        snakemake.params.method,
        snakemake.params.student_path,
        snakemake.input.teacher,
        snakemake.params.task,
        snakemake.params.seeds,
        snakemake.output.evaluations,
        snakemake.output.predictions,
        snakemake.input.teacher_predictions,
        data_path=snakemake.input.get("data") or None,
        temperature=snakemake.params.temperature,
        threads=snakemake.threads,
        experiment=snakemake.wildcards.experiment,
        transfer=snakemake.wildcards.get("transfer"),
        model_name=snakemake.params.student,
        task_name=snakemake.params.task["name"],
    )
