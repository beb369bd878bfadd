"""Illegal Dagong moves in words (cardenv.dagong.reasons, cardenv.text.why_illegal).

Table rows, each citing its clause of docs/rules/dagong.md: a position dealt by hand
(``state_from_hands``), the moves played before, the action tried, the rule the refusal must name
and words it must say. Then a property test: along random games, every legal action gets no
reason and every illegal one a reason whose rule agrees with the engine's legality tables
(``legality.feasible`` for what the hand can make, ``catalogue.BEATS`` for what beats the
standing play).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
import pytest

from cardenv.core.errors import IllegalActionError
from cardenv.core.lang import translate
from cardenv.dagong import DagongGame, legality
from cardenv.dagong import catalogue as cat
from cardenv.dagong.reasons import CLAUSES, refusal
from cardenv.text import why_illegal

from .util import act

CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")

# player_0 deals and calls ♠A; player_2 holds the other ♠A (the partner)
HANDS = ("♠A ♥A ♠3 ♥6 ♣6 ♠5 ♠10 ♠K ♦7 ♣7 ♥7 ♠7 SJ",
         "♣3 ♦4 ♦4 ♥5 ♣10 ♦K ♦8 ♣8 ♥8 ♠8 ♥9",
         "♠A ♦3 ♣4 ♦5 ♥10 ♣K ♣9 ♣9 ♣Q BJ",
         "♥3 ♥4 ♣5 ♦10 ♥K ♦J ♦J ♦Q ♦Q ♠2 SJ")
STRAIGHT = "section 3, Turns and tricks"


class Row(NamedTuple):
    clause: str
    before: tuple  # actions played first, from the dealer's lead
    action: int
    rule: str | None  # None: legal
    says: tuple = ()


SINGLE_6 = act("single", "6")
ROWS = [
    Row(STRAIGHT + ": a leader must play", (), cat.PASS, "lead", ("you lead this trick",)),
    Row("section 2: a play is made of cards the player holds", (), act("pair", "9"),
        "not_held", ("your hand cannot make pair 9", "it takes 2 cards of 9",
                     "you hold 0 x 9 and 1 joker")),
    Row("section 2: a joker stands in (the dealer's ♦7s and SJ make 5, not 6)", (),
        cat.action_id("bomb", 6, 4, 2), "not_held",
        ("6 cards of 7 (2 of them jokers)", "you hold 4 x 7 and 1 joker")),
    Row("section 2: a single is one card", (), act("single", "9"), "not_held",
        ("it takes 1 card of 9;",)),
    Row("section 2: 正510K, one suit", (), cat.action_id("510k", 3, suit=2), "not_held",
        ("it takes a 5, 10, K of one suit",)),
    Row("section 2: the 510K of ♠ is made", (), cat.action_id("510k", 3, suit=3), None),
    Row("section 3, 明鸡 [DG-7]: the pair of As needs the called ♠A", (), act("pair", "A"),
        "called", ("can only be made with your called card ♠A",
                   "choose 'pair A incl. called card'")),
    Row("section 3, 明鸡 [DG-7]: the called card played", (), act("pair", "A", called=True), None),
    Row("section 3, 明鸡 [DG-7]: a play that holds no called card", (),
        act("single", "3", called=True), "called",
        ("your called card ♠A is not part of single 3",)),
    Row("section 3, 明鸡: only a holder plays the called card", (SINGLE_6,),
        act("single", "8", called=True), "called", ("you do not hold the called card ♠A",)),
    Row("section 2, Comparison: same type and length, higher", (SINGLE_6,), act("single", "4"),
        "beat", ("it does not beat single 6 by player_0 (not higher)",)),
    Row("section 2, Comparison: the same type of play", (SINGLE_6,), act("pair", "4"), "beat",
        ("only the same kind of play of 1 card with a higher rank, or a bomb",)),
    Row("section 2, Comparison: every bomb beats every non-bomb", (SINGLE_6,),
        cat.action_id("bomb", 4, 5), None),
    Row("section 2, Comparison [D-B2]: a bomb is beaten only by a higher bomb",
        (cat.action_id("bomb", 4, 4),), act("single", "K"), "beat",
        ("only a higher bomb beats a bomb, and this is not a bomb",)),
    Row("section 2, bomb order [D-B2]: a 4-card bomb does not beat a 5-card one",
        (cat.action_id("bomb", 5, 4, 1),), cat.action_id("bomb", 4, 5), "beat",
        ("it does not beat bomb 5x7 with 1 joker", "this is not a higher one")),
]


def _state(before=()):
    state = DagongGame(allow_solo=False).state_from_hands(HANDS, dealer=0, called="♠A")
    for action in before:
        state.apply(action)
    return state


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.clause[:40] + " " + str(r.action))
def test_reason_rows(row: Row):
    state = _state(row.before)
    found = refusal(state, row.action)
    assert state.is_legal(row.action) == (row.rule is None), row.clause
    if row.rule is None:
        assert found is None, found
        return
    assert found is not None and found.rule == row.rule, (row.clause, found)
    for words in row.says:
        assert words in found.text, (row.clause, found.text)
    assert not CJK.search(translate(found.text, "en"))


def test_solo_phase_and_turn_and_over():
    """Section 3, Going solo [DG-6]: 硬牌 is decided in turn before the first play."""
    state = DagongGame().state_from_hands(HANDS, dealer=0, called="♠A")
    assert state.phase == "solo"
    found = refusal(state, SINGLE_6)
    assert found.rule == "solo_phase" and "declines or declares 硬牌" in found.text
    assert "declines or declares solo" in why_illegal(state, SINGLE_6, "en")
    state.apply(cat.SOLO_DECLARE)
    found = refusal(state, cat.SOLO_DECLINE)
    assert found.rule == "solo_phase" and "the play has begun" in found.text
    assert refusal(state, SINGLE_6, seat=2).rule == "turn"
    assert refusal(state, cat.NUM_ACTIONS).rule == "range"
    over = DagongGame().new_state(1)
    rng = np.random.default_rng(1)
    while not over.is_over:
        over.apply(int(rng.choice(over.legal_actions())))
    assert refusal(over, cat.PASS).rule == "over"


def test_illegal_action_error_names_the_reason():
    state = _state((SINGLE_6,))
    with pytest.raises(IllegalActionError, match=r"illegal action \d+ \(single 4\) for player_1 "
                       r"in the play phase: it does not beat single 6 by player_0 \(not "
                       r"higher\); legal actions: 0 \(pass\)"):
        state.apply(act("single", "4"))


def _expected_rule(state, action):
    """The rule an illegal action breaks, from the engine's tables."""
    if state.phase == "solo":
        return "solo_phase"
    if action in (cat.SOLO_DECLINE, cat.SOLO_DECLARE):
        return "solo_phase"
    if action == cat.PASS:
        return "lead"
    hand = state.v["hand"][state.current]
    feasible = legality.feasible(hand, state.called)
    if not feasible[action]:
        info = cat.ACTIONS[action]
        twin = action + (-cat.NUM_COMBOS if info.called else cat.NUM_COMBOS)
        return "called" if (info.called and not hand[state.called]) or feasible[twin] \
            else "not_held"
    row = cat.LEAD_ROW if state.standing < 0 else cat.combo_of(state.standing)
    assert not cat.BEATS[row, action]
    return "beat"


@pytest.mark.parametrize("options", [{"hands": 2}, {"allow_solo": False}], ids=str)
def test_every_illegal_action_gets_the_rule_it_breaks(options):
    game = DagongGame(**options)
    rules = set()
    for seed in range(4):
        state = game.new_state(seed)
        rng = np.random.default_rng(50 + seed)
        while not state.is_over:
            legal = state.legal_actions()
            probe = rng.integers(cat.NUM_ACTIONS, size=12).tolist() + [0, 1, 2]
            for action in probe + legal[:2]:
                found = refusal(state, action)
                if action in legal:
                    assert found is None, (action, found)
                    continue
                assert found is not None and found.text and found.rule in CLAUSES, action
                assert found.rule == _expected_rule(state, action), (action, found)
                rules.add(found.rule)
            state.apply(legal[rng.integers(len(legal))])
    assert {"not_held", "called", "beat", "lead"} <= rules, rules
