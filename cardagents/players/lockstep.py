"""Whole games played in lockstep by seated agents, on the public batched engine
``cardenv.vector.VectorGame`` (any registered game, observations and masks in batch).

``play_seated(game, seating, seeds)`` runs one game per seed, every agent acting in batch on the
games where it is to move, the seating of each game chosen from its state as dealt (evaluation
seats the deal's sides, ``cardagents.evaluation.duplicate``); ``play_batched`` is the same with a
seating per seed index. A game is a made ``Game`` (``cardenv.games.make_game``, carrying its rules
options); ``as_game`` makes one from a registered name and options for the callers that name a game.

The pieces every lockstep loop shares live here too: ``seat_side`` (one agent on a side, another
on the other seats), ``draw_side`` (a side of the deal drawn at random: the learner's in
training), ``act_grouped`` (each distinct agent acts once per step, on all its rows) and
``LearnerSeats``, who plays each slot when a learner plays one side against an opponent (PPO
collection, ``cardagents.training.selfplay``; distillation's own games,
``cardagents.training.distill``).
"""

from __future__ import annotations

import itertools

import numpy as np

from cardenv.vector import Finished, VectorGame, game_variants

__all__ = ["LearnerSeats", "act_grouped", "as_game", "draw_side", "partnership", "play_batched",
           "play_seated", "seat_side"]


def as_game(game, options: dict | None = None):
    """``game`` if it is already a made game (a ``Game``: then ``options`` must be ``None``),
    else the registered game named ``game`` with ``options`` (checked by the game)."""
    if not isinstance(game, str):
        if options is not None:
            raise ValueError(f"options go with a game's name, not a made game ({game.name}): "
                             f"make the game with them")
        return game
    return game_variants(game, options)[0]


def partnership(state) -> tuple[list[int], list[int]]:
    """The two sides of the hand about to be played, as dealt (the game's ``sides``): e.g.
    Dabang's fixed teams, or Dagong's dealer and the holder of the called card's twin."""
    return state.game.sides(state)


def draw_side(state, rng: np.random.Generator) -> list[int]:
    """One of the two sides of the hand ``state`` is about to play (``partnership``), drawn
    with one ``rng.integers(2)``."""
    return partnership(state)[int(rng.integers(2))]


def seat_side(side, inside, outside, players: int = 4) -> list:
    """The seating that puts ``inside`` on the seats of ``side`` and ``outside`` on the
    others."""
    return [inside if seat in side else outside for seat in range(players)]


def act_grouped(actions, rows, agent_of, obs, masks, state_of=None, snapshots=None) -> None:
    """``actions[rows]`` chosen by their agents (``agent_of[row]``): each distinct agent acts
    once, in one ``act_batch`` on all its rows, in the order of its first row. An agent with
    ``needs_state`` (a search agent, ``cardagents.players.base``) acts in one ``act_states`` on
    the rows' states (``state_of(row)``); an agent that holds several players (a pool of
    frozen snapshots) is told each row's (``snapshots[row]``, where it is not -1)."""
    groups: dict = {}
    for i in rows:
        who = agent_of[i]
        groups.setdefault(id(who), (who, []))[1].append(i)
    for who, members in groups.values():
        if getattr(who, "needs_state", False):
            actions[members] = who.act_states([state_of(i) for i in members])
        elif snapshots is not None and snapshots[members[0]] >= 0:
            actions[members] = who.act_batch(obs[members], masks[members], snapshots[members])
        else:
            actions[members] = who.act_batch(obs[members], masks[members])


