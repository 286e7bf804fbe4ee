"""Each rule's entry point (``biocompact.STAGE.rules.RULE(settings, inputs=, outputs=,
threads=)``) passes the rule's named files and params to the functions that do the work,
unchanged; every rule script calls its rule's, and a rules module holds nothing else."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from contamination_records import contamination_record
from finetuning_tasks import parsed_task
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from snakemake_runs import REPO_ROOT

from biocompact.compression.settings import CompressedEvaluation, CompressionFormat
from biocompact.corpus import rules as corpus_rules
from biocompact.corpus.settings import (
    ArticleSplitting,
    CorpusFiles,
    EvaluationText,
    PmcDownload,
    PubmedDownload,
    PubmedParsing,
    TextSourceSplitting,
)
from biocompact.efficiency.settings import EfficiencyBenchmark
from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.contamination import DocumentCounts, ShardMatches
from biocompact.records.dataset_counts import CheckedCounts, PreparedFileCounts
from biocompact.records.transfer_set import TransferSetRecord
from biocompact.release.settings import ModelRelease, ReleaseUpload
from biocompact.report import aggregation
from biocompact.report import rules as report_rules
from biocompact.report.settings import ReportFacts, ReportPage, ScoreAggregation
from biocompact.task_distillation.settings import EvaluationRuns


def _recorder(calls: list, result: Any = None) -> Any:
    def record(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return result

    return record


def test_corpus_stats_reads_named_inputs_and_the_file_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list = []
    monkeypatch.setattr(corpus_rules, "sum_corpus_stats", _recorder(calls))
    inputs = {key: [key] for key in ("stats", "metas", "pmc_stats", "pmc_metas", "text_stats")}
    names = CorpusFiles(stems=("a",), pmc_files=("p",), text_sources=("t",))
    corpus_rules.corpus_stats(names, inputs=inputs, outputs={"stats": "out.json"})
    assert calls == [
        (
            (["stats"], ["metas"], ("a",), "out.json"),
            {
                "pmc_stats": ["pmc_stats"],
                "pmc_metas": ["pmc_metas"],
                "pmc_files": ("p",),
                "text_stats": ["text_stats"],
                "text_sources": ("t",),
            },
        )
    ]


def test_report_gets_every_named_input_and_param(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list = []
    monkeypatch.setattr(report_rules, "build_report", _recorder(calls))
    page = {"title": "T", "config": {"report": {}}, "benchmarks": "b", "source_dir": "src"}
    facts = ReportFacts(task_datasets={"t": "ncbi-disease"})
    report_rules.report(
        ReportPage(**page),
        facts,
        inputs={"template": "t.j2", "summary": "s.csv"},
        outputs={"html": "r.html"},
    )
    assert calls == [
        (("r.html",), {"template": "t.j2", "summary": "s.csv", **page, "facts": facts})
    ]


def test_aggregation_writes_the_tables_then_the_retention(monkeypatch: pytest.MonkeyPatch) -> None:
    aggregated: list = []
    retained: list = []
    monkeypatch.setattr(aggregation, "aggregate", _recorder(aggregated))
    monkeypatch.setattr(report_rules, "write_retention", _recorder(retained))
    outputs = {key: f"{key}.out" for key in ("scores", "summary", "averages", "markdown")}
    runs = {
        "models": ("m",),
        "tasks": ("t",),
        "seeds": (1,),
        "metrics_pattern": "{model}/{task}/{seed}.json",
        "baseline_pattern": "{task}.json",
        "floors_pattern": "{task}/floors",
        "average": "tasks",
        "blurb_types": {"t": "ner"},
    }
    report_rules.aggregate(
        ScoreAggregation(**runs, teachers={"s": "m"}),
        outputs={**outputs, "retention": "retention.csv"},
    )
    assert aggregated == [((), {**outputs, **runs})]
    assert retained == [(("scores.out", "summary.out", {"s": "m"}, "retention.csv"), {})]


def test_compression_evaluation_pairs_formats_with_their_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # evaluation imports torch (only this test); rule evaluate_compressed imports it when called
    from biocompact.compression import evaluation, rules

    calls: list = []
    monkeypatch.setattr(evaluation, "evaluate_formats", _recorder(calls))
    evaluation = CompressedEvaluation(
        formats=("fp32", "int8"),
        task=parsed_task(),
        seed=1,
        model="m",
        task_name="t",
        batch_sizes=(1,),
        sequence_lengths=(8,),
        repeats=2,
    )
    rules.evaluate_compressed(
        evaluation,
        inputs={"fp32": "fp32/model", "int8": "int8/model", "data": ["test.tsv"]},
        outputs={"evaluations": ["e32", "e8"], "predictions": ["p32", "p8"]},
        threads=3,
    )
    assert calls == [
        (
            (
                {"fp32": "fp32/model", "int8": "int8/model"},
                parsed_task(),
                1,
                {"fp32": "e32", "int8": "e8"},
                {"fp32": "p32", "int8": "p8"},
            ),
            {
                "batch_sizes": (1,),
                "sequence_lengths": (8,),
                "repeats": 2,
                "threads": 3,
                "model_name": "m",
                "task_name": "t",
            },
        )
    ]


def _returning(calls: list, value: Any) -> Any:
    def record(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return value

    return record


def test_corpus_rules_pass_their_files_and_params(monkeypatch: pytest.MonkeyPatch) -> None:
    from biocompact.corpus import rules as corpus

    calls: list = []
    monkeypatch.setattr(corpus, "download_pubmed_file", _returning(calls, "md5"))
    monkeypatch.setattr(corpus, "download_file", _returning(calls, "md5"))
    monkeypatch.setattr(corpus, "write_keep_lists", _returning(calls, None))
    summary = {"file": "f", "records": 1, "documents": 1, "skipped": {}, "deleted_pmids": []}
    monkeypatch.setattr(corpus, "parse_pubmed", _returning(calls, summary))
    monkeypatch.setattr(corpus, "parse_pmc", _returning(calls, summary))
    monkeypatch.setattr(corpus, "split_sentences", _returning(calls, {}))
    monkeypatch.setattr(corpus, "split_pmc_sentences", _returning(calls, {}))
    monkeypatch.setattr(corpus, "split_local_text", _returning(calls, {}))
    split = {"include_title": True, "splitter": "rules", "model": None}
    parsed = {"documents": "d.jsonl.gz", "meta": "m.json"}
    shards = {"sentences": "s.txt.gz", "stats": "s.json"}

    corpus.corpus_download_pubmed(
        PubmedDownload(source="src", folder="baseline", stem="n1", verify_md5=True),
        outputs={"raw": "n1.xml.gz"},
    )
    corpus.corpus_download_pmc(
        PmcDownload(source="/pmc", pmc_file="a.tar.gz", verify_md5=False), outputs={"raw": "a"}
    )
    corpus.corpus_latest_pubmed(
        inputs={"documents": ["d"], "metas": ["m"]}, outputs={"keep": ["k"], "pmids": "p.npy"}
    )
    corpus.corpus_parse_pubmed(
        PubmedParsing(section_labels=True, other_abstract=False),
        inputs={"raw": "x"},
        outputs=parsed,
    )
    corpus.corpus_parse_pmc(corpus.PmcOptions(captions=True), inputs={"raw": "x"}, outputs=parsed)
    with_pmids = {**shards, "pmids": "s.pmids.txt.gz"}
    splitting = ArticleSplitting(**split)
    corpus.corpus_split_sentences(
        splitting, inputs={"documents": "d", "keep": "k"}, outputs=with_pmids
    )
    corpus.corpus_split_pmc(splitting, inputs={"documents": "d"}, outputs=with_pmids)
    text_source = {"format": "lines", "text_field": "text", "splitter": "rules", "model": None}
    corpus.corpus_split_text(
        TextSourceSplitting(**text_source), inputs={"files": ["a.txt"]}, outputs=shards
    )
    assert calls == [
        (("src", "baseline", "n1", "n1.xml.gz"), {"verify_md5": True}),
        (("file:///pmc/a.tar.gz", "a"), {"verify_md5": False}),
        ((["d"], ["m"], ["k"], "p.npy"), {}),
        (("x", "d.jsonl.gz", "m.json"), {"section_labels": True, "other_abstract": False}),
        (("x", "d.jsonl.gz", "m.json", corpus.PmcOptions(captions=True)), {}),
        (("d", "k", "s.txt.gz", "s.json"), {"pmids": "s.pmids.txt.gz", **split}),
        (("d", "s.txt.gz", "s.json"), {"pubmed_pmids": None, "pmids": "s.pmids.txt.gz", **split}),
        ((["a.txt"], "s.txt.gz", "s.json"), text_source),
    ]


def test_decontamination_rules_pass_their_files_and_params(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from biocompact.corpus import rules as corpus

    calls: list = []
    index = SimpleNamespace(name="index")
    monkeypatch.setattr(corpus, "build_evaluation_index", _returning(calls, index))
    monkeypatch.setattr(corpus.EvaluationIndex, "load", _returning(calls, index))
    monkeypatch.setattr(corpus, "decontaminate_shard", _returning(calls, {}))
    summary = contamination_record(["t"], documents=2, removed=1)
    monkeypatch.setattr(corpus, "contamination_summary", _returning(calls, summary))
    tasks = ({"name": "t"},)
    corpus.corpus_evaluation_text(EvaluationText(tasks=tasks, ngram=13), outputs={"index": "e.npz"})
    shard = {"sentences": "d.txt.gz", "matches": "d.matches.json"}
    corpus.corpus_decontaminate(
        inputs={"sentences": "s.txt.gz", "pmids": "s.pmids.txt.gz", "index": "e.npz"},
        outputs=shard,
    )
    corpus.corpus_decontaminate(  # a local text shard: no PMIDs
        inputs={"sentences": "s.txt.gz", "pmids": [], "index": "e.npz"}, outputs=shard
    )
    matches = tmp_path / "m.json"
    shard_matches = ShardMatches(
        shard="s",
        counts=DocumentCounts.total([]),
        splits=[],
        matched_ngrams=[],
        matched_pmids=[],
    )
    write_json(matches, record_data(shard_matches))
    contamination = tmp_path / "contamination.json"
    corpus.corpus_contamination(
        inputs={"index": "e.npz", "matches": [matches]},
        outputs={"contamination": contamination},
    )
    assert calls == [
        ((tasks, 13, "e.npz"), {}),
        (("e.npz",), {}),
        ((index, "s.txt.gz", "d.txt.gz", "d.matches.json", "s.pmids.txt.gz"), {}),
        (("e.npz",), {}),
        ((index, "s.txt.gz", "d.txt.gz", "d.matches.json", None), {}),
        (("e.npz",), {}),
        ((index, [shard_matches]), {}),
    ]
    assert json.loads(contamination.read_text()) == record_data(summary)


def test_dataset_rules_pass_their_files_and_params(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from biocompact.datasets import rules as datasets
    from biocompact.datasets.settings import DatasetFile, SourceDownload

    calls: list = []
    monkeypatch.setattr(datasets, "download_source", _returning(calls, ("sha", [])))
    monkeypatch.setattr(datasets, "source_members", lambda registry, name: ["member"])
    counted = PreparedFileCounts(
        counts=CheckedCounts(
            dataset="ds",
            split="train",
            fold=None,
            unit="mentions",
            converted=3,
            published=3,
            tolerance=0,
            sizes_from="its paper",
            note=None,
        ),
        file="train.tsv",
        bytes=12,
    )
    monkeypatch.setattr(datasets, "prepare_file", _returning(calls, counted))
    source = next(iter(datasets.REGISTRY.sources))
    datasets.download_dataset(
        SourceDownload(source=source, url="u", lock_file="lock", retries=2),
        outputs={"archive": "a.zip"},
    )
    counts = tmp_path / "counts.json"
    datasets.prepare_dataset(
        DatasetFile(dataset="ds", file="train.tsv", url="u"),
        inputs={"archive": "a.zip"},
        outputs={"file": "train.tsv", "counts": counts},
    )
    assert calls == [
        (
            (datasets.REGISTRY.sources[source], "u", "a.zip"),
            {"lock_file": "lock", "extracted": ["member"], "retries": 2},
        ),
        (("ds", "train.tsv", "a.zip", "u", "train.tsv"), {}),
    ]
    assert list(json.loads(counts.read_text()).items()) == [
        ("dataset", "ds"),
        ("split", "train"),
        ("fold", None),
        ("unit", "mentions"),
        ("converted", 3),
        ("published", 3),
        ("tolerance", 0),
        ("sizes_from", "its paper"),
        ("note", None),
        ("file", "train.tsv"),
        ("bytes", 12),
    ]


def test_model_rules_pass_their_files_and_params(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from biocompact.compression import formats
    from biocompact.compression import rules as compression
    from biocompact.efficiency import rules as efficiency
    from biocompact.vocab import rules as vocab
    from biocompact.vocab.settings import (
        CorpusTokenization,
        VocabularySettings,
        VocabularyTraining,
    )

    calls: list = []
    for module, name in (
        (formats, "compress"),  # imported by rule compress when called
        (compression, "write_summary"),
        (efficiency, "benchmark"),
        (vocab, "check_free_space"),
    ):
        monkeypatch.setattr(module, name, _returning(calls, None))
    # the vocabulary's work sees tokenizers' thread pool capped at the job's threads
    monkeypatch.delenv("RAYON_NUM_THREADS", raising=False)  # restored after the test
    monkeypatch.setattr(
        vocab,
        "build_vocabulary",
        lambda **kwargs: calls.append(((os.environ["RAYON_NUM_THREADS"],), kwargs)),
    )
    # a corpus of 9 training and 1 held-out sequences
    splits = {"train": SimpleNamespace(num_rows=9), "validation": SimpleNamespace(num_rows=1)}
    monkeypatch.setattr(vocab, "build_tokenized_corpus", _returning(calls, splits))
    monkeypatch.setattr(formats.torch, "set_num_threads", lambda threads: None)
    compression.compress(
        CompressionFormat("int8"), inputs={"model": "fp32"}, outputs={"model": "int8"}, threads=1
    )
    compression.compression_summary(inputs={"evaluations": ["e"]}, outputs={"summary": "s"})
    timing = {"batch_sizes": (1,), "sequence_lengths": (8,), "repeats": 2}
    efficiency.efficiency(
        EfficiencyBenchmark(models=("a", "b"), model_paths={"a": "pa", "b": "pb"}, **timing),
        outputs={"results": ["a.json", "b.json"]},
        threads=4,
    )
    record = tmp_path / "c.json"
    vocab.tokenize_corpus(
        CorpusTokenization(max_seq_length=64, heldout_fraction=0.1, packing="document"),
        inputs={"shards": ["s"], "tokenizer": "t"},
        outputs={"corpus": "results/c", "record": str(record)},
        threads=3,
        disk_mb=5,
        tmpdir="/scratch",
    )
    assert json.loads(record.read_text()) == {
        "max_seq_length": 64,
        "heldout_fraction": 0.1,
        "packing": "document",
        "sequences": {"train": 9, "validation": 1},
    }
    settings = VocabularySettings(type="wordpiece", vocab_size=100, lowercase=True)
    vocab.train_vocabulary(
        VocabularyTraining(
            name="v", settings=settings, heldout_fraction=0.1, max_heldout_sentences=5
        ),
        inputs={"shards": ["s"]},
        outputs={"tokenizer": "t", "stats": "st.json"},
        threads=2,
    )
    assert calls == [
        (("fp32", "int8", "int8"), {}),
        ((["e"], "s"), {}),
        (
            (),
            {
                "model_paths": {"a": "pa", "b": "pb"},
                "outputs": {"a": "a.json", "b": "b.json"},
                **timing,
                "threads": 4,
            },
        ),
        ((5, Path("/scratch"), Path("results")), {}),
        (
            (),
            {
                "shards": ["s"],
                "tokenizer_dir": "t",
                "out_dir": "results/c",
                "max_seq_length": 64,
                "heldout_fraction": 0.1,
                "num_proc": 3,
                "packing": "document",
                "scratch_dir": "/scratch",
            },
        ),
        (
            ("2",),
            {
                "shards": ["s"],
                "out_tokenizer": "t",
                "out_stats": "st.json",
                "name": "v",
                "settings": settings,
                "heldout_fraction": 0.1,
                "max_heldout_sentences": 5,
            },
        ),
    ]


def test_release_rules_pass_their_files_and_params(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from biocompact.release import folders
    from biocompact.release import rules as release

    calls: list = []
    monkeypatch.setattr(release, "prepare_release", _returning(calls, None))
    release.release_model(
        ModelRelease(results="eval.json", repo="ns/m"),
        inputs={"model": "m"},
        outputs={"folder": "r"},
    )
    assert calls == [(("m", "eval.json", "ns/m", "r"), {})]
    commands = tmp_path / "upload.sh"
    written = release.release(
        ReleaseUpload(namespace="ns"),
        inputs={"folders": [str(tmp_path / "m")]},
        outputs={"commands": commands},
    )
    assert written == [folders.upload_command("ns/m", "m")]  # beside upload.sh
    assert commands.read_text() == release.UPLOAD_SCRIPT + written[0] + "\n"


def test_transfer_set_and_summary_entry_points_write_their_named_outputs(monkeypatch):
    from biocompact.task_distillation import rules

    calls: list = []
    monkeypatch.setattr(rules, "write_summary", _recorder(calls))
    monkeypatch.setattr(rules.EvaluationIndex, "load", _recorder(calls, "index"))
    monkeypatch.setattr(rules, "write_json", _recorder(calls))
    settings = SimpleNamespace(name="abstracts")
    record = TransferSetRecord(
        name="abstracts",
        examples=7,
        checked_test_sets=["ncbi"],
        ngram=13,
        dropped=1,
        dropped_by_task={"ncbi": 1},
    )
    monkeypatch.setattr(rules, "build_transfer_set", _recorder(calls, record))
    outputs = {"transfer": "t.jsonl", "record": "t.json"}
    assert rules.transfer_set(settings, inputs={"index": "e.npz"}, outputs=outputs) == record
    assert rules.transfer_set(settings, inputs={}, outputs=outputs) == record  # unchecked
    run = {"experiment": "e", "setting": "teacher", "path": "e.json"}
    rules.task_distillation_summary(EvaluationRuns((run,)), outputs={"summary": "s.csv"})
    assert calls == [
        (("e.npz",), {}),
        ((settings, "t.jsonl", "index"), {}),
        (("t.json", record_data(record)), {}),
        ((settings, "t.jsonl", None), {}),
        (("t.json", record_data(record)), {}),
        (("s.csv", (run,)), {}),
    ]


def test_every_rule_script_is_named_after_its_rule() -> None:
    """``rule NAME`` runs ``scripts/NAME.py``, and every script belongs to one rule."""
    rules_dir = REPO_ROOT / "workflow" / "rules"
    scripts = {}
    for path in sorted(rules_dir.glob("*.smk")):
        for rule, body in re.findall(
            r"^rule (\w+):(.*?)(?=^rule |\Z)", path.read_text(), re.S | re.M
        ):
            script = re.search(r'script:\s*\n\s*"([^"]+)"', body)
            if script:
                scripts[rule] = Path(script.group(1)).stem
    assert scripts and {rule: name for rule, name in scripts.items() if rule != name} == {}
    on_disk = {path.stem for path in (REPO_ROOT / "scripts").glob("*.py")}
    assert on_disk == set(scripts.values())


# Rules whose stage package is not named after their rule file: rule efficiency is declared
# in report.smk, beside the report that reads its results, and runs the efficiency stage's.
RULE_PACKAGES = {"efficiency": "efficiency"}


def _rule_packages() -> dict[str, str]:
    """{rule: the stage package of its rules module} of every ``rule NAME:`` of the rule
    files: the package named after the rule file, or that of ``RULE_PACKAGES``."""
    packages = {}
    for path in sorted((REPO_ROOT / "workflow" / "rules").glob("*.smk")):
        for rule in re.findall(r"^rule (\w+):", path.read_text(), re.M):
            packages[rule] = RULE_PACKAGES.get(rule, path.stem)
    return packages


def test_every_rule_script_calls_its_rules_function() -> None:
    """``scripts/RULE.py`` imports ``RULE`` from ``biocompact.STAGE.rules`` (STAGE: the
    package of the rule file that declares the rule) and calls it; no other rule's."""
    packages = _rule_packages()
    for path in sorted((REPO_ROOT / "scripts").glob("*.py")):
        rule = path.stem
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            (node.module, alias.name)
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith(".rules")
            for alias in node.names
        }
        assert imported == {(f"biocompact.{packages[rule]}.rules", rule)}, path.name
        called = {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert rule in called, f"{path.name} does not call {rule}"


def test_a_rules_module_holds_one_function_per_rule_of_its_stage() -> None:
    """Every public function of ``biocompact/STAGE/rules.py`` is a rule of that stage."""
    packages = _rule_packages()
    modules = sorted((REPO_ROOT / "src" / "biocompact").glob("*/rules.py"))
    assert {path.parent.name for path in modules} == {
        packages[path.stem] for path in (REPO_ROOT / "scripts").glob("*.py")
    }
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
        ]
        assert functions, path
        stray = [name for name in functions if packages.get(name) != path.parent.name]
        assert not stray, f"{path}: not rules of the {path.parent.name} stage: {stray}"


