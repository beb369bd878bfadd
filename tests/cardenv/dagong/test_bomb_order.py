"""Table-driven checks of the Dagong bomb order (RULES-BRIEF B2, [D-B2]).

Low to high: 杂510K < 正510K ♦ < ♣ < ♥ < ♠ < 4-card bomb < 5 < 6 < 7 and 8 with jokers < 9 < 10 <
11 < 12 (longer beats shorter; same length by rank; for <= 6 cards a joker changes nothing) <
7喜 < 摇摆 < 8喜 < 天炸; among 摇摆 more cards, then the higher top; 杂510K never beats 杂510K;
正510K of one suit do not beat each other; every bomb beats every non-bomb.

``CHAIN`` lists one representative of each step of the order with a hand that can play it. Every
adjacent pair is checked in both directions and every element against itself (``ADJACENT``); the
whole chain is also checked pairwise (``ALL_PAIRS``). ``ROWS`` adds the ties and the finer
points. Row format as in ``test_combinations.py``: (clause, hand, standing, called, action,
expected legal?), checked against ``legality.play_mask`` and ``reference.legal_actions``.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.dagong import catalogue as cat
from cardenv.dagong.legality import play_mask

try:
    from . import reference as ref
except ImportError:  # pragma: no cover
    import reference as ref

# (clause, action, a hand that can play it), strictly increasing.
CHAIN = [
    ("B2 杂510K", "510k za", "5S 10H KD"),
    ("B2 正510K ♦", "510k D", "5D 10D KD"),
    ("B2 正510K ♣", "510k C", "5C 10C KC"),
    ("B2 正510K ♥", "510k H", "5H 10H KH"),
    ("B2 正510K ♠", "510k S", "5S 10S KS"),
    ("B2 4-card bomb", "bomb 4x3", "3*4"),
    ("B2 4-card bomb by rank", "bomb 4x2", "2*4"),
    ("B2 5-card bomb", "bomb 5x3", "3*5"),
    ("B2 5-card bomb by rank", "bomb 5x2 j1", "2*4 SJ"),
    ("B2 6-card bomb", "bomb 6x3", "3*6"),
    ("B2 6-card bomb by rank", "bomb 6x2 j2", "2*4 SJ BJ"),
    ("B2 7 with jokers", "bomb 7x3 j1", "3*6 SJ"),
    ("B2 7 with jokers by rank", "bomb 7x2 j2", "2*5 SJ BJ"),
    ("B2 8 with jokers", "bomb 8x3 j1", "3*7 SJ"),
    ("B2 8 with jokers by rank", "bomb 8x2 j3", "2*5 SJ BJ BJ"),
    ("B2 9-card bomb", "bomb 9x3 j1", "3*8 SJ"),
    ("B2 10-card bomb", "bomb 10x3 j2", "3*8 SJ BJ"),
    ("B2 11-card bomb", "bomb 11x3 j3", "3*8 SJ SJ BJ"),
    ("B2 12-card bomb", "bomb 12x3 j4", "3*8 SJ SJ BJ BJ"),
    ("B2 12-card bomb by rank", "bomb 12x2 j4", "2*8 SJ SJ BJ BJ"),
    ("B2 7喜", "7xi 3", "3*7"),
    ("B2 7喜 by rank", "7xi 2", "2*7"),
    ("B2 [D-B2] 摇摆", "yaobai 3-4", "3*4 4*4"),
    ("B2 [D-B2] 摇摆 by top", "yaobai K-A", "K*4 A*4"),
    ("B2 [D-B2] 摇摆 more cards", "yaobai 3-5", "3*4 4*4 5*4"),
    ("B2 [D-B2] 摇摆 more cards", "yaobai 3-8", "3*4 4*4 5*4 6*4 7*4 8*4"),
    ("B2 [D-B2] 摇摆 by top", "yaobai 9-A", "9*4 10*4 J*4 Q*4 K*4 A*4"),
    ("B2 8喜", "8xi 3", "3*8"),
    ("B2 8喜 by rank", "8xi 2", "2*8"),
    ("B2 天炸", "tianzha", "SJ SJ BJ BJ"),
]

ADJACENT = []
for (c_lo, lo, hand_lo), (c_hi, hi, hand_hi) in zip(CHAIN, CHAIN[1:]):
    ADJACENT.append((f"{c_hi} > {c_lo}", hand_hi, lo, None, hi, True))
    ADJACENT.append((f"{c_lo} < {c_hi}", hand_lo, hi, None, lo, False))
for clause, action, hand in CHAIN:  # nothing beats an equal bomb (incl. 杂 on 杂, 正 same suit)
    ADJACENT.append((f"{clause} on itself", hand, action, None, action, False))

ALL_PAIRS = [
    (f"B2 order: {CHAIN[i][1]} on {CHAIN[j][1]}", CHAIN[i][2], CHAIN[j][1], None, CHAIN[i][1],
     i > j)
    for i in range(len(CHAIN)) for j in range(len(CHAIN))
]

ROWS = [
    # 510K ties and jokers
    ("B2 杂510K never beats 杂510K", "5S 10H KD", "510k za", None, "510k za", False),
    ("B2 杂510K never beats 杂510K", "5S 10H SJ", "510k za", None, "510k za j=K", False),
    ("B2 杂510K never beats 杂510K", "5S 10H KD", "510k za j=5", None, "510k za", False),
    ("B2 正510K same suit", "5S 10S KS", "510k S", None, "510k S", False),
    ("B2 正510K same suit, joker changes nothing", "5S 10S SJ", "510k S", None, "510k S j=K",
     False),
    ("B2 正510K same suit, joker changes nothing", "5S 10S KS", "510k S j=10", None, "510k S",
     False),
    ("B2 正510K by suit", "5H SJ KH", "510k C", None, "510k H j=10", True),
    ("B2 正510K by suit", "5C 10C KC", "510k H j=10", None, "510k C", False),
    ("B2 正510K > 杂510K", "5D 10D SJ", "510k za", None, "510k D j=K", True),
    ("B2 正510K > 杂510K", "5S 10H KD", "510k D j=K", None, "510k za", False),
    ("B2 4-bomb > 正510K ♠", "3S 3H 3D SJ", "510k S", None, "bomb 4x3 j1", True),
    ("B2 4-bomb > 正510K ♠", "3S SJ SJ BJ", "510k S", None, "bomb 4x3 j3", True),
    # n-card bombs: a joker changes nothing up to 6 cards
    ("B2 <=6 cards joker changes nothing", "5S 5H 5D SJ", "bomb 4x5", None, "bomb 4x5 j1", False),
    ("B2 <=6 cards joker changes nothing", "5*4", "bomb 4x5 j1", None, "bomb 4x5", False),
    ("B2 <=6 cards joker changes nothing", "5*6", "bomb 6x5 j2", None, "bomb 6x5", False),
    ("B2 <=6 cards joker changes nothing", "5*4 SJ BJ", "bomb 6x5", None, "bomb 6x5 j2", False),
    ("B2 same length by rank", "6S SJ SJ BJ", "bomb 4x5", None, "bomb 4x6 j3", True),
    ("B2 same length by rank", "5*4", "bomb 4x6 j3", None, "bomb 4x5", False),
    ("B2 longer beats shorter", "3*4 SJ", "bomb 4x2", None, "bomb 5x3 j1", True),
    ("B2 longer beats shorter", "2*4", "bomb 5x3 j1", None, "bomb 4x2", False),
    ("B2 longer beats shorter", "5*6 SJ", "bomb 6x2", None, "bomb 7x5 j1", True),
    ("B2 7 with jokers by rank", "6*6 SJ", "bomb 7x5 j2", None, "bomb 7x6 j1", True),
    ("B2 7 with jokers by rank", "5*5 SJ BJ", "bomb 7x6 j1", None, "bomb 7x5 j2", False),
    ("B2 7 with jokers by rank", "5*6 SJ", "bomb 7x5 j2", None, "bomb 7x5 j1", False),
    # 7喜 against bombs with jokers
    ("B2 7喜 > 7 with jokers", "3*7", "bomb 7x2 j1", None, "7xi 3", True),
    ("B2 7 with jokers < 7喜", "2*6 SJ", "7xi 3", None, "bomb 7x2 j1", False),
    ("B2 7喜 > 8 with jokers", "3*7", "bomb 8x2 j1", None, "7xi 3", True),
    ("B2 8 with jokers < 7喜", "2*7 SJ", "7xi 3", None, "bomb 8x2 j1", False),
    ("B2 7喜 > 12-card bomb", "3*7", "bomb 12x2 j4", None, "7xi 3", True),
    ("B2 12-card bomb < 7喜", "2*8 SJ SJ BJ BJ", "7xi 3", None, "bomb 12x2 j4", False),
    ("B2 7喜 by rank", "4*7", "7xi 3", None, "7xi 4", True),
    ("B2 7喜 by rank", "3*7", "7xi 4", None, "7xi 3", False),
    # 摇摆
    ("B2 [D-B2] 摇摆 > 7喜", "3*4 4*4", "7xi 2", None, "yaobai 3-4", True),
    ("B2 [D-B2] 7喜 < 摇摆", "2*7", "yaobai 3-4", None, "7xi 2", False),
    ("B2 [D-B2] 摇摆 longer wins", "3*4 4*4 5*4", "yaobai K-A", None, "yaobai 3-5", True),
    ("B2 [D-B2] 摇摆 longer wins", "K*4 A*4", "yaobai 3-5", None, "yaobai K-A", False),
    ("B2 [D-B2] 摇摆 same length, higher top", "4*4 5*4", "yaobai 3-4", None, "yaobai 4-5",
     True),
    ("B2 [D-B2] 摇摆 same length, higher top", "3*4 4*4", "yaobai 4-5", None, "yaobai 3-4",
     False),
    ("B2 [D-B2] 摇摆 equal", "4*4 5*4", "yaobai 4-5", None, "yaobai 4-5", False),
    ("B2 [D-B2] 摇摆 < 8喜", "3*8", "yaobai 9-A", None, "8xi 3", True),
    ("B2 [D-B2] 8喜 > 摇摆", "6*4 7*4 8*4 9*4 10*4 J*4", "8xi 3", None, "yaobai 6-J", False),
    # 8喜, 天炸
    ("B2 8喜 by rank", "4*8", "8xi 3", None, "8xi 4", True),
    ("B2 8喜 > 7喜", "3*8", "7xi 2", None, "8xi 3", True),
    ("B2 天炸 > 8喜", "SJ SJ BJ BJ", "8xi 2", None, "tianzha", True),
    ("B2 天炸 > everything", "SJ SJ BJ BJ 3S", "bomb 12x2 j4", None, "tianzha", True),
    ("B2 8喜 < 天炸", "2*8", "tianzha", None, "8xi 2", False),
    ("B2 bombs < 天炸", "2*8 SJ", "tianzha", None, "bomb 9x2 j1", False),
    # every bomb beats every non-bomb, no non-bomb beats a bomb
    ("B2 bomb > non-bomb", "5S 10H KD", "single 2", None, "510k za", True),
    ("B2 bomb > non-bomb", "5S 10H KD", "pair 2", None, "510k za", True),
    ("B2 bomb > non-bomb", "5S 10H KD", "triple 2 j1", None, "510k za", True),
    ("B2 bomb > non-bomb", "5S 10H SJ", "pair_run 3-A", None, "510k za j=K", True),
    ("B2 bomb > non-bomb", "5S 10H KD", "triple_run 3-J j4", None, "510k za", True),
    ("B2 bomb > non-bomb", "3*4", "pair_run 3-A j4", None, "bomb 4x3", True),
    ("B2 bomb > non-bomb", "SJ SJ BJ BJ", "single 3 j1", None, "tianzha", True),
    ("B2 non-bomb < bomb", "2S", "510k za", None, "single 2", False),
    ("B2 non-bomb < bomb", "2S 2H", "510k za", None, "pair 2", False),
    ("B2 non-bomb < bomb", "2S 2H 2D", "bomb 4x3", None, "triple 2", False),
    ("B2 non-bomb < bomb", "3*2 4*2 5*2 6*2 7*2 8*2 9*2 10*2 J*2 Q*2 K*2 A*2", "510k za", None,
     "pair_run 3-A", False),
]


def _label(row):
    return f"{row[0]}: {row[2] or 'lead'} <- {row[4]}"


def _check_mask(row):
    clause, hand, standing, called, action, expected = row
    counts, standing_id, called_kind, action_id = ref.table_case(hand, standing, called, action)
    mask = play_mask(np.array(counts), standing_id, called_kind)
    assert bool(mask[action_id]) == expected, \
        f"{clause}: {hand}: {cat.ACTIONS[action_id].text} on {cat.ACTIONS[standing_id].text} " \
        f"should be {'legal' if expected else 'illegal'}"


def _check_reference(row):
    clause, hand, standing, called, action, expected = row
    counts, standing_id, called_kind, action_id = ref.table_case(hand, standing, called, action)
    assert (action_id in ref.legal_actions(counts, standing_id, called_kind)) == expected


def test_chain_hands_hold_their_bomb():
    for clause, action, hand in CHAIN:
        counts, _, called_kind, action_id = ref.table_case(hand, None, None, action)
        assert play_mask(np.array(counts), -1, called_kind)[action_id], clause
        assert action_id in ref.legal_actions(counts, -1, called_kind), clause


@pytest.mark.parametrize("row", ADJACENT + ROWS, ids=[_label(r) for r in ADJACENT + ROWS])
def test_play_mask(row):
    _check_mask(row)


@pytest.mark.parametrize("row", ADJACENT + ROWS, ids=[_label(r) for r in ADJACENT + ROWS])
def test_reference_agrees(row):
    _check_reference(row)


def test_whole_chain_pairwise():
    failures = []
    for row in ALL_PAIRS:
        try:
            _check_mask(row)
        except AssertionError as exc:
            failures.append(str(exc).splitlines()[0])
        _check_reference(row)
    assert not failures, "\n".join(failures)
