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
from typing import ClassVar

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.core.errors import StateError
from cardenv.dabang import catalogue as cat
from cardenv.dabang import declare, kitty
from cardenv.dabang.observation import DECLARATIONS
from cardenv.dabang.phase import Phase, PhaseData, choice, enter, flag, int_list, integer
from cardenv.dabang.phases.burial import KITTY_SIZE, reveal_cards, show_kitty

DEALT = 208  # 52 each; the last 8 cards of the shuffled deck are the kitty
DECK_SIZE = DEALT + KITTY_SIZE
COPIES = 4  # of each kind: four decks
ASK_REASONS = ("new card", "override", "after deal")


def _deck(value, name: str) -> list[int]:
    if not (isinstance(value, list) and len(value) == DECK_SIZE and
            all(type(x) is int for x in value) and 0 <= min(value) and max(value) < NUM_KINDS):
        value = int_list(0, NUM_KINDS - 1, length=DECK_SIZE)(value, name)  # the slow path
    cards = list(value)
    if np.bincount(cards, minlength=NUM_KINDS).tolist() != [COPIES] * NUM_KINDS:
        raise StateError(f"{name} must hold the {DECK_SIZE} cards of four decks, each of the "
                         f"{NUM_KINDS} kinds {COPIES} times")
    return cards


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

    SPEC: ClassVar[dict] = {
        "deck": _deck, "round_seat": integer(0, 3), "pos": integer(0, DEALT),
        "decl": integer(0, cat.BURY - 1), "declarer": integer(0, 3, optional=True),
        "grab_waiting": flag, "queue": int_list(0, 3, max_length=3), "after_deal": flag,
        "round_quiet": integer(0, 4), "ask_reason": choice(None, *ASK_REASONS)}

    def copy(self) -> "Deal":  # spelled out: a clone copies it
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


def _may_enable(state, card: int) -> bool:
    return card in _enabling(state)


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
    # wrapped round to a flipped card): jokers, all public
    passed = cards[4:index] if index > 3 else cards[4:] if index <= best else []
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


# --- checking a saved state --------------------------------------------------------------------

def dealt_cards(state) -> np.ndarray:
    """``(4, 54)`` counts of the cards each seat was dealt so far (``deal.deck[:deal.pos]``, one
    at a time in play order from ``start_seat``)."""
    deal = state.deal
    seats = (state.start_seat + np.arange(deal.pos)) % 4
    codes = seats * NUM_KINDS + np.asarray(deal.deck[:deal.pos], dtype=np.int64)
    return np.bincount(codes, minlength=4 * NUM_KINDS).reshape(4, NUM_KINDS)


def kitty_shown_at_reveal(state) -> bool:
    """Whether the reveal showed the whole kitty (a first hand's grab; a later hand's
    declaration), once declaring is over."""
    return state.deal.decl == cat.GRAB if state.first_hand else state.deal.decl != 0


def check(state) -> np.ndarray:
    """Check ``state.deal`` against the phase, the hands, the declaration pieces and the
    reveal (a first hand's dealer, the trump, ``kitty_revealed``); ``StateError`` naming the
    field. Returns the cards dealt so far (``dealt_cards``)."""
    deal, phase = state.deal, state.phase
    if phase is not Phase.DECLARE and not (deal.pos == DEALT and deal.after_deal and
                                           deal.round_quiet == 4 and not deal.queue):
        raise StateError(f"deal: declaring is over in the {phase} phase, so deal.pos must be "
                         f"{DEALT}, deal.after_deal true, deal.round_quiet 4 and deal.queue "
                         f"empty; got {deal.pos}, {deal.after_deal}, {deal.round_quiet}, "
                         f"{deal.queue}")
    dealt = dealt_cards(state)
    _check_declaration(state, dealt)
    if phase is Phase.DECLARE:
        _check_asked(state)
    _check_reveal(state, dealt)
    return dealt


