"""The slot programme of a later hand: where a seat's level cards and jokers (its special
cards, ``common.special_kinds``) lie in its deal slots, given the declaration asks.

The deal asks a seat when a card just dealt to it enables a new declaration, and at each look
(``view._declare_checks``) it could beat the standing declaration exactly when it was asked. A
programme over the seat's slots, whose state is the special cards dealt so far, counts the
orders that give the seat its asks (``_forward_slots``) and draws one uniformly
(``_special_order``). The share of fitting orders among all the orders of a count of special
cards (``_raw_share``, ``_order_share``) is the weight the programme over the kinds leaves out
(it counts every order of a dealt multiset): the sampler keeps a draw with that weight.

``SlotOrders`` is one of the parts of ``proposal.Proposal``: it reads ``self.view``,
``self.special`` and keeps its tables per (seat, slots) in ``self._orders``, ``self._raw``
and ``self._shares``."""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import NUM_KINDS
from cardenv.dabang.worlds.common import LOG_FACT


def _could_declare(counts: np.ndarray, floor: int) -> np.ndarray:
    """Per row of ``counts`` (columns: the four level cards, the small and big joker), whether
    that holding makes a declaration above rank ``floor`` (``declare.legal``)."""
    out = (counts[:, :4] > floor).any(axis=1) if floor < 4 else np.zeros(len(counts), bool)
    if floor < 5:
        out |= counts[:, 4] == 4
    if floor < 6:
        out |= counts[:, 5] == 4
    return out


def _look(counts: np.ndarray, check) -> np.ndarray:
    """Per row of ``counts``, whether it meets a check: ``(pos, floor, asked, None)``: could
    beat rank ``floor`` exactly when asked; ``(pos, column, at_least, True)``: a declaration
    showed that many cards of that column."""
    if check[3]:
        return counts[:, check[1]] >= check[2]
    return _could_declare(counts, check[1]) == check[2]


def _enables(counts: np.ndarray, j: int, floor: int) -> np.ndarray:
    """Per row, whether one more card of special column ``j`` gives a new declaration."""
    new = counts[:, j] + 1
    if j < 4:
        return new > floor
    return (new == 4) & (floor < (5 if j == 4 else 6))


