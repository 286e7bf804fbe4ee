"""Model cards: the README.md of every model folder, in the Hugging Face Hub's format.

A card is YAML metadata (library, pipeline tag, language, license, tags, datasets, base
model and a ``model-index`` of measured results) followed by markdown: the model, its
training, compute, results, usage, method and citations, and the biocompact commit and
config it came from. Every number comes from the run's own files (weights, ``config.json``,
``eval.json``, ``train_log.jsonl``, fine-tuning ``metrics.json``). Built with
``huggingface_hub``'s ``ModelCard`` and ``ModelCardData``; no network.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import statistics
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import datasets
import yaml
from huggingface_hub import EvalResult, ModelCard, ModelCardData

from biocompact.distillation_methods import DISTILLATION_METHODS
from biocompact.files.atomic import atomic_open
from biocompact.records.contamination import ContaminationRecord
from biocompact.records.language_model import Distillation, LanguageModelRecord, Pretraining
from biocompact.records.metrics import FLOOR_DESCRIPTIONS, MAJORITY_CLASS, MetricsRecord
from biocompact.release.settings import CardSettings
from biocompact.tracking.trackers import biocompact_commit

CARD_FILE = "README.md"
HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
LIBRARY = "transformers"
BIOCOMPACT_TAGS = ("biocompact", "biomedical")

CITATIONS = {
    "rohanian2023": 'Rohanian, Nouriborji, Kouchaki, Clifton: "On the Effectiveness of Compact '
    'Biomedical Transformers" (Bioinformatics 2023; arXiv 2209.03182)',
    "lewis2020": 'Lewis, Ott, Du, Stoyanov: "Pretrained Language Models for Biomedical and '
    'Clinical Tasks: Understanding and Extending the State-of-the-Art" (Clinical NLP Workshop 2020)',
    "wang2021": 'Wang, Bao, Huang, Dong, Wei: "MiniLMv2: Multi-Head Self-Attention Relation '
    'Distillation for Compressing Pretrained Transformers" (Findings of ACL 2021; arXiv 2012.15828)',
    "devlin2019": 'Devlin, Chang, Lee, Toutanova: "BERT: Pre-training of Deep Bidirectional '
    'Transformers for Language Understanding" (NAACL 2019)',
    "clark2020": 'Clark, Luong, Le, Manning: "ELECTRA: Pre-training Text Encoders as '
    'Discriminators Rather Than Generators" (ICLR 2020)',
    "lan2020": 'Lan, Chen, Goodman, Gimpel, Sharma, Soricut: "ALBERT: A Lite BERT for '
    'Self-supervised Learning of Language Representations" (ICLR 2020)',
    "warner2024": 'Warner, Chaffin, Clavié, et al.: "Smarter, Better, Faster, Longer: A Modern '
    "Bidirectional Encoder for Fast, Memory Efficient, and Long Context Finetuning and "
    'Inference" (arXiv 2412.13663, 2024)',
}

OBJECTIVE_CITATIONS = {
    "mlm": "devlin2019",
    "nsp": "devlin2019",
    "electra": "clark2020",
    "albert": "lan2020",
}
FAMILY_CITATIONS = {"modernbert": "warner2024"}

ARCHITECTURE_KEYS = (
    "model_type",
    "num_hidden_layers",
    "hidden_size",
    "num_attention_heads",
    "intermediate_size",
    "max_position_embeddings",
    "vocab_size",
)


def parameter_count(folder: str | os.PathLike) -> int:
    """Parameters stored in the folder's ``*.safetensors`` files, read from their headers
    (8-byte little-endian header length, then JSON ``{name: {"shape": [...]}}``); tied
    weights, stored once, count once."""
    files = sorted(Path(folder).glob("*.safetensors"))
    if not files:
        raise FileNotFoundError(f"{folder}: no *.safetensors weights file to count parameters of")
    total = 0
    for path in files:
        with open(path, "rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            header = json.loads(handle.read(length))
        for name, entry in header.items():
            if name != "__metadata__":
                total += math.prod(entry["shape"])
    return total


def architecture(folder: str | os.PathLike) -> dict[str, Any]:
    """The shape of the model in ``folder`` from its ``config.json`` (keys it lacks left out)."""
    with open(Path(folder) / "config.json", encoding="utf-8") as handle:
        config = json.load(handle)
    return {key: config[key] for key in ARCHITECTURE_KEYS if key in config}


def hardware() -> str:
    """The device this job computes on: the GPU's name, or the CPU's."""
    import torch

    if torch.cuda.is_available():
        return f"{torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}"
    return f"CPU ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)"


def usage_snippet(pipeline_tag: str, location: str) -> str:
    """Python that loads the model at ``location`` in its transformers pipeline and runs it
    on an example (token classification aggregates words from their first sub-token, the
    one the harness trains and scores)."""
    if pipeline_tag == "fill-mask":
        body = (
            f'fill = pipeline("fill-mask", model="{location}")\n'
            'print(fill(f"The patient was diagnosed with breast {fill.tokenizer.mask_token}."))'
        )
    elif pipeline_tag == "token-classification":
        body = (
            "# aggregation_strategy='first': the word's label is its first sub-token's, as trained\n"
            f'ner = pipeline("token-classification", model="{location}", '
            'aggregation_strategy="first")\n'
            'print(ner("Germline mutations in BRCA1 predispose to ovarian cancer."))'
        )
    elif pipeline_tag == "question-answering":
        body = (
            f'qa = pipeline("question-answering", model="{location}")\n'
            'print(qa(question="What does BRCA1 predispose to?", '
            'context="Germline mutations in BRCA1 predispose to ovarian cancer."))'
        )
    elif pipeline_tag == "text-classification":
        body = (
            f'classify = pipeline("text-classification", model="{location}")\n'
            'print(classify("Germline mutations in BRCA1 predispose to ovarian cancer."))'
        )
    else:
        body = (
            f'extract = pipeline("feature-extraction", model="{location}")\n'
            'print(len(extract("Germline mutations in BRCA1 predispose to ovarian cancer.")[0]))'
        )
    return f"```python\nfrom transformers import pipeline\n\n{body}\n```"


# the key of a saved config.json whose BERT-style model pools by the mean of its token states
# (finetuning.pooling writes it and restores the pooling from it)
MEAN_POOLING_KEY = "biocompact_mean_pooling"


def mean_pooling_usage(folder: str | os.PathLike, location: str) -> str:
    """How to load a saved model that pools by mean where transformers' class cannot (its
    config's ``MEAN_POOLING_KEY``); empty for every other model."""
    config_path = Path(folder) / "config.json"
    if not config_path.is_file():
        return ""
    if not json.loads(config_path.read_text(encoding="utf-8")).get(MEAN_POOLING_KEY):
        return ""
    return (
        "\n\n**This model pools by the mean of its token states**, which transformers' "
        "BERT classes cannot: `pipeline` or `AutoModelForSequenceClassification` alone load a "
        "freshly initialised [CLS] pooler instead (they warn of its new weights) and predict "
        "otherwise. Load it with biocompact, which puts the mean back:\n\n"
        "```python\nfrom transformers import pipeline\n"
        "from biocompact.finetuning.pooling import load_sequence_classifier\n\n"
        f'model = load_sequence_classifier("{location}")\n'
        f'classify = pipeline("text-classification", model=model, tokenizer="{location}")\n```'
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _architecture_section(folder: str | os.PathLike) -> str:
    shape = architecture(folder)
    rows = [("parameters (counted in the weights)", f"{parameter_count(folder):,}")]
    rows += [(key, value) for key, value in shape.items()]
    return _table(("", "value"), rows)


def _provenance_section(config_entry: Mapping[str, Any]) -> str:
    return (
        f"Built by biocompact at commit `{biocompact_commit()}` with this config entry:\n\n"
        f"```yaml\n{yaml.safe_dump(dict(config_entry), sort_keys=False).strip()}\n```"
    )


def _citation_section(keys: Sequence[str]) -> str:
    return "\n".join(f"- {CITATIONS[key]}" for key in dict.fromkeys(keys))


def _render(data: ModelCardData, title: str, sections: Sequence[tuple[str, str]]) -> ModelCard:
    body = "\n\n".join(f"## {heading}\n\n{text}" for heading, text in sections)
    return ModelCard(f"---\n{data.to_yaml()}\n---\n\n# {title}\n\n{body}\n")


def _read_log_tail(log_path: str | os.PathLike) -> dict[str, Any]:
    with open(log_path, encoding="utf-8") as handle:
        lines = [line for line in handle if line.strip()]
    return json.loads(lines[-1]) if lines else {}


def hub_id(location: str | None) -> str | None:
    """``location`` when it is a Hub model id (``owner/name``, not a folder here), else None."""
    if location and HUB_ID.fullmatch(location) and not Path(location).exists():
        return location
    return None


def decontamination_statement(
    contamination: ContaminationRecord | None, external: Sequence[str] = ()
) -> str:
    """Whether a model's training text was checked for evaluation text: the corpus's
    ``contamination.json`` (None: not decontaminated), and the ``external`` checkpoints
    (not built by the workflow) whose pretraining text the model carries."""
    if contamination is None:
        statement = (
            "not checked: the corpus was not decontaminated against any task's evaluation text"
        )
    else:
        corpus = contamination.corpus.counts
        tasks = ", ".join(f"`{task}`" for task in contamination.tasks)
        statement = (
            f"decontaminated against the dev and test text of {tasks}: "
            f"{corpus.documents_removed:,} of {corpus.documents:,} documents shared a PMID "
            f"or a {contamination.ngram}-word n-gram with it and were removed "
            "(`results/corpus/contamination.json`)"
        )
    if external:
        names = ", ".join(f"`{location}`" for location in external)
        statement += (
            f"; the pretraining text of {names} (not built here) is unknown and may hold "
            "evaluation text"
        )
    return statement


def base_model_statement(
    task: str,
    contamination: ContaminationRecord | None,
    external: Sequence[str],
    *,
    built_here: bool,
) -> str:
    """Whether a fine-tuned model's base model may have seen ``task``'s dev and test text in
    training: for a model built here, its corpus's decontamination (``contamination.json``,
    None: not decontaminated) and whether ``task`` was among the tasks it checked; for a
    model not built here (``external``: its checkpoint), that nobody here checked."""
    if not built_here:
        names = ", ".join(f"`{location}`" for location in external)
        return (
            f"not checked: the base model {names} was not built here; its pretraining text is "
            f"unknown and may hold the dev and test text of `{task}`"
        )
    statement = decontamination_statement(contamination, external)
    if contamination is not None and task not in contamination.tasks:
        statement = f"`{task}` was not among the tasks checked: " + statement
    return statement


def language_model_card(
    folder: str | os.PathLike,
    evaluation: LanguageModelRecord,
    log_path: str | os.PathLike,
    *,
    config_entry: Mapping[str, Any],
    settings: CardSettings,
    training_data: str,
    decontamination: str = "",
) -> ModelCard:
    """The card of a pretrained or distilled model from its ``eval.json`` record and
    training log (``training_data`` describes the corpus, ``decontamination`` whether it
    was checked for evaluation text; ``config_entry``, the model's entry, is quoted, and of a
    student names its teacher): held-out MLM loss and perplexity are its measured results."""
    name = evaluation.description.model
    origin = evaluation.description.origin
    distilled = isinstance(origin, Distillation)
    electra = isinstance(origin, Pretraining) and origin.family == "electra"
    untrained_head = isinstance(origin, Distillation) and not origin.mlm_head_trained
    head_trained = not electra and not untrained_head
    pipeline_tag = "fill-mask" if head_trained else "feature-extraction"
    tail = _read_log_tail(log_path)
    if isinstance(origin, Distillation):
        method = DISTILLATION_METHODS[origin.method]
        base_model: str | None = origin.teacher
        teacher = config_entry["teacher"]
        source = f" (`{base_model}`)" if base_model != teacher else ""
        kind = f"distilled from `{teacher}`{source} with `{origin.method}` ({method.card})"
        citations = [method.citation, "rohanian2023"]
    else:
        base_model = None if origin.init == "scratch" else origin.init
        kind = f"pretrained with `{origin.objective}` from {base_model or 'scratch'}"
        citations = [OBJECTIVE_CITATIONS.get(origin.objective, "devlin2019")]
        citations += [FAMILY_CITATIONS[origin.family]] if origin.family in FAMILY_CITATIONS else []
    heldout = evaluation.heldout_model
    results = [
        EvalResult(
            task_type="fill-mask",
            task_name="masked language modelling",
            dataset_type="held-out corpus",
            dataset_name="held-out split of the training corpus",
            dataset_split="validation",
            metric_type=metric,
            metric_name=f"held-out {metric} ({evaluation.heldout_tokens:,} masked tokens"
            + (f", the {heldout}" if heldout else "")
            + (", an MLM head it did not train" if untrained_head else "")
            + ")",
            metric_value=round(float(value), 4),
        )
        for metric, value in (
            ("loss", evaluation.heldout_loss),
            ("perplexity", evaluation.perplexity),
        )
    ]
    data = ModelCardData(
        model_name=name,
        library_name=LIBRARY,
        pipeline_tag=pipeline_tag,
        language=list(settings.language),
        license=settings.license,
        tags=[*BIOCOMPACT_TAGS, "distillation" if distilled else "pretraining", *settings.tags],
        base_model=hub_id(base_model),
        eval_results=results,
    )
    hours = tail.get("elapsed_s", 0.0) / 3600
    training = _table(
        ("", "value"),
        [
            ("what", kind),
            ("optimizer steps", f"{evaluation.steps:,}"),
            ("tokens seen", f"{evaluation.train_tokens:,}"),
            ("batch size", evaluation.training["batch_size"]),
            ("learning rate", evaluation.training["learning_rate"]),
            ("training data", training_data),
            *([("evaluation text", decontamination)] if decontamination else []),
        ],
    )
    compute = _table(
        ("", "value"),
        [("hardware", hardware()), ("training hours (wall clock)", f"{hours:.3f}")],
    )
    evaluation_text = _table(
        ("metric", "value"),
        [(result.metric_name, result.metric_value) for result in results],
    )
    if isinstance(origin, Distillation) and untrained_head:
        evaluation_text += (
            f"\n\nThe `{origin.method}` objective trains no loss on the MLM logits: "
            "the MLM head is as the student was initialised, so the loss above is not a "
            "language-modelling score and the model is published for feature extraction "
            "and fine-tuning, not for filling masks."
        )
    sections = [
        ("Model", _architecture_section(folder)),
        ("Training", training),
        ("Compute", compute),
        ("Evaluation", evaluation_text),
        ("Usage", usage_snippet(pipeline_tag, str(folder))),
        ("Method and citations", _citation_section(citations)),
        ("Provenance", _provenance_section(config_entry)),
    ]
    return _render(data, f"{name}: a compact biomedical language model", sections)


class CardTask(Protocol):
    """What a fine-tuned model's card reads of its task: ``taskfiles.settings.FinetuningTask``
    (the cards cannot import the stage that writes them)."""

    @property
    def name(self) -> str: ...

    @property
    def train(self) -> str: ...

    @property
    def dataset(self) -> str | None: ...

    @property
    def preset(self) -> str | None: ...

    def as_entry(self) -> dict[str, Any]: ...


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median, minimum and maximum of ``values``."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def finetuned_model_card(
    folder: str | os.PathLike,
    records: Sequence[MetricsRecord],
    chosen: MetricsRecord,
    selection: str,
    task: CardTask,
    settings: CardSettings,
    *,
    pipeline_tag: str,
    location: str | None = None,
    decontamination: str = "",
) -> ModelCard:
    """The card of a fine-tuned model (the run ``chosen`` of the seeds' ``records``) on
    ``task``: its own test scores and the median and range over the seeds, with each
    metric's definition, under its task family's Hub ``pipeline_tag``; ``decontamination``
    says whether its base model's training text was checked for the task's evaluation text
    (``base_model_statement``)."""
    # a run outside the workflow may have no task name: its training file names it
    task_name = chosen.task or task.name or task.train
    model = chosen.model
    dataset = task.dataset or task_name
    subsample = chosen.subsample_text()
    hyperparameters = chosen.hyperparameters
    if hyperparameters is None:
        raise ValueError(f"{model} on {task_name}: a record without hyperparameters has no card")
    scored_on = f"; {subsample}" if subsample else ""
    saved_labels = _saved_labels(folder)
    renamed = _renamed_labels(chosen.labels, saved_labels, chosen.family)
    results = []
    rows = []
    for metric, value in chosen.metrics.items():
        over_seeds = spread([record.metrics[metric] for record in records])
        results.append(
            EvalResult(
                task_type=pipeline_tag,
                task_name=chosen.family,
                dataset_type=dataset,
                dataset_name=task_name,
                dataset_split="test",
                metric_type=metric,
                metric_name=f"{metric} (this checkpoint, seed {chosen.seed}{scored_on})",
                metric_value=round(float(value), 4),
            )
        )
        rows.append(
            (
                metric,
                f"{value:.4f}",
                f"{over_seeds['median']:.4f}",
                f"{over_seeds['min']:.4f}-{over_seeds['max']:.4f}",
                _as_saved(chosen.definitions.get(metric, ""), renamed),
            )
        )
    data = ModelCardData(
        model_name=f"{model}-{task_name}",
        library_name=LIBRARY,
        pipeline_tag=pipeline_tag,
        language=list(settings.language),
        license=settings.license,
        tags=[*BIOCOMPACT_TAGS, chosen.family, *settings.tags],
        datasets=[dataset] if task.dataset else None,
        base_model=hub_id(chosen.model_path),
        eval_results=results,
        metrics=list(chosen.metrics),
    )
    labels = ", ".join(f"`{label}`" for label in saved_labels)
    evaluation = (
        f"Test scores of this checkpoint and, over the {len(records)} seeds "
        f"({', '.join(str(record.seed) for record in records)}), their median and range. "
        f"Primary metric: `{chosen.primary_metric}`. {selection}\n\n"
        + _table(("metric", "this checkpoint", "median", "range", "definition"), rows)
        + _subsample_text(chosen)
        + _baseline_text(records, chosen)
    )
    training = _table(
        ("", "value"),
        [
            ("base model", f"`{model}` (`{chosen.model_path}`)"),
            ("task", f"`{task_name}` ({chosen.family}), labels {labels}"),
            (
                "examples (train/dev/test)",
                f"{chosen.train_examples:,}/{chosen.dev_examples:,}/{chosen.test_examples:,}",
            ),
            (
                "epochs, batch size, learning rate",
                f"{hyperparameters['epochs']}, "
                f"{hyperparameters['batch_size']}, {hyperparameters['learning_rate']}",
            ),
            ("dev evaluation kept", f"epoch {chosen.best_epoch}"),
            *([("pooling", chosen.pooling)] if chosen.pooling else []),
            *(
                [("task head's learning rate", str(hyperparameters["head_learning_rate"]))]
                if hyperparameters.get("head_learning_rate") is not None
                else []
            ),
            *(
                [("positive weights (pos_weight)", "auto: each label's negatives / positives")]
                if hyperparameters.get("pos_weight", "none") != "none"
                else []
            ),
            *(
                [("evaluation text in the base model's training", decontamination)]
                if decontamination
                else []
            ),
        ],
    )
    compute = _table(
        ("", "value"),
        [
            ("hardware", chosen.hardware or "not recorded"),
            ("training hours of this seed", f"{chosen.train_seconds / 3600:.4f}"),
            (
                "training hours of all seeds",
                f"{sum(record.train_seconds for record in records) / 3600:.4f}",
            ),
        ],
    )
    sections = [
        ("Model", _architecture_section(folder)),
        ("Training", training),
        ("Compute", compute),
        ("Evaluation", evaluation),
        (
            "Usage",
            usage_snippet(pipeline_tag, location or str(folder))
            + mean_pooling_usage(folder, location or str(folder)),
        ),
        ("Method and citations", _citation_section(finetuning_citations(task.preset))),
        ("Provenance", _provenance_section({"task": task_name, **task.as_entry()})),
    ]
    return _render(data, f"{model} fine-tuned on {task_name}", sections)


