"""Dabang's legal masks over many states at once (what a batched engine calls), and the deal's
two sides (``sides``, the engine contract's).

``legal_masks(states)`` answers the play steps of every state in one call of the batched follow
rule (``follow.play_mask_groups``; the other phases' few legal actions come from each state) and
hands each play state its row (``use_legal``) so that ``apply`` does not compute it again.
"""

from __future__ import annotations

import numpy as np

from cardenv.dabang import catalogue as cat
from cardenv.dabang import follow
from cardenv.dabang.phase import Phase


def legal_masks(states) -> np.ndarray:
    """``(B, N)`` bool: the legal actions of the player to act in each of ``states`` (a state
    that is over gets an all-False row)."""
    masks = np.zeros((len(states), cat.NUM_ACTIONS), dtype=bool)
    play = [i for i, s in enumerate(states) if s.phase == Phase.PLAY]
    if play:
        chosen = [states[i] for i in play]
        tricks = [s.trick for s in chosen]
        kinds, counts = zip(*(follow.groups(t.partial) for t in tricks))
        masks[play, cat.PLAY:cat.PLAY + 216] = follow.play_mask_groups(
            np.stack([s.v["hand"][s.current] for s in chosen]), np.array(kinds),
            np.array(counts), np.array([t.led_kind for t in tricks]),
            np.array([t.k for t in tricks]), np.array([s.trump for s in chosen]),
            np.array([s.level for s in chosen]),
            np.array([s.game.options["follow"] == "dead" for s in chosen]),
            np.array([s.cards_left[s.current] for s in chosen]))
        for i, s in zip(play, chosen):
            s.use_legal(masks[i])
    for i, s in enumerate(states):
        if s.phase != Phase.PLAY and not s.is_over:
            masks[i, s.legal_actions()] = True
    return masks


def sides(state) -> tuple[list[int], list[int]]:
    """Dabang's fixed teams: seats 0 + 2 against 1 + 3."""
    return [0, 2], [1, 3]
