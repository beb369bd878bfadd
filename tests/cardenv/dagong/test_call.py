"""The call (叫牌), the hidden partner and the later-hand rules (brief B3, [D-B3])."""

import numpy as np
import pytest

from cardenv.core.cards import BIG_JOKER, parse_cards
from cardenv.dagong import DagongGame
from cardenv.dagong.deal import later_hand_call, later_hand_calls
from tests.cardenv.dagong.util import random_playout

A, B, C, D, E = parse_cards("♠3 ♥7 ♦K ♣9 ♠A")


@pytest.mark.parametrize("received, call, forced, clause", [
    ([A, B, C], A, False, "B3: the first card dealt to the dealer"),
    ([A, B, A, C, D], C, False, "B3: twin received -> first card after the twin"),
    ([A, A, B], B, False, "B3: twin as the second card"),
    ([A, B, A, B, C], C, False, "[D-B3]: the new call is already doubled -> move again"),
    ([A, B, A], A, True, "[D-B3]: twin is the last card -> dealer holds both, plays alone"),
    ([A, B, A, C, C], C, True, "[D-B3]: the moved call's twin ends the deal"),
    ([BIG_JOKER, B, BIG_JOKER, E], E, False, "B3: jokers included"),
    ([BIG_JOKER, B, C], BIG_JOKER, False, "B3: a joker may be the call"),
])
def test_later_hand_call(received, call, forced, clause):
    assert later_hand_call(received) == (call, forced), clause


@pytest.mark.parametrize("received, calls, clause", [
    ([A, B, C], [A], "B3: the first card dealt to the dealer, nothing superseded"),
    ([A, B, A, C, D], [A, C], "B3: A superseded by its twin, C called"),
    ([A, A, B], [A, B], "B3: twin as the second card"),
    ([A, B, A, B, C], [A, B, C], "[D-B3]: B called after A's twin is already doubled"),
    ([A, B, A], [A], "[D-B3]: forced solo: the standing call is not superseded"),
    ([A, B, A, C, C], [A, C], "[D-B3]: forced solo on the moved call"),
])
def test_later_hand_calls_superseded(received, calls, clause):
    """The calls superseded during the deal (the dealer showed both copies of each) are all
    but the last (observation piece ``superseded_calls``)."""
    assert later_hand_calls(received)[0] == calls, clause


def test_first_hand_call_is_a_dealer_singleton_and_twin_holder_is_partner():
    """B3: hand 1 shows a card the dealer holds one copy of; its twin's holder is the partner."""
    game = DagongGame()
    for seed in range(200):
        s = game.new_state(seed)
        assert s.hands[s.dealer, s.called] == 1
        assert s.partner != s.dealer and s.hands[s.partner, s.called] == 1
        assert not s.forced_solo and s.solo is None
        # the partner alone knows, from the deal (observation piece `partner`, relative index 0)
        obs = [s.observation(seat) for seat in range(4)]
        from cardenv.dagong.observation import LAYOUT
        start = dict((n, a) for n, a, *_ in LAYOUT.observation_pieces())["partner"]
        for seat in range(4):
            assert obs[seat][start] == (1.0 if seat == s.partner else 0.0)


def test_first_dealer_is_random_seat():
    dealers = {DagongGame().new_state(seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}


def test_later_hands_use_later_rules():
    """B3: later hands: dealer = previous 一游, call = the dealer's first card (twin rule)."""
    game = DagongGame(hands=4)
    rng = np.random.default_rng(0)
    checked = superseded = 0
    for seed in range(30):
        s = game.new_state(seed)
        while not s.is_over:
            hand = s.hand_index
            legal = np.flatnonzero(s.legal_mask())
            s.apply(int(legal[rng.integers(len(legal))]))
            if not s.is_over and s.hand_index != hand:
                assert s.dealer == s.results[-1].places[0]
                assert (s.called, s.forced_solo) == later_hand_call(s.deal_order[s.dealer])
                calls = later_hand_calls(s.deal_order[s.dealer])[0]
                assert np.flatnonzero(s.v["superseded_calls"]).tolist() == sorted(calls[:-1])
                assert all(s.dealt[s.dealer, k] == 2 for k in calls[:-1])
                superseded += len(calls) > 1
                checked += 1
            elif len(s.results) == 0:
                assert not s.v["superseded_calls"].any()  # hand 1's call never moves
    assert checked >= 60 and superseded >= 10


def test_forced_solo_when_dealer_holds_both():
    """[D-B3]: a dealer holding both called cards plays alone, and nobody declares 硬牌."""
    game = DagongGame()
    s = game.state_from_hands(["♠3 ♠3 ♥4", "♦5", "♦6", "♦7"], dealer=0, called="♠3")
    assert s.forced_solo and s.solo == 0 and s.partner is None
    assert s.phase == "play"
    random_playout(s, np.random.default_rng(0))
    assert s.results[0].reason == "solo"


def test_state_from_hands_validates_input():
    game = DagongGame()
    hands = ["♠3 ♦5", "♣2", "♠3", "♠4"]
    assert game.state_from_hands(hands, dealer=np.int64(0), called="♠3").dealer == 0
    for bad in (True, 4, -1, "0", 1.0):
        with pytest.raises(ValueError, match=r"dealer must be an int in 0\.\.3"):
            game.state_from_hands(hands, dealer=bad, called="♠3")
    with pytest.raises(ValueError, match="more than twice"):
        game.state_from_hands(["♠3 ♠3", "♠3", "♦4", "♦5"], dealer=1, called="♠3")
    with pytest.raises(ValueError, match="twin"):
        game.state_from_hands(["♠3", "♦4", "♦5", "♦6"], dealer=0, called="♠3")
    with pytest.raises(ValueError, match="empty"):
        game.state_from_hands(["♠3", "♠3", "", "♦6"], dealer=0, called="♠3")
