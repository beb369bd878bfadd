"""Agents that play cardenv games, and what trains and measures them. One room per concern;
imports run one way, down this list (tests/test_layering.py holds them to it):

- ``players``: the ``Agent`` interface, the random player, observation views, games played in
  lockstep, and each game's heuristic (``players/heuristics``);
- ``ppo``: the policy network, its losses, checkpoints and ``PPOAgent``, the learner's compute,
  frozen snapshots;
- ``search``: PIMC over sampled worlds, its budget, its spec's parsing, rollouts and leaf values;
- ``specs``: a player spec (``random``, ``heuristic``, ``pimc:...``, a checkpoint path) to an
  agent;
- ``evaluation``: duplicate deal pairs, evaluations, leagues and ratings, comparisons, reports;
- ``training``: the run ``train.py`` starts (``Trainer``) and the parts it joins
  (config, self-play, imitation, distillation, rewards, checkpoints, the run's log);
- ``bench``: speed;
- ``cluster``: where Ray runs (with ``*/remote.py``, the only modules that import Ray).

Command lines: ``python -m cardagents COMMAND`` (``evaluate``, ``league``, ``compare``,
``report``, ``curves``, ``bench``, ``leaf``, ``match_value``).

    from cardagents import PPOAgent, DagongHeuristic, DabangHeuristic, PIMCAgent, RandomAgent
    agent = PPOAgent.load("checkpoints/dagong_ppo.pt")

``PPOAgent`` needs torch (the ``[train]`` extra); the others only numpy. The heuristics,
``PPOAgent`` and ``PIMCAgent`` are imported on first use.
"""

from cardagents.players.base import Agent
from cardagents.players.random import RandomAgent

__all__ = ["Agent", "RandomAgent", "DagongHeuristic", "DabangHeuristic", "PPOAgent",
           "CheckpointError", "PIMCAgent", "heuristic_for"]

_LAZY = {"DagongHeuristic": "cardagents.players.heuristics.dagong",
         "DabangHeuristic": "cardagents.players.heuristics.dabang.player",
         "PPOAgent": "cardagents.ppo.agent", "CheckpointError": "cardagents.ppo.agent",
         "PIMCAgent": "cardagents.search.pimc",
         "heuristic_for": "cardagents.players.heuristics"}


def __getattr__(name: str):
    if name in _LAZY:  # torch only when PPOAgent is asked for
        import importlib
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'cardagents' has no attribute {name!r}")
