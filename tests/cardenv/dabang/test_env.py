"""The PettingZoo environment cardenv.dabang_v0: API, seeding, masks, rewards, leaks, errors."""

import json
import re
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

from cardenv import dabang_v0
from cardenv.core.errors import ConfigError, IllegalActionError
from cardenv.dabang import DabangGame, DabangState
from cardenv.dabang import catalogue as cat
from cardenv.dabang.observation import LAYOUT
from cardenv.envs import dabang as env_module
from tests import ROOT


@pytest.mark.parametrize("ctor", [dabang_v0.env, dabang_v0.raw_env,
                                  lambda: dabang_v0.env(episode="match", max_hands=2)])
def test_pettingzoo_api(ctor):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test passes reset() an unknown option on purpose
        api_test(ctor(), num_cycles=1000)


def test_pettingzoo_seed():
    seed_test(dabang_v0.env, num_cycles=400)
    seed_test(lambda: dabang_v0.env(episode="match", max_hands=2), num_cycles=400)


def test_registry():
    env = pettingzoo.make("aec", "cardenv/dabang_v0", follow="live")
    env.reset(seed=0)
    assert env.unwrapped.game.options["follow"] == "live"


def play_random(env, seed, rng):
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(mask))))
        if any(env.unwrapped.infos.values()):
            assert sum(env.rewards.values()) == 0
    return totals


@pytest.mark.parametrize("options", [{}, {"episode": "match", "max_hands": 3}])
def test_rewards_are_team_rewards_and_zero_sum(options):
    rng = np.random.default_rng(0)
    env = dabang_v0.env(**options)
    for seed in range(4):
        totals = play_random(env, seed, rng)
        assert sum(totals.values()) == 0
        assert totals["player_0"] == totals["player_2"] and totals["player_1"] == totals["player_3"]
        assert [totals[a] for a in env.possible_agents] == env.unwrapped.game_state.returns


def test_match_truncation_sets_truncations():
    env = dabang_v0.raw_env(episode="match", max_hands=1)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while not env.game_state.is_over:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    state = env.game_state
    if state.results[-1].match_winner is None:
        assert state.truncated and all(env.truncations.values())
        assert not any(env.terminations.values()) and state.returns == [0.0] * 4
    else:
        assert all(env.terminations.values())


def test_raw_env_illegal_action_raises_and_changes_nothing():
    env = dabang_v0.raw_env()
    env.reset(seed=2)
    before = env.game_state.to_dict()
    with pytest.raises(IllegalActionError, match=r"illegal action 349 \(quad BJ\).*legal actions"):
        env.step(349)
    assert env.game_state.to_dict() == before


def test_wrapped_env_illegal_action_ends_game_with_penalty():
    env = dabang_v0.env()
    env.reset(seed=2)
    offender = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(349)
    assert all(env.terminations.values()) and env.rewards[offender] == -1


def test_reset_options_state_resumes():
    rng = np.random.default_rng(3)
    env = dabang_v0.raw_env()
    env.reset(seed=5)
    for _ in range(150):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    saved = json.loads(json.dumps(env.game_state.to_dict()))
    other = dabang_v0.raw_env()
    other.reset(options={"state": saved})
    assert other.agent_selection == env.agent_selection
    for agent in env.possible_agents:
        a, b = env.observe(agent), other.observe(agent)
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])


@pytest.mark.parametrize("options, message", [
    ({"episod": "hand"}, "unknown option 'episod' \\(did you mean 'episode'\\?\\)"),
    ({"episode": "game"}, "episode='game' is invalid"),
    ({"levels": (3, 11), "dealer": 0}, "levels"),
    ({"levels": (4, 3)}, "fresh match starts at levels \\(3, 3\\)"),
    ({"blood": 2}, "fresh match"),
    ({"blood": "random"}, "fresh match"),
    ({"blood": "some", "dealer": 0}, "an int in 0..800 or 'random'"),
    ({"dealer": 4}, "dealer=4 is invalid"),
    ({"max_hands": 3}, "episode='match' only"),
    ({"follow": "dead!"}, "follow"),
    ({"deal_value": -1}, "deal_value"),
])
def test_bad_options(options, message):
    with pytest.raises(ConfigError, match=message):
        dabang_v0.raw_env(**options)


