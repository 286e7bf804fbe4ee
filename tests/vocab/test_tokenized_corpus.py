"""Full and document-aware packing, the held-out split and the tokenising job's disk."""

import os
from pathlib import Path

import datasets
from tiny_models import MINILM
from transformers import AutoTokenizer

from biocompact.corpus.textshards import is_heldout, iter_documents
from biocompact.vocab.tokenized_corpus import (
    FullSequences,
    best_fit,
    build_tokenized_corpus,
    pack_document,
    smallest_integer_type,
)
from biocompact.vocab.train import train_vocabulary


def _sentence(start, n_tokens, words=None):
    return list(range(start, start + n_tokens)), words or list(range(n_tokens))


def test_packing_fills_sequences_with_whole_sentences():
    sentences = [_sentence(10, 3), _sentence(20, 4), _sentence(30, 5)]
    packed = pack_document(sentences, max_tokens=8)
    assert [ids for ids, _ in packed] == [[10, 11, 12, 20, 21, 22, 23], [30, 31, 32, 33, 34]]
    # word indices continue across the sentences of one sequence
    assert packed[0][1] == [0, 1, 2, 3, 4, 5, 6]
    assert packed[1][1] == [0, 1, 2, 3, 4]


def test_packing_cuts_a_sentence_longer_than_a_sequence():
    packed = pack_document([_sentence(0, 5, [0, 0, 1, 2, 2])], max_tokens=3)
    assert [ids for ids, _ in packed] == [[0, 1, 2], [3, 4]]
    assert [words for _, words in packed] == [[0, 0, 1], [0, 0]]


SEP, CLS = 99, 98


def _full(max_tokens, documents):
    stream = FullSequences(max_tokens, SEP, CLS)
    for index, sentences in enumerate(documents):
        stream.add_document(index, sentences)
    return stream.finish()


def test_full_packing_separates_documents_and_cuts_between_words():
    documents = [
        [_sentence(10, 3), _sentence(20, 4, [0, 0, 1, 2])],
        [_sentence(30, 5, [0, 1, 1, 2, 3])],
    ]
    # 7 tokens of document 0, [SEP] [CLS], then only word 0 of document 1 fits (word 1 has 2
    # tokens); document 1 starts at position 8, its [CLS]
    assert _full(11, documents) == [
        ([10, 11, 12, 20, 21, 22, 23, SEP, CLS, 30], [0, 1, 2, 3, 3, 4, 5, -1, -1, 6], 0, 1, [8]),
        ([31, 32, 33, 34], [0, 0, 1, 2], 1, 1, []),
    ]


def test_full_packing_never_ends_or_starts_a_sequence_with_the_separator():
    documents = [[_sentence(10, 7)], [_sentence(30, 2)], [_sentence(40, 1)]]
    # 7 + [SEP] [CLS] + a token would be 10 > 8: document 1 starts the next sequence
    assert _full(8, documents) == [
        ([10, 11, 12, 13, 14, 15, 16], [0, 1, 2, 3, 4, 5, 6], 0, 0, []),
        ([30, 31, SEP, CLS, 40], [0, 1, -1, -1, 2], 1, 2, [3]),
    ]
    # the first word of document 1 (2 tokens) does not fit after [SEP] [CLS]: no dangling
    # [SEP] [CLS], and no document start left behind
    assert _full(10, [[_sentence(10, 7)], [_sentence(30, 2, [0, 0])]]) == [
        ([10, 11, 12, 13, 14, 15, 16], [0, 1, 2, 3, 4, 5, 6], 0, 0, []),
        ([30, 31], [0, 0], 1, 1, []),
    ]


def test_best_fit_puts_whole_sequences_together_longest_first_by_hand():
    rows = [
        ([1, 2, 3], [0, 1, 2], 0),
        ([4, 5], [0, 0], 1),
        ([6], [0], 2),
        ([7, 8, 9, 10, 11, 12], [0, 1, 2, 3, 4, 5], 3),
    ]
    # 8 tokens a sequence, each row after the first behind [SEP] [CLS]: the 6-token row
    # alone (2 left), the 3- and 2-token rows together (7), the 1-token row fits neither
    assert best_fit(rows, 8, [SEP, CLS]) == [
        ([7, 8, 9, 10, 11, 12], [0, 1, 2, 3, 4, 5], 3, 3, []),
        ([1, 2, 3, SEP, CLS, 4, 5], [0, 1, 2, -1, -1, 3, 3], 0, 1, [4]),
        ([6], [0], 2, 2, []),
    ]
    # the 1-token row goes where it leaves the least room: beside the 5-token row (3 left
    # after it, 4 after the 4-token row)
    rows = [([1, 2, 3, 4], [0, 1, 2, 3], 0), ([5, 6, 7, 8, 9], [0, 1, 2, 3, 4], 1), ([10], [0], 2)]
    assert [sequence[0] for sequence in best_fit(rows, 8, [SEP, CLS])] == [
        [5, 6, 7, 8, 9, SEP, CLS, 10],
        [1, 2, 3, 4],
    ]