# the stages whose rules run in each environment without torch (their ``conda:`` lines)
LIGHT_ENVIRONMENTS = {
    "corpus.yaml": ("corpus", "datasets"),
    "report.yaml": ("report", "compression", "task_distillation"),
}


def _installed_with(env_file: Path) -> set[str]:
    """The distributions an environment file's pip list installs: its packages and, as the
    versions installed here require them, their dependencies (normalised names)."""
    dependencies = yaml.safe_load(env_file.read_text(encoding="utf-8"))["dependencies"]
    (pip,) = [entry["pip"] for entry in dependencies if isinstance(entry, dict)]
    wanted = [canonicalize_name(Requirement(line.split("#")[0]).name) for line in pip]
    installed: set[str] = set()
    while wanted:
        name = wanted.pop()
        if name in installed:
            continue
        installed.add(name)
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                wanted.append(canonicalize_name(requirement.name))
    return installed


# run in a fresh interpreter: a distribution that the environment lacks cannot be imported,
# as there, so an optional import falls back as it would and a needed one fails
IMPORT_AS_IN_ENVIRONMENT = """
import importlib, json, sys
from importlib import metadata
from packaging.utils import canonicalize_name
installed, modules = json.loads(sys.argv[1])
distributions = metadata.packages_distributions()

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        owners = distributions.get(name.partition(".")[0], [])
        if owners and not {canonicalize_name(owner) for owner in owners} & set(installed):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
for module in modules:
    importlib.import_module(module)
"""


@pytest.mark.parametrize("environment", sorted(LIGHT_ENVIRONMENTS))
def test_rules_modules_import_only_what_their_environment_installs(environment: str) -> None:
    """The rules modules of the rules that run in ``envs/corpus.yaml`` and
    ``envs/report.yaml`` (no torch) import with only what the environment installs."""
    installed = [*_installed_with(REPO_ROOT / "envs" / environment), "biocompact"]
    modules = [f"biocompact.{stage}.rules" for stage in LIGHT_ENVIRONMENTS[environment]]
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_AS_IN_ENVIRONMENT, json.dumps([installed, modules])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"envs/{environment}: {result.stderr[-3000:]}"


def test_a_file_only_some_configurations_have_is_none_where_snakemake_gives_an_empty_list():
    from biocompact.files.rule_files import optional_file

    assert optional_file("results/corpus/contamination.json") == "results/corpus/contamination.json"
    assert optional_file(Path("results/corpus/contamination.json")) == (
        "results/corpus/contamination.json"
    )
    assert [optional_file(named) for named in ([], "", None)] == [None, None, None]
