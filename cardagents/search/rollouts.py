"""Rollouts for the search: many games in progress played on by a rollout policy, in lockstep on
the game's batched engine (``cardenv.vector.VectorGame``, ``started=True``), each scored by what
its hand is worth to a seat (``rollout_values``). The rollout policies a spec names are made in
``cardagents.search.parse`` (``rollout_policy``).
"""

from __future__ import annotations

import time

import numpy as np

from cardenv.vector import VectorGame

__all__ = ["hand_worth", "rollout_values"]


def rollout_values(starts: list, seats, policy, deadline: float | None = None,
                   batch: int = 4096, depth: int = 0, leaf=None,
                   clock=time.perf_counter) -> np.ndarray:
    """Play each state of ``starts`` (in progress, of one game; their rules variants may
    differ: a Dabang later hand's worlds are first hands of a game with the hand's situation as
    options, so the worlds of different decisions are states of different variants, each
    variant a batch of its own) to the end of its current hand with ``policy`` (``act_batch``)
    in every seat, ``batch`` at a time through ``VectorGame``;
    ``(n,)`` float: the hand's reward for ``seats[i]``, ``nan`` where ``deadline`` (a reading
    of ``clock``, ``time.perf_counter`` by default; read once before each batched step) came
    first. With ``depth`` > 0 a rollout stops once it has
    played ``depth`` steps and ``seats[i]`` is to act again, valued ``leaf(global_states)``
    (``(k, S)`` global states -> ``(k,)`` values for the seat to act). The states are played
    on (pass clones to keep them). A rollout's game, once over, stays over in its slot
    (``VectorGame(refill=False)``): no new game is dealt or stepped there."""
    if depth and leaf is None:
        raise ValueError("depth-limited rollouts need a leaf value (leaf)")
    values = np.full(len(starts), np.nan)
    variants: dict[int, list[int]] = {}  # a VectorGame plays one variant
    for i, state in enumerate(starts):
        variants.setdefault(id(state.game), []).append(i)
    for members in variants.values():
        for first in range(0, len(members), batch):
            part = members[first:first + batch]
            if not _play_out(starts, seats, policy, part, values, deadline, depth, leaf,
                             clock):
                return values
    return values


def _play_out(starts, seats, policy, part, values, deadline, depth=0, leaf=None,
              clock=time.perf_counter) -> bool:
    """``rollout_values`` on the starts ``part``; False when the deadline came."""
    game = starts[part[0]].game
    live = np.array(part)  # the rollout each slot plays
    games = VectorGame(game, states=[starts[i] for i in live], started=True, refill=False)
    going = np.ones(len(live), dtype=bool)  # the slots whose rollout goes on
    seat_of = np.array([seats[i] for i in live], dtype=np.int64)
    running = np.arange(len(live))  # their indices
    steps = 0
    while True:
        if deadline is not None and clock() > deadline:
            return False
        obs, masks = games.observations(), games.masks()
        # a slot whose game is over stays so (refill=False: its action is ignored); one whose
        # hand is over in a game that goes on (a match episode) plays on idly (argmax)
        if running.size == len(live):  # every slot runs: no copies
            actions = np.asarray(policy.act_batch(obs, masks), dtype=np.int64)
        else:
            actions = masks.argmax(axis=1)
            actions[running] = policy.act_batch(obs[running], masks[running])
        step = games.step(actions)
        steps += 1
        ends = [(i, result) for i, result in step.hands if going[i]]
        done = np.array([i for i, _ in ends], dtype=np.int64)
        if ends:
            _score(games.game, ends, live, seat_of, step.rewards, values)
            going[done] = False
        if depth and steps >= depth:
            # deep enough: a rollout whose seat is to act again takes the leaf value
            cut = np.flatnonzero(going & (games.current() == seat_of))
            if cut.size:
                values[live[cut]] = leaf(games.states()[cut])
                going[cut] = False
                done = np.concatenate([done, cut])
        if done.size:
            running = np.flatnonzero(going)
            if not running.size:
                return True
            if 4 * (len(live) - running.size) >= len(live):
                # a quarter of the slots are idle: the rest go on in a smaller batch (an ended
                # game costs little to step with refill=False, but its rows are still in the
                # observations and masks, and below the engine's min_batch the smaller batch
                # steps state by state, faster; never shrinking measured no faster). keep()
                # takes the live slots' rows of the engine's arrays without rebuilding their
                # states: less than one batched step (rebuilding a batch cost about one)
                games.keep(running)
                live, seat_of = live[running], seat_of[running]
                going = np.ones(len(live), dtype=bool)
                running = np.arange(len(live))


def _score(game, ends, live, seat_of, rewards, values) -> None:
    """``values`` of the rollouts whose hand ended at the last step (``ends``: ``(slot,
    result)``): the hand's worth for the rollout's seat (``game.hand_value``, where the game
    has it: in a match episode a hand's reward is 0 until the match ends), else the step's
    reward (the hand's, paid as it ends)."""
    value_of = getattr(game, "hand_value", None)
    for i, result in ends:
        values[live[i]] = rewards[i, seat_of[i]] if value_of is None else \
            value_of(result, int(seat_of[i]))


def hand_worth(state, seat: int) -> float:
    """What the hand that ``state`` just finished is worth to ``seat`` (``game.hand_value``
    where the game has it, else the reward it paid)."""
    value_of = getattr(state.game, "hand_value", None)
    if value_of is None:
        return float(state.last_rewards[seat])
    return value_of(state.results[-1], seat)