def test_full_packing_cuts_a_word_longer_than_a_sequence():
    assert _full(3, [[_sentence(0, 5, [0, 0, 0, 0, 0])]]) == [
        ([0, 1, 2], [0, 0, 0], 0, 0, []),
        ([3, 4], [0, 0], 0, 0, []),
    ]


def test_documents_and_heldout_split(tmp_path):
    shard = tmp_path / "shard.txt"
    shard.write_text("A one.\nA two.\n\nB one.\n\n\nC one.\nC two.\nC three.\n", encoding="utf-8")
    documents = list(iter_documents([shard]))
    assert documents == [["A one.", "A two."], ["B one."], ["C one.", "C two.", "C three."]]
    assert not any(is_heldout(d, 0.0) for d in documents)
    assert all(is_heldout(d, 0.9999) for d in documents)
    assert is_heldout(documents[0], 0.5) == is_heldout(list(documents[0]), 0.5)


def test_packed_sequences_keep_their_document_index(tmp_path):
    names = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliett",
    ]
    shard = tmp_path / "shard.txt"
    shard.write_text(
        "\n\n".join(
            f"The {name} study enrolled many patients.\nThe {name} cohort was followed for years.\n"
            f"No {name} effect was seen."
            for name in names
        )
        + "\n",
        encoding="utf-8",
    )
    train_vocabulary(
        lambda: [line for line in shard.read_text().splitlines() if line],
        tmp_path / "tokenizer",
        "wordpiece",
        vocab_size=200,
        lowercase=True,
        min_frequency=1,
        limit_alphabet=100,
    )
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "tokenizer")
    assert len(tokenizer) <= 256  # token ids fit uint8
    # 12 tokens a sequence: a document of three sentences fills several
    splits = build_tokenized_corpus(
        [shard],
        tmp_path / "tokenizer",
        tmp_path / "data",
        max_seq_length=12,
        heldout_fraction=0.3,
        packing="document",
    )
    seen = set()
    for split in splits.values():
        for row in split:
            assert row["document"] == row["last_document"]
            assert names[row["document"]] in tokenizer.decode(row["input_ids"]).split()
            seen.add(row["document"])
    assert seen == set(range(len(names))) and len(splits["train"]) + len(
        splits["validation"]
    ) > len(names)

    full = build_tokenized_corpus(
        [shard],
        tmp_path / "tokenizer",
        tmp_path / "full",
        max_seq_length=12,
        heldout_fraction=0.3,
        packing="full",
    )
    for name, split in full.items():
        lengths = [len(ids) for ids in split["input_ids"]]
        assert all(length >= 12 - 2 for length in lengths[:-1]), (
            name
        )  # cut between words: < 3 short
        assert sum(lengths) >= sum(len(ids) for ids in splits[name]["input_ids"]) - 2 * len(
            splits[name]
        )
        # the documents of a sequence are the held-out ones or the training ones, never both
        held = {row["document"] for row in splits["validation"]}
        assert all((row["document"] in held) == (name == "validation") for row in split)
        for row in split:
            found = set(tokenizer.decode(row["input_ids"]).split()) & set(names)
            assert found <= set(names[row["document"] : row["last_document"] + 1])
            # a document starts at every [CLS] inside the sequence, after a [SEP], nowhere else
            ids = row["input_ids"]
            inside = [i for i in range(1, len(ids) - 1) if ids[i] == tokenizer.cls_token_id]
            assert all(ids[i - 1] == tokenizer.sep_token_id for i in inside)
            assert [row["word_ids"][i] for i in inside] == [-1] * len(inside)
            assert row["document_starts"] == inside
            assert bool(inside) == (row["document"] != row["last_document"])
    assert any(row["document_starts"] for row in full["train"])
    assert not any(row["document_starts"] for split in splits.values() for row in split)

    # best fit: the document-packed sequences (21 tokens each at 48), whole, two to a sequence
    packed = {}
    for packing in ("document", "best_fit"):
        packed[packing] = build_tokenized_corpus(
            [shard],
            tmp_path / "tokenizer",
            tmp_path / packing,
            max_seq_length=48,
            heldout_fraction=0.3,
            packing=packing,
        )
    for name, split in packed["best_fit"].items():
        assert len(split) < len(packed["document"][name])
        pieces = []
        for row in split:
            ids, starts = row["input_ids"], [0, *row["document_starts"], len(row["input_ids"])]
            assert len(ids) <= 48
            assert all(ids[start] == tokenizer.cls_token_id for start in starts[:-1])
            pieces += [ids[a:b] for a, b in zip(starts, starts[1:])]
        assert sorted(pieces) == sorted(packed["document"][name]["input_ids"])

    # the same corpus in two shards, read, packed and written by two processes
    documents = shard.read_text(encoding="utf-8").split("\n\n")
    halves = [tmp_path / "first.txt", tmp_path / "second.txt"]
    halves[0].write_text("\n\n".join(documents[:4]) + "\n", encoding="utf-8")
    halves[1].write_text("\n\n".join(documents[4:]), encoding="utf-8")
    parallel = build_tokenized_corpus(
        halves,
        tmp_path / "tokenizer",
        tmp_path / "parallel",
        max_seq_length=12,
        heldout_fraction=0.3,
        packing="document",
        num_proc=2,
    )
    for name, split in splits.items():
        assert parallel[name].to_dict() == split.to_dict()
        # token ids below 256, word ids from -1 to 11, 10 documents: one byte each
        assert {
            column: str(split.features[column].feature.dtype)
            for column in ("input_ids", "word_ids", "document_starts")
        } == {
            "input_ids": "uint8",
            "word_ids": "int8",
            "document_starts": "int8",
        }
        assert split.features["document"].dtype == "int8"


