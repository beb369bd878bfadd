"""The deck and history of a world after the deal: the drawn hands put into the deal slots,
the kitty, the flips, and the hidden choices written into the history.

Each other seat's dealt cards go into its deal slots (``_arrange``: big jokers only where its
asks allow; a later hand's level cards and jokers where its declaration asks say, ``_place``);
the dealer's deal and the kitty follow from its hand, burial and the kitty's known part
(``_post_deal_deck``, ``_arrange_dealer``, ``_arrange_later``). The kitty's public part lies where
the flips, the grab or the draw put it (``_kitty_order``; the first hand's flips in an order that
turns up as they did, ``_flip_orders``). A hidden burial and a return ``seat`` did not see are
written into the history.

``Arrangement`` is one of the parts of ``proposal.Proposal``: it reads the groups and hands of
``programme.HiddenHands``, the big-joker rules of ``deal.DealDecks`` and the slot programme of
``slots.SlotOrders``."""

from __future__ import annotations

import itertools

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.dabang import catalogue as cat
from cardenv.dabang.phases import deal as deal_rules
from cardenv.dabang.phases.deal import DEALT
from cardenv.dabang.worlds.common import KITTY, flat


def _kitty_draw(seed: int) -> list[int]:
    """The order a later hand's kitty draw looks at the kitty cards when nobody declared
    (``phases.deal.reveal``): the first draw of the world's generator, as the engine makes it
    (a world's game draws nothing before it: its levels, dealer and blood are options)."""
    return np.random.default_rng(seed).permutation(KITTY).tolist()


