"""The counting pieces (issue 35, ``cardenv.dabang.counting``): what they claim holds in play.

``test_no_leak.py`` rebuilds each of them from public events at every step; here each piece is
checked against the rules it summarises: the trick's winner against the trick code, voids
against later follows (A5), the last-trick flag against who wins the last trick ([DB-8]), the
score bands against A6, and ``beaten_from`` against a plain loop over the strength tables (A1).
"""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.cards import KIND_POINTS
from cardenv.dabang import DabangGame
from cardenv.dabang.counting import beaten_from
from cardenv.dabang.phases.trick import winning_seat
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS
from tests.sizes import sizes

STRENGTH_ROWS = STRENGTH.reshape(-1, 54)
CLASS_ROWS = SUIT_CLASS.reshape(-1, 54)


def test_beaten_from_is_the_most_unseen_copies_of_a_strictly_stronger_kind_of_its_class():
    """A1: strength and suit class under every trump and level; equal kinds (the off-suit
    level cards, the off-suit 2s) do not beat each other."""
    rng = np.random.default_rng(0)
    rows = rng.integers(0, len(STRENGTH_ROWS), 64)
    unseen = rng.integers(0, 5, (64, 4, 54))
    got = beaten_from(unseen, rows)
    for r, row in enumerate(rows):
        strength, cls = STRENGTH_ROWS[row], CLASS_ROWS[row]
        for kind in range(54):
            stronger = [d for d in range(54)
                        if cls[d] == cls[kind] and strength[d] > strength[kind]]
            want = unseen[r][:, stronger].max(axis=1) if stronger else np.zeros(4)
            assert got[r, :, kind].tolist() == list(want), (row, kind)


@pytest.mark.parametrize("blood, tribute_return, flag", [
    (0, "none", 0), (3, "none", 1), (3, "dealer_choice", 0), (0, "dealer_choice", 0)])
def test_tribute_pieces_are_known_from_the_deal_start(blood, tribute_return, flag):
    """[DB-8]: a dealer owed tribute that keeps it plays the last tricks alone."""
    game = DabangGame(dealer=1, levels=(5, 6), blood=blood, tribute_return=tribute_return)
    state = game.new_state(7)
    v = state.v
    assert (v["blood_owed"][0], v["tribute_hand"][0], v["defenders_take_last"][0]) == \
        (blood, blood > 0, flag)
    assert v["tribute"][0] == 0 or state.phase != "declare"  # paid only after the deal


def _play_hands(options: dict, seeds, check) -> int:
    """Random play of ``seeds``' hands; ``check(state, before)`` after every move."""
    game = DabangGame(**options)
    moves = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = game.new_state(seed)
        while not state.is_over:
            legal = state.legal_actions()
            before = state.clone()
            state.apply(legal[rng.integers(len(legal))])
            check(state, before)
            moves += 1
    return moves


@sizes("hands", 20, 100)
def test_trick_and_score_pieces_follow_the_rules_of_play(hands):
    """A5: the winner so far (``trick.winning_seat``), the points on the table, the seats still
    to play; A6: the attackers' points and their bands; unseen counts never negative."""
    seen = {"winner": 0, "bands": 0}

    def check(state, _):
        v = state.v
        assert (v["unseen"] >= 0).all()
        for seat in range(4):  # 216 cards: unseen + own hand + played + known kitty
            assert v["unseen"][seat].sum() + v["hand"][seat].sum() + v["played"].sum() \
                + v["kitty_known"][seat].sum() == 216
        if state.phase != "play":
            return
        winner = winning_seat(state)
        if winner is None:
            assert not v["trick_winner"].any()
        else:
            assert v["trick_winner"].tolist() == [int(s == winner) for s in range(4)]
            seen["winner"] += 1
        assert v["trick_points"][0] == int(v["trick"].sum(axis=0) @ KIND_POINTS)
        assert v["still_to_play"].tolist() == [int(s in state.trick.to_play) for s in range(4)]
        d = state.dealer
        attack = state.points[(d + 1) % 4] + state.points[(d + 3) % 4]
        assert v["attack_points"][0] == attack
        assert v["thresholds"].tolist() == [attack >= 120, attack >= 160, attack >= 200]
        assert v["points_out"][0] == 400 - sum(state.points)
        seen["bands"] += attack >= 120

    _play_hands({"dealer": "random", "levels": "random", "blood": "random"}, range(hands),
                check)
    assert seen["winner"] > 100 and seen["bands"] > 0


