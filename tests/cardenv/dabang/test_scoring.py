"""``scoring.score_hand`` (brief A6) as a table, plus the engine's use of it.

Conventions of the rows: the dealer is seat 0 unless given (defenders = team 0 = seats 0 and 2,
attackers = team 1 = seats 1 and 3); ``tp`` = the attackers' trick points (the defenders have the
rest of the 400 minus the kitty's points); ``last`` = the team that won the last trick.
"""

from __future__ import annotations

import pytest

from cardenv.dabang.scoring import score_blood, score_hand
from tests.cardenv.dabang import scripted as sc

ZERO_KITTY = "♦4 ♦6 ♣6 ♣7 ♥8 ♥9 ♦J ♦Q"  # no point, no joker


def score(*, tp, kitty=ZERO_KITTY, last=0, dealer=0, levels=(3, 3), gangguo=False,
          joker_levels=True, keep_dealer="partner", four_joker_win="big_or_small"):
    kit = sc.cards(kitty)
    defenders = dealer % 2
    trick_points = [0, 0]
    trick_points[1 - defenders] = tp
    trick_points[defenders] = 400 - sc.points(kit) - tp
    return score_hand(dealer=dealer, level=levels[defenders], trump=3, levels=list(levels),
                      trick_points=trick_points, kitty=kit, last_trick_team=last,
                      gangguo=gangguo, joker_levels=joker_levels, keep_dealer=keep_dealer,
                      four_joker_win=four_joker_win)


# --- the four outcomes (A6) ---------------------------------------------------------------------

OUTCOMES = [
    # tp, kitty, last-trick team, S, outcome, levels after, next dealer, blood
    (150, ZERO_KITTY, 0, 150, 1, [4, 3], 2, 0),        # 1: S < 160, 保底: defenders up
    (155, "♦5 ♦4 ♦6 ♣6 ♣7 ♥8 ♥9 ♦J", 0, 155, 1, [4, 3], 2, 0),
    (145, "♦5 ♦4 ♦6 ♣6 ♣7 ♥8 ♥9 ♦J", 1, 155, 2, [3, 3], 2, 0),  # 2: 抠底, S < 160
    (160, ZERO_KITTY, 0, 160, 3, [3, 3], 1, 0),        # 3: S >= 160, 保底: deal changes
    (150, "♦5 ♦4 ♦6 ♣6 ♣7 ♥8 ♥9 ♦J", 1, 160, 4, [3, 4], 1, 0),  # 4: 抠底, S >= 160
    (100, "♠K ♥K ♦10 ♦4 ♦6 ♣6 ♣7 ♥8", 1, 160, 4, [3, 4], 1, 0),  # 30 kitty points doubled
    (100, "♠K ♥K ♦10 ♦4 ♦6 ♣6 ♣7 ♥8", 0, 100, 1, [4, 3], 2, 2),  # 保底: kitty not counted
    (155, ZERO_KITTY, 1, 155, 2, [3, 3], 2, 0),        # 抠底 with an empty kitty
]


@pytest.mark.parametrize("tp,kitty,last,S,outcome,after,nxt,blood", OUTCOMES)
def test_outcomes(tp, kitty, last, S, outcome, after, nxt, blood):
    """A6: S = trick points + twice the kitty points on 抠底; outcomes 1..4; who goes up; the
    next dealer [D-A9] (defenders keep -> partner, attackers take -> 下家)."""
    r = score(tp=tp, kitty=kitty, last=last)
    assert (r.score, r.outcome, r.koudi) == (S, outcome, last == 1)
    assert r.levels_after == after and r.next_dealer == nxt and r.blood == blood
    assert r.match_winner is None and r.match_end is None
    assert r.defenders == 0 and r.attackers == 1


@pytest.mark.parametrize("dealer,outcome_tp,last,keep,nxt", [
    (0, 100, 0, "partner", 2), (1, 100, 1, "partner", 3), (3, 100, 1, "partner", 1),
    (0, 100, 0, "same", 0), (3, 100, 1, "same", 3), (2, 100, 1, "same", 2),
    (0, 200, 1, "partner", 1), (3, 200, 0, "partner", 0), (3, 200, 0, "same", 0),
    (0, 150, 1, "same", 0),  # outcome 2 also keeps the deal
])
def test_next_dealer(dealer, outcome_tp, last, keep, nxt):
    """A6 [D-A9]: defenders keep -> the dealer's partner (or the same seat with
    keep_dealer="same"); attackers take -> the old dealer's 下家."""
    assert score(tp=outcome_tp, last=last, dealer=dealer, keep_dealer=keep).next_dealer == nxt


# --- levels, kitty jokers, 逢10必打, passing 10 -------------------------------------------------

