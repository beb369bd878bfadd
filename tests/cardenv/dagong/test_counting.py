"""The counting pieces of Dagong's observation (what a card player counts), on positions built by
hand: unseen cards and ranks, points out and in hand, and who may hold the called card's twin,
seen by each seat (rows relative to it), and the single observation equal to the batched one.
Random games are checked against an independent count in ``test_no_leak.py``."""

import numpy as np
import pytest

from cardenv.dagong import DagongGame
from cardenv.dagong import catalogue as cat
from cardenv.dagong import counting
from cardenv.dagong.observation import LAYOUT

AT = {name: slice(start, stop) for name, start, stop, _, _ in LAYOUT.observation_pieces()}
# kinds: rank * 4 + suit, ranks 3..2 = 0..12, suits ♦♣♥♠ = 0..3
A_S, FOUR_D, FOUR_C, FIVE_C, SIX_D, SIX_C, EIGHT_D, EIGHT_C, TEN_H, K_D = (
    47, 4, 5, 9, 12, 13, 20, 21, 30, 40)
HANDS = [[A_S, FOUR_D, SIX_D, EIGHT_D], [K_D], [A_S, FOUR_C, FIVE_C], [SIX_C, EIGHT_C, TEN_H]]
LEAD_4 = cat.action_id("single", 1, 1, 0)
K_ONTO_4 = cat.action_id("single", 1, 10, 0)
PARTNER_A = cat.action_id("single", 1, 11, 0, called=True)

# (moves from the deal, seat, expected twin, points out, hand points)
CASES = [
    ([], 0, [0, 1, 1, 1], 200, 0),  # the dealer: any other seat
    ([], 2, [1, 0, 0, 0], 200, 5),  # the partner holds it
    ([], 1, [0, 1, 1, 0], 200, 10),  # another: the non-dealers but itself (seats 2, 3)
    ([], 3, [0, 0, 1, 1], 200, 10),  # (seats 1, 2)
    # seat 1 goes out with a K without the called card: not it
    ([LEAD_4, K_ONTO_4], 3, [0, 0, 0, 1], 190, 10),
    ([LEAD_4, K_ONTO_4], 0, [0, 0, 1, 1], 190, 0),
    ([LEAD_4, K_ONTO_4], 2, [1, 0, 0, 0], 190, 5),
    # 明鸡: the partner plays it, nobody may hold it any more
    ([LEAD_4, K_ONTO_4, PARTNER_A], 0, [0, 0, 0, 0], 190, 0),
    ([LEAD_4, K_ONTO_4, PARTNER_A], 3, [0, 0, 0, 0], 190, 10),
]


def _state(moves, hands=HANDS, dealer=0):
    state = DagongGame(allow_solo=False).state_from_hands(hands, dealer, A_S)
    for move in moves:
        state.apply(move)
    return state


@pytest.mark.parametrize("moves, seat, twin, points_out, hand_points", CASES)
def test_twin_and_points(moves, seat, twin, points_out, hand_points):
    obs = _state(moves).observation(seat)
    assert obs[AT["twin"]].tolist() == twin
    assert obs[AT["points_out"]].tolist() == [points_out]
    assert obs[AT["hand_points"]].tolist() == [hand_points]


def test_unseen_cards_and_ranks_after_two_plays():
    obs = _state([LEAD_4, K_ONTO_4]).observation(3)
    unseen = obs[AT["unseen"]]
    # 4♦ and K♦ played once, 6♣ 8♣ 10♥ in own hand, the rest of both decks unseen
    expected = np.full(54, 2.0)
    expected[[FOUR_D, K_D, SIX_C, EIGHT_C, TEN_H]] = 1
    assert unseen.tolist() == expected.tolist()
    ranks = obs[AT["unseen_ranks"]].tolist()
    assert ranks[1] == 7 and ranks[10] == 7 and ranks[3] == 7 and ranks[7] == 7  # 4, K, 6, 10
    assert ranks[0] == 8 and ranks[13] == 4  # 3s and jokers untouched


def test_forced_solo_dealer_holds_the_twin_until_it_has_played_both():
    hands = [[A_S, A_S, FOUR_D], [K_D, SIX_D], [FOUR_C, FIVE_C], [SIX_C, EIGHT_C]]
    state = _state([], hands, dealer=0)
    assert state.forced_solo
    assert state.observation(1)[AT["twin"]].tolist() == [0, 0, 0, 1]  # the dealer: seat 3
    assert state.observation(0)[AT["twin"]].tolist() == [1, 0, 0, 0]
    state.apply(cat.action_id("pair", 2, 11, 0, called=True))  # both copies at once
    assert state.observation(1)[AT["twin"]].tolist() == [0, 0, 0, 0]


def test_single_observations_equal_the_batched_ones():
    game = DagongGame(hands=2)
    rng = np.random.default_rng(5)
    for seed in range(3):
        state = game.new_state(seed)
        while not state.is_over:
            seats = rng.integers(0, 4, 6)
            batch = game.observations([state] * 6, seats)
            assert np.array_equal(batch, [state.observation(int(s)) for s in seats])
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))


def _batched_twin(state) -> np.ndarray:
    v, c = state.v, state.called
    return counting.twin(v["hand"][None, :, c], v["played"][None, :, c],
                         np.array([state.dealer]), np.array([state.forced_solo]),
                         v["cards_left"][None])[0]


def test_the_batched_twin_equals_the_single_engine_s():
    """``counting.twin`` (the batched engine's) against ``refresh_twin``'s piece in random games
    of several hands, at every step, and in a dealer's game alone with both copies."""
    game, rng, sums = DagongGame(hands=3), np.random.default_rng(3), set()
    for seed in range(3):
        state = game.new_state(seed)
        while not state.is_over:
            assert np.array_equal(_batched_twin(state), state.v["twin"])
            sums.add(int(state.v["twin"].sum()))
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    assert {0, 8} <= sums  # (a seat out first: the hand-built cases above)
    hands = [[A_S, A_S, FOUR_D], [K_D, SIX_D], [FOUR_C, FIVE_C], [SIX_C, EIGHT_C]]
    state = _state([], hands, dealer=0)
    for move in ([], [cat.action_id("single", 1, 11, 0, called=True)]):
        for m in move:
            state.apply(m)
        assert np.array_equal(_batched_twin(state), state.v["twin"])
        assert state.v["twin"][:, 0].tolist() == [1, 1, 1, 1]
