"""Rule pretrain: pretraining of one model with its objective (resumable, data-parallel on its GPUs)."""

from biocompact.pretraining.run import launch_pretraining
from biocompact.runlog import job_logging

with job_logging(snakemake):  # noqa: F821 (snakemake is injected)
    launch_pretraining(
        {
            "name": snakemake.wildcards.model,
            "dataset_dir": snakemake.input.corpus,
            "tokenizer_dir": snakemake.input.tokenizer,
            "outputs": {"model": snakemake.output.model, "log": snakemake.output.log, "eval": snakemake.output.eval},
            "checkpoint_dir": snakemake.params.checkpoint_dir,
            "architecture": snakemake.params.architecture,
            "init": snakemake.params.init,
            "training": snakemake.params.training,
            "masking": snakemake.params.masking,
            "max_seq_length": snakemake.params.max_seq_length,
            "probes": snakemake.params.probes,
            "threads": snakemake.threads,
            "family": snakemake.params.family,
            "objective": snakemake.params.objective,
            "objective_options": snakemake.params.electra,  # read by the electra objective only
        },
        gpus=int(getattr(snakemake.resources, "gpu", 0)),
    )
