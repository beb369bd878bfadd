"""Config ``init``: a new run's learner starts from a checkpoint's weights, and one that does
not fit the config's network is a one-line ConfigError."""

import pytest

torch = pytest.importorskip("torch")

import train  # noqa: E402
from agents.ppo import PPOAgent  # noqa: E402
from cardenv.core.errors import ConfigError  # noqa: E402

SHIPPED = "checkpoints/dabang_ppo.pt"


def _trainer(tmp_path, *extra):
    cfg = train.load_config(None, ["game=dabang", f"init={SHIPPED}", "imitation_samples=0",
                                   "eval_deals=0", "num_envs=2", "device=cpu",
                                   f"run_dir={tmp_path}", *extra])
    return train.Trainer(cfg)


def test_init_starts_from_the_checkpoint_weights(tmp_path):
    trainer = _trainer(tmp_path, "hidden=[512, 512]", "critic=global")
    want = PPOAgent.load(SHIPPED).net.state_dict()
    got = trainer.net.state_dict()
    assert set(got) == set(want)
    assert all(torch.equal(got[k].float(), want[k].float()) for k in want)


def test_init_of_another_shape_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match=r"^config: init checkpoints/dabang_ppo.pt: ") as err:
        _trainer(tmp_path, "hidden=[64]", "critic=global")
    assert "\n" not in str(err.value)
