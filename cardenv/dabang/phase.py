"""Dabang's phase vocabulary, shared by the engine (``game``, ``phases``) and the observation.

``Phase`` names what the player to act is deciding (``state.phase``); its values are the
strings the envs, agents and tests compare against. ``DECISIONS`` lists the decision phases in
the order of the observation's one-hot ``phase`` piece; ``OVER`` is not one of them (no one acts).
Steps without a choice (the deal itself, the kitty flip or draw, tribute, picking up the kitty)
have no phase of their own: ``DabangState._advance`` runs them between decisions.

Also here, for the phase modules in ``cardenv.dabang.phases``: ``enter``, which makes a phase
current; and for people, ``phase_label`` (what each phase is called), which the presentation
(``render``) and the typed moves (``hand_moves``) both read.
"""

from __future__ import annotations

import enum


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


# what people read for each phase (the presentation's ``phase_label``; cardenv.dabang.presentation
# and the typed moves of cardenv.dabang.hand_moves both name phases, so it lives below both)
PHASE_LABELS = {"declare": "亮主", "return": "giving back (喝血)", "bury": "burial",
                "koujoker": "扣王", "takeback": "taking back (扣王)", "play": "play",
                "over": "over"}


def phase_label(phase) -> str:
    """The name of decision phase ``phase`` (``PHASE_LABELS``; the id if it has none)."""
    return PHASE_LABELS.get(str(phase), str(phase))


def enter(state, phase: Phase, seat: int) -> None:
    """Make ``phase`` the current decision, for ``seat`` (its tensor pieces included)."""
    v = state.v
    v["phase"][:] = 0
    v["to_play"][:] = 0
    if phase is not Phase.OVER:
        v["phase"][_ONE_HOT[phase]] = 1
        v["to_play"][seat] = 1
    state.phase, state.current = phase, seat