@sizes("hands", 20, 100)
def test_a_seat_shown_void_never_follows_that_suit_again_and_the_flag_keeps_its_promise(hands):
    """A5: a follow holding none of the led suit shows a void, and a hand only shrinks in
    play, so the seat never again follows that suit with a card of it. [DB-8]: in a hand with
    ``defenders_take_last`` the dealer's team wins the last trick."""
    counted = {"voids": 0, "flagged": 0}

    def check(state, before):
        if before.phase != "play" or before.trick.led_kind < 0:
            return
        seat = before.current
        cls = SUIT_CLASS[before.trump, before.level - 3]
        led = cls[before.trick.led_kind]
        if before.v["voids"][seat, led]:
            added = state.v["played"][seat] - before.v["played"][seat]
            assert not any(added[k] and cls[k] == led for k in range(54))
            counted["voids"] += 1

    game_options = {"dealer": "random", "levels": "random", "blood": "random"}
    _play_hands(game_options, range(hands), check)
    game = DabangGame(**game_options)
    for seed in range(hands * 4):
        rng = np.random.default_rng(seed)
        state = game.new_state(seed)
        flagged = None
        while not state.is_over:
            flagged = bool(state.v["defenders_take_last"][0])
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
        if flagged:
            counted["flagged"] += 1
            assert state.results[-1].outcome in (1, 3)  # 保底: the defenders took it
    assert counted["voids"] > 20 and counted["flagged"] > 0


@pytest.mark.parametrize("k, led_suit_played", [
    (2, 0),  # none of the led suit: void (the inference before)
    (2, 1),  # one card of a pair lead and another suit's card: it held exactly one
    (3, 2),  # two of a triple lead and another card
    (3, 1),
    (2, 2),  # k cards of the led suit: nothing is known
    (3, 3),
])
def test_a_short_follow_marks_the_void(k, led_suit_played):
    """A5: a follower plays min(k, held) cards of the led suit, so a follow holding a card of
    another suit (fewer than k of the led suit) shows the seat holds no more of it: the voids
    piece marks it then, and only then. (The batched engine is held equal to this one on
    whole games by tests/dabang/test_vector_engine.py.)"""
    found = 0
    game = DabangGame(dealer="random", levels="random", blood="random")
    for seed in range(300):
        rng = np.random.default_rng(seed)
        state = game.new_state(seed)
        while not state.is_over:
            t = state.trick if state.phase == "play" else None
            if t is not None and t.led_kind >= 0 and t.k == k and not t.partial \
                    and state.cards_left[state.current] >= k:
                seat = state.current
                cls = SUIT_CLASS[state.trump, state.level - 3]
                led = cls[t.led_kind]
                count = int(sum(state.v["hand"][seat, kind] for kind in range(54)
                                if cls[kind] == led))
                if min(k, count) == led_suit_played and not state.v["voids"][seat, led]:
                    while state.current == seat and not state.is_over:  # one whole follow
                        legal = state.legal_actions()
                        state.apply(legal[rng.integers(len(legal))])
                    assert bool(state.v["voids"][seat, led]) == (led_suit_played < k), seed
                    found += 1
                    continue
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
        if found >= 5:
            break
    assert found >= 5, f"too few such follows (k={k}, {led_suit_played} of the led suit)"
