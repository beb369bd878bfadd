"""DagongHeuristic: always legal, the key decisions in scripted positions, and clearly stronger
than random play in duplicate deals."""


import numpy as np
import pytest

from cardagents.players.heuristics.dagong import DagongHeuristic
from cardagents.players.random import RandomAgent
from cardenv.core.cards import RANK_NAMES
from cardenv.dagong import ACTIONS, DagongGame, action_id
from cardenv.dagong import catalogue as cat

R = {name: i for i, name in enumerate(RANK_NAMES)}


def obs_of(state):
    seat = state.current
    return {"observation": state.observation(seat),
            "action_mask": state.legal_mask().astype(np.int8)}


def choose(state, seed=0):
    return DagongHeuristic(seed).act(obs_of(state))


def single(face, called=False):
    return action_id("single", 1, R[face], called=called)


def pair(face, called=False):
    return action_id("pair", 2, R[face], called=called)


# --- always legal --------------------------------------------------------------------------------


@pytest.mark.parametrize("allow_solo", [True, False])
def test_always_legal_over_random_positions(allow_solo):
    """Thousands of positions reached by mixed random / heuristic play, with several hands
    (and act_batch on ten thousand more:
    tests/cardagents/players/heuristics/test_dagong_batch.py)."""
    game = DagongGame(allow_solo=allow_solo, hands=2)
    agent = DagongHeuristic(seed=1)
    rng = np.random.default_rng(7)
    checked = 0
    for seed in range(20):
        state = game.new_state(seed)
        heuristic_share = rng.random()
        while not state.is_over:
            mask = state.legal_mask()
            action = agent.act(obs_of(state))
            assert mask[action], (seed, ACTIONS[action].text)
            checked += 1
            if rng.random() > heuristic_share:
                action = int(rng.choice(np.flatnonzero(mask)))
            state.apply(action)
    assert checked > 4000  # 4,161 and 4,526 positions


def test_act_batch_and_determinism():
    game = DagongGame()
    state = game.new_state(3)
    observations, masks = [], []
    while not state.is_over and len(masks) < 40:
        o = obs_of(state)
        observations.append(o["observation"])
        masks.append(o["action_mask"])
        state.apply(DagongHeuristic(0).act(o))
    batch = DagongHeuristic(5).act_batch(np.stack(observations), np.stack(masks))
    agent = DagongHeuristic(5)  # the same seed gives the same tie-breaks
    one = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks)]
    assert batch.tolist() == one


# --- 硬牌 ----------------------------------------------------------------------------------------

WEAK = ("♦3 ♣3 ♥4 ♦5 ♠6 ♣6 ♦7 ♥8 ♠8 ♣9 ♦10 ♥10 ♣J ♦J ♠Q ♥Q ♣K ♦K ♥A ♠A ♣2 ♦4 ♠5 ♥7 ♣8 "
        "♦9 ♠J")
MONSTER = ("SJ SJ BJ BJ ♦2 ♦2 ♣2 ♣2 ♥2 ♥2 ♠2 ♦A ♦A ♣A ♣A ♥A ♠A ♦3 ♣3 ♥3 ♠3 ♦4 ♣4 ♥4 ♠4 ♦5 "
           "♣5")


def solo_position(dealer_hand, called):
    rest = "♥9 ♥J ♦8 ♥6"
    return DagongGame().state_from_hands(
        [dealer_hand, called + " ♠9 ♠10", rest, "♣10 ♣Q"], dealer=0, called=called)


def test_declines_solo_with_a_weak_hand_and_declares_with_a_monster():
    weak = solo_position(WEAK, "♦3")
    assert weak.phase == "solo"
    assert choose(weak) == cat.SOLO_DECLINE
    monster = solo_position(MONSTER, "♠2")
    assert choose(monster) == cat.SOLO_DECLARE


