"""Tables of the report: pandas in, display-ready cells out (numbers from the result files)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from biocompact.records.corpus_statistics import CorpusStatistics
from biocompact.records.dataset_counts import PreparedFileCounts
from biocompact.records.language_model import LanguageModelRecord, Pretraining
from biocompact.records.metrics import FLOOR_MODELS
from biocompact.records.vocabulary import VocabularyStatistics
from biocompact.report.aggregation import BLURB, OVERALL
from biocompact.report.floors import FloorStatus, FloorVerdict, is_floor, row_verdicts
from biocompact.report.intervals import (
    NOT_DISTINGUISHABLE,
    Intervals,
    RowIntervals,
    difference_text,
    interval,
)
from biocompact.report.settings import PretrainedVocabulary
from biocompact.task_distillation.summary import AGREEMENT, SETTINGS

FAMILY_NAMES = {
    "ner": "Named entity recognition (NER)",
    "re": "Relation extraction (RE)",
    "qa": "Question answering (QA)",
    "dc": "Document classification (DC)",
}


@dataclass
class Cell:
    """One table cell: shown text, hover text, rank in its row or column (1 best, 2 second), a
    note, whether it is a number (right-aligned), how many columns it spans and whether it is
    tied with the best of its row (not distinguishable from it)."""

    text: str
    title: str = ""
    rank: int = 0
    note: str = ""
    numeric: bool = False
    colspan: int = 1
    tie: bool = False


@dataclass
class Table:
    """Header and rows of cells; ``row_classes`` gives a CSS class per row (``""`` for none)."""

    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    row_classes: list[str] = field(default_factory=list)

    def add(self, cells: list[Cell], row_class: str = "") -> None:
        self.rows.append(cells)
        self.row_classes.append(row_class)


DASH = "–"  # shown for a value that does not exist; its cell's title says why


def missing(value: Any) -> bool:
    """None, NaN or an infinity: nothing to print as a number."""
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def percent(value: float, digits: int = 1) -> str:
    """A score in [0, 1] shown as a percentage number (``0.812 -> "81.2"``)."""
    return "" if missing(value) else f"{100 * value:.{digits}f}"


def number(value: float, digits: int = 0) -> str:
    """A number with thousands separators."""
    return "" if missing(value) else f"{value:,.{digits}f}"


def frame_table(
    frame: pd.DataFrame, formats: dict[str, Callable[[Any], str]] | None = None
) -> Table:
    """A DataFrame as a Table; columns with a format are numbers, the others text (``str``)."""
    formats = formats or {}
    table = Table(list(frame.columns))
    for _, row in frame.iterrows():
        table.add(
            [
                Cell(formats[column](value), numeric=True)
                if column in formats
                else Cell("" if missing(value) else str(value))
                for column, value in row.items()
            ]
        )
    return table


def ranks(values: pd.Series, models: Sequence[str], eligible: Sequence[bool]) -> list[int]:
    """1 for the best, 2 for the second best value (ties share a rank) among the ``eligible``
    models; the constant floors are not ranked."""
    keep = pd.Series([not is_floor(m) for m in models], index=values.index) & pd.Series(
        list(eligible), index=values.index
    )
    ranked = values.where(keep).rank(method="dense", ascending=False)
    return ranked.where(ranked <= 2).fillna(0).astype(int).tolist()


def floor_note(verdict: FloorVerdict) -> str:
    """A cell's short mark of a model at the floor: ``≈ all-positive [-2.7, +3.0]`` (the
    difference's interval, in points), ``≤ majority-class`` where it is not above it."""
    comparison = verdict.comparison
    if comparison is None:
        return f"≤ {verdict.floor}"
    sign = "≤" if comparison["difference"] <= 0 else "≈"
    low, high = comparison["ci_low"], comparison["ci_high"]
    return f"{sign} {verdict.floor} [{100 * low:+.1f}, {100 * high:+.1f}]"


