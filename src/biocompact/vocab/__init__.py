"""Vocabulary stage: train a subword vocabulary with `tokenizers` and measure it."""
