"""Train a subword vocabulary on streamed sentences and save it as a Hugging Face tokenizer folder.

A vocabulary type is one builder function in ``BUILDERS`` plus a config value:
``wordpiece`` (BERT), ``bpe`` (RoBERTa's byte-level BPE, Lewis et al. 2020), ``unigram``
(ALBERT's SentencePiece-style unigram model, Alrowili and Shanker 2021) and ``modernbert``
(ModernBERT's byte-level BPE with BERT's special tokens, Warner et al. 2024). Every builder takes the same
settings (those of the config's vocabulary entry) and returns a fast tokenizer whose
special tokens are the ones its model family expects.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from tokenizers import (
    AddedToken,
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)
from transformers import BertTokenizerFast, PreTrainedTokenizerBase, PreTrainedTokenizerFast  # type: ignore[attr-defined]  # BertTokenizerFast: a lazy alias (of BertTokenizer) its type-checking imports omit

from biocompact.files.atomic import atomic_path

log = logging.getLogger(__name__)

# a corpus is read once per training pass: a callable that streams its sentences afresh
Corpus = Callable[[], Iterable[str]]

BERT_SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
MODEL_MAX_LENGTH = 512


def _special_token_list(specials: Iterable[str], extra_special_tokens: Sequence[str]) -> list[str]:
    """The vocabulary's own special tokens, then the extra ones (which may not repeat them)."""
    specials = list(specials)
    duplicates = set(extra_special_tokens) & set(specials)
    if duplicates:
        raise ValueError(
            f"extra_special_tokens repeats the vocabulary's own special tokens: {sorted(duplicates)}"
        )
    return [*specials, *extra_special_tokens]


def _bert_wordpiece_tokenizer(model: models.WordPiece, lowercase: bool) -> Tokenizer:
    tokenizer = Tokenizer(model)
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=lowercase, strip_accents=lowercase)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    return tokenizer


def _kept_alphabet(
    alphabet: list[str], limit: int, corpus: Corpus, normalizer: normalizers.Normalizer
) -> list[str]:
    """The ``limit`` most frequent characters, ties broken by code point (the trainer breaks them at random)."""
    counts: Counter[str] = Counter()
    for sentence in corpus():
        counts.update(normalizer.normalize_str(sentence))
    return sorted(sorted(alphabet, key=lambda c: (-counts[c], c))[:limit])


def build_wordpiece(
    corpus: Corpus,
    vocab_size: int,
    lowercase: bool,
    min_frequency: int,
    limit_alphabet: int,
    extra_special_tokens: Sequence[str] = (),
) -> PreTrainedTokenizerBase:
    """BERT-style WordPiece: BERT normaliser and pre-tokeniser, ``##`` continuation pieces.

    ``extra_special_tokens`` (e.g. the ``@GENE$`` markers of relation-extraction data)
    follow BERT's five in the vocabulary and are never split or lower-cased.

    The same corpus always gives the same vocabulary, with the same ids. ``tokenizers``'
    trainer alone does not (huggingface/tokenizers#1794): it numbers the ``##c`` pieces in
    hash-map order, a per-process random order that then breaks ties between merges of
    equal count, and it drops the rarest characters beyond ``limit_alphabet`` in random
    order among equal counts. So a first, merge-free pass lists the alphabet and the
    ``##c`` pieces; the second pass trains with those pieces numbered in sorted order and
    the alphabet fixed (cut by frequency, then code point, where the limit bites).
    """
    special_tokens = _special_token_list(BERT_SPECIAL_TOKENS, extra_special_tokens)

    survey = _bert_wordpiece_tokenizer(models.WordPiece(unk_token="[UNK]"), lowercase)
    survey.train_from_iterator(
        corpus(),
        trainers.WordPieceTrainer(vocab_size=0, special_tokens=special_tokens, show_progress=False),
    )
    pieces = set(survey.get_vocab(with_added_tokens=False)) - set(special_tokens)
    alphabet = sorted(p for p in pieces if len(p) == 1)
    if limit_alphabet and len(alphabet) > limit_alphabet:
        alphabet = _kept_alphabet(alphabet, limit_alphabet, corpus, survey.normalizer)
    continuations = sorted(
        p for p in pieces if len(p) == 3 and p.startswith("##") and p[2] in alphabet
    )

    trained = _bert_wordpiece_tokenizer(models.WordPiece(unk_token="[UNK]"), lowercase)
    trained.train_from_iterator(
        corpus(),
        trainers.WordPieceTrainer(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            limit_alphabet=len(alphabet),
            initial_alphabet=alphabet,  # always kept: exactly the others are cut
            special_tokens=[
                *special_tokens,
                *continuations,
            ],  # numbered in this order, before any merge
            show_progress=False,
        ),
    )
    # the pinned ``##c`` pieces were registered as special tokens: rebuild with the true specials only
    tokenizer = _bert_wordpiece_tokenizer(
        models.WordPiece(trained.get_vocab(with_added_tokens=False), unk_token="[UNK]"), lowercase
    )
    tokenizer.add_special_tokens(special_tokens)
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    return BertTokenizerFast(
        tokenizer_object=tokenizer,
        do_lower_case=lowercase,
        model_max_length=MODEL_MAX_LENGTH,
        extra_special_tokens=list(extra_special_tokens),
    )


