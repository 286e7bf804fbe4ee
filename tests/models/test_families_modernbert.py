"""ModernBERT (Warner et al. 2024) as a family: config, MLM head, students, attention maps, heads."""

from __future__ import annotations

import pytest
import torch
from transformers import (
    AutoModelForMaskedLM,
    ModernBertConfig,
    ModernBertForMaskedLM,
)

from biocompact.distillation.attention import attention_log_probs, query_key_value
from biocompact.distillation.methods import method_options
from biocompact.distillation.objectives import METHODS
from biocompact.distillation.student import initialise_student, student_from_teacher_layers
from biocompact.finetuning.tasks import FAMILIES as TASK_FAMILIES
from biocompact.models.documents import token_pairs
from biocompact.models.heads import mlm_head
from biocompact.models.presets import build_config
from biocompact.pretraining.objectives import objective_entry
from biocompact.training.masking import prediction_positions

VOCAB, PAD, UNK, CLS, SEP, MASK = 40, 0, 1, 2, 3, 4
IDS = {"cls_token_id": CLS, "sep_token_id": SEP, "bos_token_id": CLS, "eos_token_id": SEP}
# 4 layers: global, local, global, local; windows of 2 tokens each side
TINY = {
    "num_hidden_layers": 4,
    "hidden_size": 16,
    "num_attention_heads": 2,
    "intermediate_size": 24,
    "global_attn_every_n_layers": 2,
    "local_attention": 4,
}
ALTERNATING = ["full_attention", "sliding_attention"] * 2


def modernbert(seed: int = 0, **overrides) -> ModernBertForMaskedLM:
    torch.manual_seed(seed)
    config = build_config(
        {**TINY, **overrides},
        VOCAB,
        family="modernbert",
        pad_token_id=PAD,
        special_token_ids=IDS,
    )
    return ModernBertForMaskedLM(config).eval()


def batch() -> dict[str, torch.Tensor]:
    """Two sequences of nine tokens, the second with three padding tokens; three masked."""
    generator = torch.Generator().manual_seed(1)
    input_ids = torch.randint(5, VOCAB, (2, 9), generator=generator)
    attention_mask = torch.ones_like(input_ids)
    attention_mask[1, 6:] = 0
    input_ids[attention_mask == 0] = PAD
    labels = torch.full_like(input_ids, -100)
    for row, column in [(0, 1), (0, 7), (1, 2)]:
        labels[row, column] = input_ids[row, column]
        input_ids[row, column] = MASK
    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "labels": labels,
        "masked_positions": prediction_positions(labels, 2),
    }


def test_config_takes_the_vocabulary_ids_and_the_published_shapes():
    config = modernbert().config
    assert isinstance(config, ModernBertConfig) and config.layer_types == ALTERNATING
    assert (config.pad_token_id, config.cls_token_id, config.sep_token_id) == (PAD, CLS, SEP)
    assert config.max_position_embeddings == 8192  # rotary positions: no table to size
    assert objective_entry(None, "modernbert")[0] == "mlm"
    base = build_config({"preset": "modernbert-base"}, 50368, family="modernbert")
    assert (base.num_hidden_layers, base.hidden_size, base.intermediate_size) == (22, 768, 1152)
    assert base.layer_types[:4] == ["full_attention", *["sliding_attention"] * 2, "full_attention"]
    assert (base.local_attention, base.num_attention_heads) == (128, 12)
    assert base.rope_parameters["full_attention"]["rope_theta"] == 160_000.0
    assert base.rope_parameters["sliding_attention"]["rope_theta"] == 10_000.0
    large = build_config({"preset": "modernbert-large"}, 50368, family="modernbert")
    assert (large.num_hidden_layers, large.hidden_size, large.num_attention_heads) == (28, 1024, 16)


def test_mlm_head_gives_the_models_own_logits():
    model, inputs = modernbert(), batch()
    hidden = model.model(
        input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]
    ).last_hidden_state
    expected = model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).logits
    assert torch.allclose(mlm_head(model)(hidden), expected, atol=1e-6)


