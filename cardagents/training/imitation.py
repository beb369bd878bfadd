"""Demonstrations for ``train.py``'s warm start: a player (the heuristic) in self-play on all four
seats of a ``VectorGame``, each of its decisions a row -- observation, legal mask, the action
taken, the global state for a critic that reads it -- in the order played, with the final reward
of the seat that made it once its game has ended (``Demonstrator.chunk`` -> ``Demonstrations``).

Every decision of a chunk is kept, in play order: the policy learns from all of them, the value
only from those whose game ended within the chunk (``has_value``). (This is not
``cardagents.training.selfplay.Episodes``, which hands over closed episodes only, slot by slot: the
same decisions in another order and fewer of them, hence other minibatches and another warm start
for the same seed.) The games go on from chunk to chunk; a chunk's decisions whose game ends after
it keep no value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Demonstrations:
    """A chunk of decisions, one row each, in the order played."""

    obs: np.ndarray  # (n, D) float32 observations of the seat to act
    mask: np.ndarray  # (n, N) bool legal masks
    action: np.ndarray  # (n,) the actions the player took
    ret: np.ndarray  # (n,) float32 the seat's final reward (0 where has_value is False)
    has_value: np.ndarray  # (n,) bool: the decision's game ended within the chunk
    state: np.ndarray | None = None  # (n, S) float32 global states (``with_states``)

    def __len__(self) -> int:
        return len(self.action)


class Demonstrator:
    """``player`` on every seat of ``games`` (a ``VectorGame``); ``with_states`` keeps the
    global states of its decisions."""

    def __init__(self, games, player, with_states: bool = False):
        self.games, self.player, self.with_states = games, player, with_states
        # each slot's game, numbered: a decision belongs to (slot, number)
        self.number = np.zeros(len(games), dtype=np.int64)

    def chunk(self, size: int) -> Demonstrations:
        """The next ``size`` decisions (the last step's extra rows are dropped)."""
        games, n = self.games, len(self.games)
        steps: dict[str, list] = {k: [] for k in ("obs", "mask", "action", "state", "seat",
                                                  "game")}
        ended: dict[int, list] = {}  # game key -> its seats' returns
        count = 0
        while count < size:
            obs, masks, seats = games.observations(), games.masks(), games.current()
            actions = self.player.act_batch(obs, masks)
            if self.with_states:
                steps["state"].append(games.states())
            for key, value in (("obs", obs), ("mask", masks), ("action", actions),
                               ("seat", seats), ("game", self.number * n + np.arange(n))):
                steps[key].append(value)
            count += n
            for done in games.step(actions).games:
                ended[int(self.number[done.index]) * n + done.index] = done.returns
                self.number[done.index] += 1
        rows = {k: np.concatenate(v)[:size] for k, v in steps.items() if v}
        ret = np.zeros(size, dtype=np.float32)
        has_value = np.zeros(size, dtype=bool)
        for key, returns in ended.items():
            mine = rows["game"] == key
            ret[mine] = np.asarray(returns, dtype=np.float32)[rows["seat"][mine]]
            has_value |= mine
        return Demonstrations(rows["obs"], rows["mask"], rows["action"], ret, has_value,
                              rows.get("state"))
