"""Table-driven checks of ``DagongState.from_dict``: each corruption of a saved state that
format 1 accepted (and that went wrong later: an ``IndexError`` in scoring, a ``StopIteration``,
results whose points add up to 380, an episode over with no result...) is now a ``StateError``
naming the field; bad options are a ``ConfigError``.

Format 2 stores only what the buffer cannot give (``standing``, ``deal_order``) besides the
common keys, so a corruption of a derived field (``partner``, ``won``, ``current``, ``phase``...)
is written here as the corruption of the buffer piece it is derived from.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardenv.core.cards import NUM_KINDS
from cardenv.core.errors import ConfigError, StateError
from cardenv.dagong import DagongGame, DagongState
from cardenv.dagong import catalogue as cat
from cardenv.dagong.observation import LAYOUT
from tests.dagong.util import sample_positions

POSITIONS = {
    **{name: s for name, s in sample_positions({}, 11).items()},
    **{f"no_solo_{name}": s for name, s in sample_positions({"allow_solo": False}, 7).items()},
    **{f"hands3_{name}": s for name, s in sample_positions({"hands": 3}, 5).items()},
}


def edit(data, name, change):
    """Apply ``change(view, state)`` to buffer piece ``name`` of ``data``."""
    buffer = np.array(data["buffer"], dtype=np.int64)
    change(LAYOUT.views(buffer)[name])
    data["buffer"] = buffer.tolist()


def piece(name, change):
    return lambda d, s: edit(d, name, lambda view: change(view, s))


def other_seat(s, *avoid):
    return next(seat for seat in range(4) if seat not in avoid and s.cards_left[seat] > 0)


def move_one_hot(view, seat):
    view[...] = 0
    view[seat] = 1


def show_partner(view, seat):
    """The partner piece of a hidden partner ``seat`` (known to itself only)."""
    view[...] = 0
    view[seat, seat] = 1


def third_copy(d, s):
    """A third copy of a card both decks' copies of which are dealt: in a hand and in
    deal_order (format 1's ``dealt`` is derived now: hand + played)."""
    kind = next(k for k in range(NUM_KINDS) if s.dealt[:, k].sum() == 2)
    seat = s.current
    edit(d, "hand", lambda view: view.__setitem__((seat, kind), view[seat, kind] + 1))
    d["deal_order"][seat].append(kind)


def move_twin(d, s):
    """The called card's twin swapped from the partner's hand to a third seat's (for another
    of its cards, so that the hand sizes stay)."""
    partner, called = s.partner, s.called
    seat = next(x for x in range(4) if x not in (s.dealer, partner))
    kind = next(k for k in range(NUM_KINDS) if k != called and s.v["hand"][seat, k])

    def change(view):
        view[partner, called] -= 1
        view[seat, called] += 1
        view[seat, kind] -= 1
        view[partner, kind] += 1
    edit(d, "hand", change)
    d["deal_order"][partner].remove(called)
    d["deal_order"][seat].remove(kind)
    d["deal_order"][partner].append(kind)
    d["deal_order"][seat].append(called)


def swap_deal_order(d, s):
    """A card of seat 0's deal order swapped with a different one of seat 1's."""
    a, b = d["deal_order"][0], d["deal_order"][1]
    j = next(j for j in range(len(b)) if b[j] != a[0])
    a[0], b[j] = b[j], a[0]


def set_result(i, key, value):
    return lambda d, s: d["results"][i].__setitem__(key, value)


# (position, field, corruption, message fragment)
CORRUPTIONS = [
    # format 1's derived fields are not read any more
    ("start", "partner", lambda d, s: d.update(partner=7), r"unknown keys \['partner'\]"),
    ("start", "won", lambda d, s: d.update(won=[200, 0, 0, 0]), r"unknown keys \['won'\]"),
    ("start", "returns", lambda d, s: d.update(returns=[1, 0, 0, 0]), "unknown keys"),
    ("start", "last_rewards", lambda d, s: d.update(last_rewards=[0, 0, 0, 0]), "unknown keys"),
    ("start", "format 1", lambda d, s: d.update(format="cardenv.dagong.state/1"),
     "old format 'cardenv.dagong.state/1'.*replay"),
    # partner (was partner=7: IndexError in scoring; partner=dealer: StopIteration)
    ("mid_trick_0", "partner", piece("partner", lambda v, s: show_partner(
        v, next(x for x in range(4) if x not in (s.partner, s.dealer)))),
     r"partner \(buffer piece 'partner'\) must show the partner"),
    ("mid_trick_0", "partner=dealer", piece("partner", lambda v, s: show_partner(v, s.dealer)),
     r"partner \(buffer piece 'partner'\) must show the partner"),
    ("no_solo_start", "partner holds the twin", move_twin,
     r"partner \(buffer piece 'partner'\) must show the partner, seat"),
    ("no_solo_after_out", "revealed", piece("revealed", lambda v, s: v.fill(0)),
     r"revealed \(buffer piece 'revealed'\) must be True"),
    # points (was won=[200, 0, 0, 0]: results whose points add up to 380)
    ("leading", "won", piece("points", lambda v, s: v.__setitem__(slice(None), [200, 0, 0, 0])),
     r"won \(buffer piece 'points'\).*must make the 200 points dealt"),
    ("mid_trick_0", "trick_points", piece("trick_points", lambda v, s: v.__iadd__(5)),
     r"won \(buffer piece 'points'\).*trick_points"),
    # whose turn
    ("mid_trick_0", "current", piece("to_play", lambda v, s: move_one_hot(
        v, other_seat(s, s.current))), r"current \(buffer piece 'to_play'\) must be seat"),
    ("solo_phase", "current", piece("to_play", lambda v, s: move_one_hot(
        v, (s.current + 1) % 4)), "history: this hand's 硬牌 decisions must be"),
    ("no_solo_start", "current", piece("to_play", lambda v, s: move_one_hot(
        v, (s.dealer + 1) % 4)), r"current \(buffer piece 'to_play'\) must be the dealer"),
    ("no_solo_after_out", "current", piece("to_play", lambda v, s: move_one_hot(
        v, s.out[0])), r"has no cards left|current \(buffer piece 'to_play'\) must be seat"),
    ("mid_trick_0", "passed", piece("passed", lambda v, s: v.__setitem__(s.current, 1)),
     r"passed \(buffer piece 'passed'\)|current \(buffer piece 'to_play'\) must be seat"),
    ("mid_trick_0", "passed by the play to beat", piece(
        "passed", lambda v, s: v.__setitem__(s.standing_seat, 1)),
     r"passed \(buffer piece 'passed'\): seat \d made the play to beat"),
    # phase (was phase="over" mid-hand: an episode over with no result)
    ("leading", "phase=over", piece("to_play", lambda v, s: v.fill(0)),
     "phase: the episode is over .* but results hold 0 of its 1 hands"),
    ("hands3_over", "phase=play", piece("to_play", lambda v, s: v.__setitem__(0, 1)),
     "results: 3 hands finished of 3, but the episode goes on"),
    ("leading", "solo_phase", piece("solo_phase", lambda v, s: v.fill(1)),
     "phase: no card is played in the solo phase|which ends the solo phase"),
    ("solo_phase", "solo_phase", piece("solo_phase", lambda v, s: v.fill(0)),
     r"current \(buffer piece 'to_play'\) must be the dealer"),
    ("no_solo_start", "solo_phase", piece("solo_phase", lambda v, s: v.fill(1)),
     "phase: no solo phase"),
    # the play to beat
    ("mid_trick_0", "standing", lambda d, s: d.update(standing=s.standing + 1),
     "disagrees with standing|'standing_cards' is not what"),
    ("mid_trick_0", "standing=-1", lambda d, s: d.update(standing=-1),
     r"standing is -1 \(nothing to beat\) but buffer piece 'standing_cards'"),
    ("leading", "standing", lambda d, s: d.update(standing=cat.FIRST_PLAY),
     "standing: .*'standing_seat' must name|standing_seat"),
    ("start", "standing", lambda d, s: d.update(standing=cat.SOLO_DECLARE), "standing must be -1"),
    ("mid_trick_0", "standing_seat", piece("standing_seat", lambda v, s: move_one_hot(
        v, (s.standing_seat + 2) % 4)), "standing_cards"),
    ("mid_trick_0", "standing_cards", piece("standing_cards", lambda v, s: v.fill(0)),
     "'standing_cards' is not what"),
    # places
    ("no_solo_after_out", "out", piece("place", lambda v, s: v.fill(0)),
     r"out \(buffer piece 'place'\): seat \d has no cards left but no place"),
    ("no_solo_after_out", "place of a seat with cards", piece("place", lambda v, s: v.__setitem__(
        (other_seat(s, *s.out), len(s.out)), 1)), "only 末游 holds cards"),
    ("no_solo_after_out", "place twice", piece("place", lambda v, s: v.__setitem__(
        (s.out[0], 3), 1)), "at most one place"),
    ("mid_trick_0", "cards_left", piece("cards_left", lambda v, s: v.__setitem__(0, v[0] - 1)),
     r"cards_left \(buffer piece 'cards_left'\)"),
    ("leading", "yaobai", piece("yaobai", lambda v, s: v.fill(1)),
     r"yaobai \(buffer piece 'yaobai'\): seat \d has not played a 摇摆"),
    # the call, the dealer, 硬牌
    ("start", "called", piece("called", lambda v, s: v.__setitem__((s.called + 1) % 54, 1)),
     r"called \(buffer piece 'called'\) must be one-hot"),
    ("start", "called", piece("called", lambda v, s: move_one_hot(
        v, next(k for k in range(54) if s.dealt[s.dealer, k] == 0))),
     "called: the dealer .* was not dealt the called card"),
    ("start", "dealer", piece("dealer", lambda v, s: v.fill(0)),
     r"dealer \(buffer piece 'dealer'\) must be one-hot"),
    ("mid_trick_0", "dealer", piece("dealer", lambda v, s: move_one_hot(
        v, next(x for x in range(4) if s.dealt[x, s.called] == 0))),
     "called: the dealer .* was not dealt"),
    ("start", "forced_solo", piece("forced_solo", lambda v, s: v.fill(1)),
     r"forced_solo \(buffer piece 'forced_solo'\) must be False"),
    ("solo_phase", "solo", piece("solo", lambda v, s: v.__setitem__(s.dealer, 1)),
     "declared 硬牌, which ends the solo phase"),
    ("no_solo_leading", "solo", piece("solo", lambda v, s: v.__setitem__(s.dealer, 1)),
     "allow_solo is False"),
    ("hands3_new_hand", "more_hands", piece("more_hands", lambda v, s: v.fill(0)),
     "buffer piece 'more_hands' must be 1"),
    ("start", "superseded_calls in hand 1", piece("superseded_calls",
                                                  lambda v, s: v.__setitem__(s.called, 1)),
     r"superseded_calls \(buffer piece 'superseded_calls'\) .*\(none: .*got kinds"),
    # the standing call is never a superseded one
    ("hands3_mid_trick_1", "superseded_calls", piece("superseded_calls",
                                                     lambda v, s: v.__setitem__(s.called, 1)),
     r"superseded_calls .* under the later-hand call rule"),
    # the cards against the deck and the deal
    ("mid_trick_0", "a third copy", third_copy, "cards not conserved: .* hold 3 copies"),
    ("mid_trick_0", "deal_order", swap_deal_order, r"deal_order\[0\] disagrees"),
    ("hands3_mid_trick_1", "deal_order of a later hand", lambda d, s: d["deal_order"][
        s.dealer].reverse(), "called: a later hand calls the dealer's first dealt card|"
                            "the previous hand's 一游"),
    ("start", "deal_order", lambda d, s: d.update(deal_order=[[1.5]] * 4),
     r"deal_order\[0\]\[0\] must be an int"),
    # hands and results
    ("hands3_mid_trick_1", "hand_index (a result dropped)",
     lambda d, s: d.update(results=d["results"][1:]), "history: the first hand's moves"),
    ("hands3_mid_trick_1", "hands", lambda d, s: d["options"].update(hands=1),
     "results: 1 hands finished of 1"),
    ("hands3_over", "hands", lambda d, s: d["options"].update(hands=4),
     "results: 3 hands finished of 4|phase: the episode is over .* results hold 3 of its 4"),
    ("leading", "results", lambda d, s: d.update(results=[POSITIONS["over"].results[0].to_dict()]),
     "results: 1 hands finished of 1"),
    ("over", "results (won=[200,0,0,0])", set_result(0, "points", [200, 0, 0, 0]),
     r"results\[0\]: (points|trick_points)"),
    ("over", "results (rewards)", set_result(0, "rewards", [5, 0, 0, 0]),
     r"results\[0\]: rewards must be payoff \+ xiqian"),
    ("over", "results (payoff not zero-sum)", lambda d, s: d["results"][0].update(
        payoff=[9, 0, 0, 0], rewards=[9 + x for x in d["results"][0]["xiqian"][:1]]
        + d["results"][0]["xiqian"][1:]), r"results\[0\]: payoff must be"),
    ("over", "results (xiqian)", lambda d, s: d["results"][0].update(xiqian=[1, -1, 0, 0]),
     r"results\[0\]: xiqian must be"),
    ("over", "results (seat 7)", set_result(0, "places", [7]),
     r"places\[0\] must be an int in 0..3"),
    ("over", "results (partner=dealer)", lambda d, s: d["results"][0].update(
        partner=d["results"][0]["dealer"]), "partner must not be the dealer"),
    ("over", "results (reason)", set_result(0, "reason", "win"), "reason must be one of"),
    ("over", "results (a key missing)", lambda d, s: d["results"][0].pop("winners"),
     r"results\[0\]: a hand result lacks \['winners'\]"),
    ("over", "results (not a dict)", lambda d, s: d.update(results=[[1, 2]]),
     r"results\[0\] must be a dict"),
    ("over", "results (not a list)", lambda d, s: d.update(results="x"), "results must be a list"),
    ("over", "results (inf)", set_result(0, "trick_points", [float("inf"), 0, 0, 0]),
     r"trick_points\[0\] must be an int"),
    ("over", "results (disagrees with the buffer)", lambda d, s: d["results"][0].update(
        called=(d["results"][0]["called"] + 1) % 54), r"results\[-1\]\.called disagrees"),
    ("hands3_over", "results (dealers)", lambda d, s: d["results"][1].update(
        dealer=(d["results"][1]["dealer"] + 1) % 4),
     r"results\[1\]\.dealer must be the previous hand's 一游|results\[1\]"),
    # history
    ("leading", "history (a move added)", lambda d, s: d["history"].append(cat.FIRST_PLAY),
     "history: this hand's last plays must hold"),
    ("mid_trick_0", "history (a pass dropped)", lambda d, s: d["history"].pop(),
     "history: the last moves must be standing"),
    ("mid_trick_0", "history (emptied)", lambda d, s: d.update(history=[]),
     "history: this hand's last plays must hold"),
    ("mid_trick_0", "history (too long)", lambda d, s: d.update(history=[cat.PASS] * 10 ** 4),
     "history: 10000 actions is more than"),
    ("no_solo_start", "history (a move before the first)", lambda d, s: d.update(history=[3]),
     "history: the first hand's moves are the whole history"),
    ("mid_trick_0", "history (nan)", lambda d, s: d["history"].__setitem__(0, float("nan")),
     r"history\[0\] must be an int"),
    # the buffer, the numbers, the generator
    ("start", "buffer (40000)", lambda d, s: d["buffer"].__setitem__(5, 40000),
     "buffer has entries outside 0..32767"),
    ("start", "buffer (10**30)", lambda d, s: d["buffer"].__setitem__(5, 10 ** 30),
     "buffer must hold ints"),
    ("start", "buffer (nan)", lambda d, s: d["buffer"].__setitem__(5, float("nan")),
     "buffer must hold ints"),
    ("start", "buffer (a piece out of range)", lambda d, s: d["buffer"].__setitem__(0, 3),
     "buffer piece 'hand' is out of its range"),
    ("start", "seed (inf)", lambda d, s: d.update(seed=float("inf")), "seed must be an int"),
    ("start", "standing (nan)", lambda d, s: d.update(standing=float("nan")),
     "standing must be an int"),
    ("start", "rng", lambda d, s: d["rng"]["state"].update(state=-1),
     r"rng\.state\.state must be an int"),
    ("start", "rng", lambda d, s: d["rng"]["state"].update(inc=1.5), r"rng\.state\.inc"),
    ("start", "format", lambda d, s: d.update(format=[]), "not a serialized Dagong state"),
]


@pytest.mark.parametrize("position, field, corrupt, message", CORRUPTIONS,
                         ids=[f"{p}-{f}" for p, f, _, _ in CORRUPTIONS])
def test_corruption_is_a_state_error(position, field, corrupt, message):
    state = POSITIONS[position]
    data = json.loads(json.dumps(state.to_dict()))
    DagongState.from_dict(json.loads(json.dumps(data)))  # the position itself loads
    corrupt(data, state)
    with pytest.raises(StateError, match=message):
        DagongState.from_dict(data)


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
    again = DagongState.from_dict(json.loads(json.dumps(state.to_dict())))
    for name in ("hand_index", "phase", "current", "current_player", "dealer", "partner",
                 "called", "forced_solo", "solo", "revealed", "standing", "standing_seat",
                 "trick_points", "total_points", "returns", "last_rewards", "passed",
                 "cards_left", "out", "won", "yaobai", "deal_order", "results"):
        assert getattr(again, name) == getattr(state, name), name
    assert np.array_equal(again.dealt, state.dealt)
    assert np.array_equal(again.legal_mask(), state.legal_mask())
