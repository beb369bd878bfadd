"""Tests of ``cardagents.search``."""
