"""Documents packed in one sequence: each gets the hidden states it gets alone, in every
model family and in distillation's teacher and student."""

import pytest
import torch
from transformers import (
    AlbertConfig,
    AlbertForMaskedLM,
    BertConfig,
    BertForMaskedLM,
    ElectraConfig,
    ElectraForMaskedLM,
    ModernBertConfig,
    ModernBertForMaskedLM,
    RobertaConfig,
    RobertaForMaskedLM,
)

from biocompact.distillation.objectives import compute_activations
from biocompact.models.documents import (
    document_mask,
    document_positions,
    encoder_inputs,
    token_pairs,
)
from biocompact.training.batches import MaskedBatcher, document_numbers
from biocompact.training.settings import MaskingSettings

PAD, CLS, SEP, MASK = 1, 2, 3, 4
SIZES = dict(
    vocab_size=40,
    hidden_size=16,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=32,
    pad_token_id=PAD,
    max_position_embeddings=40,
)
DROPOUT_OFF = dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
FAMILIES = {
    "bert": lambda attention: BertForMaskedLM(
        BertConfig(**SIZES, **DROPOUT_OFF, attn_implementation=attention)
    ),
    "roberta": lambda attention: RobertaForMaskedLM(
        RobertaConfig(**SIZES, **DROPOUT_OFF, attn_implementation=attention)
    ),
    "electra": lambda attention: ElectraForMaskedLM(
        ElectraConfig(**SIZES, **DROPOUT_OFF, embedding_size=8, attn_implementation=attention)
    ),
    "albert": lambda attention: AlbertForMaskedLM(
        AlbertConfig(
            **SIZES,
            hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0,
            embedding_size=8,
            attn_implementation=attention,
        )
    ),
    # a window of 2 tokens each side in every second layer: it matters within the documents
    "modernbert": lambda attention: ModernBertForMaskedLM(
        ModernBertConfig(
            **SIZES,
            local_attention=4,
            global_attn_every_n_layers=2,
            cls_token_id=CLS,
            sep_token_id=SEP,
            bos_token_id=CLS,
            eos_token_id=SEP,
            attn_implementation=attention,
        )
    ),
}
# a packed sequence of two documents (each [CLS] ... [SEP], as the packed corpus holds them)
# and a short one
FIRST = [CLS, 10, 11, 12, 13, 14, 15, SEP]
SECOND = [CLS, 20, 21, 22, 23, 24, SEP]
SHORT = [CLS, 30, 31, 32, SEP]
ROWS = {
    "input_ids": [FIRST + SECOND, SHORT],
    "word_ids": [[-1, 0, 1, 2, 3, 4, 5, -1, -1, 6, 7, 8, 9, 10, -1], [-1, 0, 1, 2, -1]],
    "document_starts": [[len(FIRST)], []],
}


def _batch() -> dict[str, torch.Tensor]:
    batcher = MaskedBatcher(PAD, MASK, SIZES["vocab_size"], MaskingSettings(), length=16)
    batch = batcher(ROWS, torch.Generator().manual_seed(0))
    batch["input_ids"] = torch.tensor(  # unmasked: the same tokens as alone
        [row + [PAD] * (16 - len(row)) for row in ROWS["input_ids"]]
    )
    return batch


def _alone(model, ids: list[int]) -> torch.Tensor:
    return model.base_model(input_ids=torch.tensor([ids])).last_hidden_state[0]


def test_document_numbers_positions_and_mask_by_hand():
    documents = document_numbers([6, 3], [[2, 4], []], width=7)
    assert documents.tolist() == [[0, 0, 1, 1, 2, 2, -1], [0, 0, 0, -1, -1, -1, -1]]
    assert document_positions(documents).tolist() == [
        [0, 1, 0, 1, 0, 1, 0],
        [0, 1, 2, 0, 1, 2, 3],
    ]
    assert document_positions(documents, first=2)[0].tolist() == [2, 3, 2, 3, 2, 3, 2]
    mask = document_mask(documents)
    assert mask.shape == (2, 1, 7, 7)
    assert mask[0, 0, 2].tolist() == [False, False, True, True, False, False, False]
    assert mask[0, 0, 6].tolist() == [False] * 6 + [True]  # padding attends to padding only
    pairs = token_pairs({"attention_mask": (documents >= 0).long(), "documents": documents})
    assert (
        pairs[0, 0, 6].tolist() == [False] * 7
        and pairs[1, 0, 1].tolist() == [True] * 3 + [False] * 4
    )


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
@pytest.mark.parametrize("family", FAMILIES)
def test_each_document_gets_the_hidden_states_it_gets_alone(family, attention):
    torch.manual_seed(0)
    model = FAMILIES[family](attention).eval()
    batch = _batch()
    with torch.no_grad():
        packed = model.base_model(**encoder_inputs(model, batch)).last_hidden_state
        first, second, short = (_alone(model, ids) for ids in (FIRST, SECOND, SHORT))
        cut = len(FIRST)
        torch.testing.assert_close(packed[0, :cut], first, atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(packed[0, cut : cut + len(SECOND)], second, atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(packed[1, : len(SHORT)], short, atol=1e-5, rtol=1e-4)
        # without the document mask the first document sees the second
        crossing = model.base_model(
            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
        ).last_hidden_state
        assert not torch.allclose(crossing[0, :cut], first, atol=1e-3)


@pytest.mark.parametrize("family", ["bert", "modernbert"])
def test_distillation_teacher_and_student_see_each_document_alone(family):
    """``compute_activations``, as distillation runs the student (with gradients) and the
    teacher (in inference mode): hidden states of every layer, the MLM logits at every
    position and the recomputed attention maps of each document are those it gets alone."""
    torch.manual_seed(0)
    batch = _batch()
    pairs = token_pairs(batch)
    cut, end = len(FIRST), len(FIRST) + len(SECOND)
    for model, context in (
        (FAMILIES[family]("sdpa").eval(), torch.enable_grad()),
        (FAMILIES[family]("sdpa").eval().requires_grad_(False), torch.inference_mode()),
    ):
        with context:
            packed = compute_activations(model, batch, None, True, [1, 2], pairs)
            for ids, start in ((FIRST, 0), (SECOND, cut)):
                alone_batch = {
                    "input_ids": torch.tensor([ids]),
                    "attention_mask": torch.ones(1, len(ids), dtype=torch.long),
                }
                alone = compute_activations(
                    model, alone_batch, None, True, [1, 2], token_pairs(alone_batch)
                )
                span = slice(start, start + len(ids))
                for layer, hidden in enumerate(alone.hidden_states):
                    torch.testing.assert_close(
                        packed.hidden_states[layer][0, span], hidden[0], atol=1e-5, rtol=1e-4
                    )
                logits = packed.logits.view(2, 16, -1)
                torch.testing.assert_close(logits[0, span], alone.logits, atol=1e-5, rtol=1e-4)
                for layer, maps in alone.attention.items():
                    torch.testing.assert_close(
                        packed.attention[layer][0, :, span, span].exp(),
                        maps[0].exp(),
                        atol=1e-6,
                        rtol=1e-4,
                    )
            # no probability crosses from one document to the other
            maps = packed.attention[1][0].detach().exp()
            assert float(maps[:, :cut, cut:end].sum()) < 1e-6
