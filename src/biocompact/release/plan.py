"""Which models a study releases (the config's ``release`` section), read when the DAG is
built: language models by name, kept fine-tuned models as ``MODEL/TASK``, released as
``MODEL-TASK``. Torch-free."""

from __future__ import annotations

from collections.abc import Collection, Mapping


def release_plan(
    release: Mapping, language_models: Collection[str], kept: Collection[tuple[str, str]]
) -> dict[str, tuple[str, str | None]]:
    """``{release name: (model, task or None)}``; ``kept`` holds the (model, task) pairs whose
    fine-tuned model ``finetuning.save_models`` keeps. An unknown name is an error naming it."""
    plan: dict[str, tuple[str, str | None]] = {}
    for name in release["models"]:
        if name not in language_models:
            raise ValueError(
                f"config: release.models names {name!r}, which is not a model of pretraining "
                "or distillation"
            )
        plan[name] = (name, None)
    for pair in release["finetuned"]:
        model, _, task = pair.partition("/")
        if (model, task) not in kept:
            raise ValueError(
                f"config: release.finetuned names {pair!r}, which is not a kept fine-tuned model "
                "(a model and a task of finetuning without folds, with finetuning.save_models "
                "best or all)"
            )
        plan[f"{model}-{task}"] = (model, task)
    return plan
