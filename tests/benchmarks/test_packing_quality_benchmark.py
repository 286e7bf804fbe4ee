"""The summary of benchmarks/packing_quality.py (the packing evidence of docs/speed.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from biocompact.corpus.textshards import is_heldout
from biocompact.vocab.train import train_vocabulary

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "packing_quality.py"
spec = importlib.util.spec_from_file_location("packing_quality", SCRIPT)
packing_quality = importlib.util.module_from_spec(spec)
spec.loader.exec_module(packing_quality)


def test_summary_is_the_median_and_range_per_packing_in_run_order():
    runs = [
        {"packing": "document", "loss": 4.0, "seconds": 10.0},
        {"packing": "full", "loss": 5.0, "seconds": 12.0},
        {"packing": "document", "loss": 4.6, "seconds": 30.0},
        {"packing": "full", "loss": 5.5, "seconds": 11.0},
        {"packing": "document", "loss": 4.2, "seconds": 20.0},
    ]
    assert packing_quality.summarise(runs, ["loss", "seconds"]) == [
        {"packing": "document", "loss": (4.2, 4.0, 4.6), "seconds": (20.0, 10.0, 30.0)},
        # an even count: the median is the mean of the middle two
        {"packing": "full", "loss": (5.25, 5.0, 5.5), "seconds": (11.5, 11.0, 12.0)},
    ]


def test_each_packing_s_fill_is_printed_without_training(tmp_path, capsys):
    """Two training documents of 4 and 2 one-token words, 10 positions a sequence:
    `document` holds them in 2 sequences of 6 and 4 tokens (10 of 20 positions), `full` and
    `best_fit` in one, `[CLS] 4 [SEP] [CLS] 2 [SEP]` (10 of 10); a third document is held
    out; ``--seeds`` without a value trains none."""
    documents = [["alpha bravo charlie delta"], ["golf hotel"], ["india"]]
    assert [is_heldout(document, 0.5) for document in documents] == [False, False, True]
    shard = tmp_path / "shard.txt"
    shard.write_text("\n\n".join(d[0] for d in documents) + "\n", encoding="utf-8")
    train_vocabulary(
        lambda: shard.read_text().split("\n"),
        tmp_path / "tokenizer",
        "wordpiece",
        vocab_size=120,
        lowercase=True,
        min_frequency=1,
        limit_alphabet=100,
    )
    common = ["--tokenizer", str(tmp_path / "tokenizer"), "--shards", str(shard)]
    options = ["--max-seq-length", "10", "--heldout-fraction", "0.5", "--seeds"]
    assert packing_quality.main([*common, *options]) == []
    printed = capsys.readouterr().out
    assert "document: 2 sequences, 50.0% of positions hold tokens" in printed
    assert "full: 1 sequences, 100.0% of positions hold tokens" in printed
    assert "best_fit: 1 sequences, 100.0% of positions hold tokens" in printed
