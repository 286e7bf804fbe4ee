"""Corpus-stage throughput per core and peak memory, beside the naive path.

Builds a full-size PubMed file (30,000 records by default) by replicating the real records
of ``../shared/data/pubmed`` with fresh PMIDs, then measures, each in a fresh process
(one core, peak RSS of that process):

* parse: ``biocompact.corpus.pubmed.parse_pubmed`` vs ``pubmed_parser.parse_medline_xml``;
* split: the default ``rules`` splitter vs scispaCy's tokenizer + pySBD over ``nlp.pipe``
  (``splitter: scispacy``), on the parsed abstracts, and the whole ``split_sentences`` job;
* sentence boundaries on GENIA Treebank dev (sentence F1, share of abstracts exactly right).

Throughput per core is items per CPU-second of the one process (the wall clock is printed
beside it; on a machine shared with other jobs it is the less stable figure).

    .venv/bin/python benchmarks/corpus_throughput.py [--records 30000] [--naive-abstracts 300]
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from lxml import etree

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def build_pubmed_file(data: Path, records: int, output: Path) -> None:
    """Write ``records`` real PubMed records (cycled, PMIDs renumbered) as one gzipped file."""
    originals = []
    for path in sorted((data / "pubmed").glob("*/*.xml.gz")):
        with gzip.open(path) as handle:
            for _, element in etree.iterparse(handle, tag="PubmedArticle"):
                originals.append(etree.tostring(element))
    with gzip.open(output, "wb") as out:
        out.write(b'<?xml version="1.0" encoding="utf-8"?>\n<PubmedArticleSet>\n')
        for pmid, record in enumerate(itertools.islice(itertools.cycle(originals), records), 1):
            element = etree.fromstring(record)
            element.find("MedlineCitation/PMID").text = str(pmid)
            out.write(etree.tostring(element) + b"\n")
        out.write(b"</PubmedArticleSet>\n")


class Clock:
    """Wall-clock and CPU seconds of this process since creation, and its peak RSS."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def stop(self, items: int) -> tuple[int, float, float, float]:
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return items, time.perf_counter() - self.wall, time.process_time() - self.cpu, peak_mb


def parse_ours(xml: str, folder: str) -> tuple[int, float, float, float]:
    from biocompact.corpus.pubmed import parse_pubmed

    clock = Clock()
    summary = parse_pubmed(xml, f"{folder}/p.jsonl.gz", f"{folder}/p.json")
    return clock.stop(summary["records"])


def parse_naive(xml: str, folder: str) -> tuple[int, float, float, float]:
    from pubmed_parser import parse_medline_xml

    clock = Clock()
    return clock.stop(sum(1 for _ in parse_medline_xml(xml)))


def split_only(splitter: str, folder: str, limit: int | None) -> tuple[int, float, float, float]:
    from biocompact.corpus.pubmed import read_citations
    from biocompact.corpus.sentences import build_splitter

    texts = [c["abstract"] for c in read_citations(f"{folder}/p.jsonl.gz") if c["abstract"]]
    texts = texts[:limit]
    segmenter = build_splitter(splitter)
    clock = Clock()
    for _ in segmenter.split(texts):
        pass
    return clock.stop(len(texts))


def split_job(splitter: str, folder: str) -> tuple[int, float, float, float]:
    from biocompact.corpus.pubmed import read_citations
    from biocompact.corpus.sentences import split_sentences

    keep = f"{folder}/keep.txt.gz"
    with gzip.open(keep, "wt") as out:
        out.writelines(f"{c['pmid']}\n" for c in read_citations(f"{folder}/p.jsonl.gz"))
    clock = Clock()
    stats = split_sentences(
        f"{folder}/p.jsonl.gz", keep, f"{folder}/s.txt.gz", f"{folder}/s.json", splitter=splitter
    )
    return clock.stop(stats["documents"])


def genia(splitter: str, folder: str) -> tuple[float, float]:
    from biocompact.corpus.sentence_eval import read_gold_abstracts, score_splitter
    from biocompact.corpus.sentences import build_splitter

    scores = score_splitter(build_splitter(splitter).split, read_gold_abstracts(folder))
    return scores.f1, scores.exact


def in_fresh_process(function, *args):
    """Run ``function(*args)`` in a new single-worker process (its own peak RSS)."""
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=30_000)
    parser.add_argument("--naive-abstracts", type=int, default=300)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        xml = f"{folder}/full.xml.gz"
        build_pubmed_file(args.data, args.records, Path(xml))
        print(f"input: {args.records} records, {Path(xml).stat().st_size / 2**20:.1f} MiB gzipped")
        print(
            f"{'measure':<40} {'items':>6} {'wall s':>7} {'CPU s':>6} {'per CPU-s':>9} "
            f"{'peak RSS MB':>11}"
        )
        runs = [
            ("parse, biocompact (records)", parse_ours, xml, folder),
            ("parse, pubmed_parser.parse_medline_xml", parse_naive, xml, folder),
            ("split, rules (abstracts)", split_only, "rules", folder, None),
            (
                "split, scispacy + pysbd nlp.pipe",
                split_only,
                "scispacy",
                folder,
                args.naive_abstracts,
            ),
            ("split_sentences job, rules (documents)", split_job, "rules", folder),
        ]
        for label, function, *call in runs:
            items, wall, cpu, rss = in_fresh_process(function, *call)
            rate = items / cpu
            print(f"{label:<40} {items:>6} {wall:>7.2f} {cpu:>6.2f} {rate:>9.0f} {rss:>11.0f}")
    gold = args.data / "sentences" / "genia" / "dev"
    for splitter in ("rules", "scispacy"):
        f1, exact = in_fresh_process(genia, splitter, str(gold))
        print(f"GENIA dev, {splitter:<8}: sentence F1 {f1:.4f}, abstracts exact {exact:.1%}")


if __name__ == "__main__":
    main()
