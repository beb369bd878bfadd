"""What the viewing seat has seen of the hand (``View``), read from a replay of the state's
recipe: its observation at every step, and the public facts the proposal builds on (who was
asked to declare or grab and when, voids and the 死棒 duty shown by play, the 扣王 turns, the
kitty, the tribute, and its own cards in deal order). Only public fields and the seat's own
are read from the replay.

Also here: the declaration looks a later hand's deal made (``_declare_checks``), rebuilt from
the public asks, and the options of the game a later hand's worlds are states of
(``later_options``)."""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, SMALL_JOKER
from cardenv.dabang import catalogue as cat
from cardenv.dabang import declare
from cardenv.dabang.phase import Phase
from cardenv.dabang.phases.deal import DEALT
from cardenv.dabang.strength import SUIT_CLASS
from cardenv.dabang.worlds.common import KITTY

# The 死棒 duty [D-A7] (follow.py): a follower whose follow lies wholly in the led suit plays a
# shape at least as good as the best it can build with whole groups of identical cards (a [2]
# part from a kind held exactly twice, a [3] part from one held exactly three times, ...).
# So a follow of shape S rules out, for every kind of the led suit, being held (just before
# the follow) exactly these many times. Shapes that only rule out combinations of kinds
# ([2,1,1]: not two kinds held exactly twice; as its pair's kind was held exactly twice, no
# other kind was) are recorded with the kind they exempt.
_NOT_HELD = {(1, 1): {2}, (2, 1): {3}, (1, 1, 1): {2, 3}, (3, 1): {4}, (2, 2): {3, 4},
             (2, 1, 1): {3, 4}, (1, 1, 1, 1): {2, 3, 4}}


def later_options(game, state) -> dict:
    """The options of the game whose first hand is ``state``'s hand: ``game``'s, but starting
    from the hand's match situation (dealer, levels, blood owed); a match leaves as many hands
    to come."""
    opts = dict(game.options)
    opts.update(dealer=state.dealer, levels=tuple(state.levels), blood=state.blood_due)
    if opts["max_hands"] is not None:
        opts["max_hands"] -= len(state.results)
    return opts


def _declare_checks(decisions, start: int, over: bool) -> list[list[tuple[int, int, bool]]]:
    """Per seat, ``(cards dealt, standing rank, asked)`` each time the deal looked whether the
    seat could beat the standing declaration (``phases.deal.run``): a seat asked could, a seat
    passed over could not. Rebuilt from the public asks: after a declaration during the deal the
    other three seats in play order (until one declares), and after the deal round the table
    from the first seat until four seats in a row had nothing to declare or passed."""
    checks = [[] for _ in range(4)]
    floor, pending, pending_pos = 0, [], 0
    after, round_seat, quiet = False, start, 0

    def flush():
        for q in pending:
            checks[q].append((pending_pos, floor, False))
        pending.clear()

    for cur, why, pos, action in decisions:
        if why == "override":
            while pending and pending[0] != cur:
                checks[pending.pop(0)].append((pending_pos, floor, False))
            if pending:
                pending.pop(0)
            checks[cur].append((pending_pos, floor, True))
        else:
            flush()
            if why == "after deal":
                after = True
                while round_seat != cur:
                    checks[round_seat].append((DEALT, floor, False))
                    quiet += 1
                    round_seat = (round_seat + 1) % 4
                checks[cur].append((DEALT, floor, True))
                round_seat = (cur + 1) % 4
        if action is None:
            break
        if action != cat.PASS:
            floor = declare.rank_of(action)
            if after:
                quiet = 0
            else:
                pending, pending_pos = [(cur + i) % 4 for i in (1, 2, 3)], pos
        elif after:
            quiet += 1
    if over:
        flush()
        while quiet < 4:
            checks[round_seat].append((DEALT, floor, False))
            quiet += 1
            round_seat = (round_seat + 1) % 4
    return checks


