"""Real interruptions: a pretraining job killed with SIGKILL and started again, and torchrun."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from biocompact.entries import parse_entry
from biocompact.pretraining.run import PretrainingSpec, run_pretraining
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.training.launch import torchrun_command
from biocompact.training.settings import MaskingSettings, Probe
from biocompact.vocab.tokenized_corpus import build_tokenized_corpus
from biocompact.vocab.train import train_vocabulary

pytestmark = pytest.mark.usefixtures("one_torch_thread")

GENES = ["BRCA1", "TP53", "EGFR", "KRAS", "MYC", "PTEN", "ALK", "HER2"]
DISEASES = ["breast cancer", "lung adenocarcinoma", "glioma", "melanoma", "leukemia"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict:
    """A small sentence shard, its WordPiece vocabulary and packed corpus."""
    folder = tmp_path_factory.mktemp("corpus")
    documents = []
    for i in range(240):
        gene, disease = GENES[i % len(GENES)], DISEASES[i % len(DISEASES)]
        documents.append(
            "\n".join(
                [
                    f"Mutations of {gene} were found in {i % 37 + 3} patients with {disease}.",
                    f"The expression of {gene} was associated with poor survival in {disease}.",
                    "These findings suggest that it is a potential therapeutic target.",
                ]
            )
        )
    shard = folder / "shard.txt"
    shard.write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    train_vocabulary(
        lambda: [line for line in shard.read_text().splitlines() if line],
        folder / "tokenizer",
        "wordpiece",
        vocab_size=300,
        lowercase=True,
        min_frequency=1,
        limit_alphabet=100,
    )
    build_tokenized_corpus(
        [shard], folder / "tokenizer", folder / "data", max_seq_length=48, heldout_fraction=0.1
    )
    return {"dataset_dir": str(folder / "data"), "tokenizer_dir": str(folder / "tokenizer")}


def _spec(corpus: dict, folder: Path, steps: int, objective: str | None = None) -> PretrainingSpec:
    """A job as the pretrain rule starts it: paths, and the config entry parsed as
    ``settings``."""
    return PretrainingSpec(
        **corpus,
        name="tiny",
        settings=parse_entry(
            PretrainingSettings,
            {
                "vocabulary": "v",
                "architecture": {
                    "num_hidden_layers": 2,
                    "hidden_size": 32,
                    "num_attention_heads": 2,
                    "intermediate_size": 64,
                },
                "init": "scratch",
                "objective": objective,
                "steps": steps,
                "batch_size": 8,
                "learning_rate": 2e-3,
                "warmup_steps": 3,
                "log_every": 5,
                "checkpoint_every": 5,
                "seed": 3,
            },
        ),
        outputs={
            "model": str(folder / "model"),
            "log": str(folder / "train_log.jsonl"),
            "eval": str(folder / "eval.json"),
        },
        checkpoint_dir=str(folder / "checkpoints"),
        masking=MaskingSettings(),
        max_seq_length=48,
        probes=(Probe("Mutations of [MASK] were found.", "brca1"),),
        threads=1,
    )


def _job(spec: PretrainingSpec, folder: Path) -> list[str]:
    path = folder / "job.json"
    spec.write(path)
    return [sys.executable, "-m", "biocompact.pretraining.run", str(path)]


def _env() -> dict:
    return {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "CUDA_VISIBLE_DEVICES": "",
        "TOKENIZERS_PARALLELISM": "false",
    }


@pytest.mark.parametrize("objective", [None, "nsp"])  # nsp: random next sentences drawn again alike
def test_a_job_killed_with_sigkill_resumes_to_the_same_weights(corpus, tmp_path, objective):
    steps = 40
    straight = _spec(corpus, tmp_path / "straight", steps, objective)
    run_pretraining(straight)

    killed = _spec(corpus, tmp_path / "killed", steps, objective)
    checkpoints = Path(killed.checkpoint_dir)
    process = subprocess.Popen(_job(killed, tmp_path), env=_env(), stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (checkpoints / "step-000000010").exists():
        assert process.poll() is None and time.monotonic() < deadline, (
            "the job ended before its first checkpoints"
        )
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL
    assert not Path(killed.outputs["model"]).exists(), "a killed job must not leave a model folder"

    evaluation = run_pretraining(killed)  # started again: resumes from the newest checkpoint

    weights = load_file(Path(straight.outputs["model"]) / "model.safetensors")
    resumed = load_file(Path(killed.outputs["model"]) / "model.safetensors")
    assert weights.keys() == resumed.keys()
    for name, tensor in weights.items():
        assert torch.equal(tensor, resumed[name]), name
    log = [json.loads(line) for line in Path(killed.outputs["log"]).read_text().splitlines()]
    assert [record["step"] for record in log] == list(range(5, steps + 1, 5))
    assert (
        evaluation["train_tokens"]
        == json.loads(Path(straight.outputs["eval"]).read_text())["train_tokens"]
    )


def test_data_parallel_under_torchrun_on_two_cpu_processes(corpus, tmp_path):
    spec = _spec(corpus, tmp_path, steps=4)
    spec_path = tmp_path / "job.json"
    spec.write(spec_path)
    command = torchrun_command("biocompact.pretraining.run", spec_path, processes=2)
    result = subprocess.run(command, env=_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    log = [json.loads(line) for line in Path(spec.outputs["log"]).read_text().splitlines()]
    assert [record["step"] for record in log] == [4]  # written once, by rank 0
    evaluation = json.loads(Path(spec.outputs["eval"]).read_text())
    assert evaluation["steps"] == 4 and evaluation["train_tokens"] == log[0]["tokens"] > 0
