"""The one place a player spec becomes an agent: ``make_agent(spec, game, seed)``.

A spec is ``random``, ``heuristic``, ``pimc`` / ``pimc:key=value,...`` (the search agent,
``cardagents.search.pimc``) or the path of a PPO checkpoint. Every command line that names
players (``python -m cardagents evaluate``, ``league``, ``compare``) and the ``cardenv.players``
entry point (terminal play, the web page, the single-agent env) read them here.
"""

from __future__ import annotations

import difflib

from cardagents.ppo.loading import policy_agent

AGENT_NAMES = ("random", "heuristic", "pimc")  # besides checkpoint paths (and pimc:...)


def make_agent(spec: str, game: str, seed: int = 0):
    """``random``, ``heuristic``, ``pimc`` / ``pimc:key=value,...`` (``cardagents.search.pimc``) or
    a PPO checkpoint path."""
    if isinstance(spec, str) and (spec == "pimc" or spec.startswith("pimc:")):
        from cardagents.search.parse import make_search  # its text made into the search's parts
        return make_search(spec, game, seed)
    agent = policy_agent(spec, game, seed)
    if agent is None:
        close = difflib.get_close_matches(spec, AGENT_NAMES, n=1) if isinstance(spec, str) \
            else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown agent {spec!r}{hint}: an agent is one of "
                         f"{', '.join(AGENT_NAMES)} (or pimc:key=value,...) or the path of a "
                         f"PPO checkpoint")
    return agent
