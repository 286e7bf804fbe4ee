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


def test_the_smoke_run_writes_every_figure_in_seconds(gpu_suite, tmp_path):
    """The documented command with --smoke, in its own process, which then lists the
    modules it imported."""
    out, modules = tmp_path / "smoke.json", tmp_path / "modules.json"
    arguments = ["--smoke", "--out", str(out), "--threads", "1"]
    run_and_list_modules = (
        "import json, runpy, sys\n"
        f"sys.argv = ['benchmarks/gpu_suite.py', *{arguments!r}]\n"
        "sys.path.insert(0, 'benchmarks')\n"
        "runpy.run_path('benchmarks/gpu_suite.py', run_name='__main__')\n"
        f"json.dump(sorted({{m.split('.')[0] for m in sys.modules}}), open({str(modules)!r}, 'w'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", run_and_list_modules],
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
    # every package the run imported comes with torch, transformers or the requirements list
    loaded = json.loads(modules.read_text())
    distributions = importlib.metadata.packages_distributions()
    imported = {
        dist.lower().replace("_", "-") for top in loaded for dist in distributions.get(top, [])
    }
    provided = _closure(["torch", "transformers", *gpu_suite.requirements()])
    assert imported - provided <= {"biocompact"}, "add these to gpu_suite_requirements.txt"


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