JOKER_KITTY = "BJ SJ ♦4 ♦6 ♣6 ♣7 ♥8 ♥9"          # 2 + 1 blood, 2 + 1 extra levels
LEVELS = [
    # tp, kitty, last, levels before, joker_levels, gained, levels after, blood
    (150, JOKER_KITTY, 0, (3, 3), True, [4, 0], [7, 3], 3),    # 1: defenders +1 +3
    (150, JOKER_KITTY, 0, (3, 3), False, [1, 0], [4, 3], 3),   # joker_levels off: blood only
    (150, JOKER_KITTY, 1, (3, 3), True, [0, 0], [3, 3], 0),    # 2: kitty jokers void
    (170, JOKER_KITTY, 0, (3, 3), True, [0, 0], [3, 3], 3),    # 3: attackers get the blood
    (170, JOKER_KITTY, 1, (3, 3), True, [0, 4], [3, 7], 3),    # 4: attackers +1 +3
    (170, JOKER_KITTY, 1, (3, 3), False, [0, 1], [3, 4], 3),
    (150, "BJ BJ BJ SJ SJ SJ ♦4 ♦6", 0, (3, 5), True, [7, 0], [10, 5], 9),  # +10 -> stops at 10
    (150, JOKER_KITTY, 0, (8, 3), True, [2, 0], [10, 3], 3),   # 逢10必打: 8 + 4 -> 10
    (150, ZERO_KITTY, 0, (9, 3), True, [1, 0], [10, 3], 0),
    (170, JOKER_KITTY, 1, (3, 9), True, [0, 1], [3, 10], 3),   # attackers 9 + 4 -> 10
    (170, ZERO_KITTY, 1, (3, 10), True, [0, 0], [3, 10], 0),   # attackers at 10 stay at 10
    (165, ZERO_KITTY, 1, (10, 10), True, [0, 0], [10, 10], 0),
    (210, JOKER_KITTY, 1, (3, 3), True, [0, 4], [3, 7], 4),    # score blood + joker blood
    (95, JOKER_KITTY, 0, (3, 3), True, [4, 0], [7, 3], 5),     # (120 - 95) // 10 = 2, + 3
]


@pytest.mark.parametrize("tp,kitty,last,before,joker_levels,gained,after,blood", LEVELS)
def test_levels_and_blood(tp, kitty, last, before, joker_levels, gained, after, blood):
    """A6 [D-A8]: 1 level, +2 per BJ and +1 per SJ in the kitty with the kitty-joker reward
    (outcomes 1 and 4; joker_levels=False: blood only); outcome 3 gets the jokers' blood only;
    outcome 2 voids them; nobody passes 10 in a jump (逢10必打)."""
    r = score(tp=tp, kitty=kitty, last=last, levels=before, joker_levels=joker_levels)
    assert r.gained == gained and r.levels_after == after and r.blood == blood
    assert r.levels_before == list(before)
    assert r.match_winner is None


@pytest.mark.parametrize("tp,last,levels,winner", [
    (150, 0, (10, 3), 0),      # defenders at 10 go up: they pass 10 and win
    (150, 0, (10, 10), 0),
    (150, 1, (10, 3), None),   # outcome 2: nobody goes up
    (170, 1, (3, 10), None),   # attackers at 10 going up stay at 10 (they become dealers)
    (170, 0, (10, 3), None),   # outcome 3
])
def test_passing_10(tp, last, levels, winner):
    """A6: a team passes 10 (and wins the match) only when it goes up as defenders in a hand
    played at its level 10."""
    r = score(tp=tp, last=last, levels=levels)
    assert r.match_winner == winner
    if winner is not None:
        assert r.match_end == "pass_10" and r.next_dealer is None
    else:
        assert 10 in r.levels_after and max(r.levels_after) == 10


def test_passing_10_dealer_team_1():
    """A6: the same with team 1 dealing (dealer seat 3 at 10)."""
    r = score(tp=100, last=1, dealer=3, levels=(4, 10))
    assert r.defenders == 1 and r.outcome == 1
    assert r.match_winner == 1 and r.match_end == "pass_10"


# --- blood from the score ------------------------------------------------------------------------

BLOOD = [(0, 12), (5, 11), (10, 11), (15, 10), (105, 1), (110, 1), (115, 0), (120, 0),
         (150, 0), (160, 0), (200, 0), (205, 0), (210, 1), (215, 1), (220, 2), (395, 19),
         (400, 20)]


@pytest.mark.parametrize("S,blood", BLOOD)
def test_score_blood(S, blood):
    """A6: floor((120 - S) / 10) below 120, floor((S - 200) / 10) above 200, the 5 dropped."""
    assert score_blood(S) == blood


