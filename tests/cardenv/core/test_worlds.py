"""The argument checks every game's ``sample_worlds`` shares (``cardenv.core.worlds``): each bad
argument is refused with its own error class and a message naming it, before any world is
drawn."""

import numpy as np
import pytest

from cardenv.core.errors import StateError
from cardenv.core.worlds import MAX_WORLDS, check_sample_args
from cardenv.dagong.game import DagongGame


@pytest.fixture(scope="module")
def position():
    game = DagongGame()
    return game, game.new_state(5)


def test_good_arguments_come_back_as_ints(position):
    game, state = position
    assert check_sample_args(game, state, np.int64(2), np.int32(7),
                             np.random.default_rng(0)) == (2, 7)
    assert check_sample_args(game, state, 0, 0, np.random.default_rng(0)) == (0, 0)
    assert check_sample_args(game, state, 3, MAX_WORLDS, np.random.default_rng(0)) \
        == (3, MAX_WORLDS)


@pytest.mark.parametrize("seat, n, rng, error, words", [
    (4, 1, np.random.default_rng(0), ValueError, "seat must be an int in 0..3, got 4"),
    (-1, 1, np.random.default_rng(0), ValueError, "seat must be an int in 0..3"),
    (True, 1, np.random.default_rng(0), ValueError, "seat must be an int"),
    (1.0, 1, np.random.default_rng(0), ValueError, "seat must be an int"),
    (0, -1, np.random.default_rng(0), ValueError, f"n must be an int in 0..{MAX_WORLDS}"),
    (0, MAX_WORLDS + 1, np.random.default_rng(0), ValueError, "n must be an int"),
    (0, 10 ** 30, np.random.default_rng(0), ValueError, "n must be an int"),
    (0, "3", np.random.default_rng(0), ValueError, "n must be an int"),
    (0, 1, 7, TypeError, "rng must be a numpy.random.Generator"),
    (0, 1, np.random.RandomState(0), TypeError, "got RandomState"),
    (0, 1, None, TypeError, "got NoneType"),
])
def test_bad_arguments_are_named(position, seat, n, rng, error, words):
    game, state = position
    with pytest.raises(error, match="dagong.sample_worlds") as info:
        check_sample_args(game, state, seat, n, rng)
    assert words in str(info.value)


def test_a_finished_state_has_no_worlds():
    game = DagongGame()
    state = game.new_state(1)
    rng = np.random.default_rng(0)
    while not state.is_over:
        state.apply(int(rng.choice(state.legal_actions())))
    with pytest.raises(StateError, match="the episode is over"):
        check_sample_args(game, state, 0, 1, rng)


def test_a_state_of_another_game_or_options_is_refused(position):
    game, state = position
    with pytest.raises(TypeError, match="state must be a DagongState, got dict"):
        check_sample_args(game, state.to_dict(), 0, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="made with other options"):
        check_sample_args(DagongGame(hands=2), state, 0, 1, np.random.default_rng(0))
    # equal options, another game object: accepted
    assert check_sample_args(DagongGame(), state, 1, 1, np.random.default_rng(0)) == (1, 1)
