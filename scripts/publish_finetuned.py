"""Publish the chosen seed's fine-tuned model of one (model, task) with its card."""

from biocompact.entries import parse_entry
from biocompact.finetuning.rules import publish_finetuned
from biocompact.finetuning.saved_models import Publication
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.workflow.config_sections import parse_config
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    # the config's, not params: a new card text re-runs no publication
    config, model = parse_config(snakemake.config), snakemake.wildcards.model
    publish_finetuned(
        Publication(
            choice=snakemake.params.choice,
            task=parse_entry(FinetuningTask, snakemake.params.task, "rule publish_finetuned"),
            card_settings=config.model_cards,
            base_model_built_here=model not in config.external_models,
            external_checkpoints=config.external_checkpoints(model),
        ),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
