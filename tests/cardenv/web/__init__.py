"""Tests of ``cardenv.web``, the web page."""
