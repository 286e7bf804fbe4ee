"""Whole-word masking: never splits a word, masks 15% of every sequence's tokens (a fixed
count, as BERT's create_pretraining_data), BERT's 80/10/10; the predicted positions; static
masking copies; each process's share of a batch."""

import datasets
import pytest
import torch
from tiny_models import MINILM

from biocompact.training.batches import BatchOrder, DataPosition, MaskedBatcher, MaskedBatches
from biocompact.training.masking import (
    IGNORE_INDEX,
    choose_words,
    mask_tokens,
    prediction_positions,
)
from biocompact.training.settings import MaskingSettings
from biocompact.training.stage import load_corpus

MASK_ID, VOCAB = 4, 1000


def _batch(n_sequences=64, n_words=100, seed=0):
    generator = torch.Generator().manual_seed(seed)
    rows_ids, rows_words = [], []
    for _ in range(n_sequences):
        words = [-1]
        for word in range(n_words):
            words += [word] * int(torch.randint(1, 4, (1,), generator=generator))
        words.append(-1)
        rows_words.append(words)
        rows_ids.append(torch.randint(10, VOCAB, (len(words),), generator=generator).tolist())
    width = max(map(len, rows_words))
    ids = torch.tensor([r + [0] * (width - len(r)) for r in rows_ids])
    words = torch.tensor([r + [-1] * (width - len(r)) for r in rows_words])
    return ids, words


def test_whole_words_are_masked_together_and_15_percent_of_every_sequence():
    ids, words = _batch()
    masked, labels = mask_tokens(
        ids, words, MASK_ID, VOCAB, MaskingSettings(), torch.Generator().manual_seed(1)
    )
    chosen = labels != IGNORE_INDEX
    for row in range(ids.shape[0]):
        for word in words[row].unique().tolist():
            if word < 0:
                continue
            in_word = chosen[row][words[row] == word]
            assert in_word.all() or not in_word.any(), "a word was split by masking"
    # words of 1-3 tokens: the count is reached exactly (a word that does not fit is skipped)
    targets = torch.round(0.15 * (words >= 0).sum(dim=1))
    assert chosen.sum(dim=1).tolist() == targets.tolist()
    assert not chosen[words < 0].any(), "special or padding tokens were masked"
    assert torch.equal(labels[chosen], ids[chosen])


def test_words_are_taken_in_draw_order_while_they_fit_by_hand():
    # words of 3, 1, 2 and 1 tokens
    units = torch.tensor([[0, 0, 0, 1, 2, 2, 3]])

    def chosen(draw: list[float], target: int, limit: int = 7) -> list[bool]:
        return choose_words(units, torch.tensor([draw]), torch.tensor([target]), limit)[0].tolist()

    # draw order: word 1, word 2, word 0, word 3
    order = [0.5, 0.1, 0.2, 0.9]
    assert chosen(order, 3) == [False, True, True, False]  # 1 + 2 tokens
    # 1 + 2, word 0 (3 tokens) does not fit in the 1 left and is skipped, word 3 does
    assert chosen(order, 4) == [False, True, True, True]
    # word 0 first does not fit in 2; word 2 (2 tokens) does
    assert chosen([0.1, 0.5, 0.2, 0.9], 2) == [False, False, True, False]
    # a sequence of one 3-token word predicts it though its target is 1, if it fits the limit
    one_word = torch.tensor([[0, 0, 0]])
    assert choose_words(one_word, torch.tensor([[0.3]]), torch.tensor([1]), 3).tolist() == [[True]]
    assert choose_words(one_word, torch.tensor([[0.3]]), torch.tensor([1]), 2).tolist() == [[False]]


def test_prediction_positions_put_the_predicted_first_then_others_by_hand():
    labels = torch.tensor([[-100, 7, -100, 9, -100], [-100, -100, -100, -100, 5]])
    assert prediction_positions(labels, 3).tolist() == [[1, 3, 0], [4, 0, 1]]
    assert MaskingSettings().predictions_per_sequence(128) == 20  # ceil(19.2)
    assert MaskingSettings().predictions_per_sequence(64) == 10  # ceil(9.6)
    assert MaskingSettings(probability=0.01).predictions_per_sequence(4) == 1


