"""The package's command lines: ``python -m cardagents COMMAND ...``.

Each command is one module's own command line (``python -m cardagents evaluate --help`` is
``cardagents.evaluation.evaluate``'s help), run as if that module were ``__main__``.
"""

from __future__ import annotations

import runpy
import sys

COMMANDS = {  # command -> (module, what it does)
    "evaluate": ("cardagents.evaluation.evaluate", "pit two agents against each other in "
                 "duplicate deal pairs"),
    "exploit": ("cardagents.training.exploit", "approximate exploitability: train a best "
                "response to an agent and report its win rate against it"),
    "league": ("cardagents.evaluation.league", "a round-robin league of agents with ratings"),
    "compare": ("cardagents.evaluation.compare", "where agent A wins or loses against B: "
                "agreement by phase, paired points by kind of hand"),
    "report": ("cardagents.evaluation.report", "a markdown table of evaluation JSON files"),
    "curves": ("cardagents.training.curves", "learning curves of training runs"),
    "bench": ("cardagents.bench", "speed: the batched engine with each kind of player (bench "
              "GAME), training runs (bench train|ray|collection|frozen)"),
    "leaf": ("cardagents.search.leaf", "fit or check the depth-limited search's leaf value"),
    "match_value": ("cardagents.training.rewards.match_value", "fit or show the Dabang match "
                    "value table"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()]
    return ("usage: python -m cardagents COMMAND [ARGS ...]\n\ncommands:\n" + "\n".join(lines)
            + "\n\npython -m cardagents COMMAND --help says more about each.")


def main(argv=None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return
    command = argv[0]
    if command not in COMMANDS:
        print(f"python -m cardagents: unknown command {command!r}\n\n{usage()}", file=sys.stderr)
        sys.exit(2)
    sys.argv = [f"python -m cardagents {command}", *argv[1:]]
    runpy.run_module(COMMANDS[command][0], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
