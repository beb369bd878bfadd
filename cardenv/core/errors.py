"""Exceptions raised by the rules engines and environments.

Both derive from ``ValueError`` so that callers that only know the standard library can still
catch them, while callers that care can tell a bad option from an illegal move.
"""


class ConfigError(ValueError):
    """An unknown option, or an option with a value outside its documented range."""


class UnknownOptionError(ConfigError, TypeError):
    """An option the game does not have: a ``ConfigError``, and a ``TypeError`` as Python's own
    for an unexpected keyword argument, whose words its message carries, so that code which
    tries a keyword and drops it on that ``TypeError`` (TorchRL's ``GymEnv`` with
    ``frameskip``) works with the Gymnasium envs."""


class IllegalActionError(ValueError):
    """An action that is not legal in the current state. The state is left unchanged."""


class StateError(ValueError):
    """A malformed serialized state, or an operation that the current phase does not allow."""
