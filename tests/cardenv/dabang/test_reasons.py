"""Illegal Dabang moves in words (cardenv.dabang.reasons, cardenv.text.why_illegal).

Table rows, each citing its clause of docs/rules/dabang.md: a follow position (hand, lead,
choice so far, as in test_follow_rules, under trump ♠ at level 6 unless the row says otherwise)
and a step, with the rule the refusal must name and words it must say; each row is also held to
the slow reference (reference_follow) so that it cannot pin a wrong rule. Then positions
searched in seeded games for the other phases (declaring, burial, 扣王, take-back), and a
property test: along random games of several option sets, every legal action gets no reason and
every illegal one a reason whose rule agrees with the engine's legality code.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import NamedTuple

import numpy as np
import pytest

from cardenv.core.cards import BIG_JOKER, SMALL_JOKER, card_str, counts_of, parse_cards
from cardenv.core.errors import IllegalActionError
from cardenv.core.lang import translate
from cardenv.dabang import DabangGame
from cardenv.dabang import catalogue as cat
from cardenv.dabang import declare
from cardenv.dabang.follow import play_steps_one
from cardenv.dabang.phase import Phase
from cardenv.dabang.phases import RULES
from cardenv.dabang.phases.trick import Trick
from cardenv.dabang.reasons import CLAUSES, refusal
from cardenv.text import why_illegal

try:  # tests/dabang as a package or as a plain rootdir-inserted folder
    from . import reference_follow as ref
except ImportError:  # pragma: no cover
    import reference_follow as ref

SPADES, HEARTS, CLUBS, DIAMONDS = 3, 2, 1, 0
CJK = __import__("re").compile(r"[\u3000-\u9fff\uff00-\uffef]")


class Row(NamedTuple):
    clause: str
    hand: str
    led: str  # "2 x ♥K"
    partial: str  # cards chosen so far
    step: str  # "♥9x2": play 2 cards of ♥9 in this step
    rule: str | None  # the rule the refusal names (None: the step is legal)
    says: tuple = ()  # words the reason must contain
    mode: str = "dead"
    trump: int = SPADES
    level: int = 6


SUIT = "section 4: follow suit, trump is one suit"
LEVEL = "section 1: level cards (混牌) and 2s (常主) are trump, whatever their suit"
SHAPE = "section 4: 死棒 [D-A7]"
ROWS = [
    Row("a player plays only cards it holds", "♣8 ♣4 ♣5 ♣9 ♣9", "2 x ♣K", "", "♣8x2",
        "not_held", ("you do not hold ♣8 ♣8 (you hold 1)",)),
    Row(SUIT, "♥4 ♣4 ♣5", "1 x ♥K", "", "♣4x1", "suit",
        ("you must follow the led suit, ♥", "1 ♥ card (♥4)", "♣4 is not ♥")),
    Row(LEVEL + "; " + SUIT, "♦6 ♦4 ♣5", "1 x ♦K", "", "♦6x1", "suit",
        ("♦6 is of the level rank (a 混牌) and counts as 主牌, not as ♦",)),
    Row(LEVEL + "; " + SUIT, "♦2 ♦4", "1 x ♦K", "", "♦2x1", "suit",
        ("♦2 is a 2 (常主) and counts as 主牌, not as ♦",)),
    Row(LEVEL + "; " + SUIT, "♥6 ♥4", "1 x ♠9", "", "♥4x1", "suit",
        ("you must follow the led suit, 主牌", "(♥6)")),
    Row("section 4: with fewer than k cards of the led suit, all of them plus any others",
        "♥9 ♣4 ♣4", "2 x ♥K", "", "♣4x2", "suit",
        ("you hold only 1 ♥ card, fewer than the 2 to play", "♥9 still to play")),
    Row("section 4: with fewer than k cards of the led suit, all of them plus any others",
        "♥9 ♥9 ♣4 ♣5", "3 x ♥K", "", "♥9x1", "suit", ("play all 2 of ♥9, not 1",)),
    Row(SHAPE + ": a kind held exactly twice makes the duty a 棒", "♥9 ♥9 ♥7 ♣4", "2 x ♥K", "",
        "♥7x1", "shape", ("死棒: a 棒 was led", "make a 棒 (your ♥9 ♥9)")),
    Row(SHAPE + ": a kind held exactly twice, the single chosen first", "♥9 ♥9 ♥7 ♥8",
        "2 x ♥K", "", "♥8x1", "shape", ("make a 棒 (your ♥9 ♥9)", "♥8 cannot make one")),
    Row(SHAPE + ": never forced to break a group (the rules' example: three 9s and a 7)",
        "♥9 ♥9 ♥9 ♥7", "2 x ♥K", "", "♥7x1", None),
    Row(SHAPE + ": a better shape from a broken group", "♥9 ♥9 ♥9 ♥7", "2 x ♥K", "", "♥9x2",
        None),
    Row("section 4: follow=live keeps only the suit rule", "♥9 ♥9 ♥7 ♣4", "2 x ♥K", "",
        "♥7x1", None, mode="live"),
    Row(SHAPE + ": a 滚子 led, a kind held three times", "♠5 ♠5 ♠5 ♠8 ♠9", "3 x ♠K", "",
        "♠8x1", "shape", ("a 滚子 was led", "make a 滚子 (your ♠5 ♠5 ♠5)")),
    Row("[DB-9]: each kind goes into a follow once, as one group", "♥9 ♥9 ♥7 ♥8", "2 x ♥K",
        "♥9", "♥9x1", "repeat", ("you chose ♥9 already",)),
    Row("section 4: every other player plays exactly k cards", "♥9 ♥9 ♥7", "1 x ♥K", "",
        "♥9x2", "count", ("a single was led: you play 1 card, not 2",)),
    Row("section 4: every other player plays exactly k cards", "♥9 ♥7 ♥8 ♥10", "2 x ♥K", "♥7",
        "♥9x1", None),
    Row("[DB-9]: void in the led suit, any cards follow, but a kind goes in once",
        "♦5 ♦5 ♦5", "2 x ♥K", "", "♦5x1", "suit",
        ("you hold no ♥ card, so any cards complete the 2 cards", "each kind goes in once")),
    Row("[DB-9]: the led suit all chosen, the rest free, but a kind goes in once",
        "♥9 ♦5 ♦5 ♦5", "3 x ♥K", "♥9", "♦5x1", "suit",
        ("your ♥ cards are all in", "after ♦5 yours cannot")),
    Row("[DB-9]: void in the led suit, a kind's copies chosen together", "♦5 ♦5 ♦5",
        "2 x ♥K", "", "♦5x2", None),
]


def _cards(text):
    return parse_cards(text) if text else []


def _follow_state(row: Row):
    """A stand-in state of the play phase for one follow row: the attributes the rules read."""
    hand = counts_of(_cards(row.hand))
    partial = counts_of(_cards(row.partial))
    n, card = row.led.split(" x ")
    (led,) = parse_cards(card)
    k = int(n)
    hands = np.zeros((4, 54), dtype=np.int64)
    hands[0] = hand
    state = SimpleNamespace(
        phase=Phase.PLAY, current=0, trump=row.trump, level=row.level,
        v={"hand": hands}, cards_left=[int(hand.sum()), 10, 10, 10],
        game=SimpleNamespace(options={"follow": row.mode}),
        trick=Trick(leader=3, led_kind=led, k=k,
                    partial={j: int(c) for j, c in enumerate(partial) if c},
                    plays=[[3, {led: k}, led, False]], to_play=[0, 1, 2]))
    state.is_legal = lambda action: action in RULES[Phase.PLAY].legal(state)
    return state, hand, partial, led, k


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.hand} | {r.led} | {r.step}")
def test_follow_reasons(row: Row):
    state, hand, partial, led, k = _follow_state(row)
    card, c = row.step.rsplit("x", 1)
    (kind,) = parse_cards(card)
    action = cat.play(kind, int(c))
    allowed = bool(ref.step_mask(hand, partial, led, k, row.trump, row.level,
                                 row.mode == "dead")[action - cat.PLAY])
    assert allowed == (row.rule is None), f"the reference disagrees with the row ({row.clause})"
    found = refusal(state, action)
    if row.rule is None:
        assert found is None, found
        return
    assert found is not None and found.rule == row.rule, (row.clause, found)
    for words in row.says:
        assert words in found.text, (row.clause, found.text)
    english = translate(found.text, "en")
    assert not CJK.search(english), english


# --- the other phases, in positions searched in seeded games ------------------------------------

def _find(options, want, seeds=range(40)):
    """The first state of random games (seeded) where ``want(state)`` holds."""
    game = DabangGame(**options)
    for seed in seeds:
        state = game.new_state(seed)
        rng = np.random.default_rng(seed)
        while not state.is_over:
            if want(state):
                return state
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
    raise AssertionError(f"no position found for {want}")


LATER = {"dealer": 0, "levels": (5, 5)}


def _hand(state):
    return state.v["hand"][state.current]


def test_phase_reasons():
    """Each decision phase takes its own moves (game.py, phases)."""
    state = _find({}, lambda s: s.phase == "play")
    found = refusal(state, cat.bury(0))
    assert found.rule == "phase" and "the tricks are being played" in found.text
    state = _find({}, lambda s: s.phase == "declare")
    assert refusal(state, cat.play(0, 1)).rule == "phase"


def test_grab_reasons():
    """Section 2 [D-A2]: the big-joker grab is for the first hand; there only it declares."""
    state = _find(LATER, lambda s: s.phase == "declare")
    found = refusal(state, cat.GRAB)
    assert found.rule == "grab" and "first hand only" in found.text
    state = _find({}, lambda s: s.phase == "declare")
    found = refusal(state, cat.declare_level(HEARTS, 1))
    assert found.rule == "grab" and "only grabbed with a big joker" in found.text


def test_declaration_reasons():
    """Section 2 [D-A4]: a declaration shows the level cards it names and overrides only a
    strictly higher one."""
    level_kind = lambda s, suit: (s.level - 3) * 4 + suit  # noqa: E731

    def equal_rank_possible(s):
        if s.phase != "declare" or not s.deal.decl:
            return False
        n = declare.rank_of(s.deal.decl)
        return n <= 4 and any(_hand(s)[level_kind(s, suit)] >= n for suit in range(4))

    state = _find(LATER, equal_rank_possible)
    n = declare.rank_of(state.deal.decl)
    suit = next(suit for suit in range(4) if _hand(state)[level_kind(state, suit)] >= n)
    found = refusal(state, cat.declare_level(suit, n))
    assert found.rule == "declare_rank" and "strictly more" in found.text
    assert f"by player_{state.deal.declarer}" in found.text
    state = _find(LATER, lambda s: s.phase == "declare" and _hand(s)[level_kind(s, SPADES)] < 4)
    found = refusal(state, cat.declare_level(SPADES, 4))
    assert found.rule == "not_held" and "is the 混牌 of ♠ at level 5" in found.text


def test_burial_reasons():
    """Section 3: the dealer buries cards it holds, a big joker before any small one."""
    state = _find(LATER, lambda s: s.phase == "bury" and _hand(s)[BIG_JOKER]
                  and _hand(s)[SMALL_JOKER])
    found = refusal(state, cat.bury(SMALL_JOKER))
    assert found.rule == "joker_order" and "you still hold BJ" in found.text
    missing = int(np.flatnonzero(_hand(state) == 0)[0])
    assert refusal(state, cat.bury(missing)).rule == "not_held"


def test_koujoker_and_takeback_reasons():
    """Section 3 [D-A6], [DB-7]: 扣王 buries jokers only; the take-back is of the smallest
    non-point cards."""
    state = _find(LATER, lambda s: s.phase == "koujoker", seeds=range(200))
    natural = int(np.flatnonzero(_hand(state)[:52])[0])
    found = refusal(state, cat.bury(natural))
    assert found.rule == "koujoker" and "扣王 buries jokers only" in found.text
    state = _find(LATER, lambda s: s.phase == "takeback", seeds=range(400))
    legal = state.legal_actions()
    other = next(cat.take(k) for k in range(52) if cat.take(k) not in legal)
    found = refusal(state, other)
    assert found.rule == "takeback" and "smallest non-point cards" in found.text


def test_turn_over_and_range():
    state = _find({}, lambda s: s.phase == "play")
    assert refusal(state, cat.NUM_ACTIONS).rule == "range"
    other = (state.current + 1) % 4
    assert refusal(state, state.legal_actions()[0], seat=other).rule == "turn"
    assert refusal(state, state.legal_actions()[0], seat=state.current) is None
    game = DabangGame()
    over = game.new_state(0)
    rng = np.random.default_rng(0)
    while not over.is_over:
        over.apply(int(rng.choice(over.legal_actions())))
    assert refusal(over, 0).rule == "over"


def test_the_refusal_reaches_illegal_action_errors_and_both_languages():
    """``state.apply`` keeps the ids and the legal list programs read, and adds the reason;
    ``text.why_illegal`` writes it in the chosen language."""
    state = _find({}, lambda s: s.phase == "play" and s.trick.plays and s.trick.k == 1
                  and not s.trick.partial)
    hand = _hand(state)
    missing = next(k for k in range(52) if hand[k] == 0)
    action = cat.play(missing, 1)
    with pytest.raises(IllegalActionError, match=rf"illegal action {action} \(single .*\) for "
                       rf"player_{state.current} in the play phase: you do not hold .*; legal "
                       rf"actions: "):
        state.apply(action)
    assert why_illegal(state, state.legal_actions()[0]) is None
    state = _find({}, lambda s: s.phase == "declare")
    zh = why_illegal(state, cat.declare_level(HEARTS, 1))
    en = why_illegal(state, cat.declare_level(HEARTS, 1), "en")
    assert "(抢亮大王)" in zh and "(big-joker grab)" in en
    assert not CJK.search(en) and en == translate(zh, "en")


# --- property: the rule named agrees with the engine's legality, for random states ---------------

OPTION_SETS = [{}, {"follow": "live"}, {"dealer": "random", "levels": "random"},
               {"dealer": 1, "levels": (5, 7), "blood": 4, "tribute_return": "dealer_choice"}]


def _expected_play_rule(state, action):
    """The follow rule an illegal play step breaks, from the engine's own step function."""
    t, seat = state.trick, state.current
    hand = _hand(state).tolist()
    kind, count = divmod(action - cat.PLAY, 4)
    count += 1
    if kind in t.partial:
        return "repeat"
    if hand[kind] < count:
        return "not_held"
    size = state.cards_left[seat]
    if count > min(t.k, size) - sum(t.partial.values()):
        return "count"
    step = action - cat.PLAY
    args = (hand, t.partial, t.led_kind, t.k, state.trump, state.level)
    if step not in play_steps_one(*args, False, size):
        return "suit"
    assert state.game.options["follow"] == "dead"
    assert step not in play_steps_one(*args, True, size)
    return "shape"


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: str(o) or "default")
def test_every_illegal_action_gets_the_rule_it_breaks(options):
    game = DabangGame(**options)
    seen_legal, refused_phase, rules = set(), set(), set()
    for seed in range(5):
        state = game.new_state(seed)
        rng = np.random.default_rng(100 + seed)
        while not state.is_over:
            legal = state.legal_actions()
            phase = state.phase
            seen_legal |= {(phase, cat.ACTIONS[a].type) for a in legal}
            probe = rng.integers(cat.NUM_ACTIONS, size=4).tolist()
            if phase == Phase.PLAY:
                probe += (cat.PLAY + rng.integers(4 * 54, size=6)).tolist()
            for action in probe + legal[:2]:
                found = refusal(state, action)
                if action in legal:
                    assert found is None, (action, found)
                    continue
                assert found is not None and found.text and found.rule in CLAUSES, action
                assert found.rule != "other", (action, found)
                rules.add(found.rule)
                info = cat.ACTIONS[action]
                if found.rule == "phase":
                    refused_phase.add((phase, info.type))
                elif phase == Phase.PLAY:
                    assert found.rule == _expected_play_rule(state, action), (action, found)
                elif found.rule == "not_held":
                    shown = {"bury": (info.kind, 1), "return": (info.kind, 1),
                             "grab": (BIG_JOKER, 1)}.get(info.type)
                    if shown is not None:
                        assert _hand(state)[shown[0]] < shown[1], (action, found)
            state.apply(legal[rng.integers(len(legal))])
    assert not refused_phase & seen_legal, refused_phase & seen_legal
    assert {"phase", "not_held", "suit", "count"} <= rules, rules
    if game.options["follow"] == "dead" and not options:
        assert "shape" in rules


