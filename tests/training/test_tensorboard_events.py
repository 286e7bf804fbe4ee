"""TensorBoard event files: the framing and encoding against hand-computed bytes, and the
curves of pretraining and fine-tuning holding the values of their logs."""

from __future__ import annotations

import json
import struct

import pytest
from tiny_models import tiny_ner_task

import biocompact.finetuning.train as finetuning_train
from biocompact.entries import parse_entry
from biocompact.records.base import record_data
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.tracking.tensorboard_events import (
    ScalarWriter,
    _varint,
    crc32c,
    encode_event,
    read_scalars,
    tfrecord,
)


def test_crc32c_of_the_standard_check_string():
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(b"") == 0


def test_varint_and_event_encoding_by_hand():
    assert _varint(1) == b"\x01" and _varint(300) == b"\xac\x02"
    value = b"\x0a\x01a" + b"\x15" + struct.pack("<f", 0.5)  # tag "a", simple_value 0.5
    summary = b"\x0a\x08" + value
    expected = b"\x09" + struct.pack("<d", 1.0) + b"\x10\x03" + b"\x2a\x0a" + summary
    assert encode_event(1.0, 3, {"a": 0.5}) == expected


def test_record_framing_is_length_crcs_and_data():
    record = tfrecord(b"xyz")
    assert record[:8] == struct.pack("<Q", 3) and record[12:15] == b"xyz"
    assert len(record) == 8 + 4 + 3 + 4


def test_written_scalars_read_back_and_corruption_is_named(tmp_path):
    writer = ScalarWriter(tmp_path)
    writer.add(10, {"train/loss": 2.5, "train/lr": 1e-3})
    writer.add(20, {"train/loss": 2.0})
    assert "tfevents" in writer.path.name
    assert read_scalars(writer.path) == [
        (10, "train/loss", 2.5),
        (10, "train/lr", pytest.approx(1e-3)),
        (20, "train/loss", 2.0),
    ]
    data = bytearray(writer.path.read_bytes())
    data[-6] ^= 0xFF
    writer.path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="corrupt record"):
        read_scalars(writer.path)


def test_pretraining_curves_hold_the_values_of_train_log(pretrained):
    log = [json.loads(line) for line in (pretrained / "log.jsonl").read_text().splitlines()]
    [events] = (pretrained / "checkpoints/tensorboard").glob("*tfevents*")
    curves = {(step, tag): value for step, tag, value in read_scalars(events)}
    assert len(log) == 2
    for record in log:
        for key, value in record.items():
            if key != "step":
                assert curves[(record["step"], f"train/{key}")] == pytest.approx(value, rel=1e-6)
    assert len(curves) == sum(len(record) - 1 for record in log)


def test_fine_tuning_curves_hold_the_dev_scores(pretrained, tmp_path, repo_root):
    """The run's one event file per grid point; the curves of an earlier run there (of
    another grid point, and of this one) are deleted when the run starts."""
    task = tiny_ner_task(repo_root, tmp_path / "ner")
    task["hyperparameters"]["epochs"] = 2
    for point in ("lr0.01-batch16-epochs2", "lr0.001-batch16-epochs2"):
        (tmp_path / "tensorboard" / point).mkdir(parents=True)
        (tmp_path / "tensorboard" / point / "events.out.tfevents.1.earlier").write_bytes(b"")
    record = record_data(
        finetuning_train.finetune(
            finetuning_train.FinetuneRun(
                str(pretrained / "model"), parse_entry(FinetuningTask, task), 1
            ),
            outputs={
                "metrics": str(tmp_path / "metrics.json"),
                "predictions": str(tmp_path / "p.tsv"),
            },
        )
    )
    assert [path.name for path in (tmp_path / "tensorboard").iterdir()] == [
        "lr0.001-batch16-epochs2"
    ]
    [events] = (tmp_path / "tensorboard/lr0.001-batch16-epochs2").glob("*tfevents*")
    scalars = read_scalars(events)
    dev_f1 = [value for _, tag, value in scalars if tag == "dev/f1"]
    assert len(dev_f1) == 2  # one dev evaluation per epoch
    assert max(dev_f1) == pytest.approx(record["dev_metrics"]["f1"], abs=1e-6)
    assert any(tag == "train/loss" for _, tag, _ in scalars)
