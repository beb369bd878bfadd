"""Tests of ``cardagents.training``."""
