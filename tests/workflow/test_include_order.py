"""Include order does not matter: the Snakefile with its stage rule files (every include after
common.smk) in another order plans the same DAG as the repository's, the same jobs with the
same dependencies. No stage file uses, when it is parsed, a name or a rule of another stage
file: common.smk includes every stage's names and input functions first, and a rule refers
to another file's rules only inside input functions, evaluated once every file is read."""

from __future__ import annotations

import hashlib
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from snakemake_runs import OFFLINE_ENV, REPO_ROOT

INCLUDE = re.compile(r'^include: "(.*)"\n', re.M)
COMMON = "workflow/rules/common.smk"
# A node of `snakemake --dag`: its id and label (the rule, then its new wildcards); an edge:
# the id of the job depended on, then of the job that depends on it.
DOT_NODE = re.compile(r'^\t(\d+)\[label = "(.*?)"', re.M)
DOT_EDGE = re.compile(r"^\t(\d+) -> (\d+)$", re.M)
# The kept fine-tuned model released beside a language model (release_common.smk reads
# names of finetuning_common.smk).
RELEASE = {"release": {"models": ["teacher"], "finetuned": ["teacher/demo-re"]}}


def _reversed(stages: list[str]) -> list[str]:
    return stages[::-1]


def _shuffled(stages: list[str]) -> list[str]:
    order = list(stages)
    random.Random(7).shuffle(order)
    return order


def reordered_snakefile(path: Path, order: Callable[[list[str]], list[str]]) -> Path:
    """The repository's Snakefile, written to ``path`` with its stage rule files in the
    order that ``order`` gives them, every path in it absolute."""
    snakefile = (REPO_ROOT / "Snakefile").read_text()
    includes = INCLUDE.findall(snakefile)
    assert includes[0] == COMMON
    stages = order(includes[1:])
    assert sorted(stages) == sorted(includes[1:]) and stages != includes[1:]
    first = INCLUDE.search(snakefile).start()
    text = INCLUDE.sub("", snakefile)
    block = "".join(f'include: "{REPO_ROOT / name}"\n' for name in [COMMON, *stages])
    text = text[:first] + block + text[first:]
    path.write_text(text.replace("workflow.basedir", repr(str(REPO_ROOT))))
    return path


def start_dag(snakefile: Path, workdir: Path, configfiles: list[Path], targets: tuple):
    """``snakemake --dag`` of ``snakefile`` for ``targets``, started in the background."""
    return subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--snakefile", str(snakefile)]
        + ["--directory", str(workdir), "--configfile", *map(str, configfiles)]
        + ["--dag", "--cores", "1", "--", *targets],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=OFFLINE_ENV,
    )


def planned_dag(run: subprocess.Popen) -> tuple[Counter, Counter]:
    """The jobs and dependency edges of a ``--dag`` run, each job named by its label and,
    recursively, the names of the jobs it depends on (the dot file's ids are arbitrary)."""
    out, err = run.communicate()
    assert run.returncode == 0, err[-3000:]
    labels = {node: label.replace("\\n", ", ") for node, label in DOT_NODE.findall(out)}
    depends_on = {node: [] for node in labels}
    for dependency, node in DOT_EDGE.findall(out):
        depends_on[node].append(dependency)
    names: dict[str, str] = {}

    def name(node: str) -> str:
        if node not in names:
            upstream = "|".join(sorted(map(name, depends_on[node])))
            digest = hashlib.sha256(f"{labels[node]}<-{upstream}".encode()).hexdigest()
            names[node] = f"{labels[node]} [{digest[:12]}]"
        return names[node]

    jobs = Counter(map(name, labels))
    edges = Counter((name(dep), name(node)) for node in labels for dep in depends_on[node])
    return jobs, edges


CASES = {
    # the demo: corpus decontamination, task distillation and compression included
    "demo": ([REPO_ROOT / "config.yaml"], {}, (), [_reversed, _shuffled]),
    "families-demo": ([REPO_ROOT / "configs/families-demo.yaml"], {}, (), [_reversed]),
    "release": ([REPO_ROOT / "config.yaml"], RELEASE, ("release",), [_reversed]),
}


@pytest.mark.parametrize("case", CASES)
def test_stage_files_in_another_order_plan_the_same_dag(tmp_path, case):
    configfiles, layer, targets, orders = CASES[case]
    (tmp_path / "demo").symlink_to(REPO_ROOT / "demo")
    if layer:
        (tmp_path / "layer.yaml").write_text(yaml.safe_dump(layer))
        configfiles = [*configfiles, tmp_path / "layer.yaml"]
    snakefiles = [REPO_ROOT / "Snakefile"] + [
        reordered_snakefile(tmp_path / f"Snakefile.{order.__name__.strip('_')}", order)
        for order in orders
    ]
    runs = [start_dag(path, tmp_path, configfiles, targets) for path in snakefiles]
    dags = [planned_dag(run) for run in runs]
    jobs, edges = dags[0]
    assert jobs and edges
    for path, (other_jobs, other_edges) in zip(snakefiles[1:], dags[1:], strict=True):
        assert other_jobs == jobs, path.name
        assert other_edges == edges, path.name
