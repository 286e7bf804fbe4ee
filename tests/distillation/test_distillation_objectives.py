"""The distillation methods against their equations, recomputed in float64 from the papers.

The reference values use the models' own eager attention probabilities and full-vocabulary
logits, so they also check the attention maps recomputed by the objectives and the MLM
head run only where the loss reads it.
"""

import copy
import json
import math

import datasets
import pytest
import torch
from transformers import BertConfig, BertForMaskedLM

from biocompact.distillation.attention import attention_log_probs
from biocompact.distillation.layer_map import resolve_layer_map, uniform_layer_map
from biocompact.distillation.methods import method_options
from biocompact.distillation.objectives import (
    LAYER_TERMS,
    METHODS,
    CompactObjective,
    DistilBertObjective,
    LargeToBaseObjective,
    MiniLMv2Objective,
    PlainMlmObjective,
    TinyBertObjective,
    default_relation_heads,
    default_teacher_layer,
)
from biocompact.distillation.student import student_from_teacher_layers
from biocompact.distillation_methods import DISTILLATION_METHODS
from biocompact.models.documents import token_pairs
from biocompact.training.batches import MaskedBatcher
from biocompact.training.loop import train
from biocompact.training.masking import prediction_positions
from biocompact.training.settings import MaskingSettings, TrainingSettings

VOCAB, PAD, MASK = 40, 0, 4


def bert(layers: int, hidden: int = 16, heads: int = 2, seed: int = 0) -> BertForMaskedLM:
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=VOCAB,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=2 * hidden,
        max_position_embeddings=32,
        pad_token_id=PAD,
    )
    return BertForMaskedLM(config)


def batch() -> dict[str, torch.Tensor]:
    """Two sequences of six tokens, the second with two padding tokens; three masked tokens."""
    generator = torch.Generator().manual_seed(1)
    input_ids = torch.randint(5, VOCAB, (2, 6), generator=generator)
    attention_mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]])
    input_ids[attention_mask == 0] = PAD
    labels = torch.full_like(input_ids, -100)
    for row, column in [(0, 1), (0, 4), (1, 2)]:
        labels[row, column] = input_ids[row, column]
        input_ids[row, column] = MASK
    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "labels": labels,
        "masked_positions": prediction_positions(labels, 2),
    }


class Reference:
    """One model's outputs in float64 with eager attention: hidden states, maps, full logits."""

    def __init__(self, model: BertForMaskedLM, inputs: dict[str, torch.Tensor]):
        model = copy.deepcopy(model).double().eval()
        model.set_attn_implementation("eager")
        with torch.no_grad():
            output = model(
                input_ids=inputs["input_ids"],
                attention_mask=inputs["attention_mask"],
                output_hidden_states=True,
                output_attentions=True,
            )
        self.hidden, self.maps, self.logits = output.hidden_states, output.attentions, output.logits


def real_tokens(inputs):
    return [
        (b, n)
        for b in range(inputs["attention_mask"].shape[0])
        for n in range(inputs["attention_mask"].shape[1])
        if inputs["attention_mask"][b, n]
    ]


def masked_tokens(inputs):
    return [(b, n) for b, n in real_tokens(inputs) if inputs["labels"][b, n] >= 0]


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


def linear(layer: torch.nn.Module, vector: torch.Tensor) -> torch.Tensor:
    if isinstance(layer, torch.nn.Identity):
        return vector
    return layer.weight.detach().double() @ vector + layer.bias.detach().double()


