"""The heuristic agent of each game, by name."""

from __future__ import annotations

from agents.base import check_game


def heuristic_for(game: str, seed: int | None = None):
    """``DagongHeuristic`` or ``DabangHeuristic`` (imported on demand)."""
    if check_game(game) == "dagong":
        from agents.dagong_heuristic import DagongHeuristic
        return DagongHeuristic(seed)
    from agents.dabang_heuristic import DabangHeuristic
    return DabangHeuristic(seed)
