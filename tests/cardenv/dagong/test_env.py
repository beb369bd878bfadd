"""The PettingZoo environment cardenv.dagong_v0: API, seeding, masks, rewards, leaks, errors."""

import json
import re
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import cardenv
from cardenv import dagong_v0
from cardenv.core.errors import ConfigError, IllegalActionError
from cardenv.envs.aec import result_info
from cardenv.dagong import DagongGame
from cardenv.dagong import catalogue as cat
from cardenv.dagong.observation import LAYOUT
from cardenv.envs import dagong as env_module
from tests import ROOT


@pytest.mark.parametrize("ctor", [dagong_v0.env, dagong_v0.raw_env])
def test_pettingzoo_api(ctor):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test passes reset() an unknown option on purpose
        api_test(ctor(), num_cycles=500)


def test_pettingzoo_seed():
    seed_test(dagong_v0.env, num_cycles=500)
    seed_test(lambda: dagong_v0.env(hands=2), num_cycles=500)


def test_registry():
    env = pettingzoo.make("aec", "cardenv/dagong_v0", hands=2)
    env.reset(seed=0)
    assert env.unwrapped.game.options["hands"] == 2
    assert cardenv.__version__


def play_random(env, seed, rng):
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    hand_ends = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        env.step(int(rng.choice(np.flatnonzero(mask))))
        if any(env.rewards.values()):
            hand_ends += 1
            assert sum(env.rewards.values()) == 0
    return totals, hand_ends


@pytest.mark.parametrize("hands", [1, 3])
def test_rewards_zero_sum_and_one_per_hand(hands):
    rng = np.random.default_rng(0)
    env = dagong_v0.env(hands=hands)
    for seed in range(10):
        totals, hand_ends = play_random(env, seed, rng)
        assert hand_ends == hands
        assert sum(totals.values()) == 0
        assert [totals[a] for a in env.possible_agents] == env.unwrapped.game_state.returns


def test_raw_env_illegal_action_raises_and_changes_nothing():
    env = dagong_v0.raw_env()
    env.reset(seed=1)
    before = env.game_state.to_dict()
    with pytest.raises(IllegalActionError, match=r"illegal action 3 \(single 3\).*legal actions: "
                                                 r"1 \(decline 硬牌\), 2 \(declare"):
        env.step(3)
    assert isinstance(IllegalActionError("x"), ValueError)
    assert env.game_state.to_dict() == before


def test_wrapped_env_illegal_action_ends_game_with_penalty():
    env = dagong_v0.env()
    env.reset(seed=1)
    offender = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(3)
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != offender)


def test_reset_options_state_resumes():
    rng = np.random.default_rng(3)
    env = dagong_v0.raw_env()
    env.reset(seed=5)
    for _ in range(40):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    saved = json.loads(json.dumps(env.game_state.to_dict()))
    other = dagong_v0.raw_env()
    other.reset(options={"state": saved})
    assert other.agent_selection == env.agent_selection
    for agent in env.possible_agents:
        a, b = env.observe(agent), other.observe(agent)
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])
    with pytest.raises(ConfigError, match="options"):
        dagong_v0.raw_env(hands=2).reset(options={"state": saved})


def test_bad_options():
    with pytest.raises(ConfigError, match="unknown option 'hand' \\(did you mean 'hands'\\?\\)"):
        dagong_v0.env(hand=2)
    with pytest.raises(ConfigError, match="render_mode"):
        dagong_v0.raw_env(render_mode=["ansi"])


def test_render_ansi_and_human(capsys):
    env = dagong_v0.raw_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Dagong hand 1/1" in text and "called" in text and re.search("[♠♥♣♦]", text)
    assert text.count("player_") >= 4
    env.step(cat.SOLO_DECLINE)
    human = dagong_v0.raw_env(render_mode="human")
    human.reset(seed=0)
    human.step(cat.SOLO_DECLINE)  # human mode prints after every step
    assert "Dagong hand 1/1" in capsys.readouterr().out


