"""Dataset registry: verified downloads from file:// mirrors in the real archive layouts,
safe extraction, conversion, and every bad input failing with nothing left in the cache."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from biocompact.datasets.convert import (
    linkbert_hoc,
    linkbert_pair,
    linkbert_sentence,
    linkbert_tokens,
    prepared_files,
)
from biocompact.datasets.errors import DatasetError
from biocompact.datasets.fetch import download_source, unsafe_member
from biocompact.datasets.prepare import prepare_file
from biocompact.datasets.registry import BIOBERT, DATASETS, LINKBERT, SOURCES, get_dataset
from biocompact.datasets.tasks import dataset_task
from biocompact.finetuning.readers import (
    read_hoc_tsv,
    read_ner_biobert_tsv,
    read_nli_jsonl,
    read_re_blue_tsv,
    read_similarity_jsonl,
)


def _tar(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


@pytest.fixture
def biobert_mirror(shared_data, tmp_path) -> Path:
    """BioBERT's datasets archive layout (``./datasets/NER/...``, as tar writes it) holding
    the real NCBI-disease splits and GAD fold 1."""
    ncbi = shared_data / "ner/NCBI-disease"
    members = {
        f"./datasets/NER/NCBI-disease/{name}.tsv": (ncbi / f"{name}.tsv").read_bytes()
        for name in ("train", "devel", "test")
    }
    (tmp_path / "mirror").mkdir()
    return _tar(tmp_path / "mirror" / "datasets.tar.gz", members)


def _download(archive: Path, tmp_path: Path, source=BIOBERT) -> Path:
    output = tmp_path / "cache" / "archives" / source.name / source.archive
    download_source(source, archive.as_uri(), output, tmp_path / "lock.sha256", retries=0)
    return output


def test_ncbi_disease_from_a_biobert_layout_mirror(biobert_mirror, shared_data, tmp_path):
    archive = _download(biobert_mirror, tmp_path)
    lock = (tmp_path / "lock.sha256").read_text()
    assert lock.split()[1:] == [BIOBERT.name, BIOBERT.url]
    url = biobert_mirror.as_uri()
    for relative, original in (("train.tsv", "train"), ("dev.tsv", "devel"), ("test.tsv", "test")):
        output = tmp_path / "cache" / "ncbi-disease" / relative
        prepare_file("ncbi-disease", relative, archive, url, output)
        assert (
            output.read_bytes() == (shared_data / f"ner/NCBI-disease/{original}.tsv").read_bytes()
        )
    # a second download is verified against the lock file and leaves it unchanged
    _download(biobert_mirror, tmp_path)
    assert (tmp_path / "lock.sha256").read_text() == lock


def test_checksum_mismatch_names_the_lock_file_and_leaves_nothing(biobert_mirror, tmp_path):
    lock = tmp_path / "lock.sha256"
    lock.write_text(f"{'0' * 64} {BIOBERT.name} {BIOBERT.url}\n")
    with pytest.raises(DatasetError, match=f"SHA-256 mismatch: {lock} says 0+,") as error:
        _download(biobert_mirror, tmp_path)
    assert biobert_mirror.as_uri() in str(error.value)
    assert not list((tmp_path / "cache").rglob("*.gz"))


def test_truncated_archive_fails_and_is_not_recorded(biobert_mirror, tmp_path):
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(biobert_mirror.read_bytes()[:-2000])
    with pytest.raises(DatasetError, match="not a readable archive") as error:
        _download(truncated, tmp_path)
    assert truncated.as_uri() in str(error.value) and "biobert-datasets" in str(error.value)
    assert not (tmp_path / "lock.sha256").exists()
    assert not list((tmp_path / "cache").rglob("*.gz"))


@pytest.mark.parametrize("name", ["../evil.tsv", "/etc/evil.tsv", "datasets/../../evil.tsv"])
def test_unsafe_member_path_fails_the_download(tmp_path, name):
    archive = _tar(tmp_path / "evil.tar.gz", {name: b"x\tO\n"})
    with pytest.raises(DatasetError, match="refusing to extract"):
        _download(archive, tmp_path)
    assert not list((tmp_path / "cache").rglob("*.gz"))


def test_link_member_and_unsafe_zip_member_fail_the_download(tmp_path):
    archive = tmp_path / "links.tar.gz"
    with tarfile.open(archive, "w:gz") as handle:
        link = tarfile.TarInfo("datasets/NER/NCBI-disease/train.tsv")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        handle.addfile(link)
    with pytest.raises(DatasetError, match="is a link; refusing to extract"):
        _download(archive, tmp_path)
    archive = _zip(tmp_path / "data.zip", {"data/../../evil.json": b"{}"})
    with pytest.raises(DatasetError, match="has '..' in its path"):
        _download(archive, tmp_path, LINKBERT)
    assert not list((tmp_path / "cache").rglob("*.*"))


def test_link_member_is_unsafe():
    assert unsafe_member("datasets/NER/x.tsv", is_link=True) == "is a link"
    assert unsafe_member("datasets/NER/x.tsv", is_link=False) is None


def test_missing_member_and_empty_split_fail_naming_dataset_url_and_member(tmp_path):
    archive = _tar(
        tmp_path / "datasets.tar.gz",
        {
            "datasets/NER/NCBI-disease/train.tsv": b"Aspirin\tO\n",
            "datasets/NER/NCBI-disease/devel.tsv": b"\n\n",
        },
    )
    url = archive.as_uri()
    output = tmp_path / "cache" / "ncbi-disease"
    with pytest.raises(DatasetError, match="missing from") as error:
        prepare_file("ncbi-disease", "test.tsv", archive, url, output / "test.tsv")
    assert "ncbi-disease" in str(error.value) and url in str(error.value)
    assert "datasets/NER/NCBI-disease/test.tsv" in str(error.value)
    with pytest.raises(DatasetError, match="no examples") as error:
        prepare_file("ncbi-disease", "dev.tsv", archive, url, output / "dev.tsv")
    assert "datasets/NER/NCBI-disease/devel.tsv" in str(error.value)
    assert not output.exists() or not any(output.iterdir())


def test_linkbert_token_records_convert_to_biobert_tsv():
    records = [
        {"tokens": ["Famotidine", "-", "associated", "delirium"], "ner_tags": ["B", "O", "O", "B"]},
        {"tokens": ["None"], "ner_tags": ["O"]},
    ]
    text = "".join(json.dumps(record) + "\n" for record in records)
    assert linkbert_tokens(text) == ("Famotidine\tB\n-\tO\nassociated\tO\ndelirium\tB\n\nNone\tO\n")
    with pytest.raises(ValueError, match="line 1: expected a tag list"):
        linkbert_tokens(json.dumps({"tokens": ["a", "b"], "ner_tags": ["O"]}))


def test_linkbert_sentence_pair_and_hoc_records_convert(tmp_path):
    sentence = json.dumps({"id": "7", "sentence": "@DRUG$ inhibits\t@DRUG$ .", "label": "DDI-int"})
    assert (
        linkbert_sentence(sentence)
        == "index\tsentence\tlabel\n7\t@DRUG$ inhibits @DRUG$ .\tDDI-int\n"
    )
    path = tmp_path / "re.tsv"
    path.write_text(linkbert_sentence(sentence))
    assert [(e.id, e.label) for e in read_re_blue_tsv(path)] == [("7", "DDI-int")]

    pair = json.dumps({"id": "q1", "sentence1": "Is it?", "sentence2": "It is.", "label": 3.5})
    assert json.loads(linkbert_pair(pair)) == {
        "sentence1": "Is it?",
        "sentence2": "It is.",
        "gold_label": 3.5,
        "pairID": "q1",
    }
    question = json.dumps({"id": "q2", "sentence1": "Q?", "sentence2": "C.", "label": "maybe"})
    path = tmp_path / "qa.jsonl"
    path.write_text(linkbert_pair(question))
    assert [(e.id, e.text, e.text_pair, e.label) for e in read_nli_jsonl(path)] == [
        ("q2", "Q?", "C.", "maybe")
    ]

    hoc = json.dumps({"id": "123_s2", "sentence": "Tumours grow.", "label": [0, 1] + [0] * 8})
    converted = linkbert_hoc(hoc)
    assert (
        converted.splitlines()[1]
        == "0_0,1_1,2_0,3_0,4_0,5_0,6_0,7_0,8_0,9_0\tTumours grow.\t123_s2"
    )
    path = tmp_path / "hoc.tsv"
    path.write_text(converted)
    (example,) = read_hoc_tsv(path)
    assert (example.labels, example.document) == (frozenset({"1"}), "123")


def _json_lines(rows: list[dict]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def test_linkbert_layout_mirror_prepares_blurb_datasets(tmp_path):
    """One zip in LinkBERT's layout with small records of our own for four BLURB datasets."""
    records = {
        "seqcls/DDI_hf": [
            {"id": str(i), "sentence": f"@DRUG$ and @DRUG$ {i}", "label": label}
            for i, label in enumerate(["DDI-false", "DDI-int", "DDI-false"])
        ],
        "seqcls/BIOSSES_hf": [
            {"id": "1", "sentence1": "A binds B.", "sentence2": "B is bound by A.", "label": 3.8},
            {"id": "2", "sentence1": "A binds B.", "sentence2": "Mice sleep.", "label": 0.2},
        ],
        "tokcls/ebmnlp_hf": [
            {
                "tokens": ["Forty", "adults", "received", "aspirin"],
                "ner_tags": ["I-PAR", "I-PAR", "O", "I-INT"],
            },
        ],
        "seqcls/pubmedqa_hf": [
            {"id": "9", "sentence1": "Does A help?", "sentence2": "A helped.", "label": "yes"},
        ],
    }
    members = {
        f"data/{folder}/{split}.json": _json_lines(rows)
        for folder, rows in records.items()
        for split in ("train", "dev", "test")
    }
    archive = _zip(tmp_path / "data.zip", members)
    cached = _download(archive, tmp_path, LINKBERT)
    url = archive.as_uri()

    def prepared(name: str, relative: str) -> Path:
        output = tmp_path / "cache" / name / relative
        prepare_file(name, relative, cached, url, output)
        return output

    ddi = read_re_blue_tsv(prepared("blurb-ddi", "train.tsv"))
    assert [e.label for e in ddi] == ["DDI-false", "DDI-int", "DDI-false"]
    biosses = read_similarity_jsonl(prepared("blurb-biosses", "test.jsonl"))
    assert [(p.text_pair, p.score) for p in biosses] == [
        ("B is bound by A.", 3.8),
        ("Mice sleep.", 0.2),
    ]
    (pico,) = read_ner_biobert_tsv(prepared("blurb-ebm-pico", "dev.tsv"))
    assert pico.tags == ["I-PAR", "I-PAR", "O", "I-INT"]
    (question,) = read_nli_jsonl(prepared("blurb-pubmedqa", "train.jsonl"))
    assert (question.text, question.text_pair, question.label) == (
        "Does A help?",
        "A helped.",
        "yes",
    )


