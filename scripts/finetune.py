"""Fine-tune one model on one task with one seed; evaluate the best dev epoch on test (and
save the model with its card where the rule has a ``model`` output: a kept fine-tuned model,
compression's fp32 reference)."""

from biocompact.finetuning.train import finetune
from biocompact.model_card import CardSettings, finetuned_model_card, write_card
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    task = snakemake.params.task
    out_model = snakemake.output.get("model")
    record = finetune(
        snakemake.params.model_path,
        task,
        int(snakemake.wildcards.seed),
        snakemake.output.metrics,
        snakemake.output.predictions,
        threads=snakemake.threads,
        model_name=snakemake.wildcards.model,
        task_name=snakemake.wildcards.task,
        out_model=out_model,
        saved_label_names=task.get("label_names"),
    )
    if out_model:
        card = finetuned_model_card(
            out_model,
            [record],
            record,
            f"One run, seed {record['seed']}.",
            task,
            CardSettings.from_config(snakemake.config["model_cards"]),
        )
        write_card(card, out_model)
