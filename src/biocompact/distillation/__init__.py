"""Distillation stage: task-agnostic knowledge distillation from a pretrained teacher."""
