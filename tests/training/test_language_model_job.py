"""The language-model rules' job: settings from a rule's params, the spec each stage launches
(rules pretrain and distill: ``biocompact.pretraining.rules``, ``biocompact.distillation.rules``)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from biocompact.distillation.rules import distill
from biocompact.distillation.run import DistillationSpec, run_distillation
from biocompact.distillation.settings import DistillationSettings
from biocompact.entries import parse_entry
from biocompact.pretraining.rules import pretrain
from biocompact.pretraining.run import PretrainingSpec, run_pretraining
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.release.settings import CardSettings
from biocompact.tracking.trackers import TrackingSettings
from biocompact.training import language_model_job
from biocompact.training.language_model_job import DistillationJob, PretrainingJob
from biocompact.training.launch import JobSpec
from biocompact.training.settings import MaskingSettings, Probe
from biocompact.workflow.config_sections import parse_config

TRAINING = {"steps": 3, "batch_size": 8, "learning_rate": 1e-3}
PARAMS = {
    "checkpoint_dir": "results/checkpoints/pretraining/m",
    "settings": {"vocabulary": "v", **TRAINING},
    "masking": {"probability": 0.2},
    "probes": [{"text": "[MASK] binds DNA.", "answer": "p53"}],
}
TEACHER = "results/pretraining/t/model"
STUDENT_PARAMS = {
    **PARAMS,
    "settings": {"teacher": "m", "student_layers": [0], **TRAINING},
    "teacher": TEACHER,
}
CONFIG_ENTRIES = {
    "tracking": {"backends": ["tensorboard"], "project": "p", "mlflow_uri": "m.db"},
    "model_cards": {"license": "mit"},
    "pretraining": {"m": {"vocabulary": "v", **TRAINING}},
    "distillation": {"s": {"teacher": "m", **TRAINING}},
}
CONFIG = parse_config(CONFIG_ENTRIES)
FILES = {"model": "m/model", "log": "m/train_log.jsonl", "eval": "m/eval.json"}
PROBES = (Probe("[MASK] binds DNA.", "p53"),)  # PARAMS's, parsed


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, JobSpec, int, int]]:
    """The launches and cards of a job, neither run."""
    calls: list[Any] = []
    monkeypatch.setattr(
        language_model_job,
        "launch",
        lambda job, spec, gpus, nodes: calls.append((job, spec, gpus, nodes)),
    )
    monkeypatch.setattr(
        language_model_job, "write_language_model_card", lambda *args, **kwargs: None
    )
    return calls


def test_job_settings_come_from_params_name_and_config() -> None:
    job = PretrainingJob.from_params(PARAMS, "m", CONFIG)
    assert job.name == "m" and job.settings == PARAMS["settings"] and job.probes == PROBES
    assert job.masking == MaskingSettings(probability=0.2)
    assert job.tracking == parse_entry(TrackingSettings, CONFIG_ENTRIES["tracking"])
    assert job.model_cards == CardSettings(license="mit")
    assert DistillationJob.from_params(STUDENT_PARAMS, "s", CONFIG).teacher == TEACHER
    # text from a checkpoint not built here: its card says that text is unknown
    assert job.external_checkpoints == ()
    continued = parse_config(
        {
            **CONFIG_ENTRIES,
            "pretraining": {"m": {"vocabulary": "v", "init": "dmis-lab/biobert-v1.1", **TRAINING}},
        }
    )
    assert DistillationJob.from_params(STUDENT_PARAMS, "s", continued).external_checkpoints == (
        "dmis-lab/biobert-v1.1",
    )
    # a param the stage needs and its rule lacks, or one it does not read, stops the job
    with pytest.raises(ValueError, match=r"^rule distill: teacher is missing"):
        DistillationJob.from_params(PARAMS, "s", CONFIG)
    with pytest.raises(ValueError, match=r"^rule pretrain: unknown setting 'teacher'"):
        PretrainingJob.from_params(STUDENT_PARAMS, "m", CONFIG)


def test_each_stage_launches_its_job_with_the_shared_spec(launched: list, tmp_path) -> None:
    # pretraining's sequence length is the corpus's, from its record
    record = tmp_path / "v.json"
    record.write_text(
        '{"max_seq_length": 64, "heldout_fraction": 0.1, "packing": "best_fit", '
        '"sequences": {"train": 9, "validation": 1}}'
    )
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
        DistillationJob.from_params(STUDENT_PARAMS, "s", CONFIG),
        inputs={"corpus": "data/v", "teacher": []},
        outputs=FILES,
        threads=4,
        gpus=2,
        nodes=1,
    )
    (job, spec, gpus, nodes), (student_job, student_spec, *_) = launched
    assert (job, gpus, nodes) == (run_pretraining, 1, 1)
    shared = {
        "dataset_dir": "data/v",
        "outputs": FILES,
        "checkpoint_dir": PARAMS["checkpoint_dir"],
        "masking": MaskingSettings(probability=0.2),
        "probes": PROBES,
        "tracking": TrackingSettings(("tensorboard",), "p", "m.db"),
    }
    assert spec == PretrainingSpec(
        name="m",
        settings=parse_entry(PretrainingSettings, PARAMS["settings"]),
        tokenizer_dir="vocab/v/tokenizer",
        max_seq_length=64,
        threads=2,
        **shared,
    )
    assert student_job == run_distillation
    assert student_spec == DistillationSpec(
        name="s",
        settings=parse_entry(DistillationSettings, STUDENT_PARAMS["settings"]),
        teacher_dir=TEACHER,
        threads=4,
        **shared,
    )


def test_a_spec_reads_back_from_its_json_file_as_the_same_spec(tmp_path) -> None:
    """Every field set (none at its default), nested settings included: what a torchrun
    process reads is the spec its rule launched, every value of the type it had (a whole
    number in a float field stays an int, a bool of ``bool | str`` a bool), so that its
    records are written alike."""
    shared = {
        "dataset_dir": "data/v",
        "outputs": FILES,
        "checkpoint_dir": str(tmp_path),
        "masking": MaskingSettings(0.2, 0.7, 0.2, False, 3),
        "probes": PROBES,
        "threads": 3,
        "tracking": TrackingSettings(("tensorboard", "mlflow"), "p", "sqlite:///m.db"),
    }
    pretraining = PretrainingSpec(
        name="m",
        settings=parse_entry(
            PretrainingSettings,
            {
                "vocabulary": "v",
                "architecture": {"preset": "demo-4L-256", "hidden_dropout_prob": 0.2},
                "init": "scratch",
                "family": "electra",
                "objective": "electra",
                "electra": {"generator_fraction": 0.5, "discriminator_weight": 40.0},
                **TRAINING,
                "max_grad_norm": 2,
                "peak_tflops": 90.5,
                "compile": False,
            },
        ),
        tokenizer_dir="vocab/v/tokenizer",
        max_seq_length=64,
        **shared,
    )
    distillation = DistillationSpec(
        name="s",
        settings=parse_entry(
            DistillationSettings,
            {
                "teacher": "m",
                "method": "tinybert",
                "student_init": "random",
                "student_architecture": {"num_hidden_layers": 2},
                "alpha": {"layer": [1.0, 2.0]},
                "temperature": 3,
                "layer_map": [1, 3],
                **TRAINING,
            },
        ),
        teacher_dir="results/pretraining/m/model",
        **shared,
    )
    for spec in (pretraining, distillation):
        path = tmp_path / f"{spec.name}.json"
        spec.write(path)
        read = type(spec).read(path)
        assert read == spec
        assert json.dumps(read.to_json()) == json.dumps(spec.to_json())


def test_a_malformed_spec_file_is_an_error_naming_the_file_and_the_field(tmp_path) -> None:
    """A spec file edited by hand stops the job before it trains, naming the file and the
    field."""
    spec = PretrainingSpec(
        name="m",
        settings=parse_entry(PretrainingSettings, PARAMS["settings"]),
        tokenizer_dir="vocab/v/tokenizer",
        max_seq_length=64,
        dataset_dir="data/v",
        outputs=FILES,
        checkpoint_dir=str(tmp_path),
        masking=MaskingSettings(),
        probes=PROBES,
        threads=1,
    )
    path = tmp_path / "job.json"
    spec.write(path)
    written = path.read_text(encoding="utf-8")
    path.write_text(written.replace('"steps": 3', '"steps": "three"'), encoding="utf-8")
    where = re.escape(f"{path}: not a PretrainingSpec")
    with pytest.raises(ValueError, match=rf"(?s){where}.*settings\.steps"):
        PretrainingSpec.read(path)
    path.write_text(written.replace('"answer": "p53"', '"answer": null'), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"(?s){where}.*probes\.0\.answer"):
        PretrainingSpec.read(path)
