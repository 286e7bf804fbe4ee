"""Shared fixtures. Project code is imported as ``biocompact`` only (never ``tests.x``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real public datasets beside the checkout; tests using it skip when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real test data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Tiny models train several times faster on one thread than on a shared 2-core machine's two."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
