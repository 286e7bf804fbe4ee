"""The sequence-level recipe options: pooling (read from a checkpoint's sentence-transformers
configuration, mean pooling's value, a saved mean-pooled model reloaded), the task head's own
learning rate and multi-label positive weights."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from finetuning_tasks import parsed_task
from tiny_models import EXACT
from transformers import (
    AutoModelForSequenceClassification,
    BertConfig,
    BertForSequenceClassification,
    ModernBertConfig,
    ModernBertForSequenceClassification,
    TrainingArguments,
)

from biocompact.finetuning.pooling import (
    MEAN_POOLING_KEY,
    MeanPooling,
    apply_pooling,
    checkpoint_pooling,
    load_sequence_classifier,
    resolve_pooling,
)
from biocompact.finetuning.tasks import get_family
from biocompact.finetuning.trainer import build_trainer, head_parameters, label_pos_weights


def sentence_transformers_folder(folder: Path, mean: bool, cls: bool = False) -> Path:
    """A checkpoint folder as sentence-transformers writes one: a BERT config, modules.json
    with its Transformer, Pooling and Normalize modules, and 1_Pooling/config.json."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "bert"}))
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {
            "idx": 1,
            "name": "1",
            "path": "1_Pooling",
            "type": "sentence_transformers.models.Pooling",
        },
        {
            "idx": 2,
            "name": "2",
            "path": "2_Normalize",
            "type": "sentence_transformers.models.Normalize",
        },
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps(
            {
                "word_embedding_dimension": 16,
                "pooling_mode_cls_token": cls,
                "pooling_mode_mean_tokens": mean,
                "pooling_mode_max_tokens": False,
            }
        )
    )
    return folder


def test_auto_pooling_reads_the_sentence_transformers_configuration(tmp_path):
    mean = sentence_transformers_folder(tmp_path / "mean", mean=True)
    cls = sentence_transformers_folder(tmp_path / "cls", mean=False, cls=True)
    plain = tmp_path / "bert"
    plain.mkdir()
    (plain / "config.json").write_text(json.dumps({"model_type": "bert"}))
    assert checkpoint_pooling(mean) == (
        "mean",
        "from the checkpoint's sentence-transformers configuration",
    )
    assert checkpoint_pooling(cls)[0] == "cls"
    assert checkpoint_pooling(plain)[0] == "cls"
    assert resolve_pooling("auto", mean)[0] == "mean"
    assert resolve_pooling("cls", mean) == ("cls", "pooling: cls")
    assert resolve_pooling("mean", plain) == ("mean", "pooling: mean")


def test_auto_pooling_of_all_minilm_l6_v2_is_the_mean():
    from tiny_models import MINILM

    assert checkpoint_pooling(MINILM)[0] == "mean"


def exact_classifier(labels: int = 2) -> BertForSequenceClassification:
    torch.manual_seed(0)
    return BertForSequenceClassification(BertConfig(**EXACT, num_labels=labels)).eval()


def test_mean_pooling_is_the_masked_mean_then_the_classifier():
    model = apply_pooling(exact_classifier(), "mean")
    assert isinstance(model.bert.pooler, MeanPooling)
    input_ids = torch.tensor([[2, 7, 9, 3], [2, 5, 3, 1]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])  # the second padded after 3 tokens
    with torch.no_grad():
        logits = model(input_ids=input_ids, attention_mask=mask).logits
        states = model.bert(input_ids=input_ids, attention_mask=mask).last_hidden_state
    by_hand = torch.stack([states[0].sum(0) / 4, states[1, :3].sum(0) / 3])
    expected = model.classifier(by_hand)  # dropout is off in eval mode
    torch.testing.assert_close(logits, expected)
    # and not the [CLS] pooler's
    cls_logits = exact_classifier()(input_ids=input_ids, attention_mask=mask).logits
    assert not torch.allclose(logits, cls_logits)


