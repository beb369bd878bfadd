"""The single-agent Gymnasium env (``cardenv.single_agent``): registration, Gymnasium's env
checker, seeding, rewards against the state's returns, masks, opponents, errors and rendering."""

import re
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cardenv  # noqa: F401  (registers the Gymnasium ids)
from cardenv import games, text
from cardenv.core.errors import ConfigError, IllegalActionError
from cardenv.envs.aec import result_info
from cardenv.single_agent import MAX_REDEALS, SingleAgentEnv
from tests.toy_game import ToyGame, ToyState
from tests import ROOT

IDS = {"dagong": "cardenv/Dagong-v0", "dabang": "cardenv/Dabang-v0"}
GAMES = list(IDS)


def play(env, seed, choose_seed=0, check=None):
    """One episode from ``reset(seed=seed)`` with uniformly random legal learner actions:
    the list of (observation, reward, terminated, truncated, info) of every step, reset first."""
    rng = np.random.default_rng(choose_seed)
    obs, info = env.reset(seed=seed)
    trajectory = [(obs, 0.0, False, False, info)]
    while True:
        if check:
            check(env, info)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        trajectory.append((obs, reward, terminated, truncated, info))
        if terminated or truncated:
            return trajectory


def same(a, b):
    """Trajectories (or any nests of arrays, dicts, lists) equal, arrays exactly."""
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def test_gymnasium_ids_exist_after_import_and_make_works_in_a_fresh_process():
    """In either import order (and with Gymnasium imported by PettingZoo), ``import cardenv``
    alone leaves Gymnasium unloaded, and both registries hold cardenv's ids."""
    assert set(cardenv.GYMNASIUM_ENVIRONMENTS) == set(IDS.values()) <= set(gymnasium.registry)
    make = ("env = gymnasium.make('cardenv/{}-v0', seat=1, opponents=['random', 'heuristic', "
            "'random']); obs, info = env.reset(seed=1); "
            "env.step(int(np.flatnonzero(info['action_mask'])[0])); ")
    pz = "e = pettingzoo.make('aec', 'cardenv/dagong_v0'); e.reset(seed=1); "
    ids = "assert {'cardenv/Dagong-v0', 'cardenv/Dabang-v0'} <= set(gymnasium.registry); "
    for order in ("import sys, cardenv; assert 'gymnasium' not in sys.modules; "
                  "import gymnasium, pettingzoo",
                  "import gymnasium, cardenv, pettingzoo",
                  "import cardenv, pettingzoo, gymnasium",
                  "import pettingzoo, cardenv, gymnasium"):
        code = (f"import numpy as np; {order}; {ids}{make.format('Dagong')}"
                f"{make.format('Dabang')}{pz}")
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, f"{order}:\n{done.stderr}"


def test_the_module_prefix_form_imports_cardenv_itself():
    code = ("import gymnasium; env = gymnasium.make('cardenv:cardenv/Dagong-v0'); "
            "env.reset(seed=0)")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_env_checker_passes(name, capsys):
    """``check_env`` steps with ``action_space.sample()``, almost never a legal card play
    (and its determinism check samples before resetting), so it runs with
    ``illegal_action="lose"``; the default raises instead (tested below)."""
    env = gymnasium.make(IDS[name], seat=2, opponents="random", illegal_action="lose")
    check_env(env.unwrapped)  # through make, so that the render modes are checked too
    raising = gymnasium.make(IDS[name], seat=2).unwrapped
    raising.action_space.seed(0)  # the sampled actions, and so this test, are then fixed
    with pytest.raises(IllegalActionError):
        check_env(raising)


@pytest.mark.parametrize("name", GAMES)
def test_a_seed_gives_the_same_trajectory(name):
    """Random opponents, the same seed and learner actions: the same observations, rewards
    and infos, from a fresh env and after another episode in the same env (the opponents are
    reseeded); a seeded reset then an unseeded one repeat too."""
    first = SingleAgentEnv(name, seat=1)
    a = play(first, seed=5)
    play(first, seed=6)
    again = play(first, seed=5)
    b = play(SingleAgentEnv(name, seat=1), seed=5)
    assert same(a, again) and same(a, b)
    assert not same(a, play(SingleAgentEnv(name, seat=1), seed=7))
    runs = []
    for _ in range(2):
        env = SingleAgentEnv(name, seat="random")
        runs.append([play(env, seed=9), play(env, seed=None, choose_seed=1)])
    assert same(runs[0], runs[1])
    assert a[0][4]["deal_seed"] == 5  # a seeded reset deals game.new_state(seed)
    assert first.game_state.seed == 5


@pytest.mark.parametrize("name, options", [
    ("dagong", {}), ("dagong", {"hands": 2}), ("dabang", {}),
    ("dabang", {"episode": "match", "max_hands": 2})])