# RoBERTa's special tokens, in its order (<pad> is id 1, as RoBERTa's position ids expect)
ROBERTA_SPECIAL_TOKENS = {
    "cls": "<s>",
    "pad": "<pad>",
    "sep": "</s>",
    "unk": "<unk>",
    "mask": "<mask>",
}
# ModernBERT's special tokens (Warner et al. 2024): BERT's names, here in BERT's order
MODERNBERT_SPECIAL_TOKENS = {
    "pad": "[PAD]",
    "unk": "[UNK]",
    "cls": "[CLS]",
    "sep": "[SEP]",
    "mask": "[MASK]",
}
# ALBERT's special tokens, in its order
ALBERT_SPECIAL_TOKENS = {
    "pad": "<pad>",
    "unk": "<unk>",
    "cls": "[CLS]",
    "sep": "[SEP]",
    "mask": "[MASK]",
}


def _wrap(
    tokenizer: Tokenizer,
    specials: dict[str, str],
    extra_special_tokens: Sequence[str],
    pair_type_ids: bool,
) -> PreTrainedTokenizerBase:
    """Add the ``[CLS] A [SEP] (B [SEP])`` post-processor and wrap as a transformers fast tokenizer.

    ``pair_type_ids``: the second segment gets token type 1 (ALBERT) or 0 (RoBERTa).
    """
    cls, sep = specials["cls"], specials["sep"]
    # like RoBERTa's: "a <mask>" masks the word together with its leading space
    mask = AddedToken(specials["mask"], lstrip=True, normalized=False, special=True)
    tokenizer.add_special_tokens([mask])
    ids = [(cls, tokenizer.token_to_id(cls)), (sep, tokenizer.token_to_id(sep))]
    second = ":1" if pair_type_ids else ""
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{cls} $A {sep}",
        pair=f"{cls} $A {sep} $B{second} {sep}{second}",
        special_tokens=ids,
    )
    input_names = (
        ["input_ids", "token_type_ids", "attention_mask"]
        if pair_type_ids
        else ["input_ids", "attention_mask"]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        model_max_length=MODEL_MAX_LENGTH,
        bos_token=cls,
        eos_token=sep,
        cls_token=cls,
        sep_token=sep,
        pad_token=specials["pad"],
        unk_token=specials["unk"],
        mask_token=mask,
        extra_special_tokens=list(extra_special_tokens),
        model_input_names=input_names,
    )


def _byte_level_bpe(
    corpus: Corpus,
    vocab_size: int,
    lowercase: bool,
    min_frequency: int,
    special_tokens: Sequence[str],
    add_prefix_space: bool,
) -> Tokenizer:
    """A byte-level BPE trained on ``corpus``, its ``special_tokens`` first in the vocabulary."""
    tokenizer = Tokenizer(models.BPE())
    if lowercase:
        tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=list(special_tokens),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus(), trainer)
    return tokenizer


