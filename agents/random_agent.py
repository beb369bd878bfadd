"""The uniform random agent: picks any legal action with equal probability."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    """``act(observation)`` returns a uniformly random legal action of a Dict observation.

    Args:
        seed: seeds the agent's own generator, so that runs are reproducible.
    """

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask: is it this agent's turn?")
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, masks: np.ndarray) -> np.ndarray:
        """One uniformly random legal action per row of a ``(B, N)`` mask, without a Python loop."""
        masks = np.asarray(masks, dtype=bool)
        if not masks.any(axis=1).all():
            raise ValueError("a row of the mask has no legal action")
        # the k-th legal action of each row, k uniform in [0, legal count)
        counts = masks.sum(axis=1)
        k = (self.rng.random(len(masks)) * counts).astype(np.int64)
        return (masks.cumsum(axis=1) > k[:, None]).argmax(axis=1)