def test_rewards_sum_to_the_returns_and_masks_are_the_states(name, options):
    """Every decision is the learner's with ``action_masks()`` and ``info["action_mask"]``
    equal to ``state.legal_mask()``; an episode's rewards sum to ``state.returns[seat]``; the
    flags follow ``is_over`` / ``truncated``; ``hand_results`` are the hands ended."""
    env = SingleAgentEnv(name, seat=3, opponents="random", **options)

    def check(env, info):
        state = env.game_state
        assert state.current_player == env.seat == info["seat"] == 3
        mask = env.action_masks()
        assert mask.dtype == bool and np.array_equal(mask, state.legal_mask())
        assert np.array_equal(info["action_mask"], mask) and mask.any()

    for seed in (0, 1):
        trajectory = play(env, seed, check=check)
        state = env.game_state
        rewards = [step[1] for step in trajectory[1:]]
        assert all(isinstance(r, float) for r in rewards)
        assert np.isclose(sum(rewards), state.returns[3]) and state.is_over
        *_, terminated, truncated, info = trajectory[-1]
        assert truncated == state.truncated and terminated == (not state.truncated)
        assert not any(t or u for _, _, t, u, _ in trajectory[:-1])
        reported = [r for step in trajectory for r in step[4].get("hand_results", [])]
        assert reported == [result_info(r, 4) for r in state.results]
        assert not env.action_masks().any() and not info["action_mask"].any()
    if options.get("max_hands") == 2:
        assert truncated and len(state.results) == 2


@pytest.mark.parametrize("name", GAMES)
def test_illegal_actions_and_steps_outside_an_episode_are_clear_errors(name):
    env = gymnasium.make(IDS[name])
    raw = env.unwrapped
    with pytest.raises(RuntimeError, match=re.escape("step() before reset()")):
        raw.step(0)
    obs, info = env.reset(seed=2)
    before = raw.game_state.to_dict()
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    legal = int(info["action_mask"].sum())
    message = (f"action {illegal} ({raw.game.action_info(illegal).text}) is not legal for seat 0, "
               f"which has {legal} legal action")
    with pytest.raises(ValueError, match=re.escape(message)):
        env.step(illegal)
    n = raw.action_space.n
    for action, expected in [(n, f"action {n} is out of range: ids run 0..{n - 1}"),
                             (-1, "out of range"), (1.5, "an action is an int id"),
                             (True, "an action is an int id"), (None, "an action is an int id")]:
        with pytest.raises(ValueError, match=re.escape(expected)):
            raw.step(action)
    assert raw.game_state.to_dict() == before  # nothing changed
    legal_action = np.flatnonzero(info["action_mask"])[0]
    env.step(np.array(legal_action))  # a numpy scalar or 0-d array is an action id too
    play(raw, seed=2)
    with pytest.raises(RuntimeError, match=re.escape("step() after the episode ended")):
        raw.step(0)

    lose = SingleAgentEnv(name, illegal_action="lose")
    obs, info = lose.reset(seed=2)
    obs, reward, terminated, truncated, info = lose.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not lose.action_masks().any()
    with pytest.raises(RuntimeError, match="after the episode ended"):
        lose.step(int(np.flatnonzero(lose.game_state.legal_mask())[0]))


def test_a_random_seat_is_drawn_at_each_reset():
    env = SingleAgentEnv("dagong", seat="random", opponents=["random", "heuristic", "random"])
    seats = set()
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        seats.add(env.seat)
        assert info["seat"] == env.seat == env.game_state.current_player
        others = [s for s in range(4) if s != env.seat]
        assert list(env.players) == others  # the opponents in seat order, skipping the learner
        assert [p for p in env.players.values()] == env.opponents
        assert np.array_equal(obs, env.game_state.observation(env.seat))
    assert seats == {0, 1, 2, 3}


class FirstLegal:
    """A player object: the first legal action; counts its calls and records its seeds."""

    def __init__(self):
        self.calls, self.seeds = 0, []

    def act(self, observation):
        self.calls += 1
        assert observation["action_mask"].dtype == np.int8
        return int(np.flatnonzero(observation["action_mask"])[0])

    def reseed(self, seed):
        self.seeds.append(seed)


def test_opponents_given_as_objects_sit_in_seat_order_and_are_reseeded():
    a, b, c = FirstLegal(), FirstLegal(), FirstLegal()
    env = SingleAgentEnv("dagong", seat=1, opponents=[a, b, c])
    assert env.opponents == [a, b, c]
    play(env, seed=4)
    assert env.players == {0: a, 2: b, 3: c} and a.calls and b.calls and c.calls
    seeds = (a.seeds + b.seeds + c.seeds)
    assert len(seeds) == 3 and len(set(seeds)) == 3
    env.reset()  # unseeded: the players keep their random streams
    assert len(a.seeds) == 1
    shared = FirstLegal()
    env = gymnasium.make("cardenv/Dabang-v0", seat=0, opponents=shared)
    env.reset(seed=0)
    assert env.unwrapped.players == {1: shared, 2: shared, 3: shared}
    assert shared.calls and shared.seeds == [shared.seeds[0]]  # reseeded once


