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

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.dabang import catalogue as cat
from cardenv.dabang import declare, kitty
from cardenv.dabang.observation import DECLARATIONS
from cardenv.dabang.phase import Phase, enter
from cardenv.dabang.phases.burial import KITTY_SIZE, reveal_cards, show_kitty

DEALT = 208  # 52 each; the last 8 cards of the shuffled deck are the kitty


@dataclass(slots=True)
class Deal:
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

    def copy(self) -> "Deal":  # a clone copies it
        return Deal(self.deck.copy(), self.round_seat, self.pos, self.decl, self.declarer,
                    self.grab_waiting, self.queue.copy(), self.after_deal, self.round_quiet,
                    self.ask_reason)


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
    column, count = declare.shown(action)
    shown = v["declared_cards"][seat]  # overridden declarations stay public: keep the most
    shown[column] = max(shown[column], count)
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
    while deal.queue:  # (b) each other player that could override, in play order
        seat = deal.queue.pop(0)
        if _declarations(state, seat):
            _ask(state, seat, "override")
            return True
    if not deal.after_deal and deal.pos < DEALT and _deal_on(state):
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


def _deal_on(state) -> bool:
    """Deal the cards left one at a time until one lets its seat make a declaration it could not
    make before ((a): True, that seat is asked) or all are dealt (False).

    The hands are counted in plain lists while dealing (a card is one list increment, not
    numpy writes) and written back to the buffer when the dealing stops."""
    deal, v = state.deal, state.v
    deck, start, first_hand, level = deal.deck, state.start_seat, state.first_hand, state.level
    enabling = _enabling(state) if state.game.options["bidding"] == "during_deal" else set()
    hands, cards_left = v["hand"].tolist(), state.cards_left
    asked = None
    pos = deal.pos
    while pos < DEALT:
        card = deck[pos]
        seat = (start + pos) % 4
        pos += 1
        hand = hands[seat]
        could = declare.legal(hand, first_hand, level, deal.decl) if card in enabling else None
        hand[card] += 1
        cards_left[seat] += 1
        if deal.grab_waiting and seat == deal.declarer and card < NUM_NATURAL:
            set_trump(state, card % 4)
            deal.grab_waiting = False
        if could is not None and \
                set(declare.legal(hand, first_hand, level, deal.decl)) - set(could):
            asked = seat
            break
    deal.pos = pos
    v["hand"][:] = hands
    v["cards_left"][:] = cards_left
    if asked is None:
        return False
    _ask(state, asked, "new card")  # a declaration it could not make before
    return True


def _enabling(state) -> set[int]:
    """The cards whose arrival may give their seat a new declaration: the first hand's big
    joker while nobody has declared; later, the jokers and the level cards."""
    if state.first_hand:
        return {BIG_JOKER} if state.deal.decl == 0 else set()
    level_cards = (state.level - 3) * 4
    return {*range(level_cards, level_cards + 4), *range(NUM_NATURAL, NUM_KINDS)}


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


def flip(cards: list[int], start_seat: int) -> tuple[int, int, list[int], list[int]] | None:
    """[D-A3] The first hand's flips of the kitty ``cards``: the dealer, the trump suit, the
    cards turned up (the four flips and the suited card found after them) and the jokers turned
    over and passed after the four flips while looking for that card; ``None`` if no suit can
    be found (a redeal)."""
    flipped = cards[:4]
    best = kitty.flip_winner(flipped)
    index = best if flipped[best] < NUM_NATURAL else \
        kitty.first_suited(cards, best + 1)  # a joker: the next suited card
    if index is None:
        return None
    shown = flipped + ([cards[index]] if index > 3 else [])
    # the cards after the flips looked at before the suited one (all of them when the search
    # wrapped round to a flipped card): jokers, all public. A suited card that wins the flips
    # turns nothing more, so the four unflipped cards stay hidden (jokers included)
    if flipped[best] < NUM_NATURAL:
        passed = []
    else:
        passed = cards[4:index] if index > 3 else cards[4:]
    return (start_seat + best) % 4, cards[index] % 4, shown, passed


def flip_jokers(passed: list[int]) -> list[int]:
    """The ``flip_jokers`` piece: small and big jokers among ``passed``."""
    return [passed.count(SMALL_JOKER), passed.count(BIG_JOKER)]


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
            flipped = flip(cards, state.start_seat)
            if flipped is None:
                return False
            state.dealer, suit, shown, passed = flipped
            set_trump(state, suit)
            reveal_cards(state, shown)
            state.v["flip_jokers"][:] = flip_jokers(passed)
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
