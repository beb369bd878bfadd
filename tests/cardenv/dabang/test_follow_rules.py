"""Table-driven rule tests for Dabang follows and tricks; each row cites its clause of the rules
brief (/work/shared/RULES-BRIEF.md, part A) or of the seed text (出牌规则, 死棒打法).

A follow row is (clause, hand, led play, partial selection, mode, step, allowed?) under trump ♠
and level 6 unless the row says otherwise; "led" is ``k x card`` (``None``: the player leads).
Every row is checked against ``follow.play_mask`` and against the slow reference
(``reference_follow.step_mask``), so a row also pins the reference to the brief's words.

A trick row is (clause, trump, level, plays in play order, expected winner position); a play
marked ``(v)`` is from a player void in the led suit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

from cardenv.core.cards import card_str, counts_of, parse_cards
from cardenv.dabang import follow

try:  # tests/dabang as a package or as a plain rootdir-inserted folder
    from . import reference_follow as ref
except ImportError:  # pragma: no cover
    import reference_follow as ref

SPADES, HEARTS, CLUBS, DIAMONDS = 3, 2, 1, 0
DEAD, LIVE = "dead", "live"


class Row(NamedTuple):
    clause: str
    hand: str
    led: str | None  # "2 x ♥K"; None = leading
    partial: str  # cards chosen so far ("" = none)
    mode: str
    step: str  # "♥9x2" = play 2 cards of ♥9 in this step
    allowed: bool
    trump: int = SPADES
    level: int = 6


def _step(text):
    card, c = text.rsplit("x", 1)
    (kind,) = parse_cards(card)
    return kind, int(c)


def _led(text):
    if text is None:
        return -1, 1
    n, card = text.split(" x ")
    (kind,) = parse_cards(card)
    return kind, int(n)


EXAMPLE = "A5 死棒 [D-A7], the brief's example"
BANG = "A5 死棒 [D-A7]; seed 死棒打法 1 打棒必须出棒，没有时可以给两个单张"
NO_BREAK = "A5 死棒: never forced to break a group; seed 没棒有三联、四联时可以不出"
TRIPLE = "A5 死棒 [D-A7] k=3; seed 死棒打法 2 打三联必须出三联, 棒+单张, 3张单牌"
QUAD = ("A5 死棒 [D-A7] k=4 ([3,1] above [2,2]); seed 死棒打法 2 打四联必须出四联, 3联+单张, "
        "两棒, ...")
LIVE_OPT = "A5 follow = live: the suit duty only"
SUIT = "A5 follow suit; seed 出牌规则 2 有此花色必须出此花色"
SHORT = "A5 follow suit with fewer than k: all of them plus any other cards"
VOID = "A5 void in the led suit: any cards; seed 出牌规则 2 没有此花色可以用主牌杀掉或垫其他花色"
TRUMP_SUIT = "A1 trump = jokers, every 2, every level card, the trump suit; A5 trump is one suit"
FEW = "A5 a player holding fewer than k cards in all plays all of them"
STEPS = "catalogue: a follow is built one group of identical cards (one kind) per step"
LEAD = "A5 the leader plays k = 1..4 identical cards"

EX_HAND = "♥9 ♥9 ♥9 ♥7 ♣4 ♦8 ♠A"

FOLLOW_ROWS = [
    # --- the brief's example: a 棒 is led; in that suit only a 滚子 of 9 and one 7: duty [1,1] -
    Row(EXAMPLE, EX_HAND, "2 x ♥K", "", DEAD, "♥9x1", True),
    Row(EXAMPLE, EX_HAND, "2 x ♥K", "", DEAD, "♥7x1", True),
    Row(EXAMPLE, EX_HAND, "2 x ♥K", "", DEAD, "♥9x2", True),  # 9+9 from the 滚子: a [2]
    Row(EXAMPLE, EX_HAND, "2 x ♥K", "♥9", DEAD, "♥7x1", True),  # 9+7
    Row(EXAMPLE, EX_HAND, "2 x ♥K", "♥7", DEAD, "♥9x1", True),  # 7+9
    Row(EXAMPLE, EX_HAND, "2 x ♥K", "", DEAD, "♥9x3", False),  # more than k
    Row(EXAMPLE, EX_HAND, "2 x ♥K", "", DEAD, "♣4x1", False),  # off suit
    Row(EXAMPLE, EX_HAND, "2 x ♥K", "", DEAD, "♠Ax1", False),  # trump, not the led suit
    Row(EXAMPLE, EX_HAND, "2 x ♥K", "♥9 ♥9", DEAD, "♥7x1", False),  # the follow is complete
    Row(EXAMPLE, EX_HAND, "2 x ♥K", "♥9", DEAD, "♥9x1", False),  # a kind is chosen in one step
    # --- k = 2: a kind held exactly twice must be played as the 棒 ----------------------------
    Row(BANG, "♥9 ♥9 ♥7 ♥8 ♣4", "2 x ♥K", "", DEAD, "♥9x2", True),
    Row(BANG, "♥9 ♥9 ♥7 ♥8 ♣4", "2 x ♥K", "", DEAD, "♥9x1", False),
    Row(BANG, "♥9 ♥9 ♥7 ♥8 ♣4", "2 x ♥K", "", DEAD, "♥7x1", False),
    Row(BANG, "♥9 ♥9 ♥7 ♥8 ♣4", "2 x ♥K", "", DEAD, "♣4x1", False),
    Row(BANG, "♥9 ♥9 ♥7 ♥7 ♥8", "2 x ♥K", "", DEAD, "♥7x2", True),  # either 棒
    Row(BANG, "♥9 ♥7 ♥8 ♣4 ♣4", "2 x ♥K", "", DEAD, "♥9x1", True),  # no 棒: two singles
    Row(BANG, "♥9 ♥7 ♥8 ♣4 ♣4", "2 x ♥K", "♥9", DEAD, "♥8x1", True),
    Row(BANG, "♥9 ♥7 ♥8 ♣4 ♣4", "2 x ♥K", "", DEAD, "♣4x2", False),  # a 棒, but off suit
    # --- never forced to break a 滚子 / 四联 ----------------------------------------------------
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥Q ♥9", "2 x ♥K", "", DEAD, "♥9x1", True),
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥Q ♥9", "2 x ♥K", "♥9", DEAD, "♥Qx1", True),
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥Q ♥9", "2 x ♥K", "", DEAD, "♥Qx2", True),  # may break it
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥8 ♥8 ♥9", "2 x ♥K", "", DEAD, "♥9x1", False),  # the 8s are a 棒
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥8 ♥8 ♥9", "2 x ♥K", "", DEAD, "♥Qx2", True),  # a better-or-equal
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥8 ♥8 ♥9", "2 x ♥K", "", DEAD, "♥Qx1", False),
    # only a 滚子 in the suit: no duty shape can be built without breaking it; the 2 must come
    # from it (a kind is used once per follow), so only 9+9
    Row(NO_BREAK, "♥9 ♥9 ♥9 ♣4", "2 x ♥K", "", DEAD, "♥9x2", True),
    Row(NO_BREAK, "♥9 ♥9 ♥9 ♣4", "2 x ♥K", "", DEAD, "♥9x1", False),
    Row(NO_BREAK, "♥9 ♥9 ♥9 ♣4", "2 x ♥K", "", DEAD, "♣4x1", False),
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥8", "3 x ♥K", "", DEAD, "♥9x2", True),  # duty [2,1]
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥8", "3 x ♥K", "♥9 ♥9", DEAD, "♥8x1", True),
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥8", "3 x ♥K", "", DEAD, "♥Qx3", True),  # [3]: better
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥8", "3 x ♥K", "♥8", DEAD, "♥Qx2", True),  # [2,1]: equal
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥8", "3 x ♥K", "♥8", DEAD, "♥Qx1", False),  # [1,1,1]
    Row(NO_BREAK, "♥Q ♥Q ♥Q ♥Q ♥9 ♥8 ♥7", "3 x ♥K", "♥9 ♥8", DEAD, "♥7x1", True),  # [1,1,1]
    # a kind is chosen in one step: after a single ♥Q, Q+Q+7 is out of reach, and Q+7+9 is
    # [1,1,1] < [2,1]; so ♥7 is no longer allowed (only ♥9x2 is)
    Row(STEPS, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥7", "3 x ♥K", "♥Q", DEAD, "♥7x1", False),
    Row(STEPS, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥7", "3 x ♥K", "♥Q", DEAD, "♥9x2", True),
    Row(STEPS, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥7", "3 x ♥K", "", DEAD, "♥7x1", True),  # 7 + QQ
    Row(NO_BREAK, "♥9 ♥9 ♥9 ♥8 ♥8 ♥8", "4 x ♥K", "", DEAD, "♥8x1", True),  # duty [3,1]
    Row(NO_BREAK, "♥9 ♥9 ♥9 ♥8 ♥8 ♥8", "4 x ♥K", "♥9 ♥9 ♥9", DEAD, "♥8x1", True),
    Row(NO_BREAK, "♥9 ♥9 ♥9 ♥8 ♥8 ♥8", "4 x ♥K", "", DEAD, "♥9x2", False),  # 99+88 = [2,2]
    # --- k = 3 --------------------------------------------------------------------------------
    Row(TRIPLE, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♣4", "3 x ♥K", "", DEAD, "♥9x3", True),  # duty [3]
    Row(TRIPLE, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♣4", "3 x ♥K", "", DEAD, "♥7x2", False),
    Row(TRIPLE, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♣4", "3 x ♥K", "", DEAD, "♥9x2", False),
    Row(TRIPLE, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♣4", "3 x ♥K", "", DEAD, "♥8x1", False),
    Row(TRIPLE, "♥9 ♥9 ♥7 ♥8 ♥Q", "3 x ♥K", "", DEAD, "♥9x2", True),  # duty [2,1]
    Row(TRIPLE, "♥9 ♥9 ♥7 ♥8 ♥Q", "3 x ♥K", "", DEAD, "♥7x1", True),
    Row(TRIPLE, "♥9 ♥9 ♥7 ♥8 ♥Q", "3 x ♥K", "♥7", DEAD, "♥8x1", False),  # [1,1,1] < [2,1]
    Row(TRIPLE, "♥9 ♥9 ♥7 ♥8 ♥Q", "3 x ♥K", "♥7", DEAD, "♥9x2", True),
    Row(TRIPLE, "♥9 ♥9 ♥7 ♥8 ♥Q", "3 x ♥K", "", DEAD, "♥9x1", False),
    Row(TRIPLE, "♥9 ♥7 ♥8 ♥Q ♣4 ♣4 ♣4", "3 x ♥K", "♥9", DEAD, "♥8x1", True),  # duty [1,1,1]
    Row(TRIPLE, "♥9 ♥7 ♥8 ♥Q ♣4 ♣4 ♣4", "3 x ♥K", "", DEAD, "♣4x3", False),
    Row(TRIPLE, "♥9 ♥9 ♥7 ♥7", "3 x ♥K", "", DEAD, "♥9x2", True),  # [2,1] by breaking a 棒
    Row(TRIPLE, "♥9 ♥9 ♥7 ♥7", "3 x ♥K", "♥9 ♥9", DEAD, "♥7x1", True),
    Row(TRIPLE, "♥9 ♥9 ♥7 ♥7", "3 x ♥K", "", DEAD, "♥9x1", True),
    # --- k = 4 --------------------------------------------------------------------------------
    Row(QUAD, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥9 ♥7 ♥7", "4 x ♥K", "", DEAD, "♥Qx4", True),  # duty [4]
    Row(QUAD, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥9 ♥7 ♥7", "4 x ♥K", "", DEAD, "♥9x3", False),
    Row(QUAD, "♥Q ♥Q ♥Q ♥Q ♥9 ♥9 ♥9 ♥7 ♥7", "4 x ♥K", "", DEAD, "♥Qx3", False),
    Row(QUAD, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♥8", "4 x ♥K", "", DEAD, "♥9x3", True),  # duty [3,1]
    Row(QUAD, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♥8", "4 x ♥K", "", DEAD, "♥7x1", True),
    Row(QUAD, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♥8", "4 x ♥K", "♥9 ♥9 ♥9", DEAD, "♥8x1", True),
    Row(QUAD, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♥8", "4 x ♥K", "", DEAD, "♥7x2", False),  # [2,2] < [3,1]
    Row(QUAD, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♥8", "4 x ♥K", "♥7", DEAD, "♥8x1", False),
    Row(QUAD, "♥9 ♥9 ♥7 ♥7 ♥8 ♥Q", "4 x ♥K", "", DEAD, "♥9x2", True),  # duty [2,2]
    Row(QUAD, "♥9 ♥9 ♥7 ♥7 ♥8 ♥Q", "4 x ♥K", "♥9 ♥9", DEAD, "♥7x2", True),
    Row(QUAD, "♥9 ♥9 ♥7 ♥7 ♥8 ♥Q", "4 x ♥K", "♥9 ♥9", DEAD, "♥8x1", False),  # [2,1,1]
    Row(QUAD, "♥9 ♥9 ♥7 ♥7 ♥8 ♥Q", "4 x ♥K", "", DEAD, "♥8x1", False),
    Row(QUAD, "♥9 ♥9 ♥7 ♥8 ♥Q", "4 x ♥K", "", DEAD, "♥7x1", True),  # duty [2,1,1]
    Row(QUAD, "♥9 ♥9 ♥7 ♥8 ♥Q", "4 x ♥K", "♥7 ♥8", DEAD, "♥Qx1", False),  # [1,1,1,1]
    Row(QUAD, "♥9 ♥9 ♥7 ♥8 ♥Q", "4 x ♥K", "♥7 ♥8", DEAD, "♥9x2", True),
    Row(QUAD, "♥9 ♥9 ♥7 ♥8 ♥Q", "4 x ♥K", "", DEAD, "♥9x1", False),
    Row(QUAD, "♥9 ♥7 ♥8 ♥Q ♥J ♣4 ♣4 ♣4 ♣4", "4 x ♥K", "♥9 ♥7 ♥8", DEAD, "♥Jx1", True),
    Row(QUAD, "♥9 ♥7 ♥8 ♥Q ♥J ♣4 ♣4 ♣4 ♣4", "4 x ♥K", "", DEAD, "♣4x4", False),
    # --- the live option: the suit duty only ------------------------------------------------
    Row(LIVE_OPT, "♥9 ♥9 ♥7 ♥8 ♣4", "2 x ♥K", "", LIVE, "♥9x1", True),
    Row(LIVE_OPT, "♥9 ♥9 ♥7 ♥8 ♣4", "2 x ♥K", "", LIVE, "♥7x1", True),
    Row(LIVE_OPT, "♥9 ♥9 ♥7 ♥8 ♣4", "2 x ♥K", "", LIVE, "♣4x1", False),
    Row(LIVE_OPT, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♣4", "3 x ♥K", "♥8", LIVE, "♥7x1", True),
    Row(LIVE_OPT, "♥9 ♥9 ♥9 ♥7 ♥7 ♥8 ♥8", "4 x ♥K", "", LIVE, "♥7x2", True),
    Row(LIVE_OPT, "♥Q ♥Q ♥Q ♥Q ♥9", "4 x ♥K", "", LIVE, "♥9x1", True),
    Row(LIVE_OPT, "♥Q ♥Q ♥Q ♥Q ♥9", "4 x ♥K", "♥9", LIVE, "♥Qx3", True),
    Row(LIVE_OPT, "♥Q ♥Q ♥Q ♥Q ♥9", "4 x ♥K", "♥9", LIVE, "♥Qx2", False),  # 3 cards only
    # --- following suit with fewer than k -----------------------------------------------------
    Row(SHORT, "♥9 ♥7 ♣4 ♣4 ♦8 ♠A", "3 x ♥K", "", DEAD, "♥9x1", True),
    Row(SHORT, "♥9 ♥7 ♣4 ♣4 ♦8 ♠A", "3 x ♥K", "", DEAD, "♣4x1", True),  # any order of steps
    Row(SHORT, "♥9 ♥7 ♣4 ♣4 ♦8 ♠A", "3 x ♥K", "", DEAD, "♣4x2", False),  # no room for both ♥
    Row(SHORT, "♥9 ♥7 ♣4 ♣4 ♦8 ♠A", "3 x ♥K", "♥9 ♥7", DEAD, "♠Ax1", True),
    Row(SHORT, "♥9 ♥7 ♣4 ♣4 ♦8 ♠A", "3 x ♥K", "♥9 ♥7", LIVE, "♦8x1", True),
    Row(SHORT, "♥9 ♥7 ♣4 ♣4 ♦8 ♠A", "3 x ♥K", "♣4", DEAD, "♦8x1", False),
    Row(SHORT, "♥9 ♥7 ♣4 ♣4 ♦8 ♠A", "3 x ♥K", "♣4", DEAD, "♥7x1", True),
    Row(SHORT, "♥9 ♥9 ♣4 ♣4 ♦8", "4 x ♥K", "", DEAD, "♥9x2", True),
    Row(SHORT, "♥9 ♥9 ♣4 ♣4 ♦8", "4 x ♥K", "", DEAD, "♥9x1", False),  # all of them
    Row(SHORT, "♥9 ♥9 ♣4 ♣4 ♦8", "4 x ♥K", "", DEAD, "♣4x2", True),
    Row(SHORT, "♥9 ♥9 ♣4 ♣4 ♦8", "4 x ♥K", "♥9 ♥9", DEAD, "♣4x1", True),
    Row(SHORT, "♥9 ♥9 ♣4 ♣4 ♦8", "4 x ♥K", "♥9 ♥9 ♣4", DEAD, "♦8x1", True),
    Row(SHORT, "♥9 ♥9 ♥9 ♣4", "4 x ♥K", "", DEAD, "♣4x1", True),
    Row(SHORT, "♥9 ♥9 ♥9 ♣4 ♣5", "4 x ♥K", "", DEAD, "♥9x3", True),
    Row(SHORT, "♥9 ♥9 ♥9 ♣4 ♣5", "4 x ♥K", "♥9 ♥9 ♥9", DEAD, "♣5x1", True),
    # --- void: any cards --------------------------------------------------------------------
    Row(VOID, "♣4 ♦8 ♦8 ♠A SJ", "2 x ♥K", "", DEAD, "♣4x1", True),
    Row(VOID, "♣4 ♦8 ♦8 ♠A SJ", "2 x ♥K", "", DEAD, "♦8x2", True),
    Row(VOID, "♣4 ♦8 ♦8 ♠A SJ", "2 x ♥K", "", DEAD, "♦8x1", True),
    Row(VOID, "♣4 ♦8 ♦8 ♠A SJ", "2 x ♥K", "♦8", DEAD, "SJx1", True),
    Row(VOID, "♣4 ♦8 ♦8 ♠A SJ", "2 x ♥K", "♠A", LIVE, "♦8x1", True),
    Row(VOID, "♣4 ♦8 ♦8 ♠A SJ", "2 x ♥K", "♦8", DEAD, "♦8x1", False),  # one step per kind
    Row(VOID, "♣4 ♦8 ♦8 ♠A SJ", "2 x ♥K", "♣4", DEAD, "♦8x2", False),  # 3 cards
    # --- trump is one suit ------------------------------------------------------------------
    Row(TRUMP_SUIT, "SJ ♥6 ♣2 ♥9 ♥9 ♥9", "2 x ♠K", "", DEAD, "SJx1", True),  # duty [1,1]
    Row(TRUMP_SUIT, "SJ ♥6 ♣2 ♥9 ♥9 ♥9", "2 x ♠K", "♣2", DEAD, "♥6x1", True),
    Row(TRUMP_SUIT, "SJ ♥6 ♣2 ♥9 ♥9 ♥9", "2 x ♠K", "", DEAD, "♥9x1", False),
    Row(TRUMP_SUIT, "SJ ♥6 ♣2 ♥9 ♥9 ♥9", "2 x ♠K", "", DEAD, "♥9x2", False),
    Row(TRUMP_SUIT, "BJ BJ ♥6 ♣2 ♠3", "2 x ♠K", "", DEAD, "BJx2", True),  # the 棒 is BJ BJ
    Row(TRUMP_SUIT, "BJ BJ ♥6 ♣2 ♠3", "2 x ♠K", "", DEAD, "♥6x1", False),
    Row(TRUMP_SUIT, "♣6 ♣6 ♦6 ♥9", "2 x BJ", "", DEAD, "♣6x2", True),  # level cards: trump
    Row(TRUMP_SUIT, "♣6 ♣6 ♦6 ♥9", "2 x BJ", "", DEAD, "♦6x1", False),  # ♣6 ♦6 is no 棒
    Row(TRUMP_SUIT, "♣6 ♦6 ♥9 ♥9", "2 x BJ", "♣6", DEAD, "♦6x1", True),
    Row(TRUMP_SUIT, "♣6 ♦6 ♥9 ♥9", "2 x BJ", "", DEAD, "♥9x2", False),
    Row(TRUMP_SUIT, "♥6 ♣A", "1 x ♦2", "", DEAD, "♥6x1", True),  # a level card follows a 2
    Row(TRUMP_SUIT, "♥6 ♣A", "1 x ♦2", "", DEAD, "♣Ax1", False),
    Row(TRUMP_SUIT, "♠3 ♥A", "1 x ♥6", "", DEAD, "♠3x1", True),  # trump-suit card follows ♥6
    Row(TRUMP_SUIT, "♠3 ♥A", "1 x ♥6", "", DEAD, "♥Ax1", False),  # ♥6 is trump, not ♥
    Row(TRUMP_SUIT, "♦6 ♦A", "1 x BJ", "", DEAD, "♦6x1", True),
    Row(TRUMP_SUIT, "♦6 ♦A", "1 x BJ", "", DEAD, "♦Ax1", False),
    Row(TRUMP_SUIT, "♠6 ♦A", "1 x SJ", "", DEAD, "♠6x1", True),  # the trump-suit level card
    Row(TRUMP_SUIT, "♥6 ♣2 ♠9 ♦A", "1 x ♥K", "", DEAD, "♦Ax1", True),  # void in ♥: ♥6, ♥2 are
    Row(TRUMP_SUIT, "♥6 ♥2 ♠9 ♦A", "1 x ♥K", "", DEAD, "♥2x1", True),  # trump, so anything
    Row(TRUMP_SUIT, "♥2 ♥A", "1 x ♥K", "", DEAD, "♥Ax1", True),
    Row(TRUMP_SUIT, "♥2 ♥A", "1 x ♥K", "", DEAD, "♥2x1", False),  # ♥2 is trump, not ♥
    Row(TRUMP_SUIT, "♥2 ♦6 ♠4 ♥A", "2 x ♠2", "", DEAD, "♥2x1", True),
    Row(TRUMP_SUIT, "♥2 ♦6 ♠4 ♥A", "2 x ♠2", "♥2", DEAD, "♠4x1", True),
    Row(TRUMP_SUIT, "♥2 ♦6 ♠4 ♥A", "2 x ♠2", "", DEAD, "♥Ax1", False),
    Row(TRUMP_SUIT, "♥10 ♥10 ♥4 ♦10", "2 x ♣3", "", DEAD, "♥10x2", True, CLUBS, 10),
    Row(TRUMP_SUIT, "♥10 ♥10 ♥4 ♦10", "2 x ♣3", "", DEAD, "♥4x1", False, CLUBS, 10),
    Row(TRUMP_SUIT, "♥10 ♥10 ♥4 ♦10", "2 x ♣3", "", LIVE, "♦10x1", True, CLUBS, 10),
    Row(TRUMP_SUIT, "♦3 ♦3 ♣3 ♥3 ♠4", "2 x ♠3", "", DEAD, "♦3x2", True, HEARTS, 3),
    Row(TRUMP_SUIT, "♦3 ♦3 ♣3 ♥3 ♠4", "2 x ♠3", "", DEAD, "♣3x1", False, HEARTS, 3),
    Row(TRUMP_SUIT, "♦3 ♣3 ♥3 ♠4", "2 x ♠3", "", DEAD, "♣3x1", True, HEARTS, 3),
    Row(TRUMP_SUIT, "♦3 ♣3 ♥3 ♠4", "2 x ♠3", "", DEAD, "♠4x1", False, HEARTS, 3),
    # --- fewer than k cards in all ------------------------------------------------------------
    Row(FEW, "♣4 ♥9 ♥9", "4 x ♥K", "", DEAD, "♥9x2", True),
    Row(FEW, "♣4 ♥9 ♥9", "4 x ♥K", "", DEAD, "♣4x1", True),
    Row(FEW, "♣4 ♥9 ♥9", "4 x ♥K", "", DEAD, "♥9x1", False),
    Row(FEW, "♣4 ♥9 ♥9", "4 x ♥K", "♣4 ♥9 ♥9", DEAD, "♣4x1", False),
    Row(FEW, "♥9 ♥9 ♥9", "4 x ♥K", "", DEAD, "♥9x3", True),
    Row(FEW, "♥9 ♥9 ♥9", "4 x ♥K", "", DEAD, "♥9x2", False),
    Row(FEW, "♦8", "2 x ♥K", "", LIVE, "♦8x1", True),
    # --- leading --------------------------------------------------------------------------------
    Row(LEAD, "♥9 ♥9 ♥9 ♣4", None, "", DEAD, "♥9x3", True),
    Row(LEAD, "♥9 ♥9 ♥9 ♣4", None, "", DEAD, "♥9x2", True),
    Row(LEAD, "♥9 ♥9 ♥9 ♣4", None, "", DEAD, "♥9x4", False),
    Row(LEAD, "♥9 ♥9 ♥9 ♣4", None, "", LIVE, "♣4x1", True),
    Row(LEAD, "BJ BJ BJ BJ", None, "", DEAD, "BJx4", True),
    Row(LEAD, "BJ BJ BJ BJ", None, "", DEAD, "SJx1", False),
]


def _row_id(row):
    return f"{row.hand} | {row.led} | {row.partial or '-'} | {row.mode} | {row.step}"


@pytest.mark.parametrize("row", FOLLOW_ROWS, ids=_row_id)
def test_follow_rows(row: Row):
    hand = counts_of(parse_cards(row.hand))
    partial = counts_of(parse_cards(row.partial))
    led, k = _led(row.led)
    kind, c = _step(row.step)
    dead = row.mode == DEAD
    want = ref.step_mask(hand, partial, led, k, row.trump, row.level, dead)
    where = (f"{row.clause}\n  trump {ref.SUITS[row.trump]} level {row.level}, hand {row.hand}, "
             f"led {row.led}, partial [{row.partial}], {row.mode}, step {row.step}")
    assert bool(want[4 * kind + c - 1]) == row.allowed, "reference disagrees with the row: " + where
    for b in (1, follow.NUMPY_FROM):  # one state, and a batch (play_mask answers fewer than
        # NUMPY_FROM states state by state, in plain Python)
        got = follow.play_mask(*(np.array([x] * b) for x in (
            hand, partial, led, k, row.trump, row.level, dead)))
        assert bool(got[-1, 4 * kind + c - 1]) == row.allowed, (
            f"play_mask (B = {b}) gives {bool(got[-1, 4 * kind + c - 1])}, expected "
            f"{row.allowed}: {where}\n"
            f"  play_mask allows {[ref.step_text(s) for s in np.flatnonzero(got[-1])]}")


# --- trick winner (A1 strength, A5 winner) -----------------------------------------------------

ORDER = "A1 strength order"
WIN = "A5 only k identical cards of the led suit, or all trump from a void player, can win"
TIE = "A5 among equals the first played wins"


class TrickRow(NamedTuple):
    clause: str
    trump: int
    level: int
    plays: str  # "♥K ♥K | ♥A ♥Q | ♦6 ♦6 (v) | ..." in play order, the lead first
    winner: int


TRICK_ROWS = [
    TrickRow(ORDER + ": BJ > SJ", SPADES, 6, "SJ | BJ | ♠6 | ♠A", 1),
    TrickRow(ORDER + ": BJ > SJ", SPADES, 6, "BJ | SJ | ♠6 | ♠2", 0),
    TrickRow(ORDER + ": SJ > trump-suit level card", SPADES, 6, "♠6 | SJ | ♥6 | ♠2", 1),
    TrickRow(ORDER + ": trump-suit level card > other level cards", SPADES, 6,
             "♦6 | ♠6 | ♥6 | ♣6", 1),
    TrickRow(TIE + ": other level cards are equal", SPADES, 6, "♦6 | ♣6 | ♥6 | ♠2", 0),
    TrickRow(TIE + ": other level cards are equal", SPADES, 6, "♠A | ♥6 | ♦6 | ♣6", 1),
    TrickRow(ORDER + ": other level cards > trump-suit 2", SPADES, 6, "♠2 | ♦6 | ♥2 | ♠A", 1),
    TrickRow(ORDER + ": trump-suit 2 > other 2s", SPADES, 6, "♦2 | ♥2 | ♠2 | ♣2", 2),
    TrickRow(TIE + ": other 2s are equal", SPADES, 6, "♠A | ♦2 | ♥2 | ♣2", 1),
    TrickRow(ORDER + ": other 2s > trump-suit A", SPADES, 6, "♠A | ♠K | ♦2 | ♠Q", 2),
    TrickRow(ORDER + ": trump suit A > K > ... > 3", SPADES, 6, "♠3 | ♠4 | ♠K | ♠A", 3),
    TrickRow(ORDER + ": trump suit order (the level rank is elsewhere)", SPADES, 6,
             "♠7 | ♠5 | ♠3 | ♠4", 0),
    TrickRow(ORDER + ": side suit A > ... > 3", SPADES, 6, "♥K | ♥A | ♥3 | ♥Q", 1),
    TrickRow(ORDER + ": trump > side (void trumps in)", SPADES, 6, "♥A | ♠3 (v) | ♥K | ♥Q", 1),
    TrickRow(ORDER + ": a void's 2 trumps in", SPADES, 6, "♥A | ♣2 (v) | ♠3 (v) | ♥2 (v)", 1),
    TrickRow(WIN + ": a discard cannot win", SPADES, 6, "♥K | ♣A (v) | ♦A (v) | ♥3", 0),
    TrickRow(WIN + ": trump from a non-void player does not win", SPADES, 6,
             "♥K | ♠3 | ♥3 | ♥4", 0),
    TrickRow(WIN + ": a 棒 needs identical cards", SPADES, 6, "♥K ♥K | ♥A ♥Q | ♥3 ♥3 | ♥4 ♥5", 0),
    TrickRow(WIN + ": off-suit level cards of two suits are no 棒", SPADES, 6,
             "♥K ♥K | ♦6 ♣6 (v) | ♥3 ♥4 | ♥5 ♥7", 0),
    TrickRow(WIN + ": a void's trump 棒", SPADES, 6, "♥K ♥K | ♦6 ♦6 (v) | ♥3 ♥4 | ♥5 ♥7", 1),
    TrickRow(TIE + ": equal trump 棒s", SPADES, 6, "♥K ♥K | ♦6 ♦6 (v) | ♣6 ♣6 (v) | ♥A ♥A", 1),
    TrickRow(TIE + ": equal 2s, then a stronger 2", SPADES, 6,
             "♥K ♥K | ♦2 ♦2 (v) | ♥2 ♥2 (v) | ♠2 ♠2 (v)", 3),
    TrickRow(TIE + ": the same kind as the lead", SPADES, 6, "♥K ♥K | ♥K ♥K | ♥3 ♥4 | ♥5 ♥7", 0),
    TrickRow(WIN + ": a trump lead", SPADES, 6, "♠5 ♠5 | ♦6 ♦6 | ♠A ♠K | SJ SJ", 3),
    TrickRow(WIN + ": a trump lead, side 棒 from a void", SPADES, 6,
             "♠5 ♠5 | ♥A ♥A (v) | ♣A ♣A (v) | ♠4 ♠4", 0),
    TrickRow(WIN + ": a short hand (fewer than k cards) cannot win", SPADES, 6,
             "♥K ♥K ♥K | ♥A ♥A ♥A | BJ BJ (v) | ♥3 ♥4 ♥5", 1),
    TrickRow(ORDER + " under level 10, trump ♣", CLUBS, 10, "♣A | ♥10 | ♣10 | ♦2", 2),
    TrickRow(TIE + " under level 10, trump ♣", CLUBS, 10, "♥10 | ♦10 | ♠10 | ♣2", 0),
    TrickRow(ORDER + " under level 3, trump ♦", DIAMONDS, 3, "♠3 ♠3 | ♦3 ♦3 | BJ BJ | ♥3 ♥3", 2),
    TrickRow(ORDER + " under level 3: side suit order", DIAMONDS, 3, "♥4 | ♥5 | ♥7 | ♥6", 2),
    TrickRow(ORDER + " under level 3: a void's off-suit level card trumps in", DIAMONDS, 3,
             "♥4 | ♥5 | ♠3 (v) | ♥6", 2),
    TrickRow(WIN + ": four identical", HEARTS, 8, "♣9 ♣9 ♣9 ♣9 | ♣A ♣A ♣A ♣A | ♥3 ♥3 ♥3 ♥3 (v) | "
             "♣K ♣K ♣Q ♣Q", 2),
]


def _plays(text):
    plays, void = [], []
    for part in text.split("|"):
        part = part.strip()
        v = part.endswith("(v)")
        plays.append(parse_cards(part.removesuffix("(v)")))
        void.append(v)
    return plays, void


@pytest.mark.parametrize("row", TRICK_ROWS, ids=lambda r: r.plays)
def test_trick_rows(row: TrickRow):
    plays, void = _plays(row.plays)
    k = len(plays[0])
    identical = np.array([[len(p) == k and len(set(p)) == 1 for p in plays]])
    kinds = np.array([[p[0] if ident else -1 for p, ident in zip(plays, identical[0])]])
    got = follow.trick_winner(kinds, identical, np.array([void]), np.array([row.trump]),
                              np.array([row.level]))[0]
    want = ref.trick_winner_ref(plays, void, row.trump, row.level)
    where = f"{row.clause}: trump {ref.SUITS[row.trump]} level {row.level}, {row.plays}"
    assert want == row.winner, "reference disagrees with the row: " + where
    assert got == row.winner, f"trick_winner gives {got}, expected {row.winner}: {where}"


def test_card_encoding_matches_reference():
    """cards.py's encoding is the one the reference writes out (kind = rank*4 + suit)."""
    for kind in range(ref.NKINDS):
        assert parse_cards(ref.card_name(kind)) == [kind]
        assert card_str(kind) == ref.card_name(kind)