def test_an_opponent_that_plays_an_illegal_action_is_named():
    class Bad:
        name = "bad"

        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    env = SingleAgentEnv("dagong", seat=0, opponents=["random", Bad(), "random"])
    obs, info = env.reset(seed=0)
    with pytest.raises(ValueError, match="opponent bad at seat 2 chose .*, not a legal action"):
        for _ in range(10):
            obs, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_a_checkpoint_plays_as_an_opponent():
    pytest.importorskip("torch", reason="reading a PPO checkpoint needs torch ([train])")
    path = ROOT / "checkpoints" / "dagong_ppo.pt"
    if not path.exists():
        pytest.skip(f"no shipped checkpoint at {path}")
    env = SingleAgentEnv("dagong", seat=0, opponents=[str(path), "heuristic", str(path)])
    assert env.opponents[0] is env.opponents[2]  # a spec is loaded once
    assert play(env, seed=1)[-1][2]
    with pytest.raises(ValueError, match=r"opponents\[0\] .*plays dagong, not dabang"):
        SingleAgentEnv("dabang", opponents=str(path))


@pytest.mark.parametrize("kwargs, error, message", [
    ({"seat": 4}, ValueError, "seat must be a seat 0..3 or 'random', got 4"),
    ({"seat": -1}, ValueError, "seat must be a seat 0..3 or 'random', got -1"),
    ({"seat": True}, ValueError, "seat must be a seat 0..3 or 'random', got True"),
    ({"seat": "north"}, ValueError, "seat must be a seat 0..3 or 'random', got 'north'"),
    ({"opponents": ["random", "random"]}, ValueError,
     "opponents: give one player for all 3 other seats, or a sequence of 3 in seat order "
     "skipping the learner's seat"),
    ({"opponents": ["random"] * 4}, ValueError, "got 4 of them"),
    ({"opponents": 42}, ValueError, "got 42"),
    ({"opponents": ["random", "nobody", "random"]}, ValueError,
     "opponents[1] ('nobody'): unknown agent 'nobody'"),
    ({"opponents": ["random", 7, "random"]}, ValueError, "opponents[1] (7): a player is a name"),
    ({"handz": 2}, ConfigError, "handz"),
    ({"illegal_action": "ignore"}, ConfigError, "illegal_action must be one of"),
    ({"render_mode": 3}, ConfigError, "render_mode must be one of"),
    ({"lang": "fr"}, ConfigError, "fr"),
])
def test_bad_arguments_are_clear_value_errors(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        SingleAgentEnv("dagong", **kwargs)


def test_an_unknown_game_is_a_value_error():
    with pytest.raises(ValueError, match="unknown game 'dagongg'"):
        SingleAgentEnv("dagongg")


@pytest.mark.parametrize("name", GAMES)
def test_render_shows_the_learner_seats_view(name, capsys):
    env = gymnasium.make(IDS[name], seat=2, render_mode="ansi", lang="en")
    env.reset(seed=3)
    assert env.render() == text.render(env.unwrapped.game_state, seat=2, lang="en")
    human = SingleAgentEnv(name, seat=2, render_mode="human")
    obs, info = human.reset(seed=3)
    assert human.render() is None
    shown = capsys.readouterr().out
    assert shown.count(text.render(human.game_state, seat=2)) == 2  # at reset, then asked
    human.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert text.render(human.game_state, seat=2) in capsys.readouterr().out
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert SingleAgentEnv(name).render() is None


class VoidState(ToyState):
    """A toy deal whose seed is even is over before anyone acts (or every deal, ``always``)."""

    always = False

    @property
    def is_over(self):
        return self.always or self.seed % 2 == 0 or len(self.played) == 4


class VoidGame(ToyGame):
    name = "void"

    def new_state(self, seed=None):
        return VoidState(self, 0 if seed is None else seed)


@pytest.fixture
def void_game():
    games.register("void", VoidGame)
    yield "void"
    games.unregister("void")
    VoidState.always = False


def test_a_deal_over_before_the_learner_acts_is_dealt_again(void_game):
    """Also: the env runs any registered game (the toy one of the engine-contract tests)."""
    env = SingleAgentEnv(void_game, seat=3)
    obs, info = env.reset(seed=2)
    assert info["redeals"] >= 1 and info["deal_seed"] % 2 == 1
    assert env.game_state.current_player == 3 and not env.game_state.is_over
    assert same(env.reset(seed=2), (obs, info))
    assert "redeals" not in env.reset(seed=3)[1]
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert terminated and reward == env.game_state.returns[3]
    VoidState.always = True
    with pytest.raises(RuntimeError, match=f"{MAX_REDEALS + 1} deals in a row ended before "
                                           f"seat 3 could act"):
        env.reset(seed=1)
