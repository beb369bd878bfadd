"""The Dabang kitty (底牌, A2-A4): hand-1 flips, 干锅, tribute, burial and 扣王 rules.

Pure functions of card lists / count vectors under a trump suit and level.
"""

from __future__ import annotations

from cardenv.core.cards import BIG_JOKER, KIND_POINTS, NUM_NATURAL, SMALL_JOKER
from cardenv.dabang.strength import TRUMP, level_rank, strength_row, suit_row

# [D-A3] no-trump order for the first hand's kitty flips: BJ > SJ > 3 > 2 > A > K > ... > 4.
_FLIP_ORDER = {BIG_JOKER: 100, SMALL_JOKER: 99}
for _k in range(NUM_NATURAL):
    _rank = _k // 4
    _FLIP_ORDER[_k] = 98 if _rank == 0 else 97 if _rank == 12 else _rank


def flip_winner(flipped: list[int]) -> int:
    """Index of the highest of the flipped kitty cards (the earliest flip among equals)."""
    best = 0
    for i, card in enumerate(flipped):
        if _FLIP_ORDER[card] > _FLIP_ORDER[flipped[best]]:
            best = i
    return best


def first_suited(cards: list[int], start: int = 0) -> int | None:
    """Index of the first natural card in ``cards`` from ``start`` on, wrapping; ``None`` if
    none."""
    n = len(cards)
    for i in range(n):
        if cards[(start + i) % n] < NUM_NATURAL:
            return (start + i) % n
    return None


def is_point(kind: int) -> bool:
    return bool(KIND_POINTS[kind])


def is_gangguo(kitty: list[int], trump: int, level: int) -> bool:
    """干锅: the shown kitty holds no card of the trump suit (level cards not counted), or only
    trump cards (A4)."""
    lr = level_rank(level)
    trump_suit_cards = [c for c in kitty if c < NUM_NATURAL and c % 4 == trump and c // 4 != lr]
    all_trump = all(suit_row(trump, level)[c] == TRUMP for c in kitty)
    return not trump_suit_cards or all_trump


def tribute_cards(hand, count: int, trump: int, level: int) -> list[int]:
    """The ``count`` strongest non-point cards of ``hand`` (A3); ties go by suit ♠ ♥ ♣ ♦ [DAB-5].

    Fewer if the hand holds fewer non-point cards."""
    strength = strength_row(trump, level)
    order = sorted((k for k in range(len(hand)) if hand[k] and not is_point(k)),
                   key=lambda k: (-int(strength[k]), -(k % 4) if k < NUM_NATURAL else 0))
    cards = []
    for k in order:
        take = min(hand[k], count - len(cards))
        cards += [k] * take
        if len(cards) == count:
            break
    return cards


def smallness(kind: int, trump: int, level: int) -> tuple[int, int]:
    """Sort key of "smallest" for 扣王's take-back: side cards before trump, then the face rank
    (3 < 4 < ... < A < 2); cards of one face rank in different suits tie, and the player chooses.

    This follows the seed (底牌 5: 先看是否是主牌，然后看点数，最后看花色) where the brief says
    "lower strength": the two differ for trump cards (an off-suit level card is smaller than a
    higher trump-suit card, and ties with the trump suit's own level card) [DB-7]."""
    return (int(suit_row(trump, level)[kind] == TRUMP), kind // 4)


def takeback_candidates(kitty: list[int], trump: int, level: int) -> list[int]:
    """Distinct kinds tied for smallest among the kitty's non-point, non-joker cards."""
    pool = [c for c in kitty if c < NUM_NATURAL and not is_point(c)]
    if not pool:
        return []
    low = min(smallness(c, trump, level) for c in pool)
    return sorted({c for c in pool if smallness(c, trump, level) == low})


def koujoker_allowed(buried: list[int]) -> bool:
    """扣王 is not allowed after a burial of only point cards, or only point cards and jokers."""
    return not all(is_point(c) or c >= NUM_NATURAL for c in buried)


def koujoker_cap(kitty: list[int]) -> int:
    """[D-A6] a player may bury at most as many jokers as the kitty holds non-point, non-joker
    cards."""
    return sum(1 for c in kitty if c < NUM_NATURAL and not is_point(c))
