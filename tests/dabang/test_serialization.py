"""Dabang clone(), to_dict()/from_dict() through JSON, and replays of seeded games."""

import json

import numpy as np
import pytest

from cardenv.core.errors import StateError
from cardenv.dabang import DabangGame, DabangState


def advance(state, rng, steps):
    for _ in range(steps):
        if state.is_over:
            return
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])


def finish(state, rng):
    while not state.is_over:
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("options", [{}, {"episode": "match", "max_hands": 3}])
def test_json_round_trip_and_continuation(options):
    game = DabangGame(**options)
    for seed in range(12):
        s = game.new_state(seed)
        advance(s, np.random.default_rng(seed), 5 + seed * 37)
        restored = DabangState.from_dict(json.loads(json.dumps(s.to_dict())))
        assert restored.to_dict() == s.to_dict()
        assert restored.legal_actions() == s.legal_actions()
        for seat in range(4):
            assert np.array_equal(restored.observation(seat), s.observation(seat))
        finish(s, np.random.default_rng(99))
        finish(restored, np.random.default_rng(99))
        assert restored.to_dict() == s.to_dict()


def test_clone_is_independent():
    s = DabangGame(episode="match", max_hands=2).new_state(7)
    advance(s, np.random.default_rng(0), 120)
    before = s.to_dict()
    c = s.clone()
    assert c.to_dict() == before
    finish(c, np.random.default_rng(1))
    assert s.to_dict() == before
    finish(s, np.random.default_rng(1))
    assert s.to_dict() == c.to_dict()


def test_replay_reproduces_a_seeded_match():
    game = DabangGame(episode="match", max_hands=3)
    s = game.new_state(2024)
    finish(s, np.random.default_rng(5))
    again = game.replay(2024, s.history)
    assert again.to_dict() == s.to_dict()


def test_hands_is_read_only():
    with pytest.raises(ValueError, match="read-only"):
        DabangGame().new_state(0).hands[0, 0] = 3


@pytest.mark.parametrize("damage, message", [
    (lambda d: d.pop("buffer"), "lacks"),
    (lambda d: d.update(format="x"), "not a serialized Dabang state"),
    (lambda d: d.update(buffer=d["buffer"][:-1]), "wrong shape"),
    (lambda d: d.update(phase="bidding"), "unknown phase"),
    (lambda d: d["deal"].pop("pos"), "bad 'deal'"),
    (lambda d: d["trick"].update(stage="play"), "bad 'trick'"),
    (lambda d: d.update(kitty=[1, 2, 3]), "bad 'kitty'"),
    (lambda d: d.update(cards_left=[0, 0, 0, 0]), "cards_left"),
    (lambda d: d.update(rng={"bit_generator": "nonsense"}), "generator"),
    (lambda d: d.update(options={"episode": "forever"}), "invalid"),
])
def test_malformed_state_is_rejected(damage, message):
    s = DabangGame().new_state(3)
    advance(s, np.random.default_rng(0), 60)
    data = s.to_dict()
    damage(data)
    with pytest.raises(ValueError, match=message):
        DabangState.from_dict(data)


def test_card_conservation_is_checked():
    s = DabangGame().new_state(3)
    advance(s, np.random.default_rng(0), 80)
    data = s.to_dict()
    data["buffer"][0] += 1  # one more copy of ♦3 in seat 0's hand
    data["cards_left"][0] += 1
    with pytest.raises(StateError, match="216 cards"):
        DabangState.from_dict(data)


def test_old_format_is_refused():
    s = DabangGame().new_state(3)
    advance(s, np.random.default_rng(0), 60)
    data = s.to_dict()
    assert data["format"] == "cardenv.dabang.state/2"
    data["format"] = "cardenv.dabang.state/1"
    with pytest.raises(StateError, match="old format 'cardenv.dabang.state/1'.*does not load"):
        DabangState.from_dict(data)
