"""The named encoder shapes of ``architecture: {preset: NAME}`` (light: read when the DAG
is built, to check layer indices against a teacher's depth)."""

from __future__ import annotations

# name: (layers, hidden, heads, intermediate)
PRESETS: dict[str, tuple[int, int, int, int]] = {
    "demo-2L-128": (2, 128, 2, 512),
    "demo-4L-256": (4, 256, 4, 1024),
    "tiny-4L-312": (4, 312, 12, 1200),  # TinyBERT / TinyBioBERT (Rohanian et al. 2023)
    "bioformer-8L": (8, 512, 8, 2048),  # Bioformer-8L (Fang et al. 2023)
    "bioformer-16L": (16, 384, 6, 1536),  # Bioformer-16L (Fang et al. 2023)
    "distil-6L-768": (6, 768, 12, 3072),  # DistilBERT / DistilBioBERT (Rohanian et al. 2023)
    "electra-small": (12, 256, 4, 1024),  # ELECTRA-small discriminator
    "base-12L-768": (
        12,
        768,
        12,
        3072,
    ),  # BERT-base, RoBERTa-base (Lewis et al. 2020), BioM-ELECTRA/ALBERT-base (Alrowili and Shanker 2021)
    "large-24L-1024": (
        24,
        1024,
        16,
        4096,
    ),  # BERT-large, BioM-ELECTRA-large (Alrowili and Shanker 2021)
    # ModernBERT-base and -large (Warner et al. 2024); their other keys (a global-attention
    # layer every 3rd, 128-token local windows, rotary bases 160k/10k) are the config's defaults
    "modernbert-base": (22, 768, 12, 1152),
    "modernbert-large": (28, 1024, 16, 2624),
}
