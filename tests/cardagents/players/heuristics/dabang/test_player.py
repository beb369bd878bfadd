"""DabangHeuristic: always legal, the key decisions in scripted positions, and stronger than random.

Scripted positions use fixed decks (``tests.cardenv.dabang.scripted``). The play positions are
later hands at level 5 with ♥ declared by the dealer (seat 0) and a kitty holding no ♥ card, so
the hand is 干锅: no burial, the dealer leads at once.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardagents import RandomAgent
from cardagents.players.heuristics.dabang.player import DabangHeuristic
from cardenv.core.cards import KIND_POINTS, NUM_NATURAL
from cardenv.dabang import DabangGame
from cardenv.dabang import catalogue as cat
from cardenv.dabang.strength import SUIT_CLASS, TRUMP
from tests.cardenv.dabang import scripted as sc
from tests.cardenv.dabang.scripted import BJ, C, D, GRAB, H, PASS, SJ

LEVEL = 5
GANGGUO_KITTY = "♣10 ♣10 ♣K ♣K ♦10 ♦10 ♦K ♦K"  # no ♥ card: 干锅 once ♥ is trump
# two copies of each low non-point ♦ ♣ ♥ card, in this order: fills a hand without spades
FILL = sc.cards("♦3 ♦4 ♦6 ♦7 ♦8 ♦9 ♦J ♦Q ♦A ♣3 ♣4 ♣6 ♣7 ♣8 ♣9 ♣J ♣Q ♣A "
                "♥3 ♥4 ♥6 ♥7 ♥8 ♥9 ♥J ♥Q ♥A")
FILL = [k for k in FILL for _ in range(2)]
TRUMP_CLASS = SUIT_CLASS[H, LEVEL - 3]


def obs(state, seat=None):
    seat = state.current if seat is None else seat
    return {"observation": state.observation(seat),
            "action_mask": state.legal_mask().astype(np.int8)}


def full_hand(spec) -> list[int]:
    """``spec`` plus low non-point ♦ ♣ ♥ filler: a 52-card hand void in spades unless given."""
    head = sc.cards(spec)
    return head + FILL[:52 - len(head)]


def gangguo_play(hands, kitty=GANGGUO_KITTY):
    """A later hand (level 5, dealer 0) where seat 0 declares ♥ and play starts at once."""
    heads = [sc.cards(h) for h in hands]
    heads[0] = sc.cards("♥5") + heads[0]
    deck = sc.build_deck(heads, kitty, first_seat=0)
    state = DabangGame(levels=(LEVEL, LEVEL), dealer=0, bidding="after_deal").new_state(
        0, deck=deck)
    sc.run_declare(state, [(0, cat.declare_level(H, 1))])
    assert state.gangguo and state.phase == "play" and state.current == 0
    return state


def agent_play(state, agent) -> list[int]:
    """Let ``agent`` make the current seat's whole play (a lead, or a follow step by step);
    returns the cards played."""
    seat, k = state.current, state.k
    done = []
    while True:
        action = agent.act(obs(state))
        assert state.legal_mask()[action]
        kind, count = divmod(action - cat.PLAY, 4)
        done += [kind] * (count + 1)
        state.apply(action)
        if k == 0 or len(done) == k:
            return sorted(done)
        assert state.current == seat


def points(kinds) -> int:
    return int(sum(KIND_POINTS[k] for k in kinds))


# --- legality ------------------------------------------------------------------------------------

CONFIGS = [
    {},
    {"dealer": "random", "levels": "random"},
    {"dealer": "random", "levels": "random", "blood": 3, "tribute_return": "dealer_choice"},
    {"dealer": "random", "levels": "random", "follow": "live", "bidding": "after_deal"},
]


@pytest.mark.parametrize("options", CONFIGS)
def test_always_legal(options):
    """Thousands of positions reached by a mix of heuristic and random moves: the heuristic's
    choice is always legal; 扣王 is passed; tribute returns give no point card or joker."""
    game = DabangGame(**options)
    rng = np.random.default_rng(1)
    agent = DabangHeuristic(seed=0)
    checked = 0
    for seed in range(15):
        state = game.new_state(seed)
        while not state.is_over:
            o = obs(state)
            action = agent.act(o)
            assert o["action_mask"][action] == 1, (seed, state.phase, action)
            if state.phase == "koujoker":
                assert action == PASS
            if state.phase == "return":
                kind = action - cat.RETURN
                assert kind < NUM_NATURAL and KIND_POINTS[kind] == 0
            checked += 1
            if rng.random() < 0.3:  # wander off the heuristic's own lines
                action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            state.apply(action)
    assert checked > 2500  # some 2,600 to 2,740 positions a rules variant, 10,500 in all


def test_batch_decides_as_act():
    # (its speed, per row and batched, is a benchmark's: python -m cardagents bench)
    game = DabangGame(dealer="random", levels="random")
    agent = DabangHeuristic(seed=0)
    observations, masks = [], []
    for seed in range(4):
        state = game.new_state(seed)
        while not state.is_over:
            o = obs(state)
            action = agent.act(o)
            observations.append(o["observation"])
            masks.append(o["action_mask"])
            state.apply(action)
    picks = agent.act_batch(np.stack(observations[:300]), np.stack(masks[:300]))
    assert all(m[a] for m, a in zip(masks, picks))
    # the batched path decides as act (thousands of positions in
    # tests/cardagents/players/heuristics/dabang/test_batch.py)
    assert picks.tolist() == [agent.act({"observation": o, "action_mask": m})
                              for o, m in zip(observations[:300], masks[:300])]


# --- declaring -----------------------------------------------------------------------------------

LONG_CLUBS = "♣5 ♦5 ♣3 ♣3 ♣4 ♣4 ♣6 ♣6 ♣7 ♣7 ♣8 ♣8 ♣9 ♣9 ♣J ♣J ♣Q ♣Q ♣A ♣A ♣K ♣K"


def declare_decision(deck, dealer, script, seat=0):
    """Run the after-deal declaration from ``script`` until ``seat`` is asked."""
    state = DabangGame(levels=(LEVEL, LEVEL), dealer=dealer, bidding="after_deal").new_state(
        0, deck=deck)
    script = list(script)
    while state.phase == "declare" and state.current != seat:
        action = script.pop(0)[1] if script and script[0][0] == state.current else PASS
        state.apply(action)
    assert state.phase == "declare" and state.current == seat
    return state


def test_declares_its_long_suit():
    """Level cards of ♣ (long) and ♦ (short): it names ♣."""
    deck = sc.build_deck([LONG_CLUBS], first_seat=0)
    state = declare_decision(deck, 0, [])
    assert cat.declare_level(D, 1) in state.legal_actions()
    action = DabangHeuristic().act(obs(state))
    assert cat.ACTIONS[action].type == "declare" and cat.ACTIONS[action].suit == C
    assert cat.ACTIONS[action].count == state.hands[0][sc.card("♣5")]  # every ♣5 held


def test_overrides_an_opponent_with_its_long_suit_but_not_the_partner():
    hand = LONG_CLUBS.replace("♦5", "♣5")  # two ♣5
    deck = sc.build_deck([hand, "♦5", "♦5"], first_seat=1)
    state = declare_decision(deck, 1, [(1, cat.declare_level(D, 1))])
    assert DabangHeuristic().act(obs(state)) == cat.declare_level(C, 2)
    state = declare_decision(deck, 1, [(2, cat.declare_level(D, 1))])
    assert DabangHeuristic().act(obs(state)) == PASS


def test_first_hand_grabs_with_a_strong_hand_only():
    for head, want in (("♠2 ♥2 ♦2 ♣2 ♠3 ♥3 ♦3 ♣3 BJ", GRAB),
                       ("♦4 ♦6 ♣7 ♣8 ♦9 ♠J ♥Q ♠4 ♥6 BJ", PASS)):
        deck = sc.build_deck([head], first_seat=0)
        state = DabangGame().new_state(0, deck=deck, first_seat=0)
        assert state.phase == "declare" and state.current == 0
        assert state.hands[0].sum() == len(sc.cards(head))
        assert DabangHeuristic().act(obs(state)) == want


# --- burial --------------------------------------------------------------------------------------

DEALER_HAND = ("♥5 ♥A ♥A ♥Q ♥Q ♥J ♥J ♥9 ♥9 ♥8 ♥8 ♥7 ♥7 ♥6 ♥6 ♥4 ♥4 ♥3 ♥3 BJ SJ ♠2 ♣2 "
               "♠A ♠A ♠K ♠K ♠Q ♠Q ♠J ♠10 ♠9 ♠9 ♠8 ♠8 ♠7 ♠6 "
               "♦A ♦K ♦10 ♦9 ♦9 ♦8 ♦7 ♦J ♦Q ♦Q ♣3 ♣4 ♣6 ♣8 ♣J")


def test_buries_low_side_cards_and_voids_a_short_suit():
    deck = sc.build_deck([DEALER_HAND], "♥10 ♣7 ♦3 ♦4 ♠3 ♠4 ♣Q ♦6", first_seat=0)
    state = DabangGame(levels=(LEVEL, LEVEL), dealer=0, bidding="after_deal").new_state(
        0, deck=deck)
    sc.run_declare(state, [(0, cat.declare_level(H, 1))])
    assert state.phase == "bury" and not state.gangguo
    agent = DabangHeuristic()
    buried = []
    while state.phase == "bury":
        action = agent.act(obs(state))
        buried.append(action - cat.BURY)
        state.apply(action)
    assert len(buried) == 8
    assert points(buried) == 0
    assert all(TRUMP_CLASS[k] != TRUMP for k in buried)  # no trump, no joker
    assert all(k // 4 != 11 for k in buried)  # no ace
    assert not any(state.hands[0][k] for k in range(NUM_NATURAL) if TRUMP_CLASS[k] == C)
    assert state.hands[0][BJ] == 1 and state.hands[0][SJ] == 1


# --- leading and following -----------------------------------------------------------------------

def test_leads_a_winning_pair():
    state = gangguo_play(["♠A ♠A ♠4 ♠6"])
    assert agent_play(state, DabangHeuristic()) == sc.cards("♠A ♠A")


def test_follows_suit_cheaply_when_it_cannot_win():
    state = gangguo_play(["♠A", full_hand("♠3 ♠7 ♠10 ♠K ♠Q")])
    sc.play(state, 0, "♠A")
    assert agent_play(state, DabangHeuristic()) == sc.cards("♠3")


def test_follows_a_pair_with_its_two_lowest_non_point_cards():
    state = gangguo_play(["♠A ♠A", full_hand("♠3 ♠4 ♠10 ♠K ♠Q")])
    sc.play(state, 0, "♠A ♠A")
    assert agent_play(state, DabangHeuristic()) == sc.cards("♠3 ♠4")


def test_wins_a_point_trick_with_the_cheapest_winner():
    state = gangguo_play(["♠10", "♠9", "♠J", full_hand("♠3 ♠Q ♠A")])
    for seat, card in ((0, "♠10"), (1, "♠9"), (2, "♠J")):
        sc.play(state, seat, card)
    assert agent_play(state, DabangHeuristic()) == sc.cards("♠Q")


def test_feeds_points_to_the_winning_partner():
    state = gangguo_play(["♠4", "♠A", "♠6", full_hand("♠3 ♠7 ♠10 ♠Q")])
    for seat, card in ((0, "♠4"), (1, "♠A"), (2, "♠6")):
        sc.play(state, seat, card)
    assert agent_play(state, DabangHeuristic()) == sc.cards("♠10")
    # void in the suit led: a side point card goes to the partner
    state = gangguo_play(["♠4", "♠A", "♠6", full_hand("♦K ♦10")])
    for seat, card in ((0, "♠4"), (1, "♠A"), (2, "♠6")):
        sc.play(state, seat, card)
    assert points(agent_play(state, DabangHeuristic())) > 0


def test_does_not_feed_points_to_a_winning_opponent():
    state = gangguo_play(["♠4", "♠3", "♠A", full_hand("♠10 ♠K ♠7")])
    for seat, card in ((0, "♠4"), (1, "♠3"), (2, "♠A")):
        sc.play(state, seat, card)
    assert agent_play(state, DabangHeuristic()) == sc.cards("♠7")


def test_void_trumps_a_point_trick_and_discards_on_a_worthless_one():
    state = gangguo_play(["♠10", "♠3", "♠4", full_hand("")])
    for seat, card in ((0, "♠10"), (1, "♠3"), (2, "♠4")):
        sc.play(state, seat, card)
    assert agent_play(state, DabangHeuristic()) == sc.cards("♥3")  # the lowest trump
    state = gangguo_play(["♠6", "♠3", "♠4", full_hand("")])
    for seat, card in ((0, "♠6"), (1, "♠3"), (2, "♠4")):
        sc.play(state, seat, card)
    (discard,) = agent_play(state, DabangHeuristic())
    assert TRUMP_CLASS[discard] != TRUMP and KIND_POINTS[discard] == 0 and discard // 4 <= 1


# --- strength ------------------------------------------------------------------------------------

def play_hand(game, seed, seats):
    state = game.new_state(seed)
    while not state.is_over:
        state.apply(seats[state.current].act(obs(state)))
    return state.returns[0]


@pytest.mark.parametrize("options", [{}, {"dealer": "random", "levels": "random"}])
def test_beats_random_in_duplicate(options):
    """Each deal is played twice, the heuristic at seats 0 and 2, then at 1 and 3: its summed
    reward over the pair beats random's in at least 80% of the pairs (measured: all 100 of
    the first 100 deals with either options, so 20 deals leave a wide margin)."""
    game = DabangGame(**options)
    results = Counter()
    for seed in range(20):
        heuristic, rand = DabangHeuristic(seed), RandomAgent("dabang", seed)
        ours = play_hand(game, seed, [heuristic, rand, heuristic, rand]) \
            - play_hand(game, seed, [rand, heuristic, rand, heuristic])
        results[ours > 0] += 1
    assert results[True] >= 16
