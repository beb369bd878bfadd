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
from cardenv.core.checks import check_int, is_int
from cardenv.core.errors import ConfigError
from cardenv.core.options import (Option, boolean, either, int_in, int_pair,
                                  non_negative_number, one_of, optional_seat, resolve)
from cardenv.core.state import CardGame, CardState
from cardenv.dabang import action_features as features
from cardenv.dabang import batched_masks, counting, reasons, worlds
from cardenv.dabang import catalogue as cat
from cardenv.dabang.observation import BLOOD_SHOWN, LAYOUT
from cardenv.dabang.phase import Phase, enter
from cardenv.dabang.phases import RULES, burial, deal, trick, tribute
from cardenv.dabang.phases.burial import Kitty
from cardenv.dabang.phases.deal import DEALT, Deal
from cardenv.dabang.phases.trick import Trick
from cardenv.dabang.phases.tribute import Tribute
from cardenv.dabang.scoring import (MAX_LEVEL, MIN_LEVEL, TOTAL_POINTS, HandResult,
                                    score_hand)
from cardenv.dabang.vector import DabangBatch

DECKS = 4
DECK = np.repeat(np.arange(NUM_KINDS), DECKS)
_DECLARE, _RETURN, _BURY, _PLAY, _OVER = (Phase.DECLARE, Phase.RETURN, Phase.BURY, Phase.PLAY,
                                          Phase.OVER)


MAX_HANDS = 1000  # option max_hands: at most this many (a whole match takes about 25)
MAX_BLOOD = 2 * TOTAL_POINTS  # option blood: as much as a hand's result may owe

OPTIONS = {
    "episode": Option("hand", one_of("hand", "match"), "'hand' or 'match'",
                      "one hand per episode, or a whole match"),
    "max_hands": Option(None, either(one_of(None), int_in(1, MAX_HANDS)),
                        f"None or an int in 1..{MAX_HANDS}",
                        "match mode: truncate the episode after this many hands"),
    "levels": Option((3, 3), either(one_of("random"), int_pair(MIN_LEVEL, MAX_LEVEL)),
                     "two levels in 3..10 (team 0, team 1), or 'random'",
                     "the teams' levels when the episode starts ('random': each uniform in "
                     "3..10, drawn per episode)"),
    "dealer": Option(None, either(one_of("random"), optional_seat),
                     "None, a seat 0..3, or 'random'",
                     "None: start a fresh match (first-hand rules); a seat: start a later hand "
                     "of a match with this dealer; 'random': a later hand, dealer drawn per "
                     "episode"),
    "blood": Option(0, either(one_of("random"), int_in(0, MAX_BLOOD)),
                    f"an int in 0..{MAX_BLOOD} or 'random'",
                    "tribute owed to the starting dealer (with `dealer` only); 'random': drawn "
                    "per episode from the blood met in later hands of heuristic matches "
                    "(BLOOD_COUNTS)"),
    "bidding": Option("during_deal", one_of("during_deal", "after_deal"),
                      "'during_deal' or 'after_deal'", "when trump may be declared [D-A1]"),
    "follow": Option("dead", one_of("dead", "live"), "'dead' or 'live'",
                     "死棒 shape duty, or the suit duty only"),
    "joker_levels": Option(True, boolean, "True or False",
                           "kitty jokers bring levels (2 per BJ, 1 per SJ) as well as blood "
                           "[D-A8]"),
    "keep_dealer": Option("partner", one_of("partner", "same"), "'partner' or 'same'",
                          "who deals when the defenders keep the deal [D-A9]"),
    "four_joker_win": Option("big_or_small", one_of("big_or_small", "big_only"),
                             "'big_or_small' or 'big_only'",
                             "which four kitty jokers can end the match at once"),
    "deal_value": Option(0.5, non_negative_number, "a finite number >= 0",
                         "hand-episode reward for taking the deal from the other team"),
    "tribute_return": Option("none", one_of("none", "dealer_choice"),
                             "'none' or 'dealer_choice'",
                             "'none' [D-A5]: the dealer keeps the tribute; 'dealer_choice': it "
                             "gives back as many cards of its choice, keeping hands at 52"),
}


