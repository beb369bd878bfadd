"""The benchmark scripts run and print their figures (a smoke test: timings are not asserted)."""

import numpy as np

from cardenv import bench
from cardenv.vector import legal_indices


def test_vector_benchmark_prints_every_figure(capsys):
    results = bench.bench_vector(0.02)
    out = capsys.readouterr().out
    for game in ("dagong", "dabang"):
        for batch in (1, 64, 1024):
            assert results[f"{game}_b{batch}"] > 0
            assert f"{game} VectorGame, batch {batch}" in out
        assert results[f"{game}_b1024_per_state"] > 0
    assert "OpenSpiel" in out


def test_random_actions_are_legal_and_cover_the_mask():
    rng = np.random.default_rng(0)
    masks = rng.random((50, 30)) < 0.2
    masks[:, 7] = True
    seen = np.zeros_like(masks)
    for _ in range(200):
        actions = bench.random_actions(masks, rng)
        assert masks[np.arange(50), actions].all()
        seen[np.arange(50), actions] = True
    assert np.array_equal(seen, masks)


def test_legal_indices_equal_flatnonzero_for_any_shape_and_density():
    rng = np.random.default_rng(1)
    for rows, cols, density in [(1, 1, 1.0), (3, 7, 0.5), (64, 2419, 0.002), (17, 404, 0.05),
                                (5, 16, 0.0), (9, 13, 1.0)]:
        masks = rng.random((rows, cols)) < density
        assert np.array_equal(legal_indices(masks), np.flatnonzero(masks))
        strided = masks[::2, ::3]  # not contiguous
        assert np.array_equal(legal_indices(strided), np.flatnonzero(strided))


def test_game_benchmark_prints_every_figure(capsys):
    results = bench.bench("dagong", 0.03)
    out = capsys.readouterr().out
    assert results["raw_env_steps_per_s"] > 0 and results["env_steps_per_s"] > 0
    assert results["mask_us_per_state_b1024"] > 0
    if "rlcard_doudizhu_steps_per_s" in results:
        assert f"(target >= {bench.RLCARD_TARGET}x)" in out
    else:
        assert "rlcard not installed" in out


def test_load_benchmark_measures_the_games_it_names(capsys):
    results = bench.bench_load(0.01)
    out = capsys.readouterr().out
    assert results["dagong_load_s"] > 0 and results["dabang_load_s"] > 0
    assert "2-hand Dagong game (2 hands," in out
    assert "40-hand Dabang match (40 hands," in out  # seed 115 runs past 40 hands
    assert "target < 0.2 s" in out


def test_worlds_benchmark_measures_each_stage(capsys):
    results = bench.bench_worlds(0.01)
    assert set(results) >= {"dagong_early", "dagong_middle", "dagong_late"}
    assert all(rate > 0 for rate in results.values())
    out = capsys.readouterr().out
    assert "dagong late" in out and "worlds/s" in out
