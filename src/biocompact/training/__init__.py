"""Training machinery shared by the pretraining and distillation stages."""
