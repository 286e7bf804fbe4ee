"""The config's corpus section as its class (CorpusSettings): PubMed files as names, a range
or `all`, each checked as the generated schema checks them."""

from __future__ import annotations

import pytest

from biocompact.corpus.settings import CorpusSettings, PubmedFileRange
from biocompact.entries import parse_entry


@pytest.mark.parametrize(
    ("baseline", "parsed"),
    [
        (["pubmed25n0001"], ("pubmed25n0001",)),
        ({"prefix": "pubmed25n", "first": 1, "last": 2}, PubmedFileRange("pubmed25n", 1, 2)),
        ("all", "all"),
    ],
)
def test_pubmed_files_are_names_a_range_or_all(baseline, parsed):
    corpus = parse_entry(CorpusSettings, {"pubmed": {"baseline": baseline}})
    assert corpus.pubmed.baseline == parsed
    assert corpus.pubmed.updates == ()


@pytest.mark.parametrize(
    "baseline",
    ["some", ["a/b"], {"prefix": "p", "first": 1}, {"prefix": "p", "first": -1, "last": 2}],
)
def test_other_pubmed_files_are_refused(baseline):
    with pytest.raises(ValueError, match=r"^corpus\.pubmed\.baseline"):
        parse_entry(CorpusSettings, {"pubmed": {"baseline": baseline}})
