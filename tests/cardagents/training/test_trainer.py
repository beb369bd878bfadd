"""The ``Trainer`` (``cardagents.training.trainer``) with the tiny config: a seeded run is
reproducible, score shaping, stages in order, the metrics log kept whole through a resume, and
the curves drawn from it (a run through ``train.py``'s command line: tests/test_train.py)."""

import json
import os

import pytest
import torch

from cardagents.training.config import load_config
from cardagents.training.trainer import Trainer
from cardenv.core.errors import ConfigError
from tests.runs import resume_run
from tests.runs import smoke_run as run


def test_seeded_runs_are_reproducible(tmp_path):
    run(tmp_path, "a", "eval_deals=0")
    run(tmp_path, "b", "eval_deals=0")
    a = torch.load(tmp_path / "a" / "final.pt", weights_only=False)["model"]
    b = torch.load(tmp_path / "b" / "final.pt", weights_only=False)["model"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def _check_shaping_at_hand_ends(tmp_path, overrides, seed, check) -> None:
    """Random play on a trainer's games: no shaping while a hand runs; at each hand's end
    ``check(shaped_row, result)``, at least 4 times with the episode going on and 4 ended."""
    import numpy as np

    cfg = load_config(None, overrides + ["num_envs=4", "imitation_samples=0", "eval_deals=0",
                                         f"run_dir={tmp_path}"])
    trainer = Trainer(cfg)
    games, rng = trainer.collector.games, np.random.default_rng(seed)
    checked = {"episode goes on": 0, "episode ended": 0}
    for _ in range(20_000):
        hands = np.array([len(state.results) for state in games.slots])
        masks = games.masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        rewards, _, hand_ends, finished = games.step(actions)
        shaped = trainer.collector.selfplay._shaped(hand_ends, rewards)
        for i, state in enumerate(games.slots):
            done = next((f for f in finished if f.index == i), None)
            if done is None and len(state.results) == hands[i]:
                assert not shaped[i].any()
                continue
            check(shaped[i], (done.results if done else state.results)[-1])
            checked["episode ended" if done else "episode goes on"] += 1
        if min(checked.values()) >= 4:
            break
    assert min(checked.values()) >= 4, checked


def test_score_shaping_rewards_each_side_by_the_attackers_score(tmp_path):
    """score_shaping: every seat of the side that attacked gets coef * (S - 160) / 80 at the
    hand's end, the defenders the negative; nothing while a hand is still running."""
    def check(row, result):
        expected = 0.5 * (result.score - 160) / 80
        for seat in range(4):
            sign = 1 if seat % 2 == result.attackers else -1
            assert row[seat] == pytest.approx(sign * expected)

    _check_shaping_at_hand_ends(tmp_path, ["game=dabang", "score_shaping=0.5",
                                           "options={episode: match, max_hands: 3}"], 0, check)


def test_dagong_score_shaping_gives_each_seat_the_sign_of_its_payoff(tmp_path):
    """score_shaping in Dagong: at a hand's end every seat gets coef * sign(its payoff), the
    hand's winners +coef and its losers -coef; nothing while a hand is still running."""
    import numpy as np

    def check(row, result):
        assert row.tolist() == [0.75 * np.sign(p) for p in result.payoff]
        assert sorted(set(row.tolist())) == [-0.75, 0.75]  # a winner and a loser

    _check_shaping_at_hand_ends(tmp_path, ["game=dagong", "score_shaping=0.75",
                                           "options={hands: 2}"], 1, check)


def test_an_unknown_critic_is_refused(tmp_path):
    # (a global critic trains in test_smoke_run_trains_evaluates_and_resumes[dabang-global])
    with pytest.raises(ConfigError, match="critic"):
        run(tmp_path, "bad", "critic=oracle")


def test_stages_run_in_order_from_one_command(tmp_path, capsys):
    """A recipe's phases in the config: each stage its samples, opponents, shaping and options
    (new games when the options change); the total is their sum; resuming lands in the stage
    the samples say."""
    stages = ("stages=[{samples: 1500, opponents: {random: 1}}, "
              "{samples: 1500, opponents: {heuristic: 1}, lr: 0.0001, options: {hands: 2}}]")
    result = run(tmp_path, "staged", stages, "imitation_samples=0", "eval_deals=0",
                 "total_samples=99")
    out = capsys.readouterr().out
    assert "stage 1/2" in out and "stage 2/2 from sample" in out and "{'hands': 2}" in out
    assert result["samples"] >= 3000
    saved = torch.load(tmp_path / "staged" / "checkpoint.pt", weights_only=False)
    trainer = Trainer(load_config(None, [], base=saved["config"]), saved)
    assert trainer.stage == 1 and trainer.collector.selfplay.opponents == {"heuristic": 1}
    assert trainer.collector.games.variant(0).options["hands"] == 2
    assert trainer.cfg.total_samples == 3000
    trainer.runlog.close()
    for bad, message in [("stages=[{opponents: {random: 1}}]", "needs samples"),
                         ("stages=[{samples: 10, epochs: 2}]", "unknown field"),
                         ("stages=[{samples: 10, options: {hands: 0}}]", r"stages\[0\]")]:
        with pytest.raises(ConfigError, match=message):
            run(tmp_path, "bad", bad)


def test_a_stage_with_a_pair_bonus_plays_deal_pairs_and_a_resume_keeps_them(tmp_path):
    """pair_bonus in a stage: from it on, the games are new deal pairs (twin slots, one deal,
    no refill: a slot waits for its twin); a run resumed in that stage deals pairs again."""
    stages = "stages=[{samples: 1500}, {samples: 1500, pair_bonus: 1.0}]"
    result = run(tmp_path, "paired", stages, "imitation_samples=0", "eval_deals=0",
                 "num_envs=4")
    assert result["samples"] >= 3000
    saved = torch.load(tmp_path / "paired" / "checkpoint.pt", weights_only=False)
    trainer = Trainer(load_config(None, [], base=saved["config"]), saved)
    games, play = trainer.collector.games, trainer.collector.selfplay
    assert trainer.stage == 1 and play.paired and play.pair_bonus == 1.0 and not games.refill
    assert games.seeds[0] == games.seeds[1] and games.seeds[2] == games.seeds[3] != games.seeds[0]
    assert (play.seating.learner[0] != play.seating.learner[1]).any()
    trainer.runlog.close()


def test_the_metrics_log_holds_every_phase_and_a_resume_keeps_it_whole(tmp_path):
    """metrics.jsonl: imitation chunks, a curve point where PPO starts and after each
    ``curve_every`` iterations (one per option set), every iteration, the final evaluations;
    wall seconds only grow; a resumed run drops what came after its checkpoint and goes on
    without gaps or repeats."""
    stages = "stages=[{samples: 1500}, {samples: 1500, options: [{}, {hands: 2}]}]"
    run(tmp_path, "m", "curve_every=1", "curve_deals=2", "eval_deals=2", stages)
    path = tmp_path / "m" / "metrics.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    phases = [r["phase"] for r in records]
    # what the learner runs on, then the imitation
    assert phases[:3] == ["compute", "imitation", "imitation"] and phases[-1] == "evaluation"
    ppo = [r for r in records if r["phase"] == "ppo"]
    assert [r["iteration"] for r in ppo] == list(range(1, len(ppo) + 1))
    assert [r["stage"] for r in ppo][0] == 0 and ppo[-1]["stage"] == 1
    assert all(r["win_rate_vs_heuristic"] is None or 0 <= r["win_rate_vs_heuristic"] <= 1
               for r in ppo)
    curves = [r for r in records if r["phase"] == "curve"]
    # the option sets of the config and its stages, at the start and after each iteration
    assert [r["options"] for r in curves[:2]] == [{}, {"hands": 2}]
    assert len(curves) == 2 * (len(ppo) + 1) and curves[0]["samples"] == 0
    assert sum(r["phase"] == "evaluation" for r in records) == 4  # 2 opponents x 2 option sets
    seconds = [r["seconds"] for r in records]
    assert seconds == sorted(seconds) and seconds[1] > 0  # (the compute record: at 0)
    saved = torch.load(tmp_path / "m" / "checkpoint.pt", weights_only=False)
    # the checkpoint, written after the last iteration's record, counts its time too
    assert saved["elapsed"] >= ppo[-1]["seconds"]  # not a speed bound: one clock's readings
    resume_run(tmp_path / "m" / "checkpoint.pt", f"total_samples={saved['samples'] + 1000}",
               "eval_deals=0", "stages=[]")
    again = [json.loads(line) for line in path.read_text().splitlines()]
    # the final evaluations came after it; the resumed process says what it runs on
    assert again[:len(records) - 4] == records[:-4] and again[len(records) - 4]["phase"] == \
        "compute"
    more = [r for r in again if r["phase"] == "ppo"]
    assert [r["iteration"] for r in more] == list(range(1, len(more) + 1)) and len(more) > len(ppo)
    assert [r["seconds"] for r in again] == sorted(r["seconds"] for r in again)


def test_curves_are_drawn_from_the_metrics_log(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="the [plot] extra draws curves")
    from cardagents.training import curves
    run(tmp_path, "c", "curve_every=1", "curve_deals=2", "eval_deals=0")
    out = curves.main([str(tmp_path / "c"), "--out", str(tmp_path / "png" / "c.png")])
    with open(out, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(out) > 10_000
    data = curves.series(curves.read_metrics(str(tmp_path / "c")))
    assert list(data["curves"]) == ["default options"] and len(data["training"]) >= 2
    (tmp_path / "bad.jsonl").write_text("not json\n")
    for bad, message in [(tmp_path / "bad.jsonl", "not a metrics log"),
                         (tmp_path / "none", "no such file")]:
        with pytest.raises(SystemExit, match=message):
            curves.main([str(bad), "--out", str(tmp_path / "x.png")])
