"""Tests of ``cardagents.players.heuristics.dabang``."""
