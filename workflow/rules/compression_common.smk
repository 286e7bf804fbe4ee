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
            rules.evaluate_compressed.output.evaluation,
            model=model,
            task=task,
            seed=COMPRESSION.seed,
            format=COMPRESSION.all_formats,
        )
    ]


def compressed_model(wildcards):
    """The folder of format ``wildcards.format``: the saved fine-tuned model for fp32."""
    output = (
        rules.finetune_saved.output.model
        if wildcards.format == REFERENCE
        else rules.compress.output[0]
    )
    [path] = expand(output, **wildcards)
    return path
