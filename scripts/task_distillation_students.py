"""Train (or leave untrained) the student of one experiment once per seed and evaluate it."""

from biocompact.finetuning.settings import FinetuningTask
from biocompact.runlog import job_logging, named_files
from biocompact.task_distillation.student import StudentRun, run_students

with job_logging(snakemake):
    run_students(
        StudentRun(
            method=snakemake.params.method,
            student_path=snakemake.params.student_path,
            task=FinetuningTask.from_entry(snakemake.params.task),
            seeds=tuple(snakemake.params.seeds),
            temperature=snakemake.params.temperature,
            experiment=snakemake.wildcards.experiment,
            transfer=snakemake.wildcards.get("transfer"),
            model_name=snakemake.params.student,
        ),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
