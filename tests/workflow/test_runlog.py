"""Job logging: a job's own messages reach its log and the console; the libraries' routine
warnings (transformers' LOAD REPORT of a new head) its log only."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from transformers import BertConfig, BertForMaskedLM, BertForTokenClassification

from biocompact.runlog import LIBRARY_LOGGERS, job_logging, named_files


@pytest.fixture
def restored_loggers():
    """Put the root and library loggers back as they were after the test."""
    names = ("", *LIBRARY_LOGGERS)
    saved = {
        name: (logging.getLogger(name).handlers[:], logging.getLogger(name).propagate)
        for name in names
    }
    yield
    for name, (handlers, propagate) in saved.items():
        logger = logging.getLogger(name)
        for handler in logger.handlers[:]:
            logger.removeHandler(handler)
            if handler not in handlers:
                handler.close()
        for handler in handlers:
            logger.addHandler(handler)
        logger.propagate = propagate


def test_load_report_goes_to_the_job_log_not_the_console(tmp_path, capfd, restored_loggers):
    config = BertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
    )
    BertForMaskedLM(config).save_pretrained(tmp_path / "mlm")
    job = SimpleNamespace(log=[str(tmp_path / "job.log")], rule="finetune")
    with job_logging(job) as log:
        log.info("fine-tuning starts")
        BertForTokenClassification.from_pretrained(tmp_path / "mlm", num_labels=3)
    console = capfd.readouterr().err
    text = (tmp_path / "job.log").read_text(encoding="utf-8")
    assert "fine-tuning starts" in console and "fine-tuning starts" in text
    assert "LOAD REPORT" in text and "classifier.weight" in text
    assert "LOAD REPORT" not in console


def test_named_files_gives_each_named_file_or_list_and_drops_unnamed_ones():
    from snakemake.iocontainers import Namedlist

    files = Namedlist(["model", "train.tsv", "dev.tsv", "unnamed.txt"])
    files._set_name("model", 0)
    files._set_name("data", 1, 3)
    assert named_files(files) == {"model": "model", "data": ["train.tsv", "dev.tsv"]}
