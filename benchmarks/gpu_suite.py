"""Every GPU figure of docs/speed.md in one command, in minutes, written to one JSON file.

* pretraining: bioformer-8L at 128 tokens (batch 64) and base-12L at 512 tokens (batch 32),
  biocompact's default configuration against ``run_mlm.py``'s default route, the two
  interleaved in the same run (``pretraining_speed.measure``): real tokens/s and MFU;
* distillation: a ``distilbert`` step (teacher base-12L, a 6-layer student from its layers,
  vocabulary 30,522, batch 32 x 128) against the straightforward losses
  (``distillation_speed.compare``);
* a one-step ``torch.profiler`` table per stage (a pretraining and a distillation step after
  their warm-up): the kernels that take the most device time, the device's busy time in
  the step and the gaps between kernels, and the host synchronisations in the step.

The JSON (``benchmarks/results/gpu-suite-<time>.json`` unless ``--out``) holds the device's
name, the versions, the command and every figure, and the seconds each part took (the
suite is sized for under 8 minutes on one H100). ``--smoke`` runs the same code on tiny
shapes for a few steps, eager: seconds on a CPU (tests/benchmarks/test_gpu_suite.py runs
it), so that nothing fails on a GPU for a reason a CPU could have shown; its profiled steps
compute the padding, as a GPU's do (``biocompact.models.unpadded.keep_padding``).
``--requirements`` prints the packages it needs beyond torch and transformers
(``gpu_suite_requirements.txt``), to prepare a GPU machine without network from wheels.

    python benchmarks/gpu_suite.py
    python benchmarks/gpu_suite.py --smoke --out /tmp/smoke.json
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import platform
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import distillation_speed
import pretraining_speed
import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity

from biocompact.distillation.objectives import METHODS
from biocompact.models.unpadded import keep_padding
from biocompact.pretraining.mlm import MaskedLanguageModelling
from biocompact.training.loop import adamw_optimizer, pick_device
from biocompact.training.precision import inference_dtype, native_bf16
from biocompact.training.settings import MaskingSettings, TrainingSettings
from biocompact.training.stage import load_corpus
from biocompact.training.step import TrainingStep, compiles

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "gpu_suite_requirements.txt"
SMOKE_TEXT = HERE.parent / "demo" / "general" / "passages.txt"
# the runtime calls that wait for the GPU, and the ops that make the host wait for a GPU
# result: a tensor's value read on the host (.item(), float()) and a shape that depends on
# values (nonzero, boolean indexing); on a CPU the ops show where a GPU would wait
HOST_SYNCS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize")
VALUE_READS = ("aten::_local_scalar_dense", "aten::nonzero")
FULL = {
    "pretraining": [
        {"preset": "bioformer-8L", "seq_length": 128, "batch_size": 64, "steps": 40, "warmup": 10},
        {"preset": "base-12L-768", "seq_length": 512, "batch_size": 32, "steps": 30, "warmup": 10},
    ],
    "repeats": 2,
    "distillation": {
        "teacher_preset": "base-12L-768",
        "vocab_size": 30522,
        "batch_size": 32,
        "seq_length": 128,
        "steps": 10,
        "warmup": 3,
    },
    "compile": "auto",
}
SMOKE = {
    "pretraining": [
        {"preset": "demo-4L-256", "seq_length": 32, "batch_size": 4, "steps": 3, "warmup": 1}
    ],
    "repeats": 1,
    "distillation": {
        "teacher_preset": "demo-4L-256",
        "vocab_size": 1000,
        "batch_size": 4,
        "seq_length": 32,
        "steps": 2,
        "warmup": 1,
    },
    "compile": False,
}


def versions() -> dict[str, str]:
    """Python, torch (and its CUDA), and every package the suite needs, as installed."""
    found = {"python": platform.python_version(), "torch": torch.__version__}
    found["cuda"] = torch.version.cuda or ""
    for name in ["transformers", *requirements()]:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def requirements() -> list[str]:
    """The package names of ``gpu_suite_requirements.txt``."""
    lines = REQUIREMENTS.read_text(encoding="utf-8").splitlines()
    return [line.split("==")[0] for line in lines if line.strip() and not line.startswith("#")]


def pretraining(plan: dict, text: Path, threads: int) -> list[dict]:
    """biocompact against run_mlm.py's default route at each shape of the plan, interleaved."""
    results = []
    for shape in plan["pretraining"]:
        argv = [
            f"--preset={shape['preset']}",
            f"--seq-length={shape['seq_length']}",
            f"--batch-size={shape['batch_size']}",
            f"--steps={shape['steps']}",
            f"--warmup={shape['warmup']}",
            f"--repeats={plan['repeats']}",
            f"--text={text}",
            f"--threads={threads}",
            f"--compile={str(plan['compile']).lower()}",
            "--routes=biocompact,default",
        ]
        if torch.cuda.is_available():
            argv += ["--data-workers=4", "--hf-workers=4"]
        figures = pretraining_speed.measure(pretraining_speed.parse_arguments(argv))
        results.append(
            {
                **shape,
                "command": "python benchmarks/pretraining_speed.py " + " ".join(argv),
                **figures,
            }
        )
    return results


