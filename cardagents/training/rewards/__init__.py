"""What the learner is rewarded with, beyond the game's own rewards: here, per-game reward shaping
(an extra reward at each hand's end, by game name; a game without an entry has none); in
``match_value``, the Dabang match value and the match reward built on it (``reward: match``).
The one room of ``cardagents.training`` that names games. Shaping only ever reaches the
learner's advantages, never its reported returns or any evaluation.

- ``dabang``: ``score_shaping * (S - 160) / 80`` to every seat of the attackers and its negative
  to the defenders, ``S`` the attackers' card points. The levels a hand moves are a step
  function of ``S``, so this adds a dense, aligned signal to the many hands whose level change
  is the same either way.
- ``dagong``: ``score_shaping * sign(payoff)`` to every seat: a bonus for winning the hand and its
  negative for losing it, whatever the multiplier (1, 2, 4; 硬牌 6). The duplicate evaluation
  counts a deal pair won when a side's two games sum above the other side's, while the payoff
  alone weighs a hand by its multiplier; the bonus leans the learner towards winning hands.
  Measured in docs/results.md ("A bonus for winning the hand").
"""

from __future__ import annotations

import numpy as np


def dabang_score(result, weight: float) -> np.ndarray:
    """Each seat's shaping reward for a finished Dabang hand (``result``: its ``HandResult``)."""
    bonus = weight * (result.score - 160) / 80
    return np.array([bonus if seat % 2 == result.attackers else -bonus for seat in range(4)])


def dagong_win(result, weight: float) -> np.ndarray:
    """Each seat's shaping reward for a finished Dagong hand (``result``: its ``HandResult``):
    ``weight`` to the winners, ``-weight`` to the losers (the sign of its payoff)."""
    return weight * np.sign(np.asarray(result.payoff, dtype=float))


SHAPING = {"dabang": dabang_score, "dagong": dagong_win}


def shaping_for(game: str):
    """``f(result, weight) -> (4,) rewards`` for ``game``, or ``None`` if it has no shaping."""
    return SHAPING.get(game)
