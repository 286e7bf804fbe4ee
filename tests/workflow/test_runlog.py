"""Job logging: a job's own messages reach its log and the console; the libraries' routine
warnings (transformers' LOAD REPORT of a new head) its log only; a retried job's log keeps
every attempt, a killed one too, under its own header."""

from __future__ import annotations

import logging
import subprocess
import sys
from types import SimpleNamespace

import pytest
from transformers import BertConfig, BertForMaskedLM, BertForTokenClassification

from biocompact.workflow.runlog import LIBRARY_LOGGERS, attempts_file, job_logging, named_files


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


def _headers(text: str) -> list[str]:
    return [line.split(":")[0] for line in text.splitlines() if line.startswith("=====")]


def test_each_attempt_is_kept_under_its_header_until_one_succeeds(tmp_path, restored_loggers):
    log_path = tmp_path / "logs" / "job.log"
    job = SimpleNamespace(log=[str(log_path)], rule="tokenize_corpus")
    with pytest.raises(RuntimeError), job_logging(job) as log:
        log.info("first try")
        raise RuntimeError("out of disk")
    log_path.unlink()  # what Snakemake does before it runs the job again
    with job_logging(job) as log:
        log.info("second try")
    text = log_path.read_text(encoding="utf-8")
    assert _headers(text) == ["===== attempt 1", "===== attempt 2"]
    assert text.index("first try") < text.index("out of disk") < text.index("second try")
    assert not attempts_file(log_path).exists()  # it succeeded: a later run starts afresh
    log_path.unlink()
    with job_logging(job) as log:
        log.info("a later run")
    assert _headers(log_path.read_text(encoding="utf-8")) == ["===== attempt 1"]


RETRIED_RULE = """
rule flaky:
    output: "done.txt"
    log: "logs/flaky.log"
    retries: 1
    script: "flaky.py"
"""
# The first attempt is killed by SIGKILL, which no handler of the job sees; the second one
# succeeds.
FLAKY_SCRIPT = """
import os, signal
from pathlib import Path
from biocompact.workflow.runlog import job_logging

with job_logging(snakemake) as log:
    if not Path("tried").exists():
        Path("tried").touch()
        log.info("first attempt, killed")
        os.kill(os.getpid(), signal.SIGKILL)
    log.info("second attempt")
    Path(snakemake.output[0]).write_text("ok")
"""


def test_snakemake_retry_of_a_killed_job_keeps_both_attempts_in_its_log(tmp_path):
    (tmp_path / "Snakefile").write_text(RETRIED_RULE)
    (tmp_path / "flaky.py").write_text(FLAKY_SCRIPT)
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Trying to restart job" in result.stdout + result.stderr
    text = (tmp_path / "logs" / "flaky.log").read_text(encoding="utf-8")
    assert _headers(text) == ["===== attempt 1", "===== attempt 2"]
    assert text.index("first attempt, killed") < text.index("second attempt")
    assert not attempts_file(tmp_path / "logs" / "flaky.log").exists()