def test_attention_maps_equal_eager_attention_probabilities_in_global_and_local_layers():
    model, inputs = modernbert(attn_implementation="eager"), batch()
    output = model.model(
        input_ids=inputs["input_ids"],
        attention_mask=inputs["attention_mask"],
        output_hidden_states=True,
        output_attentions=True,
    )
    queries = inputs["attention_mask"].bool()[:, None, :, None]
    for layer in range(1, 5):
        maps = attention_log_probs(
            model, layer, output.hidden_states[layer - 1], token_pairs(inputs)
        ).exp()
        reference = output.attentions[layer - 1]
        assert torch.allclose(maps * queries, reference * queries, atol=1e-6)
        # a local layer sees 2 tokens each side (local_attention 4): token 0 sees 0..2
        seen = (maps[0, 0, 0] > 0).tolist()
        assert seen == [True] * 9 if layer % 2 else seen == [True] * 3 + [False] * 6
    _, _, _, window = query_key_value(model, 2, output.hidden_states[1])
    assert window[4].tolist() == [False, False, True, True, True, True, True, False, False]


def test_student_from_teacher_layers_keeps_their_attention_types_and_reloads(tmp_path):
    teacher, inputs = modernbert(), batch()
    student = student_from_teacher_layers(teacher, [0, 3])
    assert student.config.layer_types == ["full_attention", "sliding_attention"]
    assert len(student.model.layers) == student.config.num_hidden_layers == 2
    assert teacher.config.num_hidden_layers == 4  # the teacher is left whole
    assert torch.equal(
        student.model.layers[1].attn.Wqkv.weight, teacher.model.layers[3].attn.Wqkv.weight
    )
    student.save_pretrained(tmp_path)
    reloaded = AutoModelForMaskedLM.from_pretrained(tmp_path).eval()
    arguments = {"input_ids": inputs["input_ids"], "attention_mask": inputs["attention_mask"]}
    assert torch.allclose(
        reloaded(**arguments).logits, student.eval()(**arguments).logits, atol=1e-6
    )
    with pytest.raises(ValueError, match="first layer must be the teacher's layer 0"):
        student_from_teacher_layers(teacher, [1, 3])
    assert student_from_teacher_layers(teacher, None).config.layer_types == ["full_attention"] * 2


def test_random_student_of_a_modernbert_teacher_is_a_modernbert():
    student = initialise_student(
        modernbert(),
        "random",
        None,
        {
            "num_hidden_layers": 2,
            "hidden_size": 16,
            "num_attention_heads": 2,
            "intermediate_size": 24,
        },
        seed=0,
    )
    assert isinstance(student, ModernBertForMaskedLM)
    assert (student.config.pad_token_id, student.config.cls_token_id) == (PAD, CLS)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_distillation_method_trains_a_modernbert_student(method):
    teacher, inputs = modernbert(), batch()
    student = student_from_teacher_layers(teacher, [0, 3])
    options = {"minilmv2": {"relation_heads": 4}} if method == "minilmv2" else {}
    objective = METHODS[method](student, modernbert(seed=1), method_options(method, options))
    loss, terms = objective(inputs)
    loss.backward()
    assert torch.isfinite(loss) and terms
    assert student.model.layers[1].attn.Wqkv.weight.grad.abs().sum() > 0
    assert all(p.grad is None for p in objective.teacher.parameters())


@pytest.mark.parametrize(
    "family",
    [family for families in TASK_FAMILIES.values() for family in families],
    ids=lambda family: f"{family.name}-{type(family).__name__}",
)
def test_every_task_family_has_a_modernbert_model(family, tmp_path):
    modernbert().save_pretrained(tmp_path)
    model = family.build_model(str(tmp_path), ["a", "b", "c"])
    assert model.config.model_type == "modernbert"
    inputs = batch()
    output = model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"])
    logits = output.start_logits if hasattr(output, "start_logits") else output.logits
    assert logits.shape[0] == 2 and torch.isfinite(logits).all()
