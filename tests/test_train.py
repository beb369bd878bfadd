"""``train.py``, the command line: a run end to end through it (the config file, overrides,
the run folder's files, ``result.json``, ``--resume`` with ``--config`` over the saved config),
a bad config or checkpoint as one line on standard error (exit status 2), and ``python train.py``
without ``--config`` as configs/quick.yaml's run. What a run does is
``tests/cardagents/training/``'s (``test_trainer.py`` and the parts' tests)."""

import json
import os

import pytest
import torch

import train
from tests import ROOT


def run(tmp_path, name, *overrides, config="configs/smoke.yaml"):
    return train.main(["--config", str(ROOT / config), f"run_dir={tmp_path}",
                       f"run_name={name}", *overrides])


@pytest.mark.parametrize("game, critic", [("dagong", "local"), ("dabang", "global"),
                                          ("dagong", "relative")])
def test_smoke_run_trains_evaluates_and_resumes(tmp_path, capsys, game, critic):
    """Each game once, Dabang's with a global critic: collection keeps the global states, the
    update and the imitation feed them to the critic, the checkpoint says so and the shipped
    agent plays without them."""
    result = run(tmp_path, game, f"game={game}", f"critic={critic}")
    captured = capsys.readouterr()
    out = captured.out
    assert "imitation" in out and "samples/s" in out and "evaluation: PPO vs heuristic" in out
    assert "evaluation: PPO vs random" in out
    assert "evaluation: PPO vs heuristic: 20/20 games" in captured.err  # its progress line
    folder = tmp_path / game
    assert (folder / "final.pt").exists() and (folder / "checkpoint.pt").exists()
    from cardagents.ppo.agent import PPOAgent
    agent = PPOAgent.load(str(folder / "agent.pt"))
    assert agent.game == game and agent.net.critic == critic
    assert (folder / "agent.pt").stat().st_size < (folder / "final.pt").stat().st_size
    assert json.loads((folder / "result.json").read_text())["samples"] == result["samples"]
    assert 0 <= result["evaluation"]["win_rate"] <= 1 and result["evaluation"]["pairs"] == 10
    assert result["evaluation_vs_random"]["pairs"] == 10
    assert any(name.startswith("events") for name in os.listdir(folder / "tb"))
    before = torch.load(folder / "checkpoint.pt", weights_only=False)
    more = tmp_path / "more.yaml"  # a resumed run takes --config over its saved config
    more.write_text(f"total_samples: {before['samples'] + 1000}\nent_coef: 0.02\n"
                    "lr: 0.0005\nanneal_lr: false\n")
    resumed = train.main(["--resume", str(folder / "checkpoint.pt"), "--config", str(more),
                          "eval_deals=0"])
    assert resumed["samples"] > before["samples"] and resumed["iterations"] > before["iteration"]
    saved = torch.load(folder / "checkpoint.pt", weights_only=False)
    after = saved["config"]
    assert after["ent_coef"] == 0.02 and after["game"] == game and after["hidden"] == [64]
    # the new lr holds, not the one the saved optimizer state carried
    assert [g["lr"] for g in saved["optimizer"]["param_groups"]] == [0.0005]


def test_a_bad_config_exits_with_a_message(tmp_path, capsys):
    with pytest.raises(SystemExit):
        train.main([f"run_dir={tmp_path}", "num_envs=-3"])
    assert "num_envs must be an int >= 1" in capsys.readouterr().err


def test_resuming_a_run_of_an_earlier_layout_is_refused_clearly(tmp_path, capsys):
    run(tmp_path, "old", "imitation_samples=0", "eval_deals=0", "total_samples=1000")
    path = tmp_path / "old" / "checkpoint.pt"
    saved = torch.load(path, weights_only=False)
    for key in ("scale", "trunk.0.weight"):  # as if trained on a shorter observation
        saved["model"][key] = saved["model"][key][..., :-5]
    torch.save(saved, path)
    with pytest.raises(SystemExit):
        train.main(["--resume", str(path)])
    assert "the layout grew" in capsys.readouterr().err


def test_no_config_is_the_quick_run(tmp_path, monkeypatch, capsys):
    """``python train.py`` (no --config, not resumed) trains configs/quick.yaml, overrides
    over it; the quick run evaluates its start."""
    seen = []

    class Fake:
        def __init__(self, cfg, resume=None):
            seen.append(cfg)
            os.makedirs(train.run_path(cfg), exist_ok=True)  # where result.json goes

        def train(self):
            return {}

    monkeypatch.setattr(train, "Trainer", Fake)
    train.main([f"run_dir={tmp_path}", "seed=2"])
    quick = train.load_config(train.QUICK, [])
    assert seen[0] == train.load_config(train.QUICK, [f"run_dir={tmp_path}", "seed=2"])
    assert quick.eval_start and quick.eval_deals >= 200 and quick != train.Config()
    assert "configs/quick.yaml, the default" in capsys.readouterr().out