def distillation(plan: dict) -> dict:
    """A distilbert step against the straightforward losses (distillation_speed.compare)."""
    arguments = argparse.Namespace(
        **plan["distillation"], relation_heads=16, compile=plan["compile"]
    )
    return distillation_speed.compare(arguments, "distilbert", pick_device())


def profile_step(run: Callable[[], object], device: torch.device, rows: int = 15) -> dict:
    """One call of ``run`` under the profiler: wall time, the device's busy time (the union
    of its kernels) and idle time, host synchronisations, and the ops or kernels of most
    self time (device time on a GPU, CPU time on a CPU)."""
    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
        torch.cuda.synchronize()
    with torch.profiler.profile(activities=activities) as profiler:
        started = time.perf_counter()
        run()
        if device.type == "cuda":
            torch.cuda.synchronize()
        wall = time.perf_counter() - started
    events = profiler.events()
    on_device = device.type == "cuda"
    kernels = [event for event in events if event.device_type == DeviceType.CUDA]
    busy = _union_seconds([(e.time_range.start, e.time_range.end) for e in kernels])
    averages = sorted(
        profiler.key_averages(),
        key=lambda a: a.self_device_time_total if on_device else a.self_cpu_time_total,
        reverse=True,
    )
    top = [
        {
            "name": average.key,
            "calls": average.count,
            "self_ms": (
                average.self_device_time_total if on_device else average.self_cpu_time_total
            )
            / 1000,
        }
        for average in averages[:rows]
    ]
    return {
        "wall_ms": wall * 1000,
        "device_busy_ms": busy * 1000 if on_device else None,
        "device_idle_ms": (wall - busy) * 1000 if on_device else None,
        "kernels": len(kernels) if on_device else None,
        "host_syncs": dict(Counter(e.name for e in events if _waits(e))),
        "top": top,
        "table": profiler.key_averages().table(
            sort_by="self_device_time_total" if on_device else "self_cpu_time_total",
            row_limit=rows,
        ),
    }


def _waits(event) -> bool:
    """Whether ``event`` makes the host wait for the device: a synchronising runtime call, or
    a value read asked for by Python code (not one a kernel makes of its own CPU scalars, as
    the CPU's fused AdamW does of its step counts)."""
    if event.name in HOST_SYNCS:
        return True
    if event.name not in VALUE_READS:
        return False
    parent = event.cpu_parent
    while parent is not None and parent.name == "aten::item":
        parent = parent.cpu_parent
    return parent is None or not parent.name.startswith("aten::")


