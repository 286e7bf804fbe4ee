"""Vocabulary types of the model families: byte-level BPE (RoBERTa, ModernBERT) and unigram (ALBERT)."""

import pytest
from transformers import AutoTokenizer

from biocompact.entries import parse_entry
from biocompact.vocab.build import build_vocabulary
from biocompact.vocab.settings import VocabularySettings
from biocompact.vocab.tokenized_corpus import build_tokenized_corpus
from biocompact.vocab.train import build_modernbert

SETTINGS = {
    "vocab_size": 300,
    "lowercase": True,
    "min_frequency": 1,
    "limit_alphabet": 100,
    "reference": None,
}
SPECIALS = {  # type: (cls, sep, pad, mask, unk) and their ids, in each family's order
    "bpe": (("<s>", "</s>", "<pad>", "<mask>", "<unk>"), (0, 2, 1, 4, 3)),
    "unigram": (("[CLS]", "[SEP]", "<pad>", "[MASK]", "<unk>"), (2, 3, 0, 4, 1)),
    "modernbert": (("[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]"), (2, 3, 0, 4, 1)),
}
TYPES = list(SPECIALS)


@pytest.fixture
def shard(tmp_path):
    documents = [
        f"The BRCA{i % 3} gene is mutated in {i} breast cancer patients.\nTP53 expression was measured in tumours."
        for i in range(60)
    ]
    path = tmp_path / "shard.txt"
    path.write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    return path


def _build(shard, tmp_path, vocab_type, **settings):
    stats = build_vocabulary(
        [shard],
        tmp_path / "tokenizer",
        tmp_path / "stats.json",
        "v",
        parse_entry(VocabularySettings, {**SETTINGS, "type": vocab_type, **settings}),
        heldout_fraction=0.2,
        max_heldout_sentences=100,
    )
    return AutoTokenizer.from_pretrained(tmp_path / "tokenizer"), stats


@pytest.mark.parametrize("vocab_type", TYPES)
def test_saved_folder_is_a_fast_tokenizer_with_the_family_special_tokens(
    shard, tmp_path, vocab_type
):
    tokenizer, stats = _build(shard, tmp_path, vocab_type, extra_special_tokens=["@GENE$"])
    tokens, ids = SPECIALS[vocab_type]
    assert tokenizer.is_fast
    assert (
        tokenizer.cls_token,
        tokenizer.sep_token,
        tokenizer.pad_token,
        tokenizer.mask_token,
        tokenizer.unk_token,
    ) == tokens
    assert (
        tokenizer.cls_token_id,
        tokenizer.sep_token_id,
        tokenizer.pad_token_id,
        tokenizer.mask_token_id,
        tokenizer.unk_token_id,
    ) == ids
    assert tokenizer.convert_tokens_to_ids("@GENE$") == 5
    encoded = tokenizer("tp53 gene", "brca1")
    assert encoded["input_ids"][0] == ids[0] and encoded["input_ids"][-1] == ids[1]
    assert encoded["input_ids"].count(ids[1]) == 2
    # ALBERT's second segment has token type 1; RoBERTa and ModernBERT have no token types
    assert ("token_type_ids" in encoded) == (vocab_type == "unigram")
    assert stats.type == vocab_type and stats.statistics.unk_rate == 0.0
    assert stats.statistics.fertility >= 1.0


@pytest.mark.parametrize("vocab_type", TYPES)
def test_word_ids_are_the_pre_tokeniser_words(shard, tmp_path, vocab_type):
    tokenizer, _ = _build(shard, tmp_path, vocab_type)
    encoding = tokenizer(["tumours were measured"], add_special_tokens=False)
    words = encoding.word_ids(0)
    assert words[0] == 0 and words[-1] == 2 and sorted(set(words)) == [0, 1, 2]
    assert words == sorted(words)
    # every word's pieces decode back to the word
    for word, text in enumerate(["tumours", "were", "measured"]):
        pieces = [token for token, w in zip(encoding["input_ids"][0], words) if w == word]
        assert tokenizer.decode(pieces).strip() == text


def test_byte_level_bpe_lowercases_only_when_asked(shard, tmp_path):
    cased, _ = _build(shard, tmp_path, "bpe", lowercase=False)
    assert "".join(cased.tokenize("TP53")).lstrip("Ġ") == "TP53"
    assert cased.unk_token_id not in cased("Ωmega ☃")["input_ids"]  # bytes: nothing is unknown


@pytest.mark.parametrize("vocab_type", TYPES)
def test_packed_corpus_is_framed_with_the_vocabulary_cls_and_sep(shard, tmp_path, vocab_type):
    tokenizer, _ = _build(shard, tmp_path, vocab_type)
    splits = build_tokenized_corpus(
        [shard], tmp_path / "tokenizer", tmp_path / "data", max_seq_length=32, heldout_fraction=0.2
    )
    row = splits["train"][0]
    assert (
        row["input_ids"][0] == tokenizer.cls_token_id
        and row["input_ids"][-1] == tokenizer.sep_token_id
    )
    assert row["word_ids"][0] == row["word_ids"][-1] == -1 and min(row["word_ids"][1:-1]) == 0


def test_modernbert_vocabulary_frames_pairs_like_bert_and_round_trips(shard, tmp_path):
    """ModernBERT's tokenizer: byte-level pieces, no prefix space, BERT's special tokens."""
    tokenizer, _ = _build(shard, tmp_path, "modernbert", lowercase=False)
    encoded = tokenizer("TP53 gene", "BRCA1")
    tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"])
    first, second = tokens.index("[SEP]"), len(tokens) - 1
    assert tokens[0] == "[CLS]" and tokens[second] == "[SEP]" and tokens.count("[SEP]") == 2
    assert set(encoded) == {"input_ids", "attention_mask"}
    # no space is prefixed: the first piece of each segment has no leading Ġ, later words do
    assert not tokens[1].startswith("Ġ") and not tokens[first + 1].startswith("Ġ")
    assert any(token.startswith("Ġg") for token in tokens[1:first])
    text = "TP53 Ωmega ☃ was measured in 12 tumours."
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    assert tokenizer.unk_token_id not in ids and tokenizer.decode(ids) == text
    assert tokenizer.decode(encoded["input_ids"]) == "[CLS]TP53 gene[SEP]BRCA1[SEP]"
    # [MASK] takes the space before it, as in ModernBERT's tokenizer
    masked = tokenizer("the [MASK] gene", add_special_tokens=False)["input_ids"]
    assert masked == [
        *tokenizer("the", add_special_tokens=False)["input_ids"],
        4,
        *tokenizer(" gene", add_special_tokens=False)["input_ids"],
    ]


def test_modernbert_vocabulary_is_deterministic():
    corpus = [
        "Wel come to the Tok en izers libr ary.",
        "Token izers are fast, tokenizer trainers are not always.",
    ]
    vocabularies = {
        tuple(sorted(build_modernbert(lambda: corpus, 300, False, 1, 0).get_vocab().items()))
        for _ in range(20)
    }
    assert len(vocabularies) == 1
