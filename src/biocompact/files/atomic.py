"""Atomic outputs: a rule's output appears whole or not at all.

Everything is written to a hidden temporary sibling first and renamed into place
only when the writer finished without an exception, so a killed or failing job
never leaves a half-written file or folder behind for Snakemake (or a user) to
mistake for a result.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _temporary_sibling(path: Path, is_dir: bool) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = f".{path.name}.tmp-"
    if is_dir:
        return Path(tempfile.mkdtemp(prefix=prefix, dir=path.parent))
    handle, name = tempfile.mkstemp(prefix=prefix, dir=path.parent)
    os.close(handle)
    os.chmod(name, 0o666 & ~_umask())  # mkstemp's 0600 would make results private to their writer
    return Path(name)


def _share_folder(folder: Path) -> None:
    """Give a finished folder and everything in it the modes of the umask: mkdtemp's 0700
    (and libraries that write 0600 files, as safetensors does) would keep results private
    to their writer."""
    umask = _umask()
    os.chmod(folder, 0o777 & ~umask)
    for root, folders, files in os.walk(folder):
        for name in folders:
            os.chmod(os.path.join(root, name), 0o777 & ~umask)
        for name in files:
            os.chmod(os.path.join(root, name), 0o666 & ~umask)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, is_dir: bool = False) -> Iterator[Path]:
    """Yield a temporary path; move it onto ``path`` when the block succeeds."""
    target = Path(path)
    temporary = _temporary_sibling(target, is_dir)
    try:
        yield temporary
        if is_dir:
            _share_folder(temporary)
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        os.replace(temporary, target)
    except BaseException:
        if temporary.is_dir():
            shutil.rmtree(temporary, ignore_errors=True)
        else:
            temporary.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", **kwargs: Any) -> Iterator[IO]:
    """Open ``path`` for writing atomically; ``.gz`` paths are gzip-compressed."""
    with atomic_path(path) as temporary:
        opener = gzip.open if str(path).endswith(".gz") else open
        if "b" not in mode:
            kwargs.setdefault("encoding", "utf-8")
            if opener is gzip.open:
                mode = mode + "t" if "t" not in mode else mode
        with opener(temporary, mode, **kwargs) as handle:
            yield cast(IO, handle)  # a GzipFile in binary mode: a file, though not typeshed's IO


def write_json(path: str | os.PathLike, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically."""
    with atomic_open(path) as handle:
        json.dump(data, handle, indent=2, sort_keys=False, default=str)
        handle.write("\n")


def read_json(path: str | os.PathLike) -> Any:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)
