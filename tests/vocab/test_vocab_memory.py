"""The vocabulary job's memory request: the worst case of its sample (biocompact.vocab.memory),
and the workflow asking for it, and for the tokenising job's disk, once the shards' word
counts exist."""

from __future__ import annotations

import json
import re
import shutil

import pytest
import yaml
from snakemake_runs import fake_finished_run, run_with_configs

from biocompact.vocab.memory import vocabulary_memory_mb, worst_case_distinct_words


def test_worst_case_distinct_words_by_hand():
    # all of PubMed's 4.75e9 words: the 15 M of docs/slurm.md
    assert worst_case_distinct_words(4.75e9) == pytest.approx(15e6)
    # 3.25e8 words: 15e6 * (3.25e8 / 4.75e9) ** 0.542 = 15e6 * exp(0.542 * ln 0.0684211)
    # = 15e6 * exp(0.542 * -2.682075) = 15e6 * exp(-1.453685) = 15e6 * 0.233708
    assert worst_case_distinct_words(3.25e8) == pytest.approx(3.50561e6, rel=1e-5)
    # a small sample cannot hold more distinct words than words (the law gives 4,161)
    assert worst_case_distinct_words(1300) == 1300


def test_memory_request_is_the_worst_case_of_the_sample_plus_a_quarter():
    # a quarter of 1e9 whitespace words, 1.3 pre-tokenised words each: 3.25e8 words,
    # 3.50561e6 distinct at worst: (430 + 3.50561e6 / 1024) * 1.25 = (430 + 3423.45) * 1.25
    assert vocabulary_memory_mb(1_000_000_000, 0.25) == 4817
    # 1000 words: 1300 distinct at most: (430 + 1.27) * 1.25 = 539.09
    assert vocabulary_memory_mb(1000, 1.0) == 540
    # no sample (a copied tokenizer): the base alone, 430 * 1.25 = 537.5
    assert vocabulary_memory_mb(0, 1.0) == 538


def test_all_of_pubmed_at_a_quarter_gets_more_than_the_old_fixed_8_gb():
    """PubMed's 4.75e9 pre-tokenised words are 4.06e9 whitespace words at 1.17 a word; a
    quarter, at 1.3 pre-tokenised words a word, holds 7.49 M distinct words at worst:
    (430 + 7.49e6 / 1024) * 1.25 = 9683 MB, which the 8000 MB asked before did not cover."""
    assert vocabulary_memory_mb(round(4.75e9 / 1.17), 0.25) == 9683


def test_the_vocabulary_jobs_ask_for_memory_and_disk_from_their_shards_words(
    tmp_path, repo_root, demo_config
):
    """After the corpus stage, the jobs' requests come from the shards' statistics: here
    the demo's three shards marked up to date, holding 1e8, 2e8 and 1e8 words."""
    workdir = tmp_path / "run"
    workdir.mkdir()
    (workdir / "demo").symlink_to(repo_root / "demo")
    config = workdir / "config.yaml"
    shutil.copy(repo_root / "config.yaml", config)
    fake_finished_run(workdir, [config])
    for stem, words in (("demo25n0001", 1e8), ("demo25n0002", 2e8), ("demo25n0003", 1e8)):
        (workdir / f"results/corpus/sentences/{stem}.stats.json").write_text(
            json.dumps({"words": int(words)})
        )
    (vocab,) = yaml.safe_load(config.read_text())["vocabularies"]
    planned = run_with_configs(
        workdir,
        [config],
        "-n",
        "--cores",
        "1",
        "--forcerun",
        "train_vocabulary",
        f"results/vocab/{vocab}/stats.json",
        f"results/pretraining_data/{vocab}.json",
    )
    assert planned.returncode == 0, planned.stderr[-3000:]
    block = planned.stdout.split("rule train_vocabulary:", 1)[1].split("\nrule ", 1)[0]
    # 4e8 words at sample_fraction 1: 5.2e8 pre-tokenised words, 15e6 * (5.2e8 / 4.75e9)
    # ** 0.542 = 4.52269e6 distinct: (430 + 4416.69) * 1.25 = 6058.4
    assert re.search(r"\bmem_mb=(\d+)", block).group(1) == "6059"
    # the tokenising job's disk: 5.2e8 pre-tokenised words at 10.8 bytes each, 5616 MB
    block = planned.stdout.split("rule tokenize_corpus:", 1)[1]
    assert re.search(r"\bdisk_mb=(\d+)", block).group(1) == "5616"
    assert demo_config["vocabularies"][vocab].get("sample_fraction", 1.0) == 1.0
