"""Rule distill: task-agnostic distillation of one student (resumable)."""

from biocompact.distillation.run import run_distillation
from biocompact.distillation.settings import DistillationSettings
from biocompact.model_card import CardSettings, write_language_model_card
from biocompact.runlog import job_logging

with job_logging(snakemake):
    run_distillation(
        name=snakemake.wildcards.model,
        settings=DistillationSettings.from_entry(snakemake.params.settings),
        teacher_dir=snakemake.input.teacher,
        dataset_dir=snakemake.input.corpus,
        outputs={
            "model": snakemake.output.model,
            "log": snakemake.output.log,
            "eval": snakemake.output.eval,
        },
        checkpoint_dir=snakemake.params.checkpoint_dir,
        masking=snakemake.params.masking,
        probes=snakemake.params.probes,
        threads=snakemake.threads,
    )
    write_language_model_card(
        {key: snakemake.output[key] for key in ("model", "log", "eval")},
        snakemake.params.settings,
        CardSettings.from_config(snakemake.config["model_cards"]),
        snakemake.input.corpus,
    )
