"""The hidden hands after the deal, by a dynamic programme over the 54 kinds.

Seat by seat, ``hand now + cards played + jokers buried by 扣王 - cards taken back`` is what the
seat was dealt, and the number of deals that give a seat the multiset ``D`` is proportional to
``1 / prod(D_k!)``. The unseen cards are shared among groups (each other non-dealer's hand, the
dealer's hand, its hidden burial, the kitty's hidden part while it lies untouched; then a hidden
tribute and return as extra groups: ``_groups``); the programme's state is the cards given so
far to each group but the largest (whose count follows from the pool), and each kind's share
is weighed by the deal count and the constraints play showed (``_weight``: voids, the 死棒
duty, 扣王 and the declaration bounds of ``_bounds`` and ``_kou_bounds``). ``_programme``
builds the forward tables; ``_hands`` draws from them backwards, a batch at a time, exactly.

``HiddenHands`` is one of the parts of ``proposal.Proposal``: it reads ``self.view``,
``self.seat_slots``, the big-joker rules (``deal.DealDecks``) and, in later hands, the slot
programme's shares (``slots.SlotOrders``); it sets the groups, pool, bounds and tables the
arrangement (``arrange.Arrangement``) reads."""

from __future__ import annotations

import itertools
import math

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.core.errors import StateError
from cardenv.dabang import kitty as kitty_rules
from cardenv.dabang.phase import Phase
from cardenv.dabang.phases.deal import DEALT
from cardenv.dabang.strength import SUIT_CLASS, strength_row
from cardenv.dabang.worlds.common import KITTY, flat


def _tribute_order(trump: int, level: int) -> list[int]:
    """The kinds in the order a tribute takes them (``kitty.tribute_cards``: strongest
    non-point first, ties by suit ♠ ♥ ♣ ♦), then the point kinds (never given)."""
    strength = strength_row(trump, level)
    kinds = sorted((k for k in range(NUM_KINDS) if not kitty_rules.is_point(k)),
                   key=lambda k: (-int(strength[k]), -(k % 4) if k < NUM_NATURAL else 0))
    return kinds + [k for k in range(NUM_KINDS) if kitty_rules.is_point(k)]


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    return [c for c in itertools.product(range(total + 1), repeat=parts) if sum(c) == total]


