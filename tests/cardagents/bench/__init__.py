"""Tests of ``cardagents.bench``."""
