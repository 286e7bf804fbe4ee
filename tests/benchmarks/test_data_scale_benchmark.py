"""The formulas of benchmarks/data_scale.py (the PubMed-scale projection of docs/slurm.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "data_scale.py"
spec = importlib.util.spec_from_file_location("data_scale", SCRIPT)
data_scale = importlib.util.module_from_spec(spec)
spec.loader.exec_module(data_scale)


def test_renamed_cycles_add_distinct_words_and_repeated_ones_do_not(tmp_path):
    documents = [["Gene A binds B.", "It works."], ["No, it does not."]]
    # words: gene a binds b . / it works . / no , it does not . -> 5 + 3 + 6
    repeated = tmp_path / "repeated.txt"
    assert data_scale.write_shard(documents, 2, False, repeated) == 2 * 14
    assert data_scale.distinct_words(repeated) == 11  # "it" twice, "." thrice
    renamed = tmp_path / "renamed.txt"
    assert data_scale.write_shard(documents, 2, True, renamed) == 2 * 14
    assert renamed.read_text().split("\n")[5] == "Genex1 Ax1 bindsx1 Bx1."
    # the second cycle's 9 distinct words with letters are new; ".", "," are shared
    assert data_scale.distinct_words(renamed) == 11 + 9


def test_heaps_law_of_text_whose_every_word_is_new():
    documents = [[f"w{i}a w{i}b w{i}c w{i}d w{i}e"] for i in range(300)]
    k, beta = data_scale.heaps_law(documents)  # distinct = words at 500, 1000, 1500 words
    assert k == pytest.approx(1.0) and beta == pytest.approx(1.0)


def test_fit_recovers_a_linear_cost():
    rows = [
        {"cpu": 3 + 2 * w + 5 * d, "words": w, "distinct": d}
        for w, d in ((1, 1), (2, 1), (4, 1), (2, 2), (4, 4))
    ]
    assert data_scale.fit(rows, "cpu", ("words", "distinct")) == pytest.approx([3, 2, 5])


def test_the_decontamination_section_reads_blurbs_dev_and_test_sets(shared_data):
    from biocompact.corpus.evaluation_text import evaluation_splits
    from biocompact.entries import parse_entry
    from biocompact.taskfiles.settings import FinetuningTask

    splits = [
        split
        for entry in data_scale.blurb_tasks()
        for split in evaluation_splits(parse_entry(FinetuningTask, entry))
    ]
    # dev and test of NCBI-disease, BC5CDR-chem, BC2GM, HoC, ChemProt; GAD's ten test folds as
    # one test split; BioASQ's two test sets
    assert len(splits) == 13 and all(split.examples for split in splits)
    (gad,) = [split for split in splits if split.task == "GAD"]
    assert len(gad.files) == 10


def test_disk_in_use_counts_deleted_files_still_open_or_mapped_once(tmp_path):
    import mmap

    folder = tmp_path / "job"
    folder.mkdir()
    (folder / "kept.bin").write_bytes(b"k" * 1000)
    (tmp_path / "outside.bin").write_bytes(b"o" * 500)
    (folder / "mapped.bin").write_bytes(b"m" * 8192)  # two 4 KiB pages
    (folder / "open.bin").write_bytes(b"x" * 300)
    with (
        open(folder / "mapped.bin", "rb") as mapped_file,
        open(folder / "open.bin", "rb") as open_file,
        open(tmp_path / "outside.bin", "rb") as outside,
    ):
        mapping = mmap.mmap(mapped_file.fileno(), 0, access=mmap.ACCESS_READ)
        for path in (folder / "mapped.bin", folder / "open.bin", tmp_path / "outside.bin"):
            path.unlink()
        assert data_scale.folder_bytes(folder) == 1000
        # mapped.bin is open and mapped: once, 8192; open.bin 300; outside.bin is not the job's
        assert data_scale.held_deleted_bytes(folder) == 8192 + 300
        assert data_scale.disk_in_use(folder) == 1000 + 8192 + 300
        open_file.close()
        mapped_file.close()  # still mapped: counted by its mapped extent
        assert data_scale.held_deleted_bytes(folder) == 8192
        mapping.close()
        assert outside.read() == b"o" * 500
    assert data_scale.disk_in_use(folder) == 1000


DRY_RUN = """
rule train_vocabulary:
    wildcards: vocab=pubmed-uncased
    threads: 2
    resources: tmpdir=/tmp, runtime=240, mem_mb=<TBD>, mem=<TBD>, mem_mib=<TBD>
[Sat Nov 28 19:50:59 2026]
rule tokenize_corpus:
    threads: 32
    resources: tmpdir=/tmp, runtime=120, mem_mb=21200, disk_mb=<TBD>, disk=<TBD>

rule corpus_decontaminate:
    resources: tmpdir=/tmp, runtime=30, mem_mb=1000, mem=1 GB, mem_mib=954
"""


def test_declared_resources_read_from_a_dry_run_as_text():
    """What the dry run leaves to be determined is computed for all of PubMed's 4.75e9
    pre-tokenised words, 3,653,846,154 whitespace words: the vocabulary's 9175 MB
    (docs/slurm.md) and 4.75e9 x 10.8 bytes = 51,300.000002 MB of disk, rounded up."""
    assert data_scale.declared_in(DRY_RUN) == {
        "train_vocabulary": {
            "threads": "2",
            "mem_mb": "9175 (from all of PubMed's words)",
            "disk_mb": "-",
            "runtime": "240",
        },
        "tokenize_corpus": {
            "threads": "32",
            "mem_mb": "21200",
            "disk_mb": "51301 (from all of PubMed's words)",
            "runtime": "120",
        },
        "corpus_decontaminate": {"threads": "1", "mem_mb": "1000", "disk_mb": "-", "runtime": "30"},
    }


def test_decontamination_projection_adds_each_files_job_start_up():
    """1 CPU-s per M words, 400 MB, 1.69 bytes a word out, the threads as a dry run prints
    them (text). Scan: 4,750 M words x 1 = 4,750 CPU-s (1.32 h); start-up: 1,274 jobs x 0.72 =
    917.28 CPU-s (0.25 h); 5,667.28 CPU-s (1.57 h), 2.95 min on 32 cores. A file: 4.75e9 /
    1,274 = 3.73 M words, 3.73 + 0.72 = 4.45 s; out: 1.69 x 4.75e9 = 8.03 GB."""
    declared = {
        "tokenize_corpus": {"threads": "32", "mem_mb": "21200", "disk_mb": "-", "runtime": "120"},
        "corpus_decontaminate": {"threads": "1", "mem_mb": "1000", "disk_mb": "-", "runtime": "30"},
    }
    assert data_scale.decontamination_projection(1.0, 400.0, 1.69, declared) == (
        "| corpus_decontaminate (one per file) | 1.57 (scan 1.32, start-up 0.25: 0.72 CPU-s a "
        "job, 1,274 jobs) | 3 min on one 32-core node; 4.4 s a file of 3.7 M words | 400 MB | "
        "8 GB out (a copy of the sentence shards less what is removed) | threads 1, "
        "mem_mb 1000, runtime 30 min |"
    )
