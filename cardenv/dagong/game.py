"""The Dagong rules engine: ``DagongGame`` (options) and ``DagongState`` (one position).

Pure Python + numpy; knows nothing of PettingZoo. A state moves by ``apply(action)`` with ids
from ``catalogue``; chance (the shuffle, the first dealer, the first hand's call) comes from the
state's own seeded generator, so ``DagongGame(...).replay(seed, actions)`` rebuilds any game.

Phases of a hand (``state.phase``, a ``phase.Phase``): ``SOLO`` (each player in turn from the
dealer may declare 硬牌) then ``PLAY``; after the last hand of the episode the state is
``OVER``. Each phase's legal actions are written beside its moves. Several hands (option
``hands``) follow each other under the later-hand rules: the previous 一游 deals and the call
is the dealer's first dealt card.

Saved states (``to_dict`` / ``from_dict``, format ``cardenv.dagong.state/4``) are recipes: the
options, the seed, the custom deal of ``state_from_hands`` (``None`` if seeded) and the history,
read back by replaying them (``core.state``).
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import KIND_POINTS, NUM_KINDS, parse_cards
from cardenv.core.checks import check_seat, is_int
from cardenv.core.options import Option, boolean, int_in, resolve
from cardenv.core.state import CardGame, CardState
from cardenv.dagong import catalogue as cat
from cardenv.dagong import action_features as features
from cardenv.dagong import batched_masks, counting, legality, reasons, worlds
from cardenv.dagong.deal import deal, first_hand_call, later_hand_calls
from cardenv.dagong.observation import LAYOUT
from cardenv.dagong.phase import Phase
from cardenv.dagong.scoring import HandResult, settle
from cardenv.dagong.selection import select_cards
from cardenv.dagong.vector import DagongBatch

MAX_HANDS = 1000  # option hands: at most this many hands per episode
MAX_SOLO_MULTIPLIER = 100

OPTIONS = {
    "hands": Option(1, int_in(1, MAX_HANDS), f"an int in 1..{MAX_HANDS}",
                    "hands per episode; hand 1 uses the first-hand call, later hands the "
                    "later-hand rules (dealer = previous 一游, call = dealer's first card)"),
    "solo_multiplier": Option(2, int_in(1, MAX_SOLO_MULTIPLIER),
                              f"an int in 1..{MAX_SOLO_MULTIPLIER}",
                              "硬牌 payoff per opponent [D-B4]"),
    "allow_solo": Option(True, boolean, "True or False",
                         "whether players may declare 硬牌 (a dealer holding both called cards "
                         "still plays alone)"),
    "xiqian": Option(True, boolean, "True or False", "whether 喜钱 is paid for dealt hands"),
}

_SOLO_MASK = np.zeros(cat.NUM_ACTIONS, dtype=bool)
_SOLO_MASK[[cat.SOLO_DECLINE, cat.SOLO_DECLARE]] = True
_NO_MASK = np.zeros(cat.NUM_ACTIONS, dtype=bool)
# module names for the phases: a global is read 4x faster than an Enum member (Python 3.11)
_SOLO, _PLAY, _OVER = Phase.SOLO, Phase.PLAY, Phase.OVER
_POINTS = KIND_POINTS.tolist()
_TYPE_INDEX = {name: i for i, name in enumerate(cat.PLAY_TYPES)}


def _card_deltas() -> list[list[np.ndarray]]:
    """``[seat][kind]``: what one card of ``kind`` played by ``seat`` adds to the buffer: one
    copy out of its hand, into its played cards and the standing play; the counting pieces
    (``counting.card_deltas``)."""
    deltas = counting.card_deltas(LAYOUT)
    for seat, row in enumerate(deltas):
        for kind, delta in enumerate(row):
            v = LAYOUT.views(delta)
            v["hand"][seat, kind] = -1
            v["played"][seat, kind] = 1
            v["standing_cards"][kind] = 1
    return deltas


_CARD_DELTAS = _card_deltas()


class DagongGame(CardGame):
    """Options and constants of Dagong; makes and replays states.

    Args:
        hands: hands per episode (default 1).
        solo_multiplier: 硬牌 payoff per opponent (default 2).
        allow_solo: whether 硬牌 may be declared (default True).
        xiqian: whether 喜钱 is paid (default True).

    Raises ``ConfigError`` (a ``ValueError``) for an unknown option or a bad value.
    """

    name = "dagong"
    actions = cat.ACTIONS
    layout = LAYOUT
    # what each legal move does, from the observation alone (core.action_features)
    action_features = staticmethod(features.action_features)
    action_feature_pieces = features.PIECES
    # the batched queries of the engine contract (core.protocol): one vectorized mask call
    legal_masks = staticmethod(batched_masks.legal_masks)
    sides = staticmethod(batched_masks.sides)
    # many games stepped together, the play phase in numpy (cardenv.vector.VectorGame uses it)
    batch_engine = DagongBatch

    def __init__(self, **options):
        self.options = resolve(OPTIONS, options, "dagong")

    def new_state(self, seed: int | None = None) -> "DagongState":
        """A new episode, shuffled and dealt from ``seed`` (fresh entropy if ``None``)."""
        return DagongState(self, seed)

    def state_from_hands(self, hands, dealer: int, called, *, seed: int = 0,
                         later: bool = False) -> "DagongState":
        """A hand dealt by hand, for puzzles, tests and analysis.

        Args:
            hands: four hands, each a list of card kinds or a string such as ``"♠10 10H SJ"``.
                Any sizes are allowed (a full deal is 27 each); no kind may appear more than
                twice in all. The points in play are the points dealt.
            dealer: the dealer's seat.
            called: the called card (kind or string). If the dealer holds one copy, the holder
                of the other is the partner; if the dealer holds both, it plays alone.
            seed: seeds the generator used by later hands, if the game has ``hands > 1``.
            later: deal it as a later hand: the hands are in deal order and the call follows
                from the dealer's cards by the later-hand rule [D-B3] (``called`` must be the
                call it gives; the calls it superseded are shown, a dealer ending with both
                copies plays alone). ``cardenv.dagong.worlds`` rebuilds a later hand this way.
        """
        kinds = [parse_cards(h) if isinstance(h, str) else [int(k) for k in h] for h in hands]
        if isinstance(called, str):
            parsed = parse_cards(called)
            if len(parsed) != 1:
                raise ValueError(f"called must be one card, got {called!r}")
            called = parsed[0]
        if len(kinds) != 4:
            raise ValueError(f"need four hands, got {len(kinds)}")
        dealer = check_seat(dealer, "dealer", error=ValueError)
        counts = np.zeros((4, NUM_KINDS), dtype=np.int16)
        for seat, cards in enumerate(kinds):
            if not cards:
                raise ValueError(f"hand {seat} is empty")
            if len(cards) > cat.HAND_SIZE:
                raise ValueError(f"hand {seat} holds {len(cards)} cards; a hand holds at most "
                                 f"{cat.HAND_SIZE}")
            if any(not 0 <= k < NUM_KINDS for k in cards):
                raise ValueError(f"hand {seat} holds a kind outside 0..53")
            np.add.at(counts[seat], cards, 1)
        if counts.sum(axis=0).max() > 2:
            raise ValueError("a card kind appears more than twice (two decks)")
        superseded: list[int] = []
        if later:
            calls, forced = later_hand_calls(kinds[dealer])
            if calls[-1] != called:
                raise ValueError(f"called must be the call the later-hand rule gives for the "
                                 f"dealer's cards in deal order ({calls[-1]}), got {called}")
            superseded = calls[:-1]
        held = int(counts[dealer, called])
        if held == 0 or (held == 1 and counts[:, called].sum() < 2):
            raise ValueError("the dealer must hold the called card and its twin must be dealt "
                             "(or the dealer holds both copies and plays alone)")
        state = DagongState(self, seed, _deal=False)
        state.given_deal = {"hands": kinds, "dealer": dealer, "called": int(called)}
        if later:
            state.given_deal["later"] = True
        state._setup_hand(counts, kinds, dealer, int(called), forced_solo=held == 2,
                          superseded=superseded)
        return state

    def state_from_deal(self, seed: int, deal: dict) -> "DagongState":
        """``state_from_hands(**deal, seed=seed)``: the state a saved ``given_deal`` (keys
        ``hands``, ``dealer``, ``called``, and ``later``: true for a later hand's deal, left
        out otherwise) starts from."""
        if not isinstance(deal, dict) or not {"hands", "dealer", "called"} <= set(deal) \
                or not set(deal) <= {"hands", "dealer", "called", "later"} \
                or deal.get("later", True) is not True:
            raise ValueError(f"a Dagong deal is a dict with keys 'hands', 'dealer' and "
                             f"'called' (and 'later': true for a later hand), got "
                             f"{deal!r}"[:300])
        hands = deal["hands"]
        if not isinstance(hands, list) or not all(
                isinstance(h, list) and all(is_int(k) for k in h) for h in hands):
            raise ValueError(f"deal hands must be four lists of card kinds, got {hands!r}"[:300])
        if not is_int(deal["called"]) or not 0 <= deal["called"] < NUM_KINDS:
            raise ValueError(f"deal called must be a card kind 0..{NUM_KINDS - 1}, got "
                             f"{deal['called']!r}")
        return self.state_from_hands(hands, deal["dealer"], deal["called"], seed=seed,
                                     later="later" in deal)

    def sample_worlds(self, state: "DagongState", seat: int, n: int,
                      rng: np.random.Generator) -> list["DagongState"]:
        """``n`` complete states of ``state``'s current hand that give ``seat`` the same
        observation at every step so far, drawn uniformly over the deals of the cards it has
        not seen that agree with what it saw, with ``rng`` (``cardenv.dagong.worlds``)."""
        return worlds.sample_worlds(self, state, seat, n, rng)


class DagongState(CardState):
    """One position of a Dagong episode. Create with ``DagongGame.new_state(seed)``."""

    def __init__(self, game: DagongGame, seed: int | None, *, _deal: bool = True):
        self.game = game
        self._init_episode(seed)
        self.hand_index = 0
        self.returns = [0, 0, 0, 0]
        self.last_rewards = [0, 0, 0, 0]
        if _deal:
            self._start_hand(dealer=int(self.rng.integers(4)), first=True)

    # --- queries ---------------------------------------------------------------------------
    # Each phase's legal actions are written beside its moves, below; these dispatch on it.

    def legal_mask(self) -> np.ndarray:
        """Boolean mask over the ``N`` actions for the player to act (a new array)."""
        if self.phase == _PLAY:
            return self._play_mask()
        return _SOLO_MASK.copy() if self.phase == _SOLO else _NO_MASK.copy()

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal for the player to act, without building the mask (an
        action is an int: ``True``, ``1.0`` or ``None`` is no action, so not a legal one)."""
        if not is_int(action) or not 0 <= action < cat.NUM_ACTIONS:
            return False
        if self._given is not None:
            return bool(self._given[action])
        if self.phase == _PLAY:
            return self._play_allows(action)
        return self.phase == _SOLO and bool(_SOLO_MASK[action])

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_mask()).tolist()

    def why_illegal(self, action: int) -> str | None:
        """Why ``action`` is illegal for the player to act (``reasons.why_illegal``), or
        ``None`` if it is legal."""
        return reasons.why_illegal(self, action)

    def team_of(self, seat: int) -> frozenset[int]:
        """The seats on ``seat``'s side this hand (true sides, hidden or not)."""
        if self.solo is not None:
            return frozenset({seat}) if seat == self.solo else \
                frozenset(s for s in range(4) if s != self.solo)
        dealer_side = frozenset({self.dealer, self.partner})
        return dealer_side if seat in dealer_side else frozenset(range(4)) - dealer_side

    def position_changed(self) -> None:
        """``CardState.position_changed``: also every seat's cached feasible plays (a batched
        engine may have moved any hand)."""
        self._given = None
        self._feasible = [None] * 4

    # --- moves -----------------------------------------------------------------------------

    def _play(self, action: int) -> None:
        self.last_rewards = [0, 0, 0, 0]
        self._given = None
        if self.phase == _SOLO:
            self._apply_solo(action)
        elif action == cat.PASS:
            self._apply_pass()
        else:
            self._apply_play(action)

    # --- Phase.SOLO: legal are SOLO_DECLINE and SOLO_DECLARE (_SOLO_MASK) -------------------

    def _apply_solo(self, action: int) -> None:
        if action == cat.SOLO_DECLARE:
            self.solo = self.current
            self.v["solo"][self.current] = 1
            self._begin_play()
            return
        nxt = (self.current + 1) % 4
        if nxt == self.dealer:
            self._begin_play()
        else:
            self._set_current(nxt)

    def _begin_play(self) -> None:
        self.phase = _PLAY
        self.v["solo_phase"][0] = 0
        self._set_current(self.dealer)

    # --- Phase.PLAY: the plays the hand can make that beat the standing one, then the moves --

    def _play_mask(self) -> np.ndarray:
        return self._feasible_now() & cat.BEATS[self._beats_row()]

    def _play_allows(self, action: int) -> bool:
        return bool(self._feasible_now()[action] and cat.BEATS[self._beats_row(), action])

    def _feasible_now(self) -> np.ndarray:
        # A seat's feasible plays change only when its own hand does, so they are cached.
        feas = self._feasible[self.current]
        if feas is None:
            feas = self._feasible[self.current] = legality.feasible(
                self.v["hand"][self.current], self.called)
        return feas

    def _beats_row(self) -> int:
        return cat.LEAD_ROW if self.standing < 0 else cat.combo_of(self.standing)

    def _apply_play(self, action: int) -> None:
        seat = self.current
        info = cat.ACTIONS[action]
        v = self.v
        cards = select_cards(v["hand"][seat].tolist(), action, self.called)
        # a play is a handful of cards: one precomputed whole-buffer delta per card (out of
        # the hand into the seat's played cards and the standing play, and the counting
        # pieces) beats the numpy calls of per-piece updates
        v["standing_cards"].fill(0)
        buffer, deltas = self.buffer, _CARD_DELTAS[seat]
        for kind in cards:
            buffer += deltas[kind]
        self._feasible[seat] = None
        self.standing, self.standing_seat = action, seat
        self.trick_points += sum(_POINTS[kind] for kind in cards)
        self.passed = [False] * 4
        self._write_standing(info)
        if info.type == cat.YAOBAI and seat not in self.yaobai:
            self.yaobai.add(seat)
            v["yaobai"][seat] = 1
        if info.called and seat == self.partner and not self.revealed:
            self.revealed = True
            v["revealed"][0] = 1
            v["partner"][:] = 0
            v["partner"][:, self.partner] = 1
        self.cards_left[seat] -= len(cards)
        v["cards_left"][seat] = self.cards_left[seat]
        if self.cards_left[seat] == 0 or self.called in cards:  # the twin may have moved
            counting.refresh_twin(self)
        if self.cards_left[seat] == 0:
            v["place"][seat, len(self.out)] = 1
            self.out.append(seat)
            if self._hand_is_decided():
                self.end_hand()
                return
        self._set_current(self._next_active(seat))

    def _apply_pass(self) -> None:
        seat = self.current
        self.passed[seat] = True
        self.v["passed"][seat] = 1
        passed, cards_left, standing = self.passed, self.cards_left, self.standing_seat
        for s in range(4):  # (a loop, not all() over a generator: every pass runs this)
            if not passed[s] and s != standing and cards_left[s] > 0:
                break
        else:
            self._end_trick()
            return
        self._set_current(self._next_active(seat))

    def _end_trick(self) -> None:
        winner = self.standing_seat
        self._award_trick()
        if self.cards_left[winner] > 0:
            leader = winner
        elif self.revealed and self.solo is None:  # 接风 to the known partner
            leader = next(s for s in self.team_of(winner) if s != winner)
        else:  # 接风 to the next player still holding cards
            leader = self._next_active(winner)
        self._set_current(leader)

    def _award_trick(self) -> None:
        seat = self.standing_seat
        self.won[seat] += self.trick_points
        self.v["points"][seat] = self.won[seat]
        self.trick_points = 0
        self.standing, self.standing_seat = -1, -1
        self.passed = [False] * 4
        for name in ("standing_cards", "standing_seat", "standing_type", "standing_rank",
                     "standing_length", "passed"):
            self.v[name].fill(0)
        self.v["trick_points"][0] = 0

    def _hand_is_decided(self) -> bool:
        if self.solo is not None:
            return True
        if len(self.out) == 2:
            return self.out[1] in self.team_of(self.out[0])  # 绑
        return len(self.out) == 3

    def end_hand(self) -> None:
        """Settle the hand that the last play decided (that play's trick awarded, the result
        written, then the next hand dealt or the episode over): the end of ``apply`` for such a
        play, and what the batched engine calls once it has played the cards itself."""
        self._award_trick()  # the play that ended the hand stands
        if len(self.out) == 3:
            self.v["place"][self._last_seat(), 3] = 1
        result = self._settle()
        self.results.append(result)
        self.last_rewards = list(result.rewards)
        self.returns = [a + b for a, b in zip(self.returns, result.rewards)]
        if self.hand_index + 1 < self.game.options["hands"]:
            self.hand_index += 1
            self._start_hand(dealer=result.places[0], first=False)
        else:
            self.phase = _OVER
            self.v["to_play"][:] = 0

    # --- hand set-up and helpers -------------------------------------------------------------

    def _start_hand(self, dealer: int, first: bool) -> None:
        hands, deal_order = deal(self.rng, dealer)
        superseded: list[int] = []
        if first:
            called, forced_solo = first_hand_call(self.rng, hands[dealer]), False
        else:
            calls, forced_solo = later_hand_calls(deal_order[dealer])
            called, superseded = calls[-1], calls[:-1]
        self._setup_hand(hands, deal_order, dealer, called, forced_solo, superseded)

    def _setup_hand(self, hands, deal_order, dealer, called, forced_solo,
                    superseded=()) -> None:
        """Write a freshly dealt hand; ``superseded``: the kinds called during a later hand's
        deal before ``called`` (each one the dealer came to hold twice, and showed)."""
        self.buffer[:] = 0
        self.v["hand"][:] = hands
        self.dealt = np.array(hands, dtype=np.int16)
        self.deal_order = [list(cards) for cards in deal_order]
        self.total_points = int(KIND_POINTS @ self.dealt.sum(axis=0))
        self.dealer, self.called, self.forced_solo = dealer, called, forced_solo
        self.partner = None if forced_solo else next(
            s for s in range(4) if s != dealer and hands[s][called] > 0)
        self.solo = dealer if forced_solo else None
        self.revealed = False
        self.standing, self.standing_seat, self.trick_points = -1, -1, 0
        self.passed = [False] * 4
        self.cards_left = [int(n) for n in self.dealt.sum(axis=1)]
        self.out: list[int] = []
        self.won = [0, 0, 0, 0]
        self.yaobai: set[int] = set()
        self._feasible = [None] * 4
        v = self.v
        v["called"][called] = 1
        v["superseded_calls"][list(superseded)] = 1
        v["dealer"][dealer] = 1
        v["cards_left"][:] = self.cards_left
        v["more_hands"][0] = self.hand_index + 1 < self.game.options["hands"]
        if self.partner is not None:
            v["partner"][self.partner, self.partner] = 1
        if forced_solo:
            v["solo"][dealer] = 1
            v["forced_solo"][0] = 1
        counting.refresh(self)
        self.current = dealer
        if self.game.options["allow_solo"] and not forced_solo:
            self.phase = _SOLO
            v["solo_phase"][0] = 1
        else:
            self.phase = _PLAY
        self._set_current(dealer)

    def _set_current(self, seat: int) -> None:
        self.v["to_play"][self.current] = 0
        self.current = seat
        self.v["to_play"][seat] = 1

    def _last_seat(self) -> int:
        """末游: the seat still holding cards when three are out."""
        return next(s for s in range(4) if s not in self.out)

    def _settle(self) -> HandResult:
        """The result of the hand just decided (the last trick awarded)."""
        places = list(self.out)
        last_points = 0
        if len(places) == 3:
            last = self._last_seat()
            places.append(last)
            last_points = int(KIND_POINTS @ self.v["hand"][last])
        return settle(
            dealer=self.dealer, partner=self.partner, called=self.called, solo=self.solo,
            forced_solo=self.forced_solo, places=places, trick_points=list(self.won),
            last_hand_points=last_points, yaobai_seats=set(self.yaobai),
            dealt_hands=self.dealt, solo_multiplier=self.game.options["solo_multiplier"],
            xiqian=self.game.options["xiqian"], total_points=self.total_points)

    def _next_active(self, seat: int) -> int:
        for step in range(1, 5):
            s = (seat + step) % 4
            if self.cards_left[s] > 0:
                return s
        raise AssertionError("no player holds cards")

    def _write_standing(self, info: cat.ActionInfo) -> None:
        """The standing play's pieces (its cards are already in ``standing_cards``)."""
        v = self.v
        for name in ("standing_seat", "standing_type", "standing_rank", "passed"):
            v[name].fill(0)
        v["standing_seat"][self.standing_seat] = 1
        v["standing_type"][_TYPE_INDEX[info.type]] = 1
        if info.key_rank is not None:
            v["standing_rank"][info.key_rank] = 1
        v["standing_length"][0] = info.length
        v["trick_points"][0] = self.trick_points

    # --- copies and saved states (CardState's skeleton calls these hooks) --------------------

    FORMAT = "cardenv.dagong.state/4"
    # formats 2 and 3 saved the buffer (format 2 without the superseded_calls piece at its end,
    # format 3 without the counting pieces unseen .. twin), the results and the generator: read
    # by replaying their seed and history, the saved buffer a prefix of the new one
    REPLAYED_FORMATS = {"cardenv.dagong.state/3": 688, "cardenv.dagong.state/2": 634}
    # format 4 written before the counting pieces: its crc is of the 688 entries before them
    CRC_PREFIXES = (688,)
    OLD_FORMATS = {
        "cardenv.dagong.state/1": (
            "format 1 stored the derived fields (phase, seat to act, roles, cards left, points "
            "won, places...) beside the buffer and read them back unchecked, so a saved state "
            "could disagree with itself; format 2 derives them from the buffer and checks it. "
            "Rebuild the state with DagongGame(**options).replay(seed, history) (a custom deal: "
            "state_from_hands, then apply the history)"),
    }
    # never changed in place (replaced when they change), so a clone shares them
    SHARED = ("hand_index", "phase", "current", "dealer", "partner", "called", "forced_solo",
               "solo", "revealed", "standing", "standing_seat", "trick_points", "total_points",
               "returns", "last_rewards", "dealt", "deal_order")

    @classmethod
    def _game_class(cls) -> type:
        return DagongGame

    @classmethod
    def _old_deal(cls, game, data: dict) -> dict | None:
        """Format 3 of a first hand: its cards in ``deal_order``, the dealer and the call in
        the buffer."""
        if data["format"] != "cardenv.dagong.state/3" or data["results"]:
            return None
        buffer = np.zeros(game.layout.size, dtype=np.int16)  # (pieces appended since)
        saved = np.asarray(data["buffer"], dtype=np.int16)
        buffer[:saved.size] = saved
        v = game.layout.views(buffer)
        return {"hands": data["deal_order"], "dealer": int(np.argmax(v["dealer"])),
                "called": int(np.argmax(v["called"]))}

    def _copy_fields(self, new: "DagongState") -> None:
        new.passed = self.passed.copy()
        new.cards_left = self.cards_left.copy()
        new.out = self.out.copy()
        new.won = self.won.copy()
        new.yaobai = self.yaobai.copy()
        new._feasible = self._feasible.copy()  # cached masks are immutable once computed

    def __repr__(self):
        return (f"DagongState(hand {self.hand_index + 1}/{self.game.options['hands']}, "
                f"phase={self.phase}, to_play={self.current_player})")


DagongGame.state_class = DagongState
