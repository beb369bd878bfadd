"""Text views of a game state for people, by game name: ``render(state)`` shows the whole table
(every hand: for spectators, replays and debugging), ``render(state, seat=s)`` only what seat
``s`` may know (its own hand, counts of the others, everything played in public), and
``seat_view(state, s)`` the same as a JSON-ready dict (for the web page).

Programs (terminal play, replay) call this module and never a game's package, so that a game
is reached through its name alone.
"""

from __future__ import annotations

import importlib

_RENDERERS = {"dagong": "cardenv.dagong.render", "dabang": "cardenv.dabang.render"}


def _module(state):
    name = state.game.name
    if name not in _RENDERERS:
        raise ValueError(f"no text view for game {name!r}")
    return importlib.import_module(_RENDERERS[name])


def render(state, seat: int | None = None, lang: str = "zh") -> str:
    """The table as text: all hands (``seat=None``) or seat ``seat``'s view. ``lang="en"``
    writes the Chinese terms in English."""
    module = _module(state)
    text = module.render_text(state) if seat is None else module.render_view(state, seat)
    if lang != "zh":
        from cardenv.core.lang import translate
        text = translate(text, lang)
    return text


def seat_view(state, seat: int) -> dict:
    """What ``seat`` may know as a JSON-ready dict (its hand, counts, everything public); the
    text view and the web page are both drawn from it."""
    return _module(state).seat_view(state, seat)


def move_text(state, action: int, viewer: int | None = None, lang: str = "zh") -> str:
    """The text of ``action`` about to be played in ``state`` as seat ``viewer`` sees it
    (``None``: every hand visible): a private move of another seat (Dabang's burial, the
    tribute's return) shows only as what that seat sees."""
    text = _module(state).move_text(state, action, viewer)
    if lang != "zh":
        from cardenv.core.lang import translate
        text = translate(text, lang)
    return text


def explain(state, result, seat: int | None, lang: str = "zh") -> str:
    """A finished hand's ``result`` in words for ``seat``'s player, or (``seat=None``) for
    someone watching every seat: who won, by seat and team, with no "you"."""
    module = _module(state)
    text = module.explain_result(result, seat) if seat is not None else \
        module.explain_watched(result)
    if lang != "zh":
        from cardenv.core.lang import translate
        text = translate(text, lang)
    return text
