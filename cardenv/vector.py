"""Many games of one kind stepped in lockstep, with observations, masks and global states in
batch: the public batched engine (numpy only; no PettingZoo).

::

    from cardenv.vector import VectorGame

    games = VectorGame("dagong", num_envs=1024, seed=0, options={"hands": 1})
    games.current()        # (B,) int: the seat to act in each game
    games.observations()   # (B, D) float32: the acting seats' observations (the env's layout)
    games.masks()          # (B, N) bool: their legal actions
    games.states()         # (B, S) float32: global states (the env's state()), for critics
    rewards, ended = games.step(actions)   # (B, 4) float rewards of this step, (B,) bool
    games.finished         # records of ended games (Finished: slot, seed, returns, results)

Slot ``i`` plays the game seeded ``seed + i``; when a game ends its record goes to
``finished`` and the slot starts the next unused seed (``seed + num_envs``, then ``+ 1`` ...), so
that a slot always holds a game in progress. With the same seed and the same actions, slot ``i``
plays move for move, observation for observation, mask for mask and reward for reward the game
that ``raw_env(**options).reset(seed=seed + i)`` plays (a property test proves it on hundreds of
games per game and option set). ``options`` may be one dict or a list: slot ``i`` then always
uses ``options[i % len(options)]`` (e.g. Dabang first hands and later hands side by side).

Rewards are the env's: each hand's reward when it ends (``Finished.returns`` sums them), zero on
other steps. ``step`` checks every slot's action before applying any: a wrong shape or type, an
action out of range or illegal in its slot raises ``ValueError`` naming the slot, and no game
changes. Any game of ``cardenv.games``' registry works; the masks come from the game's
vectorized legality core (``Game.legal_masks``), the observations from one gather over the
stacked state buffers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardenv.core.checks import check_int, is_int
from cardenv.games import make_game


@dataclass
class Finished:
    """An ended game: the slot it ran in, its seed, each seat's total reward (``returns``), its
    hand results, and its actions when the engine keeps them (``keep_history``)."""

    index: int
    seed: int
    returns: list
    results: list
    history: list = field(default_factory=list)
    truncated: bool = False


def game_variants(game: str, options: dict | list | None = None) -> list:
    """The games (one per rules variant) that ``options`` -- one option dict or a non-empty list
    of them -- makes of ``game``; ``ConfigError`` / ``ValueError`` for bad options or game."""
    variants = options if isinstance(options, list) else [{} if options is None else options]
    if not variants or not all(isinstance(v, dict) for v in variants):
        raise ValueError(f"options must be a dict or a non-empty list of dicts, got {options!r}")
    return [make_game(game, **v) for v in variants]


class VectorGame:
    """``num_envs`` games of ``game`` in lockstep (see the module docstring).

    Args:
        game: a registered game name (``"dagong"``, ``"dabang"``, ...).
        num_envs: how many games run at once.
        seed: slot ``i`` plays seed ``seed + i``; ended games take the next unused seeds.
        options: the game's rules options, one dict or a list (slot ``i`` uses
            ``options[i % len(options)]``).
        seeds: instead of ``seed``, the first seed of each slot (``num_envs`` is then optional);
            later games take seeds from ``max(seeds) + 1`` on.
        keep_history: record each ended game's actions in ``Finished.history``.

    ``slots[i]`` is the rules-engine state (``core.protocol.GameState``) that slot ``i`` holds.
    """

    def __init__(self, game: str, num_envs: int | None = None, seed: int = 0,
                 options: dict | list | None = None, *, seeds=None, keep_history: bool = False):
        self.name = game
        self.variants = game_variants(game, options)
        self.game = self.variants[0]
        self.num_actions = self.game.num_actions
        self.keep_history = bool(keep_history)
        if seeds is None:
            check_int(num_envs, "num_envs", 1, error=ValueError)
            check_int(seed, "seed", 0, error=ValueError)
            seeds = [seed + i for i in range(num_envs)]
        else:
            seeds = [check_int(s, f"seeds[{i}]", 0, error=ValueError)
                     for i, s in enumerate(seeds)]
            if not seeds or (num_envs is not None and num_envs != len(seeds)):
                raise ValueError(f"seeds must hold num_envs ({num_envs}) seeds, got "
                                 f"{len(seeds)}")
        self.seeds = seeds
        self.next_seed = max(seeds) + 1
        self.slots = [self.variant(i).new_state(s) for i, s in enumerate(seeds)]
        self.finished: list[Finished] = []

    def __len__(self) -> int:
        return len(self.slots)

    @property
    def num_envs(self) -> int:
        return len(self.slots)

    def variant(self, slot: int):
        """The game (rules options) that slot ``slot`` plays."""
        return self.variants[slot % len(self.variants)]

    # --- batched queries ------------------------------------------------------------------

    def current(self) -> np.ndarray:
        """``(B,)`` int: the seat to act in each slot."""
        return np.fromiter((g.current_player for g in self.slots), dtype=np.int64,
                           count=len(self.slots))

    def observations(self, seats=None) -> np.ndarray:
        """``(B, D)`` float32: each slot's observation for the seat to act (or ``seats``)."""
        return self.game.observations(self.slots, seats)

    def masks(self) -> np.ndarray:
        """``(B, N)`` bool: the legal actions of the seat to act in each slot."""
        return self.game.legal_masks(self.slots)

    def states(self) -> np.ndarray:
        """``(B, S)`` float32: each slot's global state (every hand included)."""
        return self.game.global_states(self.slots)

    # --- stepping -------------------------------------------------------------------------

    def step(self, actions) -> tuple[np.ndarray, np.ndarray]:
        """Play one action per slot: ``(rewards (B, 4) float, ended (B,) bool)``. An ended
        game's record is in ``finished`` and its slot already holds the next game."""
        actions = self._checked(actions)
        rewards = np.zeros((len(self.slots), 4))
        ended = np.zeros(len(self.slots), dtype=bool)
        for i, (state, action) in enumerate(zip(self.slots, actions.tolist())):
            state.apply(action)
            if any(state.last_rewards):
                rewards[i] = state.last_rewards
            if state.is_over:
                ended[i] = True
                self._finish(i)
                self.restart(i, self.next_seed)
                self.next_seed += 1
        return rewards, ended

    def restart(self, slot: int, seed: int) -> None:
        """Start a new game seeded ``seed`` in ``slot`` (the game it held is dropped)."""
        check_int(slot, "slot", 0, len(self.slots) - 1, error=ValueError)
        self.seeds[slot] = check_int(seed, "seed", 0, error=ValueError)
        self.slots[slot] = self.variant(slot).new_state(seed)

    def _finish(self, slot: int) -> None:
        state = self.slots[slot]
        self.finished.append(Finished(slot, self.seeds[slot], list(state.returns),
                                      list(state.results),
                                      list(state.history) if self.keep_history else [],
                                      bool(state.truncated)))

    def _checked(self, actions) -> np.ndarray:
        """``actions`` as ``(B,)`` int64 if every slot's is legal, else ``ValueError`` naming
        the slot (nothing is applied)."""
        array = np.asarray(actions)
        n = len(self.slots)
        if array.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), one per slot, got {array.shape}")
        if array.size and not np.issubdtype(array.dtype, np.integer):
            bad = next((i for i, a in enumerate(actions) if not is_int(a)), 0)
            raise ValueError(f"slot {bad}: action must be an int, got {actions[bad]!r}")
        array = array.astype(np.int64, copy=False)
        out = np.flatnonzero((array < 0) | (array >= self.num_actions))
        if out.size:
            i = int(out[0])
            raise ValueError(f"slot {i}: action {array[i]} is outside 0..{self.num_actions - 1}")
        for i, (state, action) in enumerate(zip(self.slots, array.tolist())):
            if not state.is_legal(action):  # cheap after masks(): the states keep them
                raise ValueError(f"slot {i} (seed {self.seeds[i]}): action {action} "
                                 f"({self.variant(i).action_info(action).text}) is illegal for "
                                 f"seat {state.current_player}")
        return array
