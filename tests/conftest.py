"""Test-suite options: ``--update-golden`` rewrites the golden playthroughs (tests/golden).

The suite runs on every core (pytest-xdist, ``-n auto --dist loadgroup`` in pyproject.toml); the
test files that start Ray clusters are one group, run one after another on one worker, so that
no two local Ray clusters compete for the same two cores (``-n 0`` runs everything in one
process)."""

import pytest

# the files whose tests start a local Ray cluster (or a benchmark that does)
RAY_FILES = ("tests/agents/test_distributed.py", "tests/agents/test_evaluate_records.py",
             "tests/agents/test_bench.py", "tests/test_layering.py")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.txt from the current engines instead of "
                          "comparing with them")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(RAY_FILES):
            item.add_marker(pytest.mark.xdist_group("ray"))