def test_held_cards_refused_in_the_play_read_as_sentences():
    """Every illegal play of cards the seat holds, along random games: a follow reason that
    names what is wrong, never a count of zero or an empty list (the void follower's rows
    above: rules section 4, [DB-9])."""
    game = DabangGame()
    for seed in range(12):
        state = game.new_state(seed)
        rng = np.random.default_rng(seed)
        while not state.is_over:
            if state.phase == Phase.PLAY and state.trick.led_kind >= 0:
                hand = _hand(state)
                legal = set(state.legal_actions())
                for action in range(cat.PLAY, cat.PLAY + 4 * 54):
                    info = cat.ACTIONS[action]
                    if action in legal or hand[info.kind] < info.count:
                        continue
                    found = refusal(state, action)
                    assert found is not None and found.rule != "not_held", action
                    text = found.text
                    assert "only 0" not in text and "( " not in text and "()" not in text, text
            state.apply(int(rng.choice(state.legal_actions())))


def test_a_group_split_from_its_copies_is_told_so():
    """死棒: a single of a kind whose pair makes the duty shape reads '♠4 alone (you hold 2)',
    not '♠4 cannot make one' beside 'your ♠4 ♠4'."""
    from cardenv.text import why_illegal
    game = DabangGame()
    found = 0
    for seed in range(6):
        state, rng = game.new_state(seed), np.random.default_rng(seed)
        while not state.is_over and found < 3:
            for action in range(game.num_actions):
                reason = why_illegal(state, action)
                if reason and reason.startswith("死棒") and \
                        reason.endswith(f"{card_str(game.action_info(action).kind)} cannot "
                                        f"make one"):
                    kind = game.action_info(action).kind
                    assert state.v["hand"][state.current][kind] <= \
                        game.action_info(action).count, reason
                if reason and " alone (you hold " in reason:
                    found += 1
            state.apply(int(rng.choice(state.legal_actions())))
    assert found


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_numpy_action_ids_read_as_python_ones_and_bools_never(game):
    """core.refusals.before_rules, shared by both games: an np.int64 id is the int it stands
    for, a bool is no action id, and an id out of range is named as the number it is."""
    from cardenv.games import make_game
    state = make_game(game).new_state(0)
    legal = state.legal_actions()
    illegal = next(a for a in range(state.game.num_actions) if a not in legal)
    assert why_illegal(state, np.int64(legal[0])) is None
    assert why_illegal(state, np.int64(illegal)) == why_illegal(state, illegal)
    assert "True is not an action" in why_illegal(state, True)
    assert why_illegal(state, np.uint64(2 ** 64 - 1)).startswith("18446744073709551615 is not")
