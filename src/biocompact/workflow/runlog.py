"""What every rule script shares: logging (everything a job says goes to its Snakemake
log, every attempt of a retried job kept under its own header) and its named files.

The convention of a rule script (``scripts/*.py``): build the stage's settings from
``snakemake.params``, then call the stage's one function by keyword::

    with job_logging(snakemake):
        run_stage(
            parse_entry(StageSettings, named_files(snakemake.params), "rule RULE"),
            inputs=named_files(snakemake.input),
            outputs=named_files(snakemake.output),
            threads=snakemake.threads,
        )
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import time
import traceback
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from biocompact.workflow.interrupts import stop_at_first_interrupt

# Libraries whose warnings are routine in a job (transformers' LOAD REPORT of a new
# classifier head, "MISSING classifier.weight", is expected when fine-tuning starts) and
# look like failures on the console: they go to the job's log only.
LIBRARY_LOGGERS = ("transformers", "datasets", "huggingface_hub")
ATTEMPT_HEADER = "===== attempt"


def _library_logs_to(handler: logging.Handler) -> None:
    """Send the library loggers' records to ``handler`` alone (not to the console). A
    library already imported is configured first, so that it does not add its own console
    handler later (transformers adds one on first use)."""
    if "transformers" in sys.modules:
        sys.modules["transformers"].utils.logging.get_logger()  # its one-time set-up
    for name in LIBRARY_LOGGERS:
        library = logging.getLogger(name)
        for previous in list(library.handlers):
            library.removeHandler(previous)
        library.addHandler(handler)
        library.propagate = False


def attempts_file(log_path: str | os.PathLike) -> Path:
    """The hidden file beside a job's log that holds its attempts until one succeeds."""
    log_path = Path(log_path)
    return log_path.with_name(f".{log_path.name}.attempts")


def _start_attempt(log_path: Path) -> Path:
    """Make ``log_path`` the job's attempts file (a hard link to it) and write this
    attempt's header; return the attempts file.

    Snakemake deletes a job's log before every attempt (a retry, a resubmitted Slurm job)
    and a job killed by a signal cannot save it, so the attempts live in a file Snakemake
    does not know, which the log names too: deleting the log leaves the earlier attempts
    in it. The attempt that succeeds removes that file, so a later run starts afresh.
    """
    attempts = attempts_file(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    attempts.touch()
    with open(attempts, encoding="utf-8", errors="replace") as previous:
        number = 1 + sum(line.startswith(ATTEMPT_HEADER) for line in previous)
    log_path.unlink(missing_ok=True)
    os.link(attempts, log_path)
    slurm_job = os.environ.get("SLURM_JOB_ID")
    where = socket.gethostname() + (f", Slurm job {slurm_job}" if slurm_job else "")
    with open(log_path, "a", encoding="utf-8") as log:
        log.write(
            f"{ATTEMPT_HEADER} {number}: {time.strftime('%Y-%m-%d %H:%M:%S')} on {where}, "
            f"pid {os.getpid()} =====\n"
        )
    return attempts


@contextlib.contextmanager
def job_logging(smk: Any) -> Iterator[logging.Logger]:
    """Send ``logging`` output (and any uncaught error) to the job's first log file (and
    the console; the library loggers of ``LIBRARY_LOGGERS`` to the log file only).

    Usage in a rule script::

        with job_logging(snakemake) as log:
            log.info("...")

    An exception is written to the log with its traceback and re-raised, so the job
    fails with the error in its log and on the console; the first SIGINT stops the job
    and later ones are ignored while it cleans up (``interrupts.stop_at_first_interrupt``).
    Each attempt of the job starts with a header line (``===== attempt N: time on host,
    pid P =====``, the Slurm job too); the log keeps every attempt since the job last
    succeeded, a killed one included.
    """
    log_path = Path(smk.log[0]) if len(smk.log) else None
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    attempts = None
    if log_path:
        attempts = _start_attempt(log_path)
        handlers.append(logging.FileHandler(log_path, mode="a", encoding="utf-8"))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    if log_path:
        _library_logs_to(handlers[-1])
    logger = logging.getLogger(f"biocompact.{smk.rule}")
    with stop_at_first_interrupt():
        try:
            yield logger
        except BaseException as error:
            logger.error("%s failed: %s\n%s", smk.rule, error, traceback.format_exc())
            raise
    if attempts is not None:
        attempts.unlink()


def named_files(files: Any) -> dict[str, Any]:
    """A rule's named entries (``snakemake.input``, ``snakemake.output``, ``snakemake.params``)
    as a plain dict: name -> value (a path, a list of paths, a param). Unnamed ones are left out."""
    items: Iterable[tuple[str, Any]] = files.items()
    return dict(items)
