"""bench_train.py (a checkout's timings of train.py) runs and prints its figures (a smoke test:
timings are not asserted)."""

import os

import pytest

pytest.importorskip("torch")

import bench_train  # noqa: E402
from tests.sizes import sizes  # noqa: E402


def test_collection_rate_runs_the_trainer(monkeypatch, tmp_path):
    monkeypatch.chdir(os.path.dirname(bench_train.__file__))  # configs/ is relative
    assert bench_train.collection_rate("configs/dagong.yaml", 0.01, per_row=True) > 0


def test_the_before_path_restores_the_policy(monkeypatch):
    from agents import ppo
    monkeypatch.chdir(os.path.dirname(bench_train.__file__))
    act = ppo.PolicyNet.act
    assert bench_train.collection_rate("configs/dabang.yaml", 0.01, per_row=True) > 0
    assert ppo.PolicyNet.act is act
    assert bench_train.collection_rate("configs/dabang.yaml", 0.01, per_row=False) > 0


def test_the_frozen_benchmark_runs_both_pools(monkeypatch, capsys):
    monkeypatch.chdir(os.path.dirname(bench_train.__file__))
    assert bench_train.frozen_rate("configs/dagong.yaml", 0.01, pooled=False) > 0
    assert bench_train.frozen_rate("configs/dagong.yaml", 0.01, pooled=True) > 0
    assert "learner on" not in capsys.readouterr().out


def test_the_train_benchmark_times_both_settings(monkeypatch, capsys):
    """bench_train.py train: the config's PPO phase in the setting of before (fp32, one thread)
    and in its own, after a warm-up iteration: the time split adds up and the update's rate is
    above the end-to-end one."""
    monkeypatch.chdir(os.path.dirname(bench_train.__file__))
    timed = bench_train.train_phases("configs/smoke.yaml", 3000, {
        "before": ("precision=fp32", "torch_threads=1"), "now": ()})
    before = timed["before"]
    assert timed["now"]["samples"] >= 3000
    assert before["setting"].startswith("learner on cpu, fp32, 1 torch thread")
    assert before["samples"] >= 3000 and before["iterations"] >= 2
    assert before["seconds"] == pytest.approx(before["collect"] + before["update"] +
                                              before["eval"] + before["other"])
    # not a speed bound: the update alone is part of the whole iteration
    assert before["update_samples_per_s"] > before["samples_per_s"] > 0
    assert "learner on" not in capsys.readouterr().out  # the run's own lines are kept out
    cost = bench_train.curve_cost("configs/smoke.yaml", ("curve_every=5", "curve_deals=2"))
    assert cost["seconds"] > 0 and cost["every"] == 5 and cost["deals"] == 2


@sizes("most", 1, 2)
def test_the_ray_benchmark_prints_each_worker_count(monkeypatch, capsys, most):
    pytest.importorskip("ray", reason="the [dist] extra (installed in CI) brings Ray")
    import ray
    monkeypatch.chdir(os.path.dirname(bench_train.__file__))
    ray.shutdown()
    monkeypatch.setattr(bench_train, "GAMES", ("dagong",))
    # the fast size: one worker and small batches; the slow one: two workers, the config's own
    results = bench_train.bench_ray(0.01, workers=(0, most),
                              **({} if most == 2 else dict(rollout_samples=1024,
                                                           update_samples=1024)))
    out = capsys.readouterr().out
    assert f"{most} workers" in out and f"{most} vs 0" in out and "PPO update" in out
    assert results["dagong"][0] > 0 and results["dagong"][most] > 0
    assert results["dagong"]["update"] > 0
    assert not ray.is_initialized()


def test_bench_train_refuses_bad_arguments_in_one_line(capsys):
    for argv, message in ((["ray", "--game", "dagong"], "--game goes with 'train'"),
                          (["train", "--samples", "0"], "--samples must be in"),
                          (["collection", "--seconds", "inf"], "--seconds must be in"),
                          (["bench"], "invalid choice")):
        with pytest.raises(SystemExit) as exc:
            bench_train.main(argv)
        assert exc.value.code == 2 and message in capsys.readouterr().err
