"""What the games' world samplers share: the checks of ``game.sample_worlds(state, seat, n,
rng)``'s arguments, so that both games refuse bad input with the same errors.

A world sampler returns ``n`` complete states that agree with everything ``seat`` has seen (its
own cards, the public actions and what they imply), drawn with ``rng`` only from that
information; each game's own module (``cardenv.dagong.worlds``, ``cardenv.dabang.worlds``)
knows which constraints its rules put on the hidden cards.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.checks import check_int
from cardenv.core.errors import StateError

# the most worlds one call returns: each is a whole state (a few KB and a replay), so a larger
# n is more likely a mistake (n=10**9) than a wish; call again for more
MAX_WORLDS = 100_000


def check_sample_args(game, state, seat, n, rng) -> tuple[int, int]:
    """``(seat, n)`` as ints once the arguments of ``game.sample_worlds`` are valid.

    Raises ``TypeError`` if ``state`` is not a state of ``game``'s class or ``rng`` is not a
    ``numpy.random.Generator``; ``ValueError`` if ``state`` was made with other options, if
    ``seat`` is not a seat or ``n`` not an int in ``0..MAX_WORLDS``; ``StateError`` (a
    ``ValueError``) if the episode is over (no decision is left to sample worlds for).
    """
    what = f"{game.name}.sample_worlds"
    if not isinstance(state, game.state_class):
        raise TypeError(f"{what}: state must be a {game.state_class.__name__}, got "
                        f"{type(state).__name__}")
    if state.game is not game and state.game.options_dict() != game.options_dict():
        raise ValueError(f"{what}: the state was made with other options "
                         f"({state.game.options_dict()}) than this game "
                         f"({game.options_dict()})"[:400])
    seat = check_int(seat, f"{what}: seat", 0, game.num_players - 1, error=ValueError)
    n = check_int(n, f"{what}: n", 0, MAX_WORLDS, error=ValueError)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{what}: rng must be a numpy.random.Generator "
                        f"(numpy.random.default_rng(seed)), got {type(rng).__name__}")
    if state.is_over:
        raise StateError(f"{what}: the episode is over; there is no position to sample "
                         f"worlds for")
    return seat, n
