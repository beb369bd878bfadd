"""Tribute (喝血) and its return (phase ``return``).

``pay`` moves the blood owed from the dealer's 上家 to the dealer, automatically (the strongest
non-point cards) [D-A5]; with option ``tribute_return="dealer_choice"`` the dealer then gives back
as many cards as it received, one card per decision (``legal``/``apply``), keeping hands at 52.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from cardenv.core.cards import NUM_KINDS
from cardenv.core.errors import StateError
from cardenv.dabang import catalogue as cat
from cardenv.dabang import kitty
from cardenv.dabang.phase import Phase, PhaseData, int_list, integer

MAX_TRIBUTE = 60  # the buffer's bound


@dataclass(slots=True)
class Tribute(PhaseData):
    """The tribute of one hand."""

    cards: list[int] = field(default_factory=list)  # paid by the dealer's 上家 to the dealer
    returned: int = 0  # cards the dealer has given back (option tribute_return)

    SPEC: ClassVar[dict] = {"cards": int_list(0, NUM_KINDS - 1, max_length=MAX_TRIBUTE),
                            "returned": integer(0, MAX_TRIBUTE)}

    def copy(self) -> "Tribute":  # spelled out: a clone copies it
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


def check(state, dealt: np.ndarray) -> None:
    """Check ``state.tribute`` and the tribute pieces: the cards are what the giver's dealt hand
    pays for ``blood_due`` [DB-4], given back only with ``tribute_return="dealer_choice"``, all
    of them before the burial; ``StateError`` naming the field."""
    t, v, phase = state.tribute, state.v, state.phase
    paid = phase is not Phase.DECLARE and state.blood_due > 0
    giver = (state.dealer - 1) % 4 if paid else None
    expected = kitty.tribute_cards(dealt[giver].tolist(), state.blood_due, state.trump,
                                   state.level) if paid else []
    if t.cards != expected:
        raise StateError(f"tribute.cards must be {expected}: the {state.blood_due} strongest "
                         f"non-point cards dealt to the dealer's 上家 (blood owed: blood_due) "
                         f"once declaring is over, got {t.cards}")
    counts = np.bincount(np.asarray(t.cards, dtype=np.int64), minlength=NUM_KINDS)
    known = np.zeros((4, NUM_KINDS), dtype=np.int64)
    if paid:
        known[giver] = known[state.dealer] = counts
    if v["tribute"][0] != len(t.cards) or not np.array_equal(v["tribute_known"], known):
        raise StateError(f"buffer pieces 'tribute' and 'tribute_known' must show the "
                         f"{len(t.cards)} tribute cards (tribute.cards) to the giver and the "
                         f"dealer only")
    giving_back = state.game.options["tribute_return"] == "dealer_choice"
    done = len(t.cards) if giving_back and phase not in (Phase.DECLARE, Phase.RETURN) else None
    if t.returned > (len(t.cards) if giving_back else 0) or \
            (done is not None and t.returned != done) or \
            (phase is Phase.RETURN and (not giving_back or t.returned == len(t.cards))):
        raise StateError(f"tribute.returned: {t.returned} of {len(t.cards)} tribute cards "
                         f"given back in the {phase} phase with tribute_return="
                         f"{state.game.options['tribute_return']!r}")
    back = v["returned_known"]
    rows = [s for s in range(4) if back[s].any()]
    if v["returned"][0] != t.returned or int(back.sum()) != 2 * t.returned or \
            (t.returned and (rows != sorted({giver, state.dealer}) or
                             not np.array_equal(back[giver], back[state.dealer]))):
        raise StateError(f"buffer pieces 'returned' and 'returned_known' must show the "
                         f"{t.returned} cards given back (tribute.returned) to the giver and the "
                         f"dealer only")
    if phase is Phase.RETURN and state.current != state.dealer:
        raise StateError(f"current (buffer piece 'to_play') must be the dealer, seat "
                         f"{state.dealer}, who gives tribute cards back, got seat "
                         f"{state.current}")