def _union_seconds(intervals: list[tuple[float, float]]) -> float:
    """The length of the union of (start, end) intervals in microseconds, in seconds."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total / 1e6


def profiles(plan: dict, text: Path, work: Path) -> dict:
    """One profiled step of each stage, after its warm-up steps (compilation included)."""
    device = pick_device()
    bf16 = device.type == "cuda" and native_bf16(device)
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16)
    compiled = compiles(plan["compile"], device)
    shape = plan["pretraining"][0]
    args = pretraining_speed.parse_arguments(
        [f"--seq-length={shape['seq_length']}", f"--text={text}"]
    )
    pretraining_speed.write_shard(text, work / "shard.txt")
    corpus = pretraining_speed.build_corpus(args, work / "shard.txt", work / "corpus")
    data, tokenizer, batcher = load_corpus(corpus, args.tokenizer_dir, MaskingSettings())
    rows = data["train"][: shape["batch_size"]]
    batch = {k: v.to(device) for k, v in batcher(rows, torch.Generator().manual_seed(0)).items()}
    model = pretraining_speed.new_model(shape["preset"], tokenizer, shape["seq_length"])
    steps = {"pretraining": _step(MaskedLanguageModelling(model), device, autocast, compiled)}

    options = plan["distillation"]
    arguments = argparse.Namespace(**options, relation_heads=16, compile=plan["compile"])
    teacher, student = distillation_speed.models(arguments, "distilbert")
    objective = METHODS["distilbert"](student, teacher.to(inference_dtype(device, bf16)))
    steps["distillation"] = _step(objective, device, autocast, compiled)
    distillation_batch = {
        k: v.to(device) for k, v in distillation_speed.batches(arguments, 1)[0].items()
    }
    results = {}
    for stage, step in steps.items():
        stage_batch = batch if stage == "pretraining" else distillation_batch
        with keep_padding():  # on the CPU (the smoke run) too, the step a GPU runs
            for _ in range(3):  # warm-up: compilation, allocator
                step([stage_batch])
            results[stage] = profile_step(lambda s=step, b=stage_batch: s([b]), device)
    return results


def _step(objective, device: torch.device, autocast, compiled: bool) -> TrainingStep:
    objective.to(device).train()
    settings = TrainingSettings(steps=1, batch_size=1, learning_rate=1e-4)
    return TrainingStep(
        objective,
        adamw_optimizer(objective, settings),
        max_grad_norm=1.0,
        autocast=autocast,
        compiled=compiled,
    )


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="tiny shapes, eager: seconds on a CPU")
    parser.add_argument("--out", type=Path, help="the JSON file (default: benchmarks/results/)")
    parser.add_argument(
        "--text", type=Path, help="abstracts, one a line (default: the shared data)"
    )
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument(
        "--requirements", action="store_true", help="print the packages needed beyond torch"
    )
    args = parser.parse_args(argv)
    if args.requirements:
        print(REQUIREMENTS.read_text(encoding="utf-8"), end="")
        return {}
    plan = SMOKE if args.smoke else FULL
    text = args.text or (SMOKE_TEXT if args.smoke else pretraining_speed.DEFAULT_TEXT)
    if not text.is_file():
        parser.error(f"--text {text} not found: pass a file with one abstract a line")
    out = args.out or HERE / "results" / (
        f"gpu-suite-{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}.json"
    )
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    seconds = {}
    command = sys.argv[1:] if argv is None else argv
    report = {
        "command": " ".join(["python benchmarks/gpu_suite.py", *command]),
        "device": pretraining_speed.device_name(args.threads),
        "versions": versions(),
        "smoke": args.smoke,
        "plan": plan,
    }
    with tempfile.TemporaryDirectory(prefix="gpu-suite-") as folder:
        for name, part in (
            ("pretraining", lambda: pretraining(plan, text, args.threads)),
            ("distillation", lambda: distillation(plan)),
            ("profiles", lambda: profiles(plan, text, Path(folder))),
        ):
            part_started = time.perf_counter()
            report[name] = part()
            seconds[name] = time.perf_counter() - part_started
            print(f"{name}: {seconds[name]:.0f} s", flush=True)
    seconds["total"] = time.perf_counter() - started
    report["seconds"] = seconds
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    for shape in report["pretraining"]:
        runs = shape["runs"]["default"]
        ours = statistics.median(run["biocompact"]["tokens_per_second"] for run in runs)
        speed_up = shape["speed_up"]["default"]
        print(
            f"pretraining {shape['preset']} x {shape['seq_length']}: biocompact {ours:,.0f} real "
            f"tokens/s, {speed_up['median']:.2f}x run_mlm's default route "
            f"({speed_up['low']:.2f}-{speed_up['high']:.2f}x)"
        )
    print(
        f"distillation (distilbert): {report['distillation']['speedup']:.2f}x the straightforward losses"
    )
    for stage, figures in report["profiles"].items():
        print(
            f"\n{stage}: one step, {figures['wall_ms']:.1f} ms; host syncs {figures['host_syncs']}"
        )
        print(figures["table"])
    print(f"written: {out} ({seconds['total']:.0f} s)")
    return report


if __name__ == "__main__":
    main()