def finetuning_citations(preset: str | None) -> list[str]:
    """The papers whose method a fine-tuned model used: BERT's fine-tuning, and the paper
    whose protocol its preset reproduces where the preset is named after a key of
    ``CITATIONS`` (``rohanian2023-ner``: ``rohanian2023``)."""
    paper = (preset or "").split("-")[0]
    return ["devlin2019", *([paper] if paper in CITATIONS else [])]


def _subsample_text(record: MetricsRecord) -> str:
    """The splits the run used only part of (``max_*_examples``), said plainly: a cut test
    set gives no full-test scores; a cut train or dev set, full-test scores of a model
    trained on less."""
    cut = list(record.subsampled)
    if not cut:
        return ""
    counts = f"({record.subsample_text()} examples; `max_*_examples`)"
    if "test" in cut:
        return (
            f"\n\n**Scored on part of the data** {counts}: these are not the dataset's "
            "full-test scores and do not compare with published ones."
        )
    splits = f"the {cut[0]} split was" if len(cut) == 1 else "the train and dev splits were"
    return (
        f"\n\n**Trained on part of the data** {counts}: these are scores on the full test set, "
        f"but {splits} cut, so they do not compare with published ones."
    )


def _baseline_text(records: Sequence[MetricsRecord], chosen: MetricsRecord) -> str:
    """The constant floors on the same test examples (the majority class, all-positive where
    it applies: ``records.metrics.FLOOR_MODELS``), and whether the model is at or below the
    strongest (this checkpoint, and the median over the seeds). On point estimates: the
    report decides with the paired-bootstrap interval of the difference."""
    if not chosen.majority_baseline:
        return ""
    primary = chosen.primary_metric
    floors = {MAJORITY_CLASS: chosen.majority_baseline, **(chosen.constant_floors or {})}
    scores = {name: metrics[primary] for name, metrics in floors.items() if primary in metrics}
    if not scores:
        return ""
    strongest = max(scores, key=lambda name: scores[name])  # ties: the majority class
    floor = scores[strongest]
    value = chosen.metrics[primary]
    median = spread([record.metrics[primary] for record in records])["median"]
    listed = "; ".join(
        f"{name} ({FLOOR_DESCRIPTIONS[name]}): `{primary}` {score:.4f}"
        for name, score in scores.items()
    )
    text = (
        f"\n\nConstant floors (predictions that ignore the input) on the same test examples: "
        f"{listed}."
    )
    if len(scores) > 1:
        text += f" The strongest, {strongest}, is the floor."
    below = [
        f"{name} ({score:.4f})"
        for name, score in (("this checkpoint", value), ("the median over seeds", median))
        if score <= floor
    ]
    if below:
        verb = "scores" if len(below) == 1 else "score"
        text += (
            f" **At or below the constant floor:** {' and '.join(below)} {verb} no better than "
            f"the constant prediction {strongest}; the model has not learnt this task."
        )
    else:
        text += (
            f" This checkpoint is {value - floor:+.4f} above it (a point estimate: the report "
            "marks a model at the floor when the 95% paired-bootstrap interval of its "
            "difference from it includes 0, results/comparisons/comparisons.csv)."
        )
    return text


