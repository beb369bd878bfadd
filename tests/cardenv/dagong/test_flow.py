"""Turns, passes, tricks, 接风, places and early ends (brief B3), on scripted deals."""

import pytest

from cardenv.core.errors import IllegalActionError
from cardenv.dagong import DagongGame
from cardenv.dagong import catalogue as cat
from tests.cardenv.dagong.util import act

NO_SOLO = DagongGame(allow_solo=False)


def play(state, *actions):
    for a in actions:
        state.apply(a)
    return state


def jiefeng_deal():
    # dealer 0 and partner 2 hold the two ♠A; team {1, 3} is the other side.
    return NO_SOLO.state_from_hands(
        ["♠A ♦4 ♥9", "♥5 ♣K", "♠A ♣Q ♦3", "♣6 ♣7 ♣8"], dealer=0, called="♠A")


def test_jiefeng_before_mingji_goes_to_next_player():
    """B3 接风: partnership unknown -> the lead passes to the next player still holding cards."""
    s = jiefeng_deal()
    assert s.partner == 2
    play(s, act("single", "4"), act("single", "5"), act("single", "Q"), cat.PASS, cat.PASS,
         cat.PASS)  # seat 2 wins the trick
    assert s.current == 2 and not s.revealed
    play(s, act("single", "3"), act("single", "6"), act("single", "9"), act("single", "K"))
    assert s.out == [1]
    play(s, cat.PASS, cat.PASS, cat.PASS)  # seat 1 (out) wins the trick
    assert s.current == 2


def test_jiefeng_after_mingji_goes_to_partner():
    """B3 明鸡 + 接风: once revealed, the lead passes to the out player's partner."""
    s = jiefeng_deal()
    play(s, act("single", "4"), act("single", "5"), act("single", "A", called=True))
    assert s.revealed
    play(s, cat.PASS, cat.PASS, cat.PASS)
    assert s.current == 2
    play(s, act("single", "3"), act("single", "6"), act("single", "9"), act("single", "K"))
    play(s, cat.PASS, cat.PASS, cat.PASS)
    assert s.current == 3  # seat 1's partner


def test_only_the_partner_reveals():
    """B3 明鸡: the dealer playing its own copy of the called card reveals nothing."""
    s = jiefeng_deal()
    play(s, act("single", "A", called=True))
    assert not s.revealed


def test_a_player_who_passed_may_play_again_in_the_same_trick():
    """B3: the trick ends only when every other player holding cards has passed."""
    s = NO_SOLO.state_from_hands(["♠3 ♦4 ♦5", "♣6 ♣9", "♠3 ♥7", "♠8 ♠J ♠Q"], dealer=0,
                                 called="♠3")
    play(s, act("single", "4"), cat.PASS, act("single", "7"), act("single", "8"), cat.PASS)
    assert s.current == 1  # seat 1 passed before, plays again now
    play(s, act("single", "9"))
    assert s.standing_seat == 1
    play(s, cat.PASS, act("single", "J"), cat.PASS, cat.PASS, cat.PASS)
    assert s.standing < 0 and s.current == 3 and s.won == [0, 0, 0, 0]


def test_trick_points_go_to_the_winner():
    """B3: the last player to play wins the trick and its points."""
    s = NO_SOLO.state_from_hands(["♠3 ♦5 ♦6", "♣10 ♣7", "♠3 ♥K ♥8", "♠4 ♠9"], dealer=0,
                                 called="♠3")
    play(s, act("single", "5"), act("single", "10"), act("single", "K"), cat.PASS, cat.PASS,
         cat.PASS)
    assert s.won == [0, 0, 25, 0] and s.current == 2


def test_leader_cannot_pass_and_solo_decisions_only_in_solo_phase():
    s = jiefeng_deal()
    with pytest.raises(IllegalActionError, match="illegal action 0 \\(pass\\)"):
        s.apply(cat.PASS)
    with pytest.raises(IllegalActionError):
        s.apply(cat.SOLO_DECLARE)


