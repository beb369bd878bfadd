"""``python -m cardagents bench``: ``GAME`` times the engine and the players
(``cardagents.bench.players``); ``train``, ``ray``, ``collection`` or ``frozen`` times training
runs (``cardagents.bench.training``)."""

from __future__ import annotations

import sys

from cardenv import cli

TRAINING = ("train", "ray", "collection", "frozen")


def main(argv=None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in TRAINING:
        from cardagents.bench import training
        training.main(argv)
    else:
        from cardagents.bench import players
        players.main(argv)


if __name__ == "__main__":
    cli.run(main)