def _check_declaration(state, dealt: np.ndarray) -> None:
    deal, v = state.deal, state.v
    decl, declarer = deal.decl, deal.declarer
    if (decl == 0) != (declarer is None):
        raise StateError(f"deal.declarer must be None exactly when nothing is declared "
                         f"(deal.decl 0), got decl {decl} by {declarer}")
    if decl and decl not in declare.legal(dealt[declarer].tolist(), state.first_hand,
                                          state.level, 0):
        raise StateError(f"deal.decl: seat {declarer} (deal.declarer) cannot have made "
                         f"declaration {decl} ({cat.ACTIONS[decl].text}) with the cards dealt "
                         f"to it (a first hand's only declaration is the big-joker grab)")
    if deal.grab_waiting and decl != cat.GRAB:
        raise StateError(f"deal.grab_waiting: only a big-joker grab waits for its suit, but "
                         f"deal.decl is {decl}")
    expected = {"declarer": np.zeros(4, np.int64),
                "declaration": np.zeros(len(DECLARATIONS), np.int64),
                "declared_suit": np.zeros(4, np.int64)}
    if decl:
        rank = declare.rank_of(decl)
        expected["declarer"][declarer] = 1
        expected["declaration"][DECLARATIONS.index("grab") if rank == declare.GRAB_RANK
                                else rank] = 1
        suit = declare.suit_of(decl)
        if suit is not None:
            expected["declared_suit"][suit] = 1
    for name, want in expected.items():
        if not np.array_equal(v[name], want):
            raise StateError(f"buffer piece {name!r} must show the standing declaration "
                             f"(deal.decl {decl} by seat {declarer}): expected "
                             f"{want.tolist()}, got {v[name].tolist()}")
    _check_shown(state, dealt)


def _check_shown(state, dealt: np.ndarray) -> None:
    """``declared_cards`` against the standing declaration and the cards dealt: the standing
    declaration shown by its declarer, every earlier one ranked strictly lower (so the level
    counts shown are distinct numbers below a standing level declaration's, and only the
    standing joker declaration can sit beside four small jokers), nobody showing more than it
    was dealt; nothing but the grab in a first hand."""
    deal, shown = state.deal, state.v["declared_cards"].astype(np.int64)
    decl, declarer = deal.decl, deal.declarer
    problem = None
    base = (state.level - 3) * 4
    held = np.concatenate([dealt[:, base:base + 4], dealt[:, NUM_NATURAL:]], axis=1)
    level, jokers = shown[:, :4], shown[:, 4:]
    nonzero = level[level > 0]
    if (shown > np.minimum(held, 4)).any():
        problem = "a seat shows more cards than it was dealt"
    elif (jokers % 4 != 0).any() and not state.first_hand:
        problem = "a joker declaration shows four jokers"
    elif len(set(nonzero.tolist())) != nonzero.size:
        problem = "level declarations are overridden by strictly more level cards only"
    elif decl == 0:
        problem = shown.any() and "nothing is declared"
    else:
        column, count = declare.shown(decl)
        standing = np.zeros_like(shown)
        standing[declarer, column] = count
        if state.first_hand:
            problem = not np.array_equal(shown, standing) and "a first hand's only " \
                "declaration is the grab"
        elif shown[declarer, column] != count:
            problem = "the declarer shows the standing declaration"
        elif column < 4:
            problem = (jokers.any() or nonzero.max() != count) and "earlier declarations " \
                "rank below the standing one"
        else:
            others = jokers.copy()
            others[declarer, column - 4] = 0
            problem = (others[:, 1].any() or (column == 4 and others.any()) or
                       others.sum() > 4) and "earlier declarations rank below the standing one"
    if problem:
        raise StateError(f"buffer piece 'declared_cards' {shown.tolist()}: {problem} (deal.decl "
                         f"{decl} by seat {declarer})")


