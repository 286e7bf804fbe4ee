# Input functions and the plan of the release stage (release.smk); included by common.smk.
# Uses model_dir, PRETRAINED, DISTILLED and FINETUNE_MODELS of common.smk and the kept
# fine-tuned models (SAVED_TASKS, SAVE_MODELS) of finetuning_common.smk.

from biocompact.release.plan import release_plan

RELEASES = release_plan(
    config["release"],
    PRETRAINED + DISTILLED,
    (
        {(model, task) for model in FINETUNE_MODELS for task in SAVED_TASKS}
        if SAVE_MODELS != "none"
        else set()
    ),
)


def release_folder(wildcards):
    """The model folder that release ``wildcards.release`` is made from."""
    model, task = RELEASES[wildcards.release]
    if task is not None:
        return expand(rules.publish_finetuned.output.model, model=model, task=task)[0]
    return model_dir(model)


def release_results(wildcards):
    """The results file of release ``wildcards.release``: a fine-tuned model's metrics.json
    in its folder, a language model's eval.json beside its folder."""
    folder = release_folder(wildcards)
    if RELEASES[wildcards.release][1] is not None:
        return f"{folder}/metrics.json"
    return str(Path(folder).parent / "eval.json")


def release_repo(wildcards):
    """The Hub repository of release ``wildcards.release``: NAMESPACE/RELEASE."""
    return f"{config['release']['namespace']}/{wildcards.release}"
