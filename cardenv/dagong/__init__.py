"""The Xianning Dagong rules engine (numpy only; no PettingZoo).

- ``DagongGame`` / ``DagongState``: options, positions, moves, serialization (``game.py``).
- ``ACTIONS``, ``action_id``: the action catalogue (``catalogue.py``).
- ``legality.play_mask``: the vectorized legal-action mask for batches of hands.
"""

from cardenv.dagong.catalogue import ACTIONS, NUM_ACTIONS, ActionInfo, action_id
from cardenv.dagong.game import DagongGame, DagongState
from cardenv.dagong.scoring import HandResult
from cardenv.dagong import batch as _batch

# TEMPORARY (moves into the class body once the engine refactors land)
DagongGame.name = "dagong"
DagongGame.legal_masks = staticmethod(_batch.legal_masks)
DagongGame.sides = staticmethod(_batch.sides)

__all__ = ["ACTIONS", "NUM_ACTIONS", "ActionInfo", "action_id", "DagongGame", "DagongState",
           "HandResult"]
