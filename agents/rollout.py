"""Many games of one variant stepped in lockstep, with observations and masks in batch.

``BatchedGames(game, n, options, seed)`` holds ``n`` rules-engine states (no AEC env per
sample). Each step, ``observations()`` gathers the ``(n, D)`` observations of the players to act
with one gather over the stacked state buffers, and ``masks()`` computes the ``(n, N)`` legal
masks with the games' vectorized cores (Dagong: ``legality.play_mask``; Dabang:
``follow.play_mask`` for play steps). ``step(actions)`` applies one action per game and returns
the rewards; a finished game is recorded in ``finished`` and replaced by a new one.

``play_batched(...)`` runs whole games with a seat -> agent assignment per game, every agent
acting in batch on the games where it is to move; it is what training and evaluation use.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

import numpy as np

from agents.base import check_game


@dataclass
class Finished:
    """A finished game: its seed, each seat's total reward and its hand results."""

    index: int  # which slot of the batch it ran in
    seed: int
    returns: list
    results: list
    history: list = field(default_factory=list)


class BatchedGames:
    """``n`` games of ``game`` (``"dagong"`` / ``"dabang"``) with ``options``, seeded
    ``seeds[i]`` (default ``seed + i``) and re-seeded from a counter when they end.

    ``options`` may also be a list of option dicts: slot ``i`` then always plays with
    ``options[i % len(options)]`` (e.g. Dabang first hands and later hands side by side)."""

    def __init__(self, game: str, n: int, options: dict | None = None, seed: int = 0,
                 seeds=None, keep_history: bool = False):
        self.name = check_game(game)
        module = importlib.import_module(f"cardenv.{game}")
        make = getattr(module, "DagongGame" if game == "dagong" else "DabangGame")
        variants = options if isinstance(options, list) else [options or {}]
        if not variants:
            raise ValueError("options must be a dict or a non-empty list of dicts")
        self.variants = [make(**v) for v in variants]
        self.game = self.variants[0]
        self.layout = self.game.layout
        self.num_actions = self.game.num_actions
        self.keep_history = keep_history
        seeds = list(seeds) if seeds is not None else [seed + i for i in range(n)]
        self.next_seed = max(seeds) + 1
        self.states = [self.variant(i).new_state(s) for i, s in enumerate(seeds)]
        self.seeds = seeds
        self.finished: list[Finished] = []
        self._obs_index = self.layout.observation_index
        if game == "dagong":
            from cardenv.dagong import catalogue, legality
            self._legality, self._cat = legality, catalogue
        else:
            from cardenv.dabang import catalogue, follow
            self._follow, self._cat = follow, catalogue

    def __len__(self):
        return len(self.states)

    def variant(self, slot: int):
        """The game (rules options) that slot ``slot`` plays."""
        return self.variants[slot % len(self.variants)]

    def current(self) -> np.ndarray:
        return np.array([s.current for s in self.states])

    def observations(self, seats=None) -> np.ndarray:
        """``(n, D)`` float32 observations of the players to act (or of ``seats``)."""
        buffers = np.stack([s.buffer for s in self.states])
        seats = self.current() if seats is None else np.asarray(seats)
        index = self._obs_index[seats]
        return np.take_along_axis(buffers, index, axis=1).astype(np.float32)

    def masks(self) -> np.ndarray:
        """``(n, N)`` legal-action masks of the players to act."""
        return self._dagong_masks() if self.name == "dagong" else self._dabang_masks()

    def _dagong_masks(self) -> np.ndarray:
        cat = self._cat
        masks = np.zeros((len(self.states), self.num_actions), dtype=bool)
        play = [i for i, s in enumerate(self.states) if s.phase == "play"]
        if play:
            hands = np.stack([self.states[i].v["hand"][self.states[i].current] for i in play])
            standing = np.array([self.states[i].standing for i in play])
            called = np.array([self.states[i].called for i in play])
            masks[play] = self._legality.play_mask(hands, standing, called)
            for i in play:
                self.states[i].use_legal(masks[i])
        for i, s in enumerate(self.states):
            if s.phase == "solo":
                masks[i, [cat.SOLO_DECLINE, cat.SOLO_DECLARE]] = True
        return masks

    def _dabang_masks(self) -> np.ndarray:
        cat = self._cat
        n = len(self.states)
        masks = np.zeros((n, self.num_actions), dtype=bool)
        play = [i for i, s in enumerate(self.states) if s.phase == "play"]
        if play:
            states = [self.states[i] for i in play]
            hands = np.stack([s.v["hand"][s.current] for s in states])
            partial = np.zeros_like(hands)
            for row, s in enumerate(states):
                for kind, count in s.partial.items():
                    partial[row, kind] = count
            dead = np.array([s.game.options["follow"] == "dead" for s in states])
            masks[play, cat.PLAY:cat.PLAY + 216] = self._follow.play_mask(
                hands, partial, np.array([s.led_kind for s in states]),
                np.array([s.k for s in states]), np.array([s.trump for s in states]),
                np.array([s.level for s in states]), dead)
            for i, s in zip(play, states):
                s.use_legal(masks[i])
        for i, s in enumerate(self.states):
            if s.phase != "play":
                masks[i, s.legal_actions()] = True
        return masks

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
    """The two sides of the hand about to be played, as known from the deal: Dabang's fixed
    teams (seats 0, 2 and 1, 3); in Dagong, the dealer and the holder of the called card's twin
    against the other two (a dealer holding both called cards: alone against three)."""
    if not hasattr(state, "partner"):
        return [0, 2], [1, 3]
    side = [state.dealer] + ([state.partner] if state.partner is not None else [])
    return sorted(side), [s for s in range(4) if s not in side]


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
