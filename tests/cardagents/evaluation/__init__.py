"""Tests of ``cardagents.evaluation``."""
