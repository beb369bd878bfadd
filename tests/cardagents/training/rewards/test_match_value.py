"""cardagents.training.rewards.match_value: the shipped match value table's properties, the fit on
hand-made chains, the match reward in collection (it telescopes over a match, it is the value
difference of each hand, batched and unbatched engines give the same rewards) and the config's
``reward``."""

import numpy as np
import pytest

from cardagents.training.rewards.match_value import (FEATURES, LEVELS, MAX_BLOOD, MatchValue, fit,
                                                     match_value_for)
from cardenv.core.errors import ConfigError
from cardenv.games import make_game

RULES = {"joker_levels": True, "keep_dealer": "partner", "four_joker_win": "big_or_small"}


@pytest.fixture(scope="module")
def mv():
    return match_value_for("match", make_game("dabang"))


def test_shipped_table_is_a_probability_and_zero_sum(mv):
    t = mv.table
    assert t.shape == (LEVELS, LEVELS, MAX_BLOOD + 1) and ((t > 0) & (t < 1)).all()
    rng = np.random.default_rng(0)
    for _ in range(200):
        levels = tuple(rng.integers(3, 11, size=2).tolist())
        dealer, blood = int(rng.integers(2)), int(rng.integers(0, 20))
        assert mv.value(levels, dealer, blood, 0) + mv.value(levels, dealer, blood, 1) == \
            pytest.approx(1.0)
    assert mv.value((3, 3), None, 0, 0) == mv.value((3, 3), None, 0, 1) == 0.5


def test_shipped_table_is_monotone_in_the_levels(mv):
    """A team is better off a level higher, and worse off when the other team is: the dealing
    team's chance rises with its level and falls with the other's, at every blood (the chain's
    hand outcomes do not depend on the levels, so sampling noise cannot break this; a table
    that breaks it is a bug in the chain)."""
    t = mv.table
    assert (np.diff(t, axis=0) > 0).all() and (np.diff(t, axis=1) < 0).all()
    # blood owed to the dealer helps the dealer (tribute), at equal levels
    assert t[0, 0, 5] > t[0, 0, 1] > t[0, 0, 0]


def _rows(**cols):
    n = len(cols["blood"])
    return np.array([[cols.get(name, [0] * n)[k] for name in FEATURES] for k in range(n)])


def test_fit_of_hand_made_chains():
    blood = list(range(MAX_BLOOD + 1))
    n = len(blood)
    # every hand ends the match with score 0 for the attackers: the dealer's team wins
    zero = _rows(blood=blood, tp0=[0] * n, tp1=[0] * n)
    table, _ = fit(zero, RULES)
    assert np.allclose(table, 1.0)
    # the attackers take all 400 points: they win at once
    full = _rows(blood=blood, tp0=[0] * n, tp1=[400] * n)
    assert np.allclose(fit(full, RULES)[0], 0.0)
    # half of each: 1/2 everywhere
    table, _ = fit(np.concatenate([zero, full]), RULES)
    assert np.allclose(table, 0.5)
    with pytest.raises(ValueError, match="blood bucket"):
        fit(zero[:3], RULES)


def test_fit_values_a_level_climb():
    """Defenders always keep the deal and go up (attackers 100: outcome 1, blood 2): the
    dealing team wins from anywhere, after 11 - level hands (pass_10)."""
    blood = list(range(MAX_BLOOD + 1))
    n = len(blood)
    table, _ = fit(_rows(blood=blood, tp0=[300] * n, tp1=[100] * n), RULES)
    assert np.allclose(table, 1.0)


def _play(options, batched, mv, samples=300, seed=3):
    from cardagents.players.heuristics import heuristic_for
    from cardagents.players.random import RandomAgent
    from cardagents.training.selfplay import SelfPlay
    from cardenv.vector import VectorGame

    chooser = RandomAgent("dabang", 5)

    def policy(obs, masks):
        return chooser.act_batch(obs, masks), np.zeros(len(obs)), None

    games = VectorGame("dabang", 4, seed=seed, options=options, batched=batched)
    play = SelfPlay(games, np.random.default_rng(seed), {"heuristic": 1.0},
                    {"heuristic": heuristic_for("dabang", seed)}, gamma=1.0, lam=1.0,
                    match_value=mv, values_later=True)
    return play, play.collect(policy, samples)


