"""The rule side of a language-model job (pretraining, task-agnostic distillation): the spec
every such job module reads, launched on the rule's GPUs and nodes, then the model card."""

from __future__ import annotations

from typing import Any

from biocompact.model_card import CardSettings, write_language_model_card
from biocompact.training.launch import launch

OUTPUTS = ("model", "log", "eval")


def train_language_model(smk: Any, module: str, **job_inputs: Any) -> None:
    """Run job module ``module`` for rule job ``smk`` (Snakemake's object) with the spec
    shared by every language-model rule plus ``job_inputs`` (its own folders and settings),
    then write the card into the published model folder."""
    outputs = {key: smk.output[key] for key in OUTPUTS}
    launch(
        module,
        {
            "name": smk.wildcards.model,
            "settings": smk.params.settings,  # the config entry, parsed by each process
            "dataset_dir": smk.input.corpus,
            **job_inputs,
            "outputs": outputs,
            "checkpoint_dir": smk.params.checkpoint_dir,
            "masking": smk.params.masking,
            "probes": smk.params.probes,
            "threads": smk.threads,
            "tracking": smk.config["tracking"],  # where the curves go besides TensorBoard
        },
        gpus=smk.resources.gpus_per_node,
        nodes=smk.resources.nodes,
    )
    write_language_model_card(
        outputs,
        smk.params.settings,
        CardSettings.from_config(smk.config["model_cards"]),
        smk.input.corpus,
    )
