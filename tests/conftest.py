"""Test-suite options: ``--update-golden`` rewrites the golden playthroughs (tests/golden).

The suite runs on every core (pytest-xdist, ``-n auto --dist loadgroup`` in pyproject.toml).
Ray: a test that takes the ``local_ray`` fixture runs on the one local Ray instance of its test
process, started by the first such test and kept for the next (a local start costs seconds of
CPU, and the instance's task workers stay warm); ``closing_local_ray`` is the same instance for
a test that shuts it down; a test that takes ``own_ray`` starts a Ray of its own (a simulated
cluster, a benchmark's at full size). Any other test starts with Ray shut down, as the code
under test would find it, whatever ran before it (``-n 0``, or a worker that ran the Ray tests
first). The tests that take any of them are one xdist group (``@ray`` ends their ids), run one
after another on one worker in that order (the shared instance's first), so that no two local
Ray clusters compete for the same cores and the shared one starts once (``-n 0`` runs everything
in one process, the group in a block where its first test stood)."""

import importlib.util
import sys

import pytest

RAY_REASON = "the [dist] extra (installed in CI) brings Ray"


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.txt from the current engines instead of "
                          "comparing with them")


def _shut_down_ray() -> None:
    ray = sys.modules.get("ray")  # never imported by this file: most runs need no Ray
    if ray is not None and getattr(ray, "is_initialized", lambda: False)():
        ray.shutdown()


def _start_ray() -> None:
    import ray
    if not ray.is_initialized():
        ray.init(address="local", num_cpus=4, include_dashboard=False, logging_level="warning")


@pytest.fixture(scope="session")
def local_ray():
    """This test process's local Ray instance (4 CPUs: two rollout actors and the tasks beside
    them; ``cardagents.cluster.connect`` joins it). Session-scoped, so that a module's
    fixture can take it too; it is (re)started before each test that takes it."""
    ray = pytest.importorskip("ray", reason=RAY_REASON)
    _start_ray()
    return ray


@pytest.fixture
def closing_local_ray(local_ray):
    """The shared instance, for a test that shuts it down: it runs after the others."""
    return local_ray


@pytest.fixture
def own_ray():
    """Ray shut down before and after the test, which starts a Ray of its own."""
    ray = pytest.importorskip("ray", reason=RAY_REASON)
    _shut_down_ray()
    yield ray
    _shut_down_ray()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if "local_ray" not in item.fixturenames:
        _shut_down_ray()
    elif importlib.util.find_spec("ray") is not None:  # (without it the fixture skips)
        _start_ray()  # again, if an earlier test shut it down


def pytest_sessionfinish(session):
    _shut_down_ray()


def _rank(item) -> int:  # 0: no Ray; 1: the shared instance; 2: it, shut down; 3: its own Ray
    names = item.fixturenames
    return 3 if "own_ray" in names else 2 if "closing_local_ray" in names else \
        1 if "local_ray" in names else 0


# first: pytest-xdist's own hook reads the xdist_group marks when it runs (it adds the group to
# the test ids, which its scheduler groups by); a mark added after it would do nothing
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    group = [item for item in items if _rank(item)]
    if not group:
        return
    for item in group:
        item.add_marker(pytest.mark.xdist_group("ray"))
    rest = [item for item in items if not _rank(item)]
    first = items.index(group[0])  # the tests before it are all in rest
    items[:] = rest[:first] + sorted(group, key=_rank) + rest[first:]


class _GroupInTheIds:
    """pytest-xdist 3.8 groups the tests by the group it appends to their ids (``...@ray``),
    but from pytest 9.2 on, whose ids are structured (``item._id``), the id it writes is not
    the one read, and the tests go to any worker (pytest-dev/pytest-xdist#1386). Where its
    suffix is missing, this appends it as xdist would."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        if not getattr(config.option, "loadgroup", False):  # set on xdist's workers
            return
        for item in items:
            if _rank(item) and not item.nodeid.endswith("@ray") and hasattr(item, "_id"):
                item._id = type(item._id).parse(item.nodeid + "@ray")


def pytest_configure(config):
    config.pluginmanager.register(_GroupInTheIds(), "ray_group_ids")
