"""Experiment trackers (TensorBoard, MLflow, W&B) and TensorBoard's event files."""
