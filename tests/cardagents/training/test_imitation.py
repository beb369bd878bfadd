"""cardagents.training.imitation: the warm start's demonstrations are every decision of the player's
self-play in the order played, each valued by its seat's final reward once its game ended."""

import numpy as np
import pytest

from cardagents.players.heuristics import heuristic_for
from cardagents.training.imitation import Demonstrator
from cardenv.vector import VectorGame


@pytest.mark.parametrize("game, options", [("dagong", {}), ("dabang", {"dealer": "random"})])
def test_demonstrations_are_the_games_as_played(game, options):
    size, envs = 1002, 4  # a chunk ends mid-step: its last step's extra rows are dropped
    demo = Demonstrator(VectorGame(game, envs, seed=5, options=options), heuristic_for(game, 1),
                        with_states=True)
    first, second = demo.chunk(size), demo.chunk(size)
    assert len(first) == len(second) == size

    # the same games stepped by hand, with the same player
    games, player = VectorGame(game, envs, seed=5, options=options, keep_history=True), \
        heuristic_for(game, 1)
    rows = {k: [] for k in ("obs", "mask", "action", "state", "slot", "seat")}
    ends = []  # (slot, first row of the game, rows end, returns)
    start = [0] * envs
    while len(rows["action"]) < 2 * size + 2 * envs:
        obs, masks, seats = games.observations(), games.masks(), games.current()
        actions = player.act_batch(obs, masks)
        for key, value in (("obs", obs), ("mask", masks), ("action", actions),
                           ("state", games.states()), ("slot", np.arange(envs)),
                           ("seat", seats)):
            rows[key].extend(value)
        for done in games.step(actions).games:
            ends.append((done.index, start[done.index], len(rows["action"]), done.returns))
            start[done.index] = len(rows["action"])
    stride = -(-size // envs) * envs  # rows played per chunk, the dropped ones included
    for k, chunk in enumerate((first, second)):
        part = slice(k * stride, k * stride + size)
        assert np.array_equal(chunk.obs, np.array(rows["obs"][part]))
        assert np.array_equal(chunk.mask, np.array(rows["mask"][part]))
        assert np.array_equal(chunk.action, np.array(rows["action"][part]))
        assert np.array_equal(chunk.state, np.array(rows["state"][part]))
        # the value: the seat's final reward where the game ended within the chunk (the rows
        # of the chunk's last step beyond its size are dropped and close nothing)
        want_ret, want_has = np.zeros(size, np.float32), np.zeros(size, bool)
        for slot, begin, end, returns in ends:
            for j in range(max(begin, part.start), min(end, part.stop)):
                if rows["slot"][j] == slot and end <= k * stride + stride:
                    want_ret[j - part.start] = returns[rows["seat"][j]]
                    want_has[j - part.start] = True
        assert np.array_equal(chunk.has_value, want_has) and np.array_equal(chunk.ret, want_ret)
        assert chunk.has_value.any() and not chunk.has_value.all()