def test_80_10_10_replacement():
    ids, words = _batch(n_sequences=200)
    masked, labels = mask_tokens(
        ids, words, MASK_ID, VOCAB, MaskingSettings(), torch.Generator().manual_seed(2)
    )
    chosen = labels != IGNORE_INDEX
    as_mask = (masked[chosen] == MASK_ID).float().mean().item()
    unchanged = (masked[chosen] == ids[chosen]).float().mean().item()
    assert 0.77 < as_mask < 0.83
    # 10% kept on purpose, plus random replacements that happen to draw the same token (rare)
    assert 0.08 < unchanged < 0.12
    assert torch.equal(masked[~chosen], ids[~chosen])


def test_every_sequence_gets_a_prediction():
    ids = torch.tensor([[2, 50, 51, 3]])
    words = torch.tensor([[-1, 0, 1, -1]])
    for seed in range(20):
        _, labels = mask_tokens(
            ids,
            words,
            MASK_ID,
            VOCAB,
            MaskingSettings(probability=0.01),
            torch.Generator().manual_seed(seed),
        )
        assert (labels != IGNORE_INDEX).sum() == 1


def test_token_level_masking_when_whole_word_is_off():
    ids, words = _batch()
    settings = MaskingSettings(whole_word=False)
    _, labels = mask_tokens(ids, words, MASK_ID, VOCAB, settings, torch.Generator().manual_seed(3))
    chosen = labels != IGNORE_INDEX
    targets = torch.round(0.15 * (words >= 0).sum(dim=1))
    assert chosen.sum(dim=1).tolist() == targets.tolist()
    # words split: some word has a chosen and an unchosen token
    assert any(
        0 < int(chosen[row][words[row] == word].sum()) < int((words[row] == word).sum())
        for row in range(ids.shape[0])
        for word in range(100)
    )


def _rows(indices, epoch, n_words=30):
    """BatchStream-like rows: row i has n_words one-token words."""
    return {
        "input_ids": [[2, *range(10 + i, 10 + i + n_words), 3] for i in indices],
        "word_ids": [[-1, *range(n_words), -1] for _ in indices],
        "_index": list(indices),
        "_epoch": [epoch] * len(indices),
    }


def test_static_masking_repeats_every_duplication_factor_epochs():
    batcher = MaskedBatcher(0, MASK_ID, VOCAB, MaskingSettings(duplication_factor=2))
    unused = torch.Generator().manual_seed(0)

    def labels(indices, epoch):
        return batcher(_rows(indices, epoch), unused)["labels"]

    # a row's mask depends on the row and its copy only, not on the batch it is in
    assert torch.equal(labels([5, 7], 0)[0], labels([5], 0)[0])
    assert torch.equal(labels([7, 5], 0)[1], labels([5], 0)[0])
    assert torch.equal(labels([5], 0), labels([5], 2))  # epoch 2 sees copy 0 again
    assert not torch.equal(labels([5], 0), labels([5], 1))
    # dynamic masking (the default) draws anew from the caller's generator
    dynamic = MaskedBatcher(0, MASK_ID, VOCAB, MaskingSettings())
    first = dynamic(_rows([5], 0), torch.Generator().manual_seed(1))["labels"]
    second = dynamic(_rows([5], 0), torch.Generator().manual_seed(2))["labels"]
    assert not torch.equal(first, second)


