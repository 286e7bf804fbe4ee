"""Randomised transfer data (BioXtract, section 5.1.1, after Krishna et al.'s RANDOM queries):
a vocabulary from the words of general-domain passages, new passages sampled from its
unigram frequencies, and for question-answering tasks a question made of a question word
followed by words sampled uniformly from the new passage."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from biocompact.taskfiles.readers import LabelledText

QUESTION_STARTERS = (
    "is",
    "are",
    "does",
    "do",
    "can",
    "was",
    "did",
    "what",
    "how",
    "which",
    "who",
    "where",
    "when",
    "why",
)
QUESTION_WORDS = (3, 10)  # fewest and most passage words after the question word
SOURCE = "randomised"


def randomised_examples(
    passages: Sequence[str],
    count: int,
    seed: int,
    questions: bool = False,
    starters: Sequence[str] = QUESTION_STARTERS,
) -> list[LabelledText]:
    """``count`` unlabelled examples, a pure function of the arguments.

    Vocabulary: the whitespace-separated words of ``passages`` with their counts. Each new
    passage draws as many words as a source passage drawn at random, each word with
    probability proportional to its count. With ``questions``, each example is the pair
    (question, passage), the question being a starter word followed by 3 to 10 words drawn
    uniformly (with replacement) from the passage.
    """
    tokenised = [passage.split() for passage in passages]
    frequencies = Counter(word for words in tokenised for word in words)
    if not frequencies:
        raise ValueError("randomised transfer data: the source passages have no words")
    vocabulary, weights = list(frequencies), list(frequencies.values())
    lengths = [len(words) for words in tokenised if words]
    rng = random.Random(seed)
    examples = []
    for index in range(count):
        passage = rng.choices(vocabulary, weights, k=rng.choice(lengths))
        if questions:
            length = rng.randint(*QUESTION_WORDS)
            question = " ".join([rng.choice(starters), *rng.choices(passage, k=length)])
            example = LabelledText(str(index), question, "", SOURCE, index + 1, " ".join(passage))
        else:
            example = LabelledText(str(index), " ".join(passage), "", SOURCE, index + 1)
        examples.append(example)
    return examples
