"""The game registry: ``make_game(name, **options)`` builds any registered game by name.

Batched engines, agents, training and evaluation name a game by a string and reach it only
through this registry and the contract in ``cardenv.core.protocol`` (``Game`` / ``GameState``),
never through a game's package. A new game registers a factory (a ``Game`` class, any callable
taking the options, or a ``"module:attribute"`` string imported on first use)::

    from cardenv.games import make_game, register
    game = make_game("dabang", follow="live")     # ConfigError for a bad option
    state = game.new_state(seed=1)
    register("mygame", "mypackage.game:MyGame")   # then make_game("mygame", ...)

A game that people play (``python -m cardenv.play``, the web page, record replays) also names
its presentation and its reasons, each a module imported on first use: the presentation draws
states and moves for people (``render_text``, ``render_view``, ``seat_view``, ``move_text``,
``explain_result``, ``explain_watched``, ``stopped``, ``move_label``, ``phase_label``,
``card_moves``, ``typed_moves``, ``move_cards``, ``open_step``, ``options``; docs/engine.md), the
reasons module says why a move is illegal (``why_illegal``). ``cardenv.text`` and
``cardenv.moves`` reach them through ``presentation(name)`` / ``reasons(name)`` only::

    register("mygame", "mypackage.game:MyGame", presentation="mypackage.presentation",
             reasons="mypackage.reasons")

An installed package can also provide games without any import by the user: entry points of
the group ``cardenv.games`` (name = the game's name, value = its factory as
``"module:attribute"``), with its presentation and reasons in the groups
``cardenv.presentations`` and ``cardenv.reasons`` (value = a module name) under the same name.
They are read once, when a game is first looked up or listed, and registered as if
``register`` had named them (a name already registered keeps its entry). So, with such a
package installed, ``python -m cardagents evaluate toy random random`` and
``python -m cardenv.play toy ...`` find the game from the command line. In ``setup.py`` /
``pyproject.toml``::

    [project.entry-points."cardenv.games"]
    toy = "toy_package.game:ToyGame"
    [project.entry-points."cardenv.presentations"]
    toy = "toy_package.presentation"

Importing this module imports no game: the built-in ones load on first use, the entry points'
only when one is made.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any, Callable

from cardenv.core.protocol import Game, GameState

__all__ = ["Game", "GameState", "make_game", "register", "unregister", "names", "presentation",
           "reasons"]

_MODULE = type(importlib)  # types.ModuleType (the engine's modules import no more of the stdlib)
_FACTORIES: dict[str, Callable[..., Any] | str] = {
    "dagong": "cardenv.dagong.game:DagongGame",
    "dabang": "cardenv.dabang.game:DabangGame",
}
#: The modules people's programs draw each game with (``presentation``) and read its illegal
#: moves' reasons from (``reasons``), by game name: module names imported on first use, or
#: modules; a game registered without them is played by programs only.
_PRESENTATIONS: dict[str, Any] = {"dagong": "cardenv.dagong.presentation",
                                  "dabang": "cardenv.dabang.presentation"}
_REASONS: dict[str, Any] = {"dagong": "cardenv.dagong.reasons", "dabang": "cardenv.dabang.reasons"}
#: The entry-point groups installed packages provide games through (see the module docstring).
ENTRY_POINTS = {"factory": "cardenv.games", "presentation": "cardenv.presentations",
                "reasons": "cardenv.reasons"}
_installed_read = False
_SKIPPED: dict[str, str] = {}  # installed games whose entry points were malformed: why


def _read_installed() -> None:
    """Register the games of the installed packages' entry points (once; names already
    registered keep their entries). Nothing is imported but the packages' metadata."""
    global _installed_read
    if _installed_read:
        return
    _installed_read = True
    from importlib.metadata import entry_points
    found = {what: {point.name: point.value for point in entry_points(group=group)}
             for what, group in ENTRY_POINTS.items()}
    for name, factory in found["factory"].items():
        if name in _FACTORIES:
            continue
        try:
            register(name, factory, presentation=found["presentation"].get(name),
                     reasons=found["reasons"].get(name))
        except ValueError as exc:  # a malformed entry point: the others still load, and
            _SKIPPED[name] = str(exc)  # looking this one up says why it is missing


