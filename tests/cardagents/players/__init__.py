"""Tests of ``cardagents.players``."""
