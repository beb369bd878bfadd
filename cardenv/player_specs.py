"""Players for this package's own programs (terminal play, the single-agent Gymnasium env):
``load_player(spec, game)`` turns a spec into an object with ``act(observation) -> action``.

``"random"`` (uniform over the legal actions) is built in. Every other spec is handed to the
factories that installed packages register in the ``cardenv.players`` entry-point group, each a
callable ``(spec, game, seed) -> player`` that raises ``ValueError`` for a spec it does not
know. The ``cardagents`` package of this repository registers ``cardagents.specs:make_agent`` there
(``"heuristic"``, or the path of a PPO checkpoint), so the env layer never imports an agent
itself: it only knows the entry-point group.

A player is anything with ``act(observation_dict) -> int`` (the env's observation dict); an
optional ``reseed(seed)`` restarts its random choices. ``load_player`` passes such an object
through unchanged, so programs accept both specs and objects. A search player (the agents'
PIMC) decides from the position itself: it sets ``needs_state = True`` and offers
``act_states(states)``; ``decide(player, state, seat)`` asks each kind its way, and every
program here plays its seats through it.
"""

from __future__ import annotations

from importlib.metadata import entry_points

import numpy as np

from cardenv.games import check_name

GROUP = "cardenv.players"
BUILT_IN = ("random",)


class RandomPlayer:
    """Uniform over the legal actions of the observation's mask; ``seed`` makes it
    reproducible."""

    name = "random"

    def __init__(self, game: str = "", seed: int | None = None):
        self.game = game
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask: is it this player's turn?")
        return int(legal[self.rng.integers(legal.size)])


def decide(player, state, observation: dict) -> int:
    """``player``'s action in ``state`` (whose seat to act sees ``observation``): from the state
    for a player with ``needs_state`` (it reads only what that seat may know), else from the
    observation."""
    if getattr(player, "needs_state", False):
        return int(player.act_states([state])[0])
    return int(player.act(observation))


def factories() -> list:
    """The registered player factories (entry points of the ``cardenv.players`` group)."""
    return list(entry_points(group=GROUP))


def load_player(spec, game: str, seed: int = 0):
    """The player ``spec`` names for ``game``; an object with ``act`` is returned as it is.
    ``ValueError`` with the reason (each factory's) when no factory knows ``spec``."""
    if hasattr(spec, "act"):
        return spec
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a player is a name, a checkpoint path or an object with act(); "
                         f"got {spec!r}")
    check_name(game)
    if spec in BUILT_IN:
        return RandomPlayer(game, seed)
    reasons = []
    for point in factories():
        try:
            return point.load()(spec, game, seed)
        except ValueError as exc:
            reasons.append(str(exc))
    if not reasons:
        raise ValueError(f"unknown player {spec!r}: cardenv knows {', '.join(BUILT_IN)}; agents "
                         f"(heuristic, PPO checkpoints) come from the cardagents package of this "
                         f"repository, registered when it is installed (pip install -e .)")
    raise ValueError("; ".join(reasons))


def player_name(spec) -> str:
    """A short name for a player spec or object (for tables and game records)."""
    if isinstance(spec, str):
        return spec
    return getattr(spec, "name", None) or type(spec).__name__
