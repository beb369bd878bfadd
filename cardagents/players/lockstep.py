"""Whole games played in lockstep by seated agents, on the public batched engine
``cardenv.vector.VectorGame`` (any registered game, observations and masks in batch).

``play_seated(game, seating, seeds)`` runs one game per seed, every agent acting in batch on the
games where it is to move, the seating of each game chosen from its state as dealt (evaluation
seats the deal's sides, ``cardagents.evaluation.duplicate``); ``play_batched`` is the same with a
seating per seed index. A game is a made ``Game`` (``cardenv.games.make_game``, carrying its rules
options); ``as_game`` makes one from a registered name and options for the callers that name a game.
"""

from __future__ import annotations

import itertools

from cardenv.vector import Finished, VectorGame, game_variants

__all__ = ["as_game", "partnership", "play_batched", "play_seated"]


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
        groups: dict[int, list[int]] = {}
        for i in sorted(active):
            groups.setdefault(id(assign[i][seats[i]]), []).append(i)
        for members in groups.values():
            agent = assign[members[0]][seats[members[0]]]
            if getattr(agent, "needs_state", False):  # a search agent reads positions (base.py)
                actions[members] = agent.act_states([games.slots[i] for i in members])
            else:
                actions[members] = agent.act_batch(obs[members], masks[members])
        before = len(games.finished)
        games.step(actions)
        for done in games.finished[before:]:
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
        if progress is not None and games.finished[before:]:
            progress(len(results))
        del games.finished[:]
    return [results[j] for j in range(len(seeds))]
