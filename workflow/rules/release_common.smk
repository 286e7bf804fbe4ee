# Input functions and the plan of the release stage (release.smk, which includes this file).
# Uses model_dir, PRETRAINED, DISTILLED and the kept fine-tuned models of common.smk and
# finetuning.smk.

from biocompact.release_plan import release_plan

RELEASES = release_plan(
    config["release"],
    PRETRAINED + DISTILLED,
    (
        {(model, task) for model in FINETUNE_MODELS for task in SAVED_TASKS}
        if SAVE_MODELS != "none"
        else set()
    ),
)


def release_source(wildcards):
    """The model folder and results file of release ``wildcards.release``."""
    model, task = RELEASES[wildcards.release]
    if task is not None:
        [folder] = expand(rules.publish_finetuned.output.model, model=model, task=task)
        return {"model": folder, "results": f"{folder}/metrics.json"}
    folder = model_dir(model)
    return {"model": folder, "results": str(Path(folder).parent / "eval.json")}