def test_observation_and_state_spaces_hold_every_value():
    env = dagong_v0.raw_env(hands=2)
    rng = np.random.default_rng(0)
    env.reset(seed=4)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        assert env.observation_space(agent).contains(obs)
        assert env.state_space.contains(env.state())
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_docstring_table_matches_layout():
    """The documented index table is the layout's own (no drift)."""
    assert LAYOUT.markdown_table() in env_module.__doc__
    assert f"({LAYOUT.observation_size},)" in env_module.__doc__
    assert f"Discrete({cat.NUM_ACTIONS})" in env_module.__doc__


# --- no hidden information in an observation ------------------------------------------------


def reshuffle_hidden(hands, seat, dealer, called, rng):
    """Deal the cards ``seat`` cannot see again among the other seats, sizes kept; the dealer
    keeps its copy of the called card (it is shown to everyone)."""
    pool = [k for s in range(4) if s != seat for k in hands[s]]
    if seat != dealer:
        pool.remove(called)
    pool = list(rng.permutation(pool))
    new = [list(h) for h in hands]
    for s in range(4):
        if s == seat:
            continue
        size = len(hands[s]) - (1 if s == dealer and seat != dealer else 0)
        new[s] = [int(k) for k in pool[:size]]
        new[s] += [called] if s == dealer and seat != dealer else []
        pool = pool[size:]
    return new


def test_observation_does_not_leak_hidden_cards():
    game = DagongGame()
    rng = np.random.default_rng(11)
    checked = 0
    for trial in range(60):
        dealt = game.new_state(trial)
        hands = [[k for k in range(54) for _ in range(int(dealt.hands[s, k]))] for s in range(4)]
        seat, dealer, called = trial % 4, dealt.dealer, dealt.called
        other = reshuffle_hidden(hands, seat, dealer, called, rng)
        try:
            a = game.state_from_hands(hands, dealer, called)
            b = game.state_from_hands(other, dealer, called)
        except ValueError:
            continue
        if a.forced_solo != b.forced_solo:
            continue  # the reshuffle gave the dealer the twin: that is announced, not hidden
        assert not np.array_equal(a.global_state(), b.global_state())
        # public moves: everyone declines 硬牌, the dealer leads its called card, others pass
        lead = cat.action_id("single", 1, called // 4 if called < 52 else 0,
                             0 if called < 52 else 1, called=True)
        moves = [cat.SOLO_DECLINE] * 4 + [lead] + [cat.PASS] * 3
        for move in moves:
            assert np.array_equal(a.observation(seat), b.observation(seat)), (trial, move)
            if a.is_over:
                break
            a.apply(move)
            b.apply(move)
            checked += 1
        assert np.array_equal(a.observation(seat), b.observation(seat))
    assert checked > 300


def test_rules_doc_has_the_observation_table():

    doc = ROOT / "docs" / "rules" / "dagong.md"
    assert LAYOUT.markdown_table() in doc.read_text(encoding="utf-8")


def test_action_descriptions_from_the_env():
    env = dagong_v0.env()
    info = env.unwrapped.action_info(cat.action_id("bomb", 6, 6, 2))
    assert (info.type, info.length, info.key_rank, info.jokers) == ("bomb", 6, 6, 2)
    assert env.unwrapped.describe_action(info.id) == "bomb 6x9 with 2 jokers"
    assert env.unwrapped.describe_action(0) == "pass"
    assert env.unwrapped.describe_action(cat.action_id("510k", 3, None, 0, suit=3)) == "正510K ♠"
    assert env.unwrapped.describe_action(cat.action_id("pair", 2, 4)) == "pair 7"
    with pytest.raises(ValueError, match="0..2418"):
        env.unwrapped.describe_action(2419)


def test_hand_end_is_reported_in_infos():
    env = dagong_v0.env(hands=2)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    reported = []
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        infos = env.unwrapped.infos
        if any(infos.values()):
            assert all(i["hand_over"] for i in infos.values())
            result = infos["player_0"]["hand_result"]
            assert [env.unwrapped.rewards[a] for a in env.possible_agents] == result["rewards"]
            reported.append(result)
        else:
            assert not any(env.unwrapped.rewards.values())
    assert reported == [result_info(r, 4) for r in env.unwrapped.game_state.results]