def test_match_reward_telescopes_over_a_match(mv):
    """In match episodes (truncated after 3 hands) each learner seat's rewards add up to the
    scale times its team's value after the last hand less 1/2 (a fresh match): each hand's
    reward is the value after it less the value of the situation the next hand is dealt in."""
    from cardagents.players.random import RandomAgent
    from cardagents.training.selfplay import SelfPlay
    from cardenv.vector import VectorGame

    chooser = RandomAgent("dabang", 5)
    ends = []
    games = VectorGame("dabang", 2, seed=7, options={"episode": "match", "max_hands": 3})
    step = games.step

    def watched(actions):  # the last hand of each match that ends (its public results)
        out = step(actions)
        ends.extend(done.results[-1] for done in out.games)
        return out

    games.step = watched
    play = SelfPlay(games, np.random.default_rng(7), {"random": 1.0},
                    {"random": RandomAgent("dabang", 6)}, gamma=1.0, lam=1.0,
                    match_value=mv, values_later=True)
    batch = play.collect(lambda o, m: (chooser.act_batch(o, m), np.zeros(len(o)), None), 200)
    sums = np.add.reduceat(batch.reward, np.cumsum(batch.lengths) - batch.lengths)
    assert len(sums) >= 2 and ends
    possible = set()
    for r in ends:
        for team in (0, 1):
            after = 1.0 * (team == r.match_winner) if r.match_winner is not None else \
                mv.value(r.levels_after, r.next_dealer % 2, r.blood, team)
            possible.add(round(mv.scale * (after - 0.5), 9))
    assert {round(s, 9) for s in sums} <= possible
    assert any(abs(s) > 1e-6 for s in sums)


def test_match_reward_of_later_hands_is_the_value_difference(mv):
    """Hand episodes dealt from random situations: each episode's reward is the scale times
    its team's value after the hand less before; batched and unbatched engines give the same
    rewards (the reward reads the states' public situation, whichever engine holds them)."""
    options = {"dealer": "random", "levels": "random", "blood": "random"}
    _, batch = _play(options, True, mv)
    _, plain = _play(options, False, mv)
    assert np.array_equal(batch.reward, plain.reward) and np.array_equal(batch.action,
                                                                         plain.action)
    sums = np.add.reduceat(batch.reward, np.cumsum(batch.lengths) - batch.lengths)
    assert len(sums) >= 4 and np.abs(sums).max() <= mv.scale
    # the game's own reward is not in it: a hand reward is a level count plus 0.5 at most
    _, hand = _play(options, True, None)
    assert not np.allclose(hand.reward, batch.reward)


def test_config_reward_checks():
    from cardagents.training.config import load_config

    assert load_config(None, ["game=dabang", "reward=match"]).reward == "match"
    assert load_config(None, []).reward == "hand"
    with pytest.raises(ConfigError, match="reward must be one of hand, match, got 'matches'"):
        load_config(None, ["game=dabang", "reward=matches"])
    with pytest.raises(ConfigError, match="reward: match applies to dabang only"):
        load_config(None, ["game=dagong", "reward=match"])
    with pytest.raises(ConfigError, match="fitted with keep_dealer=partner"):
        load_config(None, ["game=dabang", "reward=match", "options.keep_dealer=same"])
    cfg = load_config(None, ["game=dabang", "stages=[{samples: 10}, {samples: 10, reward: "
                                                      "match}]"])
    from cardagents.training.config import collector_settings, stage_config
    assert collector_settings(stage_config(cfg, 1)).reward == "match"
    with pytest.raises(ConfigError, match="init must be the path of a PPO checkpoint"):
        load_config(None, ["init=no/such/file.pt"])


def test_table_file_round_trip(tmp_path, mv):
    path = str(tmp_path / "t.npz")
    mv.save(path)
    again = MatchValue.load(path)
    assert np.array_equal(again.table, mv.table) and again.rules == mv.rules
    with pytest.raises(ValueError, match="cannot be read"):
        MatchValue.load(str(tmp_path / "missing.npz"))