def log_softmax(logits: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    return torch.log_softmax(logits / temperature, dim=-1)


def mlm(s: Reference, inputs) -> float:  # eq. 1, averaged over the masked tokens
    return mean(
        -float(log_softmax(s.logits[b, n])[inputs["labels"][b, n]])
        for b, n in masked_tokens(inputs)
    )


def kl(p_log: torch.Tensor, q_log: torch.Tensor) -> float:
    return float((p_log.exp() * (p_log - q_log)).sum())


def soft(s: Reference, t: Reference, inputs, temperature: float) -> float:  # eq. 2, times T^2
    return temperature**2 * mean(
        kl(log_softmax(t.logits[b, n], temperature), log_softmax(s.logits[b, n], temperature))
        for b, n in masked_tokens(inputs)
    )


def one_minus_cosine(u: torch.Tensor, v: torch.Tensor) -> float:
    return 1.0 - float(u @ v / (u.norm() * v.norm()))


def check(terms: dict[str, torch.Tensor], expected: dict[str, float | list[float]]) -> None:
    assert set(terms) == set(expected)
    for name, value in expected.items():
        # abs 1e-6: a soft term near zero (student ~ teacher) sums float32 rounding of either sign
        assert terms[name].tolist() == pytest.approx(value, rel=1e-4, abs=1e-6), name


def test_uniform_layer_map_and_explicit_maps():
    assert uniform_layer_map(2, 4) == [2, 4]
    assert uniform_layer_map(4, 12) == [3, 6, 9, 12]  # TinyBERT: every third BERT-base layer
    assert uniform_layer_map(3, 4) == [2, 3, 4]
    assert resolve_layer_map(2, 4, [1, 3]) == [1, 3]
    for wrong in ([1], [0, 2], [2, 5]):
        with pytest.raises(ValueError, match="layer_map"):
            resolve_layer_map(2, 4, wrong)


def test_attention_maps_equal_eager_attention_probabilities():
    model, inputs = bert(2).eval(), batch()
    reference = Reference(model, inputs)
    hidden = model.bert(
        input_ids=inputs["input_ids"],
        attention_mask=inputs["attention_mask"],
        output_hidden_states=True,
    ).hidden_states
    queries = inputs["attention_mask"].bool()[:, None, :, None]  # padding queries are not read
    for layer in (1, 2):
        maps = attention_log_probs(model, layer, hidden[layer - 1], token_pairs(inputs)).exp()
        assert torch.allclose(
            maps.double() * queries, reference.maps[layer - 1] * queries, atol=1e-6
        )


def test_distilbert_terms_follow_eq_1_to_3():
    teacher = bert(4)
    student = student_from_teacher_layers(teacher, [0, 2])
    objective = DistilBertObjective(
        student, teacher, method_options("distilbert", {"temperature": 2.0})
    ).eval()
    inputs = batch()
    s, t = Reference(student, inputs), Reference(teacher, inputs)
    terms = objective.terms(inputs)
    check(
        terms,
        {
            "mlm": mlm(s, inputs),
            "soft": soft(s, t, inputs, 2.0),
            "align": mean(
                one_minus_cosine(s.hidden[-1][b, n], t.hidden[-1][b, n])
                for b, n in real_tokens(inputs)
            ),
        },
    )


def test_plain_mlm_baseline_is_the_students_own_mlm_loss_and_never_runs_the_teacher():
    teacher = bert(4)
    student = student_from_teacher_layers(teacher, [0, 2])
    objective = PlainMlmObjective(student, teacher).eval()
    teacher_calls = []
    teacher.bert.register_forward_hook(lambda *_: teacher_calls.append(1))
    inputs = batch()
    loss, logged = objective(inputs)
    check({"mlm": logged["loss_mlm"]}, {"mlm": mlm(Reference(student, inputs), inputs)})
    assert float(loss.detach()) == pytest.approx(float(logged["loss_mlm"]))
    assert teacher_calls == [] and objective.alpha == {"mlm": 1.0}


def test_lewis_aligns_through_a_learned_projection_to_the_teacher_width():
    teacher, student = bert(2, hidden=16, seed=0), bert(2, hidden=8, seed=1)
    objective = LargeToBaseObjective(student, teacher).eval()
    assert (
        objective.alpha == {"mlm": 5.0, "soft": 2.0, "align": 1.0} and objective.temperature == 2.0
    )
    assert isinstance(
        objective.projection, torch.nn.Linear
    ) and objective.projection.weight.shape == (16, 8)
    inputs = batch()
    s, t = Reference(student, inputs), Reference(teacher, inputs)
    terms = objective.terms(inputs)
    check(
        terms,
        {
            "mlm": mlm(s, inputs),
            "soft": soft(s, t, inputs, 2.0),
            "align": mean(
                one_minus_cosine(
                    linear(objective.projection, s.hidden[-1][b, n]), t.hidden[-1][b, n]
                )
                for b, n in real_tokens(inputs)
            ),
        },
    )


def test_tinybert_terms_follow_eq_6_to_8_with_projections_and_the_uniform_map():
    teacher, student = bert(4, hidden=16, seed=0), bert(2, hidden=8, seed=1)
    objective = TinyBertObjective(student, teacher).eval()
    assert objective.layer_map == [2, 4] and objective.temperature == 1.0
    inputs = batch()
    s, t = Reference(student, inputs), Reference(teacher, inputs)
    real = real_tokens(inputs)

    def mse(projection, s_hidden, t_hidden):
        return mean(
            float(((linear(projection, s_hidden[b, n]) - t_hidden[b, n]) ** 2).mean())
            for b, n in real
        )

    def attention_mse(s_maps, t_maps):  # (1/H) sum_heads MSE over real (query, key) pairs
        return mean(
            mean(
                float((s_maps[b, h, q, k] - t_maps[b, h, q, k]) ** 2)
                for b, q in real
                for k in range(6)
                if inputs["attention_mask"][b, k]
            )
            for h in range(2)
        )

    terms = objective.terms(inputs)
    check(
        terms,
        {
            "embedding": mse(objective.embedding_projection, s.hidden[0], t.hidden[0]),
            "hidden": [
                mse(objective.hidden_projection, s.hidden[1], t.hidden[2]),
                mse(objective.hidden_projection, s.hidden[2], t.hidden[4]),
            ],
            "attention": [attention_mse(s.maps[0], t.maps[1]), attention_mse(s.maps[1], t.maps[3])],
            "output": mean(
                -float((log_softmax(t.logits[b, n]).exp() * log_softmax(s.logits[b, n])).sum())
                for b, n in real
            ),
        },
    )


def test_compact_terms_follow_eq_10_with_an_explicit_layer_map():
    teacher = bert(4)
    student = student_from_teacher_layers(teacher, [0, 2])
    objective = CompactObjective(
        student, teacher, method_options("compact", {"layer_map": [1, 3]})
    ).eval()
    assert objective.alpha == {"mlm": 1.0, "soft": 5.0, "layer": 3.0}
    inputs = batch()
    s, t = Reference(student, inputs), Reference(teacher, inputs)
    real = real_tokens(inputs)

    def attention_kl(s_maps, t_maps):  # (1/HN) sum_heads sum_tokens KL(teacher row || student row)
        keys = inputs["attention_mask"].bool()
        return mean(
            kl(t_maps[b, h, q][keys[b]].log(), s_maps[b, h, q][keys[b]].log())
            for h in range(2)
            for b, q in real
        )

    terms = objective.terms(inputs)
    check(
        terms,
        {
            "mlm": mlm(s, inputs),
            "soft": soft(s, t, inputs, 2.0),
            "hidden": [
                mean(one_minus_cosine(s.hidden[layer][b, n], t.hidden[g][b, n]) for b, n in real)
                for layer, g in [(1, 1), (2, 3)]
            ],
            "attention": [attention_kl(s.maps[0], t.maps[0]), attention_kl(s.maps[1], t.maps[2])],
        },
    )


def test_loss_is_the_weighted_sum_of_its_terms_with_per_layer_weights():
    teacher = bert(4)
    objective = CompactObjective(
        student_from_teacher_layers(teacher, None),
        teacher,
        method_options("compact", {"alpha": {"layer": [0.5, 2.0]}}),
    )
    objective.eval()
    inputs = batch()
    loss, logged = objective(inputs)
    terms = objective.terms(inputs)
    layers = sum(w * (terms["hidden"][i] + terms["attention"][i]) for i, w in enumerate([0.5, 2.0]))
    expected = 1.0 * terms["mlm"] + 5.0 * terms["soft"] + layers
    assert loss.item() == pytest.approx(expected.item(), rel=1e-6)
    assert logged["loss_hidden"].item() == pytest.approx(terms["hidden"].sum().item(), rel=1e-6)
    assert set(logged) == {"loss_mlm", "loss_soft", "loss_hidden", "loss_attention"}


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda t: DistilBertObjective(bert(2, hidden=8), t), "equal widths"),
        (lambda t: CompactObjective(bert(2, hidden=8), t), "equal widths"),
        (lambda t: TinyBertObjective(bert(2, hidden=16, heads=4), t), "as many heads"),
        (
            lambda t: DistilBertObjective(
                bert(2), t, method_options("distilbert", {"alpha": {"layer": 1.0}})
            ),
            "alpha.layer is not a loss term",
        ),
        (
            lambda t: DistilBertObjective(
                bert(2), t, method_options("distilbert", {"layer_map": [2, 4]})
            ),
            "layer_map is not an option of method 'distilbert'",
        ),
        (
            lambda t: TinyBertObjective(
                bert(2), t, method_options("tinybert", {"alpha": {"layer": [1.0]}})
            ),
            "alpha.layer lists 1 weights",
        ),
        (
            lambda t: CompactObjective(bert(2), t, method_options("compact", {"layer_map": [4]})),
            "layer_map",
        ),
        (
            lambda t: MiniLMv2Objective(
                bert(2), t, method_options("minilmv2", {"minilmv2": {"teacher_layer": 5}})
            ),
            r"minilmv2.teacher_layer 5 must be a layer 1..4 of the 4-layer teacher",
        ),
        (
            lambda t: MiniLMv2Objective(bert(2, hidden=12), t),
            r"minilmv2.relation_heads 48 must divide .* student \(12\) and of the teacher \(16\); "
            r"numbers that do: \[1, 2, 4\]",
        ),
        (
            lambda t: DistilBertObjective(
                bert(2), t, method_options("distilbert", {"minilmv2": {"relation_heads": 4}})
            ),
            "minilmv2.relation_heads is not an option of method 'distilbert'",
        ),
        (
            lambda t: MiniLMv2Objective(
                bert(2), t, method_options("minilmv2", {"minilmv2": {"heads": 4}})
            ),
            "minilmv2.heads is not an option of the minilmv2 method",
        ),
    ],
)
def test_inconsistent_settings_are_refused(build, message):
    with pytest.raises(ValueError, match=message):
        build(bert(4))


