"""Tests of ``cardagents``, one folder per room of the package."""
