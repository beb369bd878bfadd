"""Whole games played in lockstep by seated agents, on the public batched engine
``cardenv.vector.VectorGame`` (any registered game, observations and masks in batch).

``play_batched(...)`` runs whole games with a seat -> agent assignment per game, every agent
acting in batch on the games where it is to move; it is what evaluation uses.
"""

from __future__ import annotations

from cardenv.vector import Finished, VectorGame

__all__ = ["partnership", "play_batched"]


def partnership(state) -> tuple[list[int], list[int]]:
    """The two sides of the hand about to be played, as dealt (the game's ``sides``): e.g.
    Dabang's fixed teams, or Dagong's dealer and the holder of the called card's twin."""
    return state.game.sides(state)


def play_batched(game: str, agents_by_seat, seeds, options: dict | None = None,
                 batch: int = 256, progress=None, keep_history: bool = False) -> list[Finished]:
    """Play one game per seed to the end; ``agents_by_seat(seed_index) -> [agent] * 4`` gives
    each game's seat assignment. Games run ``batch`` at a time in lockstep; each distinct agent
    acts in one ``act_batch`` call per step on all the games where it is to move. Returns the
    finished games in seed order; ``progress(count)`` is called with the count finished so far
    whenever it grows. ``keep_history`` keeps each game's actions in ``Finished.history`` (for
    game records; off by default, as it costs a copy of every game's history)."""
    seeds = list(seeds)
    results: dict[int, Finished] = {}
    todo = list(range(len(seeds)))
    slots = todo[:batch]
    todo = todo[batch:]
    games = VectorGame(game, len(slots), options=options, seeds=[seeds[j] for j in slots],
                       keep_history=keep_history)
    assign = {slot: agents_by_seat(j) for slot, j in enumerate(slots)}
    owner = dict(enumerate(slots))
    active = set(range(len(slots)))
    while active:
        obs = games.observations()
        masks = games.masks()
        seats = games.current()
        # a slot whose games are all played keeps stepping a spare game (the engine always
        # holds a game in progress) on its first legal action; its results are dropped
        actions = masks.argmax(axis=1)
        groups: dict[int, list[int]] = {}
        for i in sorted(active):
            groups.setdefault(id(assign[i][seats[i]]), []).append(i)
        for members in groups.values():
            agent = assign[members[0]][seats[members[0]]]
            actions[members] = agent.act_batch(obs[members], masks[members])
        before = len(games.finished)
        games.step(actions)
        for done in games.finished[before:]:
            slot = done.index
            if slot not in active:
                continue
            results[owner[slot]] = done
            if todo:
                j = todo.pop(0)
                games.restart(slot, seeds[j])
                assign[slot] = agents_by_seat(j)
                owner[slot] = j
            else:
                active.discard(slot)
        if progress is not None and games.finished[before:]:
            progress(len(results))
        del games.finished[:]
    return [results[j] for j in range(len(seeds))]
