"""Tests of ``cardenv.dabang``, the Dabang rules engine."""