# How often each blood was owed to a later hand's dealer in 400 whole matches of four heuristic
# players (seeds 0..399, 9,657 later hands; docs/rules/dabang.md says how to measure it again):
# option blood="random" draws from it, so that training meets tribute hands as often as play
# does. Blood 0 (the defenders kept the deal, or a score below the blood bands) is the most
# common; the tail thins out past 10.
BLOOD_COUNTS = {0: 6056, 1: 871, 2: 728, 3: 569, 4: 455, 5: 326, 6: 233, 7: 168, 8: 107, 9: 51,
                10: 53, 11: 17, 12: 8, 13: 8, 14: 4, 15: 1, 16: 1, 18: 1}
_BLOOD_VALUES = np.array(list(BLOOD_COUNTS))
_BLOOD_CDF = np.cumsum(list(BLOOD_COUNTS.values())) / sum(BLOOD_COUNTS.values())
_BLOOD_STREAM = 0xB100D  # the draw's own generator: the deal's stays as it was


def draw_blood(seed: int) -> int:
    """blood="random": the blood owed at the start of episode ``seed``, from ``BLOOD_COUNTS``.
    A function of the seed alone (its own generator), so a saved state rebuilds it."""
    u = np.random.default_rng([seed, _BLOOD_STREAM]).random()
    return int(_BLOOD_VALUES[np.searchsorted(_BLOOD_CDF, u, side="right")])


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

    name = "dabang"
    actions = cat.ACTIONS
    layout = LAYOUT
    # what each legal move does, from the observation alone (core.action_features)
    action_features = staticmethod(features.action_features)
    action_feature_pieces = features.PIECES
    # the batched queries of the engine contract (core.protocol): follow steps in one call
    legal_masks = staticmethod(batched_masks.legal_masks)
    sides = staticmethod(batched_masks.sides)
    # many states stepped together, the trick phase in numpy (cardenv.vector.VectorGame uses it)
    batch_engine = DabangBatch

    def __init__(self, **options):
        self.options = resolve(OPTIONS, options, "dabang")
        if self.options["levels"] != "random":
            self.options["levels"] = tuple(self.options["levels"])
        if self.options["dealer"] is None and (self.options["levels"] != (3, 3)
                                               or self.options["blood"] != 0):
            raise ConfigError("dabang: a fresh match starts at levels (3, 3) with no blood; "
                              "give dealer=<seat> (0..3) or dealer='random' to start from a "
                              "later hand of a match (e.g. levels='random', dealer='random')")
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

    def state_from_deal(self, seed: int, deal: dict) -> "DabangState":
        """``new_state(seed, **deal)``: the state a saved ``given_deal`` (keys ``deck`` and
        ``first_seat``, each ``None`` where the seed decides) starts from."""
        if not isinstance(deal, dict) or set(deal) != {"deck", "first_seat"}:
            raise ValueError(f"a Dabang deal is a dict with keys 'deck' and 'first_seat', got "
                             f"{deal!r}"[:300])
        deck = deal["deck"]
        if deck is not None and not (isinstance(deck, list) and all(is_int(k) for k in deck)):
            raise ValueError(f"deal deck must be null or a list of 216 card kinds, got "
                             f"{deck!r}"[:300])
        return self.new_state(seed, deck=deck, first_seat=deal["first_seat"])

    def hand_value(self, result: HandResult, seat: int) -> float:
        """What the finished hand ``result`` is worth to ``seat``'s team, whatever the episode
        mode: the hand episode's reward, levels gained minus the other team's, plus
        ``deal_value`` for taking the deal; a match won counts as reaching level 11. (A match
        episode pays only the match's end, +1 / -1; a search that stops at the end of a hand
        scores the hand by this.)"""
        team = check_int(seat, "seat", 0, 3, error=ValueError) % 2
        winner = result.match_winner
        if winner is not None:
            gain = float(11 - result.levels_before[winner])
            return gain if team == winner else -gain
        diff = float(result.gained[0] - result.gained[1])
        took = result.outcome in (3, 4)  # the attackers take the deal
        deal_value = self.options["deal_value"] * (1 if took else 0)
        return (diff if team == 0 else -diff) + (deal_value if team == result.attackers
                                                 else -deal_value)

    def sample_worlds(self, state: "DabangState", seat: int, n: int, rng, *,
                      max_tries: int | None = None) -> list["DabangState"]:
        """``n`` complete states that ``seat`` cannot tell from ``state``: same observation at
        every step of the hand, same legal mask now (``cardenv.dabang.worlds``: what it reads,
        how, the distribution, what is covered). Drawn with ``rng`` (a numpy ``Generator``);
        ``max_tries`` bounds the proposals (``StateError`` when they run out)."""
        return worlds.sample_worlds(self, state, seat, n, rng, max_tries=max_tries)


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
                 first_seat: int | None = None):
        self.game = game
        self._legal = None
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
        self.next_blood = self._first_blood()
        deck = _check_deck(deck)
        if first_seat is not None:
            if not optional_seat(first_seat):
                raise ValueError(f"first_seat must be a seat 0..3, got {first_seat!r}")
            if self.match_hand and first_seat != self.next_dealer:
                raise ValueError("in a later hand the first seat is the dealer")
            first_seat = int(first_seat)
        if deck is not None or first_seat is not None:
            self.given_deal = {"deck": deck, "first_seat": first_seat}
        self._new_hand(first_seat, deck)
        self._advance(_DECLARE)
        counting.refresh(self)

    def _first_blood(self) -> int:
        """The blood owed to the episode's first dealer (option ``blood``, or its draw)."""
        blood = self.game.options["blood"]
        return draw_blood(self.seed) if blood == "random" else blood

    # --- queries ---------------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """The legal action ids of the player to act, ascending (a new list)."""
        return list(self._legal_ids())

    def _legal_ids(self) -> list[int]:
        """The legal action ids, computed once per decision (the list itself: never change it
        in place, clones share it)."""
        legal = self._legal
        if legal is None:
            given = self._given
            legal = self._legal = np.flatnonzero(given).tolist() if given is not None else \
                self._compute_legal()
        return legal

    def _compute_legal(self) -> list[int]:
        rules = RULES.get(self.phase)  # none once over
        return rules.legal(self) if rules is not None else []

    def position_changed(self) -> None:
        """``CardState.position_changed``: also the legal actions computed for it."""
        self._legal = self._given = None

    def legal_mask(self) -> np.ndarray:
        """Boolean mask over the ``cat.NUM_ACTIONS`` (404) actions for the player to act."""
        # set byte by byte in a bytearray, then viewed as bools (a new, writable array): for
        # the few ids of a typical decision, half the cost of np.zeros and a fancy assignment
        mask = bytearray(cat.NUM_ACTIONS)
        for action in self._legal_ids():
            mask[action] = 1
        return np.frombuffer(mask, dtype=bool)

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
        """Whether ``action`` is legal for the player to act (an action is an int: ``True``,
        ``1.0`` or ``None`` is no action, so not a legal one)."""
        if not is_int(action):
            return False
        if self._legal is None:
            given = self._given
            if given is not None:
                return 0 <= action < cat.NUM_ACTIONS and bool(given[action])
            self._legal = self._compute_legal()
        return action in self._legal

    def why_illegal(self, action: int) -> str | None:
        """Why ``action`` is illegal for the player to act (``reasons.why_illegal``), or
        ``None`` if it is legal."""
        return reasons.why_illegal(self, action)

    def _play(self, action: int) -> None:
        self.last_rewards = [0.0] * 4
        self._legal = self._given = None
        phase = self.phase
        RULES[phase].apply(self, action)
        self._advance(phase)
        if phase is not _PLAY or self.phase is not _PLAY:  # (trick play keeps its own)
            counting.refresh(self)

    # --- the automatic flow ----------------------------------------------------------------

    def _advance(self, after: Phase) -> None:
        """Run the steps that need no decision until one does (or the episode ends), after a
        move in phase ``after`` (``declare`` also for a hand just shuffled). The blocks follow
        the hand's order; each either enters a decision phase and returns, or falls through."""
        if after is _PLAY:
            if self.trick.to_play:  # the hand goes on: enter(self, _PLAY, self.current), but
                # the phase piece already shows play, so only to_play moves (the hot path)
                to_play = self.v["to_play"]
                to_play.fill(0)
                to_play[self.current] = 1
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
        # public: the previous hand's result (capped: more than a hand pays the same tribute)
        v["blood_owed"][0] = min(self.blood_due, BLOOD_SHOWN)
        v["tribute_hand"][0] = self.blood_due > 0
        # [DB-8]: a dealer keeping its tribute plays the last tricks alone
        v["defenders_take_last"][0] = self.blood_due > 0 and \
            self.game.options["tribute_return"] == "none"
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
        """Hand episodes: each team's ``hand_value``. Match episodes: +1 / -1 at the end."""
        winner = result.match_winner
        if self.game.options["episode"] == "match":
            return [0.0, 0.0] if winner is None else [1.0 if t == winner else -1.0 for t in (0, 1)]
        return [self.game.hand_value(result, t) for t in (0, 1)]  # seat t is on team t

    # --- copies and saved states (CardState's skeleton calls these hooks) ---------------------

    FORMAT = "cardenv.dabang.state/4"
    OLD_FORMATS = {"cardenv.dabang.state/1": "this version does not load it (it reads "
                   "'cardenv.dabang.state/4'); rebuild the state by replaying its seed and "
                   "history with DabangGame.replay"}
    # formats 2 and 3 saved the buffer (format 2 without the pieces declared_cards ..
    # taken_back at its end, format 3 without the counting pieces voids .. points_out), the
    # results and the generator: read by replaying, the saved buffer a prefix of the new one
    REPLAYED_FORMATS = {"cardenv.dabang.state/3": 1937, "cardenv.dabang.state/2": 1687}
    # format 4 written before the counting pieces: its crc is of the 1937 entries before them
    CRC_PREFIXES = (1937,)
    # never changed in place (replaced when they change), so a clone shares them
    SHARED = ("_legal", "phase", "current", "returns", "last_rewards", "truncated", "levels",
               "match_hand", "next_dealer", "next_blood", "first_hand", "start_seat", "dealer",
               "level", "blood_due", "trump", "gangguo", "last_trick_team")

    @classmethod
    def _game_class(cls) -> type:
        return DabangGame

    @classmethod
    def _old_deal(cls, game, data: dict) -> dict | None:
        """Format 3 of a first hand: the deck in its ``deal`` part, the first seat in
        ``start_seat``."""
        if data["format"] != "cardenv.dabang.state/3" or data["results"]:
            return None
        return {"deck": data["deal"]["deck"], "first_seat": data["start_seat"]}

    def _copy_fields(self, new: "DabangState") -> None:
        new.cards_left = self.cards_left.copy()
        new.points = self.points.copy()
        new.deal = self.deal.copy()
        new.tribute = self.tribute.copy()
        new.kitty = self.kitty.copy()
        new.trick = self.trick.copy()

    def __repr__(self):
        return (f"DabangState(hand {len(self.results) + 1}, levels {self.levels}, "
                f"phase={self.phase}, to_play={self.current_player})")


DabangGame.state_class = DabangState
