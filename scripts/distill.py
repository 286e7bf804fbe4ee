"""Rule distill: task-agnostic distillation of one student (resumable)."""

from biocompact.distillation.run import run_distillation
from biocompact.runlog import job_logging

with job_logging(snakemake):  # noqa: F821 (snakemake is injected)
    run_distillation(
        name=snakemake.wildcards.model,
        teacher_dir=snakemake.input.teacher,
        dataset_dir=snakemake.input.corpus,
        outputs={"model": snakemake.output.model, "log": snakemake.output.log, "eval": snakemake.output.eval},
        checkpoint_dir=snakemake.params.checkpoint_dir,
        method=snakemake.params.method,
        student_init=snakemake.params.student_init,
        student_layers=snakemake.params.student_layers,
        student_architecture=snakemake.params.student_architecture,
        temperature=snakemake.params.temperature,
        alpha=snakemake.params.alpha,
        layer_map=snakemake.params.layer_map,
        training=snakemake.params.training,
        masking=snakemake.params.masking,
        probes=snakemake.params.probes,
        threads=snakemake.threads,
    )
