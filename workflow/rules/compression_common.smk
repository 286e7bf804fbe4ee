# Names of the compression stage: its checked settings and input functions (compression.smk);
# included by common.smk. Uses FINETUNE_MODELS, TASKS and SEEDS of common.smk and
# task_data_config of finetuning_common.smk.


from biocompact.compression.settings import REFERENCE, CompressionSettings
from biocompact.entries import parse_entry

COMPRESSION = parse_entry(CompressionSettings, config["compression"]).checked(
    FINETUNE_MODELS, {task: task_data_config(task) for task in TASKS}, SEEDS
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


def saved_model(wildcards):
    """Input: the fp32 model that finetune_saved saved for (``wildcards.model``,
    ``wildcards.task``, ``wildcards.seed``), which the other formats are made from."""
    return expand(rules.finetune_saved.output.model, **wildcards)[0]


def compressed_models(wildcards):
    """Format name -> its model folder: the saved fine-tuned model for fp32."""
    return {
        name: (
            saved_model(wildcards)
            if name == REFERENCE
            else expand(rules.compress.output.model, **wildcards, format=name)[0]
        )
        for name in COMPRESSION.all_formats
    }
