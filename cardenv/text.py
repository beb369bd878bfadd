"""Text views of a game state for people, by game name: ``render(state)`` shows the whole table
(every hand: for spectators, replays and debugging), ``render(state, seat=s)`` only what seat
``s`` may know (its own hand, counts of the others, everything played in public), and
``seat_view(state, s)`` the same as a JSON-ready dict (for the web page). Beside them: a move
about to be played (``move_text``), a finished hand's result (``explain``), why a move is illegal
(``why_illegal``), the names of a move type and a phase (``move_label``, ``phase_label``),
each in the chosen language, and the rules options people may set (``option_specs``).

Programs (terminal play, replay, the web page) call this module and never a game's package, so
that a game is reached through its name alone: each game's presentation and reasons modules are
the ones it registered (``cardenv.games.register(..., presentation=, reasons=)``); a game
registered without them gets a ``ValueError`` saying so.
"""

from __future__ import annotations

import json

from cardenv import games
from cardenv.core.checks import check_int
from cardenv.core.errors import StateError
from cardenv.core.state import same_json
from cardenv.core.lang import check_lang


def _module(state):
    return games.presentation(state.game.name)


def _game_module(name: str):
    return games.presentation(name)


def _seat(state, seat, name: str = "seat", optional: bool = False):
    """``seat`` checked: an int seat of ``state``'s game (``None`` if ``optional``), never a
    bool; ``ValueError`` naming it otherwise."""
    return check_int(seat, name, 0, state.game.num_players - 1, optional=optional,
                     error=ValueError)


def _action(state, action) -> int:
    return check_int(action, "action", 0, state.game.num_actions - 1, error=ValueError)


def _in(text: str, lang: str) -> str:
    if lang == "zh":
        return text
    from cardenv.core.lang import translate
    return translate(text, lang)


def render(state, seat: int | None = None, lang: str = "zh") -> str:
    """The table as text: all hands (``seat=None``) or seat ``seat``'s view. ``lang="en"``
    writes the Chinese terms in English."""
    module = _module(state)
    seat = _seat(state, seat, optional=True)
    text = module.render_text(state) if seat is None else module.render_view(state, seat)
    if lang != "zh":
        from cardenv.core.lang import translate
        text = translate(text, lang)
    return text


def seat_view(state, seat: int) -> dict:
    """What ``seat`` may know as a JSON-ready dict (its hand, counts, everything public); the
    text view and the web page are both drawn from it."""
    return _module(state).seat_view(state, _seat(state, seat))


def move_text(state, action: int, viewer: int | None = None, lang: str = "zh") -> str:
    """The text of ``action`` about to be played in ``state`` as seat ``viewer`` sees it
    (``None``: every hand visible): a private move of another seat (Dabang's burial, the
    tribute's return) shows only as what that seat sees."""
    action = _action(state, action)
    viewer = _seat(state, viewer, "viewer", optional=True)
    text = _module(state).move_text(state, action, viewer)
    if lang != "zh":
        from cardenv.core.lang import translate
        text = translate(text, lang)
    return text


def explain(state, result, seat: int | None, lang: str = "zh") -> str:
    """A finished hand's ``result`` in words for ``seat``'s player, or (``seat=None``) for
    someone watching every seat: who won, by seat and team, with no "you". ``result`` is one of
    ``state.results`` or its ``to_dict()`` (``StateError`` if it is not one of them).
    The last hand of an episode cut short (a Dabang match at ``max_hands``) says that no hand
    follows."""
    module = _module(state)
    seat = _seat(state, seat, optional=True)
    if isinstance(result, dict):
        # a result is checked by the replay that made it: a dict is one of this state's results
        mine = [r for r in state.results if same_json(result, json.loads(json.dumps(r.to_dict())))]
        if not mine:
            raise StateError(f"result is not one of this state's hand results (a dict must be "
                             f"the to_dict() of one of state.results): {result!r}"[:300])
        result = mine[0]
    elif not hasattr(result, "to_dict"):
        raise ValueError(f"result must be a hand result (one of state.results), got "
                         f"{result!r}"[:200])
    text = module.explain_result(result, seat, state.game.options) if seat is not None else \
        module.explain_watched(result, state.game.options)
    if getattr(state, "truncated", False) and state.results and result is state.results[-1]:
        text = module.stopped(text, len(state.results))  # no next hand after all
    if lang != "zh":
        from cardenv.core.lang import translate
        text = translate(text, lang)
    return text


def why_illegal(state, action, lang: str = "zh", seat: int | None = None) -> str | None:
    """Why ``action`` is illegal in ``state`` for ``seat`` (the seat to act by default), in
    words: the rule it breaks, read from the game's own rules code (``cardenv.<game>.reasons``);
    ``None`` if the action is legal."""
    check_lang(lang)
    seat = _seat(state, seat, optional=True)
    reason = games.reasons(state.game.name).why_illegal(state, action, seat)
    return None if reason is None else _in(reason, lang)


def phase_label(game, phase, lang: str = "zh") -> str:
    """The name people read for ``game``'s decision phase ``phase`` (``扣王`` for Dabang's
    ``koujoker``); programs keep the id."""
    name = game if isinstance(game, str) else game.name
    return _in(_game_module(name).phase_label(phase), lang)


def move_label(game, kind: str, lang: str = "zh", phase: str | None = None) -> str:
    """The name people read for a move type ``kind`` (an ``action_info(a).type`` such as
    ``"pair_run"``) of ``game`` (a game or its name): the game's own term where it has one
    (``连对``, ``扣王``), plain English under ``lang="en"``; ``phase`` where the game names a
    type by its phase (Dabang's ``bury`` in the 扣王 phase). Programs keep using ``kind``."""
    name = game if isinstance(game, str) else game.name
    return _in(_game_module(name).move_label(kind, phase), lang)


def option_specs(game) -> list[dict]:
    """The rules options people may set for ``game`` (a game or its name), as JSON-ready
    data (``core.options.describe`` of the presentation's ``options()``): name, default,
    expected value, doc, and what each accepts (``boolean``, ``ints``, ``choices``, ``pair``)."""
    from cardenv.core.options import describe
    name = game if isinstance(game, str) else game.name
    return describe(_game_module(name).options())


def plays_matches(game) -> bool:
    """Whether ``game`` (a game or its name) plays whole matches: an option ``episode`` that
    takes ``"match"`` (``False`` for a game registered without a presentation)."""
    try:
        specs = option_specs(game)
    except ValueError:
        return False
    return any(o["name"] == "episode" and "match" in o.get("choices", []) for o in specs)
