"""A task's labels are read from its own files and checked when the DAG is built: the names
a saved model gives them (``label_names``, NER tags as the file writes them), the negative
and positive labels, and dev and test labels that training lacks; an error names the
config key, the file and the labels it holds."""

from __future__ import annotations

import pytest
from finetuning_tasks import parsed_task
from snakemake_runs import dry_run

from biocompact.finetuning.task_labels import check_task_labels, saved_label_names, task_labels

KEY = "finetuning.tasks.chem.label_names"


def test_ner_names_take_the_files_own_tags_and_their_prefixes():
    """The issue's case: BC5CDR-chem's own B/I tags named Chemical give B-/I-Chemical."""
    labels = ["B-ENT", "I-ENT", "O"]  # untyped B, I and O as the reader gives them
    names = {"B": "Chemical", "I": "Chemical"}
    assert saved_label_names(labels, names, "ner", KEY, "train.tsv") == {
        0: "B-Chemical",
        1: "I-Chemical",
        2: "O",
    }
    typed = {"B-ENT": "B-Disease", "I-ENT": "I-Disease"}  # names as read, prefixed: kept
    assert saved_label_names(labels, typed, "ner", KEY, "train.tsv") == {
        0: "B-Disease",
        1: "I-Disease",
        2: "O",
    }
    assert task_labels(["B-Chemical", "I-Chemical", "O"], names, "ner") == labels
    assert task_labels(["B-Disease", "I-Disease", "O"], typed, "ner") == labels


def test_class_labels_are_renamed_as_they_are():
    assert saved_label_names(["0", "1"], {"1": "positive"}, "re", KEY, "t") == {
        0: "0",
        1: "positive",
    }
    assert saved_label_names(["0", "1"], None, "re", KEY, "t") == {0: "0", 1: "1"}
    assert task_labels(["0", "positive"], {"1": "positive"}, "re") == ["0", "1"]


def test_a_name_of_a_label_the_file_lacks_names_key_file_and_labels():
    with pytest.raises(ValueError) as error:
        saved_label_names(["B-ENT", "I-ENT", "O"], {"B-Chemical": "x"}, "ner", KEY, "a/train.tsv")
    assert str(error.value) == (
        f"{KEY} names labels ['B-Chemical'] that a/train.tsv does not have; its labels: "
        "['B-ENT', 'I-ENT', 'O'] (untyped B/I read as B-ENT/I-ENT)"
    )
    with pytest.raises(ValueError, match=r"gives two labels of t one name: \{'0': 'same'"):
        saved_label_names(["0", "1"], {"0": "same", "1": "same"}, "re", KEY, "t")
    with pytest.raises(ValueError, match="names the tag 'B-ENT' twice"):
        saved_label_names(["B-ENT", "O"], {"B": "x", "B-ENT": "y"}, "ner", KEY, "t")


def _task(tmp_path, **settings):
    (tmp_path / "train.tsv").write_text("sentence one\t0\nsentence two\t1\n")
    (tmp_path / "test.tsv").write_text("index\tsentence\tlabel\n0\tsentence three\t2\n")
    return parsed_task(
        name="gad", train=str(tmp_path / "train.tsv"), test=str(tmp_path / "test.tsv"), **settings
    )


def test_a_test_label_that_training_lacks_is_named_with_its_file_and_line(tmp_path):
    with pytest.raises(ValueError) as error:
        check_task_labels(_task(tmp_path))
    assert str(error.value) == (
        f"config: finetuning.tasks.gad.test: {tmp_path}/test.tsv:2: label '2' never seen in "
        f"training ['0', '1'] (read from {tmp_path}/train.tsv)"
    )


@pytest.mark.parametrize("unit", ["abstract", "sentence"])
def test_hoc_max_train_examples_counts_the_units_the_job_reads(tmp_path, unit):
    """The first abstract's second sentence holds label 1: its first abstract has it, its
    first sentence does not."""
    rows = ["labels\tsentence\tindex", "0_1,1_0\tA.\t11_s0", "0_0,1_1\tB.\t11_s1"]
    (tmp_path / "train.tsv").write_text("\n".join(rows) + "\n")
    task = parsed_task(
        name="hoc",
        family="dc",
        format="hoc_tsv",
        train=str(tmp_path / "train.tsv"),
        test=str(tmp_path / "train.tsv"),
        max_train_examples=1,
        unit=unit,
    )
    if unit == "abstract":
        check_task_labels(task)
    else:
        with pytest.raises(
            ValueError, match=r"hoc\.test: .*train\.tsv:3: label '1' never seen in training \['0'\]"
        ):
            check_task_labels(task)


def test_a_negative_label_the_file_lacks_is_named(tmp_path):
    (tmp_path / "test.tsv").write_text("x")
    with pytest.raises(ValueError) as error:
        check_task_labels(_task(tmp_path, negative_label="false"))
    assert str(error.value) == (
        f"config: finetuning.tasks.gad.negative_label: ['false'] not among the labels of "
        f"{tmp_path}/train.tsv: ['0', '1']"
    )


def test_files_the_dag_builds_are_left_to_the_job(tmp_path):
    task = _task(tmp_path)
    (tmp_path / "train.tsv").unlink()  # not built yet: nothing to read
    check_task_labels(task)


def _bc5cdr_chem(shared_data, label_names) -> dict:
    folder = shared_data / "ner/BC5CDR-chem"
    return {
        "finetuning": {
            "models": [],
            "seeds": [1],
            "presets": {"quick": {}},
            "tasks": {
                "bc5cdr-chem": {
                    "family": "ner",
                    "format": "biobert_tsv",
                    "train": str(folder / "train.tsv"),
                    "dev": str(folder / "devel.tsv"),
                    "test": str(folder / "test.tsv"),
                    "preset": "quick",
                    "label_names": label_names,
                }
            },
        },
        "report": {"title": "labels"},
    }


def test_bc5cdr_chem_named_by_its_own_tags_passes_the_dag_build(shared_data, tmp_path):
    """The real file of the issue: `{B: Chemical, I: Chemical}` builds the DAG."""
    result = dry_run(tmp_path, _bc5cdr_chem(shared_data, {"B": "Chemical", "I": "Chemical"}))
    assert result.returncode == 0, result.stderr[-3000:]


def test_bc5cdr_chem_with_a_wrong_tag_stops_the_dag_build(shared_data, tmp_path):
    result = dry_run(tmp_path, _bc5cdr_chem(shared_data, {"B-Chemical": "Chemical"}))
    assert result.returncode != 0
    train = shared_data / "ner/BC5CDR-chem/train.tsv"
    assert (
        "config: finetuning.tasks.bc5cdr-chem.label_names names labels ['B-Chemical'] that "
        f"{train} does not have; its labels: ['B-ENT', 'I-ENT', 'O'] (untyped B/I read as "
        "B-ENT/I-ENT)"
    ) in result.stdout + result.stderr
