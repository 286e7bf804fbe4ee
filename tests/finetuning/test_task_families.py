"""Every task family in ``FAMILIES`` declares what the other stages ask of it: its Hub
pipeline tag (the model card), the evaluation text of each of its formats (the corpus's
decontamination), its predictions file read back (the report's comparisons); the registry imports none of the
training stack."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from biocompact.finetuning.tasks import FAMILIES
from biocompact.release.cards import usage_snippet
from biocompact.taskfiles.formats import FORMATS


def _squad(answer_key: str, answer: object) -> str:
    """Two snippets of one BioASQ question and one of another, in SQuAD form, each with
    ``answer_key: answer`` (every context starts with the factoid answer)."""
    entries = [
        ("55031181e9bde69634000014_001", "BRCA1 mutations cause breast cancer."),
        ("55031181e9bde69634000014_002", "BRCA1 loss precedes breast cancer."),
        ("5503145ee9bde69634000015_001", "BRCA1 works beside TP53."),
    ]
    paragraphs = [
        {"context": context, "qas": [{"id": id_, "question": "Which gene?", answer_key: answer}]}
        for id_, context in entries
    ]
    return json.dumps({"data": [{"paragraphs": paragraphs}]})


def _pairs(labels: list) -> str:
    return "".join(
        json.dumps({"sentence1": f"premise {i}", "sentence2": f"hypothesis {i}", "gold_label": x})
        + "\n"
        for i, x in enumerate(labels)
    )


# one small split of each family's first format
SPLITS = {
    ("ner", "biobert_tsv"): "BRCA1\tB-Gene\nloss\tO\n\nTP53\tB-Gene\nis\tO\nmutated\tO\n\n",
    ("re", "biobert_tsv"): "@GENE$ binds @CHEMICAL$ .\t1\nno link .\t0\nalso none .\t0\n",
    ("dc", "hoc_tsv"): "labels\tsentence\tindex\n"
    "a_1,b_0\tFirst sentence .\t100_s1\n"
    "a_1,b_1\tSecond sentence .\t100_s2\n"
    "a_0,b_1\tAnother abstract .\t200_s1\n",
    ("dc", "biobert_tsv"): "a document .\tcancer\nanother .\tother\na third .\tcancer\n",
    ("nli", "mednli_jsonl"): _pairs(["entailment", "neutral", "entailment"]),
    ("qa_factoid", "squad_json"): _squad("answers", [{"text": "BRCA1", "answer_start": 0}]),
    ("qa_yesno", "bioasq_yesno_json"): _squad("answer", "yes"),
    ("similarity", "similarity_jsonl"): _pairs([1.0, 2.0, 4.5]),
}

EVERY_FAMILY = [family for families in FAMILIES.values() for family in families]


@pytest.mark.parametrize(
    "family", EVERY_FAMILY, ids=[f"{f.name}-{next(iter(f.readers))}" for f in EVERY_FAMILY]
)
def test_every_family_declares_its_card_tag_evaluation_text_and_predictions_reader(
    family, tmp_path
):
    assert f'pipeline("{family.pipeline_tag}"' in usage_snippet(family.pipeline_tag, "model")
    for fmt, reader in family.readers.items():
        assert FORMATS[(family.name, fmt)].reader is reader, fmt
    fmt = next(iter(family.readers))
    split = tmp_path / "split"
    split.write_text(SPLITS[(family.name, fmt)], encoding="utf-8")
    examples = family.read(split, fmt)
    predicted = family.majority(examples, examples)
    predictions = tmp_path / "predictions.tsv"
    with open(predictions, "w", encoding="utf-8") as handle:
        family.write_predictions(handle, examples, predicted)
    (fold,) = family.read_predictions(predictions)
    assert fold.gold == family.gold(examples)
    assert fold.predicted == list(predicted)
    assert len(set(fold.units)) <= len(fold.gold)


def test_the_registry_imports_no_training_stack():
    """The report's comparisons read predictions with the families' own readers, in an
    environment without torch, transformers, datasets or the config's schema checks."""
    code = (
        "import sys\n"
        "import biocompact.finetuning.tasks\n"
        "heavy = ('torch', 'transformers', 'datasets', 'jsonschema')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "[]"
