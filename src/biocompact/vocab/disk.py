"""The disk of the tokenising job (rule ``tokenize_corpus``), from its corpus's words.

Light (no torch, no tokenizers): the workflow declares the job's ``disk_mb`` with it when the
job is ready (``tokenize_disk_mb`` in ``workflow/rules/vocab_common.smk``; docs/slurm.md),
and the job checks the free space against that before it starts.

The job keeps its scratch (the read text, then the packed corpus) in Snakemake's ``tmpdir``
and writes the packed corpus beside its output. Measured by ``benchmarks/data_scale.py``
with both in one file system, its peak there is ``PEAK_BYTES_PER_WORD`` a pre-tokenised
word: the text and the packed corpus, or the packed corpus twice, whichever is larger.
The scratch alone never holds more; the output alone holds ``OUTPUT_BYTES_PER_WORD``.
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

from biocompact.vocab.memory import PRETOKENISED_PER_WORD

PEAK_BYTES_PER_WORD = 10.8  # the largest of 10.3-10.8 measured at three sizes (docs/slurm.md)
# The packed corpus: 4.04 bytes a token at 1.29 tokens a word (docs/slurm.md).
OUTPUT_BYTES_PER_WORD = 5.2
MB = 1_000_000  # Snakemake's megabyte


def corpus_disk_mb(corpus_words: int) -> int:
    """Disk (MB) to declare for tokenising a corpus of ``corpus_words`` whitespace-separated
    words (its sentence shards' statistics): its peak in one file system."""
    return math.ceil(corpus_words * PRETOKENISED_PER_WORD * PEAK_BYTES_PER_WORD / MB)


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing parent (the file system it will be made in)."""
    return next(folder for folder in (path, *path.parents) if folder.exists())


def check_free_space(disk_mb: int, scratch: Path, output: Path) -> None:
    """Stop before the job starts if a file system lacks the space of ``disk_mb``: all of it
    where the ``scratch`` folder is, and the packed corpus's share of it where the
    ``output`` folder is, if that is another file system."""
    peak = disk_mb * MB
    needs = {scratch: peak}
    if os.stat(_existing(scratch)).st_dev != os.stat(_existing(output)).st_dev:
        needs[output] = round(peak * OUTPUT_BYTES_PER_WORD / PEAK_BYTES_PER_WORD)
    for folder, needed in needs.items():
        free = shutil.disk_usage(_existing(folder)).free
        if free < needed:
            shared = (
                "" if len(needs) > 1 else f" (and the output's folder {output}: one file system)"
            )
            raise OSError(
                f"not enough disk in {folder}{shared} to tokenise the corpus: "
                f"{needed:,} bytes needed (disk_mb {disk_mb}), {free:,} free"
            )
