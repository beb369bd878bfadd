"""DabangHeuristic.act_batch (the play phase in numpy) decides exactly as ``act`` row by row.

Positions come from ``cardenv.vector.VectorGame`` games under three option sets, played by the
heuristic, by uniform random moves and by a mix of both (so that the heuristic also meets
positions off its own lines): every phase, leads, each step of multi-card follows, void
follows, trump plays. ``act_batch`` on the whole set (and on small slices) must return the
same actions as ``[act(row) for row]`` with an agent of the same seed.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardagents.players.heuristics.dabang.batch import _void_chances
from cardagents.players.heuristics.dabang.player import DabangHeuristic, _Ctx
from cardagents.players.observation import ObsView
from cardenv.dabang import catalogue as cat
from cardenv.dabang.observation import PHASES
from cardenv.dabang.strength import SUIT_CLASS, TRUMP
from cardenv.vector import VectorGame

OPTIONS = [{}, {"follow": "live"},
           {"dealer": "random", "levels": "random", "tribute_return": "dealer_choice"},
           # blood due: tribute is paid, and returned (the "return" phase)
           {"dealer": "random", "levels": "random", "blood": 3, "tribute_return": "dealer_choice"}]
# share of heuristic moves per slot group: random self-play, a mix, heuristic self-play
HEURISTIC_SHARES = (0.0, 0.6, 1.0)
VIEW = ObsView("dabang")


def collect_positions(per_option: int = 2700, envs: int = 12, seed: int = 0):
    """``(observations, masks)`` of at least ``per_option`` positions per option set."""
    observations, masks = [], []
    agent = DabangHeuristic(seed)
    rng = np.random.default_rng(seed)
    share = np.array([HEURISTIC_SHARES[i % len(HEURISTIC_SHARES)] for i in range(envs)])
    for n, options in enumerate(OPTIONS):
        games = VectorGame("dabang", envs, seed=seed + 1000 * n, options=options)
        got = 0
        while got < per_option:
            obs, mask = games.observations(), games.masks()
            observations.append(obs)
            masks.append(mask)
            got += len(obs)
            heuristic = agent.act_batch(obs, mask)
            legal = [np.flatnonzero(m) for m in mask]
            randoms = np.array([a[rng.integers(len(a))] for a in legal])
            games.step(np.where(rng.random(envs) < share, heuristic, randoms))
    return np.concatenate(observations), np.concatenate(masks)


@pytest.fixture(scope="module")
def positions():
    return collect_positions()


def per_row(seed, observations, masks):
    agent = DabangHeuristic(seed)
    return np.array([agent.act({"observation": o, "action_mask": m})
                     for o, m in zip(observations, masks)], dtype=np.int64)


def test_positions_cover_every_situation(positions):
    observations, masks = positions
    assert len(observations) >= 10_000
    v = VIEW(observations)
    phase = np.array(PHASES)[v["phase"].argmax(axis=1)]
    for name in PHASES:
        assert (phase == name).sum() >= 10, name
    play = (phase == "play") & (masks.sum(axis=1) > 1)
    k_led = v["led_count"][:, 0]
    assert (play & (k_led == 0)).sum() >= 1000                        # leads
    assert (play & (k_led >= 2)).sum() >= 1000                        # multi-card follows ...
    assert (play & (v["selection"].sum(axis=1) > 0)).sum() >= 300      # ... at later steps
    tr, li = v["trump"].argmax(axis=1), v["level"].argmax(axis=1)
    cls = SUIT_CLASS[tr, li]
    rows = np.arange(len(cls))
    leader = v["leader"].argmax(axis=1)
    led = v["trick"][rows, leader].argmax(axis=1)
    led_cls = cls[rows, led]
    held = np.where(cls == led_cls[:, None], v["hand"], 0).sum(axis=1)
    assert (play & (k_led > 0) & (held == 0)).sum() >= 300             # void follows
    assert (play & (k_led > 0) & (led_cls == TRUMP)).sum() >= 300      # trump leads followed


@pytest.mark.parametrize("seed", [0, 7])
def test_act_batch_equals_act(positions, seed):
    observations, masks = positions
    want = per_row(seed, observations, masks)
    got = DabangHeuristic(seed).act_batch(observations, masks)
    assert got.dtype == np.int64 and got.shape == want.shape
    bad = np.flatnonzero(got != want)
    assert not len(bad), f"{len(bad)} rows differ, first {bad[:10]}"
    assert masks[np.arange(len(got)), got].all()


def test_small_batches_and_one_row(positions):
    observations, masks = positions
    observations, masks = observations[:700], masks[:700]
    want = per_row(3, observations, masks)
    agent = DabangHeuristic(3)
    got = np.concatenate([agent.act_batch(observations[i:i + 64], masks[i:i + 64])
                          for i in range(0, len(masks), 64)])
    assert (got == want).all()
    one = [int(agent.act_batch(observations[i:i + 1], masks[i:i + 1])[0]) for i in range(100)]
    assert one == want[:100].tolist()


def test_fallback_draws_follow_row_order(positions):
    """A plan the mask refuses (here: pass, removed from every mask holding it and two other
    actions) is replaced by a draw from the agent's generator, row by row in the same order as
    ``act``: same actions, same generator state afterwards."""
    observations, masks = positions
    masks = masks.copy()
    refused = masks[:, cat.PASS] & (masks.sum(axis=1) >= 3)
    masks[refused, cat.PASS] = False
    per_state, batched = DabangHeuristic(5), DabangHeuristic(5)
    want = np.array([per_state.act({"observation": o, "action_mask": m})
                     for o, m in zip(observations, masks)])
    assert (batched.act_batch(observations, masks) == want).all()
    state = per_state.rng.bit_generator.state
    assert state == batched.rng.bit_generator.state
    assert state != DabangHeuristic(5).rng.bit_generator.state  # the fallback did draw


def test_a_subclass_with_other_play_rules_goes_row_by_row(positions):
    class Lowest(DabangHeuristic):
        def _step(self, ctx, legal, mode):
            return legal[-1]

    observations, masks = positions
    observations, masks = observations[:300], masks[:300]
    agent = Lowest(0)
    want = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks)]
    assert agent.act_batch(observations, masks).tolist() == want


def test_no_legal_action_raises(positions):
    observations, masks = positions
    masks = masks[:4].copy()
    masks[2] = False
    with pytest.raises(ValueError):
        DabangHeuristic(0).act_batch(observations[:4], masks)


def test_void_chances_decide_the_risk_as_the_per_state_path():
    """The batched void chances against ``_Ctx.void_prob``: the trump risk they decide
    (``p * 1.0 > 0.2``, ``p * 0.5 > 0.2``) is the same, over random card counts and every
    count that lands within 1e-9 of a threshold (there the kernel recomputes ``p`` in Python:
    numpy's vectorized power may differ from the C library's in the last bit)."""
    rng = np.random.default_rng(0)
    n = 3000
    unseen_cls = rng.integers(0, 60, size=(n, 5))
    unseen_cls[::7] = 0
    left = rng.integers(0, 60, size=(n, 4))
    left[::5, 1] = 0
    # near-threshold cases: seat 1 holds `held` of t unseen cards, t - m of them in suit 0
    near = []
    for held in range(1, 61):
        for t in range(held, 217):
            base = 1.0 - min(1.0, held / t)
            for m in range(0, t + 1):
                p = base ** m
                if abs(p - 0.2) < 1e-9 or abs(p - 0.4) < 1e-9:
                    near.append((held, t, m))
    assert len(near) >= 20
    for held, t, m in near:
        unseen_cls = np.vstack([unseen_cls, [m, t - m, 0, 0, 0]])
        left = np.vstack([left, [10, held, 10, held]])
    vp = _void_chances(unseen_cls, left)
    for b in range(len(vp)):
        ctx = _Ctx(None, None, None, None, unseen_cls[b].tolist(), None, left[b].tolist())
        for i, seat in enumerate((1, 3)):
            for c in range(4):
                want = ctx.void_prob(seat, c)
                assert abs(vp[b, i, c] - want) <= 1e-12 * want, (b, seat, c)
                for factor in (1.0, 0.5):
                    assert (vp[b, i, c] * factor > 0.2) == (want * factor > 0.2), (b, seat, c)
                if b >= n and c == 0:
                    assert vp[b, i, c] == want


def test_kernel_and_per_state_code_share_one_copy_of_the_constants():
    from cardagents.players.heuristics.dabang import (batch as kernel, player as per_state,
                                                      tuning as dabang_tuning)

    for name in ("LAST_TRICK_BONUS", "BREAK", "POINT_WEIGHT", "VOID_RISK", "RANK_A"):
        assert getattr(kernel, name) is getattr(per_state, name) \
            is getattr(dabang_tuning, name), name