def mark_at_floor(cell: Cell, verdict: FloorVerdict) -> Cell:
    """Mark a model's cell at its row's strongest constant floor (which floor, the interval
    of the difference): not ranked."""
    reason = f"{verdict.reason()}: not ranked"
    cell.title = f"{cell.title}; {reason}" if cell.title else reason
    note = floor_note(verdict)
    cell.note = f"{cell.note}; {note}" if cell.note else note
    return cell


def _score_cell(row: pd.Series | None, rank: int) -> Cell:
    if row is None:
        return Cell("", numeric=True)
    seeds = f"{row['n_seeds']}/{row['n_expected']} seeds"
    if row["n_seeds"] == 0:
        return Cell(
            "missing", f"no result; missing seeds: {row['missing_seeds']}", note=seeds, numeric=True
        )
    spread = "" if missing(row["std"]) else f" ± {percent(row['std'])}"
    title = f"median {percent(row['median'])}; min-max {percent(row['min'])}-{percent(row['max'])}; {seeds}"
    if row["n_seeds"] < row["n_expected"]:
        title += f"; missing seeds: {row['missing_seeds']}"
    note = seeds if row["n_seeds"] < row["n_expected"] else ""
    return Cell(percent(row["median"]) + spread, title, rank, note, numeric=True)


def _average_cell(average: pd.Series | None, rank: int) -> Cell:
    if average is None:
        return Cell("", numeric=True)
    tasks = f"{average['n_tasks']}/{average['n_expected_tasks']} tasks"
    partial = average["n_tasks"] < average["n_expected_tasks"]
    return Cell(
        percent(average["value"]) or "missing", tasks, rank, tasks if partial else "", numeric=True
    )


def with_intervals(cell: Cell, model: str, row: RowIntervals, average: bool) -> Cell:
    """A results cell with its model's interval (shown on an average row, on hover on a task
    row) and its differences against the row's best and the baseline on hover."""
    value = row.values.get(model)
    if value is not None:
        bounds = interval(value["ci_low"], value["ci_high"])
        if average:
            cell.text = f"{cell.text} {bounds}"
        lines = [f"95% interval over test-unit resamples {bounds}"]
    else:
        lines = []
    lines += [
        difference_text(comparisons[model])
        for comparisons in (row.versus_best, row.versus_baseline)
        if model in comparisons
    ]
    cell.title = "; ".join([cell.title, *lines] if cell.title else lines)
    return cell


def tied_ranks(
    ranked: dict[str, int], tied: list[str], eligible: set[str]
) -> tuple[dict[str, int], set[str]]:
    """Ranks of a row once the intervals are known: when the best is not distinguishable
    from another ``eligible`` model (above the floor), no model is ranked and those are
    marked tied."""
    tied = [model for model in tied if model in eligible]
    if len(tied) < 2:
        return ranked, set()
    return dict.fromkeys(ranked, 0), set(tied)


def family_name(family: str) -> str:
    return FAMILY_NAMES.get(family, family.upper())


def models_in_order(summary: pd.DataFrame) -> list[str]:
    """The models of the summary in config order, the constant floors last."""
    models = list(dict.fromkeys(summary["model"]))
    return [m for m in models if not is_floor(m)] + [m for m in FLOOR_MODELS if m in models]


def _task_cell(task: str, metric: str, subsamples: pd.Series) -> Cell:
    """A task's row label; a task scored on part of a split says so (``test: 1,000 of 4,797``)."""
    subsample = " | ".join(text for text in subsamples.drop_duplicates() if text)
    title = f"scored on part of a split (max_*_examples): {subsample}" if subsample else ""
    return Cell(f"{task} ({metric})", title, note=subsample)


