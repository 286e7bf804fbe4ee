"""Model architectures: named presets and helpers shared by every training stage."""
