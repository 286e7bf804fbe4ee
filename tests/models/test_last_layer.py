"""The last layer run at the masked positions only gives the whole layer's values and gradients there."""

import pytest
import torch
from tiny_models import BERT_LAYOUT_FAMILIES, EXACT
from transformers import (
    AlbertConfig,
    AlbertForMaskedLM,
    BertConfig,
    BertForMaskedLM,
)

from biocompact.models.last_layer import enable_last_layer_at_positions, sparse_last_layer
from biocompact.pretraining.mlm import MaskedLanguageModelling
from biocompact.training.evaluation import masked_lm_logits
from biocompact.training.masking import IGNORE_INDEX, prediction_positions


def _batch() -> dict[str, torch.Tensor]:
    """Three sequences of 8, two of them padded; masked positions at irregular places."""
    generator = torch.Generator().manual_seed(0)
    attention_mask = torch.ones(3, 8, dtype=torch.long)
    attention_mask[1, 6:] = 0
    attention_mask[2, 3:] = 0
    input_ids = torch.randint(5, 50, (3, 8), generator=generator) * attention_mask
    masked = torch.zeros(3, 8, dtype=torch.bool)
    masked[0, [0, 3, 4, 7]] = True
    masked[1, 5] = True
    masked[2, [1, 2]] = True
    labels = torch.where(masked, input_ids, IGNORE_INDEX)
    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "labels": labels,
        "masked_positions": prediction_positions(labels, 4),  # as many as the most masked
    }


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
@pytest.mark.parametrize(("model_class", "config_class", "extra"), BERT_LAYOUT_FAMILIES)
def test_values_and_gradients_at_the_positions_are_the_whole_layers(
    model_class, config_class, extra, attention
):
    torch.manual_seed(0)
    model = model_class(config_class(**EXACT, **extra, attn_implementation=attention))
    batch = _batch()
    masked = batch["labels"] != IGNORE_INDEX

    def hidden_and_gradients(**positions) -> tuple[torch.Tensor, list[torch.Tensor]]:
        model.zero_grad()
        hidden = model.base_model(
            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], **positions
        ).last_hidden_state[masked]
        hidden.pow(2).sum().backward()
        return hidden.detach(), [p.grad.clone() for p in model.base_model.parameters()]

    whole, whole_gradients = hidden_and_gradients()
    assert enable_last_layer_at_positions(model)
    chosen, chosen_gradients = hidden_and_gradients(masked_positions=batch["masked_positions"])
    torch.testing.assert_close(chosen, whole)
    for chosen_gradient, whole_gradient in zip(chosen_gradients, whole_gradients, strict=True):
        torch.testing.assert_close(chosen_gradient, whole_gradient)


def test_the_other_positions_are_not_computed_and_the_layer_is_whole_without_them():
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(**EXACT)).eval()
    batch = _batch()
    masked = batch["labels"] != IGNORE_INDEX
    inputs = {"input_ids": batch["input_ids"], "attention_mask": batch["attention_mask"]}
    whole = model.base_model(**inputs).last_hidden_state
    assert enable_last_layer_at_positions(model) and enable_last_layer_at_positions(model)
    chosen = model.base_model(
        **inputs, masked_positions=batch["masked_positions"]
    ).last_hidden_state
    # every sequence gets 4 positions: sequence 1 (1 masked) computes 3 other positions too,
    # sequence 2 (2 masked) 2; 24 - 7 masked - 5 = 12 left out
    assert int((chosen.abs().sum(-1) == 0).sum()) == 12
    torch.testing.assert_close(chosen[masked], whole[masked])
    torch.testing.assert_close(model.base_model(**inputs).last_hidden_state, whole)


def test_masked_lm_logits_are_the_full_models_at_the_masked_positions():
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(**EXACT)).eval()
    batch = _batch()
    logits, labels = masked_lm_logits(model, batch)
    masked = batch["labels"] != IGNORE_INDEX
    full = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    assert logits.shape == (3 * 4, 50)  # 4 rows a sequence, the unmasked ones ignored
    predicted = labels != IGNORE_INDEX
    torch.testing.assert_close(logits[predicted], full[masked])
    assert labels[predicted].tolist() == batch["input_ids"][masked].tolist()
    # unmasked rows are other positions, each computed once
    assert int(predicted.sum()) == 7 and len(set(batch["masked_positions"][1].tolist())) == 4


def test_albert_runs_the_whole_layer():
    albert = AlbertForMaskedLM(AlbertConfig(**EXACT, embedding_size=8))
    assert sparse_last_layer(albert) is None
    assert not MaskedLanguageModelling(albert).last_layer_at_predictions()
    assert not enable_last_layer_at_positions(albert)
    bert = BertForMaskedLM(BertConfig(**EXACT))
    assert MaskedLanguageModelling(bert).last_layer_at_predictions()
