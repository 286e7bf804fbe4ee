"""Every task family in ``FAMILIES`` declares what the other stages ask of it: its Hub
pipeline tag (the model card), the evaluation text of each of its formats (the corpus's
decontamination), its predictions file read back (the report's comparisons); the registry imports none of the
training stack. Each family's first format has one small split here, which states, written
out by hand, the examples its reader returns for it, and a malformed variant of it, whose
error must name the file and the line at fault."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from biocompact.finetuning.tasks import FAMILIES
from biocompact.release.cards import usage_snippet
from biocompact.taskfiles.bioasq import Snippet
from biocompact.taskfiles.formats import FORMATS
from biocompact.taskfiles.readers import (
    DatasetFormatError,
    LabelledText,
    MultiLabelText,
    TaggedSentence,
)
from biocompact.taskfiles.similarity import ScoredPair


def _squad(
    answer_key: str, answer: object, third: dict | None = None, indent: int | None = None
) -> str:
    """Two snippets of one BioASQ question and one of another, in SQuAD form, each with
    ``answer_key: answer`` (every context starts with the factoid answer); ``third`` updates
    the third snippet's ``qas`` entry, ``indent`` is json.dumps's."""
    entries = [
        ("55031181e9bde69634000014_001", "BRCA1 mutations cause breast cancer."),
        ("55031181e9bde69634000014_002", "BRCA1 loss precedes breast cancer."),
        ("5503145ee9bde69634000015_001", "BRCA1 works beside TP53."),
    ]
    paragraphs = [
        {"context": context, "qas": [{"id": id_, "question": "Which gene?", answer_key: answer}]}
        for id_, context in entries
    ]
    paragraphs[2]["qas"][0].update(third or {})
    return json.dumps({"data": [{"paragraphs": paragraphs}]}, indent=indent)


def _pairs(labels: list) -> str:
    return "".join(
        json.dumps({"sentence1": f"premise {i}", "sentence2": f"hypothesis {i}", "gold_label": x})
        + "\n"
        for i, x in enumerate(labels)
    )


@dataclass(frozen=True)
class Split:
    """One small split file: its ``text``, and the ``examples`` its format's reader returns
    for it, as a function of the file's path (every example records its ``source``);
    ``malformed`` is a faulty file of the format, the line its reader's error names and a
    fragment of the error's message."""

    text: str
    examples: Callable[[str], list]
    malformed: tuple[str, int, str]


