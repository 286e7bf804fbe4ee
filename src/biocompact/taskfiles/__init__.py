"""A task as every stage that reads its files takes it (datasets, finetuning, corpus
decontamination, task distillation, compression, the report), beneath them all: its settings
(``settings.py``), its files per fold (``folds.py``), their formats, each declared once
(``formats.py``), and the readers of every format a fine-tuning task or a dataset download
comes in (BioBERT's and BLUE's TSVs, CoNLL, JSON lines, BioASQ's and PubMedQA's JSON)."""
