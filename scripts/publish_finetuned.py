"""Publish the chosen seed's fine-tuned model of one (model, task) with its card."""

from biocompact.entries import parse_entry
from biocompact.finetuning.rules import publish_finetuned
from biocompact.finetuning.saved_models import Publication
from biocompact.locations import external_checkpoints
from biocompact.release.settings import CardSettings
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    publish_finetuned(
        Publication(
            choice=snakemake.params.choice,
            task=parse_entry(FinetuningTask, snakemake.params.task, "rule publish_finetuned"),
            # the config's, not params: a new card text re-runs no publication
            card_settings=parse_entry(CardSettings, snakemake.config["model_cards"]),
            base_model_built_here=snakemake.wildcards.model
            not in snakemake.config["external_models"],
            external_checkpoints=tuple(
                external_checkpoints(snakemake.wildcards.model, snakemake.config)
            ),
        ),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
