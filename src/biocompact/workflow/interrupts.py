"""Stopping a local run with SIGINT: ``kill -INT PID`` of Snakemake stops its jobs, as Ctrl-C
does.

Snakemake's local executor (9.x) meets SIGINT (a KeyboardInterrupt in its scheduler) by
shutting down the thread pool that runs its jobs and waiting for them, and never signals the
jobs' processes. Ctrl-C in a terminal stops them anyway, because the terminal signals every
process of the foreground process group; ``kill -INT PID`` reached Snakemake alone, and its
jobs ran on to their end. ``pass_interrupts_to_jobs`` (called by
``workflow/rules/common.smk``) passes the signal on to every process that Snakemake started;
``stop_at_first_interrupt`` (around every job's work, in ``runlog.job_logging``) keeps a job
that gets SIGINT twice (from the terminal, then from Snakemake) from cutting its own clean-up
short.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

import psutil


def _interrupts_stop_this_process() -> bool:
    """Whether SIGINT raises KeyboardInterrupt here (Python's own handler): not where it is
    ignored, as in a program that a shell script starts in the background."""
    return signal.getsignal(signal.SIGINT) is signal.default_int_handler


def pass_interrupts_to_jobs() -> None:
    """Make SIGINT to this process (Snakemake) reach every process it started, its jobs and
    theirs, before its own KeyboardInterrupt; where SIGINT is ignored, leave it ignored."""
    if not _interrupts_stop_this_process():
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        for process in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGINT)
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, interrupt)


@contextlib.contextmanager
def stop_at_first_interrupt() -> Iterator[None]:
    """Within the block, the first SIGINT to this process (a job) raises KeyboardInterrupt
    and later ones are ignored, so that what the job does on its way out (an atomic output's
    temporary copy deleted, the error logged) runs whole; where SIGINT is ignored, it stays
    ignored."""
    if not _interrupts_stop_this_process():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