def build_byte_level_bpe(
    corpus: Corpus,
    vocab_size: int,
    lowercase: bool,
    min_frequency: int,
    limit_alphabet: int,
    extra_special_tokens: Sequence[str] = (),
) -> PreTrainedTokenizerBase:
    """RoBERTa-style byte-level BPE (Lewis et al. 2020): no unknown tokens, words are the pre-tokeniser's.

    The alphabet is the 256 bytes, so ``limit_alphabet`` does not apply.
    """
    special_tokens = _special_token_list(ROBERTA_SPECIAL_TOKENS.values(), extra_special_tokens)
    tokenizer = _byte_level_bpe(
        corpus, vocab_size, lowercase, min_frequency, special_tokens, add_prefix_space=True
    )
    return _wrap(tokenizer, ROBERTA_SPECIAL_TOKENS, extra_special_tokens, pair_type_ids=False)


def build_modernbert(
    corpus: Corpus,
    vocab_size: int,
    lowercase: bool,
    min_frequency: int,
    limit_alphabet: int,
    extra_special_tokens: Sequence[str] = (),
) -> PreTrainedTokenizerBase:
    """ModernBERT's vocabulary type (Warner et al. 2024, "Smarter, Better, Faster, Longer"):
    a byte-level BPE like OLMo's, which ModernBERT's tokenizer modifies to carry BERT's
    special tokens and ``[CLS] A [SEP] (B [SEP])`` inputs without token types.

    As in ModernBERT's tokenizer, no space is prefixed to the text (a sentence's first word
    is the piece without the leading space) and ``[MASK]`` takes the space before it. The
    special tokens come first here (ModernBERT appends them after OLMo's 50k pieces); the
    ids reach the model config from the tokenizer. The alphabet is the 256 bytes, so
    ``limit_alphabet`` does not apply.
    """
    special_tokens = _special_token_list(MODERNBERT_SPECIAL_TOKENS.values(), extra_special_tokens)
    tokenizer = _byte_level_bpe(
        corpus, vocab_size, lowercase, min_frequency, special_tokens, add_prefix_space=False
    )
    return _wrap(tokenizer, MODERNBERT_SPECIAL_TOKENS, extra_special_tokens, pair_type_ids=False)


def build_unigram(
    corpus: Corpus,
    vocab_size: int,
    lowercase: bool,
    min_frequency: int,
    limit_alphabet: int,
    extra_special_tokens: Sequence[str] = (),
) -> PreTrainedTokenizerBase:
    """ALBERT-style unigram language model over ``▁``-prefixed words (SentencePiece's scheme).

    Unigram training keeps pieces by likelihood over every character seen, so
    ``min_frequency`` and ``limit_alphabet`` do not apply.
    """
    special_tokens = _special_token_list(ALBERT_SPECIAL_TOKENS.values(), extra_special_tokens)
    tokenizer = Tokenizer(models.Unigram())
    steps = [normalizers.NFKC(), normalizers.Replace("``", '"'), normalizers.Replace("''", '"')]
    tokenizer.normalizer = normalizers.Sequence(
        [*steps, normalizers.Lowercase()] if lowercase else steps
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=vocab_size,
        special_tokens=special_tokens,
        unk_token=ALBERT_SPECIAL_TOKENS["unk"],
        max_piece_length=16,
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus(), trainer)
    return _wrap(tokenizer, ALBERT_SPECIAL_TOKENS, extra_special_tokens, pair_type_ids=True)


BUILDERS: dict[str, Callable[..., PreTrainedTokenizerBase]] = {
    "wordpiece": build_wordpiece,
    "bpe": build_byte_level_bpe,
    "unigram": build_unigram,
    "modernbert": build_modernbert,
}


def train_vocabulary(
    corpus: Corpus, out_dir: str | os.PathLike, vocab_type: str, **settings
) -> PreTrainedTokenizerBase:
    """Train a vocabulary of ``vocab_type`` and save it (atomically) as a tokenizer folder."""
    if vocab_type not in BUILDERS:
        raise ValueError(f"unknown vocabulary type {vocab_type!r}; known: {sorted(BUILDERS)}")
    tokenizer = BUILDERS[vocab_type](corpus, **settings)
    if len(tokenizer) <= len(BERT_SPECIAL_TOKENS):
        raise ValueError("vocabulary training saw no text: are the sentence shards empty?")
    with atomic_path(out_dir, is_dir=True) as folder:
        tokenizer.save_pretrained(folder)
    log.info("saved a %s vocabulary of %d tokens to %s", vocab_type, len(tokenizer), out_dir)
    return tokenizer