def results_table(
    summary: pd.DataFrame, averages: pd.DataFrame, intervals: Intervals | None = None
) -> Table:
    """The papers' layout: one row per task (primary metric, median ± std over seeds), one column
    per model (the constant floors last), tasks grouped by family with the family average after
    them, the overall average last. Ranks are per row; with the comparisons' ``intervals``,
    averages carry their 95% interval, every cell its differences on hover, and a best that is
    not distinguishable from another model is not ranked: both are marked tied. A model at its
    row's strongest floor (``floors.row_verdicts``) is marked and not ranked."""
    primary = summary[summary["primary"]]
    models = models_in_order(summary)
    table = Table(["Task (metric)", *models])

    def add_row(
        label: Cell,
        values: dict[str, pd.Series],
        cell: Callable,
        value_key: str,
        key: tuple[str, str],
    ) -> None:
        present = [model for model in models if model in values]
        scores = pd.Series([values[m][value_key] for m in present], dtype=float)
        row = intervals.row(*key) if intervals is not None else None
        verdicts = row_verdicts({m: float(v[value_key]) for m, v in values.items()}, row)
        eligible = [not (m in verdicts and verdicts[m].at_floor) for m in present]
        row_ranks = dict(zip(present, ranks(scores, present, eligible)))
        tied: set[str] = set()
        if row is not None:
            ranked = {m for m, ok in zip(present, eligible) if ok and not is_floor(m)}
            row_ranks, tied = tied_ranks(row_ranks, row.tied(), ranked)
        cells = [label]
        for model in models:
            shown = cell(values.get(model), row_ranks.get(model, 0))
            if row is not None and model in values:
                shown = with_intervals(shown, model, row, key[1] != "task")
            if model in tied:
                shown.tie = True
                shown.title = f"{shown.title}; tied with the row's best ({NOT_DISTINGUISHABLE})"
            if model in verdicts and verdicts[model].at_floor:
                shown = mark_at_floor(shown, verdicts[model])
            cells.append(shown)
        table.add(cells, "" if key[1] == "task" else "average")

    def average_row(group: str, label: str, level: str) -> None:
        rows = averages[averages["group"] == group]
        if not rows.empty:
            add_row(
                Cell(label),
                {row["model"]: row for _, row in rows.iterrows()},
                _average_cell,
                "value",
                (group, level),
            )

    families = list(dict.fromkeys(primary["family"].fillna("")))
    for family in families:
        members = primary[primary["family"].fillna("") == family]
        table.add(
            [
                Cell(
                    family_name(family) if family else "Tasks without a result",
                    colspan=len(models) + 1,
                )
            ],
            "section",
        )
        for task, rows in members.groupby("task", sort=False):
            metric = rows["metric"].iloc[0] or "?"
            by_model = {row["model"]: row for _, row in rows.iterrows()}
            add_row(
                _task_cell(task, metric, rows["subsample"]),
                by_model,
                _score_cell,
                "median",
                (task, "task"),
            )
        if family:
            average_row(family, f"{family.upper()} average", "family")
    average_row(OVERALL, "Overall average", "overall")
    average_row(BLURB, "BLURB score", "blurb")
    return table


def _text(value: Any) -> str:
    """A CSV's text cell: empty for a missing one."""
    return "" if value is None or (not isinstance(value, str) and pd.isna(value)) else str(value)