class HiddenHands:
    """The groups that share the unseen cards after the deal, their bounds, and the programme
    over the kinds that draws them."""

    # --- the groups that share the unseen cards --------------------------------------------------
    def _groups(self):
        """Everything the draws after the deal need, built once per position: the groups and
        their sizes, what each seat was certainly dealt, the pool of unseen cards, the bounds,
        the dealer's trump-naming card and big-joker slots, and the programme's tables."""
        self._group_kinds()
        self._dealt_beyond_hands()
        self._unseen_pool()
        self._bounds()
        self._dealer_rules()
        self._programme()

    def _group_kinds(self):
        """The groups that share the unseen cards (``self.group_kind``: (kind, seat); the first
        ``self.parts`` share the pool, the rest are extra groups counted in those already) and
        their sizes (``self.caps``)."""
        v = self.view
        seat, dealer = v.seat, v.dealer
        self.cls = SUIT_CLASS[v.trump][v.level - 3]
        self.others = [s for s in range(4) if s not in (seat, dealer)]
        zero = np.zeros(NUM_KINDS, dtype=np.int64)
        # the tribute and its return: known to the giver and the dealer, drawn for the others
        self.tribute = v.tribute_known if v.tribute_known is not None else zero
        self.returned = v.returned_known if v.returned_known is not None else zero
        # groups that share the unseen cards: each other non-dealer's hand now, then (seat not
        # the dealer) the dealer's hand now and its hidden burial, and the kitty's hidden part
        # while it lies untouched; then the extra groups, cards counted in those already: a
        # tribute and a return ``seat`` did not see
        self.group_kind = [("hand", s) for s in self.others]
        if not v.is_dealer:
            self.group_kind.append(("dealer", dealer))
            if v.burial_known is None and not v.kitty_lying:
                self.group_kind.append(("burial", dealer))
        self.kitty_known = np.bincount(v.own_kitty, minlength=NUM_KINDS) \
            if v.own_kitty is not None else v.public_kitty()
        kitty_hidden = KITTY - int(self.kitty_known.sum())
        if v.kitty_lying and kitty_hidden:
            self.group_kind.append(("kitty", None))
        sizes = {"burial": v.buried_n, "kitty": kitty_hidden}
        # the largest group last: its count follows from the others', so the programme's
        # state is smallest that way
        self.group_kind.sort(key=lambda g: sizes[g[0]] if g[0] in sizes else v.cards_left[g[1]])
        self.parts = len(self.group_kind)
        if v.tribute_n and v.tribute_known is None:
            self.group_kind.append(("tribute", v.giver))
        if v.returned_n and v.returned_known is None:
            self.group_kind.append(("returned", v.giver))
        sizes.update(tribute=v.tribute_n, returned=v.returned_n)
        self.caps = [sizes[kind] if kind in sizes else v.cards_left[s]
                     for kind, s in self.group_kind]

    def _dealt_beyond_hands(self):
        """What each other non-dealer was certainly dealt beyond its hand now (``self.fixed``),
        and the seats whose 扣王 turn says they hold no more jokers (``self.no_jokers``)."""
        v = self.view
        self.fixed = {s: v.played[s] + v.kou_kinds[s] - v.taken[s] for s in self.others}
        if v.giver in self.fixed:
            self.fixed[v.giver] = self.fixed[v.giver] + self.tribute - self.returned
        no_jokers = set()
        for s in self._kou_turns_over():
            opened, asked, passed, cap = v.kou.get(s, [True, 0, False, None])
            buried = int(v.kou_kinds[s].sum())
            if not asked:
                cap = self._kou_cap(s)
            if not passed and cap is not None and buried < cap:
                no_jokers.add(s)  # it stopped burying jokers with room left: it held no more
        self.no_jokers = no_jokers

    def _unseen_pool(self):
        """The unseen cards the sharing groups hold (``self.pool``, counts), and what the
        dealer's deal holds for certain beyond its hand now (``self.dealer_fixed``)."""
        v = self.view
        seat, dealer = v.seat, v.dealer
        tribute, returned = self.tribute, self.returned
        # the dealer's 60 (its deal and the kitty) = played + burial + hand now - tribute
        # + returned
        pool = np.full(NUM_KINDS, 4, dtype=np.int64)
        for c in v.own_cards:
            pool[c] -= 1
        if v.is_dealer:
            pool -= self.kitty_known
        else:
            pool -= v.played[dealer]
            if v.burial_known is not None:
                pool -= v.burial_known
            if v.kitty_lying:
                pool -= self.kitty_known
            if seat == v.giver:
                pool += tribute - returned
        for s in self.others:
            pool -= self.fixed[s]
        self.pool = pool
        if (pool < 0).any() or pool.sum() != sum(self.caps[:self.parts]):
            raise StateError("dabang.sample_worlds: the position's public cards do not add up "
                             "(internal error)")
        self.dealer_fixed = None if v.is_dealer else (
            v.played[dealer] + (v.burial_known if v.burial_known is not None else 0)
            - (0 if v.kitty_lying else self.kitty_known) - self._pin_vector(dealer)
            - tribute + returned)

    def _dealer_rules(self):
        """The dealer's trump-naming card (``self.pick``) and big-joker slots
        (``self.dealer_slots``), where the programme chooses and weighs them."""
        v = self.view
        dealer = v.dealer
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
        if v.first and not v.is_dealer and int(self.kitty_known.sum()) == KITTY:
            free = [p for p in self.seat_slots[dealer] if p != self.pinned_bj.get(dealer)]
            low = self.forbid_below.get(dealer, 0)
            self.dealer_slots = (len(free), sum(1 for p in free if p >= low))

    # --- bounds on a seat's dealt counts ---------------------------------------------------------
    def _bounds(self):
        """Later hands: bounds on each seat's dealt count of a kind, and the tribute's order.

        A seat dealt at least the level cards and jokers it showed in declarations; a seat
        passed over when the deal ended could not beat the standing declaration (no more level
        cards of a suit than its rank, fewer than four of a joker). The tribute is the giver's
        strongest non-point cards: it kept none stronger than the weakest it gave."""
        v = self.view
        self.lo = np.zeros((4, NUM_KINDS), dtype=np.int64)
        self.hi = np.full((4, NUM_KINDS), 4, dtype=np.int64)
        self.order = list(range(NUM_KINDS))
        self.trank = None
        for s in v.has_bj - {v.seat}:  # asked after the deal: it could grab
            self.lo[s, BIG_JOKER] = 1
        for s in v.no_bj - {v.seat}:
            self.hi[s, BIG_JOKER] = 0
        self._kou_bounds()
        if v.first:
            return
        for s in range(4):
            self.lo[s, self.special] = v.shown[s]
            for pos, floor, asked in v.checks[s]:
                if pos == DEALT and not asked:
                    if floor < 4:
                        self.hi[s, self.special[:4]] = np.minimum(
                            self.hi[s, self.special[:4]], floor)
                    if floor < 5:
                        self.hi[s, SMALL_JOKER] = min(self.hi[s, SMALL_JOKER], 3)
                    if floor < 6:
                        self.hi[s, BIG_JOKER] = min(self.hi[s, BIG_JOKER], 3)
        # the counts of special cards an order of the seat's deal can give it (its asks)
        for s in range(4):
            if s == v.seat:
                continue
            tables = self._slot_tables(s, self.seat_slots[s])
            held, final = tables[1], tables[4]
            fits = held[final > 0]
            if len(fits):
                self.lo[s, self.special] = np.maximum(self.lo[s, self.special], fits.min(axis=0))
                self.hi[s, self.special] = np.minimum(self.hi[s, self.special], fits.max(axis=0))
        if v.tribute_n:
            order = _tribute_order(v.trump, v.level)
            self.trank = {k: i for i, k in enumerate(order)}
            if v.tribute_known is None:
                self.order = order  # the programme fills the tribute strongest first
            self.t_last = max(self.trank[k] for k in np.flatnonzero(self.tribute).tolist()) \
                if v.tribute_known is not None else None

    def _kou_bounds(self):
        """What each seat's 扣王 turn says of its dealt jokers. A seat buries its big jokers
        before any small one (``burial.legal_koujoker``): one that buried a small joker held
        no more big jokers than it buried. A seat asked holds a joker, so one that passed still
        held one: a small one, when it held no big one. What it held at its turn is its deal
        less the tribute it gave plus the cards given back: for the giver, only where ``seat``
        saw them (else left to the replay)."""
        v = self.view
        for s, (_, asked, passed, _) in v.kou.items():
            if s in (v.seat, v.dealer):
                continue
            shift = np.zeros(NUM_KINDS, dtype=np.int64)  # dealt - held at its turn
            if s == v.giver and v.tribute_n:
                if v.tribute_known is None:
                    continue
                shift = v.tribute_known - v.returned_known
            buried = v.kou_kinds[s] + shift
            if v.kou_kinds[s, SMALL_JOKER]:
                self.hi[s, BIG_JOKER] = min(self.hi[s, BIG_JOKER], buried[BIG_JOKER])
            if asked and passed and self.hi[s, BIG_JOKER] <= buried[BIG_JOKER]:
                self.lo[s, SMALL_JOKER] = max(self.lo[s, SMALL_JOKER],
                                              buried[SMALL_JOKER] + 1)

    def _kou_turns_over(self) -> list[int]:
        """The seats whose 扣王 turn is over, where every seat knows the turns took place."""
        v = self.view
        state = v.state
        if v.gangguo:  # the kitty was never taken up: nothing buried, no 扣王
            return []
        if v.is_dealer or v.burial_known is not None:
            buried = v.own_burial if v.is_dealer else flat(v.burial_known)
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
        return kitty_rules.koujoker_cap(flat(pile))

    # --- the programme over the kinds ------------------------------------------------------------
    def _weight(self, k: int, alloc: tuple, pick: int = 0) -> tuple[float, bool]:
        """The weight of giving the unseen copies of kind ``k`` to the groups as ``alloc`` says
        (and, with ``pick``, the trump-naming card), and whether it needs the hidden tribute
        to be complete once ``k`` is given (the giver kept a copy of ``k``)."""
        v, cls = self.view, self.cls
        got = dict(zip(self.group_kind, alloc))
        t = got.get(("tribute", v.giver), 0)
        r = got.get(("returned", v.giver), 0)
        if t and kitty_rules.is_point(k):
            return 0.0, False  # the tribute is non-point cards
        w, full = 1.0, False
        dealer_count = None
        if ("dealer", v.dealer) in got:
            dealer_count = int(self.dealer_fixed[k]) + got["dealer", v.dealer] - t + r \
                + got.get(("burial", v.dealer), 0)
        for (kind, s), a in zip(self.group_kind, alloc):
            if kind in ("hand", "dealer") and any(
                    cls[k] == c and k != other and a + int(v.played[s][k] - before[k]) in held
                    for c, held, before, other in v.duty[s]):
                return 0.0, False
            if kind == "hand":
                if a and (cls[k] in v.voids[s] or (k >= NUM_NATURAL and s in self.no_jokers)):
                    return 0.0, False
                dealt = int(self.fixed[s][k]) + a + (t - r if s == v.giver else 0)
                if not self.lo[s, k] <= dealt <= self.hi[s, k]:
                    return 0.0, False
                if s == v.giver and self.trank is not None and not kitty_rules.is_point(k) \
                        and dealt - t - int(self.tribute[k]) > 0:
                    # the giver kept a copy of k: the tribute took none weaker, and it was full
                    if v.tribute_n < v.blood:
                        return 0.0, False
                    if v.tribute_known is None:
                        full = True
                    elif self.trank[k] < self.t_last:
                        return 0.0, False
                free = dealt - (1 if k == BIG_JOKER and s in self.pinned_bj else 0)
                if free < 0:
                    return 0.0, False
                w /= math.factorial(free)
                if k == BIG_JOKER and free:
                    slots = 52 - (1 if s in self.pinned_bj else 0)
                    allowed = sum(1 for p in self.seat_slots[s]
                                  if p >= self.forbid_below.get(s, 0)
                                  and p != self.pinned_bj.get(s))
                    w *= math.comb(allowed, free) / math.comb(slots, free)
            elif kind == "dealer":
                if a and cls[k] in v.voids[s]:
                    return 0.0, False
            elif kind == "burial":  # a complete hidden burial buried no joker (it would show)
                if a and k >= NUM_NATURAL and v.bury_done:
                    return 0.0, False
            elif kind == "kitty":  # the kitty's hidden part, lying untouched
                w /= math.factorial(a)
        if dealer_count is not None:
            dealer_count -= pick  # the trump-naming card has its own slot
            if dealer_count < 0 or dealer_count < self.lo[v.dealer, k]:
                return 0.0, False
            # (the count holds the kitty's hidden part too unless all of it is known)
            if (v.kitty_lying or int(self.kitty_known.sum()) == KITTY) and \
                    dealer_count > self.hi[v.dealer, k]:
                return 0.0, False
            w /= math.factorial(dealer_count)
            if k == BIG_JOKER and dealer_count and self.dealer_slots is not None:
                slots, allowed = self.dealer_slots
                w *= math.comb(allowed, dealer_count) / math.comb(slots, dealer_count)
        return w, full

    def _programme(self):
        """The forward tables of the programme over the kinds (in ``self.order``). Its state:
        the cards given so far to each sharing group but the last (whose count follows from the
        pool), to each extra group, and, with ``self.pick``, whether the dealer's trump-naming
        card has been chosen yet."""
        caps, pool, parts = self.caps, self.pool, self.parts
        picks = (0, 1) if self.pick else (0,)
        extra = [range(min(4, c) + 1) for c in caps[parts:]]
        self.table, self.fulls = [], []  # per kind in order: [(head, weight)], [needs full]
        for k in self.order:
            keep, fulls = [], []
            for a in _compositions(int(pool[k]), parts):
                if any(x > c for x, c in zip(a, caps)):
                    continue
                for e in itertools.product(*extra):
                    for p in picks:
                        if p and not (k < NUM_NATURAL and k % 4 == self.view.trump):
                            continue
                        w, full = self._weight(k, a + e, p)
                        if w > 0:
                            keep.append((a[:-1] + e + ((p,) if self.pick else ()), w))
                            fulls.append(full)
            if not keep:
                raise StateError("dabang.sample_worlds: no deal is consistent with what the "
                                 "seat has seen (internal error)")
            self.table.append(keep)
            self.fulls.append(fulls)
        dims = list(caps[:parts - 1]) + list(caps[parts:]) + ([1] if self.pick else [])
        self.dims = dims
        # the hidden tribute's dimension (its groups come first among the extras)
        self.t_dim = parts - 1 if ("tribute", self.view.giver) in self.group_kind[parts:] \
            else None
        shape = tuple(c + 1 for c in dims)
        index_sum = np.zeros(shape, dtype=np.int64)
        for d, c in enumerate(caps[:parts - 1]):
            index_sum = index_sum + np.arange(c + 1).reshape(
                [-1 if i == d else 1 for i in range(len(shape))])
        f = np.zeros(shape)
        f[(0,) * len(shape)] = 1.0
        self.forward = [f]
        cumulative = 0
        for i, k in enumerate(self.order):
            cumulative += int(pool[k])
            new = np.zeros(shape)
            for (head, w), full in zip(self.table[i], self.fulls[i]):
                src = [slice(0, c + 1 - x) for c, x in zip(dims, head)]
                dst = [slice(x, c + 1) for c, x in zip(dims, head)]
                if full:  # only into states where the tribute is complete
                    j, cap = self.t_dim, dims[self.t_dim]
                    src[j], dst[j] = slice(cap - head[j], cap - head[j] + 1), slice(cap, cap + 1)
                new[tuple(dst)] += w * f[tuple(src)]
            last = cumulative - index_sum
            new[(last < 0) | (last > caps[parts - 1])] = 0.0
            total = new.sum()
            if total <= 0:
                raise StateError("dabang.sample_worlds: no deal is consistent with what the "
                                 "seat has seen (internal error)")
            f = new / total
            self.forward.append(f)
        if f[tuple(dims)] <= 0:
            raise StateError("dabang.sample_worlds: no deal is consistent with what the seat "
                             "has seen (internal error)")

    # --- drawing the hidden hands ----------------------------------------------------------------
    def _hands(self, rng) -> tuple[list[np.ndarray], int | None]:
        """One draw of each group's cards (count vectors) and of the dealer's trump-naming
        card (``None`` without ``self.pick``), exactly from the programme. Drawn ``self.batch``
        at a time (``_draw_hands``, vectorized over the draws), kept for the next calls."""
        if not self.drawn:
            self.drawn = self._draw_hands(rng, self.batch)
            if not self.view.first and 4 * len(self.drawn) < self.batch:
                self.batch = min(4 * self.batch, 1024)  # (few kept: draw more at a time)
            if not self.drawn:  # (a later hand's batch, none kept: ``_keep_orders``)
                return None
        return self.drawn.pop()

    def _draw_hands(self, rng, m: int) -> list[tuple[list[np.ndarray], int | None]]:
        caps, pool, parts = self.caps, self.pool, self.parts
        if not hasattr(self, "heads"):  # the tables as arrays, for a vectorized draw
            self.heads = [np.array([h for h, _ in t], dtype=np.int64).reshape(len(t), -1)
                          for t in self.table]
            self.weights = [np.array([w for _, w in t]) for t in self.table]
            self.full_rows = [np.array(f, dtype=bool) for f in self.fulls]
        dims = np.array(self.dims, dtype=np.int64)
        u = np.tile(dims, (m, 1))
        width = len(dims)
        out = np.zeros((m, len(caps), NUM_KINDS), dtype=np.int64)
        picked = np.full(m, -1)
        for i in range(len(self.order) - 1, -1, -1):
            k = self.order[i]
            heads = self.heads[i]
            if len(heads) == 1:  # one way only (e.g. no unseen copy): no draw
                head = np.tile(heads[0], (m, 1))
            else:
                prev = u[:, None, :] - heads[None, :, :]
                ok = (prev >= 0).all(axis=2)
                if self.t_dim is not None:
                    ok &= ~(self.full_rows[i][None, :] &
                            (u[:, self.t_dim] != dims[self.t_dim])[:, None])
                p = np.zeros(ok.shape)
                rows, cols = np.nonzero(ok)
                p[rows, cols] = self.forward[i][tuple(prev[rows, cols].T)] * \
                    self.weights[i][cols]
                cum = np.cumsum(p, axis=1)
                r = rng.random(m) * cum[:, -1]
                j = np.minimum((cum <= r[:, None]).sum(axis=1), len(heads) - 1)
                head = heads[j]
            if width:
                out[:, :parts - 1, k] = head[:, :parts - 1]
                out[:, parts:, k] = head[:, parts - 1:parts - 1 + len(caps) - parts]
            out[:, parts - 1, k] = int(pool[k]) - head[:, :parts - 1].sum(axis=1)
            if self.pick:
                picked[head[:, -1] > 0] = k
            u = u - head
        keep = np.ones(m, dtype=bool) if self.view.first else self._keep_orders(out, rng)
        return [(list(out[w]), None if picked[w] < 0 else int(picked[w]))
                for w in range(m - 1, -1, -1) if keep[w]]

    def _keep_orders(self, out: np.ndarray, rng) -> np.ndarray:
        """Per draw of a later hand's groups (``out``: draws x groups x kinds), whether it is
        kept: with probability the product over the other non-dealer seats of ``share / top``
        for the level cards and jokers the draw deals the seat (``_order_share``: the weight
        the programme over the kinds leaves out). The dealer's is weighed in
        ``_arrange_later``, once its deal is known."""
        spec = self.special
        col = {group: i for i, group in enumerate(self.group_kind)}
        accept = np.ones(len(out))
        for i, (kind, s) in enumerate(self.group_kind):
            if kind != "hand":
                continue
            dealt = self.fixed[s][spec] + out[:, i, spec]
            if ("tribute", s) in col:
                dealt = dealt + out[:, col["tribute", s], spec]
            if ("returned", s) in col:
                dealt = dealt - out[:, col["returned", s], spec]
            share, top = self._order_share(s, self.seat_slots[s])
            held, strides = self._slot_tables(s, self.seat_slots[s])[1:3]
            ok = (dealt >= 0).all(axis=1) & (dealt <= held[-1]).all(axis=1)
            weight = np.zeros(len(out))
            weight[ok] = share[dealt[ok] @ strides] / top
            accept *= weight
        return rng.random(len(out)) < accept
