"""sb3-contrib's MaskablePPO trains on the single-agent envs (``gymnasium.make``, the ``[sb3]``
extra, installed by CI) and predicts legal actions through ``action_masks()``."""

import gymnasium
import numpy as np
import pytest

import cardenv
from tests.sizes import sizes

sb3_contrib = pytest.importorskip(
    "sb3_contrib", reason='MaskablePPO comes with the [sb3] extra: pip install -e ".[sb3]"')


@pytest.fixture
def one_torch_thread():
    """A small MLP trains fastest on one thread, and leaves the other cores alone."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("env_id", sorted(cardenv.GYMNASIUM_ENVIRONMENTS))
@sizes("timesteps", 512, 2048)  # two rollouts and updates by default, eight under -m slow
def test_maskable_ppo_learns_and_predicts_legal_actions(env_id, timesteps, one_torch_thread):
    env = gymnasium.make(env_id, seat="random", opponents="random")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2,
        policy_kwargs={"net_arch": [32]}, seed=0, device="cpu", verbose=0)
    model.learn(total_timesteps=timesteps)
    assert model.num_timesteps >= timesteps
    obs, info = env.reset(seed=1)
    episodes = 0
    for _ in range(100):
        mask = env.unwrapped.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)] and np.array_equal(mask, info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            episodes += 1
            obs, info = env.reset()
    assert episodes >= 1


@pytest.mark.parametrize("env_id", sorted(cardenv.GYMNASIUM_ENVIRONMENTS))
def test_make_vec_env_builds_the_envs_and_predict_gives_legal_actions(env_id):
    """SB3's ``make_vec_env`` passes ``render_mode="rgb_array"``, which the envs warn about and
    keep (issue 44); a model's ``predict()`` returns actions as numpy arrays, which ``step``
    takes."""
    from stable_baselines3.common.env_util import make_vec_env

    with pytest.warns(UserWarning, match="render_mode 'rgb_array'"):
        vec = make_vec_env(env_id, n_envs=2, seed=3)
    obs = vec.reset()
    assert obs.shape[0] == 2
    for _ in range(20):
        masks = np.stack(vec.env_method("action_masks"))
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        obs, rewards, dones, infos = vec.step(actions)
        assert len(infos) == 2
    env = gymnasium.make(env_id)
    obs, info = env.reset(seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8]}, seed=0,
                                    device="cpu", n_steps=64, batch_size=32)
    action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
    assert isinstance(action, np.ndarray) and action.shape == ()
    env.step(action)
