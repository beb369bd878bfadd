"""The engine's short cuts against the general code they bypass.

- ``follow.play_steps_one`` answers a lead and a one-card follow without the general follow
  rule; ``follow._play_steps_general`` (the rule worked out for any state, itself checked
  against the slow reference through ``play_mask``) must give the same steps, on synthetic
  positions (every trump and level, k = 1..4, dead and live, hands of 0..52 cards, one-card
  hands against longer leads) and on every play step of random games.
- ``trick._complete`` takes a follower's void in the led suit from its play (no led-suit card
  in it); the definition is "no led-suit card in the hand before playing".
- ``DabangState.legal_mask`` builds its mask from a bytearray; it must equal the legal ids and
  be a fresh, writable bool array each call.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.dabang import DabangGame, follow
from cardenv.dabang.catalogue import NUM_ACTIONS, PLAY
from cardenv.dabang.strength import SUIT_CLASS
from tests.sizes import sizes

NKINDS = 54
DECK = np.repeat(np.arange(NKINDS), 4)


def _random_hand(rng, size: int) -> list[int]:
    if rng.random() < 0.5:  # dealt from the 216 cards
        cards = rng.choice(DECK, size=size, replace=False)
    else:  # clumpy: few kinds, many copies
        kinds = rng.choice(NKINDS, size=max(1, size // 3 + 1), replace=False)
        cards = np.minimum(rng.choice(kinds, size=size), NKINDS - 1)
    hand = np.bincount(cards, minlength=NKINDS)
    return np.minimum(hand, 4).tolist()


def _both(hand, partial, led, k, trump, level, dead, size):
    fast = follow.play_steps_one(hand, partial, led, k, trump, level, dead, size)
    general = follow._play_steps_general(hand, partial, led, k, trump, level, dead, size)
    return fast, general


@sizes("positions", 5_000, 20_000)
def test_short_cuts_match_general_rule_on_synthetic_positions(positions):
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(positions):
        size = int(rng.choice([0, 1, 1, 2, 3, 5, 8, 13, 25, 40, 52]))
        hand = _random_hand(rng, size)
        size = sum(hand)
        trump, level = int(rng.integers(4)), int(rng.integers(3, 11))
        led = -1 if rng.random() < 0.2 else int(rng.integers(NKINDS))
        k = int(rng.integers(1, 5)) if rng.random() < 0.5 else 1
        dead = bool(rng.random() < 0.6)
        given_size = size if rng.random() < 0.7 else None
        fast, general = _both(hand, {}, led, k, trump, level, dead, given_size)
        assert fast == general, (hand, led, k, trump, level, dead, given_size)
        checked += 1
    assert checked == positions


def test_one_card_hand_against_every_lead():
    """A hand of one card (after tribute) against leads of 1..4 cards: it plays its card."""
    for trump in range(4):
        for level in (3, 7, 10):
            for card in range(NKINDS):
                hand = [0] * NKINDS
                hand[card] = 1
                for led in range(0, NKINDS, 5):
                    for k in range(1, 5):
                        for dead in (True, False):
                            for size in (1, None):
                                fast, general = _both(hand, {}, led, k, trump, level, dead, size)
                                assert fast == general == [4 * card]


@pytest.mark.parametrize("follow_rule", ["dead", "live"])
@sizes("matches", 10, 30)
def test_short_cuts_void_and_mask_on_random_games(follow_rule, matches):
    game = DabangGame(follow=follow_rule, episode="match", max_hands=3)
    rng = np.random.default_rng(11)
    steps = completions = 0
    for seed in range(matches):
        state = game.new_state(seed)
        while not state.is_over:
            mask = state.legal_mask()
            legal = state.legal_actions()
            expected = np.zeros(NUM_ACTIONS, dtype=bool)
            expected[legal] = True
            assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,) and mask.flags.writeable
            assert np.array_equal(mask, expected)
            mask[:] = True  # the caller's own copy
            assert np.array_equal(state.legal_mask(), expected)
            if state.phase != "play":
                state.apply(legal[rng.integers(len(legal))])
                continue
            seat, t = state.current, state.trick
            hand = state.v["hand"][seat].tolist()
            fast, general = _both(hand, t.partial, t.led_kind, t.k, state.trump, state.level,
                                  follow_rule == "dead", state.cards_left[seat])
            assert fast == general
            assert [PLAY + s for s in fast] == legal
            steps += 1
            cls = SUIT_CLASS[state.trump, state.level - 3]
            was_void = t.led_kind >= 0 and not any(
                h for h, c in zip(hand, cls) if h and c == cls[t.led_kind])
            plays = t.plays  # the list itself: the next trick starts a new one
            before = len(plays)
            state.apply(legal[rng.integers(len(legal))])
            if len(plays) == before + 1:  # the play completed
                assert plays[-1][0] == seat and plays[-1][3] == was_void
                completions += 1
    assert steps > 1000 and completions > 500
