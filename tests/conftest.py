"""Shared fixtures. Project code is imported as ``biocompact`` only (never ``tests.x``)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from snakemake_runs import run_snakemake

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
DEMO_GENERATOR = REPO_ROOT / "demo" / "generate.py"


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory) -> Path:
    """The whole demo DAG, run once per test session in a temporary directory; tests that
    need trained models or results share it (read-only, or in a copy)."""
    workdir = tmp_path_factory.mktemp("demo")
    shutil.copy(REPO_ROOT / "config.yaml", workdir / "config.yaml")
    shutil.copytree(REPO_ROOT / "demo", workdir / "demo")
    result = run_snakemake(workdir, "--cores", "2")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-5000:]
    return workdir


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


@pytest.fixture(scope="session")
def demo_generator() -> ModuleType:
    """demo/generate.py, the demo data generator (a script beside the data, not a package)."""
    spec = importlib.util.spec_from_file_location("demo_generator", DEMO_GENERATOR)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