def test_processes_share_each_batch_without_overlap():
    dataset = datasets.Dataset.from_dict(
        {"input_ids": [[i] for i in range(12)], "word_ids": [[0]] * 12}
    )
    shares = [
        BatchOrder(dataset, 4, seed=1, rank=r, world_size=2).rows(DataPosition()) for r in range(2)
    ]
    alone = BatchOrder(dataset, 4, seed=1).rows(DataPosition())
    assert [len(share["_index"]) for share in shares] == [2, 2]
    assert sorted(shares[0]["_index"] + shares[1]["_index"]) == sorted(alone["_index"])
    with pytest.raises(ValueError, match="not divisible"):
        BatchOrder(dataset, 3, seed=1, world_size=2)


def test_batch_order_positions_and_epochs():
    dataset = datasets.Dataset.from_dict(
        {"input_ids": [[i] for i in range(10)], "word_ids": [[0]] * 10}
    )
    order = BatchOrder(dataset, 4, seed=1)  # 2 full batches an epoch, 2 rows left out of each
    assert [order.position_after(k) for k in (0, 1, 2, 5)] == [
        DataPosition(0, 0),
        DataPosition(0, 1),
        DataPosition(1, 0),
        DataPosition(2, 1),
    ]
    epoch = order.rows(DataPosition(0, 0))["_index"] + order.rows(DataPosition(0, 1))["_index"]
    assert len(set(epoch)) == 8 and order.rows(DataPosition(1, 0))["_epoch"] == [1] * 4


def test_worker_processes_make_the_same_batches():
    dataset = datasets.Dataset.from_dict(
        {
            "input_ids": [[2, 10 + i, 11 + i, 3] for i in range(12)],
            "word_ids": [[-1, 0, 1, -1]] * 12,
        }
    )
    batches = MaskedBatches(
        BatchOrder(dataset, 4, seed=1),
        MaskedBatcher(0, MASK_ID, VOCAB, MaskingSettings()),
        masking_seed=7,
        end=6,
    )
    here = list(batches.iterate(2, workers=0, pin_memory=False))
    ahead = list(batches.iterate(2, workers=2, pin_memory=False))
    assert len(here) == len(ahead) == 4
    for mine, theirs in zip(here, ahead):
        assert mine.keys() == theirs.keys() and all(
            torch.equal(mine[key], theirs[key]) for key in mine
        )


def _save(folder, rows: dict) -> None:
    split = datasets.Dataset.from_dict(rows)
    datasets.DatasetDict(train=split, validation=split).save_to_disk(str(folder))


def test_a_corpus_pads_batches_to_its_longest_sequence_and_numbers_its_documents(tmp_path):
    _save(
        tmp_path / "full",
        {
            "input_ids": [[2, 10, 3, 2, 11, 12, 3], [2, 13, 3]],
            "word_ids": [[-1, 0, -1, -1, 1, 2, -1], [-1, 0, -1]],
            "document_starts": [[3], []],
            "document": [0, 2],
            "last_document": [1, 2],
        },
    )
    _, _, batcher = load_corpus(tmp_path / "full", MINILM, MaskingSettings())
    assert batcher.length == 7
    batch = batcher(datasets.load_from_disk(str(tmp_path / "full"))["train"][:2], torch.Generator())
    assert batch["input_ids"].shape == (2, 7) and batch["masked_positions"].shape == (2, 2)
    assert batch["documents"].tolist() == [[0, 0, 0, 1, 1, 1, 1], [0, 0, 0, -1, -1, -1, -1]]


def test_a_corpus_of_several_documents_a_sequence_without_their_starts_is_refused(tmp_path):
    rows = {"input_ids": [[2, 10, 3, 11, 3]], "word_ids": [[-1, 0, -1, 1, -1]]}
    _save(tmp_path / "old", {**rows, "document": [0], "last_document": [1]})
    with pytest.raises(ValueError, match=f"{tmp_path / 'old'}: its sequences hold several"):
        load_corpus(tmp_path / "old", MINILM, MaskingSettings())
    # one document a sequence (document packing before document_starts existed) is read
    _save(tmp_path / "documents", {**rows, "document": [0], "last_document": [0]})
    assert load_corpus(tmp_path / "documents", MINILM, MaskingSettings())[2].length == 5
