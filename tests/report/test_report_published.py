"""Published results beside ours: the data file and the matching table."""

from __future__ import annotations

import pandas as pd
import pytest

from biocompact.report.aggregation import BLURB
from biocompact.report.published import (
    COLUMNS,
    published_table,
    read_published,
)

DATA = "workflow/report/published_results.csv"
PAPER = "Someone 2020, A paper"


def test_the_data_file_is_valid_and_cites_every_row(repo_root):
    published = read_published(repo_root / DATA)
    assert (published["citation"] != "").all() and (published["table"] != "").all()
    bioformer = published[
        (published["source"] == "fang2023")
        & (published["model"] == "Bioformer-16L")
        & (published["dataset"] == "gad")
    ]
    assert bioformer["value"].tolist() == [0.8140]  # Table 3
    rohanian = published[
        (published["model"] == "TinyBioBERT") & (published["dataset"] == "ncbi-disease")
    ]
    assert dict(zip(rohanian["metric"], rohanian["value"])) == {
        "precision": 0.8211,
        "recall": 0.8857,
        "f1": 0.8522,
    }  # Rohanian et al., Table 1
    # Lewis et al. 2020, Table 2: MedNLI accuracy, RoBERTa-base ... ours-large
    mednli = published[(published["source"] == "lewis2020") & (published["dataset"] == "mednli")]
    assert mednli["value"].tolist() == [0.814, 0.797, 0.825, 0.818, 0.851, 0.871, 0.833, 0.885]
    bioasq = published[
        (published["source"] == "alrowili2021")
        & (published["model"] == "BioM-ALBERT-xxlarge")
        & (published["dataset"] == "bioasq-factoid-7b")
    ]
    assert dict(zip(bioasq["setting"], bioasq["value"])) == {
        "215K steps": 0.551,
        "264K steps": 0.569,
        "264K + 64K steps with PMC": 0.545,
    }  # Alrowili and Shanker 2021, Table 2


def test_bad_rows_are_errors_naming_the_line(tmp_path):
    row = ["s", "m", "d", "f1", "", "0.5", "c", "Table 1", ""]
    path = tmp_path / "p.csv"
    path.write_text(",".join(COLUMNS) + "\n" + ",".join(row) + "\n" + ",".join(row) + "\n")
    with pytest.raises(ValueError, match="p.csv:3: repeats the key"):
        read_published(path)
    path.write_text(",".join(COLUMNS) + "\n" + ",".join(row).replace("0.5", "85.2") + "\n")
    with pytest.raises(ValueError, match="p.csv:2: value 85.2 is not in"):
        read_published(path)


def test_published_rows_sit_beside_our_medians_for_the_same_dataset_and_metric():
    summary = pd.DataFrame(
        [
            {"model": "ours-a", "task": "ncbi", "metric": "f1", "median": 0.81},
            {"model": "ours-b", "task": "ncbi", "metric": "f1", "median": 0.79},
            {"model": "ours-a", "task": "ncbi", "metric": "strict_f1", "median": 0.83},
            {"model": "ours-a", "task": "own", "metric": "f1", "median": 0.5},
        ]
    )
    averages = pd.DataFrame([{"model": "ours-a", "group": BLURB, "value": 0.8}])
    published = pd.DataFrame(
        [
            ["p", "PaperBERT", "ncbi-disease", "f1", "", 0.885, PAPER, "Table 2", "mean of 5"],
            ["p", "PaperBERT", "ncbi-disease", "precision", "", 0.9, PAPER, "Table 2", ""],
            ["q", "LinkBERT", "blurb", "blurb_score", "", 0.8339, "Yasunaga 2022", "README", ""],
        ],
        columns=COLUMNS,
    )
    table = published_table(summary, averages, published, {"ncbi": "ncbi-disease"})
    assert table.columns == [
        "Task (metric)",
        "ours-a (ours)",
        "ours-b (ours)",
        "Published model",
        "Published",
        "Source",
        "Protocol",
    ]
    texts = [[cell.text for cell in row] for row in table.rows]
    assert texts == [
        ["ncbi (f1)", "81.0", "79.0", "PaperBERT", "88.5", f"{PAPER}, Table 2", "mean of 5"],
        ["BLURB score (blurb_score)", "80.0", "", "LinkBERT", "83.4", "Yasunaga 2022, README", ""],
    ]
    assert published_table(summary, averages.iloc[:0], published.iloc[:1], {}) is None
