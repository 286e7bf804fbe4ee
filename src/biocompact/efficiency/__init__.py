"""Efficiency stage: the inference benchmark and the speed-up arithmetic the report reads."""
