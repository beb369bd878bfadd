"""Agents that play cardenv games: random, heuristic and PPO, behind one interface
(``agents.base.Agent``)."""

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent"]
