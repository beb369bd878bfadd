"""clone(), to_dict()/from_dict() through JSON, and replays of seeded games."""

import json

import numpy as np
import pytest

from cardenv.core.errors import StateError
from cardenv.dagong import DagongGame, DagongState
from tests.dagong.util import random_playout


def advance(state, rng, steps):
    for _ in range(steps):
        if state.is_over:
            break
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))


@pytest.mark.parametrize("hands", [1, 3])
def test_json_round_trip_and_continuation(hands):
    game = DagongGame(hands=hands)
    for seed in range(20):
        s = game.new_state(seed)
        advance(s, np.random.default_rng(seed), 60 + seed * 7)
        restored = DagongState.from_dict(json.loads(json.dumps(s.to_dict())))
        assert restored.to_dict() == s.to_dict()
        for seat in range(4):
            assert np.array_equal(restored.observation(seat), s.observation(seat))
        assert np.array_equal(restored.legal_mask(), s.legal_mask())
        # the same moves from both give the same futures (later deals included)
        random_playout(s, np.random.default_rng(99))
        random_playout(restored, np.random.default_rng(99))
        assert restored.to_dict() == s.to_dict()


def test_clone_is_independent():
    s = DagongGame(hands=2).new_state(7)
    advance(s, np.random.default_rng(0), 30)
    before = s.to_dict()
    c = s.clone()
    assert c.to_dict() == before
    random_playout(c, np.random.default_rng(1))
    assert s.to_dict() == before
    random_playout(s, np.random.default_rng(1))
    assert s.to_dict() == c.to_dict()


def test_replay_reproduces_a_seeded_game():
    game = DagongGame(hands=2)
    s = game.new_state(2024)
    random_playout(s, np.random.default_rng(5))
    again = game.replay(2024, s.history)
    assert again.to_dict() == s.to_dict()
    assert again.results[-1].rewards == s.results[-1].rewards


def test_same_seed_same_deal_different_seed_different_deal():
    game = DagongGame()
    assert np.array_equal(game.new_state(1).hands, game.new_state(1).hands)
    assert not np.array_equal(game.new_state(1).hands, game.new_state(2).hands)


@pytest.mark.parametrize("damage, message", [
    (lambda d: d.pop("buffer"), "lacks"),
    (lambda d: d.update(format="something else"), "not a serialized Dagong state"),
    (lambda d: d.update(buffer=d["buffer"][:-1]), "buffer must have shape"),
    # the phase is not stored (format 2 derives it from the buffer): an extra key is refused
    (lambda d: d.update(phase="bidding"), r"unknown keys \['phase'\]"),
    (lambda d: d["buffer"].__setitem__(0, d["buffer"][0] + 1), "conserve"),
    (lambda d: d.update(rng={"bit_generator": "nonsense"}), "generator"),
    (lambda d: d.update(options={"hands": 0}), "invalid"),
])
def test_malformed_state_is_rejected(damage, message):
    data = DagongGame().new_state(3).to_dict()
    damage(data)
    with pytest.raises(ValueError, match=message):
        DagongState.from_dict(data)


def test_from_dict_rejects_non_dicts():
    with pytest.raises(StateError):
        DagongState.from_dict([1, 2, 3])


def test_hands_is_read_only():
    s = DagongGame().new_state(0)
    with pytest.raises(ValueError, match="read-only"):
        s.hands[0, 0] = 2


def test_clones_of_clones_share_no_generator():
    # a clone builds its generator on first use, from its parent's state at clone time
    s = DagongGame(hands=3).new_state(11)
    advance(s, np.random.default_rng(0), 40)
    first = s.clone()
    second = first.clone()
    random_playout(s, np.random.default_rng(2))  # deals later hands from s's own generator
    for copy in (second, first):
        random_playout(copy, np.random.default_rng(2))
        assert copy.to_dict() == s.to_dict()


def test_format_2_states_are_read_by_replaying_them():
    """Format /2 lacked the superseded_calls piece (added at the end of the layout): such a
    state is rebuilt from its seed and history and accepted only if the replay gives back
    what it saved; a hand dealt by hand cannot be replayed and is refused clearly."""
    import numpy as np
    import pytest

    from cardenv.core.errors import StateError
    from cardenv.dagong import DagongGame
    from cardenv.dagong.game import DagongState

    game = DagongGame(hands=3)
    rng = np.random.default_rng(0)
    state = game.new_state(4)
    for _ in range(400):  # into a later hand
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
    assert state.hand_index >= 1
    old = state.to_dict()
    old["format"], old["buffer"] = "cardenv.dagong.state/2", old["buffer"][:634]
    assert DagongState.from_dict(old).to_dict() == state.to_dict()
    tampered = dict(old, buffer=list(old["buffer"]))
    tampered["buffer"][0] += 1
    with pytest.raises(StateError, match="does not give back"):
        DagongState.from_dict(tampered)
    custom = DagongGame().state_from_hands(["♠3 ♥3", "♥3 ♠4", "♠5", "♠6"], dealer=0,
                                           called="♥3")
    data = custom.to_dict()
    data["format"], data["buffer"] = "cardenv.dagong.state/2", data["buffer"][:634]
    with pytest.raises(StateError, match="state_from_hands"):
        DagongState.from_dict(data)
