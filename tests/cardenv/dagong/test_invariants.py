"""Random play: cards and points conserved, payoffs zero-sum, every game ends (200
games in the default run, 2,100 under -m slow)."""

import numpy as np
import pytest

from cardenv.core.cards import KIND_POINTS
from cardenv.dagong import DagongGame
from cardenv.dagong import catalogue as cat


def check(state):
    hands = state.hands
    assert (hands >= 0).all()
    # 108 cards: every kind twice, in hands or played
    assert np.array_equal(hands.sum(0) + state.v["played"].sum(0), np.full(54, 2))
    assert list(hands.sum(1)) == state.cards_left
    # 200 points: won + on the table + in hands
    assert sum(state.won) + state.trick_points + int(KIND_POINTS @ hands.sum(0)) == 200


@pytest.mark.parametrize("options, games", [
    ({}, 80), pytest.param({}, 1000, marks=pytest.mark.slow),
    ({"allow_solo": False}, 80), pytest.param({"allow_solo": False}, 1000, marks=pytest.mark.slow),
    ({"hands": 3}, 40), pytest.param({"hands": 3}, 100, marks=pytest.mark.slow)])
def test_random_games(options, games):
    game = DagongGame(**options)
    rng = np.random.default_rng(12345)
    reasons = set()
    for seed in range(games):
        s = game.new_state(seed)
        steps = 0
        while not s.is_over:
            legal = np.flatnonzero(s.legal_mask())
            assert legal.size > 0
            s.apply(int(legal[rng.integers(legal.size)]))
            steps += 1
            assert steps < 2000, "game did not end"
            if not s.is_over:
                check(s)
            assert sum(s.last_rewards) == 0
        assert len(s.results) == game.options["hands"]
        for r in s.results:
            assert sum(r.payoff) == 0 and sum(r.rewards) == 0 and sum(r.xiqian) == 0
            if r.reason != "solo" and len(r.places) == 4:
                assert sum(r.points) == 200
            reasons.add(r.reason)
        assert sum(s.returns) == 0
        assert s.returns == [sum(r.rewards[i] for r in s.results) for i in range(4)]
    if options.get("allow_solo", True):
        assert "solo" in reasons
    else:  # find-a-friend hands reach both kinds of ending
        assert {"score", "bang"} <= reasons


def test_mask_never_offers_solo_outside_solo_phase():
    game = DagongGame()
    rng = np.random.default_rng(0)
    for seed in range(50):
        s = game.new_state(seed)
        while not s.is_over:
            mask = s.legal_mask()
            if s.phase == "play":
                assert not mask[cat.SOLO_DECLINE] and not mask[cat.SOLO_DECLARE]
                assert mask[cat.PASS] == (s.standing >= 0)
            else:
                assert np.flatnonzero(mask).tolist() == [cat.SOLO_DECLINE, cat.SOLO_DECLARE]
            legal = np.flatnonzero(mask)
            s.apply(int(legal[rng.integers(legal.size)]))
