"""A run's evaluations (``cardagents.training.run_evaluations.RunEvaluations``), the start
evaluation (``eval_start``) above all: the policy PPO starts from is evaluated as the final one
is, recorded, and compared with the end in one line."""

import json
import re

import pytest

from cardagents.players.random import RandomAgent
from cardagents.training.config import load_config
from cardagents.training.run_evaluations import RunEvaluations
from cardenv.core.errors import ConfigError
from tests.runs import smoke_run as run


def test_the_start_is_evaluated_as_the_end_recorded_and_compared(tmp_path, capsys,
                                                                  monkeypatch):
    played = []  # (opponent, deals, seed) of each evaluation
    versus = RunEvaluations.versus

    def spy(self, agent, opponent, deals, seed, label=None, clock=None, phase=None):
        played.append((opponent, deals, seed))
        return versus(self, agent, opponent, deals, seed, label, clock, phase)

    monkeypatch.setattr(RunEvaluations, "versus", spy)
    result = run(tmp_path, "s", "eval_start=true", "eval_deals=6", "total_samples=1")
    captured = capsys.readouterr()
    out = captured.out
    lines = out.splitlines()
    # every phase's line says how long the whole run has left (issue 34, item 5): imitation
    # and PPO on standard output, the evaluations' progress lines on standard error
    timed = re.compile(r"\| run (~\d+:\d\d left|: time left not known yet)$")
    assert all(timed.search(line) for line in lines if line.startswith("imitation "))
    assert all(timed.search(line) for line in lines if "samples/s" in line)
    progress = [line for line in captured.err.splitlines() if "evaluation" in line]
    assert {p.split(":")[0] for p in progress} == {"start evaluation (2,000 imitated decisions, "
                                                   "before PPO)", "evaluation"}
    assert all(timed.search(line) for line in progress)
    assert progress[-1].endswith("| run ~0:00 left")
    start = next(i for i, line in enumerate(lines) if line.startswith("start evaluation"))
    first_ppo = next(i for i, line in enumerate(lines) if "samples/s" in line)
    # after the imitation (2,000 decisions in smoke.yaml), before the first PPO iteration
    assert "2,000 imitated decisions, before PPO" in lines[start] and start < first_ppo
    assert "PPO vs heuristic, 6 duplicate deal pairs: win rate" in lines[start]
    # the same opponent, deals and seeds as the final evaluation against the heuristic
    heuristic = [p for p in played if not isinstance(p[0], RandomAgent)]
    assert len(heuristic) == 2 and heuristic[0] == heuristic[1] and heuristic[0][1] == 6
    records = [json.loads(line) for line in
               (tmp_path / "s" / "metrics.jsonl").read_text().splitlines()]
    begin = [r for r in records if r["phase"] == "start_evaluation"]
    end = [r for r in records if r["phase"] == "evaluation" and r["opponent"] == "heuristic"]
    assert len(begin) == 1 and begin[0]["samples"] == 0 and begin[0]["imitated"] == 2000
    assert begin[0]["deals"] == end[0]["deals"] == 6 and begin[0]["opponent"] == "heuristic"
    saved = json.loads(json.dumps(result))  # as train.py writes it to result.json
    assert saved["evaluation_start"]["win_rate"] == begin[0]["win_rate"]
    assert saved["evaluation_start"]["win_rate_ci95"] == begin[0]["win_rate_ci95"]
    (summary,) = saved["start_to_end"]
    assert summary["start"] == begin[0]["win_rate"] and summary["end"] == end[0]["win_rate"]
    assert summary == result["start_to_end"][0]
    # the closing line gives both figures with their intervals and the verdict
    (a, b), (c, d) = begin[0]["win_rate_ci95"], end[0]["win_rate_ci95"]
    last = [line for line in lines if line.startswith("start -> end")]
    assert len(last) == 1 and lines[-1] == last[0]
    assert (f"win rate {begin[0]['win_rate']:.3f} ({a:.3f}..{b:.3f}) -> "
            f"{end[0]['win_rate']:.3f} ({c:.3f}..{d:.3f})") in last[0]
    assert last[0].endswith(summary["verdict"])
    assert summary["apart"] == (c > b or d < a)


def test_the_start_is_evaluated_once_under_each_option_set(tmp_path):
    result = run(tmp_path, "o", "eval_start=true", "eval_deals=2", "options=[{}, {hands: 2}]",
                 "imitation_samples=0", "total_samples=1")
    start, lines = result["evaluation_start"]["by_options"], result["start_to_end"]
    assert [r["options"] for r in start] == [{}, {"hands": 2}]
    assert [r["options"] for r in lines] == [{}, {"hands": 2}]


def test_no_start_evaluation_unless_asked(tmp_path, capsys):
    result = run(tmp_path, "n", "eval_deals=1", "imitation_samples=0", "total_samples=1")
    assert "start evaluation" not in capsys.readouterr().out
    assert "evaluation_start" not in result and "start_to_end" not in result
    with pytest.raises(ConfigError, match="eval_start must be true or false"):
        run(tmp_path, "bad", "eval_start=maybe")


@pytest.mark.parametrize("start, end, verdict", [
    ((0.10, 0.20), (0.25, 0.35), "better, the intervals apart"),
    ((0.25, 0.35), (0.10, 0.20), "worse, the intervals apart"),
    ((0.10, 0.26), (0.25, 0.35), "the intervals overlap"),
])
def test_the_verdict_says_whether_the_intervals_are_apart(tmp_path, start, end, verdict):
    """``start_to_end`` compares the run's start evaluation (as a resumed run reads it from
    metrics.jsonl: ``RunLog.records``) with its end."""
    from cardagents.training.runlog import RunLog
    log = type("Log", (), {"metrics_path": str(tmp_path / "metrics.jsonl")})()
    assert RunLog.records(log, "start_evaluation") == []  # a new run has none
    record = {"phase": "start_evaluation", "samples": 0, "imitated": 5, "options": {},
              "deals": 9, "win_rate": sum(start) / 2, "win_rate_ci95": list(start),
              "mean_payoff_per_game": 0.0}
    (tmp_path / "metrics.jsonl").write_text(json.dumps({"phase": "compute"}) + "\n"
                                            + json.dumps(record) + "\n")
    evaluations = RunEvaluations(load_config(None, [f"run_dir={tmp_path}"]), [], None, print,
                                 RunLog.records(log, "start_evaluation"))
    assert evaluations.starts == [record]
    out = evaluations.start_to_end({"options": {}, "pairs": 9, "win_rate": sum(end) / 2,
                                    "win_rate_ci95": list(end)})
    (line,) = out["start_to_end"]
    assert line["verdict"] == verdict and line["apart"] == (verdict != "the intervals overlap")
    assert out["evaluation_start"]["imitated"] == 5

