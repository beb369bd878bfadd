"""Tricks with equal cards, match flow over several hands, rewards, and invariants over random
hands and matches (brief A5, A6), through the engine.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from cardenv.core.cards import KIND_POINTS
from cardenv.dabang import catalogue as cat
from cardenv.dabang.game import DabangGame
from tests.cardenv.dabang import scripted as sc
from tests.cardenv.dabang.scripted import H, S
from tests.sizes import sizes

L = cat.declare_level
SIDE_HEARTS = [sc.kind(r, H) for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
               for _ in range(4)]


# --- tricks with equal cards ---------------------------------------------------------------------

def trick_state(hands):
    """Dealer 0 at level 3 declares ♠; the kitty is 8 side hearts (干锅: play starts at once).
    ``hands[seat]``: cards a seat must hold; a seat's side hearts are exactly those given (the
    dealer also gets every side heart not given and not in the kitty)."""
    given = [sc.cards(hands.get(s)) for s in range(4)]
    rest = list((Counter(SIDE_HEARTS) - Counter(k for g in given for k in g)).elements())
    rest.sort(key=lambda k: (k // 4 not in (3, 4, 5, 6), k))  # the kitty: 6s to 9s first
    kitty, extra = rest[:8], rest[8:]
    heads = [given[0] + extra + sc.cards("♠3")] + given[1:]
    deck = sc.later_hand_deck(3, heads, kitty, spread=(1, 2, 3), sink=0)
    st = sc.new_state(deck, bidding="after_deal", dealer=0, levels=(3, 3))
    sc.run_declare(st, [(0, L(S, 1))])
    assert st.gangguo and st.phase == "play" and st.current == 0
    return st


TRICKS = [
    # hands, plays in seat order from seat 0, winner, points won
    ({1: "♥A", 2: "♥K", 3: "♥4"},
     ["♥A", "♥A", "♥K", "♥4"], 0, 10),                 # equal singles: the first played wins
    ({1: "♥4", 2: "♥A", 3: "♥A"},
     ["♥5", "♥4", "♥A", "♥A"], 2, 5),                  # the first of the equal later plays
    ({1: "♦2", 2: "♣2", 3: "♥K"},
     ["♥A", "♦2", "♣2", "♥K"], 1, 10),                 # void: equal off-suit 2s, first wins
    ({1: "♣3", 2: "♥3", 3: "♠4"},
     ["♦3", "♣3", "♥3", "♠4"], 0, 0),                  # off-suit level cards are equal
    ({0: "♠4", 1: "♣3", 2: "♥3", 3: "♠5"},
     ["♠4", "♣3", "♥3", "♠5"], 1, 5),
    ({1: "♥A ♥A", 2: "♥K ♥Q", 3: "♥4 ♥4"},
     ["♥A ♥A", "♥A ♥A", "♥K ♥Q", "♥4 ♥4"], 0, 10),     # equal pairs; a non-pair never wins
    ({1: "♦2 ♦2", 2: "♣2 ♣2", 3: "♥4 ♥4"},
     ["♥10 ♥10", "♦2 ♦2", "♣2 ♣2", "♥4 ♥4"], 1, 20),   # void, equal trump pairs
    ({1: "♦A", 2: "♠2 ♣2", 3: "♥K"},
     ["♥A", "♦A", "♠2", "♥K"], 2, 10),                 # a void side card cannot win
]


@pytest.mark.parametrize("hands,plays,winner,pts", TRICKS)
def test_trick_winner_equal_cards(hands, plays, winner, pts):
    """A5: only k identical cards of the led suit (or all trump from a void player) can win; the
    strongest wins, among equals the one played first; the points go to the winner; the winner
    leads next."""
    st = trick_state(hands)
    for seat, play in enumerate(plays):
        sc.play(st, seat, play)
    assert st.current == winner and st.trick.leader == winner and st.trick.led_kind < 0
    assert st.points == [pts if s == winner else 0 for s in range(4)]


# --- match mode over several hands ------------------------------------------------------------

def run_match(seed, **options):
    """Play a match with random legal actions; per hand, what the next hand was dealt from."""
    game = DabangGame(episode="match", **options)
    st = game.new_state(seed)
    rng = random.Random(seed)
    starts = []  # per hand: (dealer, level, levels, tribute, giver cards left, hand sizes)
    seen_hand = -1
    rewards = []
    steps = 0
    while not st.is_over:
        hand = len(st.results)
        if hand != seen_hand and st.phase != "declare":
            seen_hand = hand
            giver = (st.dealer - 1) % 4
            non_point = int(sum(c for k, c in enumerate(st.hands[giver]) if not KIND_POINTS[k]))
            starts.append((st.dealer, st.level, list(st.levels), list(st.tribute.cards), non_point,
                           st.v["levels"].tolist()))
        st.apply(rng.choice(st.legal_actions()))
        rewards.append(list(st.last_rewards))
        steps += 1
        assert steps < 100_000
    return st, starts, rewards


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_match_flow(seed):
    """A6/A3 match mode: each hand's dealer is the previous hand's next dealer, its level the
    dealer team's level after the previous hand, the tribute the previous hand's blood (fewer
    only if the giver has no non-point card left); hand 1 has no tribute; rewards 0 until the
    match ends, then +1 / -1 [match-mode reward]."""
    st, starts, rewards = run_match(seed)
    res = st.results
    assert len(starts) == len(res) >= 2
    assert starts[0][3] == []  # hand 1: N = 0
    for prev, (dealer, level, levels, tribute, giver_left, seat_levels) in zip(res, starts[1:]):
        assert dealer == prev.next_dealer
        assert levels == prev.levels_after
        assert level == prev.levels_after[dealer % 2]
        assert seat_levels == [levels[s % 2] for s in range(4)]
        assert len(tribute) == prev.blood or (len(tribute) < prev.blood and giver_left == 0)
    for a, b in zip(res, res[1:]):
        assert b.levels_before == a.levels_after
    last = res[-1]
    assert last.match_winner is not None and all(r.match_winner is None for r in res[:-1])
    w = last.match_winner
    assert last.rewards == [1.0 if s % 2 == w else -1.0 for s in range(4)]
    assert all(r.rewards == [0.0] * 4 for r in res[:-1])
    assert sum(sum(r) for r in rewards[:-1]) == 0 and rewards[-1] == last.rewards
    assert st.returns == last.rewards and not st.truncated


def test_match_truncation():
    """Match mode with max_hands: the episode stops after that many hands, truncated, reward 0."""
    for seed in range(6):
        game = DabangGame(episode="match", max_hands=2)
        st = game.new_state(seed)
        rng = random.Random(seed)
        while not st.is_over:
            st.apply(rng.choice(st.legal_actions()))
        if st.results[-1].match_winner is None:
            assert len(st.results) == 2 and st.truncated and st.returns == [0.0] * 4
            return
    pytest.fail("no truncated match in 6 seeds")


def test_match_from_later_hand_pays_blood():
    """A3: a match episode started from a later hand (dealer 2, blood 4) opens with 4 cards of
    tribute from seat 1 to seat 2."""
    game = DabangGame(episode="match", dealer=2, levels=(5, 8), blood=4)
    st = game.new_state(11)
    sc.run_declare(st)
    assert st.dealer == 2 and st.level == 5 and len(st.tribute.cards) == 4
    assert st.hands[1].sum() == 48


# --- invariants over random hands and matches -----------------------------------------------------

HAND_OPTIONS = [
    {},
    {"bidding": "after_deal"},
    {"follow": "live"},
    {"joker_levels": False, "keep_dealer": "same", "four_joker_win": "big_only"},
    {"deal_value": 0.25},
    {"dealer": 1, "levels": (9, 10), "blood": 3},
    {"dealer": 2, "levels": (10, 4), "blood": 0},
    {"dealer": 3, "levels": (6, 7), "blood": 12, "bidding": "after_deal"},
]


def check_step(st):
    census = sc.census(st)
    assert (census == 4).all(), f"cards not conserved in phase {st.phase}: {census}"
    assert np.array_equal(st.v["kitty"], np.bincount(st.kitty.cards, minlength=54))
    assert (st.v["hand"] >= 0).all()
    assert st.hands.sum(axis=1).tolist() == list(st.cards_left)
    assert abs(sum(st.last_rewards)) < 1e-9 and abs(sum(st.returns)) < 1e-9


def hand_reward(r, deal_value):
    """The hand-episode reward formula for team 0."""
    if r.match_winner is not None:
        gain = 11 - r.levels_before[r.match_winner]
        return gain if r.match_winner == 0 else -gain
    value = r.gained[0] - r.gained[1]
    if r.outcome in (3, 4):
        value += deal_value if r.attackers == 0 else -deal_value
    return value


def check_result(r):
    """A6 bookkeeping of one hand's result."""
    assert sum(r.trick_points) + r.kitty_points == 400
    assert r.score == r.trick_points[r.attackers] + (2 * r.kitty_points if r.koudi else 0)
    assert r.outcome == (3 + r.koudi if r.score >= 160 else 1 + r.koudi)
    assert abs(sum(r.rewards)) < 1e-9
    assert r.rewards[0] == r.rewards[2] and r.rewards[1] == r.rewards[3]


