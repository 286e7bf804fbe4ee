"""End to end: the real DAG on the demo config in miniature (tests/miniature.yaml), in a
temporary directory.

Runs the whole pipeline once (the session's ``demo_run``), then checks every expected
output and its values against the files it was computed from, that nothing is left to do,
and that changing the fine-tuning learning rate re-runs fine-tuning and what follows it,
nothing upstream. What the demo's figures show (the fine-tuned models above the majority
baseline, distillation against plain MLM, task distillation learning the task) is checked
where the demo runs at its own size: `make demo` ends with demo/check_figures.py.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml
from prediction_scores import scores_from_predictions
from snakemake_runs import SNAKEMAKE, planned_jobs, run_snakemake

from biocompact.release.cards import parameter_count
from biocompact.report.comparisons import STUDENT_TEACHER, VERSUS_BASELINE, VERSUS_BEST

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def config(demo_run) -> dict:
    return yaml.safe_load((demo_run / "config.yaml").read_text())


def test_models_load(demo_run, config):
    """Each saved model is the one its job evaluated: reloaded, it fills the probes' masks as eval.json says."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from biocompact.training.evaluation import fill_mask_probe
    from biocompact.training.settings import Probe

    folders = [demo_run / "results/pretraining" / name / "model" for name in config["pretraining"]]
    folders += [
        demo_run / "results/distillation" / name / "model" for name in config["distillation"]
    ]
    for folder in folders:
        saved = json.loads((folder.parent / "eval.json").read_text())["fill_mask"]
        model = AutoModelForMaskedLM.from_pretrained(folder).eval()
        probes = [Probe(probe["text"], probe["answer"]) for probe in saved]
        again = fill_mask_probe(model, AutoTokenizer.from_pretrained(folder), probes)
        for probe, reloaded in zip(saved, again, strict=True):
            assert [p.token for p in reloaded.predictions] == [
                p["token"] for p in probe["predictions"]
            ]
            scores = [p["score"] for p in probe["predictions"]]
            assert [p.score for p in reloaded.predictions] == pytest.approx(scores, abs=1e-5), (
                folder
            )


def test_every_model_folder_has_a_card_with_the_measured_numbers(demo_run, config):
    from biocompact.release.cards import check_card

    results = demo_run / "results"
    folders = {path.parent for path in results.rglob("model/config.json")}
    language_models = {results / "pretraining" / name / "model" for name in config["pretraining"]}
    language_models |= {
        results / "distillation" / name / "model" for name in config["distillation"]
    }
    kept = {
        results / "finetuned" / model / task / "model"
        for model in config["finetuning"]["models"]
        for task in config["finetuning"]["tasks"]
    }
    compressed = {
        results / "compression" / model / task / "seed1" / fmt / "model"
        for model in config["compression"]["models"]
        for task in config["compression"]["tasks"]
        for fmt in config["compression"]["formats"]
    }
    assert language_models | kept | compressed <= folders
    for folder in folders:
        card = check_card(folder / "README.md")
        values = {result.metric_type: result.metric_value for result in card.data.eval_results}
        if folder in language_models:
            evaluation = json.loads((folder.parent / "eval.json").read_text())
            assert values["loss"] == round(evaluation["heldout_loss"], 4), folder
            assert card.data.pipeline_tag == "fill-mask"
        elif folder in kept:
            record = json.loads((folder / "metrics.json").read_text())
            assert values == {name: round(v, 4) for name, v in record["metrics"].items()}
        assert folder in compressed or f"{parameter_count(folder):,}" in card.text, folder


