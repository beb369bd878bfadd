"""The Dabang rules engine: ``DabangGame`` (options) and ``DabangState`` (one position).

Pure Python + numpy; knows nothing of PettingZoo. A state moves by ``apply(action)`` with ids
from ``catalogue``; chance (shuffles, the first dealer, the kitty draw) comes from the state's own
seeded generator, so ``DabangGame(...).replay(seed, actions)`` rebuilds any game.

A hand runs through these phases (``state.phase``); steps without a choice happen by themselves:

1. ``declare``: the deal, one card at a time, with trump declarations [D-A1]; then the kitty
   flips (first hand, nobody grabbed) or the kitty draw (later hands, nobody declared), and a
   redeal if no suit can be found; then tribute (喝血) and the 干锅 check.
   ``return``: with option ``tribute_return="dealer_choice"``, the dealer gives back as many
   cards as it received, one by one.
2. ``bury``: the dealer, holding the kitty, buries 8 cards one by one (big joker before small).
3. ``koujoker`` / ``takeback``: each other player in turn may bury jokers (扣王) and takes back as
   many of the kitty's smallest cards, choosing between equal ones.
4. ``play``: tricks of 1..4 identical cards led; follows are built one group per step.

Episodes (option ``episode``): ``"hand"`` plays one hand, from a fresh match or from the match
state given by ``levels``/``dealer``/``blood``; ``"match"`` plays until the match ends (or
``max_hands``, a truncation). Teams: seats {0, 2} are team 0, {1, 3} team 1.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import (BIG_JOKER, KIND_POINTS, NUM_KINDS, NUM_NATURAL, SMALL_JOKER,
                                parse_cards)
from cardenv.core.errors import ConfigError, StateError
from cardenv.core.options import Option, boolean, one_of, positive_int, resolve
from cardenv.core.state import CardGame, CardState, copy_generator, generator_from_state
from cardenv.dabang import catalogue as cat
from cardenv.dabang import declare, kitty
from cardenv.dabang.follow import play_steps_one
from cardenv.dabang.observation import DECLARATIONS, LAYOUT, PHASES, STATE_SIZE
from cardenv.dabang.scoring import HandResult, score_hand
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS, TRUMP

DECKS = 4
DECK = np.repeat(np.arange(NUM_KINDS), DECKS)
DEALT = 208  # 52 each; the last 8 cards of the shuffled deck are the kitty
KITTY_SIZE = 8
_FORMAT = "cardenv.dabang.state/1"
_STRENGTH = STRENGTH.tolist()
_SUIT_CLASS = SUIT_CLASS.tolist()
_POINTS = KIND_POINTS.tolist()


def _levels_ok(value) -> bool:
    return (isinstance(value, (tuple, list)) and len(value) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) and 3 <= x <= 10
                    for x in value))


def _optional_seat(value) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool)
                             and 0 <= value < 4)


def _start_dealer(value) -> bool:
    return value == "random" or _optional_seat(value)


def _start_levels(value) -> bool:
    return value == "random" or _levels_ok(value)


def _non_negative_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _non_negative_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


OPTIONS = {
    "episode": Option("hand", one_of("hand", "match"), "'hand' or 'match'",
                      "one hand per episode, or a whole match"),
    "max_hands": Option(None, lambda v: v is None or positive_int(v), "None or an int >= 1",
                        "match mode: truncate the episode after this many hands"),
    "levels": Option((3, 3), _start_levels, "two levels in 3..10 (team 0, team 1), or 'random'",
                     "the teams' levels when the episode starts ('random': each uniform in "
                     "3..10, drawn per episode)"),
    "dealer": Option(None, _start_dealer, "None, a seat 0..3, or 'random'",
                     "None: start a fresh match (first-hand rules); a seat: start a later hand "
                     "of a match with this dealer; 'random': a later hand, dealer drawn per "
                     "episode"),
    "blood": Option(0, _non_negative_int, "an int >= 0",
                    "tribute owed to the starting dealer (with `dealer` only)"),
    "bidding": Option("during_deal", one_of("during_deal", "after_deal"),
                      "'during_deal' or 'after_deal'", "when trump may be declared [D-A1]"),
    "follow": Option("dead", one_of("dead", "live"), "'dead' or 'live'",
                     "死棒 shape duty, or the suit duty only"),
    "joker_levels": Option(True, boolean, "True or False",
                           "kitty jokers bring levels (2 per BJ, 1 per SJ) as well as blood [D-A8]"),
    "keep_dealer": Option("partner", one_of("partner", "same"), "'partner' or 'same'",
                          "who deals when the defenders keep the deal [D-A9]"),
    "four_joker_win": Option("big_or_small", one_of("big_or_small", "big_only"),
                             "'big_or_small' or 'big_only'",
                             "which four kitty jokers can end the match at once"),
    "deal_value": Option(0.5, _non_negative_number, "a number >= 0",
                         "hand-episode reward for taking the deal from the other team"),
    "tribute_return": Option("none", one_of("none", "dealer_choice"),
                             "'none' or 'dealer_choice'",
                             "'none' [D-A5]: the dealer keeps the tribute; 'dealer_choice': it "
                             "gives back as many cards of its choice, keeping hands at 52"),
}


def _check_deck(deck) -> list[int] | None:
    if deck is None:
        return None
    cards = parse_cards(deck) if isinstance(deck, str) else [int(k) for k in deck]
    if len(cards) != len(DECK) or sorted(cards) != DECK.tolist():
        raise ValueError("deck must hold the 216 cards: every kind exactly four times")
    return cards


class DabangGame(CardGame):
    """Options and constants of Dabang; makes and replays states.

    See ``OPTIONS`` (and ``docs/rules/dabang.md``) for every option and its default. Raises
    ``ConfigError`` (a ``ValueError``) for an unknown option, a bad value, or an inconsistent
    start (a fresh match starts at 3:3 with no blood).
    """

    actions = cat.ACTIONS
    layout = LAYOUT

    def __init__(self, **options):
        self.options = resolve(OPTIONS, options, "dabang")
        if self.options["levels"] != "random":
            self.options["levels"] = tuple(self.options["levels"])
        if self.options["dealer"] is None and (self.options["levels"] != (3, 3)
                                               or self.options["blood"] != 0):
            raise ConfigError("dabang: a fresh match starts at levels (3, 3) with no blood; "
                              "give dealer=<seat> to start from a later hand of a match")
        if self.options["max_hands"] is not None and self.options["episode"] != "match":
            raise ConfigError("dabang: max_hands applies to episode='match' only")

    def new_state(self, seed: int | None = None, *, deck=None,
                  first_seat: int | None = None) -> "DabangState":
        """A new episode, shuffled and dealt from ``seed`` (fresh entropy if ``None``).

        For puzzles and tests, ``deck`` fixes the first hand's shuffle: 216 card kinds (each kind
        four times; ``parse_cards`` strings or ints) dealt one at a time in play order from the
        first seat, the last 8 being the kitty; ``first_seat`` fixes the first hand's first seat
        (otherwise random in a fresh match; the dealer in a later hand). Redeals, later hands and
        the kitty draw still come from ``seed``.
        """
        return DabangState(self, seed, deck=deck, first_seat=first_seat)


class DabangState(CardState):
    """One position of a Dabang episode. Create with ``DabangGame.new_state(seed)``."""

    def __init__(self, game: DabangGame, seed: int | None, *, deck=None,
                 first_seat: int | None = None, _blank: bool = False):
        self.game = game
        if _blank:
            return
        opts = game.options
        self._legal = None
        self._init_episode(seed)
        self.returns = [0.0] * 4
        self.last_rewards = [0.0] * 4
        self.truncated = False
        self.levels = list(self.rng.integers(3, 11, size=2).tolist()) \
            if opts["levels"] == "random" else list(opts["levels"])
        self.match_hand = 0 if opts["dealer"] is None else 1
        self.next_dealer = int(self.rng.integers(4)) if opts["dealer"] == "random" \
            else opts["dealer"]
        self.next_blood = opts["blood"]
        self._fixed_deck = _check_deck(deck)
        if first_seat is not None:
            if not _optional_seat(first_seat):
                raise ValueError(f"first_seat must be a seat 0..3, got {first_seat!r}")
            if self.match_hand and first_seat != self.next_dealer:
                raise ValueError("in a later hand the first seat is the dealer")
        self._fixed_first_seat = first_seat
        self._new_hand()
        self._advance()

    # --- queries ---------------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """The legal action ids of the player to act, ascending (a new list)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase == "play":
            steps = play_steps_one(self.v["hand"][self.current].tolist(), self.partial,
                                   self.led_kind, self.k, self.trump, self.level,
                                   self.game.options["follow"] == "dead",
                                   self.cards_left[self.current])
            return [cat.PLAY + step for step in steps]
        if phase == "declare":
            return [cat.PASS] + declare.legal(self.v["hand"][self.current].tolist(),
                                              self.first_hand, self.level, self.decl)
        if phase == "bury":
            hand = self.v["hand"][self.dealer]
            return [cat.BURY + k for k in np.flatnonzero(hand).tolist()
                    if not (k == SMALL_JOKER and hand[BIG_JOKER] > 0)]
        if phase == "koujoker":
            hand = self.v["hand"][self.current]
            joker = BIG_JOKER if hand[BIG_JOKER] else SMALL_JOKER
            return [cat.PASS, cat.BURY + joker]
        if phase == "takeback":
            return [cat.TAKE + k for k in kitty.takeback_candidates(self.kitty, self.trump,
                                                                    self.level)]
        if phase == "return":
            return [cat.RETURN + k for k in np.flatnonzero(self.v["hand"][self.dealer]).tolist()]
        return []

    def use_legal(self, mask: np.ndarray) -> None:
        """Take the player's legal mask as computed elsewhere (the batched ``follow.play_mask``
        over many states), so that ``apply`` checks against it instead of computing it again.
        The caller vouches that it is exact: the tests compare both paths."""
        self._legal = np.flatnonzero(mask).tolist()

    def legal_mask(self) -> np.ndarray:
        """Boolean mask over the 350 actions for the player to act."""
        mask = np.zeros(cat.NUM_ACTIONS, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    # --- moves -----------------------------------------------------------------------------

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal for the player to act."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return action in self._legal

    def _play(self, action: int) -> None:
        self.last_rewards = [0.0] * 4
        self._legal = None
        getattr(self, "_on_" + self.phase)(action)
        self._advance()

    # --- hand set-up and the deal ----------------------------------------------------------------

    def _new_hand(self) -> None:
        self.first_hand = self.match_hand == 0
        self.start_seat = int(self.rng.integers(4)) if self.first_hand else self.next_dealer
        if getattr(self, "_fixed_first_seat", None) is not None:
            self.start_seat, self._fixed_first_seat = self._fixed_first_seat, None
        self.dealer = None if self.first_hand else self.next_dealer
        self.level = 3 if self.first_hand else self.levels[self.dealer % 2]
        self.blood_due = 0 if self.first_hand else self.next_blood
        self._deal()

    def _deal(self) -> None:
        """Shuffle and start dealing (also used for a redeal)."""
        self.buffer[:] = 0
        v = self.v
        if getattr(self, "_fixed_deck", None) is not None:
            self.deck, self._fixed_deck = self._fixed_deck, None
        else:
            self.deck = self.rng.permutation(DECK).tolist()
        self.kitty = self.deck[DEALT:]
        self.deal_pos = 0
        self.trump = None
        self.decl, self.declarer = 0, None
        self.grab_waiting = False
        self.queue: list[int] = []
        self.after_deal, self.c_ptr, self.c_quiet = False, self.start_seat, 0
        self.kitty_public = False
        self.gangguo = False
        self.buried: list[int] = []
        self.tribute: list[int] = []
        self.returned = 0
        self.kou_seats: list[int] = []
        self.kou_cap, self.kou_buried, self.kou_stopped, self.take_need = None, 0, False, 0
        self.cards_left = [0, 0, 0, 0]
        self.points = [0, 0, 0, 0]
        self.last_trick_team = None
        self.leader, self.led_kind, self.k = -1, -1, 0
        self.partial: dict[int, int] = {}
        self.trick: list[list] = []  # [seat, {kind: count}, kind if k identical else -1, void]
        self.to_play: list[int] = []
        self.current = self.start_seat
        self.ask_reason = None
        self.stage = "deal"
        v["levels"][:] = [self.levels[s % 2] for s in range(4)]
        v["level"][self.level - 3] = 1
        v["first_hand"][0] = self.first_hand
        v["tribute"][0] = 0
        if self.dealer is not None:
            v["dealer"][self.dealer] = 1
        v["kitty"][:] = np.bincount(self.kitty, minlength=NUM_KINDS)

    def _set_phase(self, phase: str, seat: int) -> None:
        v = self.v
        v["phase"][:] = 0
        if phase in PHASES:
            v["phase"][PHASES.index(phase)] = 1
        v["to_play"][:] = 0
        if phase != "over":
            v["to_play"][seat] = 1
        self.phase, self.current = phase, seat

    def _advance(self) -> None:
        """Run the steps that need no decision until one does (or the episode ends)."""
        while True:
            stage = self.stage
            if stage == "deal":
                if self._deal_until_decision():
                    return
                self.stage = "reveal"
            elif stage == "reveal":
                if not self._reveal():
                    self._deal()  # no suit anywhere in the kitty: redeal
                    continue
                self._tribute()
                self.stage = "return" if self.tribute and \
                    self.game.options["tribute_return"] == "dealer_choice" else "kitty"
            elif stage == "return":
                if self.returned < len(self.tribute):
                    self._set_phase("return", self.dealer)
                    return
                self.stage = "kitty"
            elif stage == "kitty":
                self._take_kitty()
                if self.stage == "bury":
                    self._set_phase("bury", self.dealer)
                    return
            elif stage == "koujoker":
                if self._next_koujoker():
                    return
                self._start_trick(self.dealer)
                self.stage = "play"
            elif stage == "play":
                self._set_phase("play", self.current)
                return
            elif stage == "over":
                self._set_phase("over", self.current)
                return
            else:  # bury: waiting for the dealer's decisions
                return

    def _deal_until_decision(self) -> bool:
        during = self.game.options["bidding"] == "during_deal"
        hands = self.v["hand"]
        while self.queue:  # (b) each other player that could override, in play order
            seat = self.queue.pop(0)
            if self._declarations(seat):
                self._ask(seat, "override")
                return True
        while not self.after_deal and self.deal_pos < DEALT:
            card = self.deck[self.deal_pos]
            seat = (self.start_seat + self.deal_pos) % 4
            self.deal_pos += 1
            could = self._declarations(seat) if during and self._may_enable(card) else None
            hands[seat, card] += 1
            self.cards_left[seat] += 1
            self.v["cards_left"][seat] = self.cards_left[seat]
            if self.grab_waiting and seat == self.declarer and card < NUM_NATURAL:
                self._set_trump(card % 4)
                self.grab_waiting = False
            if could is not None and set(self._declarations(seat)) - set(could):
                self._ask(seat, "new card")  # (a) a declaration it could not make before
                return True
        self.after_deal = True
        while self.c_quiet < 4:  # (c) after the deal, round the table while anyone declares
            seat = self.c_ptr
            self.c_ptr = (seat + 1) % 4
            if self._declarations(seat):
                self._ask(seat, "after deal")
                return True
            self.c_quiet += 1
        return False

    def _may_enable(self, card: int) -> bool:
        if self.first_hand:
            return card == BIG_JOKER and self.decl == 0
        return card >= NUM_NATURAL or card // 4 == self.level - 3

    def _declarations(self, seat: int) -> list[int]:
        return declare.legal(self.v["hand"][seat].tolist(), self.first_hand, self.level, self.decl)

    def _ask(self, seat: int, why: str) -> None:
        self.ask_reason = why
        self._set_phase("declare", seat)

    def _on_declare(self, action: int) -> None:
        seat = self.current
        if action == cat.PASS:
            if self.after_deal:
                self.c_quiet += 1
            return
        self.decl, self.declarer = action, seat
        v = self.v
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
            self.grab_waiting = True
            self.queue = []
        elif self.after_deal:
            self.c_quiet = 0
        else:
            self.queue = [(seat + i) % 4 for i in (1, 2, 3)]

    def _set_trump(self, suit: int) -> None:
        self.trump = suit
        self.v["trump"][:] = 0
        self.v["trump"][suit] = 1

    def _reveal(self) -> bool:
        """Fix the dealer and the trump once declaring is over; False asks for a redeal."""
        v = self.v
        if self.first_hand:
            if self.decl == cat.GRAB:
                self.dealer = self.declarer
                if self.trump is None:  # [D-A2] the deal ended first: the kitty decides
                    index = kitty.first_suited(self.kitty)
                    if index is None:
                        return False
                    self._set_trump(self.kitty[index] % 4)
                self._show_kitty(reveal=True)
            else:  # [D-A3] each player from the first seat turns a kitty card
                flipped = self.kitty[:4]
                best = kitty.flip_winner(flipped)
                index = best if flipped[best] < NUM_NATURAL else \
                    kitty.first_suited(self.kitty, best + 1)  # a joker: the next suited card
                if index is None:
                    return False
                self.dealer = (self.start_seat + best) % 4
                self._set_trump(self.kitty[index] % 4)
                self._reveal_kitty_cards(flipped + ([self.kitty[index]] if index > 3 else []))
            v["dealer"][self.dealer] = 1
            return True
        if self.decl:
            self._set_trump(declare.suit_of(self.decl))
            self._show_kitty(reveal=True)
            return True
        drawn = []  # nobody declared: draw kitty cards at random until a suited one
        for i in self.rng.permutation(KITTY_SIZE).tolist():
            drawn.append(self.kitty[i])
            if self.kitty[i] < NUM_NATURAL:
                self._set_trump(self.kitty[i] % 4)
                self._reveal_kitty_cards(drawn)
                return True
        return False

    def _show_kitty(self, reveal: bool = False) -> None:
        """The kitty lying now is shown to everyone (``reveal``: it is the dealt kitty)."""
        self.kitty_public = True
        counts = np.bincount(self.kitty, minlength=NUM_KINDS)
        self.v["kitty_shown"][0] = 1
        self.v["kitty_known"][:] = counts
        if reveal:
            self.v["kitty_revealed"][:] = counts

    def _reveal_kitty_cards(self, cards) -> None:
        """Some dealt kitty cards are turned face up (flips, the draw)."""
        counts = np.bincount(cards, minlength=NUM_KINDS)
        self.v["kitty_known"][:] = counts
        self.v["kitty_revealed"][:] = counts

    def _tribute(self) -> None:
        if self.blood_due <= 0:
            return
        giver = (self.dealer - 1) % 4
        hands = self.v["hand"]
        cards = kitty.tribute_cards(hands[giver].tolist(), self.blood_due, self.trump, self.level)
        counts = np.bincount(cards, minlength=NUM_KINDS)
        hands[giver] -= counts
        hands[self.dealer] += counts
        self.cards_left[giver] -= len(cards)
        self.cards_left[self.dealer] += len(cards)
        self.v["cards_left"][:] = self.cards_left
        self.tribute = cards
        self.v["tribute"][0] = len(cards)
        self.v["tribute_known"][giver] = counts
        self.v["tribute_known"][self.dealer] = counts

    def _on_return(self, action: int) -> None:
        card = action - cat.RETURN
        giver = (self.dealer - 1) % 4
        v = self.v
        v["hand"][self.dealer, card] -= 1
        v["hand"][giver, card] += 1
        self.cards_left[self.dealer] -= 1
        self.cards_left[giver] += 1
        v["cards_left"][:] = self.cards_left
        v["returned_known"][giver, card] += 1
        v["returned_known"][self.dealer, card] += 1
        self.returned += 1
        v["returned"][0] = self.returned

    # --- the kitty ----------------------------------------------------------------------------

    def _take_kitty(self) -> None:
        if not self.first_hand and self.kitty_public and \
                kitty.is_gangguo(self.kitty, self.trump, self.level):
            self.gangguo = True
            self.v["gangguo"][0] = 1
            self._start_trick(self.dealer)
            self.stage = "play"
            return
        counts = np.bincount(self.kitty, minlength=NUM_KINDS)
        self.v["hand"][self.dealer] += counts
        self.cards_left[self.dealer] += KITTY_SIZE
        self.v["cards_left"][self.dealer] = self.cards_left[self.dealer]
        self.kitty = []
        self.v["kitty"][:] = 0
        self.v["kitty_known"][:] = 0
        self.v["kitty_shown"][0] = 0
        self.stage = "bury"

    def _move_to_kitty(self, seat: int, card: int) -> None:
        v = self.v
        v["hand"][seat, card] -= 1
        self.cards_left[seat] -= 1
        v["cards_left"][seat] = self.cards_left[seat]
        self.kitty.append(card)
        v["kitty"][card] += 1

    def _on_bury(self, action: int) -> None:
        card = action - cat.BURY
        self._move_to_kitty(self.dealer, card)
        self.buried.append(card)
        self.v["kitty_known"][self.dealer, card] += 1
        if len(self.buried) < KITTY_SIZE:
            return
        if any(c >= NUM_NATURAL for c in self.buried):  # a buried joker shows the kitty
            self._show_kitty()
        self.kou_seats = [(self.dealer + i) % 4 for i in (1, 2, 3)] \
            if kitty.koujoker_allowed(self.buried) else []
        self.kou_cap = None
        self.stage = "koujoker"

    def _next_koujoker(self) -> bool:
        """Run 扣王 seat by seat until a decision is needed (True) or nobody is left."""
        hands = self.v["hand"]
        while self.kou_seats:
            seat = self.kou_seats[0]
            if self.kou_cap is None:  # this seat's turn opens
                self.kou_cap = kitty.koujoker_cap(self.kitty)
                self.kou_buried, self.kou_stopped, self.take_need = 0, False, 0
            if not self.kou_stopped:
                if hands[seat, BIG_JOKER] + hands[seat, SMALL_JOKER] and \
                        self.kou_buried < self.kou_cap:
                    self._set_phase("koujoker", seat)
                    return True
                self._stop_burying()
            if self.take_need and self._take_back(seat):
                return True
            self.kou_seats.pop(0)
            self.kou_cap = None
        return False

    def _stop_burying(self) -> None:
        self.kou_stopped = True
        self.take_need = self.kou_buried  # take back as many cards as jokers buried

    def _on_koujoker(self, action: int) -> None:
        if action == cat.PASS:
            self._stop_burying()
            return
        seat = self.current
        self._move_to_kitty(seat, action - cat.BURY)
        self.kou_buried += 1
        self.v["koujoker"][seat] += 1
        self._show_kitty()

    def _take_back(self, seat: int) -> bool:
        """Take the smallest cards automatically until a real choice arises (True)."""
        while self.take_need:
            candidates = kitty.takeback_candidates(self.kitty, self.trump, self.level)
            tied = sum(self.kitty.count(c) for c in candidates)
            if len(candidates) > 1 and self.take_need < tied:
                self._set_phase("takeback", seat)
                return True
            for c in candidates:
                for _ in range(min(self.kitty.count(c), self.take_need)):
                    self._take_card(seat, c)
        return False

    def _take_card(self, seat: int, card: int) -> None:
        v = self.v
        self.kitty.remove(card)
        v["kitty"][card] -= 1
        v["kitty_known"][:, card] = np.maximum(v["kitty_known"][:, card] - 1, 0)
        v["hand"][seat, card] += 1
        self.cards_left[seat] += 1
        v["cards_left"][seat] = self.cards_left[seat]
        self.take_need -= 1

    def _on_takeback(self, action: int) -> None:
        self._take_card(self.current, action - cat.TAKE)

    # --- play ------------------------------------------------------------------------------------

    def _start_trick(self, leader: int) -> None:
        if self.cards_left[leader] == 0:
            leader = next(s for s in ((leader + i) % 4 for i in range(1, 4)) if self.cards_left[s])
        self.leader, self.led_kind, self.k = leader, -1, 0
        self.partial = {}
        self.trick = []
        self.to_play = [s for s in ((leader + i) % 4 for i in range(4)) if self.cards_left[s]]
        v = self.v
        v["trick"][:] = 0
        v["leader"][:] = 0
        v["leader"][leader] = 1
        v["led_count"][0] = 0
        self.current = leader

    def _on_play(self, action: int) -> None:
        seat = self.current
        kind, count = divmod(action - cat.PLAY, 4)
        count += 1
        if self.led_kind < 0:
            self.led_kind, self.k = kind, count
            self.v["led_count"][0] = count
            self._complete_play(seat, {kind: count})
            return
        self.partial[kind] = count
        self.v["selection"][seat, kind] = count
        if sum(self.partial.values()) == min(self.k, self.cards_left[seat]):
            play, self.partial = self.partial, {}
            self.v["selection"][seat] = 0
            self._complete_play(seat, play)

    def _complete_play(self, seat: int, play: dict) -> None:
        v = self.v
        hand = v["hand"][seat]
        if self.trick:  # a follower's void in the led suit lets its trump win
            cls = _SUIT_CLASS[self.trump][self.level - 3]
            led_cls = cls[self.led_kind]
            void = not any(h for h, c in zip(hand.tolist(), cls) if h and c == led_cls)
        else:
            void = False
        identical = next(iter(play)) if len(play) == 1 and next(iter(play.values())) == self.k \
            else -1
        for kind, count in play.items():
            hand[kind] -= count
            v["played"][seat, kind] += count
            v["trick"][seat, kind] += count
        self.cards_left[seat] -= sum(play.values())
        v["cards_left"][seat] = self.cards_left[seat]
        self.trick.append([seat, play, identical, void])
        self.to_play.pop(0)
        if self.to_play:
            self.current = self.to_play[0]
        else:
            self._end_trick()

    def _end_trick(self) -> None:
        strength = _STRENGTH[self.trump][self.level - 3]
        cls = _SUIT_CLASS[self.trump][self.level - 3]
        led_cls = cls[self.led_kind]
        best, best_value = 0, -1
        for i, (seat, play, kind, void) in enumerate(self.trick):
            if kind < 0 or not (i == 0 or cls[kind] == led_cls or (void and cls[kind] == TRUMP)):
                continue
            if strength[kind] > best_value:  # strictly: the first of equals keeps the trick
                best, best_value = i, strength[kind]
        winner = self.trick[best][0]
        points = sum(_POINTS[k] * c for _, play, _, _ in self.trick for k, c in play.items())
        self.points[winner] += points
        self.v["points"][winner] = self.points[winner]
        self.last_trick_team = winner % 2
        if any(self.cards_left):
            self._start_trick(winner)
        else:
            self._end_hand()

    # --- the end of a hand ---------------------------------------------------------------------

    def _end_hand(self) -> None:
        opts = self.game.options
        team_points = [self.points[0] + self.points[2], self.points[1] + self.points[3]]
        result = score_hand(
            dealer=self.dealer, level=self.level, trump=self.trump, levels=self.levels,
            trick_points=team_points, kitty=list(self.kitty), last_trick_team=self.last_trick_team,
            gangguo=self.gangguo, joker_levels=opts["joker_levels"],
            keep_dealer=opts["keep_dealer"], four_joker_win=opts["four_joker_win"])
        team_reward = self._team_rewards(result)
        result.rewards = [team_reward[s % 2] for s in range(4)]
        self.results.append(result)
        self.last_rewards = list(result.rewards)
        self.returns = [a + b for a, b in zip(self.returns, result.rewards)]
        match_over = result.match_winner is not None
        self.levels = list(result.levels_after)
        if opts["episode"] == "hand" or match_over:
            self.stage = "over"
            return
        if opts["max_hands"] is not None and len(self.results) >= opts["max_hands"]:
            self.truncated = True
            self.stage = "over"
            return
        self.next_dealer, self.next_blood = result.next_dealer, result.blood
        self.match_hand += 1
        self._new_hand()

    def _team_rewards(self, result: HandResult) -> list[float]:
        """Hand episodes: levels gained minus the other team's, plus ``deal_value`` for taking the
        deal; a match won counts as reaching level 11. Match episodes: +1 / -1 at the end."""
        winner = result.match_winner
        if self.game.options["episode"] == "match":
            return [0.0, 0.0] if winner is None else [1.0 if t == winner else -1.0 for t in (0, 1)]
        if winner is not None:
            gain = 11 - result.levels_before[winner]
            return [float(gain) if t == winner else -float(gain) for t in (0, 1)]
        diff = result.gained[0] - result.gained[1]
        took = result.outcome in (3, 4)  # the attackers take the deal
        deal = self.game.options["deal_value"] * (1 if took else 0)
        deal_team = [deal if t == result.attackers else -deal for t in (0, 1)]
        return [float(diff) + deal_team[0], -float(diff) + deal_team[1]]

    # --- copies and serialization ------------------------------------------------------------------

    _FIELDS = ("seed", "history", "returns", "last_rewards", "truncated", "levels", "match_hand",
               "next_dealer", "next_blood", "first_hand", "start_seat", "dealer", "level",
               "blood_due", "deck", "kitty", "deal_pos", "trump", "decl", "declarer",
               "grab_waiting", "queue", "after_deal", "c_ptr", "c_quiet", "kitty_public",
               "gangguo", "buried", "tribute", "returned", "kou_seats", "kou_cap", "kou_buried",
               "kou_stopped", "take_need",
               "cards_left", "points", "last_trick_team", "leader", "led_kind", "k", "to_play",
               "current", "stage", "phase", "ask_reason")

    def _plain(self) -> dict:
        data = {}
        for name in self._FIELDS:
            value = getattr(self, name, None)
            data[name] = list(value) if isinstance(value, list) else value
        data["partial"] = [[k, c] for k, c in self.partial.items()]
        data["trick"] = [[s, [[k, c] for k, c in p.items()], kind, void]
                         for s, p, kind, void in self.trick]
        return data

    def clone(self) -> "DabangState":
        """An independent copy (the random generator included)."""
        new = DabangState(self.game, None, _blank=True)
        new._legal = None
        for name, value in self._plain().items():
            setattr(new, name, value)
        new.partial = dict(self.partial)
        new.trick = [[s, dict(p), kind, void] for s, p, kind, void in self.trick]
        new.results = list(self.results)
        new.buffer = self.buffer.copy()
        new.v = LAYOUT.views(new.buffer)
        new.rng = copy_generator(self.rng)
        return new

    def to_dict(self) -> dict:
        """A JSON-compatible dict of the whole state (options and random generator included)."""
        options = dict(self.game.options)
        if options["levels"] != "random":
            options["levels"] = list(options["levels"])
        data = {"format": _FORMAT, "options": options}
        data.update(self._plain())
        data["results"] = [r.to_dict() for r in self.results]
        data["buffer"] = self.buffer.tolist()
        data["rng"] = self.rng.bit_generator.state
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "DabangState":
        """Rebuild a state from ``to_dict`` output; ``StateError`` if it is malformed."""
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise StateError(f"not a serialized Dabang state (expected format {_FORMAT!r})")
        missing = [k for k in (*cls._FIELDS, "options", "partial", "trick", "results", "buffer",
                               "rng") if k not in data]
        if missing:
            raise StateError(f"serialized Dabang state lacks {missing}")
        state = cls(DabangGame(**data["options"]), None, _blank=True)
        state._legal = None
        for name in cls._FIELDS:
            value = data[name]
            setattr(state, name, list(value) if isinstance(value, list) else value)
        state.partial = {int(k): int(c) for k, c in data["partial"]}
        state.trick = [[s, {int(k): int(c) for k, c in p}, kind, void]
                       for s, p, kind, void in data["trick"]]
        state.results = [HandResult(**{**r, "kitty_jokers": tuple(r["kitty_jokers"])})
                         for r in data["results"]]
        try:
            state.buffer = np.array(data["buffer"], dtype=np.int16)
        except (TypeError, ValueError) as exc:
            raise StateError(f"serialized Dabang state has a bad buffer: {exc}") from None
        if state.buffer.shape != (STATE_SIZE,):
            raise StateError("serialized Dabang state has a buffer of the wrong shape")
        state.v = LAYOUT.views(state.buffer)
        if state.phase not in (*PHASES, "over"):
            raise StateError(f"unknown phase {state.phase!r}")
        hands = state.v["hand"]
        if (hands < 0).any() or list(hands.sum(axis=1)) != state.cards_left:
            raise StateError("serialized Dabang state: hands disagree with cards_left")
        held = hands.sum(axis=0) + state.v["played"].sum(axis=0) + state.v["kitty"]
        undealt = np.bincount(state.deck[state.deal_pos:DEALT], minlength=NUM_KINDS) \
            if state.stage == "deal" else 0
        if not np.array_equal(held + undealt, np.full(NUM_KINDS, DECKS)):
            raise StateError("serialized Dabang state does not conserve the 216 cards")
        try:
            state.rng = generator_from_state(data["rng"])
        except (TypeError, ValueError, KeyError) as exc:
            raise StateError(f"serialized Dabang state has a bad generator state: {exc}") from None
        return state

    def __repr__(self):
        return (f"DabangState(hand {len(self.results) + 1}, levels {self.levels}, "
                f"phase={self.phase}, to_play={self.current_player})")


DabangGame.state_class = DabangState
