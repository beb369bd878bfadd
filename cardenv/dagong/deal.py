"""The Dagong deal and the call (叫牌, B3).

Two decks (108 cards) are shuffled and dealt one card at a time in play order starting with the
dealer, 27 each. The called card decides the dealer's hidden partner: the holder of its twin.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import NUM_KINDS

DECKS = 2
DECK = np.repeat(np.arange(NUM_KINDS), DECKS)


def deal(rng: np.random.Generator, dealer: int) -> tuple[np.ndarray, list[list[int]]]:
    """Shuffle and deal: ``(hands (4, 54) counts, the cards each seat received in order)``."""
    order = rng.permutation(DECK)
    dealt = [order[(seat - dealer) % 4::4] for seat in range(4)]
    hands = np.zeros((4, NUM_KINDS), dtype=np.int16)
    for seat in range(4):
        hands[seat] = np.bincount(dealt[seat], minlength=NUM_KINDS)
    return hands, [cards.tolist() for cards in dealt]


def first_hand_call(rng: np.random.Generator, dealer_hand) -> int:
    """Hand 1: a random card kind of which the dealer holds exactly one copy (jokers included)."""
    singles = [k for k in range(NUM_KINDS) if dealer_hand[k] == 1]
    return int(singles[rng.integers(len(singles))])


def later_hand_call(dealer_received: list[int]) -> tuple[int, bool]:
    """Later hands: ``(called kind, forced_solo)``.

    The call is the first card dealt to the dealer. Whenever the dealer comes to hold both copies
    of the current call, the call moves to the next card the dealer receives [D-B3]; if the deal
    ends with the dealer holding both copies of the call, ``forced_solo`` is ``True`` and the
    dealer plays alone against three (the last call is still shown).
    """
    calls, forced_solo = later_hand_calls(dealer_received)
    return calls[-1], forced_solo


def later_hand_calls(dealer_received: list[int]) -> tuple[list[int], bool]:
    """Later hands: ``(every kind called in turn during the deal, forced_solo)``.

    The last kind is the call that stands (``later_hand_call``); the ones before it were
    superseded because the dealer came to hold both copies of each, which the dealer showed, so
    they are public (observation piece ``superseded_calls``). A kind is called at most once: it is
    superseded only once the dealer holds both of its copies, and no third copy can arrive.
    """
    held = [0] * NUM_KINDS
    calls: list[int] = []
    moving = True
    for card in dealer_received:
        held[card] += 1
        if moving:
            calls.append(card)
            moving = False
        if held[calls[-1]] == 2:
            moving = True
    return calls, moving
