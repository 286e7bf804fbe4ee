"""Document-aware packing and the held-out split."""

from biocompact.textshards import is_heldout, iter_documents
from biocompact.tokenized_corpus import pack_document


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
