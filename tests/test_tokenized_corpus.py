"""Document-aware packing and the held-out split."""

from transformers import AutoTokenizer

from biocompact.textshards import is_heldout, iter_documents
from biocompact.tokenized_corpus import build_tokenized_corpus, pack_document
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


def test_documents_and_heldout_split(tmp_path):
    shard = tmp_path / "shard.txt"
    shard.write_text("A one.\nA two.\n\nB one.\n\n\nC one.\nC two.\nC three.\n", encoding="utf-8")
    documents = list(iter_documents([shard]))
    assert documents == [["A one.", "A two."], ["B one."], ["C one.", "C two.", "C three."]]
    assert not any(is_heldout(d, 0.0) for d in documents)
    assert all(is_heldout(d, 0.9999) for d in documents)
    assert is_heldout(documents[0], 0.5) == is_heldout(list(documents[0]), 0.5)


def test_packed_sequences_keep_their_document_index(tmp_path):
    names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett"]
    shard = tmp_path / "shard.txt"
    shard.write_text("\n\n".join(
        f"The {name} study enrolled many patients.\nThe {name} cohort was followed for years.\n"
        f"No {name} effect was seen."
        for name in names
    ) + "\n", encoding="utf-8")
    train_vocabulary(lambda: [line for line in shard.read_text().splitlines() if line], tmp_path / "tokenizer",
                     "wordpiece", vocab_size=200, lowercase=True, min_frequency=1, limit_alphabet=100)
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "tokenizer")
    # 12 tokens a sequence: a document of three sentences fills several
    splits = build_tokenized_corpus([shard], tmp_path / "tokenizer", tmp_path / "data", max_seq_length=12,
                                    heldout_fraction=0.3)
    seen = set()
    for split in splits.values():
        for row in split:
            assert names[row["document"]] in tokenizer.decode(row["input_ids"]).split()
            seen.add(row["document"])
    assert seen == set(range(len(names))) and len(splits["train"]) + len(splits["validation"]) > len(names)