def _check_asked(state) -> None:
    """Who is asked to declare, and why, against the deal's progress."""
    deal, seat = state.deal, state.current
    reason = deal.ask_reason
    if state.game.options["bidding"] == "after_deal" and not deal.after_deal:
        raise StateError("deal.after_deal: with bidding='after_deal' nobody declares before "
                         "the deal is over")
    if deal.after_deal != (reason == "after deal"):
        raise StateError(f"deal.ask_reason must be 'after deal' exactly when deal.after_deal "
                         f"is true, got {reason!r} with after_deal {deal.after_deal}")
    if deal.after_deal:
        if deal.pos != DEALT or deal.round_quiet > 3:
            raise StateError(f"deal: after the deal (deal.after_deal) deal.pos must be {DEALT} "
                             f"and deal.round_quiet 0..3 while someone is asked, got "
                             f"{deal.pos} and {deal.round_quiet}")
        expected = (deal.round_seat - 1) % 4
    else:
        if deal.round_quiet or deal.round_seat != state.start_seat:
            raise StateError(f"deal.round_quiet must be 0 and deal.round_seat start_seat "
                             f"({state.start_seat}) until the deal is over, got "
                             f"{deal.round_quiet} and {deal.round_seat}")
        expected = _asked_during_deal(state)
    if reason != "override" and deal.queue:
        raise StateError(f"deal.queue: seats wait to override only while one is asked to "
                         f"override (deal.ask_reason 'override'), got {deal.queue}")
    if seat != expected:
        raise StateError(f"current (buffer piece 'to_play') must be seat {expected}, asked to "
                         f"declare ({reason}), got seat {seat}")


def _asked_during_deal(state) -> int:
    deal, reason = state.deal, state.deal.ask_reason
    if reason == "override":
        decl, declarer, queue = deal.decl, deal.declarer, deal.queue
        if decl in (0, cat.GRAB) or len(queue) > 2 or \
                queue != [(declarer + i) % 4 for i in range(4 - len(queue), 4)]:
            raise StateError(f"deal.queue must be the seats after the asked one, up to the "
                             f"declarer's 上家, of a declaration that can be overridden (deal.decl "
                             f"{decl} by {declarer}); got {queue}")
        return (declarer + 3 - len(queue)) % 4
    if reason != "new card":
        raise StateError(f"deal.ask_reason must be one of {list(ASK_REASONS)} while someone is "
                         f"asked to declare, got {reason!r}")
    if deal.pos == 0 or state.game.options["bidding"] != "during_deal":
        raise StateError(f"deal.ask_reason 'new card': no card was dealt (deal.pos "
                         f"{deal.pos}) or bidding is after the deal")
    seat, card = (state.start_seat + deal.pos - 1) % 4, deal.deck[deal.pos - 1]
    hand = state.v["hand"][seat].tolist()
    before = list(hand)
    before[card] = max(before[card] - 1, 0)
    new = set(declare.legal(hand, state.first_hand, state.level, deal.decl)) - \
        set(declare.legal(before, state.first_hand, state.level, deal.decl))
    if not (_may_enable(state, card) and new):
        raise StateError(f"deal.ask_reason 'new card': the card just dealt (deal.deck"
                         f"[deal.pos - 1], deal.pos {deal.pos}) gives seat {seat} no new "
                         f"declaration")
    return seat


def _check_grab_suit(state) -> None:
    """A first hand's grab is made when the grabber's first big joker is dealt (the only time a
    card enables it during the deal) or after the deal; its suit is that of the grabber's next
    suited card, if one is dealt after the grab."""
    deal, trump = state.deal, state.trump
    seat = deal.declarer
    mine = deal.deck[(seat - state.start_seat) % 4:deal.pos:4]
    first = mine.index(BIG_JOKER) if BIG_JOKER in mine else len(mine)
    after = next((c for c in mine[first + 1:] if c < NUM_NATURAL), None)
    if deal.grab_waiting:
        if after is not None and not deal.after_deal:
            raise StateError(f"deal.grab_waiting: the grabber, seat {seat}, was dealt a suited "
                             f"card after its first big joker, which names the trump suit")
        return
    if after is None or trump != after % 4:
        raise StateError(f"trump (buffer piece 'trump') must be {after and after % 4}: the suit "
                         f"of the grabber's (seat {seat}) first suited card after its first big "
                         f"joker (deal.deck from start_seat), got {trump}")