@pytest.mark.parametrize("S,blood", [(s, b) for s, b in BLOOD if 0 < s < 400])
def test_hand_blood_from_score(S, blood):
    """A6: the hand's blood (no kitty jokers) is the score's, whichever side earned it."""
    last = 1 if S >= 160 else 0
    assert score(tp=S, last=last).blood == blood


# --- instant match ends ---------------------------------------------------------------------------

FOUR_BJ = "BJ BJ BJ BJ ♦4 ♦6 ♣6 ♣7"
FOUR_SJ = "SJ SJ SJ SJ ♦4 ♦6 ♣6 ♣7"
ENDS = [
    # tp, kitty, last, four_joker_win, gangguo, winner, reason
    (0, ZERO_KITTY, 0, "big_or_small", False, 0, "zero"),
    (0, ZERO_KITTY, 1, "big_or_small", False, 0, "zero"),   # 抠底 of an empty kitty: S = 0
    (400, ZERO_KITTY, 1, "big_or_small", False, 1, "400"),
    (400, ZERO_KITTY, 0, "big_or_small", False, 1, "400"),
    (380, "♦K ♥K ♦4 ♦6 ♣6 ♣7 ♥8 ♥9", 1, "big_or_small", False, 1, "400"),  # 380 + 2 x 20
    (100, FOUR_BJ, 0, "big_or_small", False, 0, "four_jokers"),   # outcome 1
    (170, FOUR_BJ, 1, "big_or_small", False, 1, "four_jokers"),   # outcome 4
    (150, FOUR_BJ, 1, "big_or_small", False, None, None),         # outcome 2
    (170, FOUR_BJ, 0, "big_or_small", False, None, None),         # outcome 3
    (100, FOUR_SJ, 0, "big_or_small", False, 0, "four_jokers"),
    (170, FOUR_SJ, 1, "big_or_small", False, 1, "four_jokers"),
    (100, FOUR_SJ, 0, "big_only", False, None, None),
    (170, FOUR_SJ, 1, "big_only", False, None, None),
    (100, FOUR_BJ, 0, "big_only", False, 0, "four_jokers"),
    (170, FOUR_BJ, 1, "big_only", False, 1, "four_jokers"),
    (100, FOUR_BJ, 0, "big_or_small", True, None, None),          # 干锅: jokers count nothing
    (100, "BJ BJ BJ BJ SJ SJ SJ SJ", 0, "big_or_small", False, 0, "four_jokers"),
]


@pytest.mark.parametrize("tp,kitty,last,four,gangguo,winner,reason", ENDS)
def test_instant_match_ends(tp, kitty, last, four, gangguo, winner, reason):
    """A6: the match ends at once when S = 0 (defenders), S >= 400 (attackers), 4 BJ or 4 SJ
    in the kitty with outcome 1 (defenders) or 4 (attackers) (four_joker_win="big_only": BJ
    only); not from the jokers of a 干锅 kitty."""
    r = score(tp=tp, kitty=kitty, last=last, four_joker_win=four, gangguo=gangguo)
    assert (r.match_winner, r.match_end) == (winner, reason)
    if winner is not None:
        assert r.next_dealer is None


def test_gangguo_voids_kitty_jokers():
    """A4/A6: in a 干锅 hand kitty jokers bring no levels and no blood (outcomes 1, 3, 4)."""
    for tp, last in ((100, 0), (170, 0), (170, 1)):
        r = score(tp=tp, kitty=JOKER_KITTY, last=last, gangguo=True)
        assert r.kitty_jokers == (0, 0) and r.gangguo
        assert r.blood == score_blood(r.score) and max(r.gained) <= 1


def test_kitty_points_doubled_once_whatever_the_shape():
    """A6 抠底 (不论用几张牌抠底...只翻两倍): the engine's score is trick points + 2 x kitty
    points when the attackers win the last trick, and nothing of the kitty otherwise.
    ``score_hand`` sees only who won the last trick, never its shape, so the doubling cannot
    depend on the shape; random hands (leads biased to groups) check the engine's bookkeeping."""
    import random
    from cardenv.dabang.game import DabangGame

    game = DabangGame()
    koudi = 0
    for seed in range(60):
        st = game.new_state(seed)
        rng = random.Random(seed)
        while not st.is_over:
            legal = st.legal_actions()
            if st.phase == "play" and st.trick.led_kind < 0 and rng.random() < 0.7:
                st.apply(max(legal, key=lambda a: ((a - 134) % 4, rng.random())))
            else:
                st.apply(rng.choice(legal))
        r = st.results[-1]
        koudi += r.koudi
        assert r.koudi == (r.attackers == st.last_trick_team)
        assert r.score == r.trick_points[r.attackers] + (2 * r.kitty_points if r.koudi else 0)
        assert r.kitty_points == sc.points(st.kitty.cards)
    assert 0 < koudi < 60
