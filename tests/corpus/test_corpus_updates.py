"""Applying PubMed update files: newer versions win, deletions remove, re-additions return."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from biocompact.corpus.pubmed import parse_pubmed, read_citations
from biocompact.corpus.updates import latest_records, read_keep_list, write_keep_lists

REAL_STEMS = [
    "baseline/pubmed20n1015",
    "baseline/pubmed21n1062",
    "baseline/pubmed22n1114",
    "baseline/pubmed23n1166",
    "baseline/pubmed24n1219",
    "updatefiles/pubmed20n1016",
    "updatefiles/pubmed21n1063",
    "updatefiles/pubmed22n1115",
]


def article(pmid: int, version: int) -> str:
    return (
        f'<PubmedArticle><MedlineCitation><PMID Version="{version}">{pmid}</PMID><Article>'
        f"<ArticleTitle>T{pmid}v{version}</ArticleTitle></Article>"
        "</MedlineCitation></PubmedArticle>"
    )


def pubmed_file(folder: Path, name: str, records: list[tuple[int, int]], deleted=()) -> Path:
    body = "".join(article(pmid, version) for pmid, version in records)
    if deleted:
        pmids = "".join(f"<PMID>{pmid}</PMID>" for pmid in deleted)
        body += f"<DeleteCitation>{pmids}</DeleteCitation>"
    path = folder / f"{name}.xml.gz"
    path.write_bytes(gzip.compress(f"<PubmedArticleSet>{body}</PubmedArticleSet>".encode()))
    return path


def parse_all(tmp_path: Path, xml_files: list[Path]) -> tuple[list[Path], list[Path]]:
    documents, metas = [], []
    for xml in xml_files:
        stem = xml.name.removesuffix(".xml.gz")
        documents.append(tmp_path / "parsed" / f"{stem}.jsonl.gz")
        metas.append(tmp_path / "parsed" / f"{stem}.json")
        parse_pubmed(xml, documents[-1], metas[-1])
    return documents, metas


def test_versions_deletions_and_returns(tmp_path):
    files = [
        pubmed_file(tmp_path, "a", [(1, 1), (2, 1), (3, 2), (4, 1), (5, 1), (6, 1)]),
        pubmed_file(tmp_path, "b", [(1, 2), (3, 1), (7, 1)], deleted=[2, 5]),
        pubmed_file(tmp_path, "c", [(2, 1), (4, 1), (6, 2)], deleted=[6]),
    ]
    documents, metas = parse_all(tmp_path, files)
    keep = [tmp_path / "latest" / f"{name}.keep.txt.gz" for name in "abc"]
    write_keep_lists(documents, metas, keep)
    # 1: newer version in b; 3: b's lower version loses; 7: new in b;
    # 2: deleted in b, back in c; 4: same version in c wins; 5: deleted; 6: deleted after c's record
    assert [read_keep_list(path) for path in keep] == [{"3"}, {"1", "7"}, {"2", "4"}]
    assert gzip.open(keep[1], "rt").read() == "1\n7\n"  # in file order


def test_versions_within_one_file(tmp_path):
    files = [pubmed_file(tmp_path, "a", [(9, 2), (9, 3), (9, 1), (8, 1), (8, 1)])]
    winners = latest_records(*parse_all(tmp_path, files))
    assert winners.to_dict("records") == [
        {"pmid": 9, "version": 3, "file": 0},
        {"pmid": 8, "version": 1, "file": 0},
    ]
    assert list(winners.index) == [1, 4]  # v3 of 9; the later of 8's two v1 records


def test_real_files(shared_data, tmp_path):
    xml = [shared_data / "pubmed" / f"{stem}.xml.gz" for stem in REAL_STEMS]
    documents, metas = parse_all(tmp_path, xml)
    keep = [tmp_path / "latest" / f"{Path(stem).name}.keep.txt.gz" for stem in REAL_STEMS]
    write_keep_lists(documents, metas, keep, tmp_path / "latest" / "pmids.npy")
    pmids = np.load(tmp_path / "latest" / "pmids.npy")
    assert pmids.dtype == np.int64 and len(pmids) == 26 + 26 + 28 + 32 + 30 + 28 + 30 + 30
    assert list(pmids) == sorted(int(p) for path in keep for p in read_keep_list(path))
    # distinct PMIDs per file: the files do not overlap, versions 2-4 repeat PMIDs within a file
    assert [len(read_keep_list(path)) for path in keep] == [26, 26, 28, 32, 30, 28, 30, 30]
    winners = latest_records(documents, metas).set_index("pmid")
    assert winners.loc[31814964, "version"] == 3
    assert winners.loc[34853674, "version"] == 4
    assert set(read_keep_list(keep[0])) <= {c["pmid"] for c in read_citations(documents[0])}
