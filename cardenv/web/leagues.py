"""The league page's data (``/league`` on the web page): the league tables that
``python -m cardagents league`` writes as JSON, found in a folder (``league*.json``) or named one by
one, listed (``GET /api/leagues``) and sent for the page to draw (``GET /api/leagues/NAME``).

The page draws any league the same way (its ratings and matrix are generic tables of players),
so nothing here knows a game. A file is read whole only when it is asked for, at most
``MAX_BYTES``; one that is not a finished league is listed with the reason and refused when
asked for (``WebError`` 404 / 400)."""

from __future__ import annotations

import json
import os
import pathlib

from cardenv.web.sessions import WebError

FORMAT_PREFIX = "cardenv-league/"  # the "format" of cardagents.evaluation.league's documents
PATTERN = "league*.json"
MAX_BYTES = 64 * 2 ** 20
MAX_LISTED = 200
SHOWN = ("title", "settings", "date", "command", "players", "matrix", "ratings", "timings",
         "versions")


def paths(folder: str | None, extra=()) -> dict[str, str]:
    """``{name: path}`` of the leagues offered: the ``extra`` files (named by their path as
    given) and the ``league*.json`` files of ``folder`` (named by their file name)."""
    found = {os.fspath(p): os.fspath(p) for p in extra}
    if folder and os.path.isdir(folder):
        for path in sorted(pathlib.Path(folder).glob(PATTERN))[:MAX_LISTED]:
            found.setdefault(path.name, os.fspath(path))
    return found


def read(path: str) -> dict:
    """The league document at ``path``, finished; ``WebError`` 400 saying why not."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            raise WebError(400, f"{path}: larger than {MAX_BYTES:,} bytes")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as exc:
        raise WebError(400, f"{path}: cannot be read ({exc.strerror or exc})") from None
    except (ValueError, RecursionError) as exc:
        raise WebError(400, f"{path}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or not str(doc.get("format", "")).startswith(FORMAT_PREFIX):
        raise WebError(400, f"{path}: not a league (python -m cardagents league writes them)")
    if not doc.get("complete"):
        raise WebError(400, f"{path}: the league is not finished (run its command again to "
                            f"finish it: {doc.get('command', 'python -m cardagents league')})")
    missing = [key for key in ("matrix", "ratings") if not isinstance(doc.get(key), dict)]
    if missing:
        raise WebError(400, f"{path}: not a league (no {', '.join(missing)})")
    return doc


def listing(folder: str | None, extra=()) -> dict:
    """What ``GET /api/leagues`` answers: the folder and each league's name and title (or why
    it cannot be shown)."""
    out = []
    for name, path in paths(folder, extra).items():
        try:
            doc = read(path)
            out.append({"name": name, "title": doc.get("title") or name,
                        "date": doc.get("date")})
        except WebError as exc:
            out.append({"name": name, "problem": exc.message})
    return {"folder": folder, "leagues": out}


def shown(folder: str | None, extra, name: str) -> dict:
    """What ``GET /api/leagues/NAME`` answers: the league's parts the page draws."""
    found = paths(folder, extra)
    if name not in found:
        raise WebError(404, f"no league {name!r} (leagues: {', '.join(found) or 'none'})")
    doc = read(found[name])
    return dict({key: doc.get(key) for key in SHOWN}, name=name)
