"""benchmarks/gpu_suite.py: its smoke run on the CPU (the code a GPU runs, on tiny shapes)
writes every figure, finds no host synchronisation in a training step, and needs no package
that gpu_suite_requirements.txt leaves out."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def gpu_suite():
    sys.path.insert(0, str(BENCHMARKS))  # it imports pretraining_speed and distillation_speed
    spec = importlib.util.spec_from_file_location("gpu_suite", BENCHMARKS / "gpu_suite.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.path.remove(str(BENCHMARKS))


def _closure(names: list[str]) -> set[str]:
    """The installed distributions ``names`` need, themselves included (normalised names)."""
    seen, stack = set(), list(names)
    while stack:
        name = stack.pop()
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        seen.add(key)
        for line in requires:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                stack.append(requirement.name)
    return seen


# Run first in the smoke run's process: the distributions outside the allowed ones look
# uninstalled (their modules are not found, their metadata is not listed), as on a GPU
# machine prepared from the list alone, so a package imported only where it is installed
# (transformers' integrations, sniffio, google.auth) is left out as it would be there.
ONLY_THE_ALLOWED_PACKAGES = """
import importlib.machinery, importlib.metadata, json, sys
allowed = set(json.loads(sys.argv.pop(1)))
providers = importlib.metadata.packages_distributions()
path_finder = importlib.machinery.PathFinder
find_spec, find_distributions = path_finder.find_spec, path_finder.find_distributions

def normalised(name):
    return name.lower().replace("_", "-")

def allowed_spec(name, path=None, target=None):
    names = {normalised(d) for d in providers.get(name.split(".")[0], [])}
    if path is None and names and not names & allowed:
        return None
    return find_spec(name, path, target)

def allowed_distributions(*args, **kwargs):
    for found in find_distributions(*args, **kwargs):
        if normalised(found.metadata["Name"] or "") in allowed:
            yield found

path_finder.find_spec = staticmethod(allowed_spec)
path_finder.find_distributions = staticmethod(allowed_distributions)
"""


def test_the_smoke_run_writes_every_figure_in_seconds(gpu_suite, tmp_path):
    """The documented command with --smoke, in its own process that can import only the
    packages of torch, transformers and the requirements list (and the project)."""
    out = tmp_path / "smoke.json"
    arguments = ["--smoke", "--out", str(out), "--threads", "1"]
    allowed = _closure(["torch", "transformers", *gpu_suite.requirements()]) | {"biocompact"}
    run_with_the_list_alone = (
        ONLY_THE_ALLOWED_PACKAGES + "import runpy\n"
        f"sys.argv = ['benchmarks/gpu_suite.py', *{arguments!r}]\n"
        "sys.path.insert(0, 'benchmarks')\n"
        "runpy.run_path('benchmarks/gpu_suite.py', run_name='__main__')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", run_with_the_list_alone, json.dumps(sorted(allowed))],
        cwd=BENCHMARKS.parent,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"written: {out}" in result.stdout
    report = json.loads(out.read_text())
    assert report["command"] == f"python benchmarks/gpu_suite.py {' '.join(arguments)}"
    assert report["device"] == "CPU, 1 threads" and report["smoke"] is True
    assert {"python", "torch", "transformers", "datasets", "accelerate"} <= set(report["versions"])
    (shape,) = report["pretraining"]
    (run,) = shape["runs"]["default"]  # one run of each route, steps alternating
    assert run["biocompact"]["tokens_per_second"] > 0 and run["default"]["tokens_per_second"] > 0
    assert len(run["biocompact"]["step_seconds"]) == len(run["default"]["step_seconds"]) == 3
    assert shape["speed_up"]["default"]["median"] == run["speed_up"] > 0
    assert shape["command"].startswith("python benchmarks/pretraining_speed.py --preset=")
    distilled = report["distillation"]
    assert distilled["method"] == "distilbert" and distilled["max_relative_difference"] < 1e-4
    assert distilled["speedup"] > 0
    for stage in ("pretraining", "distillation"):
        profile = report["profiles"][stage]
        assert profile["wall_ms"] > 0 and profile["top"] and profile["table"]
        # no .item(), float() or value-dependent shape inside a step: nothing a GPU would wait on
        assert profile["host_syncs"] == {}
    assert set(report["seconds"]) == {"pretraining", "distillation", "profiles", "total"}


def test_requirements_are_pinned_and_printed(gpu_suite, capsys):
    lines = [
        line
        for line in (BENCHMARKS / "gpu_suite_requirements.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert all("==" in line for line in lines) and "datasets" in gpu_suite.requirements()
    assert "torch" not in gpu_suite.requirements()
    gpu_suite.main(["--requirements"])
    assert "datasets==" in capsys.readouterr().out


def test_device_busy_time_is_the_union_of_kernel_intervals_by_hand(gpu_suite):
    # microseconds: 0-2 and 1-3 overlap (3 in all), 5-6 apart: 4 microseconds busy
    assert gpu_suite._union_seconds([(5, 6), (0, 2), (1, 3)]) == pytest.approx(4e-6)
    assert gpu_suite._union_seconds([]) == 0.0
