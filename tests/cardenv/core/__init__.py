"""Tests of ``cardenv.core``."""
