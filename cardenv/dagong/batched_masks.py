"""Dagong's legal masks over many states at once (what a batched engine calls), and the deal's
two sides (``sides``, the engine contract's).

``legal_masks(states)`` answers every state's legal mask in one ``legality.play_mask`` call and
hands each state its row (``use_legal``) so that ``apply`` does not compute it again.
"""

from __future__ import annotations

import numpy as np

from cardenv.dagong import catalogue as cat
from cardenv.dagong import legality
from cardenv.dagong.phase import Phase

_SOLO = [cat.SOLO_DECLINE, cat.SOLO_DECLARE]
_PLAY_PHASE, _SOLO_PHASE = Phase.PLAY, Phase.SOLO  # globals: read faster than Enum members


def legal_masks(states) -> np.ndarray:
    """``(B, N)`` bool: the legal actions of the player to act in each of ``states`` (a state
    that is over gets an all-False row)."""
    masks = np.zeros((len(states), cat.NUM_ACTIONS), dtype=bool)
    play = [i for i, s in enumerate(states) if s.phase == _PLAY_PHASE]
    if play:
        hands = np.stack([states[i].v["hand"][states[i].current] for i in play])
        standing = np.array([states[i].standing for i in play])
        called = np.array([states[i].called for i in play])
        masks[play] = legality.play_mask(hands, standing, called)
        for i in play:
            states[i].use_legal(masks[i])
    for i, s in enumerate(states):
        if s.phase == _SOLO_PHASE:
            masks[i, _SOLO] = True
    return masks


def sides(state) -> tuple[list[int], list[int]]:
    """The hand's two sides as dealt: the dealer and the holder of the called card's twin
    against the other two (a dealer holding both called cards: alone against three)."""
    side = sorted({state.dealer} | ({state.partner} if state.partner is not None else set()))
    return side, [s for s in range(4) if s not in side]
