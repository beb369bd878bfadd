"""Dabang's phase vocabulary, shared by the engine (``game``, ``phases``) and the observation.

``Phase`` names what the player to act is deciding (``state.phase``); its values are the
strings the envs, agents and tests compare against. ``DECISIONS`` lists the decision phases in
the order of the observation's one-hot ``phase`` piece; ``OVER`` is not one of them (no one acts).
Steps without a choice (the deal itself, the kitty flip or draw, tribute, picking up the kitty)
have no phase of their own: ``DabangState._advance`` runs them between decisions.

Also here, for the phase modules in ``cardenv.dabang.phases``: ``enter`` (make a phase current)
and ``PhaseData``, the base of their small state dataclasses (copy and plain-dict round trip,
each field checked on the way in).
"""

from __future__ import annotations

import enum
from dataclasses import fields
from typing import Callable, ClassVar

from cardenv.core.checks import check_bool, check_choice, check_int, check_int_list
from cardenv.core.errors import StateError


class Phase(str, enum.Enum):
    """What the player to act decides (a ``str``: ``Phase.PLAY == "play"``)."""

    # str(), format() and f-strings give the plain value on every Python >= 3.10 (what
    # enum.StrEnum does from 3.11 on)
    __str__ = str.__str__
    __format__ = str.__format__

    DECLARE = "declare"    # during or after the deal: declare trump, or pass [D-A1]
    RETURN = "return"      # the dealer gives a tribute card back (option tribute_return)
    BURY = "bury"          # the dealer buries a card into the kitty
    KOUJOKER = "koujoker"  # a non-dealer buries a joker into the kitty (扣王), or stops
    TAKEBACK = "takeback"  # a non-dealer chooses among equal smallest kitty cards to take back
    PLAY = "play"          # a lead, or one group of identical cards of a follow
    OVER = "over"          # the episode has ended


DECISIONS = (Phase.DECLARE, Phase.RETURN, Phase.BURY, Phase.KOUJOKER, Phase.TAKEBACK,
             Phase.PLAY)
_ONE_HOT = {phase: i for i, phase in enumerate(DECISIONS)}


def enter(state, phase: Phase, seat: int) -> None:
    """Make ``phase`` the current decision, for ``seat`` (its tensor pieces included)."""
    v = state.v
    v["phase"][:] = 0
    v["to_play"][:] = 0
    if phase is not Phase.OVER:
        v["phase"][_ONE_HOT[phase]] = 1
        v["to_play"][seat] = 1
    state.phase, state.current = phase, seat


class PhaseData:
    """Base of the phase dataclasses: ``copy`` and ``to_plain``/``from_plain`` for fields that
    are ``None``, bools, ints, strings or lists of ints (a subclass overrides the three for
    anything else). ``SPEC`` maps each field to its check (``integer``, ``flag``, ``int_list``,
    ``choice`` below), which ``from_plain`` applies."""

    __slots__ = ()
    SPEC: ClassVar[dict[str, Callable]] = {}

    def copy(self):
        """An independent copy."""
        return type(self)(**{f.name: _copied(getattr(self, f.name)) for f in fields(self)})

    def to_plain(self) -> dict:
        """The fields as a JSON-compatible dict."""
        return {f.name: _copied(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_plain(cls, data, name: str) -> "PhaseData":
        """Rebuild from ``to_plain`` output (saved as ``name``), each field checked by its
        ``SPEC``; ``StateError`` names the first bad field (``name.field``), a missing or an
        unknown one."""
        data = check_keys(cls, data, name)
        return cls(**{key: check(data[key], f"{name}.{key}") for key, check in cls.SPEC.items()})


def check_keys(cls, data, name: str) -> dict:
    """``data`` if a dict with exactly the fields of dataclass ``cls``, else ``StateError``."""
    if not isinstance(data, dict):
        raise StateError(f"{name} must be a dict of the {cls.__name__} fields, got {data!r}")
    names = [f.name for f in fields(cls)]
    missing = [key for key in names if key not in data]
    unknown = sorted((key for key in data if key not in names), key=repr)
    if missing or unknown:
        raise StateError(f"{name} lacks fields {missing} or has unknown ones {unknown}")
    return data


# --- field checks for SPEC: (value, name) -> the value (plain Python), or StateError -----------

def integer(low: int, high: int, *, optional: bool = False) -> Callable:
    """An int in ``low..high`` (or ``None`` if ``optional``)."""
    return lambda value, name: check_int(value, name, low, high, optional=optional)


def flag(value, name: str) -> bool:
    return check_bool(value, name)


def int_list(low: int, high: int, *, length: int | None = None,
             max_length: int | None = None) -> Callable:
    """A list of ints in ``low..high``, of ``length`` items, or at most ``max_length``."""
    def check(value, name):
        items = check_int_list(value, name, length, low, high)
        if max_length is not None and len(items) > max_length:
            raise StateError(f"{name} must hold at most {max_length} items, got {len(items)}")
        return items
    return check


def choice(*values) -> Callable:
    """One of ``values`` (strings or ``None``)."""
    return lambda value, name: check_choice(value, name, values)


def _copied(value):
    return list(value) if isinstance(value, list) else value
