"""The deal and trump declarations (phase ``declare``) [D-A1], then the reveal that fixes the
dealer and the trump suit [D-A2, D-A3].

``run`` deals card by card until a seat may declare (it then enters ``declare``); ``legal`` and
``apply`` are that decision. Seats are asked (a) when a card just dealt enables a declaration
they could not make before (option ``bidding="during_deal"``), (b) after a declaration, each
other seat in play order that could override it, (c) after the deal, round the table until four
seats in a row have nothing to declare. ``reveal`` runs once declaring is over.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cardenv.core.cards import BIG_JOKER, NUM_NATURAL
from cardenv.dabang import catalogue as cat
from cardenv.dabang import declare, kitty
from cardenv.dabang.observation import DECLARATIONS
from cardenv.dabang.phase import Phase, PhaseData, enter
from cardenv.dabang.phases.burial import KITTY_SIZE, reveal_cards, show_kitty

DEALT = 208  # 52 each; the last 8 cards of the shuffled deck are the kitty


@dataclass(slots=True)
class Deal(PhaseData):
    """The deal and declaration bookkeeping of one shuffle."""

    deck: list[int]  # the shuffled 216 cards, dealt one at a time from the first seat
    round_seat: int  # (c) the next seat to ask after the deal
    pos: int = 0  # cards dealt so far
    decl: int = 0  # the standing declaration (an action id; 0: none)
    declarer: int | None = None
    grab_waiting: bool = False  # a first-hand grab waits for the grabber's first suited card
    queue: list[int] = field(default_factory=list)  # (b) seats still to ask about an override
    after_deal: bool = False  # the deal is over: asking round the table (c)
    round_quiet: int = 0  # (c) seats in a row that had nothing to declare
    ask_reason: str | None = None  # why the seat to act was asked: "new card", "override", ...


def legal(state) -> list[int]:
    return [cat.PASS] + declare.legal(state.v["hand"][state.current].tolist(),
                                      state.first_hand, state.level, state.deal.decl)


def apply(state, action: int) -> None:
    deal, seat = state.deal, state.current
    if action == cat.PASS:
        if deal.after_deal:
            deal.round_quiet += 1
        return
    deal.decl, deal.declarer = action, seat
    v = state.v
    v["declarer"][:] = 0
    v["declarer"][seat] = 1
    v["declaration"][:] = 0
    v["declared_suit"][:] = 0
    rank = declare.rank_of(action)
    v["declaration"][DECLARATIONS.index("grab") if rank == declare.GRAB_RANK else rank] = 1
    suit = declare.suit_of(action)
    if suit is not None:
        v["declared_suit"][suit] = 1
    if action == cat.GRAB:
        deal.grab_waiting = True
        deal.queue = []
    elif deal.after_deal:
        deal.round_quiet = 0
    else:
        deal.queue = [(seat + i) % 4 for i in (1, 2, 3)]


def run(state) -> bool:
    """Deal on until a seat may declare (True: ``declare`` entered) or declaring is over."""
    deal = state.deal
    during = state.game.options["bidding"] == "during_deal"
    hands = state.v["hand"]
    while deal.queue:  # (b) each other player that could override, in play order
        seat = deal.queue.pop(0)
        if _declarations(state, seat):
            _ask(state, seat, "override")
            return True
    while not deal.after_deal and deal.pos < DEALT:
        card = deal.deck[deal.pos]
        seat = (state.start_seat + deal.pos) % 4
        deal.pos += 1
        could = _declarations(state, seat) if during and _may_enable(state, card) else None
        hands[seat, card] += 1
        state.cards_left[seat] += 1
        state.v["cards_left"][seat] = state.cards_left[seat]
        if deal.grab_waiting and seat == deal.declarer and card < NUM_NATURAL:
            set_trump(state, card % 4)
            deal.grab_waiting = False
        if could is not None and set(_declarations(state, seat)) - set(could):
            _ask(state, seat, "new card")  # (a) a declaration it could not make before
            return True
    deal.after_deal = True
    while deal.round_quiet < 4:  # (c) after the deal, round the table while anyone declares
        seat = deal.round_seat
        deal.round_seat = (seat + 1) % 4
        if _declarations(state, seat):
            _ask(state, seat, "after deal")
            return True
        deal.round_quiet += 1
    return False


def _may_enable(state, card: int) -> bool:
    if state.first_hand:
        return card == BIG_JOKER and state.deal.decl == 0
    return card >= NUM_NATURAL or card // 4 == state.level - 3


def _declarations(state, seat: int) -> list[int]:
    return declare.legal(state.v["hand"][seat].tolist(), state.first_hand, state.level,
                         state.deal.decl)


def _ask(state, seat: int, why: str) -> None:
    state.deal.ask_reason = why
    enter(state, Phase.DECLARE, seat)


def set_trump(state, suit: int) -> None:
    state.trump = suit
    state.v["trump"][:] = 0
    state.v["trump"][suit] = 1


def reveal(state) -> bool:
    """Fix the dealer and the trump once declaring is over; False asks for a redeal."""
    deal, cards = state.deal, state.kitty.cards
    if state.first_hand:
        if deal.decl == cat.GRAB:
            state.dealer = deal.declarer
            if state.trump is None:  # [D-A2] the deal ended first: the kitty decides
                index = kitty.first_suited(cards)
                if index is None:
                    return False
                set_trump(state, cards[index] % 4)
            show_kitty(state, reveal=True)
        else:  # [D-A3] each player from the first seat turns a kitty card
            flipped = cards[:4]
            best = kitty.flip_winner(flipped)
            index = best if flipped[best] < NUM_NATURAL else \
                kitty.first_suited(cards, best + 1)  # a joker: the next suited card
            if index is None:
                return False
            state.dealer = (state.start_seat + best) % 4
            set_trump(state, cards[index] % 4)
            reveal_cards(state, flipped + ([cards[index]] if index > 3 else []))
        state.v["dealer"][state.dealer] = 1
        return True
    if deal.decl:
        set_trump(state, declare.suit_of(deal.decl))
        show_kitty(state, reveal=True)
        return True
    drawn = []  # nobody declared: draw kitty cards at random until a suited one
    for i in state.rng.permutation(KITTY_SIZE).tolist():
        drawn.append(cards[i])
        if cards[i] < NUM_NATURAL:
            set_trump(state, cards[i] % 4)
            reveal_cards(state, drawn)
            return True
    return False