def test_render_ansi_and_human(capsys):
    env = dabang_v0.raw_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Dabang hand 1" in text and re.search("[♠♥♣♦]", text) and text.count("player_") >= 4
    human = dabang_v0.raw_env(render_mode="human")
    human.reset(seed=0)
    human.step(int(np.flatnonzero(human.observe(human.agent_selection)["action_mask"])[0]))
    assert "Dabang hand 1" in capsys.readouterr().out


def test_observation_and_state_spaces_hold_every_value():
    env = dabang_v0.raw_env(episode="match", max_hands=2)
    rng = np.random.default_rng(0)
    env.reset(seed=4)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        assert env.observation_space(agent).contains(obs)
        assert env.state_space.contains(env.state())
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_docs_carry_the_layout_table():
    assert LAYOUT.markdown_table() in env_module.__doc__
    doc = (ROOT / "docs" / "rules" / "dabang.md").read_text(encoding="utf-8")
    assert LAYOUT.markdown_table() in doc
    assert f"({LAYOUT.observation_size},)" in env_module.__doc__
    assert f"({LAYOUT.size},)" in env_module.__doc__
    assert f"Discrete({cat.NUM_ACTIONS})" in env_module.__doc__


def test_action_texts():
    env = dabang_v0.raw_env()
    assert env.describe_action(cat.play(parse("♠9"), 2)) == "pair ♠9"
    assert env.describe_action(cat.declare_level(2, 2)) == "declare ♥ with 2 level cards"
    assert env.describe_action(cat.bury(53)) == "bury BJ"
    assert env.describe_action(cat.take(parse("♦4"))) == "take back ♦4"
    assert env.action_info(cat.play(0, 3)).count == 3


def parse(card):
    from cardenv.core.cards import parse_cards

    return parse_cards(card)[0]


# --- no hidden information in an observation ------------------------------------------------


def hide_and_reshuffle(state: DabangState, seat: int, rng) -> DabangState:
    """The same position with the cards ``seat`` cannot see dealt again among the places it
    cannot see (other hands, and the kitty unless it knows it), each keeping its size. (Made on
    a clone's buffer: a saved state with hands that disagree with its deck is refused.)"""
    other = state.clone()
    hands = other.v["hand"]
    kitty_known = other.v["kitty_known"][seat].sum() > 0 or other.kitty.public
    places = [s for s in range(4) if s != seat]
    pool = [k for s in places for k in range(54) for _ in range(int(hands[s, k]))]
    if not kitty_known:
        pool += list(other.kitty.cards)
    pool = [int(k) for k in rng.permutation(pool)]
    for s in places:
        n = int(hands[s].sum())
        hands[s] = np.bincount(pool[:n], minlength=54)
        pool = pool[n:]
    if not kitty_known:
        other.kitty.cards = pool
        other.v["kitty"][:] = np.bincount(pool, minlength=54)
    return other


def test_observation_does_not_leak_hidden_cards():
    game = DabangGame()
    rng = np.random.default_rng(7)
    checked = changed = 0
    for seed in range(30):
        state = game.new_state(seed)
        steps = int(rng.integers(20, 200))
        for _ in range(steps):
            if state.is_over:
                break
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
        if state.is_over or state.phase != "play":
            continue
        for seat in range(4):
            if state.trick.partial and seat == state.current:
                continue
            other = hide_and_reshuffle(state, seat, rng)
            assert np.array_equal(state.observation(seat), other.observation(seat))
            changed += not np.array_equal(state.global_state(), other.global_state())
            checked += 1
    assert checked >= 40 and changed >= checked * 0.8  # the hidden cards really moved
