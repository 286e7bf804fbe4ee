"""The priorities of the workflow's jobs, from the validated config (light: read when the
DAG is built).

Among the jobs ready to run, Snakemake starts those of higher priority first (locally, and
when it submits to Slurm). Language models come first, those that other models are trained
from (distillation teachers, students' initial models) before the rest; then the jobs that
start a chain of later jobs or run long (task distillation, compression, efficiency); the
independent fine-tuning runs last, so that they fill the cores at the end instead of a chain
of jobs waiting on each other (docs/speed.md: the demo on two cores). The vocabulary and
corpus jobs lead to models: they take the highest priority of the models trained on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from biocompact.workflow.config_checks import own_vocabulary

PRIORITY_UPSTREAM_MODEL = 30
PRIORITY_MODEL = 20
PRIORITY_CHAIN = 10


def model_vocabulary(config: Mapping[str, Any], name: str) -> str | None:
    """The vocabulary whose tokenised corpus pretrained or distilled model ``name`` trains
    on (an external teacher's: its own vocabulary; ``config_checks`` refuses a student of
    an external teacher without one, for which this is None)."""
    if name in config["pretraining"]:
        return config["pretraining"][name]["vocabulary"]
    if name in config["external_models"]:
        return own_vocabulary(config["vocabularies"], config["external_models"][name])
    return model_vocabulary(config, config["distillation"][name]["teacher"])


def students_from_models(config: Mapping[str, Any]) -> dict[str, str]:
    """Students whose ``student_init`` names a model of this config (Lewis et al. 2020: an
    MLM-pretrained student), and that model."""
    known = {*config["pretraining"], *config["distillation"], *config["external_models"]}
    return {
        name: entry["student_init"]
        for name, entry in config["distillation"].items()
        if entry["student_init"] in known
    }


class JobPriorities:
    """The priorities of the jobs that build the models of ``config``, their vocabularies
    and their corpus."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        # the models others are trained from: teachers and students' initial models
        self.upstream = {entry["teacher"] for entry in config["distillation"].values()}
        self.upstream |= set(students_from_models(config).values())
        self.trained = [*config["pretraining"], *config["distillation"]]

    def model(self, name: str) -> int:
        """Priority of the job that builds model ``name``."""
        return PRIORITY_UPSTREAM_MODEL if name in self.upstream else PRIORITY_MODEL

    def vocabulary(self, vocabulary: str) -> int:
        """Priority of the jobs that build ``vocabulary`` and its tokenised corpus: the
        highest of the models trained on it, so that the path to a teacher is not overtaken
        by the fine-tuning runs of models that are ready (e.g. external ones)."""
        return max(
            (
                self.model(name)
                for name in self.trained
                if model_vocabulary(self.config, name) == vocabulary
            ),
            default=0,
        )

    def corpus(self) -> int:
        """Priority of the corpus jobs, which lead to every vocabulary: the highest of any
        trained model."""
        return max(map(self.model, self.trained), default=0)