def test_smallest_integer_type_by_hand():
    assert smallest_integer_type(-1, 126) == "int8"
    assert smallest_integer_type(-1, 128) == "int16"
    assert smallest_integer_type(0, 255) == "uint8"
    assert smallest_integer_type(0, 30_521) == "int16"  # BERT's vocabulary
    assert smallest_integer_type(0, 50_264) == "uint16"  # RoBERTa's
    assert smallest_integer_type(0, 2**31) == "uint32"
    assert smallest_integer_type(-1, 2**40) == "int64"


def _held_after_deletion(folder: Path) -> list[str]:
    """Files under ``folder`` deleted but still mapped or open in this process (their disk
    is not free yet)."""
    maps = [line.split(maxsplit=5)[-1] for line in Path("/proc/self/maps").read_text().splitlines()]
    descriptors = []
    for descriptor in Path("/proc/self/fd").iterdir():
        try:
            descriptors.append(os.readlink(descriptor))
        except OSError:
            continue
    return sorted(
        {
            name
            for name in maps + descriptors
            if name.startswith(str(folder)) and "(deleted)" in name
        }
    )


def test_the_read_text_is_freed_before_the_packed_corpus_is_written(tmp_path, monkeypatch):
    """The disk peak of the tokenising job: the text's files, deleted once packed, must not
    stay mapped while the splits are written (they would keep their disk). The text and the
    packed corpus stay in the scratch folder; the splits are written beside the output."""
    shard = tmp_path / "shard.txt"
    shard.write_text(
        "\n\n".join(f"Patient {i} had a fever.\nShe recovered." for i in range(200)) + "\n",
        encoding="utf-8",
    )
    scratch, results = tmp_path / "scratch", tmp_path / "results"
    scratch.mkdir()
    held_while_saving, scratch_while_saving, beside_while_saving = [], [], []
    save = datasets.DatasetDict.save_to_disk

    def save_and_look(splits, folder, **options):
        held_while_saving.extend(_held_after_deletion(tmp_path))
        scratch_while_saving.extend(path.suffix for path in scratch.rglob("*.arrow"))
        beside_while_saving.extend(path.name for path in results.iterdir())
        assert Path(folder).parent == results
        return save(splits, folder, **options)

    monkeypatch.setattr(datasets.DatasetDict, "save_to_disk", save_and_look)
    splits = build_tokenized_corpus(
        [shard],
        MINILM,
        results / "data",
        max_seq_length=32,
        heldout_fraction=0.1,
        scratch_dir=scratch,
    )
    assert sum(len(split) for split in splits.values()) > 0
    assert held_while_saving == []
    # the packed corpus in the scratch; beside the output, only the folder being written
    assert scratch_while_saving and set(scratch_while_saving) == {".arrow"}
    assert [name.startswith(".data.tmp-") for name in beside_while_saving] == [True]
    assert list(scratch.iterdir()) == [] and [path.name for path in results.iterdir()] == ["data"]
