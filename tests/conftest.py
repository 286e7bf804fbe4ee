"""Shared fixtures. Project code is imported as ``biocompact`` only (never ``tests.x``)."""

from __future__ import annotations

import ast
import importlib.util
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from snakemake_runs import miniature_config, run_snakemake

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
DEMO_FOLDER = REPO_ROOT / "demo"
# the group of the whole-workflow tests: it runs first, on one worker (``make test``)
WHOLE_WORKFLOWS = "workflows"
# the test files that start a Slurm cluster of their own (one cluster at a time)
CLUSTER_FILES = {"tests/slurm/test_slurm_demo_script.py"}


def demo_run_tests(path: Path) -> set[str]:
    """The tests of test file ``path`` that take the ``demo_run`` fixture, directly or through
    a fixture of the file that takes it (a comment or a string naming it does not count)."""
    functions = {
        node.name: {argument.arg for argument in (*node.args.args, *node.args.kwonlyargs)}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    takers = {"demo_run"}
    while True:  # the file's fixtures that take it, through one another
        more = {name for name, arguments in functions.items() if arguments & takers} - takers
        if not more:
            return {name for name in takers if name.startswith("test")}
        takers |= more


# the tests that share the demo DAG's run, by file (xdist's scheduler sees node ids, not fixtures)
DEMO_RUN_TESTS = {
    path.relative_to(REPO_ROOT).as_posix(): demo_run_tests(path)
    for path in (REPO_ROOT / "tests").rglob("test_*.py")
}


def group_of(nodeid: str) -> str:
    """The group of a test: the tests that share the demo DAG's one run (the Slurm cluster's
    among them) with the files that start a cluster (one cluster at a time); any other test
    is in its file's group (its module's fixtures built once)."""
    path, _, name = nodeid.partition("::")
    if name.split("[")[0] in DEMO_RUN_TESTS.get(path, ()) or path in CLUSTER_FILES:
        return WHOLE_WORKFLOWS
    return path


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest groups first, so that the two workers end together: the whole-workflow
    group, then the groups that run workflows of their own (tests marked ``slow``), then the
    rest (the scheduler below keeps this order)."""
    slow = {group_of(item.nodeid) for item in items if item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> int:
        group = group_of(item.nodeid)
        return 0 if group == WHOLE_WORKFLOWS else 1 if group in slow else 2

    items.sort(key=rank)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, absent with -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` by ``group_of``, the groups in the collection's order (not by
    their number of tests): pytest-xdist's own reads ``xdist_group`` marks through node ids
    that pytest 9 no longer lets it rename, so it splits groups."""
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    if config.getvalue("dist") != "loadgroup":
        return None
    config.option.loadscopereorder = False
    return GroupScheduling(config, log)


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory) -> Path:
    """The whole demo DAG in miniature (``miniature_config``, written as the folder's
    config.yaml), run once per test session in a temporary directory; tests that need
    trained models or results share it (read-only, or in a copy)."""
    workdir = tmp_path_factory.mktemp("demo")
    (workdir / "config.yaml").write_text(yaml.safe_dump(miniature_config(), sort_keys=False))
    shutil.copytree(DEMO_FOLDER, workdir / "demo")
    result = run_snakemake(workdir, "--cores", "2")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-5000:]
    return workdir


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def demo_config() -> dict:
    """The demo's config.yaml, a fresh copy for each test to change."""
    return yaml.safe_load((REPO_ROOT / "config.yaml").read_text())


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


def demo_script(name: str) -> ModuleType:
    """A script of demo/ (beside the data, not a package), imported as ``demo_{name}``."""
    spec = importlib.util.spec_from_file_location(f"demo_{name}", DEMO_FOLDER / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def demo_generator() -> ModuleType:
    """demo/generate.py, the demo data generator."""
    return demo_script("generate")


@pytest.fixture(scope="session")
def demo_figures() -> ModuleType:
    """demo/check_figures.py, the check of the demo's documented figures that ends `make demo`."""
    return demo_script("check_figures")


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> str:
    """A 2-layer, 32-wide BERT MLM checkpoint with the MiniLM WordPiece vocabulary
    (read-only: tests fine-tune and distil from it into folders of their own)."""
    from tiny_models import save_tiny_bert

    return str(save_tiny_bert(tmp_path_factory.mktemp("tiny-bert")))


@pytest.fixture(scope="session")
def pretrained(tmp_path_factory, repo_root) -> Path:
    """A tiny BERT pretrained for 2 steps by the pretraining stage on demo sentences, with
    its card (read-only: tests write their outputs elsewhere)."""
    import torch
    from tiny_models import CARD_SETTINGS, MINILM, TINY, save_demo_corpus
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    import biocompact.pretraining.run as pretraining_run
    from biocompact.entries import parse_entry
    from biocompact.pretraining.settings import PretrainingSettings
    from biocompact.release.cards import write_language_model_card
    from biocompact.training.settings import MaskingSettings

    folder = tmp_path_factory.mktemp("card")
    tokenizer = AutoTokenizer.from_pretrained(MINILM)
    save_demo_corpus(folder / "corpus", tokenizer, repo_root)
    torch.manual_seed(0)
    BertForMaskedLM(BertConfig(vocab_size=len(tokenizer), **TINY)).save_pretrained(folder / "init")
    tokenizer.save_pretrained(folder / "init")
    entry = {
        "vocabulary": "minilm",
        "architecture": TINY,
        "steps": 2,
        "batch_size": 4,
        "learning_rate": 1e-3,
        "log_every": 1,
        "checkpoint_every": 2,
    }
    outputs = {
        key: str(folder / name)
        for key, name in (("model", "model"), ("log", "log.jsonl"), ("eval", "eval.json"))
    }
    pretraining_run.run_pretraining(
        pretraining_run.PretrainingSpec(
            name="tiny",
            settings=parse_entry(PretrainingSettings, entry),
            dataset_dir=str(folder / "corpus"),
            tokenizer_dir=str(folder / "init"),
            outputs=outputs,
            checkpoint_dir=str(folder / "checkpoints"),
            masking=MaskingSettings(),
            max_seq_length=32,
            probes=(),
            threads=1,
        )
    )
    write_language_model_card(outputs, entry, CARD_SETTINGS, folder / "corpus")
    return folder


@pytest.fixture(scope="session")
def validated_config(repo_root: Path) -> Callable[[dict], dict]:
    """A function that returns a test's config as the workflow reads it: checked by the
    schema, with its defaults filled in."""
    from biocompact.workflow.config_schema import read_config_file, validate_config

    schema = read_config_file(repo_root / "workflow/schemas/config.schema.yaml")

    def validated(config: dict) -> dict:
        validate_config(config, schema, [("test config", config)])
        return config

    return validated
