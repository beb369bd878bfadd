"""RandomAgent: always legal, roughly uniform, reproducible."""

import numpy as np
import pytest

from cardagents import RandomAgent
from cardenv import dagong_v0


def test_plays_full_games_legally_and_reproducibly():
    def run(seed):
        env = dagong_v0.env()
        env.reset(seed=seed)
        agent = RandomAgent("dagong", seed)
        actions = []
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else agent.act(obs)
            if action is not None:
                assert obs["action_mask"][action] == 1
            actions.append(action)
            env.step(action)
        return actions, env.unwrapped.game_state.returns

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_batch_is_legal_and_uniform():
    rng = np.random.default_rng(0)
    masks = rng.random((64, 50)) < 0.2
    masks[:, 7] = True
    agent = RandomAgent("dagong", 1)
    picks = np.stack([agent.act_batch(None, masks) for _ in range(400)])
    assert masks[np.arange(64)[None, :].repeat(400, 0), picks].all()
    # row 0: each legal action about equally often
    counts = np.bincount(picks[:, 0], minlength=50)[masks[0]]
    assert counts.min() > 400 / masks[0].sum() * 0.4


def test_empty_mask_is_an_error():
    with pytest.raises(ValueError, match="no legal action"):
        RandomAgent("dagong", 0).act({"action_mask": np.zeros(5, np.int8)})
    with pytest.raises(ValueError):
        RandomAgent("dagong", 0).act_batch(None, np.zeros((2, 5), bool))


def test_batch_picks_the_kth_legal_action_of_each_row():
    """The k-th legal action (k drawn as floor(u * count)) in ascending order, whatever the mask
    shape: the draws that evaluation seeds have always given."""
    rng = np.random.default_rng(2)
    for rows, cols, density in [(1, 3, 0.9), (33, 2419, 0.003), (20, 404, 0.05), (7, 9, 0.5)]:
        masks = rng.random((rows, cols)) < density
        masks[np.arange(rows), rng.integers(cols, size=rows)] = True
        agent, draws = RandomAgent("dagong", 5), np.random.default_rng(5)
        got = agent.act_batch(None, masks.astype(np.int8))
        k = (draws.random(rows) * masks.sum(axis=1)).astype(int)
        assert got.tolist() == [int(np.flatnonzero(m)[i]) for m, i in zip(masks, k)]
