"""The default rule-based sentence splitter: biomedical cases and GENIA Treebank dev."""

from __future__ import annotations

import pytest

from biocompact.corpus.sentence_eval import read_gold_abstracts, score_splitter
from biocompact.corpus.sentence_rules import split_text
from biocompact.corpus.sentences import build_splitter

CASES = {
    "gene name before a stop": (
        "The gene encodes the p50 precursor of NF-kappa B. Previously, we showed this.",
        ["The gene encodes the p50 precursor of NF-kappa B.", "Previously, we showed this."],
    ),
    "species, et al., Fig., vs.": (
        "Growth of E. coli was shown by Smith et al. In mice it rose (Fig. 2) vs. controls. "
        "It stopped.",
        [
            "Growth of E. coli was shown by Smith et al. In mice it rose (Fig. 2) vs. controls.",
            "It stopped.",
        ],
    ),
    "list markers stay inside": (
        "We show that: (a) X binds Y; (b) Z binds W. 1) A is up; 2) B is down.",
        ["We show that: (a) X binds Y; (b) Z binds W.", "1) A is up; 2) B is down."],
    ),
    "numbered abstract": (
        "1. Danazol reduced ER. 2. It did not alter ER mRNA.",
        ["1. Danazol reduced ER.", "2. It did not alter ER mRNA."],
    ),
    "lower-case gene names start sentences": (
        "It was induced. c-myc did not correlate. mRNA levels rose. beta-Catenin bound. it stayed.",
        [
            "It was induced.",
            "c-myc did not correlate.",
            "mRNA levels rose.",
            "beta-Catenin bound. it stayed.",
        ],
    ),
    "citation inside brackets": (
        "This was reported (S. Zalani, E. Holley, Proc. Natl. Acad. Sci. USA 93:9194, 1996). "
        "We confirm it.",
        [
            "This was reported (S. Zalani, E. Holley, Proc. Natl. Acad. Sci. USA 93:9194, 1996).",
            "We confirm it.",
        ],
    ),
    "No. vs NO., question mark, ellipsis": (
        "See No. 5 and CTTGG ... CCAAG. Is NO. It is? Yes!",
        ["See No. 5 and CTTGG ... CCAAG.", "Is NO.", "It is?", "Yes!"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_biomedical_cases(case):
    text, sentences = CASES[case]
    assert split_text(text) == sentences


def test_stray_bracket_does_not_swallow_the_text():
    text = "A stray ( opens here. " + "Then a sentence follows. " * 40
    assert len(split_text(text)) == 41
    assert split_text("  \n ") == []


def test_sections_stay_apart():
    splitter = build_splitter("rules")
    assert list(splitter.split(["BACKGROUND: Sepsis\nMETHODS: We enrolled 10. Data.", ""])) == [
        ["BACKGROUND: Sepsis", "METHODS: We enrolled 10.", "Data."],
        [],
    ]
    with pytest.raises(ValueError, match="needs splitter: scispacy"):
        build_splitter("rules", "en_core_sci_sm")


def test_genia_dev(shared_data):
    """Tuned on GENIA train; the dev figures recorded in docs/corpus.md, beside pySBD's."""
    gold = list(read_gold_abstracts(shared_data / "sentences/genia/dev"))
    rules = score_splitter(build_splitter("rules").split, gold)
    pysbd = score_splitter(build_splitter("scispacy").split, gold)
    assert rules.abstracts == 148
    assert rules.exact == pytest.approx(147 / 148)
    assert rules.f1 == pytest.approx(0.99876, abs=5e-5)
    assert (pysbd.f1, pysbd.exact) == (pytest.approx(0.98806, abs=5e-5), pytest.approx(141 / 148))
