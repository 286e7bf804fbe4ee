"""What every rule script shares: logging (everything a job says goes to its Snakemake
log) and its named files.

The convention of a rule script (``scripts/*.py``): build the stage's settings from
``snakemake.params``, then call the stage's one function by keyword::

    with job_logging(snakemake):
        run_stage(
            StageSettings.from_entry(snakemake.params.settings),
            inputs=named_files(snakemake.input),
            outputs=named_files(snakemake.output),
            threads=snakemake.threads,
        )
"""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from collections.abc import Iterable, Iterator
from typing import Any

# Libraries whose warnings are routine in a job (transformers' LOAD REPORT of a new
# classifier head, "MISSING classifier.weight", is expected when fine-tuning starts) and
# look like failures on the console: they go to the job's log only.
LIBRARY_LOGGERS = ("transformers", "datasets", "huggingface_hub")


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


@contextlib.contextmanager
def job_logging(smk: Any) -> Iterator[logging.Logger]:
    """Send ``logging`` output (and any uncaught error) to the job's first log file (and
    the console; the library loggers of ``LIBRARY_LOGGERS`` to the log file only).

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
    if log_path:
        _library_logs_to(handlers[-1])
    logger = logging.getLogger(f"biocompact.{smk.rule}")
    try:
        yield logger
    except BaseException as error:
        logger.error("%s failed: %s\n%s", smk.rule, error, traceback.format_exc())
        raise


def named_files(files: Any) -> dict[str, Any]:
    """A rule's named entries (``snakemake.input``, ``snakemake.output``, ``snakemake.params``)
    as a plain dict: name -> value (a path, a list of paths, a param). Unnamed ones are left out."""
    items: Iterable[tuple[str, Any]] = files.items()
    return dict(items)