def _saved_labels(folder: str | os.PathLike) -> list[str]:
    with open(Path(folder) / "config.json", encoding="utf-8") as handle:
        id2label = json.load(handle).get("id2label", {})
    return [id2label[key] for key in sorted(id2label, key=int)]


def _renamed_labels(labels: Sequence[str], saved: Sequence[str], family: str) -> dict[str, str]:
    """Each label of the task's files (``labels``) that the saved model names otherwise
    (``saved``, in the same order: a task's ``label_names``) and, for NER, each entity type
    (``B-ENT`` saved as ``B-Disease``: ``ENT`` as ``Disease``)."""
    renamed = {label: name for label, name in zip(labels, saved) if label != name}
    if family == "ner":
        renamed |= {
            label.split("-", 1)[1]: name.split("-", 1)[1]
            for label, name in renamed.items()
            if "-" in label and "-" in name
        }
    return renamed


def _as_saved(definition: str, renamed: Mapping[str, str]) -> str:
    """A metric's ``definition`` with each label it quotes (as Python quotes it, ``'ENT'``)
    under its ``renamed`` name."""
    quoted = {repr(label): repr(name) for label, name in renamed.items()}
    if not quoted:
        return definition
    return re.sub("|".join(map(re.escape, quoted)), lambda match: quoted[match[0]], definition)


