"""The test suite. ``tests/cardenv/`` and ``tests/cardagents/`` mirror the packages (a module's
tests in ``tests/<package path>/test_<module>.py``); the tests at this level check the project as
a whole (lint, layering, docs, the engine contract, golden playthroughs, the toy game, train.py's
command line) beside the helpers every test shares (``sizes``, ``toy_game``, ``state_mutations``).
``ROOT``: the checkout the tests run from."""

import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
