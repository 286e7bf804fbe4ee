"""Stopping a local run as docs/running-stages.md says: SIGINT to Snakemake's process alone
(`kill -INT PID`) stops its running jobs within seconds and leaves no half-written output
(biocompact.workflow.interrupts); a job that gets SIGINT twice (Ctrl-C: from the terminal, then
passed on by Snakemake) still cleans up."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest
import yaml
from snakemake_runs import LOCAL_PROFILE, OFFLINE_ENV, SNAKEMAKE

from biocompact.workflow.runlog import job_logging


@pytest.fixture
def interrupts_stop_this_process():
    """SIGINT with Python's own handler during the test (a test run started in the background
    by a script inherits it ignored), put back afterwards."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_job_stops_at_the_first_sigint_and_cleans_up_through_a_second(
    tmp_path, interrupts_stop_this_process
):
    job = SimpleNamespace(log=[str(tmp_path / "job.log")], rule="finetune")
    cleaned = False
    with pytest.raises(KeyboardInterrupt), job_logging(job):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # not reached: the signal stops the job
        finally:
            os.kill(os.getpid(), signal.SIGINT)  # the second one: ignored
            cleaned = True
    assert cleaned
    assert "finetune failed" in (tmp_path / "job.log").read_text(encoding="utf-8")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # outside the job


# A process that passes SIGINT on (as the workflow makes Snakemake do), running a shell that
# runs `sleep`: its grandchild, which only a signal passed on to every descendant stops.
PASSING_ON = """
import subprocess
from biocompact.workflow.interrupts import pass_interrupts_to_jobs
pass_interrupts_to_jobs()
subprocess.call(["sh", "-c", "sleep 300; echo"])
"""


def test_sigint_is_passed_on_to_the_processes_of_the_processes_started(tmp_path):
    parent = subprocess.Popen(
        [sys.executable, "-c", PASSING_ON],
        stderr=(tmp_path / "stderr").open("w"),  # not a pipe, which the sleep would hold open
        preexec_fn=_default_sigint,
        start_new_session=True,
    )
    try:
        started = time.monotonic()
        while not (sleeps := _sleeps(parent.pid)):
            assert time.monotonic() - started < 60, "sleep never started"
            time.sleep(0.1)
        os.kill(parent.pid, signal.SIGINT)
        assert parent.wait(timeout=30) != 0
        _, alive = psutil.wait_procs(sleeps, timeout=10)
        assert not alive
        assert "KeyboardInterrupt" in (tmp_path / "stderr").read_text()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(parent.pid, signal.SIGKILL)


def _sleeps(pid: int) -> list[psutil.Process]:
    return [p for p in psutil.Process(pid).children(recursive=True) if p.name() == "sleep"]


SOURCES = ("notes-a", "notes-b")
SHARDS = Path("results/corpus/sentences/text")
DOCUMENT = "Aspirin lowers the risk of stroke. It was given daily to 20 patients.\n"


def _feed(fifo: Path, opened: threading.Event, stop: threading.Event) -> None:
    """Write a document into ``fifo`` every 0.2 s until ``stop`` or until its reader is gone:
    a corpus job reading it runs for as long as the test lets it."""
    try:
        with open(fifo, "w", encoding="utf-8") as pipe:  # returns once the job opens it
            opened.set()
            while not stop.wait(0.2):
                pipe.write(DOCUMENT)
                pipe.flush()
    except BrokenPipeError:
        pass


def test_sigint_to_snakemake_stops_its_running_jobs_within_seconds(tmp_path):
    """Two local text sources, each a named pipe that the test keeps writing to: their two
    corpus_split_text jobs would run for as long as it does. `kill -INT` of Snakemake's process
    alone: Snakemake and both jobs are gone within seconds (before, Snakemake waited for the
    jobs, which ran on), each job's log holds its KeyboardInterrupt, neither its output nor the
    half-written temporary copy of it is left, and the lock is released."""
    sources = {name: {"files": [f"{name}.txt"]} for name in SOURCES}
    (tmp_path / "study.yaml").write_text(yaml.safe_dump({"corpus": {"text": {"sources": sources}}}))
    for name in SOURCES:
        os.mkfifo(tmp_path / f"{name}.txt")
    snakemake = subprocess.Popen(
        [*SNAKEMAKE, "--directory", str(tmp_path), "--configfile", str(tmp_path / "study.yaml")]
        + ["--profile", LOCAL_PROFILE, "--cores", "2"]
        + [str(SHARDS / f"{name}.txt.gz") for name in SOURCES],
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "snakemake.err").open("w"),
        env=OFFLINE_ENV,
        preexec_fn=_default_sigint,  # as in a terminal, where SIGINT is not ignored
        start_new_session=True,  # its own process group, killed whole after the test
    )
    stop = threading.Event()
    opened = [threading.Event() for _ in SOURCES]
    for name, event in zip(SOURCES, opened):
        threading.Thread(
            target=_feed, args=(tmp_path / f"{name}.txt", event, stop), daemon=True
        ).start()
    try:
        for event in opened:
            assert event.wait(120), "a corpus job never started reading"
        time.sleep(1)  # the jobs at work, each writing its shard's temporary copy
        assert len(list((tmp_path / SHARDS).glob(".*.txt.gz.tmp-*"))) == 2
        jobs = psutil.Process(snakemake.pid).children(recursive=True)
        os.kill(snakemake.pid, signal.SIGINT)
        assert snakemake.wait(timeout=30) != 0
        _, alive = psutil.wait_procs(jobs, timeout=5)
        assert not alive
    finally:
        stop.set()
        with contextlib.suppress(ProcessLookupError):  # no process of the run left
            os.killpg(snakemake.pid, signal.SIGKILL)
    for name in SOURCES:
        log = tmp_path / f"results/logs/corpus/split_text/{name}.log"
        assert "KeyboardInterrupt" in log.read_text(encoding="utf-8")
    assert not [path for path in (tmp_path / "results/corpus").rglob("*") if path.is_file()]
    assert not list((tmp_path / ".snakemake/locks").glob("*"))
