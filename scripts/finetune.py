"""Fine-tune one model on one task with one seed; evaluate the best dev epoch on test (and
save the model with its card where the rule has a ``model`` output: a kept fine-tuned model,
compression's fp32 reference)."""

from biocompact.entries import parse_entry
from biocompact.finetuning.rules import finetune
from biocompact.finetuning.train import FinetuneRun
from biocompact.release.settings import CardSettings
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.tracking.trackers import TrackingSettings
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    task = parse_entry(FinetuningTask, snakemake.params.task, "rule finetune")
    finetune(
        FinetuneRun(
            model_path=snakemake.params.model_path,
            task=task,
            seed=int(snakemake.wildcards.seed),
            model_name=snakemake.wildcards.model,
            saved_label_names=task.label_names,
            # the config's, not params: a new card text or tracker re-runs no training
            card_settings=parse_entry(CardSettings, snakemake.config["model_cards"]),
            tracking=parse_entry(TrackingSettings, snakemake.config["tracking"]),
        ),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
