"""Named encoder architectures (the seeds' model shapes) and how to build their configs."""

from __future__ import annotations

from transformers import BertConfig, PretrainedConfig

# name: (layers, hidden, heads, intermediate)
PRESETS: dict[str, tuple[int, int, int, int]] = {
    "demo-2L-128": (2, 128, 2, 512),
    "demo-4L-256": (4, 256, 4, 1024),
    "tiny-4L-312": (4, 312, 12, 1200),  # TinyBERT / TinyBioBERT (seed 000)
    "bioformer-8L": (8, 512, 8, 2048),  # Bioformer-8L (seed 002)
    "bioformer-16L": (16, 384, 6, 1536),  # Bioformer-16L (seed 002)
    "distil-6L-768": (6, 768, 12, 3072),  # DistilBERT / DistilBioBERT (seed 000)
    "base-12L-768": (12, 768, 12, 3072),  # BERT-base
    "large-24L-1024": (24, 1024, 16, 4096),  # BERT-large
}


def build_config(architecture: dict, vocab_size: int, max_position_embeddings: int = 512) -> PretrainedConfig:
    """A ``BertConfig`` from ``{"preset": name, **overrides}`` (overrides are BertConfig fields)."""
    settings = dict(architecture)
    preset = settings.pop("preset", None)
    values: dict = {}
    if preset is not None:
        if preset not in PRESETS:
            raise ValueError(f"unknown architecture preset {preset!r}; known: {sorted(PRESETS)}")
        layers, hidden, heads, intermediate = PRESETS[preset]
        values = {
            "num_hidden_layers": layers,
            "hidden_size": hidden,
            "num_attention_heads": heads,
            "intermediate_size": intermediate,
        }
    values.update(settings)
    return BertConfig(vocab_size=vocab_size, max_position_embeddings=max_position_embeddings, **values)
