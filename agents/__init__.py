"""Agents that play cardenv environments. For now: ``RandomAgent`` (uniform over the mask)."""

from agents.random_agent import RandomAgent

__all__ = ["RandomAgent"]
