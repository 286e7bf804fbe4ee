"""The encoder run at the real tokens only gives the padded encoder's values and gradients."""

import pytest
import torch
from tiny_models import BERT_LAYOUT_FAMILIES, EXACT
from transformers import (
    AlbertConfig,
    AlbertForMaskedLM,
    BertConfig,
    BertForMaskedLM,
    RobertaConfig,
    RobertaForMaskedLM,
)

from biocompact.models.documents import encoder_inputs
from biocompact.models.last_layer import at_positions, enable_last_layer_at_positions
from biocompact.models.unpadded import RealTokens, hidden_at_positions, keep_padding, unpads
from biocompact.training.evaluation import masked_lm_logits
from biocompact.training.masking import IGNORE_INDEX, prediction_positions


def test_real_tokens_index_the_flat_stream():
    real = RealTokens(torch.tensor([[1, 1, 0], [1, 0, 0], [1, 1, 1]]))
    assert real.index.tolist() == [0, 1, 3, 6, 7, 8]
    grid = torch.arange(9.0).view(3, 3, 1)
    assert real.flat(grid).flatten().tolist() == [0, 1, 3, 6, 7, 8]
    assert real.grid(real.flat(grid)).flatten().tolist() == [0, 1, 0, 3, 0, 0, 6, 7, 8]
    # stream numbers: sequence 0 -> 0, 1; sequence 1 -> 2; sequence 2 -> 3, 4, 5; a padding
    # position gets the stream number of the real token before it
    positions = torch.tensor([[1, 2], [0, 2], [2, 0]])
    assert real.stream_index(positions).tolist() == [[1, 1], [2, 2], [5, 3]]


def _packed_batch() -> dict[str, torch.Tensor]:
    """Three sequences of 8: two documents in the first, two and padding in the second, one
    and padding in the third; masked positions at irregular places."""
    generator = torch.Generator().manual_seed(0)
    documents = torch.tensor(
        [[0, 0, 0, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, -1, -1, -1], [0, 0, 0, -1, -1, -1, -1, -1]]
    )
    attention_mask = (documents >= 0).long()
    input_ids = torch.randint(5, 50, (3, 8), generator=generator) * attention_mask
    masked = torch.zeros(3, 8, dtype=torch.bool)
    masked[0, [0, 3, 4, 7]] = True
    masked[1, [1, 4]] = True
    masked[2, 2] = True
    labels = torch.where(masked, input_ids, IGNORE_INDEX)
    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "labels": labels,
        "masked_positions": prediction_positions(labels, 4),  # padding among the ignored ones
        "documents": documents,
    }


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
@pytest.mark.parametrize(("model_class", "config_class", "extra"), BERT_LAYOUT_FAMILIES)
def test_values_and_gradients_are_the_padded_encoders(model_class, config_class, extra, attention):
    torch.manual_seed(0)
    model = model_class(config_class(**EXACT, **extra, attn_implementation=attention))
    assert enable_last_layer_at_positions(model)
    batch = _packed_batch()
    positions = batch["masked_positions"]
    predicted = batch["labels"].gather(1, positions) != IGNORE_INDEX
    assert unpads(model, batch)

    def hidden_and_gradients(unpadded: bool) -> tuple[torch.Tensor, list[torch.Tensor]]:
        model.zero_grad()
        if unpadded:  # the last layer's attention output and feed-forward at predictions only
            hidden = hidden_at_positions(model, batch, positions, kept=predicted)
        else:
            inputs = encoder_inputs(model, batch)
            padded = model.base_model(**inputs, masked_positions=positions).last_hidden_state
            hidden = at_positions(padded, positions)[predicted]
        hidden.pow(2).sum().backward()
        return hidden.detach(), [p.grad.clone() for p in model.base_model.parameters()]

    padded, padded_gradients = hidden_and_gradients(unpadded=False)
    unpadded, unpadded_gradients = hidden_and_gradients(unpadded=True)
    assert padded.shape == (7, 16)
    torch.testing.assert_close(unpadded, padded)
    for unpadded_gradient, padded_gradient in zip(
        unpadded_gradients, padded_gradients, strict=True
    ):
        torch.testing.assert_close(unpadded_gradient, padded_gradient)


def test_a_batch_without_documents_holds_one_a_sequence():
    torch.manual_seed(0)
    model = RobertaForMaskedLM(RobertaConfig(**EXACT)).eval()
    batch = _packed_batch()
    del batch["documents"]
    positions = batch["masked_positions"]
    predicted = batch["labels"].gather(1, positions) != IGNORE_INDEX
    whole = model.base_model(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
    ).last_hidden_state
    unpadded = hidden_at_positions(model, batch, positions)  # every position: a row each
    assert unpadded.shape == (3 * 4, 16)
    expected = at_positions(whole, positions).flatten(0, 1)
    torch.testing.assert_close(unpadded[predicted.flatten()], expected[predicted.flatten()])


def test_only_the_bert_layout_on_the_cpu_outside_compilation_is_unpadded(monkeypatch):
    batch = _packed_batch()
    albert = AlbertForMaskedLM(AlbertConfig(**EXACT, embedding_size=8))
    assert not unpads(albert, batch)
    bert = BertForMaskedLM(BertConfig(**EXACT))
    assert unpads(bert, batch)
    with keep_padding():
        assert not unpads(bert, batch)
    assert unpads(bert, batch)
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    assert not unpads(bert, batch)


def test_predicted_only_leaves_out_the_unpredicted_rows_where_shapes_may_vary():
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(**EXACT)).eval()
    batch = _packed_batch()
    logits, labels = masked_lm_logits(model, batch)
    predicted = labels != IGNORE_INDEX
    assert logits.shape == (3 * 4, 50) and int(predicted.sum()) == 7
    predicted_logits, predicted_labels = masked_lm_logits(model, batch, predicted_only=True)
    torch.testing.assert_close(predicted_logits, logits[predicted])
    assert predicted_labels.tolist() == labels[predicted].tolist()
    with keep_padding():  # fixed shapes: every row stays
        padded_logits, padded_labels = masked_lm_logits(model, batch, predicted_only=True)
    assert padded_labels.tolist() == labels.tolist()
    torch.testing.assert_close(padded_logits[predicted], logits[predicted])
