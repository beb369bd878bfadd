"""Two sizes for the exhaustive property and fuzz tests: a fast one that every run of README's
``python -m pytest -q`` checks, and the full one behind the ``slow`` marker
(``python -m pytest -q -m slow``; CI runs both). The fast size checks the same property on
fewer cases, so no property goes unchecked by the default run."""

import pytest


def fast_and_slow(fast, slow) -> list:
    """The values of a size parameter: ``fast`` in the default run, ``slow`` (marked ``slow``)
    in ``-m slow``. For ``pytest.mark.parametrize`` and for ``pytest.fixture(params=...)``."""
    return [pytest.param(fast, id=f"fast-{fast}"),
            pytest.param(slow, id=f"slow-{slow}", marks=pytest.mark.slow)]


def sizes(name: str, fast, slow):
    """``@sizes("games", 100, 1000)``: the test runs with ``games=100`` by default and with
    ``games=1000`` under ``-m slow``."""
    return pytest.mark.parametrize(name, fast_and_slow(fast, slow))