@sizes("hands", 80, 240)
def test_invariants_random_hands(hands):
    """A1/A5/A6 over ``hands`` random hands (random legal actions, the eight option sets in
    turn): the 216 cards are conserved at every step (hands + played + kitty, during the deal
    and the burial too), the 400 points in every hand, rewards are zero-sum, every hand ends;
    the hand-episode reward is the levels-gained difference plus deal_value for taking the deal
    (a match win = level 11)."""
    n = 0
    for i in range(hands):
        options = HAND_OPTIONS[i % len(HAND_OPTIONS)]
        st = DabangGame(**options).new_state(1000 + i)
        rng = random.Random(i)
        steps = 0
        while not st.is_over:
            check_step(st)
            st.apply(rng.choice(st.legal_actions()))
            steps += 1
            assert steps < 2000
        check_step(st)
        (r,) = st.results
        check_result(r)
        assert r.trick_points == [st.points[0] + st.points[2], st.points[1] + st.points[3]]
        want = hand_reward(r, options.get("deal_value", 0.5))
        assert r.rewards == [want, -want, want, -want]
        assert st.returns == r.rewards
        n += 1
    assert n == hands


@sizes("matches", 8, 20)
def test_invariants_random_matches(matches):
    """A6 over ``matches`` random matches (four option sets in turn): the invariants at every
    third step, the 400 points each hand, every match ends with a winner, rewards zero-sum."""
    for i in range(matches):
        options = [{}, {"bidding": "after_deal"}, {"follow": "live"},
                   {"joker_levels": False}][i % 4]
        st = DabangGame(episode="match", **options).new_state(500 + i)
        rng = random.Random(i)
        steps = 0
        while not st.is_over:
            if steps % 3 == 0:
                check_step(st)
            st.apply(rng.choice(st.legal_actions()))
            steps += 1
            assert steps < 200 * 2000
        for r in st.results:
            check_result(r)
        assert st.results[-1].match_winner is not None and not st.truncated
        assert all(r.match_winner is None for r in st.results[:-1])
        assert abs(sum(st.returns)) < 1e-9
