"""The uniform random agent: picks any legal action with equal probability."""

from __future__ import annotations

import numpy as np

from cardagents.players.base import Agent
from cardenv.player_specs import RandomPlayer
from cardenv.vector import legal_indices


class RandomAgent(RandomPlayer, Agent):
    """Uniform over the legal actions; ``seed`` makes it reproducible. Works for any game.
    ``act`` and ``reseed`` are cardenv's built-in random player's; this adds the batch."""

    name = "random"

    def act_batch(self, observations, masks) -> np.ndarray:
        """One uniformly random legal action per row of ``(B, N)`` masks, without a Python loop."""
        masks = np.asarray(masks)
        legal = legal_indices(masks)  # row-major: each row's legal actions, ascending
        counts = np.bincount(legal // masks.shape[1], minlength=len(masks))
        if not counts.all():
            raise ValueError("a row of the mask has no legal action")
        k = (self.rng.random(len(masks)) * counts).astype(np.int64)  # the k-th legal action
        return legal[np.cumsum(counts) - counts + k] % masks.shape[1]
