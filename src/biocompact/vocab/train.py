"""Train a subword vocabulary on streamed sentences and save it as a Hugging Face tokenizer folder.

A vocabulary type is one builder function in ``BUILDERS``; adding byte-level BPE or
unigram is a new builder plus a config value.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Sequence

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import BertTokenizerFast, PreTrainedTokenizerBase

from biocompact.atomic import atomic_path

log = logging.getLogger(__name__)

BERT_SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
MODEL_MAX_LENGTH = 512


def build_wordpiece(
    sentences: Iterable[str],
    vocab_size: int,
    lowercase: bool,
    min_frequency: int,
    limit_alphabet: int,
    extra_special_tokens: Sequence[str] = (),
) -> PreTrainedTokenizerBase:
    """BERT-style WordPiece: BERT normaliser and pre-tokeniser, ``##`` continuation pieces.

    ``extra_special_tokens`` (e.g. the ``@GENE$`` markers of relation-extraction data)
    follow BERT's five in the vocabulary and are never split or lower-cased.
    """
    duplicates = set(extra_special_tokens) & set(BERT_SPECIAL_TOKENS)
    if duplicates:
        raise ValueError(f"extra_special_tokens repeats BERT's own special tokens: {sorted(duplicates)}")
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=lowercase, strip_accents=lowercase)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        limit_alphabet=limit_alphabet,
        special_tokens=[*BERT_SPECIAL_TOKENS, *extra_special_tokens],
        show_progress=False,
    )
    tokenizer.train_from_iterator(sentences, trainer)
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


BUILDERS: dict[str, Callable[..., PreTrainedTokenizerBase]] = {"wordpiece": build_wordpiece}


def train_vocabulary(
    sentences: Iterable[str], out_dir: str | os.PathLike, vocab_type: str, **settings
) -> PreTrainedTokenizerBase:
    """Train a vocabulary of ``vocab_type`` and save it (atomically) as a tokenizer folder."""
    if vocab_type not in BUILDERS:
        raise ValueError(f"unknown vocabulary type {vocab_type!r}; known: {sorted(BUILDERS)}")
    tokenizer = BUILDERS[vocab_type](sentences, **settings)
    if len(tokenizer) <= len(BERT_SPECIAL_TOKENS):
        raise ValueError("vocabulary training saw no text: are the sentence shards empty?")
    with atomic_path(out_dir, is_dir=True) as folder:
        tokenizer.save_pretrained(folder)
    log.info("saved a %s vocabulary of %d tokens to %s", vocab_type, len(tokenizer), out_dir)
    return tokenizer
