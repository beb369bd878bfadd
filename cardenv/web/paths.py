"""Where the web page finds the shipped agents and league tables, whatever folder it is started
from: a folder named relative to the repository (``checkpoints``, ``docs/results``) is taken
from the current folder when it is there, else from the repository this package was installed
from (a checkout, or ``pip install -e .``), so that ``python -m cardenv.web`` run from anywhere
offers the shipped agents and leagues. An installed copy without its repository finds none
there; the command line then says so (``cardenv.web.__main__``)."""

from __future__ import annotations

import os
import pathlib

# the repository root of an editable install or a checkout: cardenv/web/paths.py is two below
REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
MARKER = "pyproject.toml"  # what tells a repository from an installed package's site-packages


def repository() -> pathlib.Path | None:
    """The repository this package was installed from, or ``None`` (an installed copy)."""
    return REPOSITORY if (REPOSITORY / MARKER).is_file() else None


def shipped(folder: str) -> str:
    """``folder`` (relative, e.g. ``checkpoints``) in the current folder if it is there, else in
    the package's repository if it is there, else ``folder`` as given."""
    if os.path.isdir(folder) or os.path.isabs(folder):
        return folder
    root = repository()
    if root is not None and (root / folder).is_dir():
        return os.fspath(root / folder)
    return folder
