"""Tests of ``cardenv.dagong``, the Dagong rules engine."""