def test_dataset_task_fills_registry_settings_the_task_leaves_unset():
    task = dataset_task("gad", {"dataset": "gad", "preset": "p", "metric": None, "folds": None})
    assert task["family"] == "re" and task["format"] == "biobert_tsv"
    assert task["folds"] == [str(fold) for fold in range(1, 11)]
    assert task["train"] == "results/data/gad/{fold}/train.tsv" and "dev" not in task
    assert task["metric"] == "binary_f1"
    overridden = dataset_task("ddi", {"dataset": "blurb-ddi", "preset": "p", "metric": "accuracy"})
    assert overridden["metric"] == "accuracy" and overridden["negative_label"] == "DDI-false"
    assert dataset_task("own", {"train": "a.tsv", "preset": "p"}) == {
        "train": "a.tsv",
        "preset": "p",
    }


def test_credentialed_and_unknown_datasets_say_what_to_do():
    with pytest.raises(ValueError, match="physionet.org/content/mednli.*train/dev/test"):
        dataset_task("mednli", {"dataset": "mednli", "preset": "p"})
    with pytest.raises(ValueError, match="finetuning.tasks.x.dataset: unknown dataset 'nope'"):
        dataset_task("x", {"dataset": "nope", "preset": "p"})


def test_registry_entries_are_complete():
    for name, dataset in DATASETS.items():
        assert dataset.licence and dataset.citation and dataset.metric, name
        if dataset.source is None:
            assert dataset.obtain, name
            continue
        assert dataset.source in SOURCES and {"train", "test"} <= set(dataset.members), name
        files = prepared_files(dataset)
        assert {split for _, split in files.values()} == set(dataset.members), name
        assert all("{fold}" not in member for member, _ in files.values()), name
    assert get_dataset("bc5cdr-disease").members["dev"] == "datasets/NER/BC5CDR-disease/devel.tsv"


def test_preparation_reads_with_the_families_own_readers():
    from biocompact.datasets.prepare import READERS
    from biocompact.finetuning.tasks import get_family

    for name, dataset in DATASETS.items():
        reader = READERS[dataset.family, dataset.format]
        assert get_family(dataset.family, dataset.format).readers[dataset.format] is reader, name


def test_docs_list_every_registered_dataset(repo_root):
    page = (repo_root / "docs/finetuning-and-metrics.md").read_text(encoding="utf-8")
    section = page.split("## Public datasets by name")[1].split("\n## ")[0]
    for name, dataset in DATASETS.items():
        assert f"| `{name}` |" in section, name
    for source in SOURCES.values():
        assert source.url in section, source.name


def test_download_and_preparation_do_not_import_the_training_stack(repo_root):
    import subprocess
    import sys

    code = (
        "import sys, biocompact.datasets.prepare, biocompact.datasets.tasks; "
        "print(sorted(m for m in ('torch', 'transformers', 'datasets') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(repo_root / "src")},
    )
    assert result.stdout.strip() == "[]"