@pytest.mark.parametrize("method", sorted(DISTILLATION_METHODS))
def test_each_method_records_the_options_its_table_declares(method):
    """Every declared method has an objective, which implements it, and what the objective
    reads and records (eval.json) is what the config is checked against: its options, its
    loss terms at their defaults."""
    assert METHODS.keys() == DISTILLATION_METHODS.keys()
    teacher = bert(4)
    student = bert(2) if method == "tinybert" else student_from_teacher_layers(teacher, None)
    options = OPTIONS.get(method, {})
    objective = METHODS[method](student, teacher, method_options(method, options))
    assert objective.method == method
    assert type(objective).__name__ == DISTILLATION_METHODS[method].objective
    record = objective.options_record()
    spec = DISTILLATION_METHODS[method]
    assert tuple(sorted(record)) == tuple(sorted(spec.options))
    assert record["alpha"] == spec.alpha
    assert record.get("temperature") == spec.temperature


@pytest.mark.parametrize(
    "method", [name for name, spec in DISTILLATION_METHODS.items() if spec.temperature is None]
)
def test_a_method_without_soft_targets_refuses_a_temperature(method):
    with pytest.raises(ValueError, match=f"temperature is not an option of method '{method}'"):
        method_options(method, {"temperature": 2.0})


def test_an_objective_refuses_the_options_of_another_method():
    teacher = bert(4)
    with pytest.raises(ValueError, match="options of method 'tinybert' for 'distilbert'"):
        DistilBertObjective(
            student_from_teacher_layers(teacher, None), teacher, method_options("tinybert")
        )


