"""Publish the chosen seed's fine-tuned model of one (model, task) with its card."""

from biocompact.atomic import read_json
from biocompact.finetuning.saved_models import publish_chosen
from biocompact.model_card import CardSettings
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    records = [read_json(path) for path in snakemake.input.metrics]
    chosen = publish_chosen(
        records,
        {record["seed"]: folder for record, folder in zip(records, snakemake.input.models)},
        snakemake.params.choice,
        snakemake.params.task,
        CardSettings.from_config(snakemake.config["model_cards"]),
        snakemake.output.model,
    )
    log.info("published seed %d as %s", chosen["seed"], snakemake.output.model)
