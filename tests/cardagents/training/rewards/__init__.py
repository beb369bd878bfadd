"""Tests of ``cardagents.training.rewards``."""
