"""Real check of the fine-tuning harness: pretrain a small model with the project's own
code on real abstracts, fine-tune it on a slice of NCBI-disease, print the entity F1.

1. the 725 abstracts of ``../shared/data/text/PubMedAbstract_1MB.txt`` are split into
   sentences (the corpus stage's rule splitter) and written as one sentence shard;
2. a WordPiece vocabulary is trained on them (``biocompact.vocab``), the corpus is
   tokenised and packed (``biocompact.vocab.tokenized_corpus``);
3. a 4-layer, 256-wide BERT (``demo-4L-256``) is pretrained from scratch by masked
   language modelling (``biocompact.pretraining``);
4. it is fine-tuned (``biocompact.finetuning.train.finetune``) on the first
   ``--train-sentences`` NCBI-disease training sentences, the best epoch chosen on the full
   devel set, and scored once on the full test set (conlleval entity F1, strict
   IOB2 beside it);
5. the majority baseline (all O) is scored beside it.

    .venv/bin/python benchmarks/ncbi_disease_check.py [--out /tmp/ncbi-check]
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import time
from pathlib import Path

from biocompact.corpus.sentence_rules import split_text
from biocompact.entries import parse_entry
from biocompact.finetuning.baseline import majority_baseline
from biocompact.finetuning.train import FinetuneRun, finetune
from biocompact.pretraining.run import PretrainingSpec, run_pretraining
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.training.settings import MaskingSettings
from biocompact.vocab.build import build_vocabulary
from biocompact.vocab.settings import VocabularySettings
from biocompact.vocab.tokenized_corpus import build_tokenized_corpus

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
MAX_SEQ_LENGTH = 128
VOCABULARY = {
    "type": "wordpiece",
    "vocab_size": 8000,
    "lowercase": True,
    "min_frequency": 2,
    "limit_alphabet": 1000,
}
PRETRAINING = {
    "steps": 600,
    "batch_size": 32,
    "gradient_accumulation": 1,
    "learning_rate": 1.0e-3,
    "warmup_steps": 60,
    "weight_decay": 0.01,
    "max_grad_norm": 1.0,
    "adam_beta1": 0.9,
    "adam_beta2": 0.999,
    "adam_epsilon": 1.0e-6,
    "seed": 0,
    "log_every": 50,
    "checkpoint_every": 600,
}
MASKING = MaskingSettings(
    probability=0.15, replace_with_mask=0.8, replace_with_random=0.1, whole_word=True
)
FINETUNING = {
    "epochs": 5,
    "batch_size": 16,
    "learning_rate": 2.0e-4,
    "max_seq_length": MAX_SEQ_LENGTH,
    "warmup_ratio": 0.1,
    "weight_decay": 0.01,
    "eval_steps": None,
}


def pretrain(out: Path, threads: int) -> Path:
    """Steps 1-3; returns the model folder (reused when it already exists)."""
    model = out / "model"
    if model.exists():
        return model
    shard = out / "sentences.txt.gz"
    with gzip.open(shard, "wt", encoding="utf-8") as handle:
        for abstract in (DATA / "text" / "PubMedAbstract_1MB.txt").read_text().splitlines():
            if abstract.strip():
                handle.write("\n".join(split_text(abstract)) + "\n\n")
    build_vocabulary(
        [shard],
        out / "tokenizer",
        out / "vocab.json",
        "real",
        parse_entry(VocabularySettings, VOCABULARY),
        heldout_fraction=0.05,
        max_heldout_sentences=20000,
    )
    build_tokenized_corpus(
        [shard],
        out / "tokenizer",
        out / "corpus",
        max_seq_length=MAX_SEQ_LENGTH,
        heldout_fraction=0.05,
    )
    settings = parse_entry(
        PretrainingSettings,
        {"vocabulary": "real", "architecture": {"preset": "demo-4L-256"}, **PRETRAINING},
    )
    spec = PretrainingSpec(
        name="ncbi-check",
        settings=settings,
        dataset_dir=str(out / "corpus"),
        tokenizer_dir=str(out / "tokenizer"),
        outputs={
            "model": str(model),
            "log": str(out / "train_log.jsonl"),
            "eval": str(out / "eval.json"),
        },
        checkpoint_dir=str(out / "checkpoints"),
        masking=MASKING,
        max_seq_length=MAX_SEQ_LENGTH,
        probes=(),
        threads=threads,
    )
    run_pretraining(spec)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/ncbi-check"))
    parser.add_argument("--train-sentences", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    model = pretrain(args.out, args.threads)
    pretrain_seconds = time.perf_counter() - started
    folder = DATA / "ner" / "NCBI-disease"
    task = {
        "name": "ncbi-disease",
        "family": "ner",
        "format": "biobert_tsv",
        "train": str(folder / "train.tsv"),
        "max_train_examples": args.train_sentences,
        "dev": str(folder / "devel.tsv"),
        "test": str(folder / "test.tsv"),
        "hyperparameters": FINETUNING,
    }
    task = parse_entry(FinetuningTask, task)
    record = finetune(
        FinetuneRun(str(model), task, 1, model_name="ncbi-check"),
        outputs={
            "metrics": str(args.out / "metrics.json"),
            "predictions": str(args.out / "predictions.tsv"),
        },
        threads=args.threads,
    )
    baseline = majority_baseline(task, outputs={"metrics": str(args.out / "baseline.json")})
    perplexity = json.loads((args.out / "eval.json").read_text())["perplexity"]
    print(
        f"pretraining: {PRETRAINING['steps']} steps, held-out perplexity {perplexity:.1f}, "
        f"{pretrain_seconds:.0f} s"
    )
    print(
        f"fine-tuning: {record['train_examples']}/{record['dev_examples']}/"
        f"{record['test_examples']} sentences, best epoch {record['best_epoch']}, "
        f"{record['train_seconds']:.0f} s"
    )
    for name, scores in (("model", record["metrics"]), ("all-O baseline", baseline["metrics"])):
        print(f"test {name}: " + ", ".join(f"{k} {v:.4f}" for k, v in scores.items()))


if __name__ == "__main__":
    main()
