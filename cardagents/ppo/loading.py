"""Agents read from a file: a PPO checkpoint named by its path, for one game, with one-line
errors (``ValueError``) for a checkpoint without torch installed or of another game. Every place
that turns a player spec into an agent (``cardagents.specs.make_agent``, the search agent's
rollout policy) reads checkpoints through ``checkpoint_agent``."""

from __future__ import annotations


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
