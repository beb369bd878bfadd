"""Finished hands in words (cardenv.text.explain, the renders' result lines): what an outcome
means, not only its number.

Dabang rows cite rules section 5 (docs/rules/dabang.md): a hand scored by ``scoring.settle`` and
the words its explanation must hold. Dagong: one hand of each kind of result, found in seeded
games, explained per rules section 4 (docs/rules/dagong.md), and the 硬牌 table showing no partner.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
import pytest

from cardenv.core.lang import translate
from cardenv.dabang.presentation import explain_result as dabang_explain
from cardenv.dabang.presentation import explain_watched as dabang_watched
from cardenv.dabang.presentation import result_line
from cardenv.dabang.scoring import settle
from cardenv.dagong import DagongGame
from cardenv.text import explain, render

CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


class Hand(NamedTuple):
    clause: str
    levels: tuple
    score: int  # the attackers' trick points
    koudi: bool
    jokers: tuple  # (big, small) in the final kitty
    says: tuple


# dealer seat 0: team 0 defends, team 1 attacks
HANDS = [
    Hand("outcome 1: S < 160, 保底: the defenders keep the deal and go up one level", (3, 3), 130,
         False, (0, 0), ("Outcome 1:", "so the defenders keep the deal (player_2 deals next)",
                         "the defenders (team 0) go up 1 level, to level 4.")),
    Hand("[D-A8]: two levels per big joker, one per small joker in the kitty", (3, 3), 100, False,
         (1, 1), ("go up 4 levels, to level 7: 1, plus 3 for the jokers in the 底牌",
                  "Blood 5 for the next hand (2 from the score",
                  "3 from the jokers in the 底牌")),
    Hand("outcome 2: S < 160 but 抠底: the defenders keep the deal, nobody goes up", (3, 3), 120,
         True, (0, 0), ("Outcome 2:", "the defenders keep the deal",
                        "nobody goes up: 抠底 spoils the defenders' going up")),
    Hand("outcome 3: S >= 160, 保底: the attackers take the deal, nobody goes up", (3, 3), 170,
         False, (0, 0), ("Outcome 3:", "the attackers take the deal (player_1 deals next)",
                         "nobody goes up: the attackers go up only with 抠底")),
    Hand("outcome 4: S >= 160 and 抠底: the attackers take the deal and go up", (3, 5), 180, True,
         (0, 0), ("Outcome 4:", "the attackers (team 1) go up 1 level, to level 6")),
    Hand("逢10必打: a team stops at 10", (8, 3), 100, False, (1, 1),
         ("go up 2 levels, to level 10", "stopping at 10 (逢10必打)")),
    Hand("passing 10 as the defenders wins the match", (10, 3), 100, False, (0, 0),
         ("the defenders (team 0) go up from level 10",
          "The match is over: their team won (the defenders went up from level 10: they pass 10 "
          "and win the match)")),
    Hand("S = 0 ends the match", (3, 3), 0, False, (0, 0),
         ("the defenders win the match at once",)),
]


@pytest.mark.parametrize("hand", HANDS, ids=lambda h: h.clause[:40])
def test_dabang_outcomes_in_words(hand: Hand):
    koudi_points = 10 if hand.koudi else 0
    result = settle(dealer=0, level=hand.levels[0], trump=3, levels=list(hand.levels),
                    trick_points=[400 - hand.score - koudi_points, hand.score],
                    kitty_points=koudi_points, kitty_jokers=hand.jokers, koudi=hand.koudi,
                    gangguo=False, joker_levels=True, keep_dealer="partner",
                    four_joker_win="big_or_small")
    result.rewards = [0.0] * 4
    text = dabang_explain(result, 1, {"joker_levels": True})
    for words in hand.says:
        assert words in text, (hand.clause, text)
    assert not CJK.search(translate(text, "en"))
    line = result_line(1, result)
    assert f"outcome {result.outcome} (" in line and "the deal" in line


def _dagong_results():
    """One finished hand per result reason (and a 硬牌 hand), from seeded random games."""
    found = {}
    for seed in range(80):
        game = DagongGame(allow_solo=seed % 4 == 0)
        state = game.new_state(seed)
        rng = np.random.default_rng(seed)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply(legal[-1] if state.phase == "solo" else int(rng.choice(legal)))
        found.setdefault(state.results[0].reason, state)
        if {"score", "bang", "solo", "tie"} <= set(found):
            break
    return found


def test_dagong_results_in_words():
    """Rules section 4: what decided the hand; end-of-hand transfers only after three players
    went out [DG-10]; a 硬牌 player has no partner."""
    states = _dagong_results()
    assert {"score", "bang", "solo"} <= set(states), set(states)
    for reason, state in states.items():
        result = state.results[0]
        text = explain(state, result, 0)
        transfers = "Points after the end-of-hand transfers" in text
        assert transfers == (reason in ("score", "tie", "qing")), text
        assert not CJK.search(explain(state, result, 0, "en"))
        last = render(state).split("\n")[-1]
        assert last.startswith("Hand 1 result: ") and f", x{result.multiplier}, " in last
    solo = states["solo"]
    text = explain(solo, solo.results[0], solo.results[0].solo)
    # the reader is "you", not a seat number (once 'You lost: player_2 played 硬牌')
    assert "you played 硬牌, one against three" in text and "you settle x" in text
    assert f"player_{solo.results[0].solo} played" in explain(solo, solo.results[0], None)
    assert "no end-of-hand transfer after 硬牌" in text
    table = render(solo)
    assert "partner none (硬牌)" in table and "(明鸡)" not in table.split("\n")[0]
    assert not any(row.split()[1:2] == ["P"] for row in table.split("\n")[2:6])
    bang = states["bang"]
    text = explain(bang, bang.results[0], 0)
    assert "went out first and second and win at once" in text
    assert "no end-of-hand transfer after 绑" in text
    assert render(bang).split("\n")[-1].startswith("Hand 1 result: 绑, x")


@pytest.mark.parametrize("levels, score", [((10, 3), 100), ((3, 3), 0)])
def test_a_match_that_ends_owes_no_blood_to_a_next_hand(levels, score):
    """A hand that ends the match has no next hand: its words owe no blood for one (the
    result keeps the number)."""
    result = settle(dealer=0, level=levels[0], trump=3, levels=list(levels),
                    trick_points=[400 - score, score], kitty_points=0, kitty_jokers=(1, 0),
                    koudi=False, gangguo=False, joker_levels=True, keep_dealer="partner",
                    four_joker_win="big_or_small")
    result.rewards = [0.0] * 4
    assert result.match_winner is not None and result.blood
    for seat in (0, 1, None):
        text = dabang_explain(result, seat, {"joker_levels": True}) if seat is not None else \
            dabang_watched(result, {"joker_levels": True})
        assert "for the next hand" not in text and "deals next" not in text, text


def test_a_forced_solo_reads_the_same_on_the_table_and_in_a_seat_view():
    """A dealer holding both called cards plays alone: the spectator table and each seat's
    view say it in the same words (once 'none (dealer alone)' on the one, '(the dealer holds
    both called cards)' on the other)."""
    state = DagongGame().state_from_hands(["♠3 ♠3 ♥4", "♦5", "♦6", "♦7"], dealer=0,
                                          called="♠3")
    said = "partner none (the dealer holds both called cards)"
    assert said in render(state).split("\n")[0]
    for seat in range(4):
        assert said in render(state, seat=seat).split("\n")[0]


def test_a_match_cut_short_says_no_hand_follows():
    """A Dabang match stopped at max_hands: its last result says that no next hand is dealt
    (its outcome still names who would deal next), for a player and for a watcher."""
    from cardenv.dabang import DabangGame
    state = DabangGame(episode="match", max_hands=1).new_state(2)
    rng = np.random.default_rng(2)
    while not state.is_over:
        state.apply(int(rng.choice(state.legal_actions())))
    assert state.truncated
    for seat in (0, 1, None):
        for lang in ("zh", "en"):
            text = explain(state, state.results[-1], seat, lang)
            assert text.endswith("The match stops here, after 1 hand (the most this game "
                                 "plays): no next hand is dealt, and no team wins the match."), \
                text
            assert "the match goes on" not in text