class Arrangement:
    """Builds a world's deck (and the history's hidden choices) from the drawn hands."""

    def _post_deal_deck(self, rng, seed):
        """A world's deck and history after the deal, from one draw of the hidden hands
        (``_hands``): ``(deck, history)``, or ``None`` where the draw does not fit (rejection)."""
        v = self.view
        drawn = self._hands(rng)
        if drawn is None:
            return None
        hands, picked = drawn
        zero = np.zeros(NUM_KINDS, dtype=np.int64)
        g = {kind: cards for (kind, s), cards in zip(self.group_kind, hands)}
        hidden_t, hidden_r = g.get("tribute", zero), g.get("returned", zero)
        deck = [-1] * (DEALT + KITTY)
        for p, c in zip(v.own_slots, v.own_cards):
            deck[p] = c
        for s, p in self.pinned_bj.items():
            deck[p] = BIG_JOKER
        arrange = self._arrange if v.first else self._arrange_kept
        for (kind, s), cards in zip(self.group_kind, hands):
            if kind == "hand":
                dealt = self.fixed[s] + cards - self._pin_vector(s)
                if s == v.giver:
                    dealt = dealt + hidden_t - hidden_r
                if (dealt < 0).any() or not arrange(deck, s, dealt, rng):
                    return None
        history = list(v.history[:v.keep])
        public = v.public_kitty()
        if v.is_dealer:
            hidden = flat(g["kitty"] if "kitty" in g else self.kitty_known - public)
            kitty = self._kitty_order(rng, public, hidden, seed)
        else:
            dealer = v.dealer
            if v.kitty_lying:  # its deal (with the tribute, less the return) is its hand now
                hidden = flat(g["kitty"]) if "kitty" in g else []
                dealt = self.dealer_fixed + g["dealer"] - hidden_t + hidden_r
            else:
                split = self._dealer_and_kitty(rng, g, hidden_t, hidden_r, history)
                if split is None:
                    return None
                hidden, dealt = split
            kitty = self._kitty_order(rng, self.kitty_known, hidden, seed)
            if kitty is None or (dealt < 0).any():
                return None
            if v.first:
                if not self._arrange_dealer(deck, dealer, dealt, rng, picked):
                    return None
            elif not self._arrange_later(deck, dealer, dealt, rng):
                return None
        if hidden_r.any():  # a return ``seat`` did not see: its cards, by kind
            for i, c in zip(v.return_steps, flat(hidden_r)):
                history[i] = cat.RETURN + c
        if kitty is None:
            return None
        deck[DEALT:] = kitty
        return deck, history

    def _dealer_and_kitty(self, rng, g, hidden_t, hidden_r, history):
        """The kitty taken up, ``seat`` not the dealer: the dealer's 60 cards (its deal and the
        kitty) follow from its hand now, plays and burial; the kitty's hidden part is drawn
        among them, the rest is its deal: ``(kitty's hidden cards, dealt counts)``, or ``None``.
        A hidden burial (``g["burial"]``) is written into ``history``: big jokers first, then
        small ones, then the rest (a multiset, as ``seat`` cannot tell its order)."""
        v = self.view
        dealer = v.dealer
        burial = v.burial_known if v.burial_known is not None else g["burial"]
        sixty = (v.played[dealer] + burial + g["dealer"] - self.tribute + self.returned
                 - hidden_t + hidden_r)  # its deal and the kitty
        free = sixty - self.kitty_known - self._pin_vector(dealer)
        if (free < 0).any():
            return None
        hidden_n = KITTY - int(self.kitty_known.sum())
        copies = flat(free)
        chosen = rng.choice(len(copies), size=hidden_n, replace=False) if hidden_n else []
        hidden = [copies[i] for i in chosen]
        dealt = free - np.bincount(hidden, minlength=NUM_KINDS).astype(np.int64)
        order = ([BIG_JOKER] * int(burial[BIG_JOKER]) + [SMALL_JOKER] *
                 int(burial[SMALL_JOKER]) + flat(burial[:NUM_NATURAL]))
        for i, c in zip(v.bury_steps, order):
            history[i] = cat.BURY + c
        return hidden, dealt

    # --- a seat's deal slots ----------------------------------------------------------------
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

    # --- later hands: where the level cards and jokers lie in a seat's deal ------------------
    def _arrange_kept(self, deck, s, cards, rng) -> bool:
        """Put ``cards`` in seat ``s``'s deal slots (``_place``): a seat whose deal-order weight
        the draw was kept by (``_keep_orders``)."""
        return self._place(deck, s, self.seat_slots[s], cards, rng)

    def _arrange_later(self, deck, s, cards, rng) -> bool:
        """Put ``cards`` (counts) in seat ``s``'s deal slots (``_place``), after keeping them
        with probability ``_order_share`` / its largest value (rejection): the programme over
        the kinds weighs a dealt multiset by all its orders, the deal by those that give the
        seat's asks, so the share of fitting orders is the weight it left out."""
        slots = self.seat_slots[s]
        share, top = self._order_share(s, slots)
        u = cards[self.special]
        held, strides = self._slot_tables(s, slots)[1:3]
        if (u < 0).any() or (u > held[-1]).any():
            return False
        if rng.random() * top >= share[int(u @ strides)]:
            return False
        return self._place(deck, s, slots, cards, rng)

    def _place(self, deck, s, slots, cards, rng) -> bool:
        """Put ``cards`` in ``slots`` of seat ``s``: the level cards and jokers where the deal
        asked the seat exactly where it did (``_special_order``), the rest shuffled. False if
        no order fits."""
        if (cards < 0).any() or int(cards.sum()) != len(slots):
            return False
        spec = self.special
        counts = cards[spec]
        order = self._special_order(s, slots, counts, rng)
        if order is None:
            return False
        rest = cards.copy()
        rest[spec] = 0
        rest = np.repeat(np.arange(NUM_KINDS), rest)
        rng.shuffle(rest)
        it = iter(rest.tolist())
        for p, j in zip(slots, order):
            deck[p] = spec[j] if j >= 0 else next(it)
        return True

    # --- the dealer's deal, first hand ------------------------------------------------------
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

    # --- the kitty ---------------------------------------------------------------------------
    def _kitty_order(self, rng, known: np.ndarray, hidden: list[int],
                     seed: int) -> list[int] | None:
        """The dealt kitty's order: the public part where the flips, the grab or the draw put
        it, the hidden part in the other places at random."""
        v = self.view
        if v.kitty_public:
            cards = np.repeat(np.arange(NUM_KINDS), known).tolist() + hidden
            rng.shuffle(cards)
            return cards
        if not v.first:  # the draw: the world's seed decides the order it looks at the kitty
            drawn = np.repeat(np.arange(NUM_KINDS), v.revealed).tolist()
            jokers = [c for c in drawn if c >= NUM_NATURAL]
            suited = [c for c in drawn if c < NUM_NATURAL]
            if len(suited) != 1:
                return None
            rng.shuffle(jokers)
            cards = [-1] * KITTY
            for i, c in zip(_kitty_draw(seed), jokers + suited):
                cards[i] = c
            rest = list(hidden)
            rng.shuffle(rest)
            it = iter(rest)
            return [c if c >= 0 else next(it) for c in cards]
        passed = [SMALL_JOKER] * v.flip_jokers[0] + [BIG_JOKER] * v.flip_jokers[1]
        rng.shuffle(passed)
        if self._flips is None:
            self._flips = self._flip_orders(passed)
        if not self._flips:
            return None
        flipped, found = self._flips[rng.integers(len(self._flips))]
        rest = list(hidden)
        rng.shuffle(rest)
        return flipped + passed + found + rest

    def _flip_orders(self, passed) -> list[tuple[list[int], list[int]]]:
        """The orders of the cards the first hand's flips showed (the four flips, then the
        suited card found after them, if any) that the flips turn up as they did
        (``phases.deal.flip``: the same dealer, trump, cards shown and jokers passed; the
        earliest of equal flips wins). The kitty draws one uniformly: what rejection by the
        replay would leave of a uniform order, without the replays (ties among the flips made
        most proposals fail there). Whether an order fits does not depend on the hidden kitty
        cards after them (here naturals): the flips never reach one in a world that fits, and
        where ``flip`` counts the jokers among them (a natural won the flips: every card after
        the flips is "passed") the replay checks that count for every order alike."""
        v = self.view
        revealed = np.repeat(np.arange(NUM_KINDS), v.revealed).tolist()
        fill = [0] * (KITTY - len(revealed) - len(passed))  # (a natural: a reach shows it)
        out = []
        for order in sorted(set(itertools.permutations(revealed))):
            flipped, found = list(order[:4]), list(order[4:])
            got = deal_rules.flip(flipped + passed + found + fill, v.start)
            if got is not None and got[0] == v.dealer and got[1] == v.trump and \
                    sorted(got[2]) == revealed and \
                    deal_rules.flip_jokers(got[3]) == list(v.flip_jokers):
                out.append((flipped, found))
        return out