class SlotOrders:
    """The slot programme's tables and draws, per seat and slots (cached)."""

    def _slot_tables(self, s, slots):
        """``_forward_slots`` for seat ``s``'s ``slots`` and every unseen special card, built
        once per proposal."""
        key = (s, tuple(slots))
        if key not in self._orders:
            self._orders[key] = self._forward_slots(s, slots, self._unseen_special())
        return self._orders[key]

    def _forward_slots(self, s, slots, counts):
        """The slot programme's forward tables for seat ``s``'s ``slots`` and at most
        ``counts`` special cards: per slot the number of valid orders of the slots before it
        ending in each state, and (``final``) the number of valid orders of all the slots that
        deal the seat each count of special cards; with the rules per slot and, per standing
        rank, whether one more card of each column enables a declaration in each state."""
        v = self.view
        radix = counts + 1
        strides = np.concatenate([[1], np.cumprod(radix)[:-1]]).astype(np.int64)
        size = int(np.prod(radix))
        held = (np.arange(size)[:, None] // strides) % radix  # special cards per state
        during = v.game.options["bidding"] == "during_deal"
        # the looks, and the declarations the seat made (it held what it showed)
        checks = sorted([(pos, floor, asked, None) for pos, floor, asked in v.checks[s]] +
                        [(pos, column, count, True) for pos, column, count in v.holds[s]],
                        key=lambda check: check[0])
        rules = []  # per slot: (asked there: True/False, or None if unconstrained; floor)
        for p in slots:
            floor = 0
            for pos, rank in v.floors:
                if pos <= p:
                    floor = rank
            rules.append((p in v.new_asks[s], floor) if during and p < v.pos else (None, floor))
        enables = {floor: np.stack([_enables(held, j, floor) for j in range(6)], axis=1)
                   for floor in {floor for _, floor in rules}}
        room = held < counts  # one more card of each column fits
        f = np.zeros(size)
        f[0] = 1.0
        layers = []
        c = 0
        for i, p in enumerate(slots):
            while c < len(checks) and checks[c][0] <= p:
                f = f * _look(held, checks[c])
                c += 1
            layers.append(f)
            asked, floor = rules[i]
            new = np.zeros(size) if asked is True else f.copy()
            ok_all = room if asked is None else room & (enables[floor] == asked)
            live = f > 0
            for j in range(6):
                if not counts[j]:
                    continue
                src = np.flatnonzero(ok_all[:, j] & live)
                new[src + strides[j]] += f[src]
            f = new
        for check in checks[c:]:
            if check[0] <= v.pos:  # (the looks still to come say nothing yet)
                f = f * _look(held, check)
        return layers, held, strides, rules, f, enables

    def _special_order(self, s, slots, counts, rng) -> list[int] | None:
        """Which of ``slots`` hold which special card (a column of ``_special_kinds``; -1 for
        another card), uniformly among the orders that ask seat ``s`` exactly as the real deal
        did: a card dealt to it enables a new declaration at the slots where it was asked and at
        no other, and at each look (``view.checks``) it could beat the standing declaration
        exactly when it was asked. Drawn backwards from ``counts`` through the forward tables of
        a programme over the slots whose state is the special cards dealt so far (one per seat
        and slots, up to every unseen copy: ``None`` if no order fits)."""
        layers, held, strides, rules, final, enables = self._slot_tables(s, slots)
        if (counts > held[-1]).any():
            return None
        u = int(counts @ strides)
        if final[u] <= 0:
            return None
        out = [-1] * len(slots)
        steps = strides.tolist()
        for i in range(len(slots) - 1, -1, -1):
            if u == 0:  # every special card placed: the slots before hold other cards
                break
            asked, floor = rules[i]
            layer = layers[i]
            options, weights = [], []
            if asked is not True:
                options.append(-1)
                weights.append(float(layer[u]))
            row = held[u].tolist()
            for j in range(6):
                if row[j] == 0:
                    continue
                prev = u - steps[j]
                if asked is not None and bool(enables[floor][prev, j]) != asked:
                    continue
                options.append(j)
                weights.append(float(layer[prev]))
            r = rng.random() * sum(weights)
            pick = next(o for o, w in zip(options[::-1], weights[::-1]) if w > 0)
            for option, weight in zip(options, weights):
                if r < weight:
                    pick = option
                    break
                r -= weight
            out[i] = pick
            if pick >= 0:
                u -= steps[pick]
        return out

    def _unseen_special(self) -> np.ndarray:
        """Per special column, the copies not among ``seat``'s own dealt cards."""
        own = np.bincount(self.view.own_cards, minlength=NUM_KINDS)
        return (4 - own[self.special]).astype(np.int64)

    def _raw_share(self, s, slots) -> np.ndarray:
        """Per count of special cards (a state of the slot programme), the share of that count's
        orders in ``slots`` that give seat ``s`` its asks: the programme's count over the
        number of ways to choose slots for those cards (0 where none fits)."""
        key = (s, tuple(slots))
        if key not in self._raw:
            tables = self._slot_tables(s, slots)
            held, final = tables[1], tables[4]
            n = len(slots)
            placed = held.sum(axis=1)
            fits = (final > 0) & (placed <= n)
            log_all = LOG_FACT[n] - LOG_FACT[held].sum(axis=1) - \
                LOG_FACT[np.maximum(n - placed, 0)]
            share = np.zeros(len(final))
            share[fits] = np.exp(np.log(final[fits]) - log_all[fits])
            self._raw[key] = share
        return self._raw[key]

    def _order_share(self, s, slots) -> tuple[np.ndarray, float]:
        """The deal-order share per count of special cards (``_raw_share``) and its largest
        value: keeping a draw with probability ``share / top`` gives it the deal's weight."""
        key = (s, tuple(slots))
        if key not in self._shares:
            share = self._raw_share(s, slots)
            self._shares[key] = share, float(share.max()) if share.any() else 1.0
        return self._shares[key]
