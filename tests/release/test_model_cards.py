"""Model cards and kept fine-tuned models: parameter counts read from the weights, the seed
chosen on dev, the task's label names, and cards that ModelCard.load parses, whose numbers
are the run's and whose usage snippet runs."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess

import numpy as np
import pytest
from contamination_records import contamination_record
from safetensors.numpy import save_file
from tiny_models import CARD_SETTINGS, tiny_ner_task
from transformers import BertForMaskedLM

import biocompact.finetuning.train as finetuning_train
from biocompact.compression.formats import compress
from biocompact.distillation_methods import DISTILLATION_METHODS
from biocompact.entries import parse_entry
from biocompact.files.atomic import atomic_path
from biocompact.finetuning.rules import publish_finetuned
from biocompact.finetuning.saved_models import Publication, choose_run
from biocompact.finetuning.train import FinetuneRun
from biocompact.records.base import record_data
from biocompact.records.metrics import MetricsRecord
from biocompact.release.cards import (
    CITATIONS,
    base_model_statement,
    check_card,
    decontamination_statement,
    hub_id,
    mean_pooling_usage,
    parameter_count,
    spread,
    usage_snippet,
)
from biocompact.release.folders import prepare_release, upload_command
from biocompact.release.rules import release
from biocompact.release.settings import ReleaseUpload
from biocompact.taskfiles.settings import FinetuningTask


def _snippet(card_text: str) -> str:
    [code] = re.findall(r"```python\n(.*?)```", card_text, flags=re.S)
    return code


def test_parameter_count_sums_the_shapes_in_every_weights_file(tmp_path):
    save_file(
        {"a": np.zeros((2, 3), np.float32), "b": np.zeros(4, np.float32)},
        tmp_path / "x.safetensors",
    )
    save_file({"c": np.zeros((5, 1, 2), np.int8)}, tmp_path / "y.safetensors")
    assert parameter_count(tmp_path) == 6 + 4 + 10


def test_parameter_count_names_a_folder_without_weights(tmp_path):
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        parameter_count(tmp_path)


def test_spread_is_median_min_max():
    assert spread([0.5, 0.9, 0.7, 0.6]) == pytest.approx({"median": 0.65, "min": 0.5, "max": 0.9})


def _record(seed: int, dev: float, test: float) -> MetricsRecord:
    return MetricsRecord(
        model="m",
        task="t",
        seed=seed,
        family="ner",
        primary_metric="f1",
        metrics={"f1": test},
        dev_metrics={"f1": dev},
    )


def test_choose_run_takes_the_median_dev_seed_never_the_test_score():
    records = [_record(1, 0.70, 0.10), _record(2, 0.90, 0.20), _record(3, 0.80, 0.99)]
    chosen, why = choose_run(records, "median_dev")
    assert chosen.seed == 3 and "median dev score" in why and "seed 3" in why
    assert choose_run(records, "best_dev")[0].seed == 2


def test_choose_run_of_an_even_count_takes_the_lower_middle_and_ties_the_first():
    records = [_record(1, 0.9, 0), _record(2, 0.6, 0), _record(3, 0.8, 0), _record(4, 0.7, 0)]
    chosen, why = choose_run(records, "median_dev")
    assert chosen.seed == 4 and "lower of the two middle" in why
    tied = [_record(5, 0.8, 0), _record(6, 0.8, 0)]
    assert choose_run(tied, "best_dev")[0].seed == 5
    assert choose_run(tied, "median_dev")[0].seed == 5
    with pytest.raises(ValueError, match="save_choice"):
        choose_run(records, "best_test")


def test_atomic_folders_are_readable_by_others(tmp_path):
    previous = os.umask(0o022)
    try:
        with atomic_path(tmp_path / "model", is_dir=True) as folder:
            (folder / "weights").write_text("w")
            (folder / "weights").chmod(0o600)  # as safetensors writes its files
            (folder / "sub").mkdir(mode=0o700)
    finally:
        os.umask(previous)
    mode = {
        path.name: stat.S_IMODE(path.stat().st_mode) for path in (tmp_path / "model").rglob("*")
    }
    assert stat.S_IMODE((tmp_path / "model").stat().st_mode) == 0o755
    assert mode == {"weights": 0o644, "sub": 0o755}


def test_hub_id_is_an_owner_and_name_never_a_folder(tmp_path):
    assert hub_id("dmis-lab/biobert-v1.1") == "dmis-lab/biobert-v1.1"
    assert hub_id("results/pretraining/teacher/model") is None
    (tmp_path / "a").mkdir()
    assert hub_id(str(tmp_path / "a")) is None and hub_id(None) is None


def test_usage_snippet_of_ner_aggregates_from_the_first_sub_token():
    assert 'aggregation_strategy="first"' in usage_snippet("token-classification", "m")
    assert 'pipeline("fill-mask", model="m")' in usage_snippet("fill-mask", "m")


def test_a_mean_pooled_models_card_says_how_to_load_it(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"biocompact_mean_pooling": True}))
    text = mean_pooling_usage(tmp_path, "org/model")
    assert "pools by the mean of its token states" in text
    assert 'model = load_sequence_classifier("org/model")' in text
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    assert mean_pooling_usage(tmp_path, "org/model") == ""


def test_language_model_card_holds_the_measured_numbers(pretrained):
    card = check_card(pretrained / "model" / "README.md")
    evaluation = json.loads((pretrained / "eval.json").read_text())
    model = BertForMaskedLM.from_pretrained(pretrained / "model")
    data = card.data
    assert data.library_name == "transformers" and data.pipeline_tag == "fill-mask"
    assert data.license == "apache-2.0" and data.language == ["en"] and "demo" in data.tags
    values = {result.metric_type: result.metric_value for result in data.eval_results}
    assert values == {
        "loss": round(evaluation["heldout_loss"], 4),
        "perplexity": round(evaluation["perplexity"], 4),
    }
    # tied decoder weights are stored once: the count is the model's unique parameters
    assert f"{sum(p.numel() for p in model.parameters()):,}" in card.text
    assert "| optimizer steps | 2 |" in card.text and "num_hidden_layers | 2" in card.text
    assert "Devlin" in card.text and "learning_rate: 0.001" in card.text
    assert "16 packed training sequences (8 held out)" in card.text
    assert "| evaluation text | not checked: the corpus was not decontaminated" in card.text


def test_the_card_states_the_decontamination_and_the_unknown_text():
    contamination = contamination_record(["ncbi-disease", "hoc"], documents=30000, removed=412)
    assert decontamination_statement(contamination) == (
        "decontaminated against the dev and test text of `ncbi-disease`, `hoc`: 412 of 30,000 "
        "documents shared a PMID or a 13-word n-gram with it and were removed "
        "(`results/corpus/contamination.json`)"
    )
    assert decontamination_statement(None, ["owner/bert"]) == (
        "not checked: the corpus was not decontaminated against any task's evaluation text; "
        "the pretraining text of `owner/bert` (not built here) is unknown and may hold "
        "evaluation text"
    )


def test_a_fine_tuned_models_statement_names_its_task_among_the_checked_or_not():
    contamination = contamination_record(["ncbi-disease"], documents=100, removed=2)
    checked = (
        "decontaminated against the dev and test text of `ncbi-disease`: 2 of 100 documents "
        "shared a PMID or a 13-word n-gram with it and were removed "
        "(`results/corpus/contamination.json`)"
    )
    assert base_model_statement("ncbi-disease", contamination, [], built_here=True) == checked
    assert base_model_statement("hoc", contamination, [], built_here=True) == (
        "`hoc` was not among the tasks checked: " + checked
    )
    assert base_model_statement("hoc", None, [], built_here=True) == (
        "not checked: the corpus was not decontaminated against any task's evaluation text"
    )
    assert base_model_statement("hoc", None, ["owner/bert"], built_here=False) == (
        "not checked: the base model `owner/bert` was not built here; its pretraining text "
        "is unknown and may hold the dev and test text of `hoc`"
    )


def test_language_model_card_usage_snippet_runs(pretrained, capsys):
    card = check_card(pretrained / "model" / "README.md")
    exec(_snippet(card.text), {})  # the snippet names the folder it sits in
    assert "'token_str'" in capsys.readouterr().out


def test_published_fine_tuned_model_has_real_labels_and_a_card_of_every_seed(
    pretrained, tmp_path, repo_root, capsys
):
    task = tiny_ner_task(repo_root, tmp_path / "ner")
    records, folders = [], {}
    for seed in (1, 2, 3):
        folders[seed] = str(tmp_path / f"seed{seed}")
        records.append(
            finetuning_train.finetune(
                FinetuneRun(
                    str(pretrained / "model"),
                    parse_entry(FinetuningTask, task),
                    seed,
                    model_name="tiny",
                    saved_label_names=task["label_names"],
                ),
                outputs={
                    "metrics": str(tmp_path / f"m{seed}.json"),
                    "predictions": str(tmp_path / f"p{seed}.tsv"),
                    "model": folders[seed],
                },
            )
        )
    out = tmp_path / "published"
    contamination = tmp_path / "contamination.json"
    contamination.write_text(
        json.dumps(record_data(contamination_record(["tiny-ner"], documents=50, removed=3)))
    )
    chosen = publish_finetuned(
        Publication(
            "median_dev",
            parse_entry(FinetuningTask, task),
            CARD_SETTINGS,
            base_model_built_here=True,
            external_checkpoints=(),
        ),
        inputs={
            "metrics": [str(tmp_path / f"m{seed}.json") for seed in folders],
            "models": list(folders.values()),
            "contamination": str(contamination),
        },
        outputs={"model": str(out)},
    )
    config = json.loads((out / "config.json").read_text())
    assert config["id2label"] == {"0": "B-Disease", "1": "I-Disease", "2": "O"}
    assert json.loads((out / "metrics.json").read_text())["seed"] == chosen.seed
    card = check_card(out / "README.md")
    assert card.data.pipeline_tag == "token-classification"
    values = {r.metric_type: r.metric_value for r in card.data.eval_results}
    assert values["f1"] == round(chosen.metrics["f1"], 4)
    f1s = [record.metrics["f1"] for record in records]
    assert f"{sorted(f1s)[1]:.4f}" in card.text  # the median over the 3 seeds
    assert f"{min(f1s):.4f}-{max(f1s):.4f}" in card.text
    assert chosen.definitions["f1"] in card.text
    assert f"seed {chosen.seed}, the run with the median dev score" in card.text
    # its base model's corpus was checked for this task's evaluation text
    assert (
        "| evaluation text in the base model's training | decontaminated against the dev and "
        "test text of `tiny-ner`: 3 of 50 documents" in card.text
    )
    exec(_snippet(card.text), {})
    assert "entity_group" in capsys.readouterr().out


@pytest.mark.parametrize("format_name", ["int8", "onnx"])
def test_compressed_formats_carry_the_fp32_card_with_their_format(
    pretrained, tmp_path, repo_root, capsys, format_name
):
    task = tiny_ner_task(repo_root, tmp_path / "ner")
    finetuning_train.finetune(
        FinetuneRun(
            str(pretrained / "model"),
            parse_entry(FinetuningTask, task),
            1,
            card_settings=CARD_SETTINGS,
        ),
        outputs={
            "metrics": str(tmp_path / "m.json"),
            "predictions": str(tmp_path / "p.tsv"),
            "model": str(tmp_path / "fp32"),
        },
    )
    fp32 = check_card(tmp_path / "fp32" / "README.md")
    compress(tmp_path / "fp32", format_name, tmp_path / format_name)
    card = check_card(tmp_path / format_name / "README.md")
    assert card.data.eval_results == fp32.data.eval_results
    assert format_name in card.data.tags and "## Deployment format" in card.text
    assert "are the fp32\nmodel's" in card.text or "are the fp32 model's" in card.text
    [snippet, _] = re.findall(r"```python\n(.*?)```", card.text, flags=re.S)
    exec(snippet, {})
    assert "torch.Size([1," in capsys.readouterr().out


def test_release_folder_names_the_hub_repository_and_holds_the_results(pretrained, tmp_path):
    out = prepare_release(
        pretrained / "model", pretrained / "eval.json", "my-lab/tiny", tmp_path / "tiny"
    )
    card = check_card(out / "README.md")
    assert 'model="my-lab/tiny"' in card.text and str(pretrained / "model") not in card.text
    assert json.loads((out / "results.json").read_text()) == json.loads(
        (pretrained / "eval.json").read_text()
    )
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in out.iterdir()}
    command = upload_command("my-lab/tiny", out)
    assert command.startswith(
        f"hf upload my-lab/tiny {out} . --exclude .snakemake_timestamp --commit-message 'tiny from biocompact "
    )


def test_release_of_a_folder_without_card_is_refused(tmp_path):
    (tmp_path / "model").mkdir()
    with pytest.raises(FileNotFoundError, match="no model card"):
        prepare_release(tmp_path / "model", tmp_path / "eval.json", "a/b", tmp_path / "out")


@pytest.mark.parametrize("name", sorted(DISTILLATION_METHODS))
def test_every_distillation_method_has_its_card_text_and_a_cited_paper(name):
    method = DISTILLATION_METHODS[name]
    assert method.card and method.citation in CITATIONS


def test_upload_script_runs_from_any_folder(tmp_path):
    """results/release/upload.sh run from elsewhere: a stand-in `hf` on PATH records where
    it ran and what it was given; each call runs in the script's folder, on the folder
    named after its release."""
    release_dir = tmp_path / "study/results/release"
    for name in ("teacher", "teacher-demo-re"):
        (release_dir / name).mkdir(parents=True)
    (tmp_path / "bin").mkdir()
    hf = tmp_path / "bin" / "hf"
    hf.write_text('#!/bin/sh\necho "$(pwd) $2 $3" >> "$HF_CALLS"\ntest -d "$3"\n')
    hf.chmod(0o755)
    script = release_dir / "upload.sh"
    release(
        ReleaseUpload(namespace="my-lab"),
        inputs={"folders": [str(release_dir / "teacher"), str(release_dir / "teacher-demo-re")]},
        outputs={"commands": str(script)},
    )
    calls = tmp_path / "calls.txt"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    environment = {
        **os.environ,
        "PATH": f"{hf.parent}:{os.environ['PATH']}",
        "HF_CALLS": str(calls),
    }
    subprocess.run([str(script)], cwd=elsewhere, env=environment, check=True)
    assert calls.read_text().splitlines() == [
        f"{release_dir} my-lab/teacher teacher",
        f"{release_dir} my-lab/teacher-demo-re teacher-demo-re",
    ]
