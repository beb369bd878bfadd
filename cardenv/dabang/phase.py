"""Dabang's phase vocabulary, shared by the engine (``game``, ``phases``) and the observation.

``Phase`` names what the player to act is deciding (``state.phase``); its values are the
strings the envs, agents and tests compare against. ``DECISIONS`` lists the decision phases in
the order of the observation's one-hot ``phase`` piece; ``OVER`` is not one of them (no one acts).
Steps without a choice (the deal itself, the kitty flip or draw, tribute, picking up the kitty)
have no phase of their own: ``DabangState._advance`` runs them between decisions.

Also here, for the phase modules in ``cardenv.dabang.phases``: ``enter`` (make a phase current)
and ``PhaseData``, the base of their small state dataclasses (copy and plain-dict round trip).
"""

from __future__ import annotations

import enum
from dataclasses import fields


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
    anything else)."""

    __slots__ = ()

    def copy(self):
        """An independent copy."""
        return type(self)(**{f.name: _copied(getattr(self, f.name)) for f in fields(self)})

    def to_plain(self) -> dict:
        """The fields as a JSON-compatible dict."""
        return {f.name: _copied(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_plain(cls, data) -> "PhaseData":
        """Rebuild from ``to_plain`` output; ``ValueError`` names missing or unknown fields."""
        return cls(**{name: _copied(value) for name, value in check_keys(cls, data).items()})


def check_keys(cls, data) -> dict:
    """``data`` if a dict with exactly the fields of dataclass ``cls``, else ``ValueError``."""
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__} must be a dict, got {type(data).__name__}")
    names = {f.name for f in fields(cls)}
    missing, unknown = sorted(names - data.keys()), sorted(data.keys() - names)
    if missing or unknown:
        raise ValueError(f"{cls.__name__} lacks fields {missing} or has unknown ones {unknown}")
    return data


def _copied(value):
    return list(value) if isinstance(value, list) else value
