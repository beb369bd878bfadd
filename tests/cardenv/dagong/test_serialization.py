"""clone(), saved states as recipes (to_dict()/from_dict() through JSON; an edited seed is
refused), and replays of seeded games and of hands dealt by hand (``game.replay(seed, actions,
deal)``). Older formats: tests/cardenv/core/test_state_old_formats.py; corruptions:
test_state_checks.py and test_state_fuzz.py."""

import json

import numpy as np
import pytest

from cardenv.core.cards import parse_cards
from cardenv.core.errors import StateError
from cardenv.dagong import DagongGame, DagongState
from tests.cardenv.dagong.util import random_playout


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
    (lambda d: d.pop("history"), r"lacks \['history'\]"),
    (lambda d: d.update(format="something else"), "not a saved Dagong state"),
    # the buffer, the phase, the generator are not stored: the replay makes them
    (lambda d: d.update(buffer=[0] * 5), r"unknown keys \['buffer'\]"),
    (lambda d: d.update(phase="bidding"), r"unknown keys \['phase'\]"),
    (lambda d: d.update(rng={"bit_generator": "nonsense"}), r"unknown keys \['rng'\]"),
    (lambda d: d.update(options={"hands": 0}), "invalid"),
    (lambda d: d.update(seed=d["seed"] + 1), "replays to another position"),
])
def test_malformed_state_is_rejected(damage, message):
    data = DagongGame().new_state(3).to_dict()
    damage(data)
    with pytest.raises(ValueError, match=message):
        DagongState.from_dict(data)


def test_a_saved_state_is_its_recipe():
    s = DagongGame(hands=2).new_state(5)
    advance(s, np.random.default_rng(1), 50)
    saved = s.to_dict()
    assert saved == {"format": "cardenv.dagong.state/4", "options": s.game.options_dict(),
                     "seed": 5, "deal": None, "history": s.history,
                     "results": [r.to_dict() for r in s.results], "crc": s.crc()}
    bare = {k: saved[k] for k in ("format", "options", "seed", "history")}
    assert DagongState.from_dict(bare).to_dict() == saved  # deal, results, crc: optional


@pytest.mark.parametrize("steps", [0, 40, 1000])
def test_an_edited_seed_is_refused(steps):
    """Issue 22: a saved state whose seed was edited used to load and play on (its record then
    failed to replay); the replay of another seed deals other cards."""
    s = DagongGame(hands=3).new_state(8)
    advance(s, np.random.default_rng(2), steps)
    for seed in (7, 9, 10 ** 12):
        data = dict(s.to_dict(), seed=seed)
        with pytest.raises(StateError, match=r"history\[\d+\]: illegal|replays to another "
                                             r"position|results"):
            DagongState.from_dict(data)


def test_hands_dealt_by_hand_round_trip_with_their_later_hands():
    game = DagongGame(hands=3)
    hands = ["♠3 ♦4 ♦5 ♥K ♠Q", "♣6 ♣9 ♣10", "♠3 ♥7 ♥5", "♠8 ♠J ♦Q"]
    s = game.state_from_hands(hands, dealer=0, called="♠3", seed=12)
    deal = s.to_dict()["deal"]
    assert deal == {"hands": [parse_cards(h) for h in hands], "dealer": 0,
                    "called": parse_cards("♠3")[0]}
    random_playout(s, np.random.default_rng(3))  # the later hands are dealt from the seed
    assert len(s.results) == 3 and s.to_dict()["deal"] == deal
    again = DagongState.from_dict(json.loads(json.dumps(s.to_dict())))
    assert again.to_dict() == s.to_dict()
    assert game.replay(12, s.history, deal=deal).to_dict() == s.to_dict()
    assert game.replay(12, [], deal=deal).to_dict() == game.state_from_deal(12, deal).to_dict()
    partway = game.replay(12, s.history[:5], deal=deal)
    assert partway.history == s.history[:5] and partway.given_deal == deal
    with pytest.raises(ValueError, match="history\\[0\\]: illegal action"):
        game.replay(12, [0], deal=deal)  # the dealer leads: no pass
    with pytest.raises(ValueError, match="a card kind appears more than twice"):
        game.replay(12, [], deal=dict(deal, hands=[[0, 0, 0]] + deal["hands"][1:]))
    # another seed deals other later hands: the saved state is refused
    with pytest.raises(StateError):
        DagongState.from_dict(dict(s.to_dict(), seed=13))


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