def _check_reveal(state, dealt: np.ndarray) -> None:
    """The first hand's dealer and each hand's trump and ``kitty_revealed`` against the rules of
    the reveal [D-A2, D-A3] (a later hand's drawn trump: one of the kitty's suits)."""
    deal, v, trump = state.deal, state.v, state.trump
    cards = deal.deck[DEALT:]
    revealed = v["kitty_revealed"]
    grab = state.first_hand and deal.decl == cat.GRAB
    if grab:
        _check_grab_suit(state)
    flipped = None if grab or not state.first_hand or state.phase is Phase.DECLARE else \
        flip(cards, state.start_seat)
    passed = flip_jokers(flipped[3]) if flipped else [0, 0]
    if v["flip_jokers"].tolist() != passed:
        raise StateError(f"buffer piece 'flip_jokers' must be {passed}: the small and big "
                         f"jokers a first hand's kitty flips passed over after the four flips "
                         f"(none before the flips, after a grab or in a later hand), got "
                         f"{v['flip_jokers'].tolist()}")
    if state.phase is Phase.DECLARE:
        if state.first_hand and state.dealer is not None:
            raise StateError("dealer (buffer piece 'dealer'): a first hand's dealer is not known "
                             "while declaring")
        if trump is not None and not (grab and not deal.grab_waiting):
            raise StateError(f"trump (buffer piece 'trump') is not decided while declaring "
                             f"(except by a first hand's grab), got {trump}")
        if revealed.any():
            raise StateError("buffer piece 'kitty_revealed' must be zero while declaring")
        return
    if state.dealer is None or trump is None:
        raise StateError(f"dealer and trump (buffer pieces 'dealer', 'trump') are known once "
                         f"declaring is over, got {state.dealer} and {trump}")
    shown = cards
    if grab:
        if state.dealer != deal.declarer:
            raise StateError(f"dealer (buffer piece 'dealer') must be the grabber, seat "
                             f"{deal.declarer}, got {state.dealer}")
        index = kitty.first_suited(cards)
        if deal.grab_waiting and (index is None or trump != cards[index] % 4):
            raise StateError(f"trump (buffer piece 'trump') must be the suit of the first "
                             f"suited kitty card (the deal ended before the grabber's), got "
                             f"{trump}")
    elif state.first_hand:
        flipped = flip(cards, state.start_seat)
        if flipped is None or flipped[:2] != (state.dealer, trump):
            raise StateError(f"dealer and trump (buffer pieces 'dealer', 'trump') must be what "
                             f"the kitty flips give, {flipped and flipped[:2]}, got "
                             f"{(state.dealer, trump)}")
        shown = flipped[2]
    elif deal.decl:
        if trump != declare.suit_of(deal.decl):
            raise StateError(f"trump (buffer piece 'trump') must be the declared suit "
                             f"{declare.suit_of(deal.decl)}, got {trump}")
    else:  # drawn at random: jokers, then one card of the trump suit
        counts = np.bincount(cards, minlength=NUM_KINDS)
        natural = np.flatnonzero(revealed[:NUM_NATURAL])
        if (revealed > counts).any() or revealed[:NUM_NATURAL].sum() != 1 or \
                natural[0] % 4 != trump:
            raise StateError(f"buffer piece 'kitty_revealed' must hold kitty cards drawn until "
                             f"one of the trump suit ({trump}): jokers, then that card")
        return
    if not np.array_equal(revealed, np.bincount(shown, minlength=NUM_KINDS)):
        raise StateError("buffer piece 'kitty_revealed' must hold the kitty cards the reveal "
                         "turned up")
