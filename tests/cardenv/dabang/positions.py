"""Saved-state test helpers for Dabang: named positions of seeded random games, one in each
phase and situation a saved state can be in."""

from __future__ import annotations

import numpy as np

from cardenv.dabang import DabangGame
from cardenv.dabang import catalogue as cat

# the situations ``sample_positions`` looks for
KINDS = ("declare", "return", "bury", "koujoker", "takeback", "lead", "first_lead", "follow",
         "between_hands", "over")


def random_step(state, rng) -> None:
    """One uniformly random legal action."""
    legal = state.legal_actions()
    state.apply(legal[rng.integers(len(legal))])


def situation(state) -> str | None:
    """Which of ``KINDS`` the state is in (``None``: an ordinary play step)."""
    phase = state.phase
    if phase == "over":
        return "over"
    last = state.history[-1] if state.history else None
    if phase != "play" and state.results and last is not None and \
            cat.PLAY <= last < cat.RETURN:
        return "between_hands"  # the previous hand just ended; nobody has acted in this one
    if phase != "play":
        return str(phase)
    if state.trick.partial:
        return "follow"
    if not state.trick.plays:
        return "lead" if state.v["played"].any() else "first_lead"
    return None


def sample_positions(options: dict, seeds) -> dict:
    """``{kind: state}``: for each of ``KINDS``, a copy of the first state found in that
    situation along random games of ``seeds`` (kinds the options cannot reach are absent;
    ``bury`` is taken after a card is buried)."""
    game = DabangGame(**options)
    found = {}
    for seed in seeds:
        state = game.new_state(seed)
        rng = np.random.default_rng(seed)
        while True:
            kind = situation(state)
            if kind == "bury" and not state.kitty.buried:
                kind = None
            if kind is not None and kind not in found:
                found[kind] = state.clone()
            if state.is_over or len(found) == len(KINDS):
                break
            random_step(state, rng)
        if len(found) == len(KINDS):
            break
    return found