def test_declares_solo_rarely_in_random_deals():
    game = DagongGame()
    declared = 0
    for seed in range(300):
        state = game.new_state(seed)
        if state.phase == "solo":
            declared += choose(state) == cat.SOLO_DECLARE
    assert declared <= 15  # a monster is rare (about 3% of dealers' hands)


# --- leading -------------------------------------------------------------------------------------


def test_leads_low_rather_than_an_ace_a_two_or_a_bomb():
    state = DagongGame(allow_solo=False).state_from_hands(
        ["♦4 ♥6 ♣6 ♥9 ♦9 ♣9 ♠9 ♠A ♥2 ♦Q SJ", "♦3 ♣5 ♣7 ♣8", "♦Q ♥5 ♥7", "♣3 ♦5 ♦7"],
        dealer=0, called="♦Q")
    action = choose(state)
    info = ACTIONS[action]
    assert action in (single("4"), pair("6")), info.text
    assert not info.is_bomb and info.jokers == 0


def test_leads_a_low_run_to_shed_many_cards():
    state = DagongGame(allow_solo=False).state_from_hands(
        ["♦4 ♣4 ♦5 ♣5 ♦6 ♣6 ♥7 ♣7 ♠K ♠A ♥2 ♦Q", "♦3 ♣8 ♣9 ♣J", "♦Q ♥8 ♥9", "♣3 ♥J ♦J"],
        dealer=0, called="♦Q")
    info = ACTIONS[choose(state)]
    assert info.type == "pair_run" and info.ranks[0] == R["4"], info.text


def test_leads_to_a_known_partner_about_to_go_out():
    # seat 2 is the hidden partner (holds the twin ♠K); the dealer leads its pair of 4s and is
    # left with one card; seat 2 wins the next trick and leads
    game = DagongGame(allow_solo=False)
    state = game.state_from_hands(
        ["♠K ♦4 ♣4", "♦3 ♣3 ♣8 ♣J ♥Q ♦A ♥2 ♠2", "♠K ♥9 ♣9 ♣5 ♦6 ♥6 ♦7 ♣7 ♦8 ♥8",
         "♥3 ♠3 ♥J ♠J ♦Q ♣A ♦2 ♣2"], dealer=0, called="♠K")
    state.apply(pair("4"))
    state.apply(cat.PASS)
    state.apply(pair("9"))
    for _ in range(3):
        state.apply(cat.PASS)
    assert state.current == 2 and state.cards_left[0] == 1
    info = ACTIONS[choose(state)]
    assert info.type == "single" and info.key_rank <= R["6"], info.text
    # without the partner that close to out, the pair run 6-8 would go first
    free = game.state_from_hands(
        ["♠K ♦4 ♣4 ♦3 ♥5 ♠7 ♠10", "♦3 ♣3 ♣8 ♣J ♥Q ♦A ♥2 ♠2", "♠K ♥9 ♣9 ♣5 ♦6 ♥6 ♦7 ♣7 ♦8 ♥8",
         "♥3 ♠3 ♥J ♠J ♦Q ♣A ♦2 ♣2"], dealer=0, called="♠K")
    for a in (pair("4"), cat.PASS, pair("9"), cat.PASS, cat.PASS, cat.PASS):
        free.apply(a)
    assert ACTIONS[choose(free)].type == "pair_run"


def test_goes_out_when_the_whole_hand_is_one_play():
    state = DagongGame(allow_solo=False).state_from_hands(
        ["♦Q ♦J ♣J ♥J", "♦3 ♣8 ♣9 ♣J", "♦Q ♥8 ♥9", "♣3 ♥5 ♦5"], dealer=0, called="♦Q")
    state.apply(single("Q", called=True))  # the dealer's own copy: no 明鸡
    for _ in range(3):
        state.apply(cat.PASS)
    assert state.current == 0
    assert choose(state) == action_id("triple", 3, R["J"])


# --- following -----------------------------------------------------------------------------------