def _corpus() -> datasets.Dataset:
    generator = torch.Generator().manual_seed(0)
    ids = [[2, *torch.randint(5, VOCAB, (10,), generator=generator).tolist(), 3] for _ in range(16)]
    return datasets.Dataset.from_dict({"input_ids": ids, "word_ids": [[-1, *range(10), -1]] * 16})


OPTIONS = {"minilmv2": {"minilmv2": {"relation_heads": 4}}}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_a_step_changes_student_and_projections_not_teacher(method, tmp_path):
    teacher = bert(4)
    student = (
        bert(2, hidden=8, seed=1)
        if method in ("tinybert", "lewis", "minilmv2")
        else student_from_teacher_layers(teacher, None)
    )
    objective = METHODS[method](student, teacher, method_options(method, OPTIONS.get(method, {})))
    teacher_before = copy.deepcopy(teacher.state_dict())
    trainable_before = copy.deepcopy(objective.trainable_state())
    settings = TrainingSettings(
        steps=2, batch_size=8, learning_rate=1e-2, log_every=1, checkpoint_every=2
    )
    log = train(
        objective, _corpus(), MaskedBatcher(PAD, MASK, VOCAB, MaskingSettings()), settings, tmp_path
    )

    assert all(torch.equal(teacher_before[k], v) for k, v in teacher.state_dict().items())
    assert all(not p.requires_grad for p in teacher.parameters())
    changed = {
        k for k, v in objective.trainable_state().items() if not torch.equal(trainable_before[k], v)
    }
    assert any(k.startswith("student.") for k in changed)
    projections = {k for k in trainable_before if "projection" in k}
    assert projections <= changed and (bool(projections) == (method in ("tinybert", "lewis")))
    record = json.loads(log.read_text().splitlines()[-1])
    terms = {k[len("loss_") :] for k in record if k.startswith("loss_")}
    alpha = DISTILLATION_METHODS[method].alpha  # layer: one weight of LAYER_TERMS
    assert terms == {*alpha} - {"layer"} | ({*LAYER_TERMS} if "layer" in alpha else set())
    assert all(math.isfinite(record[f"loss_{term}"]) for term in terms)


