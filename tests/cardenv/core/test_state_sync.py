"""The states' sync API, which the batched engines use instead of their private fields
(``CardState.apply_unchecked`` / ``use_legal`` / ``position_changed``), on both games: seeded
random games where every step is also taken by ``apply_unchecked`` on a copy, and a wrong mask
handed over by ``use_legal`` is believed until ``position_changed`` drops it."""

import numpy as np
import pytest

from cardenv.games import make_game


@pytest.mark.parametrize("name", ["dagong", "dabang"])
def test_apply_unchecked_is_apply_without_the_check(name):
    game = make_game(name)
    rng = np.random.default_rng(3)
    steps = 0
    for seed in range(3):
        state = game.new_state(seed)
        while not state.is_over:
            action = int(rng.choice(state.legal_actions()))
            twin = state.clone()
            state.apply(action)
            twin.apply_unchecked(action)
            assert twin.to_dict() == state.to_dict()
            assert twin.history[-1] == action and twin.last_rewards == state.last_rewards
            steps += 1
    assert steps > 300


@pytest.mark.parametrize("name", ["dagong", "dabang"])
def test_a_given_mask_holds_until_the_position_changes(name):
    state = make_game(name).new_state(11)
    truth = state.clone().legal_mask()  # (asked of a copy: the state has computed nothing)
    wrong = ~truth  # a mask no engine would give: shows which one is read
    state.use_legal(wrong)
    wrong[:] = truth  # the state keeps its own copy
    assert [state.is_legal(a) for a in range(truth.size)] == (~truth).tolist()
    state.position_changed()
    assert [state.is_legal(a) for a in range(truth.size)] == truth.tolist()
    assert np.array_equal(state.legal_mask(), truth)