def test_a_saved_mean_pooled_model_reloads_with_the_same_logits(tmp_path):
    model = apply_pooling(exact_classifier(3), "mean")
    model.save_pretrained(tmp_path / "model")
    assert json.loads((tmp_path / "model" / "config.json").read_text())[MEAN_POOLING_KEY] is True
    assert checkpoint_pooling(tmp_path / "model")[0] == "mean"
    input_ids = torch.tensor([[2, 7, 9, 3], [2, 5, 3, 1]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
    reloaded = load_sequence_classifier(tmp_path / "model").eval()
    family = get_family("re", "biobert_tsv").load_model(str(tmp_path / "model")).eval()
    with torch.no_grad():
        logits = model(input_ids=input_ids, attention_mask=mask).logits
        for again in (reloaded, family):
            torch.testing.assert_close(
                again(input_ids=input_ids, attention_mask=mask).logits, logits
            )
    with pytest.raises(ValueError, match="pooling: cls on a checkpoint fine-tuned here with mean"):
        apply_pooling(reloaded, "cls")
    # plain transformers reads the [CLS] pooler instead, as the model card warns
    plain = AutoModelForSequenceClassification.from_pretrained(tmp_path / "model").eval()
    with torch.no_grad():
        assert not torch.allclose(plain(input_ids=input_ids, attention_mask=mask).logits, logits)


def test_modernbert_pools_by_mean_natively_and_reloads_in_plain_transformers(tmp_path):
    torch.manual_seed(0)
    config = ModernBertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        pad_token_id=1,
        num_labels=2,
    )
    model = apply_pooling(ModernBertForSequenceClassification(config).eval(), "mean")
    assert model.config.classifier_pooling == "mean"
    model.save_pretrained(tmp_path / "model")
    plain = AutoModelForSequenceClassification.from_pretrained(tmp_path / "model").eval()
    input_ids = torch.tensor([[2, 7, 9, 3], [2, 5, 3, 1]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
    with torch.no_grad():
        torch.testing.assert_close(
            plain(input_ids=input_ids, attention_mask=mask).logits,
            model(input_ids=input_ids, attention_mask=mask).logits,
        )


def test_pooling_mean_is_refused_for_token_level_families():
    with pytest.raises(ValueError, match="pooling: mean applies to sequence-level families"):
        parsed_task(family="ner", hyperparameters={"pooling": "mean"})
    with pytest.raises(ValueError, match="pooling is 'max', not 'auto', 'cls' or 'mean'"):
        parsed_task(hyperparameters={"pooling": "max"})


def test_pos_weight_is_negatives_over_positives_per_label():
    # label 0 positive in 1 of 4 examples, label 1 in 3 of 4, label 2 in none
    targets = [[1, 1, 0], [0, 1, 0], [0, 1, 0], [0, 0, 0]]
    assert label_pos_weights(targets) == pytest.approx([3.0, 1 / 3, 1.0])
    with pytest.raises(ValueError, match=r"pos_weight: auto applies to multi-label \(hoc_tsv\)"):
        parsed_task(hyperparameters={"pos_weight": "auto"})


def trainer_of(model, tmp_path, train=None, **settings):
    from datasets import Dataset
    from tiny_models import MINILM
    from transformers import AutoTokenizer

    from biocompact.taskfiles.settings import Hyperparameters

    hyperparameters = Hyperparameters(**settings)
    arguments = TrainingArguments(
        output_dir=str(tmp_path),
        learning_rate=hyperparameters.learning_rate,
        weight_decay=0.01,
        report_to=[],
        use_cpu=True,
    )
    return build_trainer(
        model,
        arguments,
        get_family("dc", "hoc_tsv"),
        AutoTokenizer.from_pretrained(MINILM),
        train
        if train is not None
        else Dataset.from_dict({"input_ids": [[2, 3]], "labels": [[1.0, 0.0]]}),
        hyperparameters=hyperparameters,
    )


def test_head_learning_rate_puts_the_classifier_in_groups_of_its_own(tmp_path):
    model = exact_classifier()
    trainer = trainer_of(model, tmp_path, learning_rate=1e-4, head_learning_rate=3e-3)
    optimizer = trainer.create_optimizer()
    head = {id(p) for p in head_parameters(model)}
    assert head == {id(model.classifier.weight), id(model.classifier.bias)}
    rates = {
        (id(p) in head, group["weight_decay"]): group["lr"]
        for group in optimizer.param_groups
        for p in group["params"]
    }
    # the classifier's weight decays and its bias does not, as the body's parameters
    assert rates == {(False, 0.01): 1e-4, (False, 0.0): 1e-4, (True, 0.01): 3e-3, (True, 0.0): 3e-3}
    assert sum(len(group["params"]) for group in optimizer.param_groups) == len(
        list(model.parameters())
    )
    plain = trainer_of(exact_classifier(), tmp_path / "plain", learning_rate=1e-4)
    assert {group["lr"] for group in plain.create_optimizer().param_groups} == {1e-4}


def test_pos_weight_auto_weighs_the_loss_from_the_training_labels(tmp_path):
    from datasets import Dataset

    model = exact_classifier(labels=2)
    model.config.problem_type = "multi_label_classification"
    targets = [[1.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 0.0]]
    train = Dataset.from_dict({"input_ids": [[2, 7, 3]] * 4, "labels": targets})
    trainer = trainer_of(model, tmp_path, train=train, pos_weight="auto")
    assert trainer.pos_weight.tolist() == pytest.approx([3.0, 1 / 3])
    inputs = {
        "input_ids": torch.tensor([[2, 7, 3], [2, 9, 3]]),
        "attention_mask": torch.ones(2, 3, dtype=torch.long),
        "labels": torch.tensor([[1.0, 0.0], [0.0, 1.0]]),
    }
    with torch.no_grad():
        loss = trainer.compute_loss(model, dict(inputs))
        logits = model(input_ids=inputs["input_ids"]).logits.numpy()
    y = inputs["labels"].numpy()
    weights = np.array([3.0, 1 / 3])
    log_p, log_not_p = -np.log1p(np.exp(-logits)), -np.log1p(np.exp(logits))
    by_hand = -(weights * y * log_p + (1 - y) * log_not_p).mean()
    assert loss.item() == pytest.approx(by_hand, rel=1e-5)
