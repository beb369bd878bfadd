"""Named views of a flat observation vector, from the game's declared layout.

``ObsView("dagong")(obs)["hand"]`` is the observer's hand (54 counts); works on one vector or a
``(B, D)`` batch (then each piece has a leading batch axis). Piece names and meanings are the
index table of ``cardenv.envs.<game>``.
"""

from __future__ import annotations

import numpy as np

from cardenv.games import make_game


class ObsView:
    def __init__(self, game: str):
        layout = make_game(game).layout  # games with a declared layout (core.layout)
        self.pieces = {name: (start, stop, shape)
                       for name, start, stop, shape, _ in layout.observation_pieces()}
        self.size = layout.observation_size

    def __call__(self, obs) -> dict[str, np.ndarray]:
        obs = np.asarray(obs)
        lead = obs.shape[:-1]
        return {name: obs[..., start:stop].reshape(*lead, *shape)
                for name, (start, stop, shape) in self.pieces.items()}

    def piece(self, obs, name: str) -> np.ndarray:
        start, stop, shape = self.pieces[name]
        obs = np.asarray(obs)
        return obs[..., start:stop].reshape(*obs.shape[:-1], *shape)
