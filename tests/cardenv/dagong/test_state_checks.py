"""Table-driven checks of ``DagongState.from_dict``: a saved state is its recipe (the options,
the seed, the custom deal, the history, and the integrity fields results and crc), and every
corruption of one is a ``StateError`` naming the field, or the first step of the history that
breaks a rule (``history[k]: illegal action ... : <the rule's words>``); bad options are a
``ConfigError``.

Each row cites the rule it checks. The rules that format 3 checked field by field (cards
conserved, the play to beat, whose turn, the solo phase, the called card and the partner, the
hands of a match) are checked through replay: a history step that breaks the rule, a custom deal
that breaks it, or an edited seed, option or result that the replay contradicts.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from cardenv.core.cards import NUM_KINDS
from cardenv.core.errors import ConfigError, StateError
from cardenv.dagong import DagongGame, DagongState
from cardenv.dagong import catalogue as cat
from cardenv.dagong.reasons import CLAUSES, refusal
from tests.cardenv.dagong.util import sample_positions
from tests.state_mutations import rule_breaking_step

POSITIONS = {
    **{name: s for name, s in sample_positions({}, 11).items()},
    **{f"no_solo_{name}": s for name, s in sample_positions({"allow_solo": False}, 7).items()},
    **{f"hands3_{name}": s for name, s in sample_positions({"hands": 3}, 5).items()},
    # hands dealt by hand: a puzzle (two hands, the second from the seed) and its first moves
    "custom": DagongGame(hands=2, allow_solo=False).state_from_hands(
        ["♠3 ♦4 ♦5 ♥K", "♣6 ♣9 ♣10", "♠3 ♥7 ♥5", "♠8 ♠J ♠Q"], dealer=0, called="♠3", seed=4),
}


def recipe(position: str) -> dict:
    return json.loads(json.dumps(POSITIONS[position].to_dict()))


# --- a history step that breaks a rule is refused, naming the step and the rule -----------------

# (position, the rule (reasons.CLAUSES), its clause, where: "end" appends the step to the
# position's history, "middle" puts it in the history's second half, replacing a step)
STEP_RULES = [
    ("start", "solo_phase", "[DG-6] before the first play each player in turn decides 硬牌; "
                            "no card is played in the solo phase", "end"),
    ("leading", "solo_phase", "[DG-6] 硬牌 is decided before the first play, not after", "end"),
    ("no_solo_start", "solo_phase", "option allow_solo=False: nobody declares 硬牌", "end"),
    ("leading", "lead", "section 3: the leader of a trick plays; only a follower passes", "end"),
    ("no_solo_start", "lead", "section 3: the dealer leads the first trick", "end"),
    ("hands3_new_hand", "solo_phase", "[DG-6] a later hand's solo phase, from its dealer", "end"),
    ("mid_trick_0", "beat", "[D-B2] a play beats the play to beat: same type and length, "
                            "higher, or a higher bomb", "end"),
    ("hands3_mid_trick_1", "beat", "[D-B2] the play to beat, in a later hand", "end"),
    ("over", "beat", "[D-B2] the play to beat, at a step inside the history", "middle"),
    ("mid_trick_0", "not_held", "[D-B1] a play is made of cards the player holds (the 108 cards "
                                "are conserved)", "end"),
    ("no_solo_after_out", "not_held", "[D-B1] cards held, after a player went out", "end"),
    ("hands3_over", "not_held", "[D-B1] cards held, at a step of a later hand", "middle"),
    ("mid_trick_0", "called", "[DG-7] 明鸡: only the holder of the called card plays it, "
                              "and a play keeps it back or plays it", "end"),
    ("no_solo_after_out", "called", "[DG-7] the called card, once the partner is known", "end"),
    ("over", "over", "the episode ends with its last hand: no step after it", "end"),
    ("hands3_over", "over", "option hands=3: the episode ends after three hands", "end"),
    ("custom", "lead", "a hand dealt by hand: its dealer leads", "end"),
]


@pytest.mark.parametrize("position, rule, clause, where", STEP_RULES,
                         ids=[f"{p}-{r}-{w}" for p, r, _, w in STEP_RULES])
def test_a_step_that_breaks_a_rule_is_refused_naming_it(position, rule, clause, where):
    data = recipe(position)
    DagongState.from_dict(data)  # the position itself loads
    start = len(data["history"]) if where == "end" else len(data["history"]) // 2
    k, before, action, mutated = rule_breaking_step(DagongState, data, refusal, rule, start)
    assert (k == len(data["history"])) == (where == "end")
    words = refusal(before, action).text
    with pytest.raises(StateError) as info:
        DagongState.from_dict(mutated)
    message = str(info.value)
    if rule == "over":
        expected = rf"history\[{k}\]: the episode is over; no action is legal"
    else:
        expected = (rf"history\[{k}\]: illegal action {action} \(.*\) for player_"
                    rf"{before.current} in the {before.phase} phase: {re.escape(words)}; legal "
                    rf"actions: .*")
    assert re.fullmatch("saved Dagong state: " + expected, message), message
    assert rule in CLAUSES and "\n" not in message


# --- every other corruption is refused, naming the field ----------------------------------------

def custom(change):
    """A corruption of the custom deal: ``change(deal)`` edits it in place."""
    return lambda d, s: change(d["deal"])


def third_copy(deal):
    kind = deal["hands"][0][0]
    deal["hands"][1] += [kind, kind]


def called_to_a_seat_without_it(deal):
    deal["dealer"] = next(s for s in range(4) if deal["called"] not in deal["hands"][s])


def twin_not_dealt(deal):
    for hand in deal["hands"][1:]:
        while deal["called"] in hand:
            hand.remove(deal["called"])


def swap_cards(deal):
    """A card of seat 1 swapped with one of seat 3 (the first different ones)."""
    a, b = deal["hands"][1], deal["hands"][3]
    a[0], b[0] = b[0], a[0]


def forced_solo_declines(d, s):
    """The dealer dealt both called cards plays alone: no 硬牌 decision is asked."""
    d["deal"]["hands"][2].remove(d["deal"]["called"])
    d["deal"]["hands"][0].append(d["deal"]["called"])
    d["history"] = [cat.SOLO_DECLINE]
    d.pop("crc"), d.pop("results")


def solo_without_allow_solo(d, s):
    d["history"].append(cat.SOLO_DECLARE)  # legal in the solo phase of the start position
    d["options"]["allow_solo"] = False
    d.pop("crc"), d.pop("results")


def set_result(i, key, value):
    return lambda d, s: d["results"][i].__setitem__(key, value)


def differs(key="\\w+", i=0):
    """The refusal of a saved result that the replay does not give (naming the item)."""
    return rf"results\[{i}\]\['{key}'\] is .* in the saved state but .* on replay"


NOT_WHAT_IT_GIVES = differs()
ANOTHER_POSITION = r"its recipe replays to another position \(crc \d+, saved \d+\)"

# (position, what the row checks, corruption, message fragment)
CORRUPTIONS = [
    # format 1's derived fields and format 3's stored fields are not read any more
    ("start", "format 1's partner", lambda d, s: d.update(partner=7),
     r"unknown keys \['partner'\]"),
    ("start", "format 1's won", lambda d, s: d.update(won=[200, 0, 0, 0]),
     r"unknown keys \['won'\]"),
    ("start", "format 1's returns", lambda d, s: d.update(returns=[1, 0, 0, 0]), "unknown keys"),
    ("start", "format 3's fields", lambda d, s: d.update(buffer=[], rng={}, standing=-1,
                                                         deal_order=[]),
     r"unknown keys \['buffer', 'deal_order', 'rng', 'standing'\]"),
    ("start", "format 1", lambda d, s: d.update(format="cardenv.dagong.state/1"),
     "old format 'cardenv.dagong.state/1'.*replay"),
    ("start", "format 3 lacks its buffer", lambda d, s: d.update(
        format="cardenv.dagong.state/3"), r"format 'cardenv.dagong.state/3' lacks \['buffer'"),
    ("start", "format", lambda d, s: d.update(format=[]), "not a saved Dagong state"),
    ("start", "a key missing", lambda d, s: d.pop("history"), r"lacks \['history'\]"),
    # the deal of a hand dealt by hand (state_from_hands' own checks)
    ("custom", "[D-B1] two decks: no kind dealt more than twice", custom(third_copy),
     "bad deal: a card kind appears more than twice"),
    ("custom", "[D-B3] the dealer holds the called card", custom(called_to_a_seat_without_it),
     "bad deal: the dealer must hold the called card"),
    ("custom", "[D-B3] the called card's twin is dealt: its holder is the partner",
     custom(twin_not_dealt), "bad deal: the dealer must hold the called card and its twin"),
    ("custom", "[D-B3] a dealer dealt both called cards plays alone (no 硬牌 decision)",
     forced_solo_declines, r"history\[0\]: illegal action 1 \(.*硬牌 is decided before"),
    ("custom", "the cards as dealt: a card moved to another seat", custom(swap_cards),
     ANOTHER_POSITION),
    ("custom", "the dealer's seat", custom(lambda deal: deal.update(dealer=4)),
     "bad deal: dealer must be an int in 0..3, got 4"),
    ("custom", "the called card", custom(lambda deal: deal.update(called=NUM_KINDS)),
     "bad deal: deal called must be a card kind 0..53, got 54"),
    ("custom", "the hands", custom(lambda deal: deal.update(hands=[[1.5]] * 4)),
     "bad deal: deal hands must be four lists of card kinds"),
    ("custom", "the deal's keys", custom(lambda deal: deal.pop("called")),
     "bad deal: a Dagong deal is a dict with keys 'hands', 'dealer' and 'called'"),
    ("start", "a seeded game has no deal", lambda d, s: d.update(deal=[1]),
     "deal must be null .* or a dict"),
    # the seed deals the cards: an edited seed is refused (issue 22)
    ("start", "[DG-2] the seed deals: another seed, another deal", lambda d, s: d.update(
        seed=d["seed"] + 1), ANOTHER_POSITION),
    ("mid_trick_0", "the seed, mid-hand", lambda d, s: d.update(seed=d["seed"] + 1),
     r"history\[\d+\]: illegal action|" + ANOTHER_POSITION),
    ("hands3_mid_trick_1", "[D-B3] a later hand is dealt from the seed (its call, the "
                           "superseded calls)",
     lambda d, s: d.update(seed=d["seed"] + 1), r"history\[\d+\]: illegal action"),
    ("start", "seed (inf)", lambda d, s: d.update(seed=float("inf")), "seed must be an int"),
    ("start", "seed (-1)", lambda d, s: d.update(seed=-1),
     f"seed must be an int in 0..{2 ** 63 - 1}, got -1"),
    # the options the recipe was played under
    ("hands3_mid_trick_1", "option hands: the episode ends after its hands", lambda d, s: d[
        "options"].update(hands=1), r"history\[\d+\]: illegal action .*the episode is over|"
                                    r"history\[\d+\]: the episode is over"),
    ("hands3_over", "option hands: one more hand is dealt", lambda d, s: d["options"].update(
        hands=4), r"results holds 3 hand result\(s\)|" + ANOTHER_POSITION),
    ("start", "option allow_solo=False: no 硬牌", solo_without_allow_solo,
     r"history\[0\]: illegal action 2 \("),
    ("over", "[D-B4] option solo_multiplier: the 硬牌 payoff", lambda d, s: d["options"].update(
        solo_multiplier=3), NOT_WHAT_IT_GIVES),
    # the results the history gives [D-B4] [D-B5] and section 4
    ("leading", "results of a hand still going on", lambda d, s: d.update(
        results=[POSITIONS["over"].results[0].to_dict()]),
     r"results holds 1 hand result\(s\) but its history finishes 0 hand\(s\)"),
    ("hands3_mid_trick_1", "a result dropped", lambda d, s: d.update(results=[]),
     r"results holds 0 hand result\(s\) but its history finishes 1"),
    ("over", "results (points: 200 in all)", set_result(0, "points", [200, 0, 0, 0]),
     differs("points")),
    ("over", "results (trick points)", set_result(0, "trick_points", [float("inf"), 0, 0, 0]),
     differs("trick_points")),
    ("over", "results (rewards = payoff + xiqian)", set_result(0, "rewards", [5, 0, 0, 0]),
     differs("rewards")),
    ("over", "results (payoff, zero-sum)", set_result(0, "payoff", [9, 0, 0, 0]),
     differs("payoff")),
    ("over", "results (喜钱)", set_result(0, "xiqian", [1, -1, 0, 0]), differs("xiqian")),
    ("over", "results (places)", set_result(0, "places", [7]), differs("places")),
    ("over", "results (the partner is not the dealer)", lambda d, s: d["results"][0].update(
        partner=d["results"][0]["dealer"]), differs("partner")),
    ("over", "results (the called card)", lambda d, s: d["results"][0].update(
        called=(d["results"][0]["called"] + 1) % 54), differs("called")),
    ("over", "results (reason)", set_result(0, "reason", "win"), differs("reason")),
    ("hands3_over", "results ([D-B5] 摇摆 doubles the multiplier)", lambda d, s: d["results"][
        2].update(yaobai_doubled=False), differs("yaobai_doubled", 2)),
    ("over", "results (a key missing)", lambda d, s: d["results"][0].pop("winners"),
     r"results\[0\]\['winners'\] is absent in the saved state but \[.*\] on replay"),
    ("over", "results (not a dict)", lambda d, s: d.update(results=[[1, 2]]),
     r"results\[0\] is not what its history gives \(\{'dealer'"),
    ("over", "results (not a list)", lambda d, s: d.update(results="x"),
     "results must be a list"),
    ("hands3_over", "[D-B3] results: a later hand's dealer is the previous 一游",
     lambda d, s: d["results"][1].update(dealer=(d["results"][1]["dealer"] + 1) % 4),
     differs("dealer", 1)),
    # the history against the crc
    ("mid_trick_0", "history (a pass dropped)", lambda d, s: d["history"].pop(),
     ANOTHER_POSITION),
    ("mid_trick_0", "history (emptied)", lambda d, s: d.update(history=[]), ANOTHER_POSITION),
    ("leading", "history (a legal step added)", lambda d, s: d["history"].append(
        s.legal_actions()[0]), ANOTHER_POSITION),
    ("mid_trick_0", "history (too long)", lambda d, s: d.update(history=[cat.PASS] * 10 ** 4),
     r"history\[\d+\]: illegal action 0 \(pass\)"),
    ("mid_trick_0", "history (nan)", lambda d, s: d["history"].__setitem__(0, float("nan")),
     r"history\[0\] must be an int"),
    ("mid_trick_0", "history (out of range)", lambda d, s: d["history"].__setitem__(
        3, cat.NUM_ACTIONS), r"history\[3\] must be an int in 0..2418"),
    ("start", "crc", lambda d, s: d.update(crc=d["crc"] + 1), ANOTHER_POSITION),
    ("start", "crc (a string)", lambda d, s: d.update(crc="1"), "crc must be an int"),
]


@pytest.mark.parametrize("position, field, corrupt, message", CORRUPTIONS,
                         ids=[f"{p}-{f}" for p, f, _, _ in CORRUPTIONS])
def test_corruption_is_a_state_error(position, field, corrupt, message):
    state = POSITIONS[position]
    data = recipe(position)
    DagongState.from_dict(recipe(position))  # the position itself loads
    corrupt(data, state)
    with pytest.raises(StateError, match=message) as info:
        DagongState.from_dict(data)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("options, message", [
    ({"hands": float("inf")}, "option hands=inf is invalid"),
    ({"hands": np.float64(2.0)}, "option hands=.* is invalid"),
    ({"hands": 0}, "option hands=0 is invalid"),
    ({"solo_multiplier": float("nan")}, "option solo_multiplier=nan is invalid"),
    ({"allow_solo": 1}, "option allow_solo=1 is invalid"),
    ({"hand": 2}, "did you mean 'hands'"),
])
def test_bad_options_are_config_errors(options, message):
    with pytest.raises(ConfigError, match=message):
        DagongGame(**options)
    data = DagongGame().new_state(0).to_dict()
    data["options"].update(options)
    with pytest.raises(ConfigError, match="bad options: .*" + message):
        DagongState.from_dict(data)


def test_numpy_int_options_work_and_save_as_plain_ints():
    game = DagongGame(hands=np.int64(2), solo_multiplier=np.int32(3), allow_solo=True)
    assert game.options["hands"] == 2 and type(game.options["hands"]) is int
    state = game.new_state(1)
    saved = json.loads(json.dumps(state.to_dict()))
    assert saved["options"]["hands"] == 2
    assert DagongState.from_dict(saved).to_dict() == state.to_dict()


@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_every_position_round_trips_with_its_derived_fields(position):
    state = POSITIONS[position]
    saved = state.to_dict()
    assert sorted(saved) == ["crc", "deal", "format", "history", "options", "results", "seed"]
    assert saved["format"] == "cardenv.dagong.state/4"
    assert (saved["deal"] is None) == (position != "custom")
    again = DagongState.from_dict(json.loads(json.dumps(saved)))
    for name in ("hand_index", "phase", "current", "current_player", "dealer", "partner",
                 "called", "forced_solo", "solo", "revealed", "standing", "standing_seat",
                 "trick_points", "total_points", "returns", "last_rewards", "passed",
                 "cards_left", "out", "won", "yaobai", "deal_order", "results"):
        assert getattr(again, name) == getattr(state, name), name
    assert np.array_equal(again.dealt, state.dealt) and np.array_equal(again.buffer, state.buffer)
    assert np.array_equal(again.legal_mask(), state.legal_mask())
    assert again.rng.bit_generator.state == state.rng.bit_generator.state
    # the integrity fields are optional: the bare recipe is the same position
    bare = {k: v for k, v in saved.items() if k not in ("results", "crc")}
    assert DagongState.from_dict(bare).to_dict() == saved
