"""The kitty after declaring: the dealer picks it up (or 干锅 skips it), buries 8 cards (phase
``bury``), then each other seat in turn may bury jokers (扣王, phase ``koujoker``) and takes back
as many of the kitty's smallest cards (phase ``takeback`` where equal ones leave a choice).

Also the kitty's visibility (``show_kitty``, ``reveal_cards``), which the reveal uses too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.core.errors import StateError
from cardenv.dabang import catalogue as cat
from cardenv.dabang import kitty
from cardenv.dabang.phase import Phase, PhaseData, enter, flag, int_list, integer

KITTY_SIZE = 8
MAX_KITTY = KITTY_SIZE + 8  # with every joker buried by 扣王 before any is taken back


@dataclass(slots=True)
class Kitty(PhaseData):
    """The kitty and the burial / 扣王 bookkeeping of one hand."""

    cards: list[int]  # what lies in the kitty now, in the order it got there
    public: bool = False  # the cards lying in the kitty are known to everyone
    buried: list[int] = field(default_factory=list)  # the dealer's burial so far
    kou_seats: list[int] = field(default_factory=list)  # seats still to have their 扣王 turn
    kou_cap: int | None = None  # jokers the seat in turn may bury (None: its turn not opened)
    kou_buried: int = 0  # jokers it has buried
    kou_stopped: bool = False  # it has stopped burying
    take_need: int = 0  # cards it still takes back

    SPEC: ClassVar[dict] = {
        "cards": int_list(0, NUM_KINDS - 1, max_length=MAX_KITTY), "public": flag,
        "buried": int_list(0, NUM_KINDS - 1, max_length=KITTY_SIZE),
        "kou_seats": int_list(0, 3, max_length=3),
        "kou_cap": integer(0, KITTY_SIZE, optional=True), "kou_buried": integer(0, KITTY_SIZE),
        "kou_stopped": flag, "take_need": integer(0, KITTY_SIZE)}

    def copy(self) -> "Kitty":  # spelled out: a clone copies it
        return Kitty(self.cards.copy(), self.public, self.buried.copy(), self.kou_seats.copy(),
                     self.kou_cap, self.kou_buried, self.kou_stopped, self.take_need)


def take_up(state) -> bool:
    """The dealer picks up the kitty (True), or 干锅 leaves it lying (False) [D-A4]."""
    pile = state.kitty
    if not state.first_hand and pile.public and \
            kitty.is_gangguo(pile.cards, state.trump, state.level):
        state.gangguo = True
        state.v["gangguo"][0] = 1
        return False
    v, dealer = state.v, state.dealer
    v["hand"][dealer] += np.bincount(pile.cards, minlength=NUM_KINDS)
    state.cards_left[dealer] += KITTY_SIZE
    v["cards_left"][dealer] = state.cards_left[dealer]
    pile.cards = []
    v["kitty"][:] = 0
    v["kitty_known"][:] = 0
    v["kitty_shown"][0] = 0
    return True


def show_kitty(state, reveal: bool = False) -> None:
    """The kitty lying now is shown to everyone (``reveal``: it is the dealt kitty)."""
    state.kitty.public = True
    counts = np.bincount(state.kitty.cards, minlength=NUM_KINDS)
    state.v["kitty_shown"][0] = 1
    state.v["kitty_known"][:] = counts
    if reveal:
        state.v["kitty_revealed"][:] = counts


def reveal_cards(state, cards) -> None:
    """Some dealt kitty cards are turned face up (flips, the draw)."""
    counts = np.bincount(cards, minlength=NUM_KINDS)
    state.v["kitty_known"][:] = counts
    state.v["kitty_revealed"][:] = counts


def _move_to_kitty(state, seat: int, card: int) -> None:
    v = state.v
    v["hand"][seat, card] -= 1
    state.cards_left[seat] -= 1
    v["cards_left"][seat] = state.cards_left[seat]
    state.kitty.cards.append(card)
    v["kitty"][card] += 1


# --- bury: the dealer -------------------------------------------------------------------------

def legal_bury(state) -> list[int]:
    hand = state.v["hand"][state.dealer]
    return [cat.BURY + k for k in np.flatnonzero(hand).tolist()
            if not (k == SMALL_JOKER and hand[BIG_JOKER] > 0)]  # big joker before small


def apply_bury(state, action: int) -> None:
    card = action - cat.BURY
    pile = state.kitty
    _move_to_kitty(state, state.dealer, card)
    pile.buried.append(card)
    state.v["kitty_known"][state.dealer, card] += 1
    if len(pile.buried) < KITTY_SIZE:
        return
    if any(c >= NUM_NATURAL for c in pile.buried):  # a buried joker shows the kitty
        show_kitty(state)
    pile.kou_seats = [(state.dealer + i) % 4 for i in (1, 2, 3)] \
        if kitty.koujoker_allowed(pile.buried) else []
    pile.kou_cap = None


def burying(state) -> bool:
    """Whether the dealer still has cards to bury."""
    return len(state.kitty.buried) < KITTY_SIZE


# --- koujoker and takeback: the other seats in turn -------------------------------------------

def next_koujoker(state) -> bool:
    """Run 扣王 seat by seat until a decision is needed (True: its phase entered) or nobody is
    left."""
    pile, hands = state.kitty, state.v["hand"]
    while pile.kou_seats:
        seat = pile.kou_seats[0]
        if pile.kou_cap is None:  # this seat's turn opens
            pile.kou_cap = kitty.koujoker_cap(pile.cards)
            pile.kou_buried, pile.kou_stopped, pile.take_need = 0, False, 0
        if not pile.kou_stopped:
            if hands[seat, BIG_JOKER] + hands[seat, SMALL_JOKER] and \
                    pile.kou_buried < pile.kou_cap:
                enter(state, Phase.KOUJOKER, seat)
                return True
            _stop_burying(pile)
        if pile.take_need and _take_back(state, seat):
            return True
        pile.kou_seats.pop(0)
        pile.kou_cap = None
    return False


def legal_koujoker(state) -> list[int]:
    hand = state.v["hand"][state.current]
    joker = BIG_JOKER if hand[BIG_JOKER] else SMALL_JOKER
    return [cat.PASS, cat.BURY + joker]


def apply_koujoker(state, action: int) -> None:
    if action == cat.PASS:
        _stop_burying(state.kitty)
        return
    seat = state.current
    _move_to_kitty(state, seat, action - cat.BURY)
    state.kitty.kou_buried += 1
    state.v["koujoker"][seat] += 1
    state.v["koujoker_kinds"][seat, action - cat.BURY - SMALL_JOKER] += 1
    show_kitty(state)


def _stop_burying(pile: Kitty) -> None:
    pile.kou_stopped = True
    pile.take_need = pile.kou_buried  # take back as many cards as jokers buried


def _take_back(state, seat: int) -> bool:
    """Take the smallest cards automatically until a real choice arises (True: ``takeback``
    entered)."""
    pile = state.kitty
    while pile.take_need:
        candidates = kitty.takeback_candidates(pile.cards, state.trump, state.level)
        tied = sum(pile.cards.count(c) for c in candidates)
        if len(candidates) > 1 and pile.take_need < tied:
            enter(state, Phase.TAKEBACK, seat)
            return True
        for c in candidates:
            for _ in range(min(pile.cards.count(c), pile.take_need)):
                _take_card(state, seat, c)
    return False


def legal_takeback(state) -> list[int]:
    return [cat.TAKE + k for k in kitty.takeback_candidates(state.kitty.cards, state.trump,
                                                            state.level)]


def apply_takeback(state, action: int) -> None:
    _take_card(state, state.current, action - cat.TAKE)


def _take_card(state, seat: int, card: int) -> None:
    v, pile = state.v, state.kitty
    pile.cards.remove(card)
    v["kitty"][card] -= 1
    v["kitty_known"][:, card] = np.maximum(v["kitty_known"][:, card] - 1, 0)
    v["hand"][seat, card] += 1
    v["taken_back"][seat, card] += 1
    state.cards_left[seat] += 1
    v["cards_left"][seat] = state.cards_left[seat]
    pile.take_need -= 1


# --- checking a saved state --------------------------------------------------------------------

_DEFAULT_TURN = {"kou_seats": [], "kou_cap": None, "kou_buried": 0, "kou_stopped": False,
                 "take_need": 0}


def taken_up(state) -> bool:
    """Whether the dealer has picked the kitty up (after the tribute, unless 干锅)."""
    return state.phase not in (Phase.DECLARE, Phase.RETURN) and not state.gangguo


def check(state, shown_at_reveal: bool) -> None:
    """Check ``state.kitty``, 干锅 and the kitty pieces (``kitty``, ``kitty_known``,
    ``kitty_shown``, ``koujoker``) against the phase, the dealt kitty (``deal.deck[208:]``), the
    burial and 扣王 so far; ``StateError`` naming the field. ``shown_at_reveal``: the reveal
    showed the whole kitty."""
    pile, v, phase, deal = state.kitty, state.v, state.phase, state.deal
    dealt = deal.deck[-KITTY_SIZE:]
    if phase in (Phase.DECLARE, Phase.RETURN):
        gangguo = False
    else:
        gangguo = not state.first_hand and shown_at_reveal and \
            kitty.is_gangguo(dealt, state.trump, state.level)
    if state.gangguo != gangguo:
        raise StateError(f"gangguo (buffer piece 'gangguo') must be {int(gangguo)} in the "
                         f"{phase} phase: 干锅 is a later hand's shown kitty without trump-suit "
                         f"cards or with trump only, found when the dealer would pick it up")
    if gangguo and phase not in (Phase.PLAY, Phase.OVER):
        raise StateError(f"phase: a 干锅 kitty is not picked up, so there is no {phase} phase")
    counts = np.bincount(np.asarray(pile.cards, dtype=np.int64), minlength=NUM_KINDS)
    if not np.array_equal(v["kitty"], counts):
        raise StateError(f"kitty.cards {pile.cards} disagrees with buffer piece 'kitty' (the "
                         f"kitty's content)")
    koujoker = v["koujoker"]
    if not taken_up(state):
        _check_lying(state, dealt, shown_at_reveal)
        return
    buried, dealer = pile.buried, state.dealer
    complete = len(buried) == KITTY_SIZE
    if complete == (phase is Phase.BURY):
        raise StateError(f"kitty.buried: {len(buried)} cards buried, in the {phase} phase "
                         f"(buffer piece 'phase'); the dealer buries {KITTY_SIZE} cards one at a "
                         f"time in the bury phase, all of them before the next phase")
    if phase is Phase.BURY and state.current != dealer:
        raise StateError(f"current (buffer piece 'to_play') must be the dealer, seat {dealer}, "
                         f"who buries, got seat {state.current}")
    order = [(dealer + i) % 4 for i in (1, 2, 3)]
    allowed = complete and kitty.koujoker_allowed(buried)
    if koujoker[dealer] or (not allowed and koujoker.any()):
        raise StateError(f"buffer piece 'koujoker': only the other seats bury jokers by 扣王, "
                         f"after a burial that allows it, got {koujoker.tolist()}")
    turn = {name: getattr(pile, name) for name in _DEFAULT_TURN}
    if phase in (Phase.KOUJOKER, Phase.TAKEBACK):
        _check_turn(state, order, allowed)
    else:
        if phase is Phase.BURY or not allowed:
            expected = _DEFAULT_TURN
        else:  # play or over: the last seat's turn is over
            expected = {**_DEFAULT_TURN, "kou_buried": int(koujoker[order[2]]),
                        "kou_stopped": True}
        if turn != expected:
            raise StateError(f"kitty: the 扣王 fields must be {expected} in the {phase} phase, "
                             f"got {turn}")
    shown = (complete and any(c >= NUM_NATURAL for c in buried)) or bool(koujoker.any())
    if pile.public != (shown_at_reveal or shown) or v["kitty_shown"][0] != shown:
        raise StateError(f"kitty.public and buffer piece 'kitty_shown' must say whether the kitty "
                         f"was shown (at the reveal: {shown_at_reveal}; since the pick-up, by a "
                         f"buried joker or 扣王: {shown})")
    known = np.zeros((4, NUM_KINDS), dtype=np.int64)
    if shown:
        known[:] = counts
    else:
        known[dealer] = counts
    if not np.array_equal(v["kitty_known"], known):
        raise StateError("buffer piece 'kitty_known' must show the kitty to the dealer who "
                         "buried it, and to everyone once it is shown")
    if not koujoker.any() and pile.cards != buried:
        raise StateError(f"kitty.cards must be the burial (kitty.buried) until a joker is "
                         f"buried by 扣王, got {pile.cards}")


def _check_lying(state, dealt: list[int], shown_at_reveal: bool) -> None:
    """The kitty before the pick-up (or 干锅): the dealt kitty, shown as the reveal left it."""
    pile, v = state.kitty, state.v
    turn = {name: getattr(pile, name) for name in _DEFAULT_TURN}
    declaring = state.phase is Phase.DECLARE
    public = shown_at_reveal and not declaring
    if pile.cards != dealt or pile.buried or turn != _DEFAULT_TURN:
        raise StateError(f"kitty: before the dealer picks it up, kitty.cards must be the dealt "
                         f"kitty (deal.deck[208:]) and nothing buried, got cards {pile.cards}, "
                         f"buried {pile.buried}, {turn}")
    if pile.public != public or v["kitty_shown"][0] != public:
        raise StateError(f"kitty.public and buffer piece 'kitty_shown' must be {public} "
                         f"(the reveal shows the kitty after a grab or a later hand's "
                         f"declaration)")
    if v["koujoker"].any():
        raise StateError("buffer piece 'koujoker' must be zero before the burial")
    known = v["kitty_known"]
    if (declaring and known.any()) or (known != v["kitty_revealed"]).any():
        raise StateError("buffer piece 'kitty_known' must show everyone the kitty cards "
                         "turned up (buffer piece 'kitty_revealed') before the pick-up")


def _check_turn(state, order: list[int], allowed: bool) -> None:
    """A seat's 扣王 turn in progress (phases ``koujoker`` and ``takeback``)."""
    pile, phase, koujoker = state.kitty, state.phase, state.v["koujoker"]
    seats = pile.kou_seats
    if not allowed or not seats or seats != order[3 - len(seats):]:
        raise StateError(f"kitty.kou_seats must be the seats after the dealer still to have "
                         f"their 扣王 turn, the one in turn first, after a burial that allows "
                         f"扣王, got {seats}")
    seat = seats[0]
    if state.current != seat:
        raise StateError(f"current (buffer piece 'to_play') must be seat {seat}, in its 扣王 "
                         f"turn (kitty.kou_seats[0]), got seat {state.current}")
    if any(koujoker[s] for s in seats[1:]) or koujoker[seat] != pile.kou_buried:
        raise StateError(f"buffer piece 'koujoker' {koujoker.tolist()} must count the jokers "
                         f"buried by each seat (kitty.kou_buried for the seat in turn)")
    stopped, need = pile.kou_stopped, pile.take_need
    if pile.kou_cap is None or pile.kou_buried > pile.kou_cap or need > pile.kou_buried or \
            (need and not stopped):
        raise StateError(f"kitty: a seat buries at most kitty.kou_cap jokers, then takes back "
                         f"as many cards (kitty.take_need), got cap {pile.kou_cap}, buried "
                         f"{pile.kou_buried}, stopped {stopped}, take_need {need}")
    taken = pile.kou_buried - need if stopped else 0
    cap = kitty.koujoker_cap(pile.cards) + taken
    if pile.kou_cap != cap:
        raise StateError(f"kitty.kou_cap must be {cap}: the kitty's non-point cards when the "
                         f"turn opened, got {pile.kou_cap}")
    hand = state.v["hand"][seat]
    if phase is Phase.KOUJOKER:
        if stopped or not (hand[SMALL_JOKER] + hand[BIG_JOKER]) or pile.kou_buried >= cap:
            raise StateError(f"phase koujoker: seat {seat} must hold a joker and be free to bury "
                             f"one more (kitty.kou_stopped false, kitty.kou_buried < "
                             f"kitty.kou_cap)")
        return
    candidates = kitty.takeback_candidates(pile.cards, state.trump, state.level)
    tied = sum(pile.cards.count(c) for c in candidates)
    if not stopped or not need or len(candidates) < 2 or need >= tied:
        raise StateError(f"phase takeback: seat {seat} must have stopped burying and still take "
                         f"back cards (kitty.take_need {need}) with a choice among equal "
                         f"smallest kitty cards")
