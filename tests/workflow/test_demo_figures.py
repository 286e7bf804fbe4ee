"""demo/check_figures.py, with which `make demo` ends: each documented figure of
demo/figures.yaml read from a run's files and compared with the printed value, the claims
checked; and every figure printed in the document it names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
FIGURES = REPO_ROOT / "demo" / "figures.yaml"


def test_every_figure_is_printed_in_the_document_it_names(demo_figures):
    figures, claims = demo_figures.load(FIGURES)
    assert figures and claims
    for figure in figures:
        document = (REPO_ROOT / figure.documented).read_text(encoding="utf-8")
        assert f"{figure.printed:,}" in document, (figure.name, figure.documented)


def test_the_distilled_student_and_its_scratch_baseline_train_equal_steps():
    """The premise of the claim that distillation gives a lower held-out loss than plain MLM
    (Rohanian et al. 2023): the same architecture, as many steps of as many sequences."""
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())
    distilled, scratch = (
        config["distillation"]["teacher-distil"],
        config["pretraining"]["student-scratch"],
    )
    assert (distilled["steps"], distilled["batch_size"]) == (
        scratch["steps"],
        scratch["batch_size"],
    )
    assert scratch["architecture"]["num_hidden_layers"] == len(distilled["student_layers"])


SMALL = """
figures:
  - {name: loss, documented: README.md, file: results/eval.json, key: heldout.loss, printed: 4.083, tolerance: 0.002}
  - {name: distilled, documented: docs/a.md, file: results/summary.csv, row: {setting: distilled, transfer: own}, column: median, scale: 100, printed: 94.4, tolerance: 0.2}
  - {name: untrained, documented: docs/a.md, file: results/summary.csv, row: {setting: untrained}, column: median, scale: 100, printed: 41.6, tolerance: 0.2}
claims:
  - {figure: distilled, above: untrained, margin: 15}
"""


def _run(folder: Path, loss: float, distilled: float, untrained: float = 0.416) -> None:
    (folder / "results").mkdir(exist_ok=True)
    (folder / "results/eval.json").write_text(json.dumps({"heldout": {"loss": loss}}))
    (folder / "results/summary.csv").write_text(
        "setting,transfer,median\n"
        f"distilled,own,{distilled}\ndistilled,other,0.1\nuntrained,,{untrained}\n"
    )


def test_figures_within_their_tolerance_pass(demo_figures, tmp_path):
    (tmp_path / "figures.yaml").write_text(SMALL)
    figures, claims = demo_figures.load(tmp_path / "figures.yaml")
    _run(tmp_path, loss=4.0845, distilled=0.9455)  # 0.0015 and 0.15 points off
    assert demo_figures.check(tmp_path, figures, claims) == []
    arguments = ["--workdir", str(tmp_path), "--figures", str(tmp_path / "figures.yaml")]
    assert demo_figures.main(arguments) == 0


def test_a_figure_that_moved_fails_naming_it_and_both_values(demo_figures, tmp_path, capsys):
    (tmp_path / "figures.yaml").write_text(SMALL)
    figures, claims = demo_figures.load(tmp_path / "figures.yaml")
    _run(tmp_path, loss=4.0855, distilled=0.944)
    assert demo_figures.check(tmp_path, figures, claims) == [
        "loss moved: README.md prints 4.083, results/eval.json gives 4.0855 (tolerance 0.002)"
    ]
    arguments = ["--workdir", str(tmp_path), "--figures", str(tmp_path / "figures.yaml")]
    assert demo_figures.main(arguments) == 1
    assert "demo figure check: loss moved" in capsys.readouterr().err


def test_a_claim_that_no_longer_holds_fails(demo_figures, tmp_path):
    text = SMALL.replace("printed: 41.6", "printed: 80.0")
    (tmp_path / "figures.yaml").write_text(text)
    figures, claims = demo_figures.load(tmp_path / "figures.yaml")
    _run(tmp_path, loss=4.083, distilled=0.944, untrained=0.80)
    assert demo_figures.check(tmp_path, figures, claims) == [
        "distilled (94.4000) is not 15 above untrained (80.0000)"
    ]


def test_a_missing_file_or_an_ambiguous_row_is_named(demo_figures, tmp_path):
    entries = yaml.safe_load(SMALL)
    entries["figures"][1]["row"] = {"setting": "distilled"}  # two rows
    (tmp_path / "figures.yaml").write_text(yaml.safe_dump(entries))
    figures, claims = demo_figures.load(tmp_path / "figures.yaml")
    assert demo_figures.check(tmp_path, figures, claims)[0].startswith(
        f"loss: {tmp_path / 'results/eval.json'} does not exist"
    )
    _run(tmp_path, loss=4.083, distilled=0.944)
    assert demo_figures.check(tmp_path, figures, claims) == [
        f"distilled: 2 rows of {tmp_path / 'results/summary.csv'} match "
        "{'setting': 'distilled'}, not 1"
    ]


def test_claims_must_name_figures_of_the_file(demo_figures, tmp_path):
    (tmp_path / "figures.yaml").write_text(SMALL.replace("above: untrained", "above: untrainde"))
    with pytest.raises(demo_figures.FigureError, match="untrainde"):
        demo_figures.load(tmp_path / "figures.yaml")
