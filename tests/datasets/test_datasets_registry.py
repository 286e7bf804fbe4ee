"""Dataset registry: verified downloads from file:// mirrors in the real archive layouts,
safe extraction, conversion, and every bad input failing with nothing left in the cache."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

from biocompact.datasets.convert import (
    linkbert_hoc,
    linkbert_pair,
    linkbert_sentence,
    linkbert_tokens,
    prepared_files,
    source_members,
)
from biocompact.datasets.errors import DatasetError
from biocompact.datasets.fetch import download_source, read_member, unsafe_member
from biocompact.datasets.prepare import prepare_file
from biocompact.datasets.registry import (
    BIOBERT,
    DATASETS,
    LINKBERT,
    REGISTRY,
    REGISTRY_FILE,
    SOURCES,
    RegistryError,
    get_dataset,
    load_registry,
)
from biocompact.datasets.tasks import dataset_task, uses_prepared_files
from biocompact.finetuning.settings import resolve_task
from biocompact.taskfiles.readers import (
    read_hoc_tsv,
    read_ner_biobert_tsv,
    read_nli_jsonl,
    read_re_blue_tsv,
)
from biocompact.taskfiles.similarity import read_similarity_jsonl


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
    members = source_members(REGISTRY, source.name)
    download_source(
        source,
        archive.as_uri(),
        output,
        lock_file=tmp_path / "lock.sha256",
        extracted=members,
        retries=0,
    )
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
def test_unsafe_member_the_registry_never_reads_is_skipped_and_counted(
    biobert_mirror, tmp_path, name
):
    members = {"./datasets/NER/NCBI-disease/train.tsv": b"Aspirin\tO\n", name: b"x\tO\n"}
    archive = _tar(tmp_path / "evil.tar.gz", members)
    output = tmp_path / "cache" / "datasets.tar.gz"
    extracted = source_members(REGISTRY, BIOBERT.name)
    digest, skipped = download_source(
        BIOBERT,
        archive.as_uri(),
        output,
        lock_file=tmp_path / "lock.sha256",
        extracted=extracted,
        retries=0,
    )
    assert len(digest) == 64 and output.exists()
    problem = "has '..' in its path" if ".." in name else "has an absolute path"
    assert skipped == [f"{name!r} {problem}"]
    assert read_member(output, "datasets/NER/NCBI-disease/train.tsv") == b"Aspirin\tO\n"


@pytest.mark.parametrize(
    "name",
    [
        "/datasets/NER/NCBI-disease/train.tsv",
        "datasets/NER/x/../NCBI-disease/train.tsv",
    ],
)
def test_unsafe_member_the_registry_reads_fails_the_download(tmp_path, name):
    archive = _tar(tmp_path / "evil.tar.gz", {name: b"x\tO\n"})
    message = f"member {name!r} has .* read as 'datasets/NER/NCBI-disease/train.tsv'; refusing"
    with pytest.raises(DatasetError, match=message):
        _download(archive, tmp_path)
    assert not list((tmp_path / "cache").rglob("*.gz"))


def test_link_member_and_unsafe_zip_member_fail_the_download(tmp_path):
    archive = tmp_path / "links.tar.gz"
    with tarfile.open(archive, "w:gz") as handle:
        link = tarfile.TarInfo("datasets/NER/NCBI-disease/train.tsv")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        handle.addfile(link)
    with pytest.raises(DatasetError, match="is a link and would be read as .*; refusing"):
        _download(archive, tmp_path)
    archive = _zip(tmp_path / "data.zip", {"data/seqcls/x/../DDI_hf/train.json": b"{}"})
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
    sentence = json.dumps({"id": "7", "sentence": "@DRUG$ inhibits\t@DRUG$ .", "label": "0"})
    assert linkbert_sentence(sentence) == "index\tsentence\tlabel\n7\t@DRUG$ inhibits @DRUG$ .\t0\n"
    path = tmp_path / "re.tsv"
    path.write_text(linkbert_sentence(sentence))
    assert [(e.id, e.label) for e in read_re_blue_tsv(path)] == [("7", "0")]

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


def test_linkbert_hoc_abstract_records_convert_one_example_per_abstract(tmp_path):
    """LinkBERT's HoC_hf: one record per abstract, sentences joined, bare PMID id."""
    records = [
        {"sentence": "Tumours grow. They spread.", "label": [0, 1] + [0] * 8, "id": "123"},
        {"sentence": "Cells die.", "label": [0] * 9 + [1], "id": "456"},
    ]
    converted = linkbert_hoc("".join(json.dumps(record) + "\n" for record in records))
    assert converted.splitlines()[1:] == [
        "0_0,1_1,2_0,3_0,4_0,5_0,6_0,7_0,8_0,9_0\tTumours grow. They spread.\t123",
        "0_0,1_0,2_0,3_0,4_0,5_0,6_0,7_0,8_0,9_1\tCells die.\t456",
    ]
    path = tmp_path / "hoc.tsv"
    path.write_text(converted)
    assert [(e.document, e.labels) for e in read_hoc_tsv(path)] == [
        ("123", frozenset({"1"})),
        ("456", frozenset({"9"})),
    ]
    sentence_record = {"sentence": "Tumours grow.", "label": [0] * 10, "id": "123_s2"}
    with pytest.raises(ValueError, match="line 1: id '123_s2' is not a bare PMID"):
        linkbert_hoc(json.dumps(sentence_record))
    with pytest.raises(ValueError, match="line 2: abstract 123 again"):
        linkbert_hoc(json.dumps(records[0]) + "\n" + json.dumps(records[0]))


