"""Tribute (喝血) and its return (phase ``return``).

``pay`` moves the blood owed from the dealer's 上家 to the dealer, automatically (the strongest
non-point cards) [D-A5]; with option ``tribute_return="dealer_choice"`` the dealer then gives back
as many cards as it received, one card per decision (``legal``/``apply``), keeping hands at 52.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardenv.core.cards import NUM_KINDS
from cardenv.dabang import catalogue as cat
from cardenv.dabang import kitty


@dataclass(slots=True)
class Tribute:
    """The tribute of one hand."""

    cards: list[int] = field(default_factory=list)  # paid by the dealer's 上家 to the dealer
    returned: int = 0  # cards the dealer has given back (option tribute_return)

    def copy(self) -> "Tribute":  # a clone copies it
        return Tribute(self.cards.copy(), self.returned)


def pay(state) -> None:
    """The dealer's 上家 pays the blood owed (``state.blood_due`` cards, or fewer)."""
    if state.blood_due <= 0:
        return
    dealer = state.dealer
    giver = (dealer - 1) % 4
    v = state.v
    hands = v["hand"]
    cards = kitty.tribute_cards(hands[giver].tolist(), state.blood_due, state.trump, state.level)
    counts = np.bincount(cards, minlength=NUM_KINDS)
    hands[giver] -= counts
    hands[dealer] += counts
    state.cards_left[giver] -= len(cards)
    state.cards_left[dealer] += len(cards)
    v["cards_left"][:] = state.cards_left
    state.tribute.cards = cards
    v["tribute"][0] = len(cards)
    v["tribute_known"][giver] = counts
    v["tribute_known"][dealer] = counts


def returning(state) -> bool:
    """Whether the dealer still has tribute cards to give back."""
    return state.game.options["tribute_return"] == "dealer_choice" and \
        state.tribute.returned < len(state.tribute.cards)


def legal(state) -> list[int]:
    return [cat.RETURN + k for k in np.flatnonzero(state.v["hand"][state.dealer]).tolist()]


def apply(state, action: int) -> None:
    card = action - cat.RETURN
    dealer = state.dealer
    giver = (dealer - 1) % 4
    v = state.v
    v["hand"][dealer, card] -= 1
    v["hand"][giver, card] += 1
    state.cards_left[dealer] -= 1
    state.cards_left[giver] += 1
    v["cards_left"][:] = state.cards_left
    v["returned_known"][giver, card] += 1
    v["returned_known"][dealer, card] += 1
    state.tribute.returned += 1
    v["returned"][0] = state.tribute.returned
