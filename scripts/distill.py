"""Rule distill: task-agnostic distillation of one student (resumable, data-parallel on its GPUs and nodes)."""

from biocompact.model_card import CardSettings, write_language_model_card
from biocompact.runlog import job_logging
from biocompact.training.launch import launch

with job_logging(snakemake):
    launch(
        "biocompact.distillation.run",
        {
            "name": snakemake.wildcards.model,
            "settings": snakemake.params.settings,  # the config entry, parsed by each process
            "teacher_dir": snakemake.params.teacher,
            "dataset_dir": snakemake.input.corpus,
            "outputs": {
                "model": snakemake.output.model,
                "log": snakemake.output.log,
                "eval": snakemake.output.eval,
            },
            "checkpoint_dir": snakemake.params.checkpoint_dir,
            "masking": snakemake.params.masking,
            "probes": snakemake.params.probes,
            "threads": snakemake.threads,
            "tracking": snakemake.config["tracking"],  # where the curves go besides TensorBoard
        },
        gpus=snakemake.resources.gpus_per_node,
        nodes=snakemake.resources.nodes,
    )
    write_language_model_card(
        {key: snakemake.output[key] for key in ("model", "log", "eval")},
        snakemake.params.settings,
        CardSettings.from_config(snakemake.config["model_cards"]),
        snakemake.input.corpus,
    )