def _retention_cell(
    row: pd.Series | None, comparison: pd.Series | None = None, at_floor: Sequence[str] = ()
) -> Cell:
    """One retention cell; ``at_floor``: who of student and teacher the comparisons put at
    the task's floor (with intervals; else retention.csv's ``at_baseline``, on medians)."""
    if row is None:
        return Cell(DASH, "no run of the student and its teacher on this task", numeric=True)
    left_out = _text(row.get("floor_left_out"))
    if row["task"] == OVERALL and missing(row["retention"]) and left_out:
        return Cell(DASH, f"no task left: at the constant floor: {left_out}", numeric=True)
    if missing(row["retention"]):
        return Cell(
            DASH,
            f"no ratio: the teacher's median is {percent(row['teacher_median'])} "
            f"(student {percent(row['student_median'])})",
            numeric=True,
        )
    seed_range = f"{percent(row['seed_min'])}-{percent(row['seed_max'])}"
    title = (
        f"student {percent(row['student_median'])} / teacher {percent(row['teacher_median'])}; "
        f"per-seed ratios {seed_range} % over {row['n_seeds']} seeds"
    )
    if comparison is not None:
        bounds = interval(comparison["retention_low"], comparison["retention_high"])
        title = f"{title}; {difference_text(comparison)}"
        value = comparison["retention"] if row["task"] == OVERALL else row["retention"]
        left_out = _text(comparison.get("floor_left_out")) if row["task"] == OVERALL else ""
        cell = Cell(f"{percent(value)} % {bounds}", title, numeric=True)
    else:
        spread = f" ({seed_range})" if row["n_seeds"] > 1 else ""
        cell = Cell(f"{percent(row['retention'])} %{spread}", title, numeric=True)
    if row["task"] == OVERALL:
        if left_out:
            cell.title = f"{cell.title}; left out, at the constant floor: {left_out}"
            cell.note = f"left out: {left_out}"
        return cell
    who = ", ".join(at_floor) if comparison is not None else _text(row["at_baseline"])
    if who:
        floor = _text(row.get("floor")) or "the strongest floor"
        reason = (
            f"{who} at the constant floor ({floor} {percent(row['baseline'])}): the ratio says "
            "nothing of distillation; left out of the overall"
        )
        cell.title = f"{cell.title}; {reason}"
        cell.note = f"{who} at the floor"
    return cell


def retention_table(
    retention: pd.DataFrame, intervals: Intervals | None = None, floors: FloorStatus | None = None
) -> Table | None:
    """One row per student (its teacher beside it), one column per task, the overall last:
    student / teacher x 100 (``biocompact.report.retention``) with its 95% interval over test-unit
    resamples when the comparisons' ``intervals`` are given, else the per-seed range. A task
    where the student or the teacher is at the constant floor (``floors``, by the intervals;
    else retention.csv's medians) is flagged and left out of the overall, which says so."""
    if retention.empty:
        return None
    tasks = [task for task in dict.fromkeys(retention["task"]) if task != OVERALL]
    table = Table(["Student", "Teacher", *tasks, "Overall"])
    for (student, teacher), rows in retention.groupby(["student", "teacher"], sort=False):
        by_task = {row["task"]: row for _, row in rows.iterrows()}
        student, teacher = str(student), str(teacher)
        cells = [Cell(student), Cell(teacher)]
        for task in [*tasks, OVERALL]:
            level = "overall" if task == OVERALL else "task"
            comparison = intervals.retention(student, teacher, task, level) if intervals else None
            at_floor = [
                name
                for name, model in (("student", student), ("teacher", teacher))
                if floors is not None and floors.at_floor(model, task)
            ]
            cells.append(_retention_cell(by_task.get(task), comparison, at_floor))
        table.add(cells)
    return table


def metrics_table(summary: pd.DataFrame) -> Table:
    """Every metric of every (model, task): median, mean, std, min, max (x 100) and seeds."""
    frame = summary[summary["metric"] != ""].copy()
    frame["seeds"] = frame["n_seeds"].astype(str) + "/" + frame["n_expected"].astype(str)
    frame["primary"] = frame["primary"].map({True: "yes", False: ""})
    columns = [
        "model",
        "task",
        "metric",
        "primary",
        "median",
        "mean",
        "std",
        "min",
        "max",
        "seeds",
        "missing_seeds",
        "subsample",
    ]
    score = {
        column: (lambda v: percent(v, 2)) for column in ["median", "mean", "std", "min", "max"]
    }
    return frame_table(frame[columns], score)


def definitions_table(summary: pd.DataFrame) -> Table:
    frame = summary[summary["metric"] != ""].drop_duplicates(["task", "metric"])
    return frame_table(frame[["task", "metric", "definition"]])


