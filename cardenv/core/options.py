"""Checking constructor options against a declared spec, with clear errors."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable

from cardenv.core.errors import ConfigError


@dataclass(frozen=True)
class Option:
    default: Any
    check: Callable[[Any], bool]
    expected: str  # what a valid value looks like, for the error message
    doc: str


def positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def boolean(value) -> bool:
    return isinstance(value, bool)


def one_of(*choices) -> Callable[[Any], bool]:
    return lambda value: value in choices


def resolve(spec: dict[str, Option], given: dict[str, Any], where: str) -> dict[str, Any]:
    """Defaults overlaid with ``given``; ``ConfigError`` for unknown names and bad values."""
    for name in given:
        if name not in spec:
            close = difflib.get_close_matches(name, spec, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{where}: unknown option {name!r}{hint}; known options: "
                              f"{', '.join(sorted(spec))}")
    resolved = {}
    for name, option in spec.items():
        value = given.get(name, option.default)
        if not option.check(value):
            raise ConfigError(f"{where}: option {name}={value!r} is invalid; expected "
                              f"{option.expected}")
        resolved[name] = value
    return resolved