class LearnerSeats:
    """Who plays each of ``slots`` games when a learner takes one side and an opponent the
    other seats: ``learner`` ``(slots, players)`` bool, each slot's ``opponent`` and, for an
    opponent holding several players (a frozen pool), the ``snapshot`` that plays (else -1).
    The learner's actions are its caller's; ``opponents_act`` fills the others'."""

    def __init__(self, slots: int, players: int):
        self.learner = np.zeros((slots, players), dtype=bool)
        self.opponent: list = [None] * slots
        self.snapshot = np.full(slots, -1, dtype=np.int64)

    def seat(self, slot: int, side, opponent, snapshot: int = -1) -> None:
        """The learner on ``side``'s seats of ``slot``'s game, ``opponent`` on the others."""
        self.learner[slot] = seat_side(side, True, False, self.learner.shape[1])
        self.opponent[slot] = opponent
        self.snapshot[slot] = snapshot

    def to_act(self, seats: np.ndarray) -> np.ndarray:
        """``(B,)`` bool: whether the learner holds the seat to act (``seats``) in each slot."""
        return self.learner[np.arange(len(seats)), seats]

    def opponents_act(self, actions, rows, obs, masks, state_of=None) -> None:
        """``actions[rows]`` (rows where an opponent is to act) chosen by the opponents, each
        acting once on all its rows (``act_grouped``; a search opponent on the rows' states,
        ``state_of(row)``)."""
        act_grouped(actions, rows, self.opponent, obs, masks, state_of, snapshots=self.snapshot)


def play_batched(game, agents_by_seat, seeds, options: dict | None = None,
                 batch: int = 256, progress=None, keep_history: bool = False) -> list[Finished]:
    """``play_seated`` with ``agents_by_seat(seed_index) -> [agent] * 4``; ``game`` is a made
    game or a registered name (with ``options``)."""
    return play_seated(as_game(game, options), lambda j, _dealt: agents_by_seat(j), seeds,
                       batch, progress, keep_history)


def play_seated(game, seating, seeds, batch: int = 256, progress=None,
                keep_history: bool = False, dealt: list | None = None) -> list[Finished]:
    """Play one game of ``game`` (a made ``Game``) per seed to the end; ``seating(seed_index,
    dealt) -> [agent] * 4`` gives each game's seat assignment, ``dealt`` being its state before
    any move (read it, do not change it). Games run ``batch`` at a time in lockstep; each
    distinct agent acts in one ``act_batch`` call per step on all the games where it is to move
    (an agent with ``needs_state``, in one ``act_states`` call on those games' states).
    Returns the finished games in seed order; ``progress(count)`` is called with the count
    finished so far whenever it grows. ``keep_history`` keeps each game's actions in
    ``Finished.history`` (for game records; off by default, as it costs a copy of every game's
    history). ``dealt``: each seed's state as dealt, when the caller has them (each game plays
    a clone: a seed is dealt once however often it is played)."""
    seeds = list(seeds)
    dealt = [game.new_state(s) for s in seeds] if dealt is None else dealt
    results: dict[int, Finished] = {}
    todo = list(range(len(seeds)))
    slots = todo[:batch]
    todo = todo[batch:]
    # the games after the first batch wait in the engine's queue, which starts them in order as
    # games end; then a slot with nothing left to play steps copies of a game already dealt
    # (the engine always holds a game in progress; their results are dropped): each seed is
    # dealt once (above), however many games and slots there are
    queue = itertools.chain((dealt[j].clone() for j in list(todo)),  # todo shrinks below
                            (dealt[0].clone() for _ in itertools.count()))
    games = VectorGame(game, states=[dealt[j].clone() for j in slots], queue=queue,
                       keep_history=keep_history)
    assign = {slot: seating(j, dealt[j]) for slot, j in enumerate(slots)}
    owner = dict(enumerate(slots))
    active = set(range(len(slots)))
    while active:
        obs = games.observations()
        masks = games.masks()
        seats = games.current()
        # a slot whose games are all played keeps stepping a spare game on its first legal
        # action
        actions = masks.argmax(axis=1)
        agent_of = {i: assign[i][seats[i]] for i in active}
        act_grouped(actions, sorted(active), agent_of, obs, masks, lambda i: games.slots[i])
        ended = games.step(actions).games
        for done in ended:
            slot = done.index
            if slot not in active:
                continue
            results[owner[slot]] = done
            if todo:  # the slot already holds the queue's next game: dealt[todo[0]]
                j = todo.pop(0)
                assign[slot] = seating(j, dealt[j])
                owner[slot] = j
            else:
                active.discard(slot)
        if progress is not None and ended:
            progress(len(results))
    return [results[j] for j in range(len(seeds))]
