"""Per-action features: what each legal move does in a position, declared once per game.

A policy that scores legal moves one by one (DouZero, DanZero) wants, beside the observation,
a few numbers about each move: its type, how strong it is, the points it carries, whether it
wins the trick now. A game registers them beside its ``layout``::

    action_features = staticmethod(module.action_features)   # the function below
    action_feature_pieces = module.PIECES                    # [Feature(name, size, doc)]

``action_features(observations, rows, actions)`` gives the ``(M, F)`` float32 features of
action ``actions[j]`` taken from observation ``observations[rows[j]]`` (a ``(B, D)`` float32
array in the game's observation layout). It reads nothing but these arrays and the game's
static tables, so it cannot see hidden cards, and the single env, ``VectorGame`` and a copy of
an observation all give the same numbers. A game without features sets ``action_features =
None`` (``CardGame``'s default); ``features_of`` then says so.

``Feature`` pieces lay the ``F`` columns out in order, like ``core.layout``'s observation
pieces; ``FeatureLayout`` gives their offsets, named views and the documentation table.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Feature(NamedTuple):
    """``size`` columns of the feature matrix, named ``name``, described by ``doc``."""

    name: str
    size: int
    doc: str


class FeatureLayout:
    """Offsets of the declared feature pieces (``offsets[name] = (start, stop)``)."""

    def __init__(self, pieces: list[Feature]):
        self.pieces = list(pieces)
        self.offsets: dict[str, tuple[int, int]] = {}
        start = 0
        for name, size, _ in self.pieces:
            if name in self.offsets or size < 1:
                raise ValueError(f"feature piece {name!r}: repeated name or size < 1")
            self.offsets[name] = (start, start + size)
            start += size
        self.size = start

    def views(self, features: np.ndarray) -> dict[str, np.ndarray]:
        """Named ``(M, size)`` views (no copies) of an ``(M, F)`` feature array."""
        return {name: features[:, a:b] for name, (a, b) in self.offsets.items()}

    def markdown_table(self) -> str:
        """The documentation table of the features, as the env docstrings carry it."""
        lines = ["| Index | Feature | Size | Description |", "|---|---|---|---|"]
        for name, size, doc in self.pieces:
            start, stop = self.offsets[name]
            lines.append(f"| {start}..{stop - 1} | `{name}` | {size} | {doc} |")
        return "\n".join(lines)


def check_inputs(observations, rows, actions, observation_size: int,
                 num_actions: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three inputs as ``(B, D)`` float32, ``(M,)`` int64, ``(M,)`` int64, or a
    ``ValueError`` that says what is wrong (a width that is not the game's observation, a row
    outside the batch, an action outside the catalogue)."""
    observations = np.asarray(observations)
    if observations.ndim != 2 or observations.shape[1] != observation_size:
        raise ValueError(f"observations must be (B, {observation_size}) (the game's observation "
                         f"layout), got shape {observations.shape}")
    observations = observations.astype(np.float32, copy=False)
    out = []
    for name, values, high in (("rows", rows, observations.shape[0]),
                               ("actions", actions, num_actions)):
        values = np.asarray(values)
        if values.ndim != 1 or not (np.issubdtype(values.dtype, np.integer) or values.size == 0):
            raise ValueError(f"{name} must be a 1-D int array, got {values.dtype} of shape "
                             f"{values.shape}")
        values = values.astype(np.int64, copy=False)
        if values.size and (values.min() < 0 or values.max() >= high):
            bad = values[(values < 0) | (values >= high)][0]
            raise ValueError(f"{name} holds {bad}, outside 0..{high - 1}")
        out.append(values)
    if out[0].shape != out[1].shape:
        raise ValueError(f"rows and actions must have the same length, got {out[0].size} and "
                         f"{out[1].size}")
    return observations, out[0], out[1]


def features_of(game):
    """``game.action_features``, or a ``ValueError`` saying that the game declares none."""
    function = getattr(game, "action_features", None)
    if function is None:
        raise ValueError(f"game {getattr(game, 'name', game)!r} declares no action features "
                         f"(its action_features is None; cardenv.core.action_features says how "
                         f"a game registers them)")
    return function
