"""The Xianning Dagong rules engine (numpy only; no PettingZoo).

- ``DagongGame`` / ``DagongState``: options, positions, moves, serialization (``game.py``).
- ``ACTIONS``, ``action_id``: the action catalogue (``catalogue.py``).
- ``legality.play_mask``: the vectorized legal-action mask for batches of hands;
  ``batched_masks.legal_masks(states)`` / ``batched_masks.sides(state)``: the engine contract's
  batched queries
  (also ``DagongGame.legal_masks`` / ``.sides``).
"""

from cardenv.dagong.catalogue import ACTIONS, NUM_ACTIONS, ActionInfo, action_id
from cardenv.dagong.game import DagongGame, DagongState
from cardenv.dagong.scoring import HandResult

__all__ = ["ACTIONS", "NUM_ACTIONS", "ActionInfo", "action_id", "DagongGame", "DagongState",
           "HandResult"]