def test_bang_ends_the_hand_at_once():
    """B3/B4 绑: dealer and partner go out first and second -> the hand ends, x4 光头."""
    s = NO_SOLO.state_from_hands(["♠A ♦3", "♦4 ♣K", "♠A ♥2", "♣5 ♣10"], dealer=0, called="♠A")
    play(s, act("single", "3"), cat.PASS, act("single", "A", called=True))
    assert s.revealed
    play(s, cat.PASS, cat.PASS, cat.PASS, act("single", "2"))
    assert s.out == [2]
    play(s, cat.PASS, cat.PASS, cat.PASS)  # seat 2 (out) wins: 接风 to the revealed dealer
    assert s.current == 0
    play(s, act("single", "A", called=True))
    assert s.is_over
    r = s.results[0]
    assert r.places == [2, 0] and r.winners == [0, 2]
    assert r.reason == "guangtou" and r.payoff == [4, -4, 4, -4]


def test_three_out_transfers_points():
    """B3: 末游's won points go to 一游; the points left in 末游's hand go to 三游."""
    s = NO_SOLO.state_from_hands(["♠3 ♦5 ♦Q", "♣10", "♠3 ♥4", "♠K ♦K ♠6"], dealer=0,
                                 called="♠3")
    play(s, act("single", "5"), act("single", "10"))  # seat 1 out: 一游
    play(s, cat.PASS, act("single", "K"), cat.PASS, cat.PASS)
    assert s.won == [0, 0, 0, 25] and s.current == 3
    play(s, act("single", "6"), act("single", "Q"), cat.PASS, cat.PASS)
    assert s.current == 0
    play(s, act("single", "3", called=True))  # dealer out: 二游 (not 绑: seats 1 and 0 differ)
    assert not s.is_over
    play(s, act("single", "4"), cat.PASS)  # the partner wins the trick...
    assert s.current == 2 and not s.revealed
    play(s, act("single", "3", called=True))  # ...and goes out: 三游; seat 3 is 末游 with ♦K
    assert s.is_over and s.revealed
    r = s.results[0]
    assert r.places == [1, 0, 2, 3]
    assert r.trick_points == [0, 0, 0, 25]
    assert r.points == [0, 25, 10, 0]
    assert r.winners == [1, 3] and r.reason == "score" and r.payoff == [-1, 1, -1, 1]


def test_solo_declared_first_out_decides():
    """B3 硬牌: the first declaration stands; the hand ends when the first player goes out."""
    game = DagongGame()
    s = game.state_from_hands(["♠3 ♦5 ♦6", "♣2", "♠3 ♥8", "♠4 ♠9"], dealer=0, called="♠3")
    assert s.phase == "solo" and s.current == 0
    play(s, cat.SOLO_DECLINE, cat.SOLO_DECLARE)
    assert s.solo == 1 and s.phase == "play" and s.current == 0
    play(s, act("single", "5"), act("single", "2"))
    assert s.is_over and s.results[0].reason == "solo"
    assert s.results[0].payoff == [-2, 6, -2, -2]


def test_everyone_declines_solo():
    s = DagongGame().state_from_hands(["♠3 ♦5", "♣2", "♠3 ♥8", "♠4"], dealer=2, called="♠3")
    assert s.current == 2
    play(s, cat.SOLO_DECLINE, cat.SOLO_DECLINE, cat.SOLO_DECLINE, cat.SOLO_DECLINE)
    assert s.phase == "play" and s.current == 2 and s.solo is None


def test_illegal_action_changes_nothing():
    s = jiefeng_deal()
    before = s.to_dict()
    for bad in (cat.PASS, act("pair", "A"), -1, cat.NUM_ACTIONS, 3.0, True, "single"):
        with pytest.raises(ValueError):
            s.apply(bad)
    assert s.to_dict() == before
