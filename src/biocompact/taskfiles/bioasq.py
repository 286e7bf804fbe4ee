"""BioASQ's files as BioBERT ships them: SQuAD-v1.1 snippet files, yes/no files and the
golden file.

Snippet files: ``{"data": [{"paragraphs": [{"context", "qas": [{"id", "question",
"answers": [{"text", "answer_start"}]}]}]}]}``, one ``qas`` entry per (question, snippet);
the first 24 characters of its id are the BioASQ question id (``<id>_<NNN>`` per snippet).
Yes/no files have the same layout with the answer (``"answer": "yes"``) or none (then the
golden file gives it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from biocompact.taskfiles.readers import DatasetFormatError, LabelledText, non_empty
from biocompact.taskfiles.task_format import TaskFormat

QUESTION_ID_LENGTH = 24
YESNO_LABELS = ("no", "yes")


@dataclass(frozen=True)
class Snippet:
    """One (question, snippet) pair; ``answers`` holds the gold answer strings (synonyms)
    and ``starts`` their character offsets in ``context`` (-1 when none is known)."""

    id: str
    question_id: str
    question: str
    context: str
    answers: tuple[str, ...]
    starts: tuple[int, ...]
    source: str
    line: int

    def label_positions(self) -> Iterator[tuple[int, str]]:
        """Span extraction has no label set."""
        return iter(())


class _Lines:
    """Line numbers of strings in a JSON text, searched forwards from the last one found
    (entries come in file order; a miss searches from the start)."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.position, self.line = 0, 1

    def of(self, needle: str) -> int | None:
        """1-based line of the next occurrence of ``needle`` (None if absent)."""
        position = self.raw.find(needle, self.position)
        if position < 0:
            self.position, self.line = 0, 1
            position = self.raw.find(needle)
            if position < 0:
                return None
        self.line += self.raw.count("\n", self.position, position)
        self.position = position
        return self.line


def _load_json(path: str | Path) -> tuple[str, object]:
    raw = Path(path).read_text(encoding="utf-8")
    try:
        return raw, json.loads(raw)
    except json.JSONDecodeError as error:
        raise DatasetFormatError(path, error.lineno, f"malformed JSON ({error.msg})") from None


def _squad_questions(path: str | Path) -> Iterator[tuple[int | None, str, dict, str]]:
    """(line, question id, qas entry, context) of every ``qas`` entry of a SQuAD file."""
    raw, payload = _load_json(path)
    lines = _Lines(raw)
    articles = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(articles, list):
        raise DatasetFormatError(path, 1, 'expected a SQuAD object {"data": [...]}')
    for article in articles:
        for paragraph in article.get("paragraphs", []):
            context = paragraph.get("context")
            for qa in paragraph.get("qas", []):
                qas_id = str(qa.get("id", ""))
                line = lines.of(f'"{qas_id}"')
                if not isinstance(context, str) or not isinstance(qa.get("question"), str):
                    raise DatasetFormatError(
                        path, line, f"entry {qas_id!r} lacks a context or question"
                    )
                if len(qas_id) < QUESTION_ID_LENGTH:
                    raise DatasetFormatError(
                        path, line, f"id {qas_id!r} does not start with a 24-character BioASQ id"
                    )
                yield line, qas_id[:QUESTION_ID_LENGTH], qa, context


def read_squad_json(path: str | Path) -> list[Snippet]:
    """Read factoid snippets; an answer whose offset does not match its context is an error."""
    snippets: list[Snippet] = []
    for line, question_id, qa, context in _squad_questions(path):
        answers = qa.get("answers") or []
        for answer in answers:
            text, start = answer.get("text"), answer.get("answer_start")
            if not isinstance(text, str) or not isinstance(start, int):
                raise DatasetFormatError(
                    path, line, f"{qa['id']}: answer without text/answer_start"
                )
            found = context[start : start + len(text)]
            if found != text:
                raise DatasetFormatError(
                    path,
                    line,
                    f"{qa['id']}: answer {text!r} at offset {start} does not match its context "
                    f"({found!r} there)",
                )
        snippets.append(
            Snippet(
                qa["id"],
                question_id,
                qa["question"],
                context,
                tuple(answer["text"] for answer in answers),
                tuple(answer["answer_start"] for answer in answers),
                str(path),
                line or 0,
            )
        )
    return non_empty(path, snippets)


def yesno_label(answer: str) -> str:
    """The official reading of a yes/no answer: contains "yes" -> yes, else "no" -> no."""
    lowered = answer.lower()
    return "yes" if "yes" in lowered else "no" if "no" in lowered else "none"


