"""Train (or leave untrained) the student of one experiment once per seed and evaluate it."""
from biocompact.runlog import job_logging
from biocompact.task_distillation.student import run_students

with job_logging(snakemake):  # noqa: F821  (snakemake is injected)
    run_students(
        snakemake.params.method,  # noqa: F821
        snakemake.params.student_path,  # noqa: F821
        snakemake.input.teacher,  # noqa: F821
        snakemake.params.task,  # noqa: F821
        snakemake.params.seeds,  # noqa: F821
        snakemake.output.evaluations,  # noqa: F821
        snakemake.output.predictions,  # noqa: F821
        snakemake.input.teacher_predictions,  # noqa: F821
        data_path=snakemake.input.get("data") or None,  # noqa: F821
        temperature=snakemake.params.temperature,  # noqa: F821
        threads=snakemake.threads,  # noqa: F821
        experiment=snakemake.wildcards.experiment,  # noqa: F821
        transfer=snakemake.wildcards.get("transfer"),  # noqa: F821
        model_name=snakemake.params.student,  # noqa: F821
        task_name=snakemake.params.task["name"],  # noqa: F821
    )
