"""What the batched engines share to keep a subset of their slots (``BatchEngine.keep``): the
new order of their rows, kept slots first, and the taking of each per-slot array's rows. Each
engine then moves its own row views (``cardenv.dagong.vector``, ``cardenv.dabang.vector``).
"""

from __future__ import annotations

import numpy as np


def kept_first(rows: np.ndarray, count: int, dirty: np.ndarray, sync) -> np.ndarray:
    """``(count,)`` int64: the slots ``rows`` (kept, in that order) then the dropped ones, each
    dropped slot whose state is behind its engine's arrays (``dirty``) first handed back up to
    date (``sync(i)``)."""
    gone = np.ones(count, dtype=bool)
    gone[rows] = False
    dropped = np.flatnonzero(gone)
    for i in dropped[dirty[dropped]].tolist():
        sync(i)
    return np.concatenate([rows, dropped])


def take_rows(engine, names, rows: np.ndarray) -> None:
    """Replace each per-slot array ``engine.<name>`` by its ``rows``."""
    for name in names:
        setattr(engine, name, getattr(engine, name)[rows])
