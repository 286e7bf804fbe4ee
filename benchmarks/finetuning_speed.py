"""Time per (model, task, seed) fine-tuning run: biocompact against a plain ``Trainer`` script.

Same model, task files, hyperparameters (the task's preset: epochs, batch, learning rate,
warm-up, weight decay, maximum length), seed, dev selection and test scoring:

* biocompact (``biocompact.finetuning.train.finetune``): training batches padded to their
  longest example (length-grouped where the preset says so, as the demo's does), evaluation
  in length-sorted batches (of at least 64 on a GPU), the best dev weights kept in memory,
  bf16 on a GPU;
* plain: what Hugging Face's example scripts do by default, ``run_ner.py`` for token
  classification (batches padded to their longest example, in random order) and
  ``run_glue.py`` for sequence classification (every example padded to ``max_seq_length``),
  evaluation batches as large as training ones, a checkpoint every epoch and
  ``load_best_model_at_end`` on the task's metric, bf16 on a GPU.

Both read, encode and score with biocompact's task families, so their metrics must agree
within seed noise. Runs alternate between the two (same machine load); prints seconds per
run, the speed-up and every run's test metric. Both routes run in the same precision: bf16 on
a GPU, fp32 on the CPU unless ``--cpu-bf16`` (the pipeline's default on a CPU with native bf16).

    python benchmarks/finetuning_speed.py --threads 1                       # the demo's tasks
    python benchmarks/finetuning_speed.py --model FOLDER --tasks demo-ner --seeds 1 2 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import torch
import yaml
from transformers import (
    AutoModelForMaskedLM,
    AutoTokenizer,
    DataCollatorWithPadding,
    EvalPrediction,
    Trainer,
    TrainingArguments,
    set_seed,
)

from biocompact.entries import parse_entry
from biocompact.finetuning.splits import load_splits
from biocompact.finetuning.tasks import get_family
from biocompact.finetuning.train import FinetuneRun, finetune
from biocompact.models.presets import build_config
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.training.precision import native_bf16

ROOT = Path(__file__).resolve().parents[1]


def task_settings(config_file: Path, names: list[str]) -> dict[str, dict]:
    """The tasks' configs with hyperparameters resolved as the workflow does (schema defaults
    filled in by Snakemake's validator)."""
    from snakemake.utils import validate

    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    validate(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    tasks = {}
    for name in names:
        task = dict(config["finetuning"]["tasks"][name], name=name)
        task["hyperparameters"] = {
            **config["finetuning"]["presets"][task["preset"]],
            **task["hyperparameters"],
        }
        for split in ("train", "dev", "test"):
            task[split] = str(config_file.parent / task[split])
        tasks[name] = task
    return tasks


def plain_run(model_dir: str, task: Mapping, seed: int, work: Path) -> float:
    """run_ner.py / run_glue.py with their defaults; returns the test score of the task's metric."""
    family = get_family(task["family"], task["format"])
    settings = task["hyperparameters"]
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    parsed = parse_entry(FinetuningTask, task)
    splits = load_splits(parsed, family)
    train, dev, test = (
        family.encode(examples, tokenizer, splits.labels, parsed)
        for examples in (splits.train, splits.dev, splits.test)
    )
    primary = family.primary_metric(parsed, splits.labels)
    collator = family.data_collator(tokenizer)
    if task["family"] != "ner":  # run_glue.py's pad_to_max_length (default True)
        collator = DataCollatorWithPadding(
            tokenizer, padding="max_length", max_length=settings["max_seq_length"]
        )

    def dev_scores(prediction: EvalPrediction) -> dict[str, float]:
        return family.score(
            splits.dev,
            family.decode(prediction.predictions, dev, splits.labels),
            parsed,
            splits.labels,
        )

    set_seed(seed)
    model = family.build_model(model_dir, splits.labels)
    arguments = TrainingArguments(
        output_dir=str(work),
        num_train_epochs=settings["epochs"],
        per_device_train_batch_size=settings["batch_size"],
        per_device_eval_batch_size=settings["batch_size"],
        learning_rate=settings["learning_rate"],
        warmup_steps=settings["warmup_ratio"],
        weight_decay=settings["weight_decay"],
        eval_strategy="epoch",
        save_strategy="epoch",
        load_best_model_at_end=True,
        metric_for_best_model=primary,
        greater_is_better=True,
        save_total_limit=1,
        logging_strategy="no",
        report_to=[],
        disable_tqdm=True,
        seed=seed,
        data_seed=seed,
        bf16=settings["bf16"],
        use_cpu=not torch.cuda.is_available(),
    )
    trainer = Trainer(
        model=model,
        args=arguments,
        data_collator=collator,
        train_dataset=train.dataset,
        eval_dataset=dev.dataset,
        compute_metrics=dev_scores,
    )
    trainer.train()
    trainer.compute_metrics = None  # dev scores only
    predictions = family.decode(trainer.predict(test.dataset).predictions, test, splits.labels)
    return family.score(splits.test, predictions, parsed, splits.labels)[primary]


def biocompact_run(model_dir: str, task: Mapping, seed: int, work: Path, threads: int) -> float:
    record = finetune(
        FinetuneRun(model_dir, parse_entry(FinetuningTask, task), seed),
        outputs={
            "metrics": str(work / "metrics.json"),
            "predictions": str(work / "predictions.tsv"),
        },
        threads=threads,
    )
    return record["metrics"][record["primary_metric"]]


def demo_model(preset: str, tokenizer_dir: str, folder: Path) -> str:
    """A randomly initialised MLM model of ``preset`` with the tokenizer, saved to ``folder``."""
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    config = build_config(
        {"preset": preset},
        vocab_size=len(tokenizer),
        max_position_embeddings=512,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    AutoModelForMaskedLM.from_config(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--config", type=Path, default=ROOT / "config.yaml", help="where the tasks are defined"
    )
    parser.add_argument(
        "--task-settings", type=Path, help="resolved task configs (JSON) instead of --config"
    )
    parser.add_argument("--tasks", nargs="+", default=["demo-ner", "demo-re"])
    parser.add_argument(
        "--model", help="a model folder (default: a new --preset model with --tokenizer)"
    )
    parser.add_argument("--preset", default="demo-4L-256", help="the demo teacher's shape")
    parser.add_argument(
        "--tokenizer",
        default=str(ROOT / "results" / "vocab" / "wordpiece-uncased" / "tokenizer"),
        help="the demo's vocabulary (make demo builds it)",
    )
    parser.add_argument("--seeds", nargs="+", type=int, default=[1])
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument(
        "--length-grouped",
        choices=("preset", "on", "off"),
        default="preset",
        help="biocompact's length_grouped_batches: the task preset's (the demo's: on), or forced",
    )
    parser.add_argument(
        "--routes", default="biocompact,plain", help="comma-separated: biocompact, plain"
    )
    parser.add_argument(
        "--warmup",
        action="store_true",
        help="first one untimed run of each route (a GPU's start-up costs)",
    )
    parser.add_argument(
        "--cpu-bf16", action="store_true", help="on the CPU too, both routes in bf16 autocast"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args()
    if args.cpu_bf16 and not native_bf16(torch.device("cpu")):
        parser.error("--cpu-bf16: this CPU has no native bf16 (AVX512-BF16 or AMX)")
    torch.set_num_threads(args.threads)
    if args.task_settings:
        tasks = {
            name: task
            for name, task in json.loads(args.task_settings.read_text()).items()
            if name in args.tasks
        }
    else:
        tasks = task_settings(args.config, args.tasks)
    for task in tasks.values():
        task["hyperparameters"]["bf16"] = torch.cuda.is_available() or args.cpu_bf16
        if args.length_grouped != "preset":
            task["hyperparameters"]["length_grouped_batches"] = args.length_grouped == "on"
    routes = args.routes.split(",")
    device = (
        torch.cuda.get_device_name()
        if torch.cuda.is_available()
        else f"CPU, {args.threads} threads"
    )
    results = []
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        model_dir = args.model or demo_model(args.preset, args.tokenizer, work / "model")
        print(f"model {args.model or args.preset}, {device}, seeds {args.seeds}")
        if args.warmup:
            first = next(iter(tasks.values()))
            for route, run in (("biocompact", biocompact_run), ("plain", plain_run)):
                (work / f"warmup-{route}").mkdir()
                arguments = (args.threads,) if route == "biocompact" else ()
                run(model_dir, first, args.seeds[0], work / f"warmup-{route}", *arguments)
        for name, task in tasks.items():
            for seed in args.seeds:
                for route in routes:
                    folder = work / f"{name}-{seed}-{route}"
                    folder.mkdir()
                    started = time.perf_counter()
                    if route == "biocompact":
                        score = biocompact_run(model_dir, task, seed, folder, args.threads)
                    else:
                        score = plain_run(model_dir, task, seed, folder)
                    seconds = time.perf_counter() - started
                    results.append(
                        {
                            "task": name,
                            "seed": seed,
                            "route": route,
                            "seconds": seconds,
                            "score": score,
                        }
                    )
                    print(
                        f"{name:<12} seed {seed} {route:<11} {seconds:8.1f} s  test score {score:.4f}",
                        flush=True,
                    )
    if routes == ["biocompact", "plain"]:
        print(f"{'task':<12}{'biocompact s/run':>18}{'plain s/run':>13}{'speed-up':>10}")
        for name in tasks:
            ours, plain = (
                statistics.median(
                    r["seconds"] for r in results if r["task"] == name and r["route"] == route
                )
                for route in routes
            )
            print(f"{name:<12}{ours:>18.1f}{plain:>13.1f}{plain / ours:>9.2f}x")
    total = {route: sum(r["seconds"] for r in results if r["route"] == route) for route in routes}
    print("all runs: " + ", ".join(f"{route} {seconds:.1f} s" for route, seconds in total.items()))
    if args.json:
        args.json.write_text(json.dumps({"device": device, "results": results}, indent=1))


if __name__ == "__main__":
    main()
