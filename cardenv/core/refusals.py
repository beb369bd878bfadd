"""The shape both games' illegal-move reasons share (``cardenv.dagong.reasons``,
``cardenv.dabang.reasons``): a ``Refusal`` names the rule an action breaks and says why in a
sentence, and the checks that come before any game rule (an id out of range, a finished game,
another seat's turn) are made here once, with the project's one integer test (numpy integers as
Python's, never a bool)."""

from __future__ import annotations

from typing import NamedTuple

from cardenv.core.checks import is_int


class Refusal(NamedTuple):
    """Why an action is illegal: ``rule`` (a key of the game's ``CLAUSES``) and ``text``."""

    rule: str
    text: str


def before_rules(state, action, seat: int | None, num_actions: int) -> Refusal | None:
    """The refusal of ``action`` that no game rule is needed for: not an action id, the game
    over, or (``seat`` given) not that seat's turn; ``None`` otherwise."""
    if not is_int(action) or not 0 <= action < num_actions:
        shown = int(action) if is_int(action) else repr(action)
        return Refusal("range", f"{shown} is not an action (ids 0..{num_actions - 1})")
    if state.phase == "over":
        return Refusal("over", "the game is over: no move is legal")
    if seat is not None and seat != state.current:
        return Refusal("turn", f"it is player_{state.current}'s turn, not yours")
    return None


def refuse(state, action, seat: int | None, num_actions: int, by_rules) -> Refusal | None:
    """The refusal of ``action`` in ``state`` (``None`` if it is legal): ``before_rules``, then,
    for an id the state does not allow, the game's ``by_rules(state, action)`` with ``action``
    an int."""
    found = before_rules(state, action, seat, num_actions)
    if found is not None:
        return found
    action = int(action)
    return None if state.is_legal(action) else by_rules(state, action)


def text_of(found: Refusal | None) -> str | None:
    """A refusal's sentence (``None`` for no refusal: a legal action)."""
    return None if found is None else found.text
