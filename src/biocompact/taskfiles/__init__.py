"""The task files' formats: readers of every format a fine-tuning task or a dataset download comes in
(BioBERT's and BLUE's TSVs, CoNLL, JSON lines, BioASQ's and PubMedQA's JSON), beneath the
stages that read them (datasets, finetuning, corpus decontamination, task distillation)."""
