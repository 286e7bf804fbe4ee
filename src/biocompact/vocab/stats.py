"""Vocabulary statistics on held-out sentences: fertility and unknown-token rate."""

from __future__ import annotations

from collections.abc import Iterable

from transformers import PreTrainedTokenizerBase

from biocompact.records.vocabulary import HeldoutStatistics


def vocabulary_statistics(
    tokenizer: PreTrainedTokenizerBase, sentences: Iterable[str]
) -> HeldoutStatistics:
    """Fertility = subword tokens per whitespace-separated word; unk_rate = share of unknown tokens."""
    words = tokens = unknown = n_sentences = 0
    unk_id = tokenizer.unk_token_id
    for sentence in sentences:
        ids = tokenizer(sentence, add_special_tokens=False)["input_ids"]
        n_sentences += 1
        words += len(sentence.split())
        tokens += len(ids)
        unknown += sum(1 for token_id in ids if token_id == unk_id)
    if words == 0:
        raise ValueError("no held-out sentences to measure the vocabulary on")
    return HeldoutStatistics(
        vocab_size=len(tokenizer),
        heldout_sentences=n_sentences,
        heldout_words=words,
        fertility=tokens / words,
        unk_rate=unknown / tokens if tokens else 0.0,
    )
