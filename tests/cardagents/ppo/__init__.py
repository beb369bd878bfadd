"""Tests of ``cardagents.ppo``."""
