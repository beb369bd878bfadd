"""Test-suite options: ``--update-golden`` rewrites the golden playthroughs (tests/golden)."""


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.txt from the current engines instead of "
                          "comparing with them")
