"""The search's rollouts (``cardagents.search.rollouts``): dropping the rollouts that ended by
``VectorGame.keep`` gives exactly the values of rebuilding a smaller batch through the states
(what ``_play_out`` did before ``keep``), with seeded heuristic rollouts on positions of both
games (Dagong; Dabang first hands, later hands and match episodes), to the end of the hand and
depth-limited with a leaf value; and each rollout's value is its own position's (its hand
played out alone)."""

from __future__ import annotations

import numpy as np
import pytest

from cardagents.players.heuristics import heuristic_for
from cardagents.search import rollouts
from cardagents.search.rollouts import rollout_values
from cardenv.vector import VectorGame, game_variants

VARIANTS = {
    "dagong": [{}],
    "dabang": [{}, {"dealer": "random", "levels": "random", "blood": "random"},
               {"episode": "match", "max_hands": 2}],
}


def starts(name: str, count: int, seed: int) -> list:
    """``count`` positions in progress of the name's variants (random play from their seeds),
    none over: the worlds a search would roll out."""
    rng = np.random.default_rng(seed)
    variants = game_variants(name, VARIANTS[name])
    out = []
    while len(out) < count:
        state = variants[len(out) % len(variants)].new_state(seed + len(out))
        for _ in range(int(rng.integers(0, 120))):
            state.apply(int(rng.choice(state.legal_actions())))
            if state.is_over:
                break
        if not state.is_over:
            out.append(state)
    return out


def _rebuild(self, slots) -> None:
    """The reference ``keep`` replaced: a new VectorGame of the kept slots' states."""
    states = [self.slots[int(i)] for i in slots]
    fresh = VectorGame(self.variants, states=states, started=True, refill=False)
    self.__dict__.update(vars(fresh))


def _leaf(global_states: np.ndarray) -> np.ndarray:
    return global_states.sum(axis=1) / 1000  # a different number per position


@pytest.mark.parametrize("name", ["dagong", "dabang"])
@pytest.mark.parametrize("depth", [0, 8])
def test_keeping_the_live_rollouts_gives_the_values_of_rebuilding(name, depth, monkeypatch):
    """Seeded heuristic rollouts of 44 positions per variant (a batch per variant, kept from
    above the batched engine's ``min_batch`` down to state by state): the same values whether
    the rollouts that ended are dropped by ``keep`` or by a new, smaller batch."""
    positions = starts(name, 44 * len(VARIANTS[name]), seed=11)
    seats = [s.current_player for s in positions]

    def values():
        return rollout_values([s.clone() for s in positions], seats,
                              heuristic_for(name, seed=5), depth=depth,
                              leaf=_leaf if depth else None)

    kept = []
    keep = VectorGame.keep
    monkeypatch.setattr(VectorGame, "keep",
                        lambda self, slots: kept.append(len(slots)) or keep(self, slots))
    got = values()
    if not depth:  # (depth-limited rollouts end together: they may never shrink)
        assert max(kept) >= 32 and min(kept) < 32  # the engine's keep, then SlotBatch's
    monkeypatch.setattr(VectorGame, "keep", _rebuild)
    expected = values()
    assert not np.isnan(got).any()
    assert got.tolist() == expected.tolist()


class First:
    """A rollout policy that does not depend on the batch: each row's first legal action."""

    def act_batch(self, observations, masks):
        return np.asarray(masks).argmax(axis=1)


def test_each_rollout_is_its_own_positions_hand_played_out():
    """Whatever the batch drops and reorders, a rollout's value is its own position's: with a
    policy that does not depend on the batch, each position's hand played out alone (Dabang's
    variants mixed: first hands, later hands, a match's hand)."""
    positions = starts("dabang", 45, seed=21)
    seats = [s.current_player for s in positions]
    values = rollout_values([s.clone() for s in positions], seats, First())
    for state, seat, value in zip(positions, seats, values.tolist()):
        hands = len(state.results)
        while len(state.results) == hands:
            state.apply(int(np.flatnonzero(state.legal_mask())[0]))
        assert value == state.game.hand_value(state.results[-1], seat)


def test_the_rollouts_make_one_batch_per_variant_and_shrink_it(monkeypatch):
    """No batch is rebuilt: one VectorGame per rules variant, shrunk in place by ``keep``."""
    made, kept = [], []
    init, keep = VectorGame.__init__, VectorGame.keep
    monkeypatch.setattr(VectorGame, "__init__",
                        lambda self, *a, **k: made.append(1) or init(self, *a, **k))
    monkeypatch.setattr(VectorGame, "keep",
                        lambda self, slots: kept.append(len(slots)) or keep(self, slots))
    positions = starts("dabang", 30, seed=3)
    rollouts.rollout_values(positions, [s.current_player for s in positions], First())
    assert len(made) == len(VARIANTS["dabang"]) and kept
