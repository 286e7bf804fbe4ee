"""The tokenising job's disk: its request from the corpus's words and the free-space check
before it starts (biocompact.vocab.disk)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from biocompact.vocab import disk
from biocompact.vocab.disk import check_free_space, corpus_disk_mb


def test_disk_request_is_the_measured_peak_of_the_corpus_words():
    # 1e9 whitespace words, 1.3 pre-tokenised words each, 10.8 bytes each: 14,040 MB
    assert corpus_disk_mb(1_000_000_000) == 14040
    # 1000 words: 0.01404 MB, a whole megabyte
    assert corpus_disk_mb(1000) == 1


def _free(free_bytes: dict[Path, int]):
    """A shutil.disk_usage that reports ``free_bytes`` of each folder."""
    return lambda path: SimpleNamespace(free=free_bytes[Path(path)])


def test_one_file_system_needs_the_whole_peak_once(tmp_path, monkeypatch):
    scratch, output = tmp_path / "scratch", tmp_path / "results" / "pretraining_data"
    scratch.mkdir()  # the output's folder does not exist yet: its file system is tmp_path's
    monkeypatch.setattr(disk.shutil, "disk_usage", _free({scratch: 108_000_000}))
    check_free_space(108, scratch, output)  # 108 MB needed, 108 MB free
    monkeypatch.setattr(disk.shutil, "disk_usage", _free({scratch: 100_000_000}))
    message = (
        f"not enough disk in {scratch} (and the output's folder {output}: one file system) to "
        "tokenise the corpus: 108,000,000 bytes needed (disk_mb 108), 100,000,000 free"
    )
    with pytest.raises(OSError, match=re.escape(message)):
        check_free_space(108, scratch, output)


def test_an_output_on_another_file_system_needs_the_packed_corpus_alone(tmp_path, monkeypatch):
    if not Path("/dev/shm").is_dir() or os.stat("/dev/shm").st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("needs /dev/shm on a file system of its own")
    with tempfile.TemporaryDirectory(dir="/dev/shm") as shm:
        scratch, output = Path(shm), tmp_path / "results"
        # 108 MB at 10.8 bytes a word in the scratch; in the output 5.2 of them: 52 MB
        free = {scratch: 108_000_000, tmp_path: 52_000_000}
        monkeypatch.setattr(disk.shutil, "disk_usage", _free(free))
        check_free_space(108, scratch, output)
        free[tmp_path] = 51_999_999
        message = f"not enough disk in {output} to tokenise the corpus: 52,000,000 bytes needed"
        with pytest.raises(OSError, match=re.escape(message) + r" \(disk_mb 108\), 51,999,999"):
            check_free_space(108, scratch, output)
        free[tmp_path], free[scratch] = 52_000_000, 107_999_999
        with pytest.raises(OSError, match=f"in {re.escape(shm)} to .* 108,000,000 bytes needed"):
            check_free_space(108, scratch, output)


def test_the_real_free_space_of_this_folder_passes_a_small_request(tmp_path):
    assert shutil.disk_usage(tmp_path).free > 1_000_000
    check_free_space(1, tmp_path, tmp_path / "out")
