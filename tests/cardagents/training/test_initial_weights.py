"""Config ``init``: a new run's learner starts from a checkpoint's weights, and one that does
not fit the config's network is a one-line ConfigError."""

import pytest

torch = pytest.importorskip("torch")

from cardagents.ppo.agent import PPOAgent  # noqa: E402
from cardagents.training.config import load_config  # noqa: E402
from cardagents.training.trainer import Trainer  # noqa: E402
from cardenv.core.errors import ConfigError  # noqa: E402

# the agent shipped before issue 35: a fixed head over the 1,073 entries of its day
SHIPPED = "checkpoints/previous/dabang_ppo_issue24.pt"


def _trainer(tmp_path, *extra):
    cfg = load_config(None, ["game=dabang", f"init={SHIPPED}", "imitation_samples=0",
                                   "eval_deals=0", "num_envs=2", "device=cpu",
                                   f"run_dir={tmp_path}", *extra])
    return Trainer(cfg)


def test_init_starts_from_the_checkpoint_weights(tmp_path):
    trainer = _trainer(tmp_path, "hidden=[512, 512]", "critic=global")
    want = PPOAgent.load(SHIPPED).net.state_dict()
    got = trainer.learner.net.state_dict()
    assert set(got) == set(want)
    assert all(torch.equal(got[k].float(), want[k].float()) for k in want)


def test_init_of_another_shape_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match=rf"^config: init {SHIPPED}: ") as err:
        _trainer(tmp_path, "hidden=[64]", "critic=global")
    assert "\n" not in str(err.value)


def test_a_fixed_head_checkpoint_starts_a_features_head_that_plays_the_same(tmp_path):
    import numpy as np

    from cardenv.vector import VectorGame
    trainer = _trainer(tmp_path, "hidden=[512, 512]", "critic=global", "head=features")
    old = PPOAgent.load(SHIPPED).net
    assert old.head == "fixed" and trainer.learner.net.head == "features"
    want, got = old.state_dict(), trainer.learner.net.state_dict()
    assert all(torch.equal(got[k].float(), want[k].float()) for k in want)
    assert not got["action_score.2.weight"].any() and not got["action_score.2.bias"].any()
    # same logits on positions of a game in progress: the scorer adds zero to every legal action
    game = VectorGame("dabang", 8, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        legal = game.masks()
        game.step(np.array([rng.choice(np.flatnonzero(row)) for row in legal]))
    obs, mask = torch.as_tensor(game.observations()), torch.as_tensor(game.masks())
    with torch.no_grad():
        assert torch.equal(trainer.learner.net(obs, mask)[0], old(obs, mask)[0])


def test_a_network_of_an_earlier_layout_reads_the_state_prefix_everywhere():
    # an init checkpoint's critic was made for the global state of its day: values, forward and
    # the update's log-probabilities give it that prefix of today's longer state
    from cardagents.ppo.net import make_net
    from cardenv.vector import VectorGame
    game = VectorGame("dagong", 4, seed=1)
    obs, mask = torch.as_tensor(game.observations()), torch.as_tensor(game.masks())
    state = torch.as_tensor(game.states())
    net = make_net("dagong", (32,), "global", obs_size=514, state_size=688)
    with torch.no_grad():
        want = net.value(net.critic_trunk(state[:, :688] * net.state_scale)).squeeze(-1)
        assert torch.allclose(net.values(state), want)
        assert torch.allclose(net(obs, mask, state)[1], want)
        assert torch.allclose(net.legal_log_probs(obs, mask, state)[3], want)


def test_init_widen_reads_the_whole_observation_and_plays_as_the_checkpoint(tmp_path):
    # issue 35's Dagong agent reads the 514 observation entries before the counting pieces and
    # an earlier, shorter global state: widened, the run reads today's whole observation and
    # state, and gives the same logits and values while the new columns are zero
    import numpy as np

    from cardenv.vector import VectorGame
    shipped = "checkpoints/previous/dagong_ppo_issue35.pt"
    cfg = load_config(None, ["game=dagong", f"init={shipped}", "init_widen=true",
                             "imitation_samples=0", "eval_deals=0", "num_envs=2", "device=cpu",
                             "hidden=[512, 512]", "critic=global", "head=features",
                             f"run_dir={tmp_path}"])
    net, old = Trainer(cfg).learner.net, PPOAgent.load(shipped).net
    game = VectorGame("dagong", 8, seed=5)
    assert old.obs_size < game.observations().shape[1] == net.obs_size
    assert old.state_scale.numel() < game.states().shape[1] == net.state_scale.numel()
    rng = np.random.default_rng(0)
    for _ in range(60):
        legal = game.masks()
        game.step(np.array([rng.choice(np.flatnonzero(row)) for row in legal]))
    obs, mask = torch.as_tensor(game.observations()), torch.as_tensor(game.masks())
    state = torch.as_tensor(game.states())
    with torch.no_grad():
        got, want = net(obs, mask, state), old(obs, mask, state)
    assert torch.allclose(got[0], want[0], atol=1e-5)
    assert torch.allclose(got[1], want[1], atol=1e-5)
    first = net.trunk[0].weight
    assert not first[:, old.obs_size:].any() and first[:, :old.obs_size].abs().sum() > 0


def test_init_widen_needs_init_and_the_whole_observation():
    with pytest.raises(ConfigError, match="init_widen needs init"):
        load_config(None, ["game=dagong", "init_widen=true"])
    with pytest.raises(ConfigError, match="leave observation_size null"):
        load_config(None, ["game=dagong", f"init={SHIPPED}", "init_widen=true",
                           "observation_size=514"])


def test_a_global_critics_checkpoint_starts_a_relative_critic_fresh(tmp_path):
    # the policy comes from the file; the critic, which read the seats as numbered, does not
    shipped = "checkpoints/previous/dagong_ppo_issue35.pt"
    cfg = load_config(None, ["game=dagong", f"init={shipped}", "init_widen=true",
                             "imitation_samples=0", "eval_deals=0", "num_envs=2", "device=cpu",
                             "hidden=[512, 512]", "critic=relative", "head=features",
                             f"run_dir={tmp_path}", "seed=3"])
    net, old = Trainer(cfg).learner.net, PPOAgent.load(shipped).net
    assert net.critic == "relative"
    got, want = net.state_dict(), old.state_dict()
    assert torch.equal(got["policy.weight"], want["policy.weight"])
    assert torch.equal(got["trunk.2.weight"], want["trunk.2.weight"])
    assert not torch.equal(got["critic_trunk.2.weight"], want["critic_trunk.2.weight"])
