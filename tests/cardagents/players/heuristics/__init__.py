"""Tests of ``cardagents.players.heuristics``."""
