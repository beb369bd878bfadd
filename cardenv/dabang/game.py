"""The Dabang rules engine: ``DabangGame`` (options) and ``DabangState`` (one position).

Pure Python + numpy; knows nothing of PettingZoo. A state moves by ``apply(action)`` with ids
from ``catalogue``; chance (shuffles, the first dealer, the kitty draw) comes from the state's own
seeded generator, so ``DabangGame(...).replay(seed, actions)`` rebuilds any game.

A hand runs through these decision phases (``state.phase``, a ``phase.Phase``); the steps
without a choice (in brackets) happen by themselves, in ``DabangState._advance``:

1. ``declare``: [the deal, one card at a time] with trump declarations [D-A1]; [then the kitty
   flips (first hand, nobody grabbed) or the kitty draw (later hands, nobody declared), and a
   redeal if no suit can be found; then tribute (喝血)].
   ``return``: with option ``tribute_return="dealer_choice"``, the dealer gives back as many
   cards as it received, one by one. [The dealer picks up the kitty, or 干锅 skips to play.]
2. ``bury``: the dealer, holding the kitty, buries 8 cards one by one (big joker before small).
3. ``koujoker`` / ``takeback``: each other player in turn may bury jokers (扣王) and takes back as
   many of the kitty's smallest cards [automatically], choosing between equal ones.
4. ``play``: tricks of 1..4 identical cards led; follows are built one group per step. [The
   hand is scored; in a match the next hand is dealt.]

Each decision phase's legal actions and moves live in a module of ``cardenv.dabang.phases``,
with its part of the hand's state (``state.deal``, ``state.tribute``, ``state.kitty``,
``state.trick``); ``phases.RULES`` dispatches to them. The state itself keeps the match, the
hand-wide facts (dealer, level, trump, 干锅, cards left, points), the queries, the automatic flow,
the end of a hand and serialization.

Episodes (option ``episode``): ``"hand"`` plays one hand, from a fresh match or from the match
state given by ``levels``/``dealer``/``blood``; ``"match"`` plays until the match ends (or
``max_hands``, a truncation). Teams: seats {0, 2} are team 0, {1, 3} team 1.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import NUM_KINDS, parse_cards
from cardenv.core.errors import ConfigError, StateError
from cardenv.core.options import Option, boolean, one_of, positive_int, resolve
from cardenv.core.state import CardGame, CardState, copy_generator, generator_from_state
from cardenv.dabang import catalogue as cat
from cardenv.dabang.observation import LAYOUT, STATE_SIZE
from cardenv.dabang.phase import Phase, enter
from cardenv.dabang.phases import RULES, burial, deal, trick, tribute
from cardenv.dabang.phases.burial import Kitty
from cardenv.dabang.phases.deal import DEALT, Deal
from cardenv.dabang.phases.trick import Trick
from cardenv.dabang.phases.tribute import Tribute
from cardenv.dabang.scoring import HandResult, score_hand

DECKS = 4
DECK = np.repeat(np.arange(NUM_KINDS), DECKS)
_DECLARE, _RETURN, _BURY, _PLAY, _OVER = (Phase.DECLARE, Phase.RETURN, Phase.BURY, Phase.PLAY,
                                          Phase.OVER)


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
    """One position of a Dabang episode. Create with ``DabangGame.new_state(seed)``.

    Attributes: the match (``levels``, ``match_hand``, ``next_dealer``, ``next_blood``,
    ``returns``, ``last_rewards``, ``truncated``, ``results``); the hand (``first_hand``,
    ``start_seat``, ``dealer``, ``level``, ``blood_due``, ``trump``, ``gangguo``, ``cards_left``,
    ``points``, ``last_trick_team``); the decision (``phase``, ``current``); and one object per
    part of the hand: ``deal`` (``phases.deal.Deal``), ``tribute`` (``Tribute``), ``kitty``
    (``Kitty``: ``kitty.cards`` is what lies in the kitty) and ``trick`` (``Trick``).
    """

    def __init__(self, game: DabangGame, seed: int | None, *, deck=None,
                 first_seat: int | None = None, _blank: bool = False):
        self.game = game
        self._legal = None
        if _blank:
            return
        opts = game.options
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
        deck = _check_deck(deck)
        if first_seat is not None:
            if not _optional_seat(first_seat):
                raise ValueError(f"first_seat must be a seat 0..3, got {first_seat!r}")
            if self.match_hand and first_seat != self.next_dealer:
                raise ValueError("in a later hand the first seat is the dealer")
        self._new_hand(first_seat, deck)
        self._advance(_DECLARE)

    # --- queries ---------------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """The legal action ids of the player to act, ascending (a new list)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[int]:
        rules = RULES.get(self.phase)  # none once over
        return rules.legal(self) if rules is not None else []

    def use_legal(self, mask: np.ndarray) -> None:
        """Take the player's legal mask as computed elsewhere (the batched ``follow.play_mask``
        over many states), so that ``apply`` checks against it instead of computing it again.
        The caller vouches that it is exact: the tests compare both paths."""
        self._legal = np.flatnonzero(mask).tolist()

    def legal_mask(self) -> np.ndarray:
        """Boolean mask over the ``cat.NUM_ACTIONS`` (404) actions for the player to act."""
        mask = np.zeros(cat.NUM_ACTIONS, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    # The trick in progress, as a batched legality call takes it (``follow.play_mask``).

    @property
    def led_kind(self) -> int:
        """The kind led in the current trick (-1 before the lead)."""
        return self.trick.led_kind

    @property
    def k(self) -> int:
        """Cards in the current trick's lead (0 before the lead)."""
        return self.trick.k

    @property
    def partial(self) -> dict[int, int]:
        """``{kind: count}`` of the follow being built by the player to act (``{}`` if none)."""
        return self.trick.partial

    # --- moves -----------------------------------------------------------------------------

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal for the player to act."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return action in self._legal

    def _play(self, action: int) -> None:
        self.last_rewards = [0.0] * 4
        self._legal = None
        phase = self.phase
        RULES[phase].apply(self, action)
        self._advance(phase)

    # --- the automatic flow ----------------------------------------------------------------

    def _advance(self, after: Phase) -> None:
        """Run the steps that need no decision until one does (or the episode ends), after a
        move in phase ``after`` (``declare`` also for a hand just shuffled). The blocks follow
        the hand's order; each either enters a decision phase and returns, or falls through."""
        if after is _PLAY:
            if self.trick.to_play:  # the hand goes on
                enter(self, _PLAY, self.current)
                return
            if not self._end_hand():
                enter(self, _OVER, self.current)
                return
            after = _DECLARE  # the next hand of the match is being dealt
        if after is _DECLARE:
            while True:
                if deal.run(self):
                    return  # a seat may declare
                if deal.reveal(self):
                    break
                self._start_deal()  # no suit anywhere in the kitty: redeal
            tribute.pay(self)
            after = _RETURN
        if after is _RETURN:
            if tribute.returning(self):
                enter(self, _RETURN, self.dealer)
                return
            if not burial.take_up(self):  # 干锅: the dealer leads at once
                trick.start(self, self.dealer)
                enter(self, _PLAY, self.current)
                return
            enter(self, _BURY, self.dealer)
            return
        if after is _BURY and burial.burying(self):
            return
        if burial.next_koujoker(self):  # after the burial, 扣王 and taking back
            return
        trick.start(self, self.dealer)
        enter(self, _PLAY, self.current)

    # --- hand set-up -------------------------------------------------------------------------

    def _new_hand(self, first_seat: int | None = None, deck: list[int] | None = None) -> None:
        self.first_hand = self.match_hand == 0
        self.start_seat = int(self.rng.integers(4)) if self.first_hand else self.next_dealer
        if first_seat is not None:
            self.start_seat = first_seat
        self.dealer = None if self.first_hand else self.next_dealer
        self.level = 3 if self.first_hand else self.levels[self.dealer % 2]
        self.blood_due = 0 if self.first_hand else self.next_blood
        self._start_deal(deck)

    def _start_deal(self, deck: list[int] | None = None) -> None:
        """Shuffle (unless ``deck`` is given) and reset the hand for dealing (also a redeal)."""
        self.buffer[:] = 0
        v = self.v
        if deck is None:
            deck = self.rng.permutation(DECK).tolist()
        self.deal = Deal(deck, round_seat=self.start_seat)
        self.kitty = Kitty(deck[DEALT:])
        self.tribute = Tribute()
        self.trick = Trick()
        self.trump = None
        self.gangguo = False
        self.cards_left = [0, 0, 0, 0]
        self.points = [0, 0, 0, 0]
        self.last_trick_team = None
        self.current = self.start_seat
        v["levels"][:] = [self.levels[s % 2] for s in range(4)]
        v["level"][self.level - 3] = 1
        v["first_hand"][0] = self.first_hand
        v["tribute"][0] = 0
        if self.dealer is not None:
            v["dealer"][self.dealer] = 1
        v["kitty"][:] = np.bincount(self.kitty.cards, minlength=NUM_KINDS)

    # --- the end of a hand ---------------------------------------------------------------------

    def _end_hand(self) -> bool:
        """Score the hand just played; deal the next one (True) or end the episode (False)."""
        opts = self.game.options
        team_points = [self.points[0] + self.points[2], self.points[1] + self.points[3]]
        result = score_hand(
            dealer=self.dealer, level=self.level, trump=self.trump, levels=self.levels,
            trick_points=team_points, kitty=list(self.kitty.cards),
            last_trick_team=self.last_trick_team, gangguo=self.gangguo,
            joker_levels=opts["joker_levels"], keep_dealer=opts["keep_dealer"],
            four_joker_win=opts["four_joker_win"])
        team_reward = self._team_rewards(result)
        result.rewards = [team_reward[s % 2] for s in range(4)]
        self.results.append(result)
        self.last_rewards = list(result.rewards)
        self.returns = [a + b for a, b in zip(self.returns, result.rewards)]
        match_over = result.match_winner is not None
        self.levels = list(result.levels_after)
        if opts["episode"] == "hand" or match_over:
            return False
        if opts["max_hands"] is not None and len(self.results) >= opts["max_hands"]:
            self.truncated = True
            return False
        self.next_dealer, self.next_blood = result.next_dealer, result.blood
        self.match_hand += 1
        self._new_hand()
        return True

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
        deal_value = self.game.options["deal_value"] * (1 if took else 0)
        deal_team = [deal_value if t == result.attackers else -deal_value for t in (0, 1)]
        return [float(diff) + deal_team[0], -float(diff) + deal_team[1]]

    # --- copies and serialization ------------------------------------------------------------------

    # Format "cardenv.dabang.state/2": "format", "options", these fields as they are ("phase" as
    # its string), one plain dict per part (_PARTS: each dataclass's to_plain), "results",
    # "buffer" (the tensor state) and "rng" (the generator's state). Format /1 (flat fields, a
    # separate "stage") is refused.
    FORMAT = "cardenv.dabang.state/2"
    OLD_FORMATS = {"cardenv.dabang.state/1": "this version does not load it (it reads "
                   "'cardenv.dabang.state/2'); rebuild the state by replaying its seed and "
                   "history with DabangGame.replay"}
    _FIELDS = ("seed", "history", "returns", "last_rewards", "truncated", "levels", "match_hand",
               "next_dealer", "next_blood", "first_hand", "start_seat", "dealer", "level",
               "blood_due", "trump", "gangguo", "cards_left", "points", "last_trick_team",
               "current", "phase")
    _PARTS = {"deal": Deal, "tribute": Tribute, "kitty": Kitty, "trick": Trick}

    def clone(self) -> "DabangState":
        """An independent copy (the random generator included)."""
        new = DabangState(self.game, None, _blank=True)
        for name in self._FIELDS:
            value = getattr(self, name)
            setattr(new, name, list(value) if isinstance(value, list) else value)
        for name in self._PARTS:
            setattr(new, name, getattr(self, name).copy())
        new.results = list(self.results)
        new.buffer = self.buffer.copy()
        new.v = LAYOUT.views(new.buffer)
        new.rng = copy_generator(self.rng)
        return new

    def to_dict(self) -> dict:
        """A JSON-compatible dict of the whole state (options and random generator included)."""
        data = {"format": self.FORMAT, "options": self.game.options_dict()}
        for name in self._FIELDS:
            value = getattr(self, name)
            data[name] = list(value) if isinstance(value, list) else value
        data["phase"] = self.phase.value
        for name in self._PARTS:
            data[name] = getattr(self, name).to_plain()
        data["results"] = [r.to_dict() for r in self.results]
        data["buffer"] = self.buffer.tolist()
        data["rng"] = self.rng.bit_generator.state
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "DabangState":
        """Rebuild a state from ``to_dict`` output; ``StateError`` if it is malformed or in an
        older format."""
        fmt = data.get("format") if isinstance(data, dict) else None
        if fmt in cls.OLD_FORMATS:
            raise StateError(f"serialized Dabang state in the old format {fmt!r}: "
                             f"{cls.OLD_FORMATS[fmt]}")
        if fmt != cls.FORMAT:
            raise StateError(f"not a serialized Dabang state (expected format {cls.FORMAT!r})")
        missing = [k for k in (*cls._FIELDS, *cls._PARTS, "options", "results", "buffer", "rng")
                   if k not in data]
        if missing:
            raise StateError(f"serialized Dabang state lacks {missing}")
        state = cls(DabangGame(**data["options"]), None, _blank=True)
        for name in cls._FIELDS:
            value = data[name]
            setattr(state, name, list(value) if isinstance(value, list) else value)
        try:
            state.phase = Phase(data["phase"])
        except (TypeError, ValueError):
            raise StateError(f"unknown phase {data['phase']!r}") from None
        for name, part in cls._PARTS.items():
            try:
                setattr(state, name, part.from_plain(data[name]))
            except (TypeError, ValueError) as exc:
                raise StateError(f"serialized Dabang state has a bad {name!r}: {exc}") from None
        state.results = [HandResult(**{**r, "kitty_jokers": tuple(r["kitty_jokers"])})
                         for r in data["results"]]
        try:
            state.buffer = np.array(data["buffer"], dtype=np.int16)
        except (TypeError, ValueError) as exc:
            raise StateError(f"serialized Dabang state has a bad buffer: {exc}") from None
        if state.buffer.shape != (STATE_SIZE,):
            raise StateError("serialized Dabang state has a buffer of the wrong shape")
        state.v = LAYOUT.views(state.buffer)
        hands = state.v["hand"]
        if (hands < 0).any() or list(hands.sum(axis=1)) != state.cards_left:
            raise StateError("serialized Dabang state: hands disagree with cards_left")
        held = hands.sum(axis=0) + state.v["played"].sum(axis=0) + state.v["kitty"]
        undealt = np.bincount(state.deal.deck[state.deal.pos:DEALT], minlength=NUM_KINDS)
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
