"""The pretraining job: build or load a model of a family, train it with its objective, publish it.

``python -m biocompact.pretraining.run SPEC.json`` runs the job whose ``PretrainingSpec``
is in SPEC.json; torchrun starts it that way, once per GPU.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers import AutoTokenizer, PreTrainedTokenizerBase

from biocompact.locations import resolve_location
from biocompact.models.presets import build_config
from biocompact.pretraining.objectives import objective_entry
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.records.language_model import ModelDescription, Pretraining
from biocompact.training.language_model_job import LanguageModelSpec
from biocompact.training.launch import job_main
from biocompact.training.stage import load_corpus, train_and_publish


@dataclass(frozen=True, kw_only=True)
class PretrainingSpec(LanguageModelSpec):
    """A pretraining job: the model's settings, its vocabulary and the corpus's sequence
    length."""

    settings: PretrainingSettings
    tokenizer_dir: str
    max_seq_length: int


def run_pretraining(spec: PretrainingSpec) -> dict:
    """Pretrain model ``spec.name`` from scratch (``init="scratch"``) or continue from a
    checkpoint.

    ``spec.settings.family`` (bert, roberta, electra, albert, modernbert) picks the
    architecture, ``spec.settings.objective`` (mlm, nsp, electra, albert; default: the
    family's own) the loss; ``spec.outputs`` names the ``model``, ``log`` and ``eval`` paths; ``spec.tracking`` adds
    trackers to the TensorBoard curves.
    """
    settings = spec.settings
    corpus, tokenizer, batcher = load_corpus(spec.dataset_dir, spec.tokenizer_dir, spec.masking)
    objective, entry = objective_entry(settings.objective, settings.family)
    config, location = None, None
    if settings.init == "scratch":
        # sentence-order input holds one [SEP] more than the packed sequence
        longest = spec.max_seq_length + (objective == "albert")
        config = build_config(
            settings.architecture,
            vocab_size=len(tokenizer),
            max_position_embeddings=max(512, longest),
            family=settings.family,
            pad_token_id=tokenizer.pad_token_id,
            special_token_ids=special_token_ids(tokenizer),
        )
    else:
        location = resolve_location(settings.init)
        check_checkpoint_vocabulary(settings.init, location, tokenizer)
    torch.manual_seed(settings.training.seed)
    # the options are read by the electra objective only
    trainable, batcher = entry.build(config, location, settings.electra, tokenizer, batcher)
    model = trainable.model_to_save()
    if model.config.vocab_size < len(tokenizer):
        raise ValueError(
            f"{settings.init} has a vocabulary of {model.config.vocab_size} tokens but the corpus was "
            f"tokenised with {len(tokenizer)}: continued pretraining needs the checkpoint's own "
            "vocabulary (a vocabulary of type 'pretrained' pointing at it)"
        )
    description = ModelDescription(
        model=spec.name,
        origin=Pretraining(init=settings.init, family=settings.family, objective=objective),
        architecture=model.config.to_diff_dict(),
    )
    return train_and_publish(
        trainable,
        corpus,
        tokenizer,
        batcher,
        settings=settings.training,
        checkpoint_dir=spec.checkpoint_dir,
        outputs=spec.outputs,
        probes=spec.probes,
        description=description,
        threads=spec.threads,
        tracking=spec.tracking,
        run_name=f"pretraining/{spec.name}",
    )


def special_token_ids(tokenizer: PreTrainedTokenizerBase) -> dict[str, int]:
    """The ids of the framing tokens, as ModernBERT's config names them."""
    return {
        "cls_token_id": tokenizer.cls_token_id,
        "sep_token_id": tokenizer.sep_token_id,
        "bos_token_id": tokenizer.cls_token_id,
        "eos_token_id": tokenizer.sep_token_id,
    }


def check_checkpoint_vocabulary(
    init: str, location: str, tokenizer: PreTrainedTokenizerBase
) -> None:
    """Continued pretraining must read the corpus with the checkpoint's own token ids.

    A vocabulary trained on the corpus gives the same ids to other pieces: training would
    run, silently, on scrambled embeddings. A checkpoint without tokenizer files is left
    to the vocabulary-size check.
    """
    try:
        own = AutoTokenizer.from_pretrained(location)
    except (OSError, ValueError):
        return
    if own.get_vocab() != tokenizer.get_vocab():
        raise ValueError(
            f"the corpus was tokenised with another vocabulary than {init}'s own: continued "
            "pretraining needs a vocabulary of type 'pretrained' whose checkpoint is the init"
        )


if __name__ == "__main__":
    job_main(run_pretraining, PretrainingSpec.read)
