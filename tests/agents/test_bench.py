"""agents.bench's training-path figures run (a smoke test: timings are not asserted)."""

import pytest

from agents import bench
from tests.sizes import sizes


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_heuristic_rates_and_positions(game):
    obs, masks = bench.positions(game, 100)
    assert obs.shape[0] == masks.shape[0] == 100 and masks.any(axis=1).all()
    per_row, batched = bench.heuristic_rates(game, 16, 0.01, count=64)
    assert per_row > 0 and batched > 0


def test_collection_rate_runs_the_trainer(monkeypatch, tmp_path):
    monkeypatch.chdir(bench.__file__.rsplit("/agents/", 1)[0])  # configs/ is relative
    assert bench.collection_rate("configs/dagong.yaml", 0.01, per_row=True) > 0


def test_the_before_path_restores_the_policy(monkeypatch):
    from agents import ppo
    monkeypatch.chdir(bench.__file__.rsplit("/agents/", 1)[0])
    act = ppo.PolicyNet.act
    assert bench.collection_rate("configs/dabang.yaml", 0.01, per_row=True) > 0
    assert ppo.PolicyNet.act is act
    assert bench.collection_rate("configs/dabang.yaml", 0.01, per_row=False) > 0


def test_the_train_benchmark_times_both_settings(monkeypatch, capsys):
    """agents.bench train: the config's PPO phase in the setting of before (fp32, one thread)
    and in its own, after a warm-up iteration: the time split adds up and the update's rate is
    above the end-to-end one."""
    monkeypatch.chdir(bench.__file__.rsplit("/agents/", 1)[0])
    timed = bench.train_phases("configs/smoke.yaml", 3000, {
        "before": ("precision=fp32", "torch_threads=1"), "now": ()})
    before = timed["before"]
    assert timed["now"]["samples"] >= 3000
    assert before["setting"].startswith("learner on cpu, fp32, 1 torch thread")
    assert before["samples"] >= 3000 and before["iterations"] >= 2
    assert before["seconds"] == pytest.approx(before["collect"] + before["update"] +
                                              before["eval"] + before["other"])
    assert before["update_samples_per_s"] > before["samples_per_s"] > 0
    assert "learner on" not in capsys.readouterr().out  # the run's own lines are kept out
    cost = bench.curve_cost("configs/smoke.yaml", ("curve_every=5", "curve_deals=2"))
    assert cost["seconds"] > 0 and cost["every"] == 5 and cost["deals"] == 2


@sizes("most", 1, 2)
def test_the_ray_benchmark_prints_each_worker_count(monkeypatch, capsys, most):
    pytest.importorskip("ray", reason="the [dist] extra (installed in CI) brings Ray")
    import ray
    monkeypatch.chdir(bench.__file__.rsplit("/agents/", 1)[0])
    ray.shutdown()
    monkeypatch.setattr(bench, "GAMES", ("dagong",))
    # the fast size: one worker and small batches; the slow one: two workers, the config's own
    results = bench.bench_ray(0.01, workers=(0, most),
                              **({} if most == 2 else dict(rollout_samples=1024,
                                                           update_samples=1024)))
    out = capsys.readouterr().out
    assert f"{most} workers" in out and f"{most} vs 0" in out and "PPO update" in out
    assert results["dagong"][0] > 0 and results["dagong"][most] > 0
    assert results["dagong"]["update"] > 0
    assert not ray.is_initialized()
