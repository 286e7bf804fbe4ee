"""Rule pretrain: pretraining of one model with its objective (resumable, data-parallel on its GPUs and nodes)."""

from biocompact.model_card import CardSettings, write_language_model_card
from biocompact.runlog import job_logging
from biocompact.training.launch import launch

with job_logging(snakemake):
    launch(
        "biocompact.pretraining.run",
        {
            "name": snakemake.wildcards.model,
            "settings": snakemake.params.settings,  # the config entry, parsed by each process
            "dataset_dir": snakemake.input.corpus,
            "tokenizer_dir": snakemake.input.tokenizer,
            "outputs": {
                "model": snakemake.output.model,
                "log": snakemake.output.log,
                "eval": snakemake.output.eval,
            },
            "checkpoint_dir": snakemake.params.checkpoint_dir,
            "masking": snakemake.params.masking,
            "max_seq_length": snakemake.params.max_seq_length,
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
