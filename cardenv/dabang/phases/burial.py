"""The kitty after declaring: the dealer picks it up (or 干锅 skips it), buries 8 cards (phase
``bury``), then each other seat in turn may bury jokers (扣王, phase ``koujoker``) and takes back
as many of the kitty's smallest cards (phase ``takeback`` where equal ones leave a choice).

Also the kitty's visibility (``show_kitty``, ``reveal_cards``), which the reveal uses too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.dabang import catalogue as cat
from cardenv.dabang import kitty
from cardenv.dabang.phase import Phase, enter

KITTY_SIZE = 8


@dataclass(slots=True)
class Kitty:
    """The kitty and the burial / 扣王 bookkeeping of one hand."""

    cards: list[int]  # what lies in the kitty now, in the order it got there
    public: bool = False  # the cards lying in the kitty are known to everyone
    buried: list[int] = field(default_factory=list)  # the dealer's burial so far
    kou_seats: list[int] = field(default_factory=list)  # seats still to have their 扣王 turn
    kou_cap: int | None = None  # jokers the seat in turn may bury (None: its turn not opened)
    kou_buried: int = 0  # jokers it has buried
    kou_stopped: bool = False  # it has stopped burying
    take_need: int = 0  # cards it still takes back

    def copy(self) -> "Kitty":  # a clone copies it
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
