"""Exceptions raised by the rules engines and environments.

Both derive from ``ValueError`` so that callers that only know the standard library can still
catch them, while callers that care can tell a bad option from an illegal move.
"""


class ConfigError(ValueError):
    """An unknown option, or an option with a value outside its documented range."""


class IllegalActionError(ValueError):
    """An action that is not legal in the current state. The state is left unchanged."""


class StateError(ValueError):
    """A malformed serialized state, or an operation that the current phase does not allow."""
