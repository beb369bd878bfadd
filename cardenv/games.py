"""The game registry: ``make_game(name, **options)`` builds any registered game by name.

Batched engines, agents, training and evaluation name a game by a string and reach it only
through this registry and the contract in ``cardenv.core.protocol`` (``Game`` / ``GameState``),
never through a game's package. A new game registers a factory (a ``Game`` class, any callable
taking the options, or a ``"module:attribute"`` string imported on first use)::

    from cardenv.games import make_game, register
    game = make_game("dabang", follow="live")     # ConfigError for a bad option
    state = game.new_state(seed=1)
    register("mygame", "mypackage.game:MyGame")   # then make_game("mygame", ...)

Importing this module imports no game: the built-in ones load on first use.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any, Callable

from cardenv.core.protocol import Game, GameState

__all__ = ["Game", "GameState", "make_game", "register", "unregister", "names"]

_FACTORIES: dict[str, Callable[..., Any] | str] = {
    "dagong": "cardenv.dagong.game:DagongGame",
    "dabang": "cardenv.dabang.game:DabangGame",
}


def register(name: str, factory: Callable[..., Any] | str, *, replace: bool = False) -> None:
    """Make ``make_game(name, **options)`` call ``factory(**options)``; ``factory`` may be a
    ``"module:attribute"`` string. ``ValueError`` if ``name`` is taken (unless ``replace``)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a game name must be a non-empty string, got {name!r}")
    if not (callable(factory) or (isinstance(factory, str) and ":" in factory)):
        raise ValueError(f"factory must be callable or 'module:attribute', got {factory!r}")
    if name in _FACTORIES and not replace:
        raise ValueError(f"game {name!r} is already registered (pass replace=True)")
    _FACTORIES[name] = factory


def unregister(name: str) -> None:
    """Forget a registered game (``KeyError`` if unknown)."""
    del _FACTORIES[name]


def names() -> tuple[str, ...]:
    """The registered game names."""
    return tuple(_FACTORIES)


def check_name(name) -> str:
    """``name`` if it is a registered game, else a ``ValueError`` listing them."""
    if not isinstance(name, str) or name not in _FACTORIES:
        close = difflib.get_close_matches(str(name), _FACTORIES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown game {name!r}{hint}; registered games: "
                         f"{', '.join(_FACTORIES)}")
    return name


def make_game(name: str, **options) -> Game:
    """The game ``name`` with ``options`` (``ConfigError``, a ``ValueError``, for a bad
    option; ``ValueError`` for an unknown game)."""
    factory = _FACTORIES[check_name(name)]
    if isinstance(factory, str):
        module, attribute = factory.split(":", 1)
        factory = getattr(importlib.import_module(module), attribute)
    return factory(**options)
