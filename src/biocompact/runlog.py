"""Logging for workflow scripts: everything a job says goes to its Snakemake log."""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def job_logging(smk: Any) -> Iterator[logging.Logger]:
    """Send ``logging`` output (and any uncaught error) to the job's first log file.

    Usage in a rule script::

        with job_logging(snakemake) as log:
            log.info("...")

    An exception is written to the log with its traceback and re-raised, so the job
    fails with the error in its log and on the console.
    """
    log_path = smk.log[0] if len(smk.log) else None
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    logger = logging.getLogger(f"biocompact.{smk.rule}")
    try:
        yield logger
    except BaseException as error:
        logger.error("%s failed: %s\n%s", smk.rule, error, traceback.format_exc())
        raise
