"""Agents that play cardenv games: random, heuristic and PPO, behind one interface
(``agents.base.Agent``).

    from agents import PPOAgent, DagongHeuristic, DabangHeuristic, RandomAgent
    agent = PPOAgent.load("checkpoints/dagong_ppo.pt")

``PPOAgent`` needs torch (the ``[train]`` extra); the others only numpy. The heuristics and
``PPOAgent`` are imported on first use.
"""

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent", "DagongHeuristic", "DabangHeuristic", "PPOAgent",
           "CheckpointError", "heuristic_for"]

_LAZY = {"DagongHeuristic": "agents.dagong_heuristic", "DabangHeuristic":
         "agents.dabang_heuristic", "PPOAgent": "agents.ppo", "CheckpointError": "agents.ppo",
         "heuristic_for": "agents.heuristics"}


def __getattr__(name: str):
    if name in _LAZY:  # torch only when PPOAgent is asked for
        import importlib
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
