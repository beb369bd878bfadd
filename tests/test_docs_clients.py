"""docs/clients.md's examples run as written: each Python block after a ``<!-- run: name -->``
marker (found by its marker, not its position), with assertions on what each one produced.

Each RL library's example skips without its library, naming the extra that installs it. The
Tianshou and RLlib ones take ten seconds and more (building Tianshou's first algorithm and
buffer, starting Ray), so they are marked slow: ``python -m pytest -q -m slow
tests/test_docs_clients.py`` runs them."""

import importlib
import re
from pathlib import Path

import numpy as np
import pytest

from cardenv.dagong.presentation import REASONS

DOC = Path(__file__).resolve().parents[1] / "docs" / "clients.md"
BLOCKS = dict(re.findall(r"<!-- run: (\w+) -->\n```python\n(.*?)```", DOC.read_text("utf-8"),
                         re.S))
CLIENTS = 'the [clients] extra: pip install -e ".[clients]"'
#: example -> (the module it needs, why it is missing), for the examples that need a client
NEEDS = {"sb3": ("sb3_contrib", 'the [sb3] extra: pip install -e ".[sb3]"'),
         "torchrl": ("torchrl", CLIENTS), "torchrl_seat": ("torchrl", CLIENTS),
         "tianshou": ("tianshou", CLIENTS)}
SLOW = {"tianshou"}  # Tianshou's first algorithm and buffer alone take seconds
RLLIB = ('the [rllib] extra, in a virtual environment of its own (ray[rllib] pins '
         'gymnasium==1.2.2): pip install -e ".[rllib]"')


def run(name: str) -> dict:
    """The names that example ``name`` defined. Every example but the parallel one runs torch,
    on one thread here: two threads on a busy 2-core machine are many times slower (as in
    tests/test_readme.py)."""
    torch = None if name == "parallel" else importlib.import_module("torch")
    threads = torch and torch.get_num_threads()
    if torch:
        torch.set_num_threads(1)
    try:
        namespace = {}
        exec(compile(BLOCKS[name], f"{DOC.name}:{name}", "exec"), namespace)
        return namespace
    finally:
        if torch:
            torch.set_num_threads(threads)


def test_the_page_has_its_examples():
    assert set(BLOCKS) == {"sb3", "parallel", "torchrl", "torchrl_seat", "tianshou", "rllib"}


@pytest.mark.parametrize("name", [pytest.param(name, marks=[pytest.mark.slow] * (name in SLOW))
                                  for name in sorted(set(BLOCKS) - {"rllib"})])
def test_example_runs(name):
    if name in NEEDS:
        pytest.importorskip(NEEDS[name][0], reason=NEEDS[name][1])
    ns = run(name)
    if name == "parallel":
        assert not ns["env"].agents and len(ns["rewards"]) == 4
        assert sum(ns["rewards"].values()) == pytest.approx(0)
    if name == "sb3":
        assert ns["model"].num_timesteps >= 256
    if name == "torchrl":  # one whole hand of legal moves: under env() an illegal one would
        rollout, payoffs = ns["rollout"], ns["payoffs"]  # end it with -1 for one seat alone
        assert rollout["next", "done"][-1].item() and not rollout["next", "done"][:-1].any()
        assert len(rollout) < 2000 and sorted(payoffs) == ns["env"].possible_agents
        assert sum(payoffs.values()) == pytest.approx(0) and any(payoffs.values())
    if name == "torchrl_seat":  # the learner's moves, each one its mask allowed
        rollout = ns["rollout"]
        assert rollout["next", "done"][-1].item() and len(rollout) < 2000
        assert rollout["action_mask"].gather(-1, rollout["action"][:, None]).all()
    if name == "tianshou":  # the 'Tianshou collects Dagong episodes', hand results too
        stats, steps, hands = ns["stats"], ns["steps"], ns["hands"]
        assert stats.n_collected_episodes == 2 and len(steps) == stats.n_collected_steps
        assert steps.done.sum() == 2 and len(hands) == 2  # one hand per episode (hands=1)
        assert set(hands.info.hand_result.reason) <= set(REASONS)
        np.testing.assert_array_equal(hands.rew, hands.info.hand_result.rewards)
        np.testing.assert_allclose(hands.rew.sum(axis=1), 0)
        assert hands.info.hand_result.places.shape == (2, 4)  # padded to four seats


@pytest.fixture
def rllib():
    return pytest.importorskip("ray.rllib", reason=RLLIB)


@pytest.mark.slow
def test_the_rllib_example_runs(rllib, own_ray):  # own_ray: the example starts Ray itself
    ns = run("rllib")
    sampled = ns["result"]["env_runners"]
    assert sampled["num_env_steps_sampled"] >= 256 and sampled["num_episodes"] >= 1
    assert ns["result"]["learners"]["default_policy"]["num_module_steps_trained"] >= 256