def model_eval_table(evals: Sequence[LanguageModelRecord], stages: Sequence[str]) -> Table:
    columns = [
        "stage",
        "model",
        "parameters",
        "steps",
        "train_tokens",
        "heldout_tokens",
        "heldout_loss",
        "perplexity",
    ]
    formats = {
        "parameters": number,
        "train_tokens": number,
        "heldout_tokens": number,
        "steps": number,
        "heldout_loss": lambda v: number(v, 4),
        "perplexity": lambda v: number(v, 2),
    }
    rows = [
        (
            stage,
            result.description.model,
            result.parameters,
            result.steps,
            result.train_tokens,
            result.heldout_tokens,
            result.heldout_loss,
            result.perplexity,
        )
        for result, stage in zip(evals, stages)
    ]
    return frame_table(pd.DataFrame(rows, columns=columns), formats)


def ablation_table(
    evals: Sequence[LanguageModelRecord],
    stages: Sequence[str],
    vocabularies: Mapping[str, PretrainedVocabulary],
    averages: pd.DataFrame,
) -> Table:
    """Design choices of each pretrained model beside its overall fine-tuning average (Lewis et al. 2020, table 3).

    ``vocabularies``: pretrained model -> its vocabulary (a model without one shows none).
    Held-out losses are only comparable between models that share a vocabulary.
    """
    overall = averages[averages["group"] == OVERALL].set_index("model")["value"]
    rows = []
    for result, stage in zip(evals, stages):
        model, origin = result.description.model, result.description.origin
        if stage != "pretraining" or not isinstance(origin, Pretraining):
            continue
        vocabulary = vocabularies.get(model)
        rows.append(
            {
                "model": model,
                "family": origin.family,
                "objective": origin.objective,
                "vocabulary": vocabulary.name if vocabulary else None,
                "vocabulary type": vocabulary.type if vocabulary else None,
                "heldout_loss": result.heldout_loss,
                "overall average": overall.get(model),
            }
        )
    columns = [
        "model",
        "family",
        "objective",
        "vocabulary",
        "vocabulary type",
        "heldout_loss",
        "overall average",
    ]
    return frame_table(
        pd.DataFrame(rows, columns=columns),
        {"heldout_loss": lambda v: number(v, 4), "overall average": percent},
    )


def fill_mask_table(evals: Sequence[LanguageModelRecord]) -> Table:
    """One row per probe sentence and model: top predictions with their probability."""
    rows = [
        {
            "model": result.description.model,
            "text": probe.text,
            "answer": probe.answer,
            "top-1 correct": "yes"
            if probe.predictions[:1] and probe.predictions[0].token == probe.answer
            else "no",
            "predictions": ", ".join(f"{p.token} ({p.score:.3f})" for p in probe.predictions),
        }
        for result in evals
        for probe in result.fill_mask
    ]
    return frame_table(
        pd.DataFrame(rows, columns=["model", "text", "answer", "top-1 correct", "predictions"])
    )


def corpus_tables(stats: CorpusStatistics) -> dict[str, Table]:
    """Totals, documents per year and skipped records of the corpus."""
    totals = {
        key: getattr(stats.totals, key) for key in ["documents", "sentences", "words", "characters"]
    }
    totals["files"] = len(stats.files)
    per_year = sorted(stats.per_year.items(), key=lambda item: str(item[0]))
    skipped = sorted(stats.skipped.items())
    return {
        "totals": frame_table(pd.DataFrame([totals]), {key: number for key in totals}),
        "per_year": frame_table(
            pd.DataFrame(per_year, columns=["year", "documents"]), {"documents": number}
        ),
        "skipped": frame_table(
            pd.DataFrame(skipped, columns=["reason", "records"]), {"records": number}
        ),
    }


