"""Fine-tuning and evaluation harness: readers, task families, metrics, training, baselines.

Entry points: ``biocompact.finetuning.train.finetune`` and
``biocompact.finetuning.baseline.majority_baseline`` (imported from their modules so that
light users, such as the workflow's ``task_files``, do not load torch).
"""
