"""Helpers for Dagong tests: random play and scripted moves by description."""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import RANK_NAMES
from cardenv.dagong import catalogue as cat


def random_playout(state, rng, max_steps=5000):
    """Play uniformly random legal actions to the end; returns the number of steps."""
    steps = 0
    while not state.is_over:
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(len(legal))]))
        steps += 1
        assert steps < max_steps, "game did not end"
    return steps


def act(type, face=None, length=None, jokers=0, **kw):
    """Action id from a readable description: act("single", "A"), act("pair", "7", jokers=1)."""
    key = None if face is None else RANK_NAMES.index(face)
    if length is None:
        length = {"single": 1, "pair": 2, "triple": 3}[type]
    return cat.action_id(type, length, key, jokers, **kw)
