"""Each stage's rule entry point (run_STAGE(settings, inputs=, outputs=, threads=)) passes
the rule's named files and params to the function that does the work, unchanged."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from finetuning_tasks import PLACEHOLDERS, parsed_task
from snakemake_runs import REPO_ROOT

from biocompact.corpus import stats
from biocompact.report import render, retention


def _recorder(calls: list, result: Any = None) -> Any:
    def record(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return result

    return record


def test_corpus_stats_reads_named_inputs_and_the_file_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list = []
    monkeypatch.setattr(stats, "sum_corpus_stats", _recorder(calls))
    inputs = {key: [key] for key in ("stats", "metas", "pmc_stats", "pmc_metas", "text_stats")}
    names = {"stems": ["a"], "pmc_files": ["p"], "text_sources": ["t"]}
    stats.run_corpus_stats(names, inputs=inputs, outputs={"stats": "out.json"})
    assert calls == [
        (
            (["stats"], ["metas"], ["a"], "out.json"),
            {
                "pmc_stats": ["pmc_stats"],
                "pmc_metas": ["pmc_metas"],
                "pmc_files": ["p"],
                "text_stats": ["text_stats"],
                "text_sources": ["t"],
            },
        )
    ]


def test_report_gets_every_named_input_and_param(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list = []
    monkeypatch.setattr(render, "build_report", _recorder(calls))
    render.run_report(
        {"title": "T", "benchmarks": "b"},
        inputs={"template": "t.j2", "summary": "s.csv"},
        outputs={"html": "r.html"},
    )
    assert calls == [
        (("r.html",), {"template": "t.j2", "summary": "s.csv", "title": "T", "benchmarks": "b"})
    ]


def test_aggregation_writes_the_tables_then_the_retention(monkeypatch: pytest.MonkeyPatch) -> None:
    aggregated: list = []
    retained: list = []
    monkeypatch.setattr(retention, "aggregate", _recorder(aggregated))
    monkeypatch.setattr(retention, "write_retention", _recorder(retained))
    outputs = {key: f"{key}.out" for key in ("scores", "summary", "averages", "markdown")}
    retention.run_aggregation(
        {"models": ["m"], "teachers": {"s": "m"}},
        outputs={**outputs, "retention": "retention.csv"},
    )
    assert aggregated == [((), {**outputs, "models": ["m"]})]
    assert retained == [(("scores.out", "summary.out", {"s": "m"}, "retention.csv"), {})]


def test_compression_evaluation_pairs_formats_with_their_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from biocompact.compression import evaluation  # imports torch: only this test

    calls: list = []
    monkeypatch.setattr(evaluation, "evaluate_formats", _recorder(calls))
    settings = {
        "formats": ["fp32", "int8"],
        "task": PLACEHOLDERS,
        "seed": "1",
        "model": "m",
        "task_name": "t",
        "batch_sizes": [1],
        "sequence_lengths": [8],
        "repeats": 2,
    }
    evaluation.run_compression_evaluation(
        settings,
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
                "batch_sizes": [1],
                "sequence_lengths": [8],
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
    from biocompact.corpus import download, local_text, pmc, pubmed, sentences, updates

    calls: list = []
    monkeypatch.setattr(download, "download_pubmed_file", _returning(calls, "md5"))
    monkeypatch.setattr(download, "download_file", _returning(calls, "md5"))
    monkeypatch.setattr(updates, "write_keep_lists", _returning(calls, None))
    summary = {"file": "f", "records": 1, "documents": 1, "skipped": {}, "deleted_pmids": []}
    monkeypatch.setattr(pubmed, "parse_pubmed", _returning(calls, summary))
    monkeypatch.setattr(pmc, "parse_pmc", _returning(calls, summary))
    monkeypatch.setattr(sentences, "split_sentences", _returning(calls, {}))
    monkeypatch.setattr(sentences, "split_pmc_sentences", _returning(calls, {}))
    monkeypatch.setattr(local_text, "split_local_text", _returning(calls, {}))
    split = {"include_title": True, "splitter": "rules", "model": None}
    parsed = {"documents": "d.jsonl.gz", "meta": "m.json"}
    shards = {"sentences": "s.txt.gz", "stats": "s.json"}

    download.run_pubmed_download(
        {"source": "src", "folder": "baseline", "stem": "n1", "verify_md5": True},
        outputs={"raw": "n1.xml.gz"},
    )
    download.run_pmc_download(
        {"source": "/pmc", "pmc_file": "a.tar.gz", "verify_md5": False}, outputs={"raw": "a"}
    )
    updates.run_latest_pubmed(
        inputs={"documents": ["d"], "metas": ["m"]}, outputs={"keep": ["k"], "pmids": "p.npy"}
    )
    pubmed.run_pubmed_parsing(
        {"section_labels": True, "other_abstract": False}, inputs={"raw": "x"}, outputs=parsed
    )
    pmc.run_pmc_parsing({"options": {"captions": True}}, inputs={"raw": "x"}, outputs=parsed)
    with_pmids = {**shards, "pmids": "s.pmids.txt.gz"}
    sentences.run_sentence_split(split, inputs={"documents": "d", "keep": "k"}, outputs=with_pmids)
    sentences.run_pmc_sentence_split(split, inputs={"documents": "d"}, outputs=with_pmids)
    local_text.run_local_text_split(
        {"format": "lines", **split}, inputs={"files": ["a.txt"]}, outputs=shards
    )
    assert calls == [
        (("src", "baseline", "n1", "n1.xml.gz"), {"verify_md5": True}),
        (("file:///pmc/a.tar.gz", "a"), {"verify_md5": False}),
        ((["d"], ["m"], ["k"], "p.npy"), {}),
        (("x", "d.jsonl.gz", "m.json"), {"section_labels": True, "other_abstract": False}),
        (("x", "d.jsonl.gz", "m.json", pmc.PmcOptions(captions=True)), {}),
        (("d", "k", "s.txt.gz", "s.json"), {"pmids": "s.pmids.txt.gz", **split}),
        (("d", "s.txt.gz", "s.json"), {"pubmed_pmids": None, "pmids": "s.pmids.txt.gz", **split}),
        ((["a.txt"], "s.txt.gz", "s.json"), {"format": "lines", **split}),
    ]


def test_decontamination_rules_pass_their_files_and_params(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from biocompact.corpus import decontamination

    calls: list = []
    index = SimpleNamespace(name="index")
    monkeypatch.setattr(decontamination, "build_evaluation_index", _returning(calls, index))
    monkeypatch.setattr(decontamination.EvaluationIndex, "load", _returning(calls, index))
    monkeypatch.setattr(decontamination, "decontaminate_shard", _returning(calls, {}))
    monkeypatch.setattr(decontamination, "contamination_summary", _returning(calls, {"n": 1}))
    tasks = [{"name": "t"}]
    decontamination.run_evaluation_index({"tasks": tasks, "ngram": 13}, outputs={"index": "e.npz"})
    shard = {"sentences": "d.txt.gz", "matches": "d.matches.json"}
    decontamination.run_decontamination(
        inputs={"sentences": "s.txt.gz", "pmids": "s.pmids.txt.gz", "index": "e.npz"},
        outputs=shard,
    )
    decontamination.run_decontamination(  # a local text shard: no PMIDs
        inputs={"sentences": "s.txt.gz", "pmids": [], "index": "e.npz"}, outputs=shard
    )
    matches = tmp_path / "m.json"
    matches.write_text('{"shard": "s"}')
    contamination = tmp_path / "contamination.json"
    decontamination.run_contamination_summary(
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
        ((index, [{"shard": "s"}]), {}),
    ]
    assert json.loads(contamination.read_text()) == {"n": 1}


def test_dataset_rules_pass_their_files_and_params(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from biocompact.datasets import fetch, prepare

    calls: list = []
    monkeypatch.setattr(fetch, "download_source", _returning(calls, ("sha", [])))
    monkeypatch.setattr(fetch, "source_members", lambda registry, name: ["member"])
    monkeypatch.setattr(prepare, "prepare_file", _returning(calls, {"train": 3}))
    source = next(iter(fetch.REGISTRY.sources))
    fetch.run_dataset_download(
        {"source": source, "url": "u", "lock_file": "lock", "retries": 2},
        outputs={"archive": "a.zip"},
    )
    counts = tmp_path / "counts.json"
    prepare.run_dataset_preparation(
        {"dataset": "ds", "file": "train.tsv", "url": "u"},
        inputs={"archive": "a.zip"},
        outputs={"file": "train.tsv", "counts": counts},
    )
    assert calls == [
        (
            (fetch.REGISTRY.sources[source], "u", "a.zip"),
            {"lock_file": "lock", "extracted": ["member"], "retries": 2},
        ),
        (("ds", "train.tsv", "a.zip", "u", "train.tsv"), {}),
    ]
    assert json.loads(counts.read_text()) == {"train": 3}


def test_model_rules_pass_their_files_and_params(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from biocompact.compression import formats, summary
    from biocompact.efficiency import benchmark as efficiency
    from biocompact.vocab import build, tokenized_corpus

    calls: list = []
    for module, name in (
        (formats, "compress"),
        (summary, "write_summary"),
        (efficiency, "benchmark"),
        (build, "build_vocabulary"),
    ):
        monkeypatch.setattr(module, name, _returning(calls, None))
    # a corpus of 9 training and 1 held-out sequences
    splits = {"train": SimpleNamespace(num_rows=9), "validation": SimpleNamespace(num_rows=1)}
    monkeypatch.setattr(tokenized_corpus, "build_tokenized_corpus", _returning(calls, splits))
    monkeypatch.setattr(formats.torch, "set_num_threads", lambda threads: None)
    formats.run_compression(
        {"format": "int8"}, inputs={"model": "fp32"}, outputs={"model": "int8"}, threads=1
    )
    summary.run_compression_summary(inputs={"evaluations": ["e"]}, outputs={"summary": "s"})
    timing = {"batch_sizes": [1], "sequence_lengths": [8], "repeats": 2}
    efficiency.run_efficiency(
        {"models": ["a", "b"], "model_paths": {"a": "pa", "b": "pb"}, **timing},
        outputs={"results": ["a.json", "b.json"]},
        threads=4,
    )
    record = tmp_path / "c.json"
    tokenized_corpus.run_tokenization(
        {"max_seq_length": 64, "heldout_fraction": 0.1, "packing": "document"},
        inputs={"shards": ["s"], "tokenizer": "t"},
        outputs={"corpus": "c", "record": str(record)},
        threads=3,
    )
    assert json.loads(record.read_text()) == {
        "max_seq_length": 64,
        "heldout_fraction": 0.1,
        "packing": "document",
        "sequences": {"train": 9, "validation": 1},
    }
    entry = {"type": "wordpiece", "vocab_size": 100, "lowercase": True}
    build.run_vocabulary_training(
        {"name": "v", "settings": entry, "heldout_fraction": 0.1, "max_heldout_sentences": 5},
        inputs={"shards": ["s"]},
        outputs={"tokenizer": "t", "stats": "st.json"},
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
        (
            (),
            {
                "shards": ["s"],
                "tokenizer_dir": "t",
                "out_dir": "c",
                "max_seq_length": 64,
                "heldout_fraction": 0.1,
                "num_proc": 3,
                "packing": "document",
            },
        ),
        (
            (),
            {
                "shards": ["s"],
                "out_tokenizer": "t",
                "out_stats": "st.json",
                "name": "v",
                "settings": build.VocabularySettings.from_entry(entry),
                "heldout_fraction": 0.1,
                "max_heldout_sentences": 5,
            },
        ),
    ]


def test_release_rules_pass_their_files_and_params(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from biocompact.release import folders as release

    calls: list = []
    monkeypatch.setattr(release, "prepare_release", _returning(calls, None))
    release.run_release_model(
        {"results": "eval.json", "repo": "ns/m"}, inputs={"model": "m"}, outputs={"folder": "r"}
    )
    assert calls == [(("m", "eval.json", "ns/m", "r"), {})]
    commands = tmp_path / "upload.sh"
    written = release.run_release_commands(
        {"namespace": "ns"},
        inputs={"folders": ["results/release/m"]},
        outputs={"commands": commands},
    )
    assert written == [release.upload_command("ns/m", "results/release/m")]
    assert commands.read_text() == written[0] + "\n"


def test_transfer_set_and_summary_entry_points_write_their_named_outputs(monkeypatch):
    from biocompact.task_distillation import summary, transfer

    calls: list = []
    monkeypatch.setattr(summary, "write_summary", _recorder(calls))
    monkeypatch.setattr(transfer.EvaluationIndex, "load", _recorder(calls, "index"))
    monkeypatch.setattr(transfer, "write_json", _recorder(calls))
    settings = SimpleNamespace(name="abstracts")
    record = {"examples": 7, "dropped": 1}
    monkeypatch.setattr(transfer, "build_transfer_set", _recorder(calls, record))
    outputs = {"transfer": "t.jsonl", "record": "t.json"}
    assert transfer.run_transfer_set(settings, inputs={"index": "e.npz"}, outputs=outputs) == record
    assert transfer.run_transfer_set(settings, inputs={}, outputs=outputs) == record  # unchecked
    summary.run_summary({"runs": ["run"]}, outputs={"summary": "s.csv"})
    assert calls == [
        (("e.npz",), {}),
        ((settings, "t.jsonl", "index"), {}),
        (("t.json", record), {}),
        ((settings, "t.jsonl", None), {}),
        (("t.json", record), {}),
        (("s.csv", ["run"]), {}),
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