def test_minilmv2_defaults_follow_the_paper():
    assert [default_teacher_layer(n) for n in (2, 6, 12, 24)] == [2, 6, 12, 21]
    assert [default_relation_heads(n) for n in (6, 12, 24)] == [48, 48, 64]
    teacher, student = bert(4, hidden=48, heads=2), bert(2, hidden=96, heads=3, seed=1)
    objective = MiniLMv2Objective(student, teacher)
    assert (objective.teacher_layer, objective.student_layer, objective.relation_heads) == (
        4,
        2,
        48,
    )
    assert objective.alpha == {"qq": 1.0, "kk": 1.0, "vv": 1.0}


def relation_kl(s_vectors, t_vectors, heads: int, inputs) -> float:
    """MiniLMv2 by hand: per relation head r and real query token, KL(teacher row || student row)
    of softmax(a_r . b_r / sqrt(d_r)) over the real keys, averaged over heads and tokens."""
    keys = inputs["attention_mask"].bool()

    def row(vectors, b, r, q):
        size = vectors.shape[-1] // heads
        part = vectors[b, :, r * size : (r + 1) * size][keys[b]]
        scores = part @ vectors[b, q, r * size : (r + 1) * size] / math.sqrt(size)
        return torch.log_softmax(scores, dim=-1)

    return mean(
        kl(row(t_vectors, b, r, q), row(s_vectors, b, r, q))
        for r in range(heads)
        for b, q in real_tokens(inputs)
    )


def test_minilmv2_terms_relate_queries_keys_and_values_of_a_narrower_student():
    teacher, student = bert(4, hidden=16, heads=2), bert(2, hidden=8, heads=1, seed=1)
    objective = MiniLMv2Objective(
        student,
        teacher,
        method_options("minilmv2", {"minilmv2": {"relation_heads": 4, "teacher_layer": 3}}),
    ).eval()
    inputs = batch()
    s, t = Reference(student, inputs), Reference(teacher, inputs)

    def vectors(model, reference, layer, name):  # the projection of the layer's input, float64
        projection = getattr(model.bert.encoder.layer[layer - 1].attention.self, name)
        weight, bias = projection.weight.detach().double(), projection.bias.detach().double()
        return reference.hidden[layer - 1] @ weight.T + bias

    # the layers from the distilled one on do not run (their queries, keys and values are
    # taken from the layer's input): the student's layer 2, the teacher's layers 3 and 4
    ran = []
    for model, layers in ((student, (1, 2)), (teacher, (2, 3, 4))):
        for layer in layers:
            model.bert.encoder.layer[layer - 1].register_forward_hook(
                lambda *_, name=(model is teacher, layer): ran.append(name)
            )
    terms = objective.terms(inputs)
    assert sorted(ran) == [(False, 1), (True, 2)]
    assert len(student.bert.encoder.layer) == 2 and len(teacher.bert.encoder.layer) == 4
    check(
        terms,
        {
            term: relation_kl(vectors(student, s, 2, name), vectors(teacher, t, 3, name), 4, inputs)
            for term, name in (("qq", "query"), ("kk", "key"), ("vv", "value"))
        },
    )


def test_minilmv2_trains_the_students_projections_and_lowers_the_loss():
    teacher, student = bert(4, hidden=16, heads=2), bert(2, hidden=8, heads=1, seed=1)
    objective = MiniLMv2Objective(
        student, teacher, method_options("minilmv2", {"minilmv2": {"relation_heads": 4}})
    )
    inputs = batch()
    optimizer = torch.optim.AdamW([p for p in objective.parameters() if p.requires_grad], lr=1e-2)
    losses = []
    for step in range(20):
        loss, logged = objective(inputs)
        loss.backward()
        if step == 0:
            attention = student.bert.encoder.layer[1].attention.self
            for name in ("query", "key", "value"):
                assert getattr(attention, name).weight.grad.abs().sum() > 0, name
            assert all(p.grad is None for p in teacher.parameters())
            assert set(logged) == {"loss_qq", "loss_kk", "loss_vv"}
            assert loss.item() == pytest.approx(sum(v.item() for v in logged.values()), rel=1e-6)
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
