"""The language-model rules' job: settings from a rule's params, the spec each stage launches
(rules pretrain and distill: ``biocompact.pretraining.rules``, ``biocompact.distillation.rules``)."""

from __future__ import annotations

from typing import Any

import pytest

from biocompact.distillation.rules import distill
from biocompact.pretraining.rules import pretrain
from biocompact.training import language_model_job
from biocompact.training.language_model_job import DistillationJob, PretrainingJob

PARAMS = {
    "checkpoint_dir": "results/checkpoints/pretraining/m",
    "settings": {"steps": 3},
    "masking": {"probability": 0.15},
    "probes": [],
    "teacher": "results/pretraining/t/model",
}
CONFIG = {
    "tracking": {"backends": []},
    "model_cards": {"license": "mit"},
    "pretraining": {"m": {"init": "scratch"}},
    "distillation": {"s": {"teacher": "m", "student_init": "teacher_layers"}},
    "external_models": {},
}
FILES = {"model": "m/model", "log": "m/train_log.jsonl", "eval": "m/eval.json"}


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict, int, int]]:
    """The launches and cards of a job, neither run."""
    calls: list[Any] = []
    monkeypatch.setattr(
        language_model_job,
        "launch",
        lambda module, spec, gpus, nodes: calls.append((module, spec, gpus, nodes)),
    )
    monkeypatch.setattr(
        language_model_job, "write_language_model_card", lambda *args, **kwargs: None
    )
    return calls


def test_job_settings_come_from_params_name_and_config() -> None:
    job = PretrainingJob.from_params(PARAMS, "m", CONFIG)
    assert job.name == "m" and job.settings == {"steps": 3}
    assert job.tracking == CONFIG["tracking"] and job.model_cards == CONFIG["model_cards"]
    assert DistillationJob.from_params(PARAMS, "s", CONFIG).teacher == PARAMS["teacher"]
    # text from a checkpoint not built here: its card says that text is unknown
    assert job.external_checkpoints == ()
    continued = {**CONFIG, "pretraining": {"m": {"init": "dmis-lab/biobert-v1.1"}}}
    assert DistillationJob.from_params(PARAMS, "s", continued).external_checkpoints == (
        "dmis-lab/biobert-v1.1",
    )
    # a param the stage needs and its rule lacks stops the job, naming it
    with pytest.raises(KeyError, match="teacher"):
        DistillationJob.from_params(
            {key: value for key, value in PARAMS.items() if key != "teacher"}, "s", CONFIG
        )


def test_each_stage_launches_its_module_with_the_shared_spec(launched: list, tmp_path) -> None:
    # pretraining's sequence length is the corpus's, from its record
    record = tmp_path / "v.json"
    record.write_text('{"max_seq_length": 64, "heldout_fraction": 0.1, "packing": "best_fit"}')
    inputs = {"corpus": "data/v", "corpus_record": str(record), "tokenizer": "vocab/v/tokenizer"}
    pretrain(
        PretrainingJob.from_params(PARAMS, "m", CONFIG),
        inputs=inputs,
        outputs=FILES,
        threads=2,
        gpus=1,
        nodes=1,
    )
    distill(
        DistillationJob.from_params(PARAMS, "s", CONFIG),
        inputs={"corpus": "data/v", "teacher": []},
        outputs=FILES,
        threads=4,
        gpus=2,
        nodes=1,
    )
    (module, spec, gpus, nodes), (student_module, student_spec, *_) = launched
    assert (module, gpus, nodes) == ("biocompact.pretraining.run", 1, 1)
    assert spec == {
        "name": "m",
        "settings": {"steps": 3},
        "dataset_dir": "data/v",
        "tokenizer_dir": "vocab/v/tokenizer",
        "max_seq_length": 64,
        "outputs": FILES,
        "checkpoint_dir": PARAMS["checkpoint_dir"],
        "masking": PARAMS["masking"],
        "probes": [],
        "threads": 2,
        "tracking": CONFIG["tracking"],
    }
    assert student_module == "biocompact.distillation.run"
    assert student_spec["teacher_dir"] == PARAMS["teacher"] and student_spec["threads"] == 4
    assert "tokenizer_dir" not in student_spec