# one small split of each family's first format, with the examples its reader returns and a
# malformed variant
SPLITS = {
    ("ner", "biobert_tsv"): Split(
        "BRCA1\tB-Gene\nloss\tO\n\nTP53\tB-Gene\nis\tO\nmutated\tO\n\n",
        lambda source: [
            TaggedSentence(["BRCA1", "loss"], ["B-Gene", "O"], source, 1),
            TaggedSentence(["TP53", "is", "mutated"], ["B-Gene", "O", "O"], source, 4),
        ],
        # a BIOES tag, not IOB2
        ("BRCA1\tB-Gene\nloss\tO\n\nTP53\tS-Gene\nis\tO\n\n", 4, "unknown tag scheme: 'S-Gene'"),
    ),
    ("re", "biobert_tsv"): Split(
        "@GENE$ binds @CHEMICAL$ .\t1\nno link .\t0\nalso none .\t0\n",
        lambda source: [
            LabelledText("0", "@GENE$ binds @CHEMICAL$ .", "1", source, 1),
            LabelledText("1", "no link .", "0", source, 2),
            LabelledText("2", "also none .", "0", source, 3),
        ],
        # a row without its label column
        (
            "@GENE$ binds @CHEMICAL$ .\t1\nno link .\nalso none .\t0\n",
            2,
            "expected 2 non-empty tab-separated columns, got 1",
        ),
    ),
    ("dc", "hoc_tsv"): Split(
        "labels\tsentence\tindex\n"
        "a_1,b_0\tFirst sentence .\t100_s1\n"
        "a_1,b_1\tSecond sentence .\t100_s2\n"
        "a_0,b_1\tAnother abstract .\t200_s1\n",
        lambda source: [
            MultiLabelText("100_s1", "First sentence .", frozenset({"a"}), "100", source, 2),
            MultiLabelText("100_s2", "Second sentence .", frozenset({"a", "b"}), "100", source, 3),
            MultiLabelText("200_s1", "Another abstract .", frozenset({"b"}), "200", source, 4),
        ],
        # a label flag that is not <name>_0 or <name>_1
        (
            "labels\tsentence\tindex\n"
            "a_1,b_0\tFirst sentence .\t100_s1\n"
            "a_1,b_yes\tSecond sentence .\t100_s2\n",
            3,
            "malformed labels 'a_1,b_yes'",
        ),
    ),
    ("dc", "biobert_tsv"): Split(
        "a document .\tcancer\nanother .\tother\na third .\tcancer\n",
        lambda source: [
            LabelledText("0", "a document .", "cancer", source, 1),
            LabelledText("1", "another .", "other", source, 2),
            LabelledText("2", "a third .", "cancer", source, 3),
        ],
        # a row whose label is empty
        (
            "a document .\tcancer\nanother .\tother\na third .\t\n",
            3,
            "expected 2 non-empty tab-separated columns, got 2",
        ),
    ),
    ("nli", "mednli_jsonl"): Split(
        _pairs(["entailment", "neutral", "entailment"]),
        lambda source: [
            LabelledText("0", "premise 0", "entailment", source, 1, text_pair="hypothesis 0"),
            LabelledText("1", "premise 1", "neutral", source, 2, text_pair="hypothesis 1"),
            LabelledText("2", "premise 2", "entailment", source, 3, text_pair="hypothesis 2"),
        ],
        # a pair without its gold_label
        (
            _pairs(["entailment"])
            + json.dumps({"sentence1": "premise 1", "sentence2": "hypothesis 1"})
            + "\n",
            2,
            "missing or empty field(s) ['gold_label']",
        ),
    ),
    # json.dumps writes the SQuAD file on one line: every entry is on line 1
    ("qa_factoid", "squad_json"): Split(
        _squad("answers", [{"text": "BRCA1", "answer_start": 0}]),
        lambda source: [
            Snippet(
                "55031181e9bde69634000014_001",
                "55031181e9bde69634000014",
                "Which gene?",
                "BRCA1 mutations cause breast cancer.",
                ("BRCA1",),
                (0,),
                source,
                1,
            ),
            Snippet(
                "55031181e9bde69634000014_002",
                "55031181e9bde69634000014",
                "Which gene?",
                "BRCA1 loss precedes breast cancer.",
                ("BRCA1",),
                (0,),
                source,
                1,
            ),
            Snippet(
                "5503145ee9bde69634000015_001",
                "5503145ee9bde69634000015",
                "Which gene?",
                "BRCA1 works beside TP53.",
                ("BRCA1",),
                (0,),
                source,
                1,
            ),
        ],
        # the third snippet's answer "TP53" is at offset 19, not 18; indented, its id is on
        # line 39
        (
            _squad(
                "answers",
                [{"text": "BRCA1", "answer_start": 0}],
                third={"answers": [{"text": "TP53", "answer_start": 18}]},
                indent=1,
            ),
            39,
            "answer 'TP53' at offset 18 does not match its context",
        ),
    ),
    ("qa_yesno", "bioasq_yesno_json"): Split(
        _squad("answer", "yes"),
        lambda source: [
            LabelledText(
                "55031181e9bde69634000014_001",
                "Which gene?",
                "yes",
                source,
                1,
                text_pair="BRCA1 mutations cause breast cancer.",
                group="55031181e9bde69634000014",
            ),
            LabelledText(
                "55031181e9bde69634000014_002",
                "Which gene?",
                "yes",
                source,
                1,
                text_pair="BRCA1 loss precedes breast cancer.",
                group="55031181e9bde69634000014",
            ),
            LabelledText(
                "5503145ee9bde69634000015_001",
                "Which gene?",
                "yes",
                source,
                1,
                text_pair="BRCA1 works beside TP53.",
                group="5503145ee9bde69634000015",
            ),
        ],
        # the third snippet's id is not a BioASQ question id; indented, it is on line 29
        (
            _squad("answer", "yes", third={"id": "5503145e_001"}, indent=1),
            29,
            "id '5503145e_001' does not start with a 24-character BioASQ id",
        ),
    ),
    ("similarity", "similarity_jsonl"): Split(
        _pairs([1.0, 2.0, 4.5]),
        lambda source: [
            ScoredPair("0", "premise 0", "hypothesis 0", 1.0, source, 1),
            ScoredPair("1", "premise 1", "hypothesis 1", 2.0, source, 2),
            ScoredPair("2", "premise 2", "hypothesis 2", 4.5, source, 3),
        ],
        # a score written as a string
        (
            _pairs([1.0, 2.0])
            + json.dumps(
                {"sentence1": "premise 2", "sentence2": "hypothesis 2", "gold_label": "4.5"}
            )
            + "\n",
            3,
            "gold_label '4.5' is not a number",
        ),
    ),
}

EVERY_FAMILY = [family for families in FAMILIES.values() for family in families]
EACH_FAMILY = pytest.mark.parametrize(
    "family", EVERY_FAMILY, ids=[f"{f.name}-{next(iter(f.readers))}" for f in EVERY_FAMILY]
)


@EACH_FAMILY
def test_every_family_declares_its_card_tag_evaluation_text_and_predictions_reader(
    family, tmp_path
):
    assert f'pipeline("{family.pipeline_tag}"' in usage_snippet(family.pipeline_tag, "model")
    for fmt, reader in family.readers.items():
        assert FORMATS[(family.name, fmt)].reader is reader, fmt
    fmt = next(iter(family.readers))
    split = tmp_path / "split"
    split.write_text(SPLITS[(family.name, fmt)].text, encoding="utf-8")
    examples = family.read(split, fmt)
    predicted = family.majority(examples, examples)
    predictions = tmp_path / "predictions.tsv"
    with open(predictions, "w", encoding="utf-8") as handle:
        family.write_predictions(handle, examples, predicted)
    (fold,) = family.read_predictions(predictions)
    assert fold.gold == family.gold(examples)
    assert fold.predicted == list(predicted)
    assert len(set(fold.units)) <= len(fold.gold)


@EACH_FAMILY
def test_each_family_reads_its_split_as_written(family, tmp_path):
    """The family's first format reads its split into the examples the split states."""
    fmt = next(iter(family.readers))
    split = SPLITS[(family.name, fmt)]
    path = tmp_path / "split"
    path.write_text(split.text, encoding="utf-8")
    assert family.read(path, fmt) == split.examples(str(path))


@EACH_FAMILY
def test_each_family_names_the_file_and_line_of_a_malformed_split(family, tmp_path):
    """The family's first format refuses its split's malformed variant, naming the file and
    the line at fault."""
    fmt = next(iter(family.readers))
    text, line, fragment = SPLITS[(family.name, fmt)].malformed
    path = tmp_path / "split"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DatasetFormatError) as error:
        family.read(path, fmt)
    assert str(error.value).startswith(f"{path}:{line}: ")
    assert fragment in str(error.value)


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
