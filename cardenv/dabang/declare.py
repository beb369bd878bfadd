"""Dabang trump declarations (亮主, "抢亮", A2): which declarations a hand may make.

A declaration is ranked by ``rank_of``: the first hand's big-joker grab cannot be beaten;
otherwise 1..4 identical level cards rank 1..4, the four small jokers 5, the four big jokers 6.
A declaration overrides the standing one only if it ranks strictly higher [D-A4]; any player,
the standing declarer included (加固 / 反), may make one.
"""

from __future__ import annotations

from cardenv.core.cards import BIG_JOKER, SMALL_JOKER
from cardenv.dabang import catalogue as cat
from cardenv.dabang.strength import level_rank

GRAB_RANK = 99


def rank_of(action: int) -> int:
    """Rank of a declaration action (0 for no declaration / pass)."""
    if action == cat.GRAB:
        return GRAB_RANK
    if cat.DECLARE_LEVEL <= action < cat.DECLARE_SJ4:
        return (action - cat.DECLARE_LEVEL) % 4 + 1
    if cat.DECLARE_SJ4 <= action < cat.DECLARE_BJ4:
        return 5
    if cat.DECLARE_BJ4 <= action < cat.BURY:
        return 6
    return 0


def suit_of(action: int) -> int | None:
    """Suit named by a declaration (``None`` for the grab and for non-declarations)."""
    if cat.DECLARE_LEVEL <= action < cat.DECLARE_SJ4:
        return (action - cat.DECLARE_LEVEL) // 4
    if cat.DECLARE_SJ4 <= action < cat.BURY:
        return (action - cat.DECLARE_SJ4) % 4
    return None


def shown(action: int) -> tuple[int, int]:
    """The cards a declaration shows, as ``(column of observation.SHOWN, count)``: the level
    card of its suit (columns 0..3, ♦♣♥♠) n times, four small (4) or big (5) jokers, or the
    grab's one big joker."""
    if action == cat.GRAB:
        return 5, 1
    if cat.DECLARE_LEVEL <= action < cat.DECLARE_SJ4:
        return suit_of(action), rank_of(action)
    if cat.DECLARE_SJ4 <= action < cat.BURY:
        return (4 if action < cat.DECLARE_BJ4 else 5), 4
    raise ValueError(f"action {action} is not a declaration")


def legal(hand, first_hand: bool, level: int, standing: int) -> list[int]:
    """Declaration actions ``hand`` may make now (``standing``: the declaration to beat, or 0).

    First hand of a match: only the big-joker grab, while nobody has declared. Later hands:
    n identical level cards of a suit (n <= copies held), or the four small / big jokers naming
    any suit, each ranking above the standing declaration.
    """
    if first_hand:
        return [cat.GRAB] if standing == 0 and hand[BIG_JOKER] > 0 else []
    floor = rank_of(standing)
    if floor == GRAB_RANK:
        return []
    base = level_rank(level) * 4
    actions = [cat.declare_level(s, n) for s in range(4)
               for n in range(floor + 1, min(hand[base + s], 4) + 1)]
    if hand[SMALL_JOKER] == 4 and floor < 5:
        actions += [cat.DECLARE_SJ4 + s for s in range(4)]
    if hand[BIG_JOKER] == 4 and floor < 6:
        actions += [cat.DECLARE_BJ4 + s for s in range(4)]
    return actions