def follow_position(my_hand, lead, dealer_hand="♠3 ♦7 ♥9 ♣J ♦J ♣Q ♥Q ♦K", lead_first=()):
    """Seat 0 deals (called ♠3, twin at seat 2) and leads ``lead``; seat 1 (an opponent of the
    dealer, the partner being seat 2) is to act with ``my_hand``."""
    state = DagongGame(allow_solo=False).state_from_hands(
        [dealer_hand, my_hand, "♠3 ♥5 ♥7 ♣4 ♦6 ♣6", "♣3 ♦5 ♥6 ♠6 ♠8 ♥10"],
        dealer=0, called="♠3")
    for a in (*lead_first, lead):
        state.apply(a)
    assert state.current == 1
    return state


def test_beats_with_the_cheapest_play():
    state = follow_position("♦8 ♣10 ♠K ♦A ♥2 ♥4 ♠4 ♥Q ♣Q", single("7"))
    assert choose(state) == single("8")
    state = follow_position("♦8 ♣8 ♥9 ♣9 ♦A ♣A ♥2 ♥4 ♦3", pair("5"), "♠3 ♦7 ♥9 ♣5 ♠5 ♣Q ♥Q")
    assert choose(state) == pair("8")
    # a pair of aces is too dear for a pointless pair of jacks
    state = follow_position("♦8 ♣8 ♦A ♣A ♥2 ♥4 ♦3", pair("J"), "♠3 ♦7 ♥9 ♣J ♦J ♣Q ♥Q")
    assert choose(state) == cat.PASS


def test_does_not_bomb_a_pointless_trick():
    hand = "♦6 ♣6 ♥6 ♠6 ♦8 ♥9 ♣J ♦3 ♣4"
    state = follow_position(hand, single("2"), "♠3 ♦7 ♥9 ♣J ♦J ♣Q ♥Q ♦2")
    assert choose(state) == cat.PASS


def test_bombs_a_point_rich_trick_with_the_smallest_bomb():
    hand = "♦6 ♣6 ♥6 ♠6 ♦8 ♣8 ♥8 ♠8 ♥8 ♥9 ♣J ♦3 ♣4"
    state = follow_position(hand, pair("K"), "♠3 ♦7 ♥9 ♣J ♦J ♣Q ♠K ♦K ♥10 ♦10")
    assert state.trick_points == 20
    assert choose(state) == action_id("bomb", 4, R["6"])


def test_bombs_an_opponent_about_to_go_out():
    hand = "♦6 ♣6 ♥6 ♠6 ♦8 ♣8 ♥8 ♠8 ♥8 ♥9 ♣J ♦3 ♣4"
    state = follow_position(hand, single("2"), "♠3 ♦2 ♥9")
    assert state.trick_points == 0 and state.cards_left[0] == 2
    assert choose(state) == action_id("bomb", 4, R["6"])


def test_passes_when_its_known_partner_is_winning():
    # seat 2 holds the twin of the called ♠3: it knows the dealer is its partner
    hands = ["♠3 ♦7 ♥9 ♣J ♦J ♣Q ♥Q ♦K", "♦3 ♣5 ♣10 ♦A", "♠3 ♦8 ♣9 ♥4 ♠4 ♣Q", "♣3 ♦5 ♥6"]
    state = DagongGame(allow_solo=False).state_from_hands(hands, dealer=0, called="♠3")
    state.apply(single("7"))
    state.apply(cat.PASS)
    assert state.current == 2
    assert choose(state) == cat.PASS
    # the same cards with ♥9 called (its twin at seat 1): seat 2 is an opponent of the dealer
    hands[1] += " ♥9"
    other = DagongGame(allow_solo=False).state_from_hands(hands, dealer=0, called="♥9")
    other.apply(single("7"))
    other.apply(cat.PASS)
    assert other.current == 2
    assert choose(other) == single("8")


