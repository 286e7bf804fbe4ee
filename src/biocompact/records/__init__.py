"""The records the stages write beside their models and the cards and the report read:
``eval.json`` of a pretrained or distilled language model (``language_model.py``) and
``metrics.json`` of a fine-tuning run or baseline (``metrics.py``), as frozen dataclasses.
Beneath their writers (training, finetuning), the cards (release) and the report; no torch."""
