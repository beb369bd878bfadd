"""Per-action features through the public API (cardenv.core.action_features): the env's and
``VectorGame``'s rows are the game's function of the observation, for both games; states the
seat cannot tell apart give the same features; bad input and a game without features are
refused with a message."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv import dabang_v0, dagong_v0
from cardenv.core.action_features import Feature, FeatureLayout
from cardenv.envs import dabang as dabang_env
from cardenv.envs import dagong as dagong_env
from cardenv.games import make_game
from cardenv.vector import VectorGame, legal_indices
from tests.toy_game import ToyGame

ENVS = {"dabang": (dabang_v0, dabang_env), "dagong": (dagong_v0, dagong_env)}


@pytest.mark.parametrize("name", ENVS)
def test_env_features_are_the_games_function_of_the_observation(name):
    """``env.action_features()`` == the game's function of ``observe()``, legal actions in
    mask order, for every agent at every step of seeded random games; a copy of the
    observation gives the same numbers."""
    module, _ = ENVS[name]
    env = module.raw_env()
    game = env.game
    width = sum(p.size for p in game.action_feature_pieces)
    steps = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=400):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            got = env.action_features()
            assert got.shape == (legal.size, width) and got.dtype == np.float32
            copy = obs["observation"].copy()
            want = game.action_features(copy[None], np.zeros(legal.size, np.int64), legal)
            assert np.array_equal(got, want)
            other = env.possible_agents[(env.possible_agents.index(agent) + 1) % 4]
            assert env.action_features(other).shape == (0, width)  # not to act: no actions
            steps += 1
            env.step(int(rng.choice(legal)))
    assert steps > 250


@pytest.mark.parametrize("name", ENVS)
def test_vector_batch_equals_each_slots_single_features(name):
    games = VectorGame(name, num_envs=6, seed=3, options={"dagong": {}, "dabang": {}}[name])
    game = games.game
    rng = np.random.default_rng(0)
    for step in range(120):
        index, features = games.action_features()
        masks = games.masks()
        assert np.array_equal(index, legal_indices(masks))
        rows, actions = np.divmod(index, game.num_actions)
        if step % 10 == 0:
            for i in range(len(games)):
                state = games.slots[i]
                seat = state.current_player
                legal = np.flatnonzero(state.legal_mask())
                single = game.action_features(state.observation(seat)[None],
                                              np.zeros(legal.size, np.int64), legal)
                assert np.array_equal(actions[rows == i], legal)
                assert np.array_equal(features[rows == i], single)
        games.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))


@pytest.mark.parametrize("name, moves", [("dabang", 160), ("dagong", 20), ("dabang", 40)])
def test_states_the_seat_cannot_tell_apart_give_the_same_features(name, moves):
    """Worlds sampled for the seat to act (other hands dealt again, same observation and mask)
    differ in the global state but not in the features."""
    game = make_game(name)
    rng = np.random.default_rng(moves)
    compared = 0
    for seed in range(3):
        state = game.new_state(seed)
        for _ in range(moves):
            if state.is_over:
                break
            state.apply(int(rng.choice(state.legal_actions())))
        if state.is_over:
            continue
        seat = state.current_player
        legal = np.flatnonzero(state.legal_mask())
        rows = np.zeros(legal.size, np.int64)
        mine = game.action_features(state.observation(seat)[None], rows, legal)
        for world in game.sample_worlds(state, seat, 3, rng):
            assert not np.array_equal(world.global_state(), state.global_state())
            assert np.array_equal(
                game.action_features(world.observation(seat)[None], rows, legal), mine)
            compared += 1
    assert compared >= 6


@pytest.mark.parametrize("name", ENVS)
def test_bad_input_is_refused_with_a_message(name):
    game = make_game(name)
    state = game.new_state(0)
    obs = state.observation(state.current_player)[None]
    legal = np.flatnonzero(state.legal_mask())
    rows = np.zeros(legal.size, np.int64)
    with pytest.raises(ValueError, match=r"observations must be \(B, \d+\)"):
        game.action_features(obs[:, :-1], rows, legal)
    with pytest.raises(ValueError, match=r"observations must be"):
        game.action_features(obs[0], rows, legal)
    with pytest.raises(ValueError, match=r"rows holds 1, outside 0..0"):
        game.action_features(obs, rows + 1, legal)
    with pytest.raises(ValueError, match=r"actions holds -1"):
        game.action_features(obs, rows, -np.ones_like(legal))
    with pytest.raises(ValueError, match=rf"actions holds {game.num_actions}"):
        game.action_features(obs, rows, legal * 0 + game.num_actions)
    with pytest.raises(ValueError, match="same length"):
        game.action_features(obs, rows[:-1], legal)
    with pytest.raises(ValueError, match="1-D int"):
        game.action_features(obs, rows.astype(float), legal)
    empty = game.action_features(obs, [], [])
    assert empty.shape == (0, len(game.action_features(obs, rows, legal)[0]))


def test_a_game_without_features_says_so():
    toy = ToyGame()
    assert toy.action_features is None
    games = VectorGame(toy, 2, seed=0)
    with pytest.raises(ValueError, match="'toy' declares no action features"):
        games.action_features()


@pytest.mark.parametrize("name", ENVS)
def test_docstring_tables_are_the_declarations(name):
    _, env_module = ENVS[name]
    game = make_game(name)
    layout = FeatureLayout(game.action_feature_pieces)
    assert layout.markdown_table() in env_module.__doc__
    assert f"(L, {layout.size})" in env_module.__doc__
    assert all(isinstance(p, Feature) for p in game.action_feature_pieces)


def test_feature_layout_refuses_repeated_names():
    with pytest.raises(ValueError, match="repeated name"):
        FeatureLayout([Feature("a", 1, ""), Feature("a", 2, "")])