def register(name: str, factory: Callable[..., Any] | str, *, presentation: Any = None,
             reasons: Any = None, replace: bool = False) -> None:
    """Make ``make_game(name, **options)`` call ``factory(**options)``; ``factory`` may be a
    ``"module:attribute"`` string. ``presentation`` and ``reasons`` (a module or a module name,
    optional) are what ``cardenv.text`` draws the game with for people. ``ValueError`` if
    ``name`` is taken (unless ``replace``)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a game name must be a non-empty string, got {name!r}")
    if not (callable(factory) or (isinstance(factory, str) and ":" in factory)):
        raise ValueError(f"factory must be callable or 'module:attribute', got {factory!r}")
    for what, module in (("presentation", presentation), ("reasons", reasons)):
        if not (module is None or isinstance(module, (str, _MODULE))):
            raise ValueError(f"{what} must be a module or a module name, got {module!r}")
    if name in _FACTORIES and not replace:
        raise ValueError(f"game {name!r} is already registered (pass replace=True)")
    _FACTORIES[name] = factory
    for table, module in ((_PRESENTATIONS, presentation), (_REASONS, reasons)):
        table.pop(name, None)
        if module is not None:
            table[name] = module


def unregister(name: str) -> None:
    """Forget a registered game (``KeyError`` if unknown)."""
    del _FACTORIES[name]
    _PRESENTATIONS.pop(name, None)
    _REASONS.pop(name, None)


def names() -> tuple[str, ...]:
    """The registered game names (the installed packages' entry points included)."""
    _read_installed()
    return tuple(_FACTORIES)


def check_name(name) -> str:
    """``name`` if it is a registered game, else a ``ValueError`` listing them."""
    _read_installed()
    if not isinstance(name, str) or name not in _FACTORIES:
        close = difflib.get_close_matches(str(name), _FACTORIES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        if name in _SKIPPED:
            hint = f" (its entry point in group {ENTRY_POINTS['factory']} is malformed: " \
                   f"{_SKIPPED[name]})"
        raise ValueError(f"unknown game {name!r}{hint}; registered games: "
                         f"{', '.join(_FACTORIES)}")
    return name


def _module(table: dict, name, what: str, provides: str):
    check_name(name)
    if name not in table:
        raise ValueError(f"game {name!r} is registered without a {what} module, so it cannot "
                         f"be shown to people (register(..., {what}='module') names the module "
                         f"that provides {provides})")
    module = table[name]
    if isinstance(module, str):
        module = table[name] = importlib.import_module(module)
    return module


def presentation(name: str):
    """The module that draws game ``name`` for people (``render_text``, ``render_view``,
    ``seat_view``, ``move_text``, ``explain_result``, ``explain_watched``, ``stopped``,
    ``move_label``, ``phase_label``, ``card_moves``, ``typed_moves``, ``move_cards``,
    ``open_step``, ``options``, and optionally ``table_extras``: the web page's score, notes, last
    trick and rules panel, ``cardenv.web.extras``); ``ValueError`` if the game registered
    none."""
    return _module(_PRESENTATIONS, name, "presentation", "render_text, seat_view, move_text, ...")


def reasons(name: str):
    """The module that says why a move of game ``name`` is illegal (``why_illegal``);
    ``ValueError`` if the game registered none."""
    return _module(_REASONS, name, "reasons", "why_illegal")


def make_game(name: str, **options) -> Game:
    """The game ``name`` with ``options`` (``ConfigError``, a ``ValueError``, for a bad
    option; ``ValueError`` for an unknown game)."""
    factory = _FACTORIES[check_name(name)]
    if isinstance(factory, str):
        module, attribute = factory.split(":", 1)
        factory = getattr(importlib.import_module(module), attribute)
    return factory(**options)
