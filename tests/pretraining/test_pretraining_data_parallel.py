"""Every pretraining objective under torchrun on two CPU processes (gloo), as on two GPUs.

The loop gives each process its own share of every batch (``BatchOrder`` by rank) and its
own masking seed, so the two processes compute different gradients; DDP broadcasts rank
0's initial weights and averages the gradients before each optimizer step. The weights of
the two processes after training are therefore identical, bit for bit, exactly when every
trained parameter's gradient was all-reduced: a module run outside the DDP wrapper (as
ELECTRA's generator would be) drifts apart between ranks, and a parameter left without a
gradient while ``every_parameter_trained`` is set stops DDP at the second step ("Expected
to have finished reduction in the prior iteration"). That every parameter moved shows that
none was left out of training. (One process over the same global batches would not give
the same weights: its masking seeds are rank 0's alone.)
"""

import json
from pathlib import Path

import pytest
import torch
from rank_weights import rank_file
from tiny_models import MINILM, TINY
from torchrun_jobs import run_on_two_processes

from biocompact.entries import parse_entry
from biocompact.pretraining.run import PretrainingSpec
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.training.settings import MaskingSettings
from biocompact.vocab.tokenized_corpus import build_tokenized_corpus

REPO_ROOT = Path(__file__).resolve().parents[2]
MAX_SEQ_LENGTH = 32


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The demo's general passages, four sentences a document, packed with the MiniLM vocabulary
    (the ``document`` columns that next-sentence prediction reads included)."""
    folder = tmp_path_factory.mktemp("corpus")
    lines = (REPO_ROOT / "demo/general/passages.txt").read_text(encoding="utf-8").splitlines()
    documents = ["\n".join(lines[start : start + 4]) for start in range(0, len(lines), 4)]
    (folder / "sentences.txt").write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    build_tokenized_corpus(
        [folder / "sentences.txt"],
        MINILM,
        folder / "data",
        max_seq_length=MAX_SEQ_LENGTH,
        heldout_fraction=0.1,
    )
    return folder / "data"


def _torchrun_pretraining(corpus: Path, out: Path, family: str, objective: str) -> None:
    """Pretrain 2 steps under torchrun on two processes, each keeping its weights (rank_weights)."""
    spec = PretrainingSpec(
        name=out.name,
        settings=parse_entry(
            PretrainingSettings,
            {
                "vocabulary": "minilm",
                "architecture": TINY,
                "family": family,
                "objective": objective,
                "steps": 2,
                "batch_size": 8,
                "learning_rate": 1e-3,
                "log_every": 1,
                "checkpoint_every": 2,
            },
        ),
        dataset_dir=str(corpus),
        tokenizer_dir=str(MINILM),
        outputs={
            "model": str(out / "model"),
            "log": str(out / "train_log.jsonl"),
            "eval": str(out / "eval.json"),
        },
        checkpoint_dir=str(out / "checkpoints"),
        masking=MaskingSettings(),
        max_seq_length=MAX_SEQ_LENGTH,
        probes=(),
        threads=1,
    )
    run_on_two_processes("rank_weights", spec, out / "job.json")


@pytest.mark.parametrize(
    ("family", "objective"),
    [
        # plain MLM for reference (tests/training's torchrun test runs it too)
        pytest.param("bert", "mlm", marks=pytest.mark.slow),
        ("bert", "nsp"),  # the pooler and the NSP head
        ("electra", "electra"),  # the generator, sharing the discriminator's embeddings
        ("albert", "albert"),  # the sentence-order head, tied embeddings and shared layers
    ],
)
def test_every_objective_trains_the_same_weights_on_both_processes(
    corpus, tmp_path, family, objective
):
    out = tmp_path / objective
    _torchrun_pretraining(corpus, out, family, objective)
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert [row["step"] for row in log] == [1, 2]  # written once, by rank 0
    assert (out / "model").is_dir() and json.loads((out / "eval.json").read_text())["steps"] == 2
    first, second = (torch.load(rank_file(out / "checkpoints", rank)) for rank in (0, 1))
    assert first["after"].keys() == second["after"].keys()
    for name, weights in first["after"].items():
        assert torch.equal(weights, second["after"][name]), f"{name} differs between the ranks"
        assert not torch.equal(weights, first["before"][name]), f"{name} was not trained"
