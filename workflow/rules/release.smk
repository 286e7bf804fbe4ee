# Release: chosen models gathered into Hub-ready folders (weights, config, tokenizer, card,
# measured results) and the `hf upload` command of each; pushing stays the user's step.
# Language models (release.models) by name; kept fine-tuned models (release.finetuned) as
# MODEL/TASK, released as MODEL-TASK. Uses model_dir (common.smk) and publish_finetuned.

RELEASE_MODELS = {name: name for name in config["release"]["models"]}
RELEASE_MODELS.update({pair.replace("/", "-"): pair for pair in config["release"]["finetuned"]})


def _check_release():
    for name in config["release"]["models"]:
        if name not in PRETRAINED + DISTILLED:
            raise ValueError(
                f"config: release.models names {name!r}, which is not a model of pretraining or distillation"
            )
    for pair in config["release"]["finetuned"]:
        model, task = pair.split("/")
        if SAVE_MODELS == "none" or model not in FINETUNE_MODELS or task not in SAVED_TASKS:
            raise ValueError(
                f"config: release.finetuned names {pair!r}, which is not a kept fine-tuned model "
                "(a model and a task of finetuning without folds, with finetuning.save_models best or all)"
            )


_check_release()


def release_source(wildcards):
    """The model folder and results file of release ``wildcards.release``."""
    source = RELEASE_MODELS[wildcards.release]
    if "/" in source:
        model, task = source.split("/")
        [folder] = expand(rules.publish_finetuned.output.model, model=model, task=task)
        return {"model": folder, "results": f"{folder}/metrics.json"}
    folder = model_dir(source)
    return {"model": folder, "results": str(Path(folder).parent / "eval.json")}


localrules:
    release_model,
    release,


rule release_model:
    """One Hub-ready folder: the model's files, its card naming the Hub repository, its results."""
    input:
        model=lambda wc: release_source(wc)["model"],
    output:
        directory("results/release/{release}"),
    log:
        "results/logs/release/{release}.log",
    wildcard_constraints:
        release="|".join(RELEASE_MODELS) or "(?!)",
    conda:
        "../../envs/torch.yaml"
    params:
        results=lambda wc: release_source(wc)["results"],
        repo=lambda wc: f"{config['release']['namespace']}/{wc.release}",
    script:
        "../../scripts/release_model.py"


rule release:
    """Target: every release folder; prints the `hf upload` command of each."""
    input:
        expand(rules.release_model.output[0], release=RELEASE_MODELS),
    output:
        "results/release/upload.sh",
    conda:
        "../../envs/torch.yaml"
    params:
        namespace=config["release"]["namespace"],
    script:
        "../../scripts/release_commands.py"
