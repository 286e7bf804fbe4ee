"""A fast rule-based sentence splitter for biomedical abstracts (``splitter: rules``).

The rules were designed on the error cases of GENIA Treebank train (tuned there, reported
on dev; see docs/corpus.md). A boundary is a token ending in ``.``, ``?`` or
``!`` (closing brackets and quotes allowed after it) that is followed by a token that
can start a sentence, unless one of the exceptions below holds.

Why it is measurably better than pySBD (scispaCy's ``pysbd_sentencizer``) on biomedical
text, besides being much faster (pure string tests, linear in the text; measured:
docs/speed.md, section "Figures behind code choices"):

* pySBD reads a single capital before a full stop as a person's initial and never ends a
  sentence there; in biomedical text it is mostly a gene or complex name ("... of
  NF-kappa B. Previously, ..."): 115 of GENIA train's gold sentences end that way.
* pySBD starts a new sentence at list markers after a colon or semicolon ("that: (a) ...;
  (b) ...", "1) ...; 2) ..."); GENIA (like most treebanks) keeps them in one sentence.
* Sentences that start with a lower-case gene or molecule name ("c-myc ...", "p53 ...",
  "mRNA ...", "beta-Catenin ...") are recognised by their shape.
* A full stop inside an unclosed bracket that closes soon is a citation ("(S. Zalani,
  E. Holley-Guthrie, ... Proc. Natl. Acad. Sci. USA 93:9194, 1996)"), never a boundary.
"""

from __future__ import annotations

import re

# Lower-cased abbreviations that do not end a sentence before a capital (checked only when
# the word is not all capitals: "No." is an abbreviation, "NO." nitric oxide).
ABBREVIATIONS = frozenset(
    "al approx ca cf dr e.g eq eqs fig figs i.e jr mr mrs ms no nos pp prof ref refs "
    "resp sect sp spp st subsp tab var viz vol vs".split()
)
GREEK = frozenset(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi "
    "rho sigma tau upsilon phi chi psi omega".split()
)
CLOSERS = ")]}\"'\u201d\u2019"
OPENERS = "([{\"'\u201c\u2018"
# A bracket left open before a full stop must close within this many tokens for the full
# stop to count as inside it (a stray "(" must not swallow the rest of a long text).
BRACKET_LOOKAHEAD = 30

_INITIALS = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")  # e.g / i.e / U.S before the last stop
_LIST_MARKER = re.compile(r"\(?\d{1,2}[.)]")  # "1." or "(2)" opening an enumerated abstract
_LOWER_NAME = re.compile(r"[a-z]-|[a-z]*[A-Z0-9]")  # c-myc, mRNA, p53, gp41


def _ends_sentence(token: str) -> bool:
    core = token.rstrip(CLOSERS)
    if not core or core[-1] not in ".!?":
        return False
    if core[-1] != ".":
        return True
    word = core[:-1].lstrip(OPENERS)
    if not word.strip("."):  # a standalone ellipsis marks an omission
        return False
    if word.lower() in ABBREVIATIONS and not word.isupper():
        return False
    return _INITIALS.fullmatch(word) is None


def _starts_sentence(token: str) -> bool:
    first = token.lstrip(OPENERS)[:1]
    if token[0] in OPENERS or first.isupper() or first.isdigit():
        return True
    if first.islower():
        return _LOWER_NAME.match(token) is not None or token.split("-")[0].lower() in GREEK
    return False


def _bracket_closes_soon(tokens: list[str], index: int) -> bool:
    """Whether an open bracket closes within the next tokens (self-contained pairs skipped)."""
    for token in tokens[index + 1 : index + 1 + BRACKET_LOOKAHEAD]:
        opened = token.count("(") + token.count("[")
        closed = token.count(")") + token.count("]")
        if closed > opened:
            return True
        if opened > closed:
            return False
    return False


def _bracket_balance(token: str) -> int:
    return token.count("(") + token.count("[") - token.count(")") - token.count("]")


def split_text(text: str) -> list[str]:
    """The sentences of one paragraph, each with its whitespace collapsed to single spaces."""
    tokens = text.split()
    sentences: list[str] = []
    start = depth = 0
    for index, token in enumerate(tokens[:-1]):
        depth = max(0, depth + _bracket_balance(token))
        if not (_ends_sentence(token) and _starts_sentence(tokens[index + 1])):
            continue
        if index == start and _LIST_MARKER.fullmatch(token):
            continue
        if depth and _bracket_closes_soon(tokens, index):
            continue
        sentences.append(" ".join(tokens[start : index + 1]))
        start, depth = index + 1, 0
    if start < len(tokens):
        sentences.append(" ".join(tokens[start:]))
    return sentences