def write_card(card: ModelCard, folder: str | os.PathLike) -> Path:
    """Write ``card`` as the folder's README.md (atomically)."""
    path = Path(folder) / CARD_FILE
    with atomic_open(path) as handle:
        handle.write(str(card))
    return path


def check_card(path: str | os.PathLike) -> ModelCard:
    """Load a card with ``ModelCard.load`` and check its metadata offline: a library, a
    pipeline tag, a license and a model-index whose every result has a numeric value."""
    card = ModelCard.load(Path(path), ignore_metadata_errors=False)
    data = card.data
    missing = [key for key in ("library_name", "pipeline_tag", "license") if not data.get(key)]
    if missing:
        raise ValueError(f"{path}: model card metadata lacks {missing}")
    if not data.eval_results:
        raise ValueError(f"{path}: model card has no model-index results")
    for result in data.eval_results:
        if not isinstance(result.metric_value, int | float):
            raise ValueError(
                f"{path}: model-index result {result.metric_type!r} is not a number: "
                f"{result.metric_value!r}"
            )
    return card


def write_language_model_card(
    outputs: Mapping[str, str],
    config_entry: Mapping[str, Any],
    settings: CardSettings,
    corpus_dir: str | os.PathLike,
    contamination: str | os.PathLike | None = None,
    external: Sequence[str] = (),
) -> Path:
    """Write the card of a language model trained on the tokenised corpus ``corpus_dir``
    into its folder from the job's ``outputs`` (``model`` folder, ``log``, ``eval``), once
    training has published them; ``contamination`` is the corpus's ``contamination.json``
    (None: not decontaminated), ``external`` the checkpoints not built here that the model
    carries text of (``decontamination_statement``)."""
    evaluation = LanguageModelRecord.read(outputs["eval"])
    corpus = datasets.load_from_disk(str(corpus_dir))
    training_data = (
        f"`{corpus_dir}`: {corpus['train'].num_rows:,} packed training sequences "
        f"({corpus['validation'].num_rows:,} held out)"
    )
    statement = decontamination_statement(
        ContaminationRecord.read(contamination) if contamination else None, external
    )
    card = language_model_card(
        outputs["model"],
        evaluation,
        outputs["log"],
        config_entry=config_entry,
        settings=settings,
        training_data=training_data,
        decontamination=statement,
    )
    return write_card(card, outputs["model"])


