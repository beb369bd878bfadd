"""Dabang card strength and "suit" (side suit or trump) under a trump suit and a level (A1).

Precomputed once as arrays indexed ``[trump_suit, level_index, kind]`` (``level_index`` =
level - 3, levels 3..10), so a batch of states looks its rows up in one gather.

Strength, high to low (A1): BJ > SJ > level card of the trump suit > level cards of the other
suits (equal) > 2 of the trump suit > 2s of the other suits (equal) > the other trump-suit cards
A..3 > side cards A..3 (a side card only ever meets cards of its own suit). Values:

=====================================  ==================
card                                   ``STRENGTH``
=====================================  ==================
side card of face rank r (3..A)        1 + r  (1..12)
trump-suit card of face rank r         20 + r (20..31)
2 of a side suit / of the trump suit   40 / 41
level card of a side suit / trump suit 42 / 43
SJ / BJ                                44 / 45
=====================================  ==================

``SUIT_CLASS`` is 0..3 for a side card's suit and 4 (``TRUMP``) for every trump card: trump
counts as one suit when following.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, NUM_NATURAL, SMALL_JOKER

LEVELS = tuple(range(3, 11))
NUM_LEVELS = len(LEVELS)
TRUMP = 4
RANK_2 = 12


def level_rank(level: int) -> int:
    """Face index of the level card: level 3 -> 0 (the 3s), ..., level 10 -> 7 (the 10s)."""
    return level - 3


def _tables():
    strength = np.zeros((4, NUM_LEVELS, NUM_KINDS), dtype=np.int16)
    suit_class = np.zeros((4, NUM_LEVELS, NUM_KINDS), dtype=np.int16)
    for trump in range(4):
        for li, level in enumerate(LEVELS):
            lr = level_rank(level)
            for k in range(NUM_NATURAL):
                rank, suit = divmod(k, 4)
                if rank == lr:
                    value, cls = (43 if suit == trump else 42), TRUMP
                elif rank == RANK_2:
                    value, cls = (41 if suit == trump else 40), TRUMP
                elif suit == trump:
                    value, cls = 20 + rank, TRUMP
                else:
                    value, cls = 1 + rank, suit
                strength[trump, li, k] = value
                suit_class[trump, li, k] = cls
            strength[trump, li, SMALL_JOKER], strength[trump, li, BIG_JOKER] = 44, 45
            suit_class[trump, li, SMALL_JOKER] = suit_class[trump, li, BIG_JOKER] = TRUMP
    return strength, suit_class


STRENGTH, SUIT_CLASS = _tables()


def strength_row(trump: int, level: int) -> np.ndarray:
    return STRENGTH[trump, level - 3]


def suit_row(trump: int, level: int) -> np.ndarray:
    return SUIT_CLASS[trump, level - 3]