def _json_lines(rows: list[dict]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


# Records in the layouts LinkBERT's scripts/preprocess_blurb.py writes, quirks included.
LINKBERT_RECORDS = {
    # negatives rewritten to "0" (lines 85-86), no header skipped but GAD's (lines 81-82)
    "seqcls/DDI_hf": [
        {"id": "DDI-DrugBank.d1.s0.p0", "sentence": "@DRUG$ and @DRUG$ .", "label": "0"},
        {"id": "DDI-DrugBank.d1.s0.p1", "sentence": "@DRUG$ raises @DRUG$ .", "label": "DDI-int"},
        {"id": "DDI-DrugBank.d1.s0.p2", "sentence": "@DRUG$ , @DRUG$ .", "label": "0"},
    ],
    "seqcls/chemprot_hf": [
        {"id": "10064839.T49.T56", "sentence": "@CHEMICAL$ binds @GENE$ .", "label": "0"},
        {"id": "10064839.T50.T56", "sentence": "@CHEMICAL$ blocks @GENE$ .", "label": "CPR:4"},
    ],
    "seqcls/BIOSSES_hf": [
        {"sentence1": "A binds B.", "sentence2": "B is bound by A.", "label": 3.8, "id": "1"},
        {"sentence1": "A binds B.", "sentence2": "Mice sleep.", "label": 0.2, "id": "2"},
    ],
    # one record per abstract with a bare PMID (lines 144-157)
    "seqcls/HoC_hf": [
        {"sentence": "Tumours grow. They spread.", "label": [0, 1] + [0] * 8, "id": "11857413"},
    ],
    # every I- tag turned into B- (lines 252-253)
    "tokcls/ebmnlp_hf": [
        {
            "tokens": ["Forty", "adults", "received", "aspirin"],
            "ner_tags": ["B-PAR", "B-PAR", "O", "B-INT"],
            "id": "0",
        },
    ],
    "seqcls/pubmedqa_hf": [
        {"id": "9", "sentence1": "Does A help?", "sentence2": "A helped.", "label": "yes"},
    ],
}
FIXTURE_SIZES = {
    "blurb-ddi": 3,
    "blurb-chemprot": 2,
    "blurb-biosses": 2,
    "blurb-hoc": 1,
    "blurb-ebm-pico": 3,  # tagged tokens
    "blurb-pubmedqa": 1,
}


def registry_with_sizes(tmp_path: Path, sizes: dict[str, int]) -> Path:
    """The package's registry file with every split of ``sizes``'s datasets published at
    the given size (the fixtures are small)."""
    data = yaml.safe_load(REGISTRY_FILE.read_text(encoding="utf-8"))
    for name, size in sizes.items():
        for split in data["datasets"][name]["splits"].values():
            split.update(size=size)
            split.pop("tolerance", None)
    path = tmp_path / "registry.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def linkbert_archive(tmp_path) -> tuple[Path, Path]:
    """(mirror, downloaded copy) of a zip in LinkBERT's layout holding the records above."""
    members = {
        f"data/{folder}/{split}.json": _json_lines(rows)
        for folder, rows in LINKBERT_RECORDS.items()
        for split in ("train", "dev", "test")
    }
    archive = _zip(tmp_path / "data.zip", members)
    return archive, _download(archive, tmp_path, LINKBERT)


def test_linkbert_layout_mirror_prepares_blurb_datasets(linkbert_archive, tmp_path):
    archive, cached = linkbert_archive
    registry = load_registry(registry_with_sizes(tmp_path, FIXTURE_SIZES))

    def prepared(name: str, relative: str) -> Path:
        output = tmp_path / "cache" / name / relative
        counts = prepare_file(name, relative, cached, archive.as_uri(), output, registry)
        assert counts.counts.converted == counts.counts.published == FIXTURE_SIZES[name]
        return output

    ddi = read_re_blue_tsv(prepared("blurb-ddi", "train.tsv"))
    assert [e.label for e in ddi] == ["0", "DDI-int", "0"]
    chemprot = read_re_blue_tsv(prepared("blurb-chemprot", "test.tsv"))
    assert [e.label for e in chemprot] == ["0", "CPR:4"]
    biosses = read_similarity_jsonl(prepared("blurb-biosses", "test.jsonl"))
    assert [(p.text_pair, p.score) for p in biosses] == [
        ("B is bound by A.", 3.8),
        ("Mice sleep.", 0.2),
    ]
    (abstract,) = read_hoc_tsv(prepared("blurb-hoc", "dev.tsv"))
    assert (abstract.document, abstract.labels) == ("11857413", frozenset({"1"}))
    (pico,) = read_ner_biobert_tsv(prepared("blurb-ebm-pico", "dev.tsv"))
    assert pico.tags == ["B-PAR", "B-PAR", "O", "B-INT"]
    (question,) = read_nli_jsonl(prepared("blurb-pubmedqa", "train.jsonl"))
    assert (question.text, question.text_pair, question.label) == (
        "Does A help?",
        "A helped.",
        "yes",
    )


def test_converted_size_differing_from_the_published_one_fails_naming_both(
    linkbert_archive, tmp_path
):
    archive, cached = linkbert_archive
    output = tmp_path / "cache" / "blurb-ddi" / "dev.tsv"
    with pytest.raises(DatasetError) as error:
        prepare_file("blurb-ddi", "dev.tsv", cached, archive.as_uri(), output)
    assert str(error.value) == (
        f"dataset blurb-ddi ({archive.as_uri()}), data/seqcls/DDI_hf/dev.json: split dev: "
        "3 instances converted, but Gu et al. 2021 Table 3 publishes 2496"
    )
    assert not output.parent.exists() or not any(output.parent.iterdir())


def test_label_outside_the_label_set_fails_naming_the_record(tmp_path):
    """ChemProt regenerated from BLUE's TSV: its header row becomes a record labelled
    'label' (preprocess_blurb.py skips a first line only for GAD, lines 81-82)."""
    header = {"id": "index", "sentence": "sentence", "label": "label"}
    rows = [header, *LINKBERT_RECORDS["seqcls/chemprot_hf"]]
    archive = _zip(tmp_path / "data.zip", {"data/seqcls/chemprot_hf/train.json": _json_lines(rows)})
    cached = _download(archive, tmp_path, LINKBERT)
    registry = load_registry(registry_with_sizes(tmp_path, {"blurb-chemprot": 3}))
    output = tmp_path / "cache" / "blurb-chemprot" / "train.tsv"
    with pytest.raises(DatasetError) as error:
        prepare_file("blurb-chemprot", "train.tsv", cached, archive.as_uri(), output, registry)
    assert "data/seqcls/chemprot_hf/train.json: split train: record 1 (id 'index'" in str(
        error.value
    )
    assert "label(s) ['label'] outside the dataset's label set ['0', 'CPR:3'" in str(error.value)
    assert not output.exists()


def test_counts_by_unit_are_hand_computed():
    from biocompact.datasets.check import UNITS
    from biocompact.taskfiles.readers import MultiLabelText, TaggedSentence

    sentences = [
        TaggedSentence(["a", "b", "c", "d"], ["B-X", "I-X", "O", "B-X"], "f", 1),
        TaggedSentence(["e"], ["O"], "f", 6),
    ]
    assert UNITS["mentions"](sentences) == 2
    assert UNITS["tagged tokens"](sentences) == 3
    assert UNITS["sentences"](sentences) == 2
    texts = [MultiLabelText(str(i), "t", frozenset(), doc, "f", i) for i, doc in enumerate("aab")]
    assert UNITS["abstracts"](texts) == 2 and UNITS["instances"](texts) == 3


def test_bc5cdr_disease_dev_within_its_documented_tolerance(tmp_path):
    """The files hold 4,246 dev mentions where the published tables say 4,244."""
    from biocompact.datasets.check import CheckError, check_split
    from biocompact.taskfiles.readers import TaggedSentence, normalise_tag

    dataset = get_dataset("bc5cdr-disease")
    assert dataset.splits["dev"].tolerance == 2

    def mentions(count: int) -> list[TaggedSentence]:
        tag = normalise_tag("B", "f", 1)  # as the reader returns BioBERT's untyped tags
        return [TaggedSentence(["x"], [tag], "f", line) for line in range(count)]

    counts = check_split(dataset, "dev", mentions(4246), None)
    assert (counts.converted, counts.published) == (4246, 4244)
    with pytest.raises(
        CheckError, match="4247 mentions converted, but .* publishes 4244 \\(tolerance 2\\)"
    ):
        check_split(dataset, "dev", mentions(4247), None)


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda data: data["datasets"]["gad"].update(sise=3),
            r"registry.yaml: datasets.gad: Additional properties are not allowed \('sise'",
        ),
        (
            lambda data: data["datasets"]["ncbi-disease"].pop("licence"),
            r"registry.yaml: datasets.ncbi-disease: 'licence' is a required property",
        ),
        (
            lambda data: data["datasets"]["blurb-ddi"]["splits"]["dev"].pop("size"),
            r"registry.yaml: datasets.blurb-ddi.splits.dev: 'size' is a required property",
        ),
        (
            lambda data: data["datasets"]["blurb-ddi"].update(source="nowhere"),
            r"registry.yaml: datasets.blurb-ddi.source: unknown source 'nowhere'",
        ),
    ],
)
def test_registry_file_with_unknown_key_or_missing_field_names_it(tmp_path, edit, message):
    data = yaml.safe_load(REGISTRY_FILE.read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / "registry.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(RegistryError, match=message):
        load_registry(path)


def test_dataset_task_fills_registry_settings_the_task_leaves_unset():
    task = dataset_task("gad", {"dataset": "gad", "preset": "p", "metric": None, "folds": None})
    assert task["family"] == "re" and task["format"] == "biobert_tsv"
    assert task["folds"] == [str(fold) for fold in range(1, 11)]
    assert task["train"] == "results/data/gad/{fold}/train.tsv" and "dev" not in task
    assert task["metric"] == "binary_f1"
    overridden = dataset_task("ddi", {"dataset": "blurb-ddi", "preset": "p", "metric": "accuracy"})
    assert overridden["metric"] == "accuracy" and overridden["negative_label"] == "0"
    assert dataset_task("own", {"train": "a.tsv", "preset": "p"}) == {
        "train": "a.tsv",
        "preset": "p",
    }


def test_a_dataset_recipe_replaces_the_preset_and_the_task_overrides_it():
    """HoC named by its registered dataset trains by LinkBERT's published command (40
    epochs, not the preset's 3); the task's own hyperparameters and the model's overrides
    win over it; a task of files alone keeps its preset."""
    finetuning = {
        "presets": {"p": {"epochs": 3, "batch_size": 16, "learning_rate": 5e-5}},
        "model_overrides": {"m": {"learning_rate": 1e-4}},
        "tasks": {
            "hoc": {"dataset": "blurb-hoc", "preset": "p", "hyperparameters": {}},
            "hoc-short": {
                "dataset": "blurb-hoc",
                "preset": "p",
                "hyperparameters": {"epochs": 20},
            },
            "own": {
                "family": "dc",
                "format": "hoc_tsv",
                "train": "a.tsv",
                "test": "b.tsv",
                "preset": "p",
                "hyperparameters": {},
            },
        },
    }
    hoc = resolve_task(finetuning, "hoc").training
    assert (hoc.epochs, hoc.batch_size, hoc.learning_rate) == (40, 32, 4e-5)
    assert (hoc.max_seq_length, hoc.warmup_ratio, hoc.weight_decay, hoc.threshold) == (
        512,
        0.0,
        0.0,
        0.5,
    )
    assert resolve_task(finetuning, "hoc-short").training.epochs == 20
    assert resolve_task(finetuning, "hoc", model="m").training.learning_rate == 1e-4
    assert resolve_task(finetuning, "own").training.epochs == 3
    assert "LinkBERT src/run_examples_blurb_biolinkbert-base.sh" in (
        get_dataset("blurb-hoc").recipe_from
    )


def test_a_task_with_its_own_copy_of_every_split_downloads_nothing():
    own = {"dataset": "blurb-hoc", "train": "a.tsv", "dev": "b.tsv", "test": "c.tsv"}
    assert not uses_prepared_files(own)
    assert uses_prepared_files({"dataset": "blurb-hoc", "train": "a.tsv"})
    assert not uses_prepared_files({"train": "a.tsv"})


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
        assert dataset.unit and dataset.sizes_from, name
        for split, entry in dataset.splits.items():
            assert entry.size is not None or entry.note, (name, split)
        if dataset.family not in ("similarity", "qa_factoid"):
            assert dataset.labels, name
        if dataset.blurb_type:
            assert dataset.sizes_from == "Gu et al. 2021 Table 3", name
    assert get_dataset("bc5cdr-disease").members["dev"] == "datasets/NER/BC5CDR-disease/devel.tsv"
    assert get_dataset("blurb-ddi").task == {"negative_label": "0"}
    assert get_dataset("blurb-ebm-pico").labels == ("O", "B-PAR", "B-INT", "B-OUT")


def test_preparation_reads_with_the_families_own_readers():
    from biocompact.finetuning.tasks import get_family
    from biocompact.taskfiles.formats import FORMATS

    for name, dataset in DATASETS.items():
        reader = FORMATS[dataset.family, dataset.format].reader
        assert get_family(dataset.family, dataset.format).readers[dataset.format] is reader, name


def test_docs_list_every_registered_dataset(repo_root):
    page = (repo_root / "docs/finetuning-and-metrics.md").read_text(encoding="utf-8")
    section = page.split("## Public datasets by name")[1].split("\n## ")[0]
    rows = {line.split(" | ")[0]: line for line in section.splitlines() if line.startswith("| `")}
    for name, dataset in DATASETS.items():
        assert f"| `{name}`" in rows, name
        sizes = [
            dataset.splits[split].size
            for split in ("train", "dev", "test")
            if split in dataset.splits
        ]
        if any(sizes):
            assert (
                f" | {'/'.join(f'{size:,}' for size in sizes)} {dataset.unit} | "
                in rows[f"| `{name}`"]
            ), name
    for source in SOURCES.values():
        assert source.url in section, source.name


def test_docs_example_registry_entry_is_valid(repo_root, tmp_path):
    """The entry docs/finetuning-and-metrics.md shows a contributor passes the schema."""
    page = (repo_root / "docs/finetuning-and-metrics.md").read_text(encoding="utf-8")
    example = page.split("To add a dataset")[1].split("```yaml\n")[1].split("```")[0]
    data = yaml.safe_load(REGISTRY_FILE.read_text(encoding="utf-8"))
    data["datasets"].update(yaml.safe_load(example))
    path = tmp_path / "registry.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    dataset = load_registry(path).dataset("my-corpus")
    assert dataset.splits["dev"].tolerance == 2 and dataset.splits["test"].size is None


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
