"""What a PIMC search may spend (``Budget``: worlds, rollouts, top k, depth, time limit, batch),
its bounds (``BOUNDS``, ``MAX_BATCH``) and the default ``MARGIN`` of its choice, with one check
of each option's value (``checked``, for a ``Budget`` field, a constructor argument and a spec's
text alike). No torch, no game: ``cardagents.search.pimc`` takes a ``Budget``, and
``cardagents.search.parse`` makes one from a spec's text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["BOUNDS", "MARGIN", "MAX_BATCH", "Budget", "checked"]

# the bounds a spec or a constructor argument must fall in
BOUNDS = {"worlds": (1, 4096), "rollouts": (1, 256), "top_k": (0, 1 << 16),
          "depth": (0, 1 << 16)}
MAX_BATCH = 1 << 16  # rollouts in lockstep at most
# z: another candidate than the rollout policy's own choice is played only for a paired gain
# above MARGIN standard errors (cardagents.search.pimc.choose; docs/results.md, the margin)
MARGIN = 1.5


def checked(key: str, value, name: str | None = None, shown: str | None = None):
    """``value`` of option ``key`` (``worlds``, ``rollouts``, ``top_k``, ``depth``, ``margin``,
    ``time``) as the search uses it, else a ``ValueError`` naming it ``name`` (default
    ``key``) and showing the value as ``shown`` (default its repr: a spec shows its text)."""
    name = key if name is None else name
    shown = repr(value) if shown is None else shown
    number = isinstance(value, (int, float, np.integer)) and not isinstance(value, bool)
    if key in BOUNDS:
        low, high = BOUNDS[key]
        if not number or isinstance(value, float) or not low <= value <= high:
            raise ValueError(f"{name} must be an int in {low}..{high}, got {shown}")
        return int(value)
    if key == "margin":
        if not number or not 0 <= value <= 10:  # (also refuses nan)
            raise ValueError(f"{name} must be a number in [0, 10], got {shown}")
        return float(value)
    if key == "time":
        if not number or not 0 < value <= 3600:  # also refuses nan and inf
            raise ValueError(f"{name} must be seconds in (0, 3600], got {shown}")
        return float(value)
    raise ValueError(f"{name}: not a numeric option of the search")


@dataclass(frozen=True)
class Budget:
    """What one search may spend (each field checked by ``checked``; ``ValueError`` naming it):

    - ``worlds``: hidden-card worlds sampled per decision;
    - ``rollouts``: rollouts per world and candidate;
    - ``top_k``: candidates, the ``top_k`` most likely under the prior (else the rollout
      policy, if it offers probabilities) and the rollout policy's own choice; 0: every legal
      action (as it is anyway where neither offers probabilities, e.g. heuristic rollouts
      without a prior);
    - ``depth``: rollouts stop after ``depth`` steps once the acting seat is to act again, valued
      by the leaf value; 0: to the end of the hand;
    - ``time_limit``: seconds per searched decision (``None``: none; then the search is
      deterministic for a seed);
    - ``batch``: rollouts in lockstep at most (memory).
    """

    worlds: int = 8
    rollouts: int = 1
    top_k: int = 2
    depth: int = 0
    time_limit: float | None = None
    batch: int = 4096

    def __post_init__(self):
        for key in ("worlds", "rollouts", "top_k", "depth"):
            object.__setattr__(self, key, checked(key, getattr(self, key)))
        if self.time_limit is not None:
            object.__setattr__(self, "time_limit", checked("time", self.time_limit,
                                                           "time_limit"))
        batch = self.batch
        if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
            raise ValueError(f"batch must be an int in 1..{MAX_BATCH}, got {batch!r}")
