"""Rule pretrain: pretraining of one model with its objective (resumable, data-parallel on its GPUs and nodes)."""

from biocompact.pretraining.rules import pretrain
from biocompact.training.language_model_job import PretrainingJob
from biocompact.workflow.config_sections import parse_config
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    pretrain(
        PretrainingJob.from_params(
            snakemake.params, snakemake.wildcards.model, parse_config(snakemake.config)
        ),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
        gpus=snakemake.resources.gpus_per_node,
        nodes=snakemake.resources.nodes,
    )
