"""Helpers for Dagong tests: random play and scripted moves by description."""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import RANK_NAMES
from cardenv.dagong import DagongGame
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


def random_step(state, rng):
    """One uniformly random legal action."""
    legal = np.flatnonzero(state.legal_mask())
    state.apply(int(legal[rng.integers(legal.size)]))


def sample_positions(options: dict, seed: int) -> dict:
    """Named positions of one random game (copies), the first of each kind met along the way:
    ``start``, ``solo_phase`` (a 硬牌 decision after the dealer's), ``mid_trick_<hand>`` (a play
    to beat and a pass since), ``leading`` (a trick won, someone to lead), ``after_out`` (a
    player out, the partner revealed), ``new_hand`` (a later hand just dealt), ``over``."""
    state = DagongGame(**options).new_state(seed)
    rng = np.random.default_rng(seed)
    found = {"start": state.clone()}
    hands = 0
    while True:
        random_step(state, rng)
        if state.is_over:
            break
        if len(state.results) > hands:
            found.setdefault("new_hand", state.clone())
            hands = len(state.results)
        if state.phase == "solo" and state.current != state.dealer:
            found.setdefault("solo_phase", state.clone())
        if state.standing >= 0 and any(state.passed):
            found.setdefault(f"mid_trick_{len(state.results)}", state.clone())
        if state.standing < 0 and state.v["played"].any() and len(state.history) > 20:
            found.setdefault("leading", state.clone())
        if state.out and state.revealed:
            found.setdefault("after_out", state.clone())
    found["over"] = state
    return found


def act(type, face=None, length=None, jokers=0, **kw):
    """Action id from a readable description: act("single", "A"), act("pair", "7", jokers=1)."""
    key = None if face is None else RANK_NAMES.index(face)
    if length is None:
        length = {"single": 1, "pair": 2, "triple": 3}[type]
    return cat.action_id(type, length, key, jokers, **kw)
