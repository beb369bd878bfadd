"""Small pieces the sampler's modules share: the kitty's size, the largest world seed, log
factorials (deal counts), the special kinds a later hand's declarations count, and count vectors
turned back into lists of cards."""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import BIG_JOKER, SMALL_JOKER
from cardenv.dabang.phases.deal import DEALT
from cardenv.dabang.strength import level_rank

KITTY = 8
MAX_SEED = 2 ** 63 - 1  # a world's seed: ``rng.integers(MAX_SEED)``

# log(m!) for m = 0 .. 60 (a seat's deal and the kitty at most)
LOG_FACT = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, DEALT + KITTY + 1)))])


def special_kinds(level: int) -> list[int]:
    """The cards a later hand's declarations count: the level card of each suit ♦♣♥♠, then
    the small and the big joker (the columns of ``observation.SHOWN``)."""
    base = level_rank(level) * 4
    return [base, base + 1, base + 2, base + 3, SMALL_JOKER, BIG_JOKER]


def flat(counts) -> list[int]:
    """The cards of a count vector, kind by kind (``[0, 2, 1]`` -> ``[1, 1, 2]``)."""
    return np.repeat(np.arange(len(counts)), np.asarray(counts)).tolist()
