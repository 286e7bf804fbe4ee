"""Fine-tuning and evaluation harness: readers, task families, metrics, training, baselines.

Rule entry points: ``biocompact.finetuning.rules``; the work of each in its module
(``train.finetune``, ``baseline.majority_baseline``, ``saved_models``), imported from there
so that light users, such as the workflow's ``settings`` and ``task_labels``, do not load torch.
"""
