"""The package's folders form layers: no two packages import each other, directly or
through others, so each stage can be read (and changed) with only what lies beneath it; and
what the workflow imports to build the DAG is light."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGE = REPO_ROOT / "src" / "biocompact"
# a package import of a workflow file or a rule script; the workflow files' are read by every
# snakemake start: each dry run, each run, each job that Slurm starts (a local run's jobs
# share its process)
WORKFLOW_IMPORT = re.compile(r"^(?:from (biocompact[\w.]*) import|import (biocompact[\w.]*))", re.M)


def _imports_between_packages() -> dict[str, dict[str, set[str]]]:
    """{package: {imported package: {"module <- imported module", ...}}} of biocompact."""
    edges: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        if len(parts) < 2:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("biocompact."):
                target = node.module.split(".")[1]
                if target != parts[0] and (PACKAGE / target).is_dir():
                    edges[parts[0]][target].add(f"{'/'.join(parts)} <- {node.module}")
    return edges


def _cycle(edges: dict[str, dict[str, set[str]]]) -> list[str]:
    """One cycle of packages ([a, b, ..., a]), or [] when there is none."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(package: str) -> list[str]:
        state[package] = "open"
        path.append(package)
        for target in sorted(edges.get(package, {})):
            if state.get(target) == "open":
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        state[package] = "done"
        path.pop()
        return []

    for package in sorted(edges):
        if package not in state and (found := visit(package)):
            return found
    return []


def test_no_package_imports_one_that_imports_it_back():
    edges = _imports_between_packages()
    cycle = _cycle(edges)
    steps = [f"{a} -> {b}: {sorted(edges[a][b])}" for a, b in zip(cycle, cycle[1:])]
    assert not cycle, "packages in a cycle:\n" + "\n".join(steps)


def test_the_check_finds_a_cycle():
    edges = {"a": {"b": {"a/x.py <- biocompact.b.y"}}, "b": {"c": set()}, "c": {"a": set()}}
    assert _cycle(edges) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b": set()}, "b": {}}) == []


MODEL_LIBRARIES = ("torch", "transformers", "tokenizers")
SCORING_LIBRARIES = ("sklearn", "scipy.stats", "seqeval")


def _heavy_modules_loaded_by(files: list[Path], heavy: tuple[str, ...] = MODEL_LIBRARIES) -> str:
    """Which of the ``heavy`` modules (by default torch, transformers and tokenizers)
    importing the package modules that ``files`` import loads (printed as a sorted list)."""
    modules = sorted(
        {
            module
            for path in files
            for match in WORKFLOW_IMPORT.finditer(path.read_text(encoding="utf-8"))
            for module in match.groups()
            if module
        }
    )
    assert modules, files  # the pattern finds their imports
    code = "import importlib, sys\n"
    code += f"for name in {modules!r}: importlib.import_module(name)\n"
    code += f"print(sorted(set({heavy!r}) & set(sys.modules)))"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_building_the_dag_imports_no_model_nor_scoring_library():
    """torch and transformers cost about 2 CPU-s to import, scikit-learn, scipy.stats and
    seqeval about 1, which every snakemake start would pay; the jobs that train or score
    import them."""
    files = [REPO_ROOT / "Snakefile", *sorted((REPO_ROOT / "workflow" / "rules").glob("*.smk"))]
    assert _heavy_modules_loaded_by(files, MODEL_LIBRARIES + SCORING_LIBRARIES) == "[]"


@pytest.mark.parametrize("script", ["majority_baseline", "publish_finetuned"])
def test_a_fine_tuning_job_that_runs_no_model_imports_no_torch(script):
    """A baseline's floors and a publication's copy and card: 2 CPU-s of imports, not the
    6 that fine-tuning's torch and transformers take."""
    assert _heavy_modules_loaded_by([REPO_ROOT / "scripts" / f"{script}.py"]) == "[]"
