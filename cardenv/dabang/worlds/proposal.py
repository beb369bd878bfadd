"""A proposal: draws candidate worlds for a ``View`` and keeps those that replay to the same
view (``Proposal.world``).

The proposal is one object built of four parts, each in its own module: ``deal.DealDecks``
(decks while the hand is being dealt), ``programme.HiddenHands`` (the hidden hands after the
deal), ``arrange.Arrangement`` (those hands put into a deck and history) and
``slots.SlotOrders`` (a later hand's level cards and jokers in a seat's deal slots). They share
the proposal's state (``self.view``, the seats' deal slots, the big-joker rules, the groups and
tables), built once per position in ``__init__`` and kept by the sampler for the next calls."""

from __future__ import annotations

import numpy as np

from cardenv.core.errors import IllegalActionError
from cardenv.dabang.phase import Phase
from cardenv.dabang.phases.deal import DEALT
from cardenv.dabang.worlds.arrange import Arrangement
from cardenv.dabang.worlds.common import MAX_SEED, special_kinds
from cardenv.dabang.worlds.deal import DealDecks
from cardenv.dabang.worlds.programme import HiddenHands
from cardenv.dabang.worlds.slots import SlotOrders
from cardenv.dabang.worlds.view import View


class Proposal(DealDecks, HiddenHands, Arrangement, SlotOrders):
    """Draws candidate worlds for a ``View`` and keeps those that replay to the same view."""

    def __init__(self, view: View):
        self.view = view
        self.drawn = []  # hidden hands drawn ahead (``_hands``); emptied at each call
        self.batch = 16
        self.seat_slots = [[p for p in range(DEALT) if (view.start + p) % 4 == s]
                           for s in range(4)]
        self.dealing = view.pos < DEALT or view.dealer is None or \
            view.state.phase is Phase.DECLARE
        self.special = None if view.first else special_kinds(view.level)
        self._orders = {}  # (seat, slots) -> _forward_slots
        self._shares = {}  # (seat, slots) -> _order_share
        self._raw = {}  # (seat, slots) -> _raw_share
        self._joint = None  # during a later hand's deal: _deal_allocations
        self._flips = None  # the first hand's flip orders that fit (``_flip_orders``)
        self._bj_rules()
        if not self.dealing:
            self._groups()

    def begin(self, n: int) -> None:
        """A new call for ``n`` worlds: the hands drawn ahead in another call are dropped (the
        same rng gives the same worlds: nothing drawn with another), and they are drawn in
        batches sized for ``n``."""
        self.drawn = []
        self.batch = min(256, max(16, 2 * n))

    def world(self, rng):
        """One proposal: a world consistent with the view, or ``None`` (rejected). Draws the
        world's seed first, then its deck (and the hidden choices of its history)."""
        v = self.view
        seed = int(rng.integers(MAX_SEED))
        if self.dealing:
            deck = self._deal_phase_deck(rng) if v.first else self._later_deal_deck(rng)
            history = v.history[:v.keep]
        else:
            built = self._post_deal_deck(rng, seed)
            if built is None:
                return None
            deck, history = built
        if deck is None:
            return None
        return self._replayed(seed, deck, history)

    def _replayed(self, seed, deck, history):
        """The world, if it replays to exactly what the seat saw; else ``None``."""
        v = self.view
        seat, obs = v.seat, v.obs
        try:
            world = v.world_game.new_state(seed, deck=deck, first_seat=v.start)
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