def read_yesno_json(path: str | Path) -> list[LabelledText]:
    """Read BioASQ yes/no snippets as (question, snippet) pairs grouped by question id;
    the label is the entry's ``answer`` ("" when absent: the golden file must give it)."""
    examples = [
        LabelledText(
            qa["id"],
            qa["question"],
            yesno_label(qa["answer"]) if qa.get("answer") else "",
            str(path),
            line or 0,
            text_pair=context,
            group=question_id,
        )
        for line, question_id, qa, context in _squad_questions(path)
    ]
    return non_empty(path, examples)


def read_pubmedqa_json(path: str | Path) -> list[LabelledText]:
    """Read PubMedQA: ``{pmid: {"QUESTION", "CONTEXTS": [...], "final_decision"}}``."""
    raw, payload = _load_json(path)
    if not isinstance(payload, dict):
        raise DatasetFormatError(path, 1, "expected an object {pmid: {...}}")
    examples, lines = [], _Lines(raw)
    for pmid, entry in payload.items():
        line = lines.of(f'"{pmid}"') or 0
        if not isinstance(entry, dict) or not all(
            entry.get(key) for key in ("QUESTION", "CONTEXTS", "final_decision")
        ):
            raise DatasetFormatError(
                path, line, f"{pmid}: needs QUESTION, CONTEXTS, final_decision"
            )
        examples.append(
            LabelledText(
                pmid,
                entry["QUESTION"],
                entry["final_decision"],
                str(path),
                line,
                text_pair=" ".join(entry["CONTEXTS"]),
                group=pmid,
            )
        )
    return non_empty(path, examples)


@dataclass(frozen=True)
class GoldenQuestion:
    """A golden BioASQ question: its type and exact answer (factoid: every synonym of
    every golden answer, flattened; yes/no: "yes", "no" or "none")."""

    type: str
    answer: tuple[str, ...] | str


def _flatten(answer: object) -> Iterator[str]:
    if isinstance(answer, str):
        yield answer
    elif isinstance(answer, list):
        for item in answer:
            yield from _flatten(item)


def _golden_questions(path: str | Path) -> list[dict]:
    """The questions of a BioASQ JSON file ``{"questions": [...]}``."""
    _, payload = _load_json(path)
    questions = payload.get("questions") if isinstance(payload, dict) else None
    if not isinstance(questions, list):
        raise DatasetFormatError(path, 1, 'expected a BioASQ object {"questions": [...]}')
    return questions


def read_bioasq_golden(path: str | Path) -> dict[str, GoldenQuestion]:
    """Golden questions by id from a BioASQ JSON file ``{"questions": [...]}``."""
    golden = {}
    for question in _golden_questions(path):
        exact = question.get("exact_answer")
        if question.get("type") == "yesno" and isinstance(exact, str):
            golden[question["id"]] = GoldenQuestion("yesno", yesno_label(exact))
        elif question.get("type") in ("factoid", "list") and exact is not None:
            golden[question["id"]] = GoldenQuestion(question["type"], tuple(_flatten(exact)))
    return golden


def read_bioasq_snippet_documents(path: str | Path) -> dict[str, tuple[str, ...]]:
    """The documents of each golden question's snippets, by question id: their URLs
    (``http://www.ncbi.nlm.nih.gov/pubmed/<PMID>``) in first-seen order."""
    documents = {}
    for question in _golden_questions(path):
        urls = (snippet.get("document") for snippet in question.get("snippets") or [])
        documents[str(question.get("id"))] = tuple(dict.fromkeys(filter(None, urls)))
    return documents


def _context(example: Snippet) -> tuple[str, ...]:
    return (example.context,)


def _question_id(example: Snippet) -> str:
    return example.question_id


def _snippet(example: LabelledText) -> tuple[str, ...]:
    return (example.text_pair or "",)


def _group(example: LabelledText) -> str | None:
    return example.group


def _pmid(example: LabelledText) -> tuple[str, ...]:
    return (example.id,)


# the formats of these readers, in the order of the schema's enum; a BioASQ question's
# snippets' documents come from the task's golden file, by question id
FORMATS = (
    TaskFormat(
        "squad_json",
        ("qa_factoid",),
        read_squad_json,
        Snippet,
        ".json",
        _context,
        question=_question_id,
    ),
    TaskFormat(
        "bioasq_yesno_json",
        ("qa_yesno",),
        read_yesno_json,
        LabelledText,
        ".json",
        _snippet,
        question=_group,
        transfer=True,
    ),
    TaskFormat(
        "pubmedqa_json",
        ("qa_yesno",),
        read_pubmedqa_json,
        LabelledText,
        ".json",
        _snippet,
        pmids=_pmid,
        transfer=True,
    ),
)
