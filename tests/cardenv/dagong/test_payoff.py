"""Hand results and payoffs (brief B4, [D-B4], [D-B5]) as a table over ``scoring.settle``."""

import pytest

from cardenv.core.cards import counts_of, parse_cards
from cardenv.dagong.scoring import settle, xiqian_balance, xiqian_units

EMPTY = [[0] * 54 for _ in range(4)]

# (clause, places, trick points, points left in 末游's hand, solo, yaobai seats,
#  expected winners, reason, payoff); dealer 0 and partner 2 unless solo says otherwise.
CASES = [
    ("B4 find-a-friend: more points wins, x1", [1, 0, 2, 3], [60, 40, 50, 50], 0, None, set(),
     [0, 2], "score", [1, -1, 1, -1]),
    ("B3 transfers: 末游 (dealer side) gives its won points to 一游, its hand's to 三游",
     [1, 0, 3, 2], [40, 30, 70, 40], 20, None, set(), [1, 3], "score", [-1, 1, -1, 1]),
    ("B4 100:100: the side holding 末游 loses (末游 = seat 3)", [1, 0, 2, 3], [50, 60, 50, 40],
     0, None, set(), [0, 2], "tie", [1, -1, 1, -1]),
    ("B4 100:100: the side holding 末游 loses (末游 = seat 2)", [1, 3, 0, 2], [100, 60, 0, 40],
     0, None, set(), [1, 3], "tie", [-1, 1, -1, 1]),
    ("B4 绑 x2", [0, 2], [50, 10, 30, 0], 0, None, set(), [0, 2], "bang", [2, -2, 2, -2]),
    ("B4 光头: 绑 with the losers on 0 points, x4", [2, 0], [120, 0, 30, 0], 0, None, set(),
     [0, 2], "guangtou", [4, -4, 4, -4]),
    ("B4 绑 by the other side", [3, 1], [10, 20, 0, 5], 0, None, set(), [1, 3], "bang",
     [-2, 2, -2, 2]),
    ("B4 清: the winners hold all 200, x2", [0, 1, 2, 3], [100, 0, 100, 0], 0, None, set(),
     [0, 2], "qing", [2, -2, 2, -2]),
    ("B4 清 reached through the transfers", [0, 3, 2, 1], [90, 80, 30, 0], 0, None, set(),
     [0, 2], "qing", [2, -2, 2, -2]),
    ("[D-B4] 硬牌 won: +3 x solo_multiplier", [1], [0, 0, 0, 0], 0, 1, set(), [1], "solo",
     [-2, 6, -2, -2]),
    ("[D-B4] 硬牌 lost", [3], [0, 0, 0, 0], 0, 1, set(), [0, 2, 3], "solo", [2, -6, 2, 2]),
    ("[D-B5] 摇摆 by a winner doubles", [1, 0, 2, 3], [60, 40, 50, 50], 0, None, {2},
     [0, 2], "score", [2, -2, 2, -2]),
    ("[D-B5] 摇摆 doubles once however many", [1, 0, 2, 3], [60, 40, 50, 50], 0, None, {0, 2},
     [0, 2], "score", [2, -2, 2, -2]),
    ("[D-B5] 摇摆 by a loser does nothing", [1, 0, 2, 3], [60, 40, 50, 50], 0, None, {1, 3},
     [0, 2], "score", [1, -1, 1, -1]),
    ("[D-B5] 摇摆 on 光头: x8", [0, 2], [0, 0, 0, 0], 0, None, {0}, [0, 2], "guangtou",
     [8, -8, 8, -8]),
    ("[D-B5] 摇摆 by the solo winner", [2], [0, 0, 0, 0], 0, 2, {2}, [2], "solo",
     [-4, -4, 12, -4]),
]


@pytest.mark.parametrize("clause, places, trick, left, solo, yaobai, winners, reason, payoff",
                         CASES, ids=[c[0] for c in CASES])
