"""Checking constructor options against a declared spec, with clear errors.

A game declares its options as ``Option(default, check, expected, doc)``; ``resolve`` overlays
the given values on the defaults and refuses unknown names (suggesting the closest) and values
that fail their check. The checks here are the shared vocabulary: integers never accept bools,
numbers must be finite, counts have an upper bound, numpy scalars count as the Python values
they stand for (``np.int64`` as an int, ``np.bool_`` as a bool), and a value that is not of the
expected type (a numpy array where a pair is expected, say) fails its check instead of raising
numpy's own error. Integer options
come back as Python ints, so that a game's saved options stay plain JSON.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from cardenv.core.checks import is_int, is_number
from cardenv.core.errors import ConfigError, UnknownOptionError


@dataclass(frozen=True)
class Option:
    default: Any
    check: Callable[[Any], bool]
    expected: str  # what a valid value looks like, for the error message
    doc: str


def non_negative_number(value) -> bool:
    """A finite int or float >= 0 (``inf`` and ``nan`` are refused)."""
    return is_number(value) and value >= 0


def _described(check: Callable[[Any], bool], **facts) -> Callable[[Any], bool]:
    """``check`` carrying what it accepts (``ints``, ``choices``, ``boolean``, ``parts``), for
    ``describe`` (a form built from a spec)."""
    check.accepts = facts
    return check


def int_in(low: int, high: int) -> Callable[[Any], bool]:
    """An int in ``low..high`` (counts have an upper bound: ``hands=10**30`` is refused)."""
    return _described(lambda value: is_int(value) and low <= value <= high, ints=[low, high])


def boolean(value) -> bool:
    """``True`` or ``False``, numpy's ``np.bool_`` included (and never an int: numpy scalars
    are read as the Python values they stand for, bools are never ints)."""
    return isinstance(value, (bool, np.bool_))


def optional_seat(value) -> bool:
    """``None`` or a seat 0..3."""
    return value is None or (is_int(value) and 0 <= value < 4)


optional_seat.accepts = {"ints": [0, 3], "choices": [None]}
boolean.accepts = {"boolean": True}


def int_pair(low: int, high: int) -> Callable[[Any], bool]:
    """Two ints in ``low..high``, as a tuple or list."""
    return _described(lambda value: (isinstance(value, (tuple, list)) and len(value) == 2
                                     and all(is_int(x) and low <= x <= high for x in value)),
                      pair=[low, high])


def one_of(*choices) -> Callable[[Any], bool]:
    """One of the given values (strings or None); any other type fails without comparing."""
    return _described(lambda value: isinstance(value, (str, type(None))) and value in choices,
                      choices=list(choices))


def either(*checks: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """Passes if any of ``checks`` does."""
    facts: dict = {}
    for check in checks:
        for key, value in getattr(check, "accepts", {}).items():
            facts[key] = facts.get(key, []) + value if key == "choices" else value
    return _described(lambda value: any(check(value) for check in checks), **facts)


def _plain(value):
    """numpy scalars and integers as Python values; tuples and lists element-wise."""
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(x) for x in value)
    if is_int(value):
        return int(value)
    return value.item() if isinstance(value, np.generic) else value


def describe(spec: dict[str, Option]) -> list[dict]:
    """Each option of ``spec`` as JSON-ready data, for a form built from it (the web page's
    setup): ``name``, ``default``, ``expected``, ``doc``, and what its check accepts where it
    says: ``boolean``, ``ints`` (``[low, high]``), ``choices`` (strings or ``None``), ``pair``
    (two ints in ``[low, high]``). A check that says nothing accepts what ``expected`` says."""
    out = []
    for name, option in spec.items():
        default = list(option.default) if isinstance(option.default, tuple) else option.default
        out.append({"name": name, "default": _plain(default), "expected": option.expected,
                    "doc": option.doc, **getattr(option.check, "accepts", {})})
    return out


def resolve(spec: dict[str, Option], given: dict[str, Any], where: str) -> dict[str, Any]:
    """Defaults overlaid with ``given``; ``ConfigError`` for unknown names and bad values."""
    for name in given:
        if name not in spec:
            close = difflib.get_close_matches(name, spec, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UnknownOptionError(f"{where}: unknown option {name!r}{hint}; known options: "
                                     f"{', '.join(sorted(spec))} (an unexpected keyword "
                                     f"argument {name!r})")
    resolved = {}
    for name, option in spec.items():
        value = given.get(name, option.default)
        if not option.check(value):
            raise ConfigError(f"{where}: option {name}={value!r} is invalid; expected "
                              f"{option.expected}")
        resolved[name] = _plain(value)
    return resolved


def parse_value(raw: str):
    """A command-line option value: int, float, bool (``true``/``false``), ``None``, a list of
    ints written with commas (``5,7``: Dabang's ``levels``, team 0 then team 1) or string."""
    parts = raw.strip("[]").split(",")
    if len(parts) > 1 and all(p.strip().lstrip("-").isdigit() for p in parts):
        return [int(p) for p in parts]
    for cast in (int, float):
        try:
            return cast(raw)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(raw.lower(), raw)


def parse_assignments(items) -> dict:
    """``KEY=VALUE`` strings (the ``--set`` options of the command lines) as a dict of parsed
    values; ``ValueError`` naming an item without ``=`` or a key."""
    options = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--set {item!r}: expected OPTION=VALUE")
        options[key] = parse_value(raw)
    return options