def vocab_table(stats: Sequence[VocabularyStatistics]) -> Table:
    """Each vocabulary, followed by its reference vocabulary when there is one."""
    rows: list[dict[str, object]] = []
    for vocab in stats:
        rows.append(
            {
                "vocabulary": vocab.vocab,
                "type": vocab.type,
                "vocab_size": vocab.statistics.vocab_size,
                "lowercase": vocab.lowercase,
                "fertility": vocab.statistics.fertility,
                "unk_rate": vocab.statistics.unk_rate,
                "heldout_words": vocab.statistics.heldout_words,
            }
        )
        if vocab.reference:
            reference = vocab.reference
            rows.append(
                {
                    "vocabulary": f"{reference.name} (reference for {vocab.vocab})",
                    "vocab_size": reference.statistics.vocab_size,
                    "fertility": reference.statistics.fertility,
                    "unk_rate": reference.statistics.unk_rate,
                }
            )
    frame = pd.DataFrame(
        rows,
        columns=[
            "vocabulary",
            "type",
            "vocab_size",
            "lowercase",
            "fertility",
            "unk_rate",
            "heldout_words",
        ],
    )
    return frame_table(
        frame,
        {
            "vocab_size": number,
            "heldout_words": number,
            "fertility": lambda v: number(v, 3),
            "unk_rate": lambda v: "" if missing(v) else f"{100 * v:.3f}%",
        },
    )


def _dataset_counts_row(record: PreparedFileCounts) -> dict[str, object]:
    """The dataset table's row of one prepared file."""
    counts = record.counts
    return {
        "dataset": counts.dataset,
        "split": counts.split if not counts.fold else f"{counts.split} (fold {counts.fold})",
        "file": record.file,
        "unit": counts.unit,
        "converted": counts.converted,
        "published": counts.published,
        "tolerance": counts.tolerance or None,
        "published in": counts.sizes_from if counts.published is not None else None,
        "note": counts.note,
    }


def dataset_counts_table(records: Sequence[PreparedFileCounts]) -> Table:
    """Each prepared split of a registered dataset: its size as converted and checked
    beside the published one (``biocompact.datasets.check``)."""
    rows = [
        _dataset_counts_row(record)
        for record in sorted(records, key=lambda record: (record.counts.dataset, record.file))
    ]
    columns = ["dataset", "split", "file", "unit", "converted", "published", "tolerance"]
    frame = pd.DataFrame(rows, columns=[*columns, "published in", "note"])
    return frame_table(frame, {"converted": number, "published": number, "tolerance": number})


def _distillation_cell(rows: pd.DataFrame, setting: str) -> Cell:
    if rows.empty:
        reason = (
            "not run: the transfer set has no labels or direct_finetuning is off"
            if setting == "direct"
            else ""
        )
        return Cell("n/a" if reason else "", reason, numeric=True)
    row = rows.iloc[0]
    spread = "" if missing(row["std"]) else f" ± {percent(row['std'])}"
    title = f"median {percent(row['median'])}; min-max {percent(row['min'])}-{percent(row['max'])}; {row['n_seeds']} seed(s)"
    return Cell(percent(row["median"]) + spread, title, numeric=True)


def task_distillation_tables(summary: pd.DataFrame) -> list[dict[str, Any]]:
    """BioXtract's comparison per experiment and metric (its primary metric, then the students'
    agreement with the teacher): one row per transfer set; columns teacher, student after
    distillation, student fine-tuned directly and student without transfer (the teacher and
    the untrained student do not depend on the transfer set: the same value in every row)."""
    tables = []
    for experiment, rows in summary.groupby("experiment", sort=False):
        first = rows.iloc[0]
        primary = rows.loc[rows["primary"], "metric"].iloc[0]
        transfers = list(dict.fromkeys(rows.loc[rows["setting"] == "distilled", "transfer"]))
        for metric in [primary] + ([AGREEMENT] if AGREEMENT in set(rows["metric"]) else []):
            values = rows[rows["metric"] == metric]
            table = Table(["Transfer set", *SETTINGS.values()])
            for transfer in transfers:
                cells = [Cell(transfer)]
                for setting in SETTINGS:
                    key = transfer if setting in ("distilled", "direct") else ""
                    cells.append(
                        _distillation_cell(
                            values[(values["setting"] == setting) & (values["transfer"] == key)],
                            setting,
                        )
                    )
                table.add(cells)
            definition = next((d for d in values["definition"] if d), metric)
            tables.append(
                {
                    "id": f"task-distillation-{experiment}-{metric}",
                    "caption": f"{experiment}: teacher {first['teacher']} fine-tuned on {first['task']}, student "
                    f"{first['student']}; {metric} x 100 on the task's test set ({definition}), median over "
                    "seeds ± standard deviation.",
                    "table": table,
                }
            )
    return tables


