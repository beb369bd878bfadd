"""Many games of one variant stepped in lockstep, with observations and masks in batch.

``BatchedGames(game, n, options, seed)`` holds ``n`` rules-engine states (no AEC env per
sample) of any game in ``cardenv.games``'s registry, and reaches them only through the engine
contract (``cardenv.core.protocol``): each step, ``observations()`` and ``masks()`` are the
game's batched ``observations`` / ``legal_masks`` over all the states (one gather over the
stacked buffers, the game's vectorized legality core), and ``step(actions)`` applies one action
per game and returns the rewards; a finished game is recorded in ``finished`` and replaced by a
new one.

``play_batched(...)`` runs whole games with a seat -> agent assignment per game, every agent
acting in batch on the games where it is to move; it is what training and evaluation use.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardenv.games import make_game


@dataclass
class Finished:
    """A finished game: its seed, each seat's total reward and its hand results."""

    index: int  # which slot of the batch it ran in
    seed: int
    returns: list
    results: list
    history: list = field(default_factory=list)


def game_variants(game: str, options: dict | list | None = None) -> list:
    """The games (one per rules variant) that ``options`` -- one option dict or a non-empty list
    of them -- makes of ``game``; ``ConfigError``/``ValueError`` for bad options or game."""
    variants = options if isinstance(options, list) else [options or {}]
    if not variants or not all(isinstance(v, dict) for v in variants):
        raise ValueError("options must be a dict or a non-empty list of dicts")
    return [make_game(game, **v) for v in variants]


class BatchedGames:
    """``n`` games of ``game`` (a registered name, e.g. ``"dagong"``) with ``options``, seeded
    ``seeds[i]`` (default ``seed + i``) and re-seeded from a counter when they end.

    ``options`` may also be a list of option dicts: slot ``i`` then always plays with
    ``options[i % len(options)]`` (e.g. Dabang first hands and later hands side by side)."""

    def __init__(self, game: str, n: int, options: dict | None = None, seed: int = 0,
                 seeds=None, keep_history: bool = False):
        self.name = game
        self.variants = game_variants(game, options)
        self.game = self.variants[0]
        self.num_actions = self.game.num_actions
        self.keep_history = keep_history
        seeds = list(seeds) if seeds is not None else [seed + i for i in range(n)]
        self.next_seed = max(seeds) + 1
        self.states = [self.variant(i).new_state(s) for i, s in enumerate(seeds)]
        self.seeds = seeds
        self.finished: list[Finished] = []

    def __len__(self):
        return len(self.states)

    def variant(self, slot: int):
        """The game (rules options) that slot ``slot`` plays."""
        return self.variants[slot % len(self.variants)]

    def current(self) -> np.ndarray:
        return np.array([s.current_player for s in self.states])

    def observations(self, seats=None) -> np.ndarray:
        """``(n, D)`` float32 observations of the players to act (or of ``seats``)."""
        return self.game.observations(self.states, seats)

    def masks(self) -> np.ndarray:
        """``(n, N)`` legal-action masks of the players to act."""
        return self.game.legal_masks(self.states)

    def step(self, actions) -> tuple[np.ndarray, np.ndarray]:
        """Apply one action per game: ``(rewards (n, 4), ended (n,))``. An ended game is in
        ``finished`` and its slot already holds a new game."""
        rewards = np.zeros((len(self.states), 4))
        ended = np.zeros(len(self.states), dtype=bool)
        for i, (state, action) in enumerate(zip(self.states, actions)):
            state.apply(int(action))
            if any(state.last_rewards):
                rewards[i] = state.last_rewards
            if state.is_over:
                ended[i] = True
                self.finished.append(Finished(i, self.seeds[i], list(state.returns),
                                              list(state.results),
                                              list(state.history) if self.keep_history else []))
                self.seeds[i] = self.next_seed
                self.next_seed += 1
                self.states[i] = self.variant(i).new_state(self.seeds[i])
        return rewards, ended


def partnership(state) -> tuple[list[int], list[int]]:
    """The two sides of the hand about to be played, as dealt (the game's ``sides``): e.g.
    Dabang's fixed teams, or Dagong's dealer and the holder of the called card's twin."""
    return state.game.sides(state)


def play_batched(game: str, agents_by_seat, seeds, options: dict | None = None,
                 batch: int = 256) -> list[Finished]:
    """Play one game per seed to the end; ``agents_by_seat(seed_index) -> [agent] * 4`` gives
    each game's seat assignment. Games run ``batch`` at a time in lockstep; each distinct agent
    acts in one ``act_batch`` call per step on all the games where it is to move. Returns the
    finished games in seed order."""
    seeds = list(seeds)
    results: dict[int, Finished] = {}
    todo = list(range(len(seeds)))
    slots = todo[:batch]
    todo = todo[batch:]
    games = BatchedGames(game, len(slots), options, seeds=[seeds[j] for j in slots])
    assign = {slot: agents_by_seat(j) for slot, j in enumerate(slots)}
    owner = dict(enumerate(slots))
    active = set(range(len(slots)))
    while active:
        index = sorted(active)
        obs = games.observations()
        masks = games.masks()
        seats = games.current()
        actions = np.zeros(len(games), dtype=np.int64)
        groups: dict[int, list[int]] = {}
        for i in index:
            groups.setdefault(id(assign[i][seats[i]]), []).append(i)
        for members in groups.values():
            agent = assign[members[0]][seats[members[0]]]
            actions[members] = agent.act_batch(obs[members], masks[members])
        before = len(games.finished)
        _step_some(games, actions, index)
        for done in games.finished[before:]:
            results[owner[done.index]] = done
            if todo:
                j = todo.pop(0)
                games.states[done.index] = games.variant(done.index).new_state(seeds[j])
                games.seeds[done.index] = seeds[j]
                assign[done.index] = agents_by_seat(j)
                owner[done.index] = j
            else:
                active.discard(done.index)
    return [results[j] for j in range(len(seeds))]


def _step_some(games: BatchedGames, actions, index) -> None:
    """Step only the games in ``index`` (the others are finished and idle)."""
    if len(index) == len(games):
        games.step(actions)
        return
    for i in index:
        state = games.states[i]
        state.apply(int(actions[i]))
        if state.is_over:
            games.finished.append(Finished(i, games.seeds[i], list(state.returns),
                                           list(state.results)))
