"""The heuristic agent of each game, by game name (a game without one has none here)."""

from __future__ import annotations

import importlib

from cardagents.players.base import check_game

HEURISTICS = {
    "dagong": "cardagents.players.heuristics.dagong:DagongHeuristic",
    "dabang": "cardagents.players.heuristics.dabang.player:DabangHeuristic",
}


def heuristic_for(game: str, seed: int | None = None):
    """The heuristic player of ``game`` (imported on demand); ``ValueError`` if it has none."""
    if check_game(game) not in HEURISTICS:
        raise ValueError(f"game {game!r} has no heuristic player (games with one: "
                         f"{', '.join(HEURISTICS)})")
    module, name = HEURISTICS[game].split(":")
    return getattr(importlib.import_module(module), name)(seed)
