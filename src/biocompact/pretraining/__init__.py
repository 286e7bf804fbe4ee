"""Pretraining stage: masked language modelling from scratch or from a checkpoint."""
