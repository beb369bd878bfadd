"""train.py end to end with the tiny config: it trains, evaluates, checkpoints, resumes, and a
seeded run is reproducible."""

import json
import os

import pytest
import torch

import train


def run(tmp_path, name, *overrides, config="configs/smoke.yaml"):
    root = os.path.dirname(train.__file__)
    return train.main(["--config", os.path.join(root, config), f"run_dir={tmp_path}",
                       f"run_name={name}", *overrides])


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_smoke_run_trains_evaluates_and_resumes(tmp_path, capsys, game):
    result = run(tmp_path, game, f"game={game}")
    out = capsys.readouterr().out
    assert "imitation" in out and "samples/s" in out and "evaluation: PPO vs heuristic" in out
    folder = tmp_path / game
    assert (folder / "final.pt").exists() and (folder / "checkpoint.pt").exists()
    from agents.ppo import PPOAgent
    assert PPOAgent.load(str(folder / "agent.pt")).game == game
    assert (folder / "agent.pt").stat().st_size < (folder / "final.pt").stat().st_size
    assert json.loads((folder / "result.json").read_text())["samples"] == result["samples"]
    assert 0 <= result["evaluation"]["win_rate"] <= 1 and result["evaluation"]["pairs"] == 10
    assert any(name.startswith("events") for name in os.listdir(folder / "tb"))
    before = torch.load(folder / "checkpoint.pt", weights_only=False)
    resumed = train.main(["--resume", str(folder / "checkpoint.pt"),
                          f"total_samples={before['samples'] + 1000}", "eval_deals=0"])
    assert resumed["samples"] > before["samples"] and resumed["iterations"] > before["iteration"]


def test_seeded_runs_are_reproducible(tmp_path):
    run(tmp_path, "a", "eval_deals=0")
    run(tmp_path, "b", "eval_deals=0")
    a = torch.load(tmp_path / "a" / "final.pt", weights_only=False)["model"]
    b = torch.load(tmp_path / "b" / "final.pt", weights_only=False)["model"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_bad_config_exits_with_a_message(tmp_path, capsys):
    with pytest.raises(SystemExit):
        train.main([f"run_dir={tmp_path}", "num_envs=-3"])
    assert "num_envs must be an int >= 1" in capsys.readouterr().err
