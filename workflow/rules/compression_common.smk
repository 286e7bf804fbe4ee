# Names of the compression stage: its checked settings and input functions (compression.smk).


from biocompact.compression.settings import REFERENCE, CompressionSettings

COMPRESSION = CompressionSettings.from_config(
    config["compression"], FINETUNE_MODELS, config["finetuning"]["tasks"], SEEDS
)


def compression_evaluations():
    """Every format's evaluation.json of every compressed (model, task)."""
    return [
        path
        for model, task in COMPRESSION.pairs
        for path in expand(
            rules.evaluate_compressed.output.evaluations,
            model=model,
            task=task,
            seed=COMPRESSION.seed,
        )
    ]


def compressed_models(wildcards):
    """Format name -> its model folder: the saved fine-tuned model for fp32."""
    return {
        name: (
            expand(rules.finetune_saved.output.model, **wildcards)[0]
            if name == REFERENCE
            else expand(rules.compress.output.model, **wildcards, format=name)[0]
        )
        for name in COMPRESSION.all_formats
    }


def compressed_task_files(wildcards):
    """The data files of task ``wildcards.task`` (its test set re-scores every format)."""
    return task_files(task_config(wildcards.task))


def compressed_task_config(wildcards):
    """Task ``wildcards.task``'s config as model ``wildcards.model`` was fine-tuned on it."""
    return finetune_config(wildcards.model, wildcards.task)
