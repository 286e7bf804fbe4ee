"""Fine-tuned models kept as outputs (``finetuning.save_models``): the task's label names in
the saved config, the seed chosen among the runs, and its folder published with a card."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from biocompact.files.atomic import atomic_path, write_json
from biocompact.finetuning.tasks import get_family
from biocompact.records.base import record_data
from biocompact.records.metrics import MetricsRecord
from biocompact.release.cards import finetuned_model_card, write_card
from biocompact.release.settings import CardSettings
from biocompact.taskfiles.settings import FinetuningTask

logger = logging.getLogger(__name__)

CHOICES = ("median_dev", "best_dev")


def choose_run(records: Sequence[MetricsRecord], choice: str) -> tuple[MetricsRecord, str]:
    """The run to publish among one (model, task)'s seeds, and a sentence saying why.

    ``median_dev``: the seed whose dev score (primary metric) is the median; of an even
    number of seeds the lower of the two middle ones. ``best_dev``: the highest dev score.
    Ties go to the seed listed first. The test scores never choose.
    """
    if choice not in CHOICES:
        raise ValueError(f"finetuning.save_choice: unknown {choice!r}; known: {list(CHOICES)}")
    if not records:
        raise ValueError("no fine-tuning run to choose a model from")
    primary = records[0].primary_metric
    ranked = sorted(records, key=lambda record: record.dev_metrics[primary])  # stable
    if choice == "best_dev":
        best = max(record.dev_metrics[primary] for record in records)
        chosen = next(r for r in records if r.dev_metrics[primary] == best)
        why = "the best dev score"
    else:
        chosen = ranked[(len(ranked) - 1) // 2]
        why = "the median dev score" + (
            " (the lower of the two middle ones)" if len(ranked) % 2 == 0 else ""
        )
    sentence = (
        f"This checkpoint is seed {chosen.seed}, the run with {why} "
        f"(dev {primary} {chosen.dev_metrics[primary]:.4f}; "
        f"`finetuning.save_choice: {choice}`)."
    )
    return chosen, sentence


def publish_chosen(
    records: Sequence[MetricsRecord],
    folders: Mapping[int | None, str | os.PathLike],
    choice: str,
    task: FinetuningTask,
    settings: CardSettings,
    out_folder: str | os.PathLike,
    *,
    decontamination: str = "",
) -> MetricsRecord:
    """Copy the chosen seed's folder (from ``folders``, seed -> model folder) to
    ``out_folder`` with its card of ``task`` (``decontamination``: its base model's
    statement) and its ``metrics.json`` (the run's record with its ``selection``),
    atomically; returns that record."""
    chosen, sentence = choose_run(records, choice)
    chosen = replace(chosen, selection=sentence)
    with atomic_path(out_folder, is_dir=True) as folder:
        shutil.copytree(
            folders[chosen.seed],
            folder,
            ignore=shutil.ignore_patterns(".snakemake_timestamp"),
            dirs_exist_ok=True,
        )
        write_json(folder / "metrics.json", record_data(chosen))
        card = finetuned_model_card(
            folder,
            records,
            chosen,
            sentence,
            task,
            settings,
            pipeline_tag=get_family(task.family, task.format).pipeline_tag,
            location=str(out_folder),
            decontamination=decontamination,
        )
        write_card(card, folder)
    return chosen


@dataclass(frozen=True)
class Publication:
    """How one (model, task)'s fine-tuned model is published: the seed ``choice`` (one of
    ``CHOICES``), the ``task`` (its entry is quoted by the card), the card's settings, and
    of the base model whether this workflow built it and the checkpoints not built here
    whose text it carries (``locations.external_checkpoints``)."""

    choice: str
    task: FinetuningTask
    card_settings: CardSettings
    base_model_built_here: bool
    external_checkpoints: tuple[str, ...]
