"""``python -m cardagents bench train|ray|collection|frozen`` (cardagents.bench.training, the
timings of training runs) runs and prints its figures (a smoke test: timings are not asserted)."""


import pytest

pytest.importorskip("torch")

from cardagents.bench import training as bench_train  # noqa: E402
from tests import ROOT


def small(monkeypatch, *overrides):
    """The benchmarks' configs with a small network and 16 games in flight, and ``overrides``
    (their sizes are what a benchmark times, not what a smoke test checks; the code that runs
    is the same)."""
    monkeypatch.chdir(ROOT)
    real = bench_train.load_config
    monkeypatch.setattr(bench_train, "load_config", lambda config, given, **kw: real(
        config, [*given, "num_envs=16", "hidden=[64]", *overrides], **kw))


def test_collection_rate_runs_the_trainer(monkeypatch):
    small(monkeypatch)
    assert bench_train.collection_rate("configs/dagong.yaml", 0.01, per_row=True,
                                       overrides=("rollout_samples=256",)) > 0


def test_the_before_path_restores_the_policy(monkeypatch):
    from cardagents.ppo import net as ppo
    small(monkeypatch, "rollout_samples=256")
    act = ppo.PolicyNet.act
    assert bench_train.collection_rate("configs/dabang.yaml", 0.01, per_row=True) > 0
    assert ppo.PolicyNet.act is act
    assert bench_train.collection_rate("configs/dabang.yaml", 0.01, per_row=False) > 0


def test_the_frozen_benchmark_runs_both_pools(monkeypatch, capsys):
    small(monkeypatch, "rollout_samples=256")
    assert bench_train.frozen_rate("configs/dagong.yaml", 0.01, pooled=False) > 0
    assert bench_train.frozen_rate("configs/dagong.yaml", 0.01, pooled=True) > 0
    assert "learner on" not in capsys.readouterr().out


def test_the_train_benchmark_times_both_settings(monkeypatch, capsys):
    """cardagents bench train: the config's PPO phase in the setting of before (fp32, one thread)
    and in its own, after a warm-up iteration: the time split adds up and the update's rate is
    above the end-to-end one."""
    small(monkeypatch, "rollout_samples=300")  # (smoke.yaml's network and games already)
    timed = bench_train.train_phases("configs/smoke.yaml", 600, {
        "before": ("precision=fp32", "torch_threads=1"), "now": ()})
    before = timed["before"]
    assert timed["now"]["samples"] >= 600
    assert before["setting"].startswith("learner on cpu, fp32, 1 torch thread")
    assert before["samples"] >= 600 and before["iterations"] >= 2
    assert before["seconds"] == pytest.approx(before["collect"] + before["update"] +
                                              before["eval"] + before["other"])
    # not a speed bound: the update alone is part of the whole iteration
    assert before["update_samples_per_s"] > before["samples_per_s"] > 0
    assert "learner on" not in capsys.readouterr().out  # the run's own lines are kept out
    cost = bench_train.curve_cost("configs/smoke.yaml", ("curve_every=5", "curve_deals=2"))
    assert cost["seconds"] > 0 and cost["every"] == 5 and cost["deals"] == 2


def test_the_ray_benchmark_prints_each_worker_count(closing_local_ray, monkeypatch, capsys):
    """cardagents bench ray with 0 and 1 workers, small batches and a small network, on this
    process's Ray instance: the benchmark's own start of a local instance (1 CPU) is seen and
    left out (a start costs more than the rest of the test; the slow size below makes it), its
    shutdown is not."""
    ray = closing_local_ray
    inits = []
    monkeypatch.setattr(ray, "init", lambda **kwargs: inits.append(kwargs))
    monkeypatch.setattr(bench_train, "GAMES", ("dagong",))
    small(monkeypatch)
    results = bench_train.bench_ray(0.01, workers=(0, 1), rollout_samples=256,
                                    update_samples=256)
    assert [(kw["address"], kw["num_cpus"]) for kw in inits] == [("local", 1)]
    out = capsys.readouterr().out
    assert "1 workers" in out and "1 vs 0" in out and "PPO update" in out
    assert results["dagong"][0] > 0 and results["dagong"][1] > 0
    assert results["dagong"]["update"] > 0
    assert not ray.is_initialized()  # the benchmark shuts Ray down


@pytest.mark.slow
def test_the_ray_benchmark_at_full_size(own_ray, monkeypatch, capsys):
    """cardagents bench ray as it runs: its own local instance, 0 and 2 workers, the config's
    own batches and network."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(bench_train, "GAMES", ("dagong",))
    results = bench_train.bench_ray(0.01, workers=(0, 2))
    out = capsys.readouterr().out
    assert "2 workers" in out and "2 vs 0" in out and "PPO update" in out
    assert results["dagong"][0] > 0 and results["dagong"][2] > 0
    assert results["dagong"]["update"] > 0
    assert not own_ray.is_initialized()  # the benchmark's Ray is shut down


def test_bench_train_refuses_bad_arguments_in_one_line(capsys):
    for argv, message in ((["ray", "--game", "dagong"], "--game goes with 'train'"),
                          (["train", "--samples", "0"], "--samples must be in"),
                          (["collection", "--seconds", "inf"], "--seconds must be in"),
                          (["bench"], "invalid choice")):
        with pytest.raises(SystemExit) as exc:
            bench_train.main(argv)
        assert exc.value.code == 2 and message in capsys.readouterr().err
