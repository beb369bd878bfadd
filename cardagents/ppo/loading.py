"""The agents a spec names that decide from observations (``policy_agent``: ``random``,
``heuristic`` or a PPO checkpoint's path), and a PPO checkpoint read for one game
(``checkpoint_agent``), with one-line errors (``ValueError``) for a checkpoint without torch
installed or of another game. Both places that turn a spec into an agent (``cardagents.specs``
for any player, the search agent for its rollout policy) read them here; a search agent's spec
is ``cardagents.specs``' (a rollout policy cannot itself search). No torch until a checkpoint
is read."""

from __future__ import annotations

import os


def policy_agent(spec, game: str, seed: int = 0):
    """The agent ``spec`` names if it decides from observations: ``random``, ``heuristic`` or
    the PPO checkpoint at a path that exists (``checkpoint_agent``); ``None`` for any other
    spec (the caller says what it takes)."""
    if spec == "random":
        from cardagents.players.random import RandomAgent
        return RandomAgent(game, seed)
    if spec == "heuristic":
        from cardagents.players.heuristics import heuristic_for
        return heuristic_for(game, seed)
    if isinstance(spec, str) and os.path.exists(spec):
        return checkpoint_agent(spec, game)
    return None


def checkpoint_agent(path: str, game: str):
    """The ``PPOAgent`` saved at ``path``, which must play ``game``."""
    try:
        from cardagents.ppo.agent import PPOAgent
    except ImportError:
        raise ValueError(f"{path}: reading a PPO checkpoint needs torch: "
                         f"pip install -e \".[train]\"") from None
    agent = PPOAgent.load(path)
    if agent.game != game:
        raise ValueError(f"checkpoint {path} plays {agent.game}, not {game}")
    return agent
