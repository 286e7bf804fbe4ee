"""The summary of benchmarks/packing_quality.py (the packing evidence of docs/speed.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

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
