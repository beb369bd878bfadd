"""Reading a saved Dagong state back (``DagongState.from_dict``): checked, then derived.

Format ``cardenv.dagong.state/3`` stores, beside what every saved state has (the tensor buffer,
the history, the hand results, the generator, the options), only what the buffer cannot give:
``standing`` (the action id of the play to beat) and ``deal_order`` (the order each seat received
its cards, which decides a later hand's call). ``load_fields`` checks those two and derives every
other field of the state from the buffer: the phase (``solo_phase``, ``to_play``), the seat to
act, the dealer, the call, the partner (the holder of the called card's twin), 硬牌, 明鸡, cards
left, places, points won, passes, 摇摆 marks, the dealt hands (``hand`` + ``played``); the hand
index and returns from the results.

``check_consistency`` then refuses, with a ``StateError`` naming the field and the buffer piece,
any position the rules cannot reach from a deal:

- the cards: no kind more than twice (two decks), 1..27 dealt to each seat, the whole of both
  decks in a later hand, ``deal_order`` holding the cards dealt, ``cards_left`` the hand sizes;
- the roles: the dealer holds the called card, its twin was dealt (else the dealer held both:
  ``forced_solo``), a later hand's dealer is the previous 一游 and its call follows the later-hand
  rule, and ``superseded_calls`` holds exactly the calls that rule superseded (none in hand
  1); the partner piece and 明鸡 against who has played the called card; 硬牌 only where the
  options and the phase allow it; ``more_hands`` against the hand index;
- the play: places in order and only for seats without cards, the hand decided exactly when
  the episode is over; the play to beat against the cards it takes from its player's hand, the
  passes and the seat to act against the turn order; the points dealt conserved;
- the results: each one consistent in itself (``scoring.result_from_dict``), each hand dealt
  by the previous 一游, the last one equal to the settlement of the finished hand in the buffer;
- the history: this hand's last moves hold the cards played, its 硬牌 decisions, the play to
  beat and the passes since; earlier hands each end with a play. ``last_rewards`` follows.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import KIND_POINTS, NUM_KINDS, NUM_NATURAL, card_str
from cardenv.core.checks import check_int, check_int_list, one_hot_index
from cardenv.core.errors import StateError
from cardenv.dagong import catalogue as cat
from cardenv.dagong.deal import DECKS, later_hand_calls
from cardenv.dagong.scoring import TOTAL_POINTS
from cardenv.dagong.selection import select_cards

# the most actions one hand can take: 4 硬牌 decisions, then at most 108 plays of one card,
# each followed by at most 3 passes
MAX_HAND_ACTIONS = 4 + DECKS * NUM_KINDS * 4


def load_fields(state, data: dict) -> None:
    """Check ``standing`` and ``deal_order``; derive every other field from the buffer."""
    standing = check_int(data["standing"], "standing", -1, cat.NUM_ACTIONS - 1)
    if 0 <= standing < cat.FIRST_PLAY:
        raise StateError(f"standing must be -1 (nothing to beat) or a play id "
                         f"{cat.FIRST_PLAY}..{cat.NUM_ACTIONS - 1}, got {standing}")
    order = data["deal_order"]
    if not isinstance(order, list) or len(order) != 4:
        raise StateError(f"deal_order must be a list of 4 lists of card kinds, got {order!r}")
    state.deal_order = [check_int_list(cards, f"deal_order[{seat}]", low=0,
                                       high=NUM_KINDS - 1) for seat, cards in enumerate(order)]
    state.standing = standing
    v = state.v
    state.called = one_hot_index(v, "called")
    state.dealer = one_hot_index(v, "dealer")
    state.solo = one_hot_index(v, "solo", optional=True)
    seat = one_hot_index(v, "standing_seat", optional=True)
    state.standing_seat = -1 if seat is None else seat
    to_play = one_hot_index(v, "to_play", optional=True)
    if v["solo_phase"][0]:
        if to_play is None:
            raise StateError("buffer piece 'to_play' must name the seat to act in the solo "
                             "phase (buffer piece 'solo_phase' is 1)")
        state.phase = "solo"
    else:
        state.phase = "play" if to_play is not None else "over"
    state.current = to_play  # when over: the seat that ended the hand (_check_places)
    state.forced_solo = bool(v["forced_solo"][0])
    state.revealed = bool(v["revealed"][0])
    state.trick_points = int(v["trick_points"][0])
    state.won = [int(x) for x in v["points"]]
    state.passed = [bool(x) for x in v["passed"]]
    state.yaobai = {s for s in range(4) if v["yaobai"][s]}
    state.dealt = v["hand"] + v["played"]
    state.cards_left = [int(n) for n in v["hand"].sum(axis=1)]
    state.total_points = int(KIND_POINTS @ state.dealt.sum(axis=0))
    state._feasible = [None] * 4
    finished, hands = len(state.results), state.game.options["hands"]
    if state.phase == "over" and finished != hands:
        raise StateError(f"phase: the episode is over (buffer piece 'to_play' is all zero) "
                         f"but results hold {finished} of its {hands} hands")
    if state.phase != "over" and finished >= hands:
        raise StateError(f"results: {finished} hands finished of {hands}, but the episode "
                         f"goes on (buffer piece 'to_play' names seat {to_play})")
    state.hand_index = hands - 1 if state.phase == "over" else finished
    state.returns = [sum(r.rewards[seat] for r in state.results) for seat in range(4)]


def check_consistency(state) -> None:
    _check_deal(state)
    _check_roles(state)
    _check_places(state)
    _check_trick(state)
    _check_points(state)
    _check_results(state)
    _check_history(state)
    _check_superseded(state)


def _check_deal(state) -> None:
    """The cards against the two decks and the deal order; the call, the dealer and the
    partner against the deal (and, in a later hand, against the rules of the call)."""
    v, dealt = state.v, state.dealt
    copies = dealt.sum(axis=0)
    if copies.max() > DECKS:
        kind = int(np.argmax(copies))
        raise StateError(f"cards not conserved: buffer pieces 'hand' + 'played' hold "
                         f"{copies[kind]} copies of {card_str(kind)} (kind {kind}); the two "
                         f"decks hold {DECKS}")
    for seat, size in enumerate(dealt.sum(axis=1).tolist()):
        if not 1 <= size <= cat.HAND_SIZE:
            raise StateError(f"cards not conserved: seat {seat} was dealt {size} cards "
                             f"(buffer pieces 'hand' + 'played'); a hand holds "
                             f"1..{cat.HAND_SIZE}")
    if v["cards_left"].tolist() != state.cards_left:
        raise StateError(f"cards_left (buffer piece 'cards_left') "
                         f"{v['cards_left'].tolist()} disagrees with the hands (buffer piece "
                         f"'hand' holds {state.cards_left})")
    for seat, cards in enumerate(state.deal_order):
        counts = np.bincount(np.asarray(cards, dtype=np.int64), minlength=NUM_KINDS)
        if not np.array_equal(counts, dealt[seat]):
            raise StateError(f"deal_order[{seat}] disagrees with the cards seat {seat} was "
                             f"dealt (buffer pieces 'hand' + 'played')")
    if state.hand_index > 0 and (copies != DECKS).any():
        raise StateError(f"cards not conserved: hand {state.hand_index + 1} is a later hand, "
                         f"dealt from both decks, but buffer pieces 'hand' + 'played' hold "
                         f"{int(copies.sum())} cards")
    dealer, called = state.dealer, state.called
    held = int(dealt[dealer, called])
    if held == 0:
        raise StateError(f"called: the dealer (seat {dealer}, buffer piece 'dealer') was not "
                         f"dealt the called card {card_str(called)}")
    if held == 1 and copies[called] < DECKS:
        raise StateError(f"called: the twin of the called card {card_str(called)} was not "
                         f"dealt, so the dealer has no partner")
    if state.forced_solo != (held == 2):
        raise StateError(f"forced_solo (buffer piece 'forced_solo') must be {held == 2}: "
                         f"the dealer was dealt {held} copies of the called card")
    if state.hand_index > 0:
        previous = state.results[state.hand_index - 1]
        if dealer != previous.places[0]:
            raise StateError(f"dealer (buffer piece 'dealer') must be the previous hand's "
                             f"一游, seat {previous.places[0]}, got seat {dealer}")
        calls, forced = later_hand_calls(state.deal_order[dealer])
        call = calls[-1]
        if (called, state.forced_solo) != (call, forced):
            raise StateError(f"called: a later hand calls the dealer's first dealt card "
                             f"(deal_order[{dealer}]), the next one while the dealer holds "
                             f"both: {card_str(call)} (forced_solo={forced}), got "
                             f"{card_str(called)} (forced_solo={state.forced_solo})")
    state.partner = None if state.forced_solo else next(
        s for s in range(4) if s != dealer and dealt[s, called] > 0)


def _check_superseded(state) -> None:
    """``superseded_calls`` against the later-hand call rule run again on the dealer's
    ``deal_order`` (none in hand 1). Checked after the results and the history, which fix the
    hand number it depends on, so that a wrong hand number is reported as such."""
    v = state.v
    superseded = [] if state.hand_index == 0 else \
        later_hand_calls(state.deal_order[state.dealer])[0][:-1]
    expected = np.zeros(NUM_KINDS, dtype=np.int16)
    expected[superseded] = 1
    if not np.array_equal(v["superseded_calls"], expected):
        raise StateError(f"superseded_calls (buffer piece 'superseded_calls') must mark the "
                         f"kinds called and then superseded during hand {state.hand_index + 1}'s "
                         f"deal ({', '.join(card_str(k) for k in superseded) or 'none'}: "
                         f"deal_order[{state.dealer}] under the later-hand call rule, none in "
                         f"hand 1), got kinds "
                         f"{np.flatnonzero(v['superseded_calls']).tolist()}")


def _check_roles(state) -> None:
    """The partner piece, 明鸡, 硬牌 and the solo phase, and the hands still to come."""
    v, partner, options = state.v, state.partner, state.game.options
    revealed = partner is not None and bool(v["played"][partner, state.called])
    if state.revealed != revealed:
        raise StateError(f"revealed (buffer piece 'revealed') must be {revealed}: the partner "
                         f"(seat {partner}) has {'' if revealed else 'not '}played the called "
                         f"card")
    expected = np.zeros((4, 4), dtype=np.int16)
    if partner is not None:
        if revealed:
            expected[:, partner] = 1
        else:
            expected[partner, partner] = 1
    if not np.array_equal(v["partner"], expected):
        raise StateError(f"partner (buffer piece 'partner') must show the partner, seat "
                         f"{partner} (the holder of the called card's twin), to itself, and "
                         f"to everyone once revealed; got {v['partner'].tolist()}")
    if state.forced_solo and state.solo != state.dealer:
        raise StateError(f"solo (buffer piece 'solo') must be the dealer, seat {state.dealer}, "
                         f"who holds both called cards (forced_solo), got {state.solo}")
    if state.phase == "solo" and (not options["allow_solo"] or state.forced_solo):
        raise StateError("phase: no solo phase (buffer piece 'solo_phase') when allow_solo is "
                         "False or the dealer holds both called cards")
    if state.solo is not None and not state.forced_solo:
        if not options["allow_solo"]:
            raise StateError(f"solo (buffer piece 'solo'): seat {state.solo} goes solo but "
                             f"allow_solo is False")
        if state.phase == "solo":
            raise StateError(f"solo (buffer piece 'solo'): seat {state.solo} declared 硬牌, "
                             f"which ends the solo phase, but buffer piece 'solo_phase' is 1")
    more = state.hand_index + 1 < options["hands"]
    if bool(v["more_hands"][0]) != more:
        raise StateError(f"buffer piece 'more_hands' must be {int(more)} in hand "
                         f"{state.hand_index + 1} of {options['hands']}")


def _check_places(state) -> None:
    """Places against the cards left, and whether the hand is decided against the phase."""
    place, cards_left = state.v["place"], state.cards_left
    if (place.sum(axis=1) > 1).any() or (place.sum(axis=0) > 1).any():
        raise StateError(f"buffer piece 'place' must give each seat at most one place and "
                         f"each place to at most one seat, got {place.tolist()}")
    placed = {seat: int(np.argmax(place[seat])) for seat in range(4) if place[seat].any()}
    if sorted(placed.values()) != list(range(len(placed))):
        raise StateError(f"buffer piece 'place': places are taken in order from 一游, got "
                         f"{sorted(placed.values())}")
    state.out = [seat for _, seat in sorted((p, s) for s, p in placed.items()
                                            if cards_left[s] == 0)]
    for seat in range(4):
        if cards_left[seat] == 0 and seat not in placed:
            raise StateError(f"out (buffer piece 'place'): seat {seat} has no cards left "
                             f"but no place")
    if state.phase == "over":
        if not _decided_now(state):
            raise StateError(f"phase: the episode is over (buffer piece 'to_play' is all "
                             f"zero) but the hand is not decided: seats {state.out} are out "
                             f"(buffer piece 'place')")
        state.current = state.out[-1]  # the seat whose play ended the hand
    elif not _undecided(state, state.out):
        raise StateError(f"out (buffer piece 'place'): seats {state.out} are out, which ends "
                         f"the hand, but the episode goes on (buffer piece 'to_play')")
    last = [state._last_seat()] if state.phase == "over" and len(state.out) == 3 else []
    holders = [seat for seat in placed if cards_left[seat] > 0]
    if holders != last:
        raise StateError(f"out (buffer piece 'place'): only 末游 holds cards and a place, "
                         f"once the hand ended with three out; seats {holders} do")


def _undecided(state, out: list[int]) -> bool:
    """Whether the hand goes on with ``out`` out in this order."""
    if state.solo is not None:
        return not out
    return len(out) < 2 or (len(out) == 2 and out[1] not in state.team_of(out[0]))


def _decided_now(state) -> bool:
    """Whether the last seat out ended the hand (and no earlier one did)."""
    out = state.out
    if not out or not _undecided(state, out[:-1]):
        return False
    if state.solo is not None:
        return len(out) == 1
    return len(out) == 3 or (len(out) == 2 and out[1] in state.team_of(out[0]))


def _check_trick(state) -> None:
    """The play to beat against the cards, and whose turn it is against the passes."""
    v, standing, phase = state.v, state.standing, state.phase
    if phase == "solo":
        for name in ("played", "points", "place", "yaobai"):
            if v[name].any():
                raise StateError(f"phase: no card is played in the solo phase (buffer piece "
                                 f"'solo_phase'), but buffer piece {name!r} is not zero")
    if standing < 0:
        for name in ("standing_cards", "standing_seat", "standing_type", "standing_rank",
                     "standing_length", "passed", "trick_points"):
            if v[name].any():
                raise StateError(f"standing is -1 (nothing to beat) but buffer piece "
                                 f"{name!r} is not zero")
    else:
        if phase != "play":
            raise StateError(f"standing: nothing stands in the {phase} phase, got {standing}")
        _check_standing(state)
    if phase != "play":
        return
    if state.cards_left[state.current] == 0:
        raise StateError(f"current (buffer piece 'to_play'): seat {state.current} has no "
                         f"cards left")
    if standing < 0 and not v["played"].any() and state.current != state.dealer:
        raise StateError(f"current (buffer piece 'to_play') must be the dealer, seat "
                         f"{state.dealer}, who leads the hand, got seat {state.current}")


def _check_standing(state) -> None:
    v, seat, info = state.v, state.standing_seat, cat.ACTIONS[state.standing]
    if seat < 0:
        raise StateError("standing_seat (buffer piece 'standing_seat') must name who made "
                         "the play to beat")
    rank = [] if info.key_rank is None else [info.key_rank]
    for name, got, want in (
            ("standing_type", np.flatnonzero(v["standing_type"]).tolist(),
             [cat.PLAY_TYPES.index(info.type)]),
            ("standing_rank", np.flatnonzero(v["standing_rank"]).tolist(), rank),
            ("standing_length", int(v["standing_length"][0]), info.length)):
        if got != want:
            raise StateError(f"buffer piece {name!r} disagrees with standing "
                             f"({state.standing}: {info.text}): expected {want}, got {got}")
    cards = v["standing_cards"]
    if (cards > v["played"][seat]).any():
        raise StateError(f"buffer piece 'standing_cards' holds cards that seat {seat} "
                         f"(standing_seat) has not played")
    try:
        taken = select_cards((v["hand"][seat] + cards).tolist(), state.standing, state.called)
    except ValueError:
        taken = None
    if taken is None or not np.array_equal(np.bincount(taken, minlength=NUM_KINDS), cards):
        raise StateError(f"buffer piece 'standing_cards' is not what standing "
                         f"({info.text}) takes from seat {seat}'s hand")
    if state.trick_points < int(KIND_POINTS @ cards):
        raise StateError(f"trick_points (buffer piece 'trick_points') {state.trick_points} is "
                         f"less than the points in the play to beat")
    if info.type == cat.YAOBAI and seat not in state.yaobai:
        raise StateError(f"yaobai (buffer piece 'yaobai') must mark seat {seat}, whose 摇摆 "
                         f"is the play to beat")
    # the seats after the play to beat pass in turn, until one has not: it is to play
    if state.passed[seat]:
        raise StateError(f"passed (buffer piece 'passed'): seat {seat} made the play to beat")
    turn = None
    for step in range(1, 4):
        s = (seat + step) % 4
        if state.cards_left[s] == 0 or turn is not None:
            if state.passed[s]:
                raise StateError(f"passed (buffer piece 'passed'): seat {s} cannot have "
                                 f"passed since the play to beat")
        elif not state.passed[s]:
            turn = s
    if turn is None:
        raise StateError("passed (buffer piece 'passed'): every other seat has passed, "
                         "which ends the trick")
    if state.current != turn:
        raise StateError(f"current (buffer piece 'to_play') must be seat {turn}, the first "
                         f"seat after the play to beat that has not passed, got seat "
                         f"{state.current}")


def _check_points(state) -> None:
    """The 200 points (or a custom deal's) conserved; 摇摆 marks against the cards played."""
    v = state.v
    in_hands = int(KIND_POINTS @ v["hand"].sum(axis=0))
    if sum(state.won) + state.trick_points + in_hands != state.total_points:
        raise StateError(f"won (buffer piece 'points') {state.won} + trick_points "
                         f"{state.trick_points} + the points still in hands ({in_hands}) "
                         f"must make the {state.total_points} points dealt")
    for seat in sorted(state.yaobai):
        naturals = v["played"][seat, :NUM_NATURAL].reshape(-1, 4).sum(axis=1)
        if not any(naturals[r] >= 4 and naturals[r + 1] >= 4
                   for r in range(cat.RUN_RANKS - 1)):
            raise StateError(f"yaobai (buffer piece 'yaobai'): seat {seat} has not played "
                             f"a 摇摆 this hand")


def _check_results(state) -> None:
    """Each hand's result against the one before; the last one, once the episode is over,
    against the finished hand still in the buffer."""
    results, allow_solo = state.results, state.game.options["allow_solo"]
    for i, result in enumerate(results):
        if result.solo is not None and not result.forced_solo and not allow_solo:
            raise StateError(f"results[{i}].solo: seat {result.solo} went solo but "
                             f"allow_solo is False")
        if i == 0:
            continue
        if result.dealer != results[i - 1].places[0]:
            raise StateError(f"results[{i}].dealer must be the previous hand's 一游, seat "
                             f"{results[i - 1].places[0]}, got {result.dealer}")
        if len(result.places) == 4 and sum(result.points) != TOTAL_POINTS:
            raise StateError(f"results[{i}].points must add up to the {TOTAL_POINTS} points "
                             f"of both decks, got {result.points}")
    if state.phase == "over":
        expected, got = state._settle(), results[-1]
        for name in expected.__dataclass_fields__:
            if getattr(expected, name) != getattr(got, name):
                raise StateError(f"results[-1].{name} disagrees with the finished hand in "
                                 f"the buffer: expected {getattr(expected, name)!r}, got "
                                 f"{getattr(got, name)!r}")


def _check_history(state) -> None:
    """The history's last moves against this hand (its plays hold the cards played, its
    硬牌 decisions the solo phase, its passes the trick); sets ``last_rewards``."""
    h, v = state.history, state.v
    if len(h) > (state.hand_index + 1) * MAX_HAND_ACTIONS:
        raise StateError(f"history: {len(h)} actions is more than {state.hand_index + 1} "
                         f"hands can take")
    played = int(v["played"].sum())
    start, cards = len(h), 0
    while cards < played and start > 0:  # this hand's plays, from the end
        start -= 1
        if h[start] in (cat.SOLO_DECLINE, cat.SOLO_DECLARE):
            break
        cards += cat.ACTIONS[h[start]].length
    if cards != played:
        raise StateError(f"history: this hand's last plays must hold the {played} cards "
                         f"played (buffer piece 'played')")
    decisions = _solo_decisions(state)
    first = start - len(decisions)
    if first < 0 or h[first:start] != decisions:
        raise StateError(f"history: this hand's 硬牌 decisions must be {decisions} (buffer "
                         f"pieces 'solo_phase', 'solo', 'to_play'), got "
                         f"{h[max(first, 0):start]}")
    if state.hand_index == 0 and first != 0:
        raise StateError(f"history: the first hand's moves are the whole history, but "
                         f"{first} come before them")
    if state.hand_index > 0 and (first == 0 or h[first - 1] < cat.FIRST_PLAY or sum(
            a >= cat.FIRST_PLAY for a in h[:first]) < state.hand_index):
        raise StateError(f"history: {state.hand_index} finished hands must come before this "
                         f"hand's moves, each ending with a play")
    passes = 0
    while passes < len(h) - start and h[-1 - passes] == cat.PASS:
        passes += 1
    if state.standing >= 0:
        if passes != sum(state.passed) or h[-1 - passes] != state.standing:
            raise StateError(f"history: the last moves must be standing ({state.standing}) "
                             f"and then {sum(state.passed)} passes (buffer piece 'passed')")
    elif state.phase == "play" and played:
        active = sum(n > 0 for n in state.cards_left)
        if passes not in (active - 1, active):
            raise StateError(f"history: the last trick must end with a pass from every "
                             f"other seat holding cards, got {passes} passes")
    elif state.phase == "over" and h[-1] < cat.FIRST_PLAY:
        raise StateError("history: the episode must end with a play")
    new_hand = state.hand_index > 0 and first == len(h)
    state.last_rewards = (list(state.results[-1].rewards) if state.phase == "over" or new_hand
                          else [0, 0, 0, 0])


def _solo_decisions(state) -> list[int]:
    """This hand's 硬牌 decisions so far, from the buffer."""
    if not state.game.options["allow_solo"] or state.forced_solo:
        return []
    decline, declare = cat.SOLO_DECLINE, cat.SOLO_DECLARE
    if state.phase == "solo":
        return [decline] * ((state.current - state.dealer) % 4)
    if state.solo is not None:
        return [decline] * ((state.solo - state.dealer) % 4) + [declare]
    return [decline] * 4
