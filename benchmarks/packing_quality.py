"""Held-out MLM loss and training time of the packings (`document`, `full`, `best_fit`), same steps.

Packs the sentence shards every way (``build_tokenized_corpus``), then, for every seed in
turn, trains one model on each packing of ``--packings`` (runs interleaved, so a busy
machine slows them alike) with the demo teacher's hyperparameters by default, and scores
every model on every packing's held-out split (the same held-out documents, packed each
way). Prints each packing's share of positions that hold tokens (training split), a row
per run, then per packing the median and range over the seeds: held-out loss, training
seconds and real tokens trained on.

    python benchmarks/packing_quality.py --tokenizer results/vocab/wordpiece-uncased/tokenizer \
        --shards results/corpus/sentences/*.txt.gz --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import torch
from transformers import AutoModelForMaskedLM

from biocompact.models.presets import build_config
from biocompact.pretraining.mlm import MaskedLanguageModelling
from biocompact.pretraining.run import special_token_ids
from biocompact.training.evaluation import heldout_loss
from biocompact.training.loop import train
from biocompact.training.settings import MaskingSettings, TrainingSettings
from biocompact.training.stage import load_corpus
from biocompact.vocab.tokenized_corpus import PACKINGS, build_tokenized_corpus


def train_and_score(
    packing: str, seed: int, corpora: dict[str, Path], tokenizer_dir: Path, args, work: Path
) -> dict:
    """Train one model on ``packing``'s corpus; its held-out loss on every packing's split."""
    corpus, tokenizer, batcher = load_corpus(corpora[packing], tokenizer_dir, MaskingSettings())
    config = build_config(
        {"preset": args.preset},
        vocab_size=len(tokenizer),
        max_position_embeddings=max(512, args.max_seq_length),
        family="bert",
        pad_token_id=tokenizer.pad_token_id,
        special_token_ids=special_token_ids(tokenizer),
    )
    torch.manual_seed(seed)
    objective = MaskedLanguageModelling(AutoModelForMaskedLM.from_config(config))
    settings = TrainingSettings(
        steps=args.steps,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        warmup_steps=args.steps // 10,
        seed=seed,
        checkpoint_every=args.steps + 1,  # one checkpoint: the end of training
    )
    started = time.perf_counter()
    log_path = train(objective, corpus["train"], batcher, settings, work / f"{packing}-{seed}")
    seconds = time.perf_counter() - started
    tokens = json.loads(log_path.read_text().splitlines()[-1])["tokens"]
    losses = {
        f"loss_{split_packing}": heldout_loss(
            objective.model,
            load_corpus(path, tokenizer_dir, MaskingSettings())[0]["validation"],
            batcher,
        )[0]
        for split_packing, path in corpora.items()
    }
    return {"packing": packing, "seed": seed, "seconds": seconds, "tokens": tokens, **losses}


def summarise(runs: list[dict], columns: list[str]) -> list[dict]:
    """Per packing (in first-seen order): the median, lowest and highest of every column."""
    summary = []
    for packing in dict.fromkeys(run["packing"] for run in runs):
        ours = [run for run in runs if run["packing"] == packing]
        row = {"packing": packing}
        for column in columns:
            values = [run[column] for run in ours]
            row[column] = (statistics.median(values), min(values), max(values))
        summary.append(row)
    return summary


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokenizer", type=Path, required=True)
    parser.add_argument("--shards", type=Path, nargs="+", required=True)
    parser.add_argument("--max-seq-length", type=int, default=64)
    parser.add_argument("--heldout-fraction", type=float, default=0.05)
    parser.add_argument("--preset", default="demo-4L-256")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument(
        "--seeds", type=int, nargs="*", default=[0, 1, 2], help="none: only each packing's fill"
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--packings", nargs="+", default=list(PACKINGS), choices=PACKINGS, help="those trained"
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    runs = []
    with tempfile.TemporaryDirectory(prefix="packing-quality-") as folder:
        work = Path(folder)
        corpora = {packing: work / packing for packing in PACKINGS}
        for packing, path in corpora.items():
            packed = build_tokenized_corpus(
                args.shards,
                args.tokenizer,
                path,
                max_seq_length=args.max_seq_length,
                heldout_fraction=args.heldout_fraction,
                packing=packing,
            )["train"]
            tokens = sum(len(ids) for ids in packed["input_ids"])
            filled = tokens / (len(packed) * args.max_seq_length)
            print(f"{packing}: {len(packed)} sequences, {filled:.1%} of positions hold tokens")
        for seed in args.seeds:
            for packing in args.packings:
                runs.append(train_and_score(packing, seed, corpora, args.tokenizer, args, work))
                print(json.dumps(runs[-1]), flush=True)
    columns = [*(f"loss_{packing}" for packing in corpora), "seconds", "tokens"]
    header = [f"held-out loss, {packing} split" for packing in corpora]
    print("\n| trained on | " + " | ".join([*header, "training s", "real tokens"]) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for row in summarise(runs, columns):
        cells = [f"{m:.3f} ({lo:.3f}-{hi:.3f})" for m, lo, hi in (row[c] for c in columns[:-2])]
        cells.append("{:.0f} ({:.0f}-{:.0f})".format(*row["seconds"]))
        cells.append("{:.0f} ({:.0f}-{:.0f})".format(*row["tokens"]))
        print(f"| `{row['packing']}` | " + " | ".join(cells) + " |")
    return runs


if __name__ == "__main__":
    main()