FORMAT_DESCRIPTIONS = {
    "int8": "int8: PyTorch dynamic quantisation of every `nn.Linear` (weights stored in int8, "
    "activations quantised on the fly), in `model_int8.pt`",
    "onnx": "ONNX: the fp32 model exported to `model.onnx`, run with ONNX Runtime's "
    "CPUExecutionProvider",
}


def compressed_model_card(
    fp32_folder: str | os.PathLike, format_name: str, location: str | os.PathLike
) -> ModelCard:
    """The card of one deployment format of a saved fine-tuned model: the fp32 model's card
    (its measured results are the fp32 reference's, which the card says) with the format,
    how to load it, and where this format's own scores are written."""
    card = ModelCard.load(Path(fp32_folder) / CARD_FILE)
    card.data.tags = [*(card.data.tags or []), format_name]
    usage = (
        "```python\nfrom transformers import AutoTokenizer\n\n"
        "from biocompact.compression.formats import load_format\n\n"
        f'model = load_format("{location}", "{format_name}")\n'
        f'tokenizer = AutoTokenizer.from_pretrained("{location}")\n'
        'inputs = tokenizer(["Germline mutations in BRCA1 predispose to ovarian cancer."], '
        'return_tensors="pt")\n'
        'print(model(**inputs)["logits"].shape)\n```'
    )
    section = (
        f"## Deployment format\n\n{FORMAT_DESCRIPTIONS[format_name]}, made from the fp32 "
        f"model in `{fp32_folder}`. The results above (and in the metadata) are the fp32 "
        "model's; this format's own test scores, file size and CPU latency are in "
        f"`evaluation.json` beside this folder and in `results/compression/summary.csv`.\n\n"
        f"{usage}\n\n"
    )
    text = str(card)
    marker = "\n## Usage"
    return ModelCard(text.replace(marker, f"\n{section}## Usage (the fp32 model)", 1))
