"""Registry of task families by the config's ``family`` key (and file ``format`` where a
family has several implementations, e.g. single- and multi-label document classification):
every family a format declares (``taskfiles/formats.py``), with its implementations.
Light to import (no torch, transformers or ``datasets``): the report reads predictions
through it."""

from __future__ import annotations

from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.multilabel_classification import MultiLabelClassification
from biocompact.finetuning.question_answering import ExtractiveQuestionAnswering
from biocompact.finetuning.sentence_similarity import SentenceSimilarity
from biocompact.finetuning.sequence_classification import SequenceClassification
from biocompact.finetuning.token_classification import TokenClassification
from biocompact.finetuning.yesno import YesNoQuestions
from biocompact.taskfiles.formats import FAMILY_NAMES

# the implementations of the families that are not single-label classification with the
# default metric; a name's second implementation is chosen by format (dc: multi-label for
# MultiLabelText, single-label for LabelledText)
IMPLEMENTATIONS: dict[str, tuple[TaskFamily, ...]] = {
    "ner": (TokenClassification(),),
    "dc": (MultiLabelClassification(), SequenceClassification("dc")),
    "nli": (SequenceClassification("nli", "accuracy", binary_default=False),),
    "qa_factoid": (ExtractiveQuestionAnswering(),),
    "qa_yesno": (YesNoQuestions(),),
    "similarity": (SentenceSimilarity(),),
}
# every family the formats declare (FAMILY_NAMES, the schema's enum), in their order;
# one without implementations above classifies a text (or pair) into one label (re)
FAMILIES: dict[str, tuple[TaskFamily, ...]] = {
    name: IMPLEMENTATIONS.get(name, (SequenceClassification(name),)) for name in FAMILY_NAMES
}


def get_family(name: str, fmt: str | None = None) -> TaskFamily:
    """The task family registered as ``name`` that reads ``fmt`` (its first one if None)."""
    if name not in FAMILIES:
        raise ValueError(f"unknown task family {name!r}; known: {sorted(FAMILIES)}")
    for family in FAMILIES[name]:
        if fmt is None or fmt in family.readers:
            return family
    formats = sorted(fmt for family in FAMILIES[name] for fmt in family.readers)
    raise ValueError(f"unknown {name} format {fmt!r}; known: {formats}")