def test_dealer_passes_on_a_revealed_partner():
    hands = ["♠9 ♦7 ♥8 ♣J ♦J ♣Q ♥Q ♦K", "♦3 ♣5 ♣10 ♦A", "♠9 ♦8 ♣3 ♥4 ♠4 ♣Q", "♣3 ♦5 ♥6 ♣6"]
    state = DagongGame(allow_solo=False).state_from_hands(hands, dealer=0, called="♠9")
    state.apply(single("7"))
    state.apply(cat.PASS)
    state.apply(single("9", called=True))  # 明鸡: seat 2 shows the twin of the called card
    state.apply(cat.PASS)
    assert state.current == 0 and state.revealed
    assert choose(state) == cat.PASS


# --- 明鸡 ----------------------------------------------------------------------------------------


def test_keeps_the_called_card_back_when_it_is_not_needed():
    # called ♠6: the dealer holds one, seat 2 (the hidden partner) the other and a ♦6 too
    hands = ["♠6 ♦3 ♥9 ♣J", "♦4 ♣5 ♣10 ♦A", "♠6 ♦6 ♥6 ♣J ♦J ♥K ♠A ♦2", "♣3 ♦5 ♥7"]
    state = DagongGame(allow_solo=False).state_from_hands(hands, dealer=0, called="♠6")
    state.apply(single("3"))
    state.apply(single("4"))
    assert state.current == 2
    action = choose(state)
    assert action == single("6", called=False), ACTIONS[action].text


def test_shows_the_called_card_when_the_play_needs_it():
    hands = ["♠6 ♦3 ♥9 ♣J", "♦4 ♣5 ♣10 ♦A", "♠6 ♣J ♥K ♠A ♦2 ♥Q ♦Q", "♣3 ♦5 ♥7"]
    state = DagongGame(allow_solo=False).state_from_hands(hands, dealer=0, called="♠6")
    state.apply(single("3"))
    state.apply(single("4"))
    action = choose(state)
    assert action == single("6", called=True), ACTIONS[action].text


# --- strength ------------------------------------------------------------------------------------


def duplicate_match(deals, seed0=0, **options):
    """Each deal twice: heuristic at seats 0 and 2, random at 1 and 3, then swapped. A deal
    pair is won when the heuristic seats' summed rewards over both games beat random's."""
    game = DagongGame(**options)
    wins = losses = ties = 0
    for deal in range(deals):
        seed = seed0 + deal
        margin = 0
        for swap in (0, 1):
            heuristic = DagongHeuristic(seed)
            random = RandomAgent("dagong", seed * 2 + swap)
            state = game.new_state(seed)
            mine = (0, 2) if swap == 0 else (1, 3)
            while not state.is_over:
                seat = state.current
                o = obs_of(state)
                if seat in mine:
                    action = heuristic.act(o)
                else:
                    action = random.act(o)
                state.apply(action)
            margin += sum(state.returns[s] for s in mine) - sum(
                state.returns[s] for s in range(4) if s not in mine)
        wins += margin > 0
        losses += margin < 0
        ties += margin == 0
    return {"wins": wins, "losses": losses, "ties": ties,
            "win_rate": wins / max(1, wins + losses)}


@pytest.mark.parametrize("allow_solo, deals, least_wins", [(True, 30, 18), (False, 50, 10)])
def test_beats_random_play_in_duplicate_deals(allow_solo, deals, least_wins):
    # Sides are set by the called card, not by the seats: when the dealer's partner sits next
    # to it, each side holds one heuristic and one random seat and the pair is a tie by
    # construction (about 2/3 of deals without 硬牌); the win rate is over decided pairs.
    # Measured: 27 wins, 0 losses, 3 ties in the 30 deals with 硬牌; 19 wins, 0 losses, 31
    # ties in the 50 without (on 200 deals: 189-2-9 and 69-0-131): a wide margin either way.
    result = duplicate_match(deals, seed0=1000, allow_solo=allow_solo)
    assert result["win_rate"] >= 0.8, result
    assert result["wins"] >= least_wins, result
    # (its decisions per second are a benchmark's: python -m cardagents bench)
