"""cardagents.bench.players's player figures run (a smoke test: timings are not asserted), and the
module needs nothing of train.py (not part of the installed package)."""

import os
import pathlib
import subprocess
import sys

import pytest

from cardagents.bench import players as bench


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_heuristic_rates_and_positions(game):
    obs, masks = bench.positions(game, 100)
    assert obs.shape[0] == masks.shape[0] == 100 and masks.any(axis=1).all()
    per_row, batched = bench.heuristic_rates(game, 16, 0.01, count=64)
    assert per_row > 0 and batched > 0


def test_agents_bench_runs_without_train_py():
    """``python -m cardagents bench`` outside a checkout: with ``train`` impossible to import, the
    module imports and times the heuristics (tests/test_layering.py checks that no module of
    cardagents/ imports train at all)."""
    code = ("import sys; sys.modules['train'] = None\n"  # import train -> ImportError
            "from cardagents.bench import players as bench\n"
            "per_row, batched = bench.heuristic_rates('dagong', 8, 0.01, count=16)\n"
            "assert per_row > 0 and batched > 0 and 'train' not in bench.__dict__\n")
    root = str(pathlib.Path(bench.__file__).resolve().parents[2])  # the checkout
    done = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": root}, timeout=300)
    assert done.returncode == 0, done.stderr