def _seed_chosen_on_dev(records: list[dict]) -> int:
    """The seed with the median dev score (of an even count the lower middle), ties first."""
    primary = records[0]["primary_metric"]
    ranked = sorted(records, key=lambda record: record["dev_metrics"][primary])
    return ranked[(len(ranked) - 1) // 2]["seed"]


def test_the_median_dev_model_of_each_model_and_task_is_kept_with_its_labels(demo_run, config):
    from transformers import AutoConfig, pipeline

    tuning = config["finetuning"]
    assert tuning["save_models"] == "best"
    for model in tuning["models"]:
        for task, settings in tuning["tasks"].items():
            runs = demo_run / "results/finetuning" / model / task
            records = [
                json.loads((runs / f"seed{s}/metrics.json").read_text()) for s in tuning["seeds"]
            ]
            folder = demo_run / "results/finetuned" / model / task / "model"
            kept = json.loads((folder / "metrics.json").read_text())
            assert kept["seed"] == _seed_chosen_on_dev(records)
            assert kept["metrics"] == records[tuning["seeds"].index(kept["seed"])]["metrics"]
            labels = list(AutoConfig.from_pretrained(folder).id2label.values())
            assert labels == [settings["label_names"].get(label, label) for label in kept["labels"]]
            assert all(path.stat().st_mode & 0o044 == 0o044 for path in folder.iterdir())
            # with `best` the other runs' folders were temporary (compression keeps its own)
            assert not (runs / "seed2/model").exists()
    # docs/outputs.md's snippet: the pipeline finds the entities the harness predicted
    folder = demo_run / "results/finetuned/teacher/demo-ner/model"
    kept = json.loads((folder / "metrics.json").read_text())
    predictions = (
        folder.parents[3] / f"finetuning/teacher/demo-ner/seed{kept['seed']}/predictions.tsv"
    )
    # a sentence with a predicted entity, of words the tokenizer does not split on punctuation
    # (the pipeline would take "IL-6"'s "-" for a word of its own)
    sentence = next(
        rows
        for rows in (block.splitlines() for block in predictions.read_text().split("\n\n"))
        if any(row.endswith("\tB-ENT") for row in rows)
        and all(len(word) == 1 or word.isalnum() for word in (row.split("\t")[0] for row in rows))
    )
    words = [line.split("\t")[0] for line in sentence]
    expected, current = [], None
    for word, tag in ((line.split("\t")[0], line.split("\t")[2]) for line in sentence):
        if tag == "O":
            current = None
        elif tag.startswith("B-") or current is None:
            current = [word]
            expected.append(current)
        else:
            current.append(word)
    ner = pipeline("token-classification", model=str(folder), aggregation_strategy="first")
    found = ner(" ".join(words))
    assert {entity["entity_group"] for entity in found} == {"Disease"}
    assert ["".join(entity["word"].split()) for entity in found] == [
        "".join(span).lower() for span in expected
    ]


def test_one_metrics_file_per_model_task_seed(demo_run, config):
    tuning = config["finetuning"]
    for model in tuning["models"]:
        for task in tuning["tasks"]:
            for seed in tuning.get("seeds", [1, 2, 3, 4, 5]):
                path = demo_run / f"results/finetuning/{model}/{task}/seed{seed}/metrics.json"
                metrics = json.loads(path.read_text())
                assert (metrics["model"], metrics["task"], metrics["seed"]) == (model, task, seed)
                assert metrics["primary_metric"] in metrics["metrics"]
                assert metrics["primary_metric"] in metrics["definitions"]
                recomputed = scores_from_predictions(
                    path, path.parent / "predictions.tsv", tuning["tasks"][task]
                )
                assert metrics["metrics"] == pytest.approx(recomputed, abs=1e-12)


def test_report_medians_equal_medians_of_metrics_files(demo_run, config):
    summary = pd.read_csv(demo_run / "results/aggregate/summary.csv")
    html = (demo_run / "results/report/report.html").read_text(encoding="utf-8")
    tuning = config["finetuning"]
    for model in tuning["models"]:
        for task in tuning["tasks"]:
            runs = [
                json.loads(p.read_text())
                for p in (demo_run / f"results/finetuning/{model}/{task}").glob(
                    "seed*/metrics.json"
                )
            ]
            primary = runs[0]["primary_metric"]
            median = statistics.median(run["metrics"][primary] for run in runs)
            row = summary[
                (summary.model == model) & (summary.task == task) & (summary.metric == primary)
            ]
            assert row["median"].item() == pytest.approx(median)
            assert f"{100 * median:.1f}" in html


def test_every_comparison_has_its_interval_consistent_with_the_report(demo_run, config):
    """comparisons.csv: teacher-distil against its teacher, every model against the row's best
    and the baseline, on each task and average, with values equal to the summary's and
    averages' and intervals that hold them; the report words each row by them."""
    results = demo_run / "results"
    comparisons = pd.read_csv(results / "comparisons/comparisons.csv")
    intervals = pd.read_csv(results / "comparisons/intervals.csv")
    summary = pd.read_csv(results / "aggregate/summary.csv")
    averages = pd.read_csv(results / "aggregate/averages.csv")
    tasks, models = list(config["finetuning"]["tasks"]), config["finetuning"]["models"]
    student = comparisons[comparisons["kind"] == STUDENT_TEACHER]
    assert set(student["row"]) == {*tasks, "overall", "re", "ner"}
    assert set(student["model"]) == {"teacher-distil"} and set(student["reference"]) == {"teacher"}
    for task in tasks:
        rows = comparisons[(comparisons["row"] == task) & (comparisons["level"] == "task")]
        assert set(rows["kind"]) == {STUDENT_TEACHER, VERSUS_BEST, VERSUS_BASELINE}
        assert len(rows[rows["kind"] == VERSUS_BASELINE]) == len(models)
        assert (rows["ci_low"] <= rows["ci_high"]).all() and rows["p_holm"].ge(
            rows["p_value"]
        ).all()
        assert rows["resamples"].eq(1000).all()
        for _, row in rows.iterrows():  # Holm's family: the task rows of its (kind, model)
            family = comparisons[
                (comparisons["level"] == "task")
                & (comparisons["kind"] == row["kind"])
                & (comparisons["model"] == row["model"])
            ]
            assert row["holm_tests"] == len(family)
        for _, row in rows.iterrows():
            medians = summary[(summary["task"] == task) & summary["primary"]]
            model = medians[medians["model"] == row["model"]]["median"].item()
            reference = medians[medians["model"] == row["reference"]]["median"].item()
            assert row["difference"] == pytest.approx(model - reference, abs=1e-12)
            outside = row["ci_low"] > 0 or row["ci_high"] < 0
            assert row["distinguishable"] == (outside and row["p_holm"] < 0.05)
        values = intervals[(intervals["row"] == task) & (intervals["level"] == "task")]
        assert (values["ci_low"] <= values["value"]).all()
        assert (values["value"] <= values["ci_high"]).all()
    overall = intervals[intervals["level"] == "overall"].set_index("model")["value"]
    expected = averages[averages["group"] == "overall"].set_index("model")["value"]
    assert overall.to_dict() == pytest.approx(expected.to_dict(), abs=1e-12)
    retention = student[student["row"] == "overall"].iloc[0]
    assert retention["retention_low"] <= retention["retention"] <= retention["retention_high"]
    html = (results / "report/report.html").read_text(encoding="utf-8")
    for _, row in comparisons[comparisons["kind"] == VERSUS_BEST].iterrows():
        difference = f"{row['model']} - {row['reference']}: {100 * row['difference']:+.1f} points"
        assert difference in html
        if not row["distinguishable"]:
            assert "(tied)" in html and "not distinguishable, 95%" in html


def test_nothing_left_to_do_then_learning_rate_change_reruns_only_downstream(demo_run):
    assert planned_jobs(run_snakemake(demo_run, "-n")) == {}

    config = yaml.safe_load((demo_run / "config.yaml").read_text())
    for preset in config["finetuning"]["presets"].values():
        preset["learning_rate"] = preset.get("learning_rate", 5e-5) * 2
    changed = demo_run / "changed.yaml"
    changed.write_text(yaml.safe_dump(config, sort_keys=False))
    result = subprocess.run(
        [*SNAKEMAKE, "--directory", str(demo_run), "--configfile", str(changed), "-n"],
        capture_output=True,
        text=True,
        check=False,
    )
    planned = planned_jobs(result)
    compression = {"finetune_saved", "compress", "evaluate_compressed", "compression_summary"}
    saved = {"finetune_kept", "publish_finetuned"}  # save_models: best
    report = {"aggregate", "comparisons", "report", "all"}
    assert set(planned) == {*report, *saved, *compression}, result.stdout[-3000:]


def _html_table(html: str, table_id: str) -> list[list[str]]:
    """Cell texts of the report's table ``table_id``, header row first."""
    import lxml.html

    table = lxml.html.fromstring(html).get_element_by_id(table_id)
    return [[cell.text_content().strip() for cell in row] for row in table.iter("tr")]


def test_task_distillation_outputs_summary_and_report_table(demo_run, config):
    settings = config["task_distillation"]
    summary = pd.read_csv(
        demo_run / "results/task_distillation/summary.csv", dtype={"transfer": str}
    )
    html = (demo_run / "results/report/report.html").read_text(encoding="utf-8")
    for name, experiment in settings["experiments"].items():
        teacher = (
            demo_run
            / "results/task_distillation/teachers"
            / experiment["teacher"]
            / experiment["task"]
            / f"seed{experiment.get('teacher_seed', 1)}"
        )
        assert json.loads((teacher / "model/config.json").read_text())["id2label"]
        assert json.loads((teacher / "evaluation.json").read_text())["primary_metric"] == "roc_auc"
        folder = demo_run / "results/task_distillation/experiments" / name
        for transfer in experiment["transfer"]:
            meta = json.loads((folder / transfer / "soft_labels.json").read_text())
            rows = (folder / transfer / "soft_labels.jsonl").read_text().splitlines()
            assert len(rows) == meta["examples"] > 0
            assert all(0 <= p <= 1 for row in rows for p in json.loads(row)["soft_label"])
            for seed in settings["seeds"]:
                record = json.loads(
                    (folder / transfer / "distilled" / f"seed{seed}/evaluation.json").read_text()
                )
                assert {"roc_auc", "teacher_agreement"} <= set(record["metrics"]) and record[
                    "seed"
                ] == seed
        rows = summary[(summary.experiment == name) & (summary.metric == "roc_auc")]
        assert set(rows.setting) == {"teacher", "distilled", "direct", "untrained"}
        assert (rows.loc[rows.setting != "teacher", "n_seeds"] == len(settings["seeds"])).all()
        header, *body = _html_table(html, f"task-distillation-{name}-roc_auc")
        assert header == [
            "Transfer set",
            "teacher",
            "student after distillation",
            "student fine-tuned directly",
            "student without transfer",
        ]
        assert [row[0] for row in body] == experiment["transfer"]
        distilled = rows[rows.setting == "distilled"].set_index("transfer")["median"]
        for row in body:
            assert row[2].startswith(f"{100 * distilled[row[0]]:.1f}")


def test_compression_formats_rescored_sized_and_in_the_report(demo_run, config):
    """The demo's compressed (model, task): the fine-tuning run of the compression seed saved
    its model, whose fp32 re-score is what that run scored (CPU, one thread: deterministic)
    and which no second run fine-tuned again; int8 is smaller, ONNX scores within a point of
    fp32 (its logits match PyTorch's to 1e-4 in tests/compression/test_compression.py); the report's
    table has score, size and latency for fp32, int8 and onnx, and each compressed format's
    speed-up over fp32 with its range over the interleaved timing rounds."""
    section = config["compression"]
    seed = config["finetuning"]["seeds"][0]
    summary = pd.read_csv(demo_run / "results/compression/summary.csv")
    for model in section["models"]:
        for task in section["tasks"]:
            folder = demo_run / f"results/compression/{model}/{task}/seed{seed}"
            evaluations = {
                name: json.loads((folder / name / "evaluation.json").read_text())
                for name in ("fp32", "int8", "onnx")
            }
            finetuned = json.loads(
                (
                    demo_run / f"results/finetuning/{model}/{task}/seed{seed}/metrics.json"
                ).read_text()
            )
            assert evaluations["fp32"]["metrics"] == finetuned["metrics"]
            assert (demo_run / f"results/finetuning/{model}/{task}/seed{seed}/model").is_dir()
            assert not (folder / "fp32/model").exists()
            primary = finetuned["primary_metric"]
            assert (
                abs(evaluations["onnx"]["metrics"][primary] - finetuned["metrics"][primary]) <= 0.01
            )
            assert evaluations["int8"]["size_bytes"] < evaluations["fp32"]["size_bytes"]
            rows = summary[(summary["model"] == model) & (summary["task"] == task)]
            assert list(rows["format"]) == ["fp32", "int8", "onnx"]
            assert (rows["latency_ms"] > 0).all()
            assert (rows["latency_ms_min"] <= rows["latency_ms_max"]).all()
            compressed = rows[rows["format"] != "fp32"]
            assert (compressed["speedup_min"] <= compressed["speedup_max"]).all()
    html = (demo_run / "results/report/report.html").read_text(encoding="utf-8")
    assert 'id="compression-table"' in html
    for column in ("fp32 score", "int8 score", "onnx score", "int8 MB", "onnx ms", "onnx speed-up"):
        assert f"<th>{column}</th>" in html


# ----------------------------------------------------------------------------- decontamination

MASK = r"@[A-Za-z][\w-]*\$"


def _words(text: str) -> list[str]:
    """NFKC, lower-cased, runs of letters and digits: decontamination's words, written apart
    from the hashing code these tests check."""
    import re
    import unicodedata

    return re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", text).lower())


def _exact_ngrams(text: str, n: int = 13) -> set[tuple[str, ...]]:
    """The n-grams of ``text`` as word tuples, none across an entity mask."""
    import re

    grams: set[tuple[str, ...]] = set()
    for piece in re.split(MASK, text):
        tokens = _words(piece)
        grams |= {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}
    return grams


def _matched_sentences(document: list[str], grams: set, n: int = 13) -> int:
    """How many sentences of ``document`` an n-gram of ``grams`` spans (it may span several)."""
    words = [
        (number, word) for number, sentence in enumerate(document) for word in _words(sentence)
    ]
    covered: set[int] = set()
    for start in range(len(words) - n + 1):
        if tuple(word for _, word in words[start : start + n]) in grams:
            covered |= set(range(words[start][0], words[start + n - 1][0] + 1))
    return len(covered)


def _demo_evaluation_text(demo_run: Path, config: dict) -> dict[tuple[str, str], list[str]]:
    """Each demo task's dev and test examples as texts, read from the files directly."""
    texts = {}
    for name, task in config["finetuning"]["tasks"].items():
        for split in ("dev", "test"):
            content = (demo_run / task[split]).read_text(encoding="utf-8")
            if task["family"] == "ner":
                blocks = [block for block in content.split("\n\n") if block.strip()]
                texts[name, split] = [
                    " ".join(line.split("\t")[0] for line in block.splitlines()) for block in blocks
                ]
            else:
                rows = [line.split("\t") for line in content.splitlines()]
                texts[name, split] = [row[-2] for row in rows if row[-1] != "label"]
    return texts


def test_decontamination_removes_exactly_the_documents_sharing_a_13_gram_with_the_tasks(
    demo_run, config
):
    """contamination.json against an exact word-tuple search of the demo's shards for each
    split's 13-grams: documents, sentences and examples matched, documents removed; the
    decontaminated shards are the shards without those documents; the report and the
    teacher's card show the counts."""
    from biocompact.corpus.textshards import iter_documents

    contamination = json.loads((demo_run / "results/corpus/contamination.json").read_text())
    evaluation = _demo_evaluation_text(demo_run, config)
    shards = sorted((demo_run / "results/corpus/sentences").glob("*[0-9].txt.gz"))
    documents = [(path, document) for path in shards for document in iter_documents([path])]
    grams = [_exact_ngrams(" ".join(document)) for _, document in documents]
    corpus = set().union(*grams)
    removed = set()
    for entry in contamination["splits"]:
        examples = [_exact_ngrams(text) for text in evaluation[entry["task"], entry["split"]]]
        split_grams = set().union(*examples)
        dirty = [index for index, document in enumerate(grams) if document & split_grams]
        assert entry["ngram"] == {
            "documents": len(dirty),
            "sentences": sum(_matched_sentences(documents[i][1], split_grams) for i in dirty),
            "examples": sum(bool(example & corpus) for example in examples),
        }, entry
        assert entry["pmid"] == {"documents": 0, "sentences": 0, "examples": 0}
        assert entry["documents_removed"] == len(dirty) and entry["examples"] == len(examples)
        removed |= set(dirty)
    totals = contamination["corpus"]
    assert (totals["documents"], totals["documents_removed"]) == (len(documents), len(removed))
    assert (totals["documents_removed"], totals["documents"]) == (177, 3099)  # docs/corpus.md
    for path in shards:
        kept = [
            document
            for index, (shard, document) in enumerate(documents)
            if shard == path and index not in removed
        ]
        assert (
            list(iter_documents([demo_run / "results/corpus/decontaminated" / path.name])) == kept
        )
    html = (demo_run / "results/report/report.html").read_text(encoding="utf-8")
    _, *rows = _html_table(html, "contamination-table")
    assert [(row[0], row[1], row[2], row[-1]) for row in rows] == [
        (entry["task"], entry["split"], f"{entry['examples']:,}", f"{entry['documents_removed']:,}")
        for entry in contamination["splits"]
    ]
    card = (demo_run / "results/pretraining/teacher/model/README.md").read_text()
    assert f"{totals['documents_removed']:,} of {totals['documents']:,} documents" in card


def test_another_ngram_size_reruns_the_decontamination_and_what_reads_the_corpus(demo_run):
    """The evaluation text, each shard's decontamination and summary, the transfer sets, and
    everything trained on the pretraining text; never the sentence splitting."""
    result = run_snakemake(demo_run, "-n", "--config", "decontamination={ngram: 12}")
    planned = planned_jobs(result)
    assert (planned["corpus_evaluation_text"], planned["corpus_decontaminate"]) == (1, 3)
    assert (planned["corpus_contamination"], planned["transfer_set"]) == (1, 3)
    assert {"train_vocabulary", "tokenize_corpus", "pretrain", "distill"} <= set(planned)
    assert not {"corpus_parse_pubmed", "corpus_split_sentences"} & set(planned)


def test_transfer_examples_overlapping_a_test_set_are_dropped(demo_run, config):
    """No example left in a transfer set shares a 13-gram with a test set; a set read from a
    file drops exactly the examples an exact search finds before it has max_examples."""
    from biocompact.task_distillation.transfer import read_source, read_transfer_set

    tests = {
        task: set().union(*map(_exact_ngrams, texts))
        for (task, split), texts in _demo_evaluation_text(demo_run, config).items()
        if split == "test"
    }
    html = (demo_run / "results/report/report.html").read_text(encoding="utf-8")
    shown = {row[0]: row for row in _html_table(html, "transfer-overlap-table")[1:]}
    folder = demo_run / "results/task_distillation/transfer"
    for name, entry in config["task_distillation"]["transfer_sets"].items():
        record = json.loads((folder / f"{name}.json").read_text())
        kept = read_transfer_set(folder / f"{name}.jsonl")
        texts = [[example.text, example.text_pair or ""] for example in kept]
        assert not any(
            _exact_ngrams(text) & grams
            for pair in texts
            for text in pair
            for grams in tests.values()
        )
        assert record["examples"] == len(kept) and shown[name][1] == f"{len(kept):,}"
        if "path" not in entry:
            continue
        dropped: dict[str, int] = {}
        count = 0
        for example in read_source(demo_run / entry["path"], entry.get("format", "text")):
            if count == entry["max_examples"]:
                break
            tasks = [task for task, grams in tests.items() if _exact_ngrams(example.text) & grams]
            for task in tasks:
                dropped[task] = dropped.get(task, 0) + 1
            count += not tasks
        assert record["dropped_by_task"] == dropped, name
