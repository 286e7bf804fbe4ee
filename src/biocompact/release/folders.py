"""Hub-ready release folders: a model folder's weights, config, tokenizer and card (its usage
snippet naming the Hub repository) with its measured results, and the ``hf upload`` command
that publishes it. Pushing is the user's step; nothing here uses the network."""

from __future__ import annotations

import logging
import os
import re
import shlex
import shutil
from pathlib import Path

from huggingface_hub import ModelCard

from biocompact.files.atomic import atomic_path
from biocompact.locations import portable_location
from biocompact.release.cards import CARD_FILE, biocompact_commit, check_card

LOG = logging.getLogger(__name__)

# what a release folder leaves out of the model folder, and the upload out of the release
# folder: Snakemake's marker of a finished folder
LEFT_OUT = (".snakemake_timestamp",)
RESULTS_FILE = "results.json"
# the run's records in a release folder, whose paths of the build machine it rewrites (the
# weights, configs and tokenizer files that transformers writes hold none)
RECORDS = (RESULTS_FILE, "metrics.json")
EXCLUDE = [option for name in LEFT_OUT for option in ("--exclude", name)]


def prepare_release(
    model_folder: str | os.PathLike,
    results_file: str | os.PathLike,
    repo_id: str,
    out_folder: str | os.PathLike,
) -> Path:
    """Write ``out_folder``: the model folder's files, its card with the usage snippet
    loading ``repo_id`` instead of the local folder, and ``results_file`` (``eval.json`` of
    a language model, ``metrics.json`` of a fine-tuned one) as ``results.json``; no path of
    the build machine in the card or the results (``portable_text``)."""
    source = Path(model_folder)
    if not (source / CARD_FILE).exists():
        raise FileNotFoundError(f"{source}: no model card ({CARD_FILE}) to release")
    with atomic_path(out_folder, is_dir=True) as folder:
        shutil.copytree(
            source, folder, ignore=shutil.ignore_patterns(*LEFT_OUT), dirs_exist_ok=True
        )
        card = ModelCard.load(source / CARD_FILE)
        text = (
            str(card)
            .replace(f'"{source}"', f'"{repo_id}"')
            .replace(f'"{model_folder}"', f'"{repo_id}"')
        )
        (folder / CARD_FILE).write_text(portable_text(text), encoding="utf-8")
        check_card(folder / CARD_FILE)
        shutil.copyfile(results_file, folder / RESULTS_FILE)
        for name in RECORDS:
            if (folder / name).exists():
                record = (folder / name).read_text(encoding="utf-8")
                (folder / name).write_text(portable_text(record), encoding="utf-8")
    return Path(out_folder)


# an absolute path: "/" at the start of a word (not in a URL's "//", a ratio "1/2" or "a/b")
ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])/(?:[\w.@+~-]+/)*[\w.@+~-]+")


def portable_path(path: str) -> str:
    """An absolute path of the build machine as the release shows it: an installed
    package's folder as ``python-package:``, a path under the working directory relative to
    it, any other as its last two parts after ``…/``, and the parts above while the first is
    a number (a fold's folder: ``…/GAD/1/train.tsv``, not ``…/1/train.tsv``)."""
    portable = portable_location(path)
    if portable != path:
        return portable
    parts = Path(path).parts
    kept = 2
    while kept < len(parts) - 1 and parts[-kept].isdigit():
        kept += 1
    return path if len(parts) <= kept else "…/" + "/".join(parts[-kept:])


def portable_text(text: str) -> str:
    """``text`` (a card, a results file) with no path of the build machine in it."""
    return ABSOLUTE_PATH.sub(lambda match: portable_path(match.group(0)), text)


def upload_command(repo_id: str, folder: str | os.PathLike) -> str:
    """The ``hf upload`` command that pushes ``folder`` as one commit of ``repo_id``, its
    message naming the biocompact commit the checkpoint was built with."""
    message = f"{Path(folder).name} from biocompact {biocompact_commit()}"
    return shlex.join(
        ["hf", "upload", repo_id, str(folder), ".", *EXCLUDE, "--commit-message", message]
    )
