"""Fine-tune one model on one task with one seed; evaluate the best dev epoch on test (and
save the model with its card where the rule has a ``model`` output: a kept fine-tuned model,
compression's fp32 reference)."""

from biocompact.finetuning.train import finetune
from biocompact.model_card import CardSettings
from biocompact.runlog import job_logging
from biocompact.tracking import TrackingSettings

with job_logging(snakemake) as log:
    finetune(
        snakemake.params.model_path,
        snakemake.params.task,
        int(snakemake.wildcards.seed),
        snakemake.output.metrics,
        snakemake.output.predictions,
        threads=snakemake.threads,
        model_name=snakemake.wildcards.model,
        task_name=snakemake.wildcards.task,
        out_model=snakemake.output.get("model"),
        saved_label_names=snakemake.params.task["label_names"],
        card_settings=CardSettings.from_config(snakemake.config["model_cards"]),
        tracking=TrackingSettings.from_config(snakemake.config["tracking"]),
    )
