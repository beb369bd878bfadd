"""The conventions RL clients rely on (issue 44): an action may come as a numpy integer or as the
0-d integer array ``Discrete.contains`` accepts (what a trained SB3 model's ``predict()`` returns),
and a render mode the env cannot draw is warned about, as Gymnasium warns, not refused (SB3's
``make_vec_env`` passes ``render_mode="rgb_array"``)."""

import importlib
import warnings

import gymnasium
import numpy as np
import pytest

import cardenv  # noqa: F401  (registers the Gymnasium ids)
from cardenv.core.checks import action_id
from cardenv.player_specs import decide, load_player

GAMES = ["dagong", "dabang"]
IDS = {"dagong": "cardenv/Dagong-v0", "dabang": "cardenv/Dabang-v0"}


@pytest.mark.parametrize("value, expected", [
    (3, 3), (np.int64(3), 3), (np.uint8(3), 3), (np.array(3), 3), (np.array([3]), 3),
    (np.array(3, dtype=np.int16), 3),
])
def test_integer_kinds_are_action_ids(value, expected):
    assert action_id(value, 10) == expected and type(action_id(value, 10)) is int


@pytest.mark.parametrize("value, message", [
    (True, "an action is an int id"), (np.bool_(True), "an action is an int id"),
    (1.0, "an action is an int id"), (np.array(1.0), "an action is an int id"),
    (np.array(True), "an action is an int id"), (np.array([1, 2]), "an action is an int id"),
    (np.array([[1]]), "an action is an int id"), ("1", "an action is an int id"),
    (10, "out of range"), (np.array(-1), "out of range"),
])
def test_other_values_are_not_action_ids(value, message):
    with pytest.raises(ValueError, match=message):
        action_id(value, 10)


def play_aec(name: str, wrap, seed: int = 5) -> list:
    """Random legal play of one hand through ``env()``, each action given as ``wrap(id)``; the
    rewards seen along the way."""
    env = importlib.import_module(f"cardenv.{name}_v0").env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        seen.append((agent, reward))
        if term or trunc:
            env.step(None)
            continue
        env.step(wrap(int(rng.choice(np.flatnonzero(obs["action_mask"])))))
    return seen


@pytest.mark.parametrize("name", GAMES)
def test_aec_env_takes_numpy_integers_and_0d_arrays_as_the_int_would_play(name):
    plain = play_aec(name, int)
    assert play_aec(name, np.array) == plain
    assert play_aec(name, np.int64) == plain


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_env_takes_a_0d_array(name):
    env = gymnasium.make(IDS[name])
    obs, info = env.reset(seed=2)
    other = gymnasium.make(IDS[name])
    other.reset(seed=2)
    action = int(np.flatnonzero(info["action_mask"])[0])
    assert env.action_space.contains(np.array(action))
    a = env.step(np.array(action))
    b = other.step(action)
    assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]


@pytest.mark.parametrize("name", GAMES)
def test_an_undrawable_render_mode_is_warned_about_not_refused(name):
    module = importlib.import_module(f"cardenv.{name}_v0")
    with pytest.warns(UserWarning, match="render_mode 'rgb_array' is not one this env draws"):
        env = module.raw_env(render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="draws nothing"):
        assert env.render() is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        single = gymnasium.make(IDS[name], render_mode="rgb_array")
    single.reset(seed=0)
    with pytest.warns(UserWarning, match="draws nothing"):  # past Gymnasium's own checker,
        assert single.unwrapped.render() is None  # which asserts on such a mode


def shape_of(value):
    """A value's structure as a replay buffer stacks it: keys, lengths and element types."""
    if isinstance(value, dict):
        return {k: shape_of(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return ("list", len(value), tuple(sorted({type(v).__name__ for v in value})))
    return type(value).__name__


@pytest.mark.parametrize("name, options", [
    ("dagong", {"hands": 3}), ("dabang", {"episode": "match", "max_hands": 3})])
def test_hand_results_in_infos_have_one_shape(name, options):
    """Over random hands of every ending (Dagong: partners found or not, 硬牌 or not, 绑 with
    fewer places), each hand's info has the same keys, list lengths and value types, with no
    None: the buffers of Tianshou and RLlib stack them."""
    module = importlib.import_module(f"cardenv.{name}_v0")
    heuristic = load_player("heuristic", name)  # random players nearly always go 硬牌
    shapes, reasons = set(), set()
    for seed in range(12):
        env = module.env(**options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if info:
                shapes.add(repr(shape_of(info)))
                result = info["hand_result"]
                assert None not in result.values()
                reasons.add(result.get("reason", result.get("outcome")))
            if term or trunc:
                env.step(None)
                continue
            if seed % 2:
                env.step(decide(heuristic, env.unwrapped.game_state, obs))
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(shapes) == 1 and len(reasons) > 1


EXTREMES = {
    "dagong": [{}, {"hands": 1000, "solo_multiplier": 100}, {"hands": 2, "allow_solo": False,
                                                             "xiqian": False}],
    "dabang": [{}, {"dealer": 0, "blood": 800, "levels": (10, 10)},
               {"dealer": 3, "blood": 61, "levels": (3, 10), "tribute_return": "dealer_choice"},
               {"dealer": "random", "blood": "random", "levels": "random", "deal_value": 1e6},
               {"episode": "match", "max_hands": 1000, "bidding": "after_deal",
                "follow": "live"}],
}


@pytest.mark.parametrize("name, options", [
    (name, options) for name, sets in EXTREMES.items() for options in sets])
def test_observations_and_states_lie_in_their_spaces_at_the_options_extremes(name, options):
    """What Gymnasium's checker and TorchRL's check_env_specs check: every observation, mask
    and global state the AEC env gives lies in its declared space, with the options at their
    largest (blood owed up to 800 in Dabang, 1,000 hands ...), over random play of a few hands
    (issue 44)."""
    module = importlib.import_module(f"cardenv.{name}_v0")
    for seed in range(3):
        env = module.env(**options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        state_space = env.unwrapped.state_space
        for step, agent in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            assert env.observation_space(agent).contains(obs), (agent, step)
            if step % 7 == 0:
                assert state_space.contains(env.state()), step
            if term or trunc or len(env.unwrapped.game_state.results) >= 2:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_an_unknown_option_is_a_config_error_and_the_type_error_of_an_unexpected_keyword():
    """Python raises a TypeError for an unexpected keyword; code that tries one and drops it on
    that error (TorchRL's GymEnv tries Atari's frameskip) must see one from the Gymnasium envs."""
    from cardenv.core.errors import ConfigError

    for make in (lambda: gymnasium.make(IDS["dagong"], frameskip=4),
                 lambda: importlib.import_module("cardenv.dabang_v0").env(frameskip=4)):
        with pytest.raises(ConfigError) as error:
            make()
        assert isinstance(error.value, TypeError)
        assert "unexpected keyword argument 'frameskip'" in str(error.value)


def test_torchrls_gymenv_builds_the_single_seat_env():
    pytest.importorskip("torchrl", reason='the [clients] extra: pip install -e ".[clients]"')
    from torchrl.envs import GymEnv

    env = GymEnv(IDS["dagong"])
    assert env.reset()["observation"].shape == (588,)
