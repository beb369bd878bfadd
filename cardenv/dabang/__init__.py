"""The Huludao Dabang rules engine (numpy only; no PettingZoo).

- ``DabangGame`` / ``DabangState``: options, positions, the automatic flow, serialization
  (``game.py``); the decision phases' vocabulary ``Phase`` (``phase.py``) and one module per
  phase with its legal actions and moves (``phases/``: ``deal``, ``tribute``, ``burial``,
  ``trick``).
- ``ACTIONS``: the action catalogue (``catalogue.py``).
- ``follow.play_mask``, ``follow.trick_winner``: vectorized play legality and trick comparison;
  ``batched_masks.legal_masks(states)`` / ``batched_masks.sides(state)``: the engine contract's
  batched queries
  (also ``DabangGame.legal_masks`` / ``.sides``);
  ``strength``: card strength and suit under a trump suit and level.
"""

from cardenv.dabang.catalogue import ACTIONS, NUM_ACTIONS, ActionInfo
from cardenv.dabang.game import DabangGame, DabangState
from cardenv.dabang.scoring import HandResult

__all__ = ["ACTIONS", "NUM_ACTIONS", "ActionInfo", "DabangGame", "DabangState", "HandResult"]