class View:
    """What ``seat`` knows of the hand: its observation at every step, and the public facts the
    proposal uses, read from a replay of the state's recipe (only public fields and the seat's
    own are read from it). ``world_game``: the game a later hand's worlds are states of (the
    sampler passes the one it keeps; built from ``later_options`` if not given)."""

    def __init__(self, game, state, seat, world_game=None):
        self.game, self.seat = game, seat
        self.first = state.first_hand
        replay, history = self._replay_to_hand(game, state)
        if self.first:
            world_game = game
        elif world_game is None:
            world_game = type(game)(**later_options(game, state))
        self.world_game = world_game
        self.start = replay.start_seat
        self.obs = [replay.observation(seat)]
        last_play_start = self._read_hand(replay, history)
        self._after_deal_round(game, replay)
        # another seat's follow in progress is hidden from ``seat``: the world stops before it
        self.keep = len(history)
        if state.phase is Phase.PLAY and state.trick.partial and state.current != seat:
            self.keep = last_play_start
        self.history = history
        if self.first_play is None:
            self.first_play = len(history)
        self.state = state
        self.to_act = state.current == seat
        self.mask = state.legal_mask() if self.to_act else None
        self._public_now(state)
        self._own_cards(state)
        self._later_hand(state)

    @staticmethod
    def _replay_to_hand(game, state):
        """A replay of ``state``'s recipe at the start of its hand, and the hand's actions."""
        history = list(state.history)
        replay = game.replay(state.seed, [], state.given_deal)
        if state.results:  # a later hand of a match: its actions follow the last hand's end
            for i, action in enumerate(history):
                replay.apply(action)
                if len(replay.results) == len(state.results):
                    history = history[i + 1:]
                    break
        return replay, history

    def _read_hand(self, replay, history) -> int:
        """Replays the hand's actions, keeping ``seat``'s observation after each and what each
        step shows every seat; returns where the last play (a lead, or the first step of a
        follow) started."""
        self.bury_steps = []  # history indices of the dealer's burial
        self.asked = {}  # seat -> deal position (cards dealt) of its first grab ask
        self.grab_pos = None  # deal position when the grab was made
        self.voids = [set() for _ in range(4)]  # suit classes each seat was seen void in
        # per seat: (suit class, counts no kind of it was held in, cards played before) of
        # each follow that the 死棒 duty let through
        self.duty = [[] for _ in range(4)]
        dead = self.game.options["follow"] == "dead"
        self.kou = {}  # seat -> [turn opened, times asked, passed, cap at its turn]
        self.kou_seen = False  # a seat was asked for 扣王 (so the turns happened)
        # later hands: each declare decision (seat, why asked, cards dealt, action) and the
        # history indices of the dealer's tribute returns
        self.decisions = []
        self.return_steps = []
        # From the first play on, each step is a public play whose effect on ``seat``'s view
        # (its hand, the plays, the trick's winner and points, cards left, whose turn) follows
        # from the position's public part, the action and ``seat``'s cards: a world that
        # replays those steps legally shows ``seat`` the same views, so only the views before
        # it are compared step by step (the view now is compared in every world).
        self.first_play = None
        last_play_start = len(history)
        for i, action in enumerate(history):
            phase, cur = replay.phase, replay.current
            self._note_step(replay, i, action)
            if phase is Phase.PLAY and not replay.trick.partial:
                last_play_start = i  # a lead, or the first step of a follow
            played_before = replay.v["played"][cur].copy() if phase is Phase.PLAY else None
            led, led_k, left = replay.trick.led_kind, replay.trick.k, replay.cards_left[cur]
            replay.apply(action)
            if phase is Phase.PLAY and led >= 0 and replay.cards_left[cur] < left:
                self._read_follow(replay, cur, played_before, led, led_k, dead)
            self.obs.append(replay.observation(self.seat))
        if replay.phase is Phase.DECLARE:  # asked now, not answered yet
            self._note_ask(replay, replay.current, None)
        return last_play_start

    def _note_step(self, replay, i: int, action: int) -> None:
        """What step ``i`` (``action``, not applied yet) shows of the deal, burial, return,
        play and 扣王."""
        phase, cur = replay.phase, replay.current
        if phase is Phase.DECLARE:
            self._note_ask(replay, cur, action)
            if action == cat.GRAB:
                self.grab_pos = replay.deal.pos
        elif phase is Phase.BURY:
            self.bury_steps.append(i)
        elif phase is Phase.RETURN:
            self.return_steps.append(i)
        elif phase is Phase.PLAY and self.first_play is None:
            self.first_play = i
        elif phase is Phase.KOUJOKER:
            self.kou_seen = True
            rec = self.kou.setdefault(cur, [True, 0, False, replay.kitty.kou_cap])
            rec[1] += 1
            rec[2] = rec[2] or action == cat.PASS

    def _note_ask(self, replay, cur: int, action) -> None:
        """A declare decision of ``cur`` (``action`` ``None``: asked now, not answered yet); in
        a first hand, the deal position of a seat's first grab ask."""
        self.decisions.append((cur, replay.deal.ask_reason, replay.deal.pos, action))
        if self.first and replay.deal.ask_reason == "new card" and \
                cur not in self.asked and replay.deal.decl == 0:
            self.asked[cur] = replay.deal.pos

    def _read_follow(self, replay, cur, played_before, led, led_k, dead) -> None:
        """What a follow of ``cur`` (it played cards to lead ``led`` of ``led_k`` cards) says
        of its hand: a void in the led suit, or what the 死棒 duty ruled out."""
        play = replay.v["played"][cur] - played_before
        cls = SUIT_CLASS[replay.trump][replay.level - 3]
        kinds = np.flatnonzero(play).tolist()
        # a follow holding a card of another suit used up the led suit (the suit duty)
        if any(cls[k] != cls[led] for k in kinds):
            self.voids[cur].add(int(cls[led]))
        elif dead and int(play.sum()) == led_k:
            # the 死棒 duty: what the follow's shape says the seat did not hold
            shape = tuple(sorted((int(play[k]) for k in kinds), reverse=True))
            held = _NOT_HELD.get(shape)
            if held:
                self.duty[cur].append((int(cls[led]), held, played_before, -1))
            if shape == (2, 1, 1):  # its pair's kind was held exactly twice, so no
                pair = kinds[[int(play[k]) for k in kinds].index(2)]  # other was
                self.duty[cur].append((int(cls[led]), {2}, played_before, pair))

    def _public_now(self, state) -> None:
        """The public facts of the position now."""
        v = state.v
        self.dealer = state.dealer
        self.trump, self.level = state.trump, state.level
        self.pos = state.deal.pos
        self.cards_left = list(state.cards_left)
        self.played = v["played"].astype(np.int64)
        self.kou_kinds = np.zeros((4, NUM_KINDS), dtype=np.int64)
        self.kou_kinds[:, SMALL_JOKER] = v["koujoker_kinds"][:, 0]
        self.kou_kinds[:, BIG_JOKER] = v["koujoker_kinds"][:, 1]
        self.taken = v["taken_back"].astype(np.int64)
        self.revealed = v["kitty_revealed"].astype(np.int64)
        self.flip_jokers = v["flip_jokers"].tolist()
        self.grabbed = state.deal.decl == cat.GRAB
        self.bury_done = len(state.kitty.buried) == KITTY or state.phase not in (
            Phase.DECLARE, Phase.BURY)
        self.buried_n = len(self.bury_steps)

    def _own_cards(self, state) -> None:
        """The seat's own cards, in deal order (and the kitty and burial if it is the dealer),
        and the burial where every seat knows it."""
        v, seat = state.v, self.seat
        deck = state.deal.deck
        self.own_slots = [p for p in range(min(self.pos, DEALT)) if (self.start + p) % 4 == seat]
        self.own_cards = [deck[p] for p in self.own_slots]
        self.is_dealer = self.dealer == seat and self.pos >= DEALT and \
            state.phase is not Phase.DECLARE
        # the kitty still lies untouched while the dealer gives back tribute cards
        self.kitty_lying = state.phase is Phase.RETURN
        self.gangguo = bool(state.gangguo)
        self.own_kitty = list(deck[DEALT:]) if self.is_dealer and not self.kitty_lying \
            else None
        self.own_burial = list(state.kitty.buried) if self.is_dealer else None
        self.burial_known = None  # the buried multiset, where every seat knows it
        if not self.is_dealer and self.bury_done and v["kitty_shown"][0] and \
                self.phase_after_bury():
            now = v["kitty_known"][seat].astype(np.int64)
            self.burial_known = now + self.taken.sum(axis=0) - self.kou_kinds.sum(axis=0)

    def _after_deal_round(self, game, replay):
        """First hand, option ``bidding="after_deal"``: nobody is asked during the deal; after
        it, the seats are looked at in turn from the first seat until four in a row had nothing
        to declare, and a seat is asked exactly when it could grab (holds a big joker, while
        nobody has grabbed) [D-A1]. So of the seats looked at before the grab (all four when
        nobody grabbed), those asked hold a big joker and those passed over hold none:
        ``self.has_bj`` and ``self.no_bj``."""
        self.has_bj, self.no_bj = set(), set()
        if not self.first or game.options["bidding"] != "after_deal":
            return
        asks = [(cur, action) for cur, why, _, action in self.decisions if why == "after deal"]
        looked = self.start
        for cur, action in asks:
            while looked != cur:
                self.no_bj.add(looked)
                looked = (looked + 1) % 4
            self.has_bj.add(cur)
            looked = (looked + 1) % 4
            if action == cat.GRAB:
                return
        if replay.phase is not Phase.DECLARE:  # the round is over, nobody grabbed
            while len(self.has_bj) + len(self.no_bj) < 4:
                self.no_bj.add(looked)
                looked = (looked + 1) % 4

    def _later_hand(self, state):
        """A later hand's public facts: the kitty shown or drawn, the tribute (its cards where
        ``seat`` gave or took them), and what the declaration asks say of each seat's deal."""
        v, seat = state.v, self.seat
        self.kitty_public = self.grabbed or (not self.first and state.deal.decl != 0)
        self.tribute_n = int(v["tribute"][0])
        self.returned_n = int(v["returned"][0])
        self.blood = state.blood_due
        self.giver = None if self.dealer is None else (self.dealer - 1) % 4
        known = seat in (self.dealer, self.giver) and self.dealer is not None
        self.tribute_known = v["tribute_known"][seat].astype(np.int64) if known else None
        self.returned_known = v["returned_known"][seat].astype(np.int64) if known else None
        self.new_asks = [set() for _ in range(4)]  # deal slots whose card made a seat asked
        self.holds = [[] for _ in range(4)]
        self.floors = []  # (cards dealt, rank) at each declaration
        self.checks = [[] for _ in range(4)]  # (cards dealt, rank to beat, could beat it)
        self.shown = v["declared_cards"].astype(np.int64)
        if self.first:
            return
        self.holds = [[] for _ in range(4)]  # (cards dealt, column, at least) per declaration
        for cur, why, pos, action in self.decisions:
            if why == "new card":
                self.new_asks[cur].add(pos - 1)
            if action is not None and action != cat.PASS:
                self.floors.append((pos, declare.rank_of(action)))
                self.holds[cur].append((pos, *declare.shown(action)))
        self.checks = _declare_checks(self.decisions, self.start,
                                      state.phase is not Phase.DECLARE)

    def phase_after_bury(self) -> bool:
        """Whether the position is past the burial (扣王, take-backs or play)."""
        return self.state.phase in (Phase.KOUJOKER, Phase.TAKEBACK, Phase.PLAY)

    def public_kitty(self) -> np.ndarray:
        """The kitty cards every seat saw: all of it after a grab, the flips otherwise."""
        counts = self.revealed.copy()
        counts[SMALL_JOKER] += self.flip_jokers[0]
        counts[BIG_JOKER] += self.flip_jokers[1]
        return counts
