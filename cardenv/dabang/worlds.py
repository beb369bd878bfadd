"""Dabang's public-information sampler: ``sample_worlds(state, seat, n, rng)`` draws ``n``
complete states that agree with everything ``seat`` has seen (``DabangGame.sample_worlds``).

What it reads: ``seat``'s observation at every step of the hand (recorded by replaying the
state's recipe and keeping only that seat's view and what every seat sees: who is asked, the
deal position, the plays), ``seat``'s own cards in the order they were dealt, and, when ``seat``
is the dealer, the kitty it picked up and the cards it buried. Nothing else of the position.

How: each world is a deck (``state_from_deal``) and a history, proposed from a distribution that
already meets the hard constraints, then *replayed* and kept only if every step is legal and
gives ``seat`` the same observation as the real hand did (and the same legal mask now when
``seat`` is to act). So every world is exactly consistent; the proposal only makes acceptance
likely.

The proposal pins what ``seat`` knows (its own deal slots; the big joker at the slot where a
seat was asked to grab; the kitty where it is shown or flipped), and draws the other hidden
cards with the exact weights of a uniform deal: seat by seat, ``hand now + cards played +
jokers buried by 扣王 - cards taken back`` is what the seat was dealt, and the number of deals
that give a seat the multiset ``D`` is proportional to ``1 / prod(D_k!)``. A dynamic programme
over the 54 kinds (state: the cards given so far to each hidden group) samples the hidden hands
from exactly that distribution, restricted by the voids that play showed (a seat that did not
follow a led suit or trump holds none of it now), by "no joker" where a seat let its 扣王 turn
go by, and by "no big joker in these slots" for the seats that were not asked to grab. The
rest (the 死棒 shape duty, ties in the kitty flips, the grabber's trump card, the dealer's big
jokers before its grab) is left to the replay's rejection.

Distribution: uniform over the consistent (deal, hidden choices) pairs. Hidden choices are the
dealer's burial when ``seat`` did not see it (drawn as a multiset, buried big jokers first, then
small, then the rest) and, for another seat building a follow, the steps it has taken so far
(dropped: the world stands at the start of that seat's follow, which ``seat`` cannot tell from
where it stands). Rejection from a proposal that is uniform over a superset of the consistent
pairs keeps it uniform.

Covered: every position of the episode's first hand of a fresh match (option ``dealer=None``),
every phase, every seat as viewer, options ``episode``, ``follow``, ``bidding``. Not covered yet,
refused with ``NotImplementedError``: later hands of a match and episodes that start from a later
hand (``dealer=...``): their level-card declarations, tribute and the kitty draw are not modelled
by the proposal.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.core.checks import check_int
from cardenv.core.errors import IllegalActionError, StateError
from cardenv.core.worlds import check_sample_args
from cardenv.dabang import catalogue as cat
from cardenv.dabang import kitty as kitty_rules
from cardenv.dabang.phase import Phase
from cardenv.dabang.phases.deal import DEALT
from cardenv.dabang.strength import SUIT_CLASS

KITTY = 8
JOKERS = (SMALL_JOKER, BIG_JOKER)
MAX_SEED = 2 ** 63 - 1

# The 死棒 duty [D-A7] (follow.py): a follower whose follow lies wholly in the led suit plays a
# shape at least as good as the best it can build with whole groups of identical cards (a [2]
# part from a kind held exactly twice, a [3] part from one held exactly three times, ...).
# So a follow of shape S rules out, for every kind of the led suit, being held (just before
# the follow) exactly these many times. Shapes that only rule out combinations of kinds
# ([2,1,1]: not two kinds held exactly twice) are left to the replay's check.
_NOT_HELD = {(1, 1): {2}, (2, 1): {3}, (1, 1, 1): {2, 3}, (3, 1): {4}, (2, 2): {3, 4},
             (2, 1, 1): {3, 4}, (1, 1, 1, 1): {2, 3, 4}}


def sample_worlds(game, state, seat, n, rng, *, max_tries: int | None = None) -> list:
    """``n`` states that ``seat`` cannot tell from ``state`` (see the module docstring).

    ``max_tries`` bounds the proposals drawn (default ``1000 + 200 * n``); ``StateError`` if
    they run out first. ``NotImplementedError`` for a position not covered yet."""
    seat, n = check_sample_args(game, state, seat, n, rng)
    if max_tries is not None:
        max_tries = check_int(max_tries, "dabang.sample_worlds: max_tries", 0, 10 ** 9,
                              error=ValueError)
    if state.results or not state.first_hand or game.options["dealer"] is not None:
        raise NotImplementedError(
            "dabang.sample_worlds covers the first hand of a fresh match only (option "
            "dealer=None, no hand finished yet); later hands of a match (level-card "
            "declarations, tribute, the kitty draw) are not covered yet")
    if n == 0:
        return []
    view = _View(game, state, seat)
    proposal = _Proposal(view)
    worlds = []
    tries = 0
    limit = 1000 + 200 * n if max_tries is None else max_tries
    while len(worlds) < n:
        if tries >= limit:
            raise StateError(f"dabang.sample_worlds: found {len(worlds)} of {n} consistent "
                             f"worlds in {tries} proposals (max_tries={limit})")
        tries += 1
        world = proposal.world(rng)
        if world is not None:
            worlds.append(world)
    sample_worlds.last_tries = tries  # for the speed and acceptance measures
    return worlds


# --- what the seat has seen ---------------------------------------------------------------------

class _View:
    """What ``seat`` knows of the hand: its observation at every step, and the public facts the
    proposal uses, read from a replay of the state's recipe (only public fields and the seat's
    own are read from it)."""

    def __init__(self, game, state, seat):
        self.game, self.seat = game, seat
        history = list(state.history)
        replay = game.replay(state.seed, [], state.given_deal)
        self.start = replay.start_seat
        self.obs = [replay.observation(seat)]
        self.bury_steps = []  # history indices of the dealer's burial
        self.asked = {}  # seat -> deal position (cards dealt) of its first grab ask
        self.grab_pos = None  # deal position when the grab was made
        self.voids = [set() for _ in range(4)]  # suit classes each seat was seen void in
        # per seat: (suit class, counts no kind of it was held in, cards played before) of
        # each follow that the 死棒 duty let through
        self.duty = [[] for _ in range(4)]
        dead = game.options["follow"] == "dead"
        self.kou = {}  # seat -> [turn opened, times asked, passed, cap at its turn]
        self.kou_seen = False  # a seat was asked for 扣王 (so the turns happened)
        # From the first play on, each step is a public play whose effect on ``seat``'s view
        # (its hand, the plays, the trick's winner and points, cards left, whose turn) follows
        # from the position's public part, the action and ``seat``'s cards: a world that
        # replays those steps legally shows ``seat`` the same views, so only the views before
        # it are compared step by step (the view now is compared in every world).
        self.first_play = None
        last_play_start = len(history)
        for i, action in enumerate(history):
            phase, cur = replay.phase, replay.current
            if phase is Phase.DECLARE:
                if replay.deal.ask_reason == "new card" and cur not in self.asked \
                        and replay.deal.decl == 0:
                    self.asked[cur] = replay.deal.pos
                if action == cat.GRAB:
                    self.grab_pos = replay.deal.pos
            elif phase is Phase.BURY:
                self.bury_steps.append(i)
            elif phase is Phase.PLAY and self.first_play is None:
                self.first_play = i
            elif phase is Phase.KOUJOKER:
                self.kou_seen = True
                rec = self.kou.setdefault(cur, [True, 0, False, replay.kitty.kou_cap])
                rec[1] += 1
                rec[2] = rec[2] or action == cat.PASS
            if phase is Phase.PLAY and not replay.trick.partial:
                last_play_start = i  # a lead, or the first step of a follow
            played_before = replay.v["played"][cur].copy() if phase is Phase.PLAY else None
            led, led_k, left = replay.trick.led_kind, replay.trick.k, replay.cards_left[cur]
            replay.apply(action)
            if phase is Phase.PLAY and led >= 0 and replay.cards_left[cur] < left:
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
                        self.duty[cur].append((int(cls[led]), held, played_before))
            self.obs.append(replay.observation(seat))
        if replay.phase is Phase.DECLARE and replay.deal.ask_reason == "new card" and \
                replay.current not in self.asked and replay.deal.decl == 0:
            self.asked[replay.current] = replay.deal.pos  # asked now, not answered yet
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
        # public facts of the position now
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
        # the seat's own cards, in deal order (and the kitty and burial if it is the dealer)
        deck = state.deal.deck
        self.own_slots = [p for p in range(min(self.pos, DEALT)) if (self.start + p) % 4 == seat]
        self.own_cards = [deck[p] for p in self.own_slots]
        self.is_dealer = self.dealer == seat and self.pos >= DEALT and \
            state.phase is not Phase.DECLARE
        self.own_kitty = list(deck[DEALT:]) if self.is_dealer else None
        self.own_burial = list(state.kitty.buried) if self.is_dealer else None
        self.burial_known = None  # the buried multiset, where every seat knows it
        if not self.is_dealer and self.bury_done and v["kitty_shown"][0] and \
                self.phase_after_bury():
            now = v["kitty_known"][seat].astype(np.int64)
            self.burial_known = now + self.taken.sum(axis=0) - self.kou_kinds.sum(axis=0)

    def phase_after_bury(self) -> bool:
        return self.state.phase in (Phase.KOUJOKER, Phase.TAKEBACK, Phase.PLAY)


# --- the proposal ---------------------------------------------------------------------------

def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    return [c for c in itertools.product(range(total + 1), repeat=parts) if sum(c) == total]


class _Proposal:
    """Draws candidate worlds for a ``_View`` and keeps those that replay to the same view."""

    def __init__(self, view: _View):
        self.view = view
        self.seat_slots = [[p for p in range(DEALT) if (view.start + p) % 4 == s]
                           for s in range(4)]
        self.dealing = view.pos < DEALT or view.dealer is None or \
            view.state.phase is Phase.DECLARE
        self._bj_rules()
        if not self.dealing:
            self._groups()

    # the big-joker slots: pinned where a seat was asked to grab, forbidden before that
    def _bj_rules(self):
        v = self.view
        limit = v.grab_pos if v.grab_pos is not None else v.pos
        if v.game.options["bidding"] == "after_deal":
            limit = 0  # no ask during the deal: the replay checks the after-deal asks
        self.pinned_bj = {}  # seat -> slot holding its first big joker
        self.forbid_below = {}  # seat -> slots before this position hold no big joker
        for s in range(4):
            if s == v.seat:
                continue
            if s in v.asked:
                self.pinned_bj[s] = v.asked[s] - 1
                self.forbid_below[s] = v.asked[s] - 1
            else:
                self.forbid_below[s] = limit

    # --- during the deal: a uniform deal with the big-joker rules, no programme needed -------
    def _deal_phase_deck(self, rng) -> list[int]:
        v = self.view
        deck = [-1] * (DEALT + KITTY)
        pool = np.full(NUM_KINDS, 4, dtype=np.int64)
        for p, c in zip(v.own_slots, v.own_cards):
            deck[p] = c
            pool[c] -= 1
        for s, p in self.pinned_bj.items():
            deck[p] = BIG_JOKER
            pool[BIG_JOKER] -= 1
        free = [p for p in range(DEALT + KITTY) if deck[p] < 0]
        allowed = [p for p in free if not (p < v.pos and p < DEALT and
                                           p < self.forbid_below.get((v.start + p) % 4, 0))]
        bj = int(pool[BIG_JOKER])
        if bj > len(allowed):
            return None
        for p in rng.choice(allowed, size=bj, replace=False).tolist() if bj else []:
            deck[p] = BIG_JOKER
        pool[BIG_JOKER] = 0
        rest = np.repeat(np.arange(NUM_KINDS), pool)
        rng.shuffle(rest)
        slots = [p for p in free if deck[p] < 0]
        for p, c in zip(slots, rest.tolist()):
            deck[p] = c
        return deck

    # --- after the reveal: the hidden hands by a programme over the kinds ---------------------
    def _groups(self):
        v = self.view
        seat, dealer = v.seat, v.dealer
        cls = SUIT_CLASS[v.trump][v.level - 3]
        self.cls = cls
        self.others = [s for s in range(4) if s not in (seat, dealer)]
        # groups: each other non-dealer's hand now, then (seat not the dealer) the dealer's hand
        # now and its hidden burial
        self.group_kind = [("hand", s) for s in self.others]
        if not v.is_dealer:
            self.group_kind.append(("dealer", dealer))
            if v.burial_known is None:
                self.group_kind.append(("burial", dealer))
        caps = []
        for kind, s in self.group_kind:
            caps.append(v.buried_n if kind == "burial" else v.cards_left[s])
        self.caps = caps
        # what each seat was certainly dealt beyond its hand now
        self.fixed = {s: v.played[s] + v.kou_kinds[s] - v.taken[s] for s in self.others}
        no_jokers = set()
        for s in self._kou_turns_over():
            opened, asked, passed, cap = v.kou.get(s, [True, 0, False, None])
            buried = int(v.kou_kinds[s].sum())
            if not asked:
                cap = self._kou_cap(s)
            if not passed and cap is not None and buried < cap:
                no_jokers.add(s)  # it stopped burying jokers with room left: it held no more
        self.no_jokers = no_jokers
        # the dealer's 60 (its deal and the kitty) = played + burial + hand now
        pool = np.full(NUM_KINDS, 4, dtype=np.int64)
        for c in v.own_cards:
            pool[c] -= 1
        if v.is_dealer:
            for c in v.own_kitty:
                pool[c] -= 1
            self.kitty_known = np.bincount(v.own_kitty, minlength=NUM_KINDS)
        else:
            self.kitty_known = self._public_kitty()
            pool -= v.played[dealer]
            if v.burial_known is not None:
                pool -= v.burial_known
        for s in self.others:
            pool -= self.fixed[s]
        self.pool = pool
        if (pool < 0).any() or pool.sum() != sum(caps):
            raise StateError("dabang.sample_worlds: the position's public cards do not add up "
                             "(internal error)")
        self.dealer_fixed = None if v.is_dealer else (
            v.played[dealer] + (v.burial_known if v.burial_known is not None else 0)
            - self.kitty_known - self._pin_vector(dealer))
        # A grabber's trump is the suit of the first suited card it is dealt after grabbing: when
        # the seat did not grab, the programme chooses that card (any natural of the trump suit
        # in the dealer's deal) and the dealer's arrangement puts it in place. Exact only when
        # the dealer had more deal slots after the grab than there are jokers (it then surely
        # got a suited card before the kitty could decide); else the replay checks the trump.
        self.pick = False
        if not v.is_dealer and v.grabbed and v.grab_pos is not None and v.grab_pos < DEALT:
            after = [p for p in self.seat_slots[dealer] if p >= v.grab_pos]
            self.pick = len(after) > 2 * 4  # the eight jokers
        # The dealer's big jokers outside its grab slot lie in the slots it was not asked in:
        # weighed and placed like another seat's when the whole kitty is known, as after a grab
        # (otherwise the kitty's hidden part shares the jokers, and the replay checks them).
        self.dealer_slots = None
        if not v.is_dealer and int(self.kitty_known.sum()) == KITTY:
            free = [p for p in self.seat_slots[dealer] if p != self.pinned_bj.get(dealer)]
            low = self.forbid_below.get(dealer, 0)
            self.dealer_slots = (len(free), sum(1 for p in free if p >= low))
        self._programme()

    def _kou_turns_over(self) -> list[int]:
        """The seats whose 扣王 turn is over, where every seat knows the turns took place."""
        v = self.view
        state = v.state
        if v.is_dealer or v.burial_known is not None:
            buried = v.own_burial if v.is_dealer else self._flat(v.burial_known)
            allowed = kitty_rules.koujoker_allowed(buried) if v.bury_done else False
        else:
            allowed = v.kou_seen
        if not allowed:
            return []
        order = [(v.dealer + i) % 4 for i in (1, 2, 3)]
        if state.phase in (Phase.KOUJOKER, Phase.TAKEBACK):
            order = order[:order.index(state.kitty.kou_seats[0])]
        elif state.phase is not Phase.PLAY:
            return []
        return [s for s in order if s != v.seat]

    def _kou_cap(self, s) -> int:
        """The 扣王 cap at seat ``s``'s turn (at least 1 while the burial is unseen: 扣王 is
        allowed only after a burial holding a non-point card)."""
        v = self.view
        if v.burial_known is None and not v.is_dealer:
            return 1
        pile = np.array(v.burial_known if not v.is_dealer else
                        np.bincount(v.own_burial, minlength=NUM_KINDS))
        for t in ((v.dealer + i) % 4 for i in (1, 2, 3)):
            if t == s:
                break
            pile = pile + v.kou_kinds[t] - v.taken[t]
        return kitty_rules.koujoker_cap(self._flat(pile))

    def _pin_vector(self, s) -> np.ndarray:
        pin = np.zeros(NUM_KINDS, dtype=np.int64)
        if s in self.pinned_bj:
            pin[BIG_JOKER] = 1
        return pin

    def _public_kitty(self) -> np.ndarray:
        """The kitty cards every seat saw: all of it after a grab, the flips otherwise."""
        v = self.view
        counts = v.revealed.copy()
        counts[SMALL_JOKER] += v.flip_jokers[0]
        counts[BIG_JOKER] += v.flip_jokers[1]
        return counts

    def _weight(self, k: int, alloc: tuple, pick: int = 0) -> float:
        v, cls = self.view, self.cls
        w = 1.0
        dealer_count = None
        for (kind, s), a in zip(self.group_kind, alloc):
            if kind in ("hand", "dealer") and any(
                    cls[k] == c and a + int(v.played[s][k] - before[k]) in held
                    for c, held, before in v.duty[s]):
                return 0.0
            if kind == "hand":
                if a and (cls[k] in v.voids[s] or (k >= NUM_NATURAL and s in self.no_jokers)):
                    return 0.0
                free = int(self.fixed[s][k]) + a - (1 if k == BIG_JOKER and
                                                     s in self.pinned_bj else 0)
                if free < 0:
                    return 0.0
                w /= math.factorial(free)
                if k == BIG_JOKER and free:
                    slots = 52 - (1 if s in self.pinned_bj else 0)
                    allowed = sum(1 for p in self.seat_slots[s]
                                  if p >= self.forbid_below.get(s, 0)
                                  and p != self.pinned_bj.get(s))
                    w *= math.comb(allowed, free) / math.comb(slots, free)
            elif kind == "dealer":
                if a and cls[k] in v.voids[s]:
                    return 0.0
                dealer_count = int(self.dealer_fixed[k]) + a
            else:  # the hidden burial: a complete one buried no joker (it would be shown)
                if a and k >= NUM_NATURAL and v.bury_done:
                    return 0.0
                dealer_count += a
        if dealer_count is not None:
            dealer_count -= pick  # the trump-naming card has its own slot
            if dealer_count < 0:
                return 0.0
            w /= math.factorial(dealer_count)
            if k == BIG_JOKER and dealer_count and self.dealer_slots is not None:
                slots, allowed = self.dealer_slots
                w *= math.comb(allowed, dealer_count) / math.comb(slots, dealer_count)
        return w

    def _programme(self):
        """The forward tables of the programme over the kinds. Its state: the cards given so
        far to each group but the last (whose count follows from the pool), and, with
        ``self.pick``, whether the dealer's trump-naming card has been chosen yet."""
        caps, pool = self.caps, self.pool
        groups = len(caps)
        picks = (0, 1) if self.pick else (0,)
        self.table = []  # per kind: [(allocation, pick, weight)]
        for k in range(NUM_KINDS):
            keep = []
            for a in _compositions(int(pool[k]), groups):
                if any(x > c for x, c in zip(a, caps)):
                    continue
                for p in picks:
                    if p and not (k < NUM_NATURAL and k % 4 == self.view.trump):
                        continue
                    w = self._weight(k, a, p)
                    if w > 0:
                        keep.append((a[:-1] + ((p,) if self.pick else ()), w))
            if not keep:
                raise StateError("dabang.sample_worlds: no deal is consistent with what the "
                                 "seat has seen (internal error)")
            self.table.append(keep)
        dims = list(caps[:-1]) + ([1] if self.pick else [])
        self.dims = dims
        shape = tuple(c + 1 for c in dims)
        index_sum = np.zeros(shape, dtype=np.int64)
        for d, c in enumerate(caps[:-1]):
            index_sum = index_sum + np.arange(c + 1).reshape(
                [-1 if i == d else 1 for i in range(len(shape))])
        f = np.zeros(shape)
        f[(0,) * len(shape)] = 1.0
        self.forward = [f]
        cumulative = 0
        for k in range(NUM_KINDS):
            cumulative += int(pool[k])
            new = np.zeros(shape)
            for head, w in self.table[k]:
                src = tuple(slice(0, c + 1 - x) for c, x in zip(dims, head))
                dst = tuple(slice(x, c + 1) for c, x in zip(dims, head))
                new[dst] += w * f[src]
            last = cumulative - index_sum
            new[(last < 0) | (last > caps[-1])] = 0.0
            total = new.sum()
            if total <= 0:
                raise StateError("dabang.sample_worlds: no deal is consistent with what the "
                                 "seat has seen (internal error)")
            f = new / total
            self.forward.append(f)
        if f[tuple(dims)] <= 0:
            raise StateError("dabang.sample_worlds: no deal is consistent with what the seat "
                             "has seen (internal error)")

    def _hands(self, rng) -> tuple[list[np.ndarray], int | None]:
        """One draw of each group's cards (count vectors) and of the dealer's trump-naming
        card (``None`` without ``self.pick``), exactly from the programme."""
        caps, pool, groups = self.caps, self.pool, len(self.caps)
        if not hasattr(self, "heads"):  # the tables as arrays, for a vectorized draw
            self.heads = [np.array([h for h, _ in t], dtype=np.int64).reshape(len(t), -1)
                          for t in self.table]
            self.weights = [np.array([w for _, w in t]) for t in self.table]
        u = np.array(self.dims, dtype=np.int64)
        out = [np.zeros(NUM_KINDS, dtype=np.int64) for _ in caps]
        picked = None
        for k in range(NUM_KINDS - 1, -1, -1):
            heads = self.heads[k]
            if len(heads) == 1:  # one way only (e.g. no unseen copy): no draw
                head = heads[0]
            else:
                prev = u - heads
                ok = (prev >= 0).all(axis=1)
                p = np.zeros(len(prev))
                p[ok] = self.forward[k][tuple(prev[ok].T)] * self.weights[k][ok]
                cum = np.cumsum(p)
                i = int(np.searchsorted(cum, rng.random() * cum[-1], side="right"))
                head = heads[min(i, len(cum) - 1)]
            for g in range(groups - 1):
                out[g][k] = head[g]
            out[-1][k] = int(pool[k]) - int(head[:groups - 1].sum())
            if self.pick and head[-1]:
                picked = k
            u = u - head
        return out, picked

    # --- building the deck ------------------------------------------------------------------
    def _arrange(self, deck, s, cards: np.ndarray, rng) -> bool:
        """Put ``cards`` (counts) in seat ``s``'s deal slots not yet filled: free big jokers in
        the allowed slots, the rest shuffled. False if they do not fit the rules."""
        slots = [p for p in self.seat_slots[s] if deck[p] < 0]
        bj = int(cards[BIG_JOKER])
        allowed = [p for p in slots if p >= self.forbid_below.get(s, 0)]
        if bj > len(allowed):
            return False
        cards = cards.copy()
        if bj:
            for p in rng.choice(allowed, size=bj, replace=False).tolist():
                deck[p] = BIG_JOKER
            cards[BIG_JOKER] = 0
        rest = np.repeat(np.arange(NUM_KINDS), cards)
        rng.shuffle(rest)
        slots = [p for p in slots if deck[p] < 0]
        if len(slots) != len(rest):
            return False
        for p, c in zip(slots, rest.tolist()):
            deck[p] = c
        return True

    def _kitty_order(self, rng, known: np.ndarray, hidden: list[int]) -> list[int] | None:
        """The dealt kitty's order: the public part where the flips or the grab put it, the
        hidden part in the other places at random."""
        v = self.view
        if v.grabbed:
            cards = np.repeat(np.arange(NUM_KINDS), known).tolist() + hidden
            rng.shuffle(cards)
            return cards
        revealed = np.repeat(np.arange(NUM_KINDS), v.revealed).tolist()
        passed = [SMALL_JOKER] * v.flip_jokers[0] + [BIG_JOKER] * v.flip_jokers[1]
        rng.shuffle(passed)
        found = []
        if len(revealed) == 5:  # a joker won the flips; the suited card after it named trump
            choices = [i for i, c in enumerate(revealed)
                       if c < NUM_NATURAL and c % 4 == v.trump]
            if not choices:
                return None
            found = [revealed.pop(choices[rng.integers(len(choices))])]
        best = (v.dealer - v.start) % 4
        order = kitty_rules._FLIP_ORDER
        top = max(order[c] for c in revealed)
        tops = [i for i, c in enumerate(revealed) if order[c] == top]
        first = revealed.pop(tops[rng.integers(len(tops))])
        rng.shuffle(revealed)
        flipped = revealed[:best] + [first] + revealed[best:]
        rest = list(hidden)
        rng.shuffle(rest)
        return flipped + passed + found + rest

    def world(self, rng):
        v = self.view
        seed = int(rng.integers(MAX_SEED))
        if self.dealing:
            deck = self._deal_phase_deck(rng)
            history = v.history[:v.keep]
        else:
            deck = self._post_deal_deck(rng)
            if deck is None:
                return None
            deck, history = deck
        if deck is None:
            return None
        return self._replayed(seed, deck, history)

    def _post_deal_deck(self, rng):
        v = self.view
        hands, picked = self._hands(rng)
        deck = [-1] * (DEALT + KITTY)
        for p, c in zip(v.own_slots, v.own_cards):
            deck[p] = c
        for s, p in self.pinned_bj.items():
            deck[p] = BIG_JOKER
        for (kind, s), cards in zip(self.group_kind, hands):
            if kind == "hand":
                dealt = self.fixed[s] + cards - self._pin_vector(s)
                if not self._arrange(deck, s, dealt, rng):
                    return None
        history = list(v.history[:v.keep])
        if v.is_dealer:
            public = self._public_kitty()
            kitty = self._kitty_order(rng, public, self._flat(self.kitty_known - public))
        else:
            dealer = v.dealer
            g = {kind: cards for (kind, s), cards in zip(self.group_kind, hands)}
            burial = v.burial_known if v.burial_known is not None else g["burial"]
            sixty = v.played[dealer] + burial + g["dealer"]  # its deal and the kitty
            free = sixty - self.kitty_known - self._pin_vector(dealer)
            hidden_n = KITTY - int(self.kitty_known.sum())
            copies = self._flat(free)
            chosen = rng.choice(len(copies), size=hidden_n, replace=False) if hidden_n else []
            hidden = [copies[i] for i in chosen]
            kitty = self._kitty_order(rng, self.kitty_known, hidden)
            if kitty is None:
                return None
            dealt = free - np.bincount(hidden, minlength=NUM_KINDS).astype(np.int64)
            if not self._arrange_dealer(deck, dealer, dealt, rng, picked):
                return None
            order = ([BIG_JOKER] * int(burial[BIG_JOKER]) + [SMALL_JOKER] *
                     int(burial[SMALL_JOKER]) + self._flat(burial[:NUM_NATURAL]))
            for i, c in zip(v.bury_steps, order):
                history[i] = cat.BURY + c
        if kitty is None:
            return None
        deck[DEALT:] = kitty
        return deck, history

    def _arrange_dealer(self, deck, s, cards, rng, picked=None) -> bool:
        """The dealer's deal slots, shuffled; its free big jokers must be where it could hold
        them unasked (else the proposal is dropped: rejection). With ``picked`` (see
        ``self.pick``), that card goes to the first slot after the grab that holds no joker:
        the jokers are placed first, uniformly, and the proposal is kept with probability
        ``(slots - 8) / naturals`` so that each deal keeps its uniform weight."""
        slots = [p for p in self.seat_slots[s] if deck[p] < 0]
        if int(cards.sum()) != len(slots):
            return False
        low = self.forbid_below.get(s, 0)
        if picked is not None:
            jokers = [SMALL_JOKER] * int(cards[SMALL_JOKER]) + [BIG_JOKER] * int(cards[BIG_JOKER])
            naturals = len(slots) - len(jokers)
            if rng.random() * naturals >= len(slots) - 8:
                return False
            cards = cards.copy()
            cards[SMALL_JOKER] = cards[BIG_JOKER] = 0
            bj = jokers.count(BIG_JOKER)
            allowed = [p for p in slots if p >= low]
            if bj > len(allowed):
                return False
            for p in rng.choice(allowed, size=bj, replace=False).tolist():
                deck[p] = BIG_JOKER  # (weighed for in the programme: ``dealer_slots``)
            left = [p for p in slots if deck[p] < 0]
            small = len(jokers) - bj
            for p in rng.choice(left, size=small, replace=False).tolist() if small else []:
                deck[p] = SMALL_JOKER
            first = next((p for p in slots if p >= self.view.grab_pos and deck[p] < 0), None)
            if first is None or cards[picked] <= 0:
                return False
            deck[first] = picked
            cards[picked] -= 1
            slots = [p for p in slots if deck[p] < 0]
        elif self.dealer_slots is not None and cards[BIG_JOKER]:  # (weighed for in the programme)
            allowed = [p for p in slots if p >= low]
            bj = int(cards[BIG_JOKER])
            if bj > len(allowed):
                return False
            for p in rng.choice(allowed, size=bj, replace=False).tolist():
                deck[p] = BIG_JOKER
            cards = cards.copy()
            cards[BIG_JOKER] = 0
            slots = [p for p in slots if deck[p] < 0]
        rest = np.repeat(np.arange(NUM_KINDS), cards)
        rng.shuffle(rest)
        for p, c in zip(slots, rest.tolist()):
            deck[p] = c
        return not any(deck[p] == BIG_JOKER and p < low for p in self.seat_slots[s]
                       if p != self.pinned_bj.get(s))

    @staticmethod
    def _flat(counts) -> list[int]:
        return np.repeat(np.arange(len(counts)), np.asarray(counts)).tolist()

    def _replayed(self, seed, deck, history):
        """The world, if it replays to exactly what the seat saw; else ``None``."""
        v = self.view
        game, seat, obs = v.game, v.seat, v.obs
        try:
            world = game.new_state(seed, deck=deck, first_seat=v.start)
        except ValueError:
            return None
        if not np.array_equal(world.observation(seat), obs[0]):
            return None
        for i, action in enumerate(history):
            try:
                world.apply(action)
            except IllegalActionError:
                return None
            if i < v.first_play and not np.array_equal(world.observation(seat), obs[i + 1]):
                return None
        if not np.array_equal(world.observation(seat), obs[-1]):
            return None
        if v.to_act and not np.array_equal(world.legal_mask(), v.mask):
            return None
        return world
