"""Evaluation text with planted properties, for the decontamination tests of the corpus and
of task distillation's transfer sets."""

from __future__ import annotations

import json
from pathlib import Path

from biocompact.entries import parse_entry
from biocompact.taskfiles.settings import FinetuningTask

# A test sentence of 17 words, and a dev sentence of 15.
TEST_SENTENCE = (
    "In young women, carriers of the variant showed an increased risk of breast cancer "
    "compared with controls."
)
DEV_SENTENCE = (
    "Expression of the receptor was measured by quantitative PCR in liver biopsies from all "
    "patients."
)
HOC_PMID = "12345"
PUBMEDQA_PMID = "777"


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def planted_tasks(folder: Path) -> list[FinetuningTask]:
    """Four tasks with their dev and test files written in ``folder``: relation
    extraction (the dev and the test sentence; a masked test sentence too short for an
    n-gram between its masks), HoC (PMID 12345, no n-gram), PubMedQA (PMID 777, no n-gram) and
    NER without a dev file, whose only test sentence is short."""
    folder.mkdir(parents=True, exist_ok=True)
    masked = "@GENE$ polymorphisms were not associated with @DISEASE$ in this large cohort."
    hoc = f"labels\tsentence\tindex\n0_1,1_0\tThe hallmarks of cancer.\t{HOC_PMID}_s1\n"
    pubmedqa = {
        PUBMEDQA_PMID: {"QUESTION": "Is it?", "CONTEXTS": ["A context."], "final_decision": "yes"}
    }
    entries = [
        {
            "name": "re-task",
            "family": "re",
            "format": "biobert_tsv",
            "train": "unused",
            "dev": _write(folder / "re-dev.tsv", f"{DEV_SENTENCE}\t0\n"),
            "test": _write(
                folder / "re-test.tsv",
                f"index\tsentence\tlabel\n0\t{TEST_SENTENCE}\t1\n1\t{masked}\t0\n",
            ),
        },
        {
            "name": "hoc-task",
            "family": "dc",
            "format": "hoc_tsv",
            "train": "unused",
            "test": _write(folder / "hoc-test.tsv", hoc),
        },
        {
            "name": "qa-task",
            "family": "qa_yesno",
            "format": "pubmedqa_json",
            "train": "unused",
            "test": _write(folder / "pubmedqa.json", json.dumps(pubmedqa)),
        },
        {
            "name": "ner-task",
            "family": "ner",
            "format": "biobert_tsv",
            "train": "unused",
            "test": _write(folder / "ner-test.tsv", "Patients\tO\nwith\tO\nasthma\tB\n.\tO\n"),
        },
    ]
    return [parse_entry(FinetuningTask, entry) for entry in entries]