def test_settle(clause, places, trick, left, solo, yaobai, winners, reason, payoff):
    r = settle(dealer=0, partner=None if solo == 0 else 2, called=0, solo=solo,
               forced_solo=False, places=places, trick_points=trick, last_hand_points=left,
               yaobai_seats=yaobai, dealt_hands=EMPTY, solo_multiplier=2, xiqian=True)
    assert (r.winners, r.reason, r.payoff) == (winners, reason, payoff), clause
    assert sum(r.rewards) == 0


def test_transfers_recorded():
    r = settle(dealer=0, partner=2, called=0, solo=None, forced_solo=False, places=[1, 0, 3, 2],
               trick_points=[40, 30, 70, 40], last_hand_points=20, yaobai_seats=set(),
               dealt_hands=EMPTY, solo_multiplier=2, xiqian=False)
    assert r.trick_points == [40, 30, 70, 40]
    assert r.points == [40, 100, 0, 60]


def test_solo_multiplier_option():
    r = settle(dealer=0, partner=2, called=0, solo=3, forced_solo=False, places=[3],
               trick_points=[0] * 4, last_hand_points=0, yaobai_seats=set(), dealt_hands=EMPTY,
               solo_multiplier=3, xiqian=False)
    assert r.payoff == [-3, -3, -3, 9]


def hand(text):
    return counts_of(parse_cards(text))


@pytest.mark.parametrize("clause, cards, units", [
    ("B4 喜钱: nothing special", "♠3 ♥3 ♦4 SJ", 0),
    ("B4 8喜: 8 natural of a rank, 2 from each", "♠9 ♠9 ♥9 ♥9 ♣9 ♣9 ♦9 ♦9", 2),
    ("B4 7喜: 1 from each", "♠9 ♠9 ♥9 ♥9 ♣9 ♣9 ♦9", 1),
    ("B4 6 of a rank plus a joker is not 7喜", "♠9 ♠9 ♥9 ♥9 ♣9 ♣9 SJ", 0),
    ("B4 天炸 dealt", "SJ SJ BJ BJ", 1),
    ("B4 four natural 510K sets", "♠5 ♥5 ♣5 ♦5 ♠10 ♠10 ♥10 ♦10 ♠K ♥K ♥K ♣K", 1),
    ("B4 three 510K sets are not enough", "♠5 ♥5 ♣5 ♠10 ♠10 ♥10 ♠K ♥K ♥K ♣K", 0),
    ("B4 喜钱 add up", "♠9 ♠9 ♥9 ♥9 ♣9 ♣9 ♦9 ♦9 ♠7 ♠7 ♥7 ♥7 ♣7 ♣7 ♦7 SJ SJ BJ BJ", 4),
])
def test_xiqian_units(clause, cards, units):
    assert xiqian_units(hand(cards)) == units, clause


def test_xiqian_paid_whatever_the_result():
    dealt = [hand("♠9 ♠9 ♥9 ♥9 ♣9 ♣9 ♦9 ♦9"), hand("♠3"), hand("♠4"), hand("SJ SJ BJ BJ")]
    assert xiqian_balance(dealt) == [5, -3, -3, 1]
    r = settle(dealer=0, partner=2, called=0, solo=None, forced_solo=False, places=[1, 3],
               trick_points=[10, 10, 0, 0], last_hand_points=0, yaobai_seats=set(),
               dealt_hands=dealt, solo_multiplier=2, xiqian=True)
    assert r.payoff == [-2, 2, -2, 2]
    assert r.rewards == [3, -1, -5, 3]
    off = settle(dealer=0, partner=2, called=0, solo=None, forced_solo=False, places=[1, 3],
                 trick_points=[10, 10, 0, 0], last_hand_points=0, yaobai_seats=set(),
                 dealt_hands=dealt, solo_multiplier=2, xiqian=False)
    assert off.rewards == off.payoff