def speedup_text(row: pd.Series) -> str:
    """``2.50x (2.41-2.62)``: the median speed-up over timing rounds and its range."""
    if missing(row["speedup"]):
        return DASH
    return f"{row['speedup']:.2f}x ({row['speedup_min']:.2f}-{row['speedup_max']:.2f})"


def _signed_points(value: float) -> str:
    """A score change in [−1, 1] as signed percentage points (``-0.012 -> "-1.2"``)."""
    return "" if missing(value) else f"{100 * value:+.1f}"


def compression_table(summary: pd.DataFrame) -> Table | None:
    """One row per compressed (model, task); per format (fp32 first, then as configured) its
    primary test score x 100, the change against fp32 in points (compressed formats), the
    weights' size in MB, the median CPU latency in ms with its range over the timing rounds and
    (compressed formats) the speed-up over fp32 with its range, noted when the format was
    slower than fp32 in every round (``biocompact.compression.summary``)."""
    if summary.empty:
        return None
    formats = list(dict.fromkeys(summary["format"]))
    columns = ["Model", "Task", "Metric"]
    for name in formats:
        columns += [f"{name} score"] + ([] if name == "fp32" else [f"{name} Δ"])
        columns += [f"{name} MB", f"{name} ms"] + ([] if name == "fp32" else [f"{name} speed-up"])
    table = Table(columns)
    for (model, task, seed), rows in summary.groupby(["model", "task", "seed"], sort=False):
        by_format = {row["format"]: row for _, row in rows.iterrows()}
        cells = [
            Cell(str(model)),
            Cell(str(task), f"seed {seed}"),
            Cell(rows["primary_metric"].iloc[0]),
        ]
        for name in formats:
            row = by_format.get(name)
            if row is None:
                cells += [Cell("", numeric=True)] * (3 if name == "fp32" else 5)
                continue
            cells.append(Cell(percent(row["score"]), numeric=True))
            if name != "fp32":
                cells.append(Cell(_signed_points(row["score_change"]), numeric=True))
            cells.append(Cell(number(row["size_mb"], 2), numeric=True))
            cells.append(_latency_cell(row))
            if name != "fp32":
                cells.append(_compressed_speedup_cell(row))
        table.add(cells)
    return table


def _latency_cell(row: pd.Series) -> Cell:
    """``12.0 (11.6-12.9)``: the median latency in ms and its range over the timing rounds."""
    if missing(row["latency_ms"]):
        return Cell(DASH, "not timed", numeric=True)
    title = (
        f"batch {row['batch_size']}, sequence length {row['sequence_length']}, "
        f"{row['threads']} thread(s); median (min-max) over {row['repeats']} rounds "
        "interleaved across the formats"
    )
    text = (
        f"{number(row['latency_ms'], 1)} "
        f"({number(row['latency_ms_min'], 1)}-{number(row['latency_ms_max'], 1)})"
    )
    return Cell(text, title, numeric=True)


def _compressed_speedup_cell(row: pd.Series) -> Cell:
    """The speed-up over fp32 with its range; noted when slower than fp32 in every round."""
    title = "median (min-max) over the timing rounds of fp32's latency / this format's"
    note = "check: slower than fp32 in every round" if row["slower_than_fp32"] else ""
    return Cell(speedup_text(row), title, note=note, numeric=True)
