# Release: chosen models gathered into Hub-ready folders (weights, config, tokenizer, card,
# measured results) and the `hf upload` command of each; pushing stays the user's step.
# Language models (release.models) by name; kept fine-tuned models (release.finetuned) as
# MODEL/TASK, released as MODEL-TASK (biocompact.release.plan). Its names (RELEASES) and
# input functions are in release_common.smk.


localrules:
    release_model,
    release,


rule release_model:
    """One Hub-ready folder: the model's files, its card naming the Hub repository, its results."""
    input:
        model=release_folder,
    output:
        folder=directory("results/release/{release}"),
    log:
        "results/logs/release/{release}.log",
    wildcard_constraints:
        release="|".join(RELEASES) or "(?!)",
    conda:
        "../../envs/torch.yaml"
    params:
        results=release_results,
        repo=release_repo,
    script:
        "../../scripts/release_model.py"


rule release:
    """Target: every release folder; prints the `hf upload` command of each."""
    input:
        folders=expand(rules.release_model.output.folder, release=RELEASES),
    output:
        commands="results/release/upload.sh",
    log:
        "results/logs/release/upload.log",
    conda:
        "../../envs/torch.yaml"
    params:
        namespace=config["release"]["namespace"],
    script:
        "../../scripts/release.py"
