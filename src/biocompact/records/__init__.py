"""The records the stages write beside their models and the cards and the report read:
``eval.json`` of a pretrained or distilled language model (``language_model.py``),
``metrics.json`` of a fine-tuning run or baseline (``metrics.py``), task distillation's
``evaluation.json`` of a teacher or student (``classifier_evaluation.py``), compression's
``evaluation.json`` of one format (``compressed_format.py``), the efficiency stage's result
of one model (``efficiency.py``), the corpus's ``contamination.json`` and each shard's
``.matches.json`` that it sums (``contamination.py``) and ``stats.json``
(``corpus_statistics.py``), a vocabulary's ``stats.json`` (``vocabulary.py``), a tokenised
corpus's record (``tokenized_corpus.py``), a transfer set's record (``transfer_set.py``)
and a prepared dataset file's checked counts (``dataset_counts.py``), as frozen
dataclasses. Beneath their writers (training, finetuning, task_distillation, compression,
efficiency, corpus, vocab, datasets), the cards (release), the report and pretraining; no
torch."""
