"""Tests of ``cardenv``, one folder per subpackage."""
