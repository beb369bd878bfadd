"""Dagong's phase vocabulary, shared by the engine (``game``, ``vector``) and its readers.

``Phase`` names what the player to act is deciding (``state.phase``); its values are the
strings the envs, agents and tests compare against (``Phase.PLAY == "play"``), as Dabang's
``cardenv.dabang.phase.Phase``. A hand runs ``SOLO`` (each player in turn from the dealer
declines or declares 硬牌, skipped when 硬牌 is not allowed or the dealer holds both called
cards) then ``PLAY``; after the last hand of the episode the state is ``OVER``.
"""

from __future__ import annotations

import enum


class Phase(str, enum.Enum):
    """What the player to act decides (a ``str``: ``Phase.PLAY == "play"``)."""

    # str(), format() and f-strings give the plain value on every Python >= 3.10 (what
    # enum.StrEnum does from 3.11 on)
    __str__ = str.__str__
    __format__ = str.__format__

    SOLO = "solo"  # decline or declare 硬牌 [DG-6]
    PLAY = "play"  # a play, or a pass when following
    OVER = "over"  # the episode has ended
