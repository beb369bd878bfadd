"""The proposals during the deal (a hand still being dealt, or declared on): a uniform deal
that already meets the rules the asks showed, with no programme over the kinds needed.

A first hand: the big jokers go where the grab asks allow (``_bj_rules``: pinned at the slot
where a seat was asked to grab, none in a seat's slots before that), the rest is shuffled. A
later hand: the level cards and jokers each other seat was dealt so far are drawn first, in
exact proportion to the number of deals whose asks match (``_deal_allocations``), put where
the asks say (``slots``' ``_special_order``), and the rest shuffled into the free slots.

``DealDecks`` is one of the parts of ``proposal.Proposal``: it reads ``self.view``,
``self.seat_slots``, ``self.special`` and the slot programme's tables (``SlotOrders``); it sets
``pinned_bj`` and ``forbid_below``, which the programme and the arrangement after the deal read
too."""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS
from cardenv.core.errors import StateError
from cardenv.dabang.phases.deal import DEALT
from cardenv.dabang.worlds.common import KITTY, LOG_FACT


def _shifted(table, held, strides, top, minus=None):
    """Per state ``x`` of a counts lattice (``held``: the counts of each state), the value of
    ``table`` at ``top - x`` (``top`` a counts vector, or one per state), 0 where that is
    negative; with ``minus``, at ``x - minus`` instead (``top`` unused there)."""
    diff = (held - minus) if minus is not None else (top - held)
    ok = (diff >= 0).all(axis=1)
    out = np.zeros(len(held))
    out[ok] = table[diff[ok] @ strides]
    return out


class DealDecks:
    """The deal-phase decks of a proposal, and the big-joker rules of the first hand's grab."""

    def _bj_rules(self):
        """The first hand's big-joker slots: pinned where a seat was asked to grab, forbidden
        before that (all of a seat's slots where it was passed over after the deal)."""
        v = self.view
        limit = v.grab_pos if v.grab_pos is not None else v.pos
        if v.game.options["bidding"] == "after_deal":
            limit = 0  # no ask during the deal: the replay checks the after-deal asks
        self.pinned_bj = {}  # seat -> slot holding its first big joker
        self.forbid_below = {}  # seat -> slots before this position hold no big joker
        for s in range(4 if v.first else 0):  # (a later hand has no grab)
            if s == v.seat:
                continue
            if s in v.asked:
                self.pinned_bj[s] = v.asked[s] - 1
                self.forbid_below[s] = v.asked[s] - 1
            else:
                self.forbid_below[s] = DEALT if s in v.no_bj else limit

    def _pin_vector(self, s) -> np.ndarray:
        """The cards pinned in seat ``s``'s deal slots (a big joker where it was asked)."""
        pin = np.zeros(NUM_KINDS, dtype=np.int64)
        if s in self.pinned_bj:
            pin[BIG_JOKER] = 1
        return pin

    # --- a first hand: a uniform deal with the big-joker rules ---------------------------------
    def _deal_phase_deck(self, rng) -> list[int] | None:
        """A deck for a first hand still being dealt: the seat's own cards where it got them,
        the pinned big jokers, the other big jokers in the slots allowed, the rest shuffled."""
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

    # --- during a later hand's deal: the level cards and jokers first -------------------------
    def _later_deal_deck(self, rng) -> list[int] | None:
        """A deck for a later hand still being dealt (or declared on): the special cards (level
        cards, jokers) each other seat was dealt so far are drawn first, exactly in proportion
        to the number of deals whose asks match (``_deal_allocations``), and put where the asks
        say (``_special_order``); the rest of the unseen cards are shuffled into the free
        slots, the special ones only into the slots not dealt yet."""
        v = self.view
        if self._joint is None:
            self._joint = self._deal_allocations()
        seats, slot_lists, tables, held, strides, rest_w, unseen = self._joint
        v1, v2, v3, w12 = tables
        # the third seat's count, then the first two's together, then the first's
        g = self._pick(rng, v3 * self._joint_g)
        t = self._pick(rng, w12 * _shifted(rest_w, held, strides, unseen - held[g]))
        a = self._pick(rng, v1 * _shifted(v2, held, strides, held[t]))
        chosen = [held[a], held[t] - held[a], held[g]]
        deck = [-1] * (DEALT + KITTY)
        pool = np.full(NUM_KINDS, 4, dtype=np.int64)
        for p, c in zip(v.own_slots, v.own_cards):
            deck[p] = c
            pool[c] -= 1
        spec = self.special
        for s, slots, counts in zip(seats, slot_lists, chosen):
            order = self._special_order(s, slots, counts, rng)
            if order is None:
                return None
            for p, j in zip(slots, order):
                if j >= 0:
                    deck[p] = spec[j]
        rest = np.repeat(spec, unseen - held[t] - held[g]).tolist()
        rng.shuffle(rest)
        undealt = list(range(v.pos, DEALT + KITTY))
        for p, c in zip(rng.choice(undealt, size=len(rest), replace=False).tolist(), rest):
            deck[p] = c
        pool[spec] = 0
        others = np.repeat(np.arange(NUM_KINDS), pool)
        rng.shuffle(others)
        it = iter(others.tolist())
        return [c if c >= 0 else next(it) for c in deck]

    @staticmethod
    def _pick(rng, weights) -> int:
        """An index drawn in proportion to ``weights``."""
        cum = np.cumsum(weights)
        return min(int(np.searchsorted(cum, rng.random() * cum[-1], side="right")),
                   len(cum) - 1)

    def _deal_allocations(self):
        """The tables to share the unseen special cards among the other seats' dealt slots and
        the slots not dealt yet, in proportion to the number of deals: per seat the number of
        orders that ask it as it was asked (the slot programme's final table, over its counts),
        and the ways to put the rest in the slots not dealt yet."""
        v = self.view
        unseen = self._unseen_special()
        seats = [s for s in range(4) if s != v.seat]
        slot_lists, ways = [], []
        for s in seats:
            slots = [p for p in self.seat_slots[s] if p < v.pos]
            slot_lists.append(slots)
            _, held, strides, _, final, _ = self._slot_tables(s, slots)
            ways.append(final)
        undealt = DEALT + KITTY - v.pos
        placed = held.sum(axis=1)
        log_rest = LOG_FACT[undealt] - LOG_FACT[held].sum(axis=1) - \
            LOG_FACT[np.maximum(undealt - placed, 0)]
        rest_w = np.where(placed <= undealt, np.exp(log_rest - log_rest.max()), 0.0)
        v1, v2, v3 = ways
        w12 = np.zeros(len(held))
        for a in np.flatnonzero(v1).tolist():
            w12 += v1[a] * _shifted(v2, held, strides, held, minus=held[a])
        # per count of the third seat: the weight of everything else
        self._joint_g = np.zeros(len(held))
        for g in np.flatnonzero(v3).tolist():
            self._joint_g[g] = (w12 * _shifted(rest_w, held, strides, unseen - held[g])).sum()
        if not (v3 * self._joint_g).any():
            raise StateError("dabang.sample_worlds: no deal is consistent with what the seat "
                             "has seen (internal error)")
        return seats, slot_lists, (v1, v2, v3, w12), held, strides, rest_w, unseen
