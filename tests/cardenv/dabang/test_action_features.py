"""Dabang per-action features (cardenv.dabang.action_features): hand-built observations with the
values the rules give (brief section A), and random games against the engine's own trick logic
(phases.trick) computed from the state."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.cards import KIND_POINTS, parse_cards
from cardenv.dabang import DabangGame
from cardenv.dabang import action_features as af
from cardenv.dabang import catalogue as cat
from cardenv.dabang.observation import LAYOUT, PHASES
from cardenv.dabang.phases import trick
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS

SPADES, HEARTS = 3, 2


def kind(text: str) -> int:
    return parse_cards(text)[0]


def observation(phase="play", trump=SPADES, level=5, hand="", leader=None, led=None,
                trick_cards=None, selection="", cards_left=52, played=None):
    """One Dabang observation built piece by piece (relative seats: 0 = the observer)."""
    obs = np.zeros((1, LAYOUT.observation_size), dtype=np.float32)
    v = {name: view[0] for name, view in LAYOUT.observation_views(obs).items()}
    v["phase"][PHASES.index(phase)] = 1
    v["trump"][trump] = 1
    v["level"][level - 3] = 1
    for k in parse_cards(hand):
        v["hand"][k] += 1
    for k in parse_cards(selection):
        v["selection"][k] += 1
    v["cards_left"][:] = cards_left
    if leader is not None:
        v["leader"][leader] = 1
        v["led_count"][0] = len(parse_cards(led))
    for seat, cards in (trick_cards or {}).items():
        for k in parse_cards(cards):
            v["trick"][seat, k] += 1
            v["played"][seat, k] += 1  # a card in the trick has been played
    for seat, cards in (played or {}).items():
        for k in parse_cards(cards):
            v["played"][seat, k] += 1
    # the counting pieces the engine keeps, as their docs define them
    v["unseen"][:] = 4 - v["hand"] - v["played"].sum(0) - v["kitty_known"]
    if leader is not None:
        winner = trick_winner_reference(v, trump, level, leader)
        if winner is not None:
            v["trick_winner"][winner] = 1
    return obs


def trick_winner_reference(v, trump, level, leader):
    """A5 on the hand-built trick: of the plays of k identical cards, of the led suit or (a
    void seat's) trump, the strongest; the first of equals."""
    strength, cls = STRENGTH[trump, level - 3], SUIT_CLASS[trump, level - 3]
    k = int(v["led_count"][0])
    led_cls = cls[int(v["trick"][leader].argmax())]
    best, value = None, -1
    for seat in ((leader + i) % 4 for i in range(4)):
        row = v["trick"][seat]
        kinds = np.flatnonzero(row)
        if len(kinds) != 1 or row[kinds[0]] != k:
            continue
        c = cls[kinds[0]]
        void = not any(cls[j] == led_cls for j in kinds)
        if (seat == leader or c == led_cls or (void and c == 4)) and strength[kinds[0]] > value:
            best, value = seat, strength[kinds[0]]
    return best


def features(obs, action) -> dict:
    row = af.action_features(obs, np.array([0]), np.array([action]))
    return {name: values[0] for name, values in af.FEATURES.views(row).items()}


def one_hot(names, name):
    return [float(n == name) for n in names]


# (clause, observation arguments, action, {feature: expected}), trump ♠, level 5 unless set
LED_PAIR_9 = dict(leader=3, led="♥9 ♥9", trick_cards={3: "♥9 ♥9"})
TABLE = [
    ("[A1] the trump-suit A: trump class, 10th of 17 trump strengths",
     dict(hand="♠A"), cat.play(kind("♠A"), 1),
     {"type": one_hot(af.TYPES, "lead"), "suit_class": [0, 0, 0, 0, 1], "strength": 10 / 16,
      "count": 0.25, "held": 0.25, "breaks_group": 0, "completes": 1, "wins": 1}),
    ("[A1] the side A tops its suit; a side 3 is its lowest",
     dict(hand="♥A ♥3"), cat.play(kind("♥A"), 1),
     {"suit_class": [0, 0, 1, 0, 0], "strength": 1.0}),
    ("[A1] the side 3", dict(hand="♥A ♥3"), cat.play(kind("♥3"), 1), {"strength": 0.0}),
    ("[A1] a side-suit level card is trump, below the trump-suit level card",
     dict(hand="♦5"), cat.play(kind("♦5"), 1),
     {"suit_class": [0, 0, 0, 0, 1], "strength": 13 / 16, "points": 5 / 40, "point_card": 1}),
    ("[A1] the big joker tops trump", dict(hand="BJ BJ"), cat.play(kind("BJ"), 1),
     {"strength": 1.0, "joker": 1, "breaks_group": 1, "held": 0.5}),
    ("[A5] a stronger pair of the led suit wins, by ♥K - ♥9 = 4 strengths",
     dict(hand="♥K ♥K", **LED_PAIR_9), cat.play(kind("♥K"), 2),
     {"type": one_hot(af.TYPES, "follow"), "completes": 1, "wins": 1, "margin": 4 / 45,
      "trick_points": 20 / 160, "points": 20 / 40, "partner_winning": 0}),
    ("[A5] one card of a pair's follow does not complete it, cannot win",
     dict(hand="♥K ♥K ♥7", **LED_PAIR_9), cat.play(kind("♥K"), 1),
     {"completes": 0, "wins": 0, "margin": 0, "breaks_group": 1, "trick_points": 10 / 160}),
    ("[A5] the second step completes the follow (selection ♥7)",
     dict(hand="♥K ♥K ♥7", selection="♥7", **LED_PAIR_9), cat.play(kind("♥K"), 1),
     {"completes": 1, "wins": 0, "trick_points": 10 / 160}),
    ("[A5] a follower with one card left completes with it",
     dict(hand="♥7", cards_left=1, **LED_PAIR_9), cat.play(kind("♥7"), 1),
     {"completes": 1, "wins": 0}),
    ("[A5] void in hearts, a trump pair wins",
     dict(hand="♠4 ♠4", **LED_PAIR_9), cat.play(kind("♠4"), 2),
     {"wins": 1, "margin": (21 - 7) / 45}),
    ("[A5] void in hearts, an off-suit side pair cannot win",
     dict(hand="♣A ♣A", **LED_PAIR_9), cat.play(kind("♣A"), 2),
     {"wins": 0, "margin": 0}),
    ("[A5] among equal strengths the first played wins: ♣5 after ♦5",
     dict(hand="♣5 ♠5", leader=1, led="♦5", trick_cards={1: "♦5"}), cat.play(kind("♣5"), 1),
     {"wins": 0, "margin": 0, "trick_points": 10 / 160}),
    ("[A5] the trump-suit level card beats a side level card",
     dict(hand="♣5 ♠5", leader=1, led="♦5", trick_cards={1: "♦5"}), cat.play(kind("♠5"), 1),
     {"wins": 1, "margin": 1 / 45}),
    ("[A5] the partner leads a pair, the next opponent breaks shape: partner wins",
     dict(hand="♥2 ♥3", leader=2, led="♥9 ♥9", trick_cards={2: "♥9 ♥9", 3: "♥4 ♥6"}),
     cat.play(kind("♥3"), 1), {"partner_winning": 1, "wins": 0}),
    ("[A5] an opponent's trump pair beats the partner's lead",
     dict(hand="♥3", leader=2, led="♥9 ♥9", trick_cards={2: "♥9 ♥9", 3: "♠3 ♠3"}),
     cat.play(kind("♥3"), 1), {"partner_winning": 0}),
    ("[A1] lead ♥K pair, two ♥A unseen: not top",
     dict(hand="♥K ♥K ♥A ♥A"), cat.play(kind("♥K"), 2), {"top": 0}),
    ("[A1] lead ♥K pair, one ♥A unseen (three in hand): top",
     dict(hand="♥K ♥K ♥A ♥A ♥A"), cat.play(kind("♥K"), 2), {"top": 1}),
    ("[A1] lead ♥K single, one ♥A unseen: not top",
     dict(hand="♥K ♥K ♥A ♥A ♥A"), cat.play(kind("♥K"), 1), {"top": 0}),
    ("[A1] lead ♥K pair, the other ♥A played: top",
     dict(hand="♥K ♥K ♥A ♥A", played={1: "♥A", 3: "♥A"}), cat.play(kind("♥K"), 2),
     {"top": 1}),
    ("[A4] the dealer buries a ♥K: a point card of a side suit",
     dict(phase="bury", hand="♥K ♥K"), cat.bury(kind("♥K")),
     {"type": one_hot(af.TYPES, "bury"), "suit_class": [0, 0, 1, 0, 0], "points": 10 / 40,
      "point_card": 1, "joker": 0, "breaks_group": 1, "completes": 0, "wins": 0}),
    ("[A4] 扣王: a big joker into the kitty", dict(phase="koujoker", hand="BJ"),
     cat.bury(kind("BJ")),
     {"type": one_hot(af.TYPES, "koujoker"), "joker": 1, "suit_class": [0, 0, 0, 0, 1]}),
    ("[A4] 扣王: stop", dict(phase="koujoker"), cat.PASS,
     {"type": one_hot(af.TYPES, "koujoker_stop"), "suit_class": [0] * 5}),
    ("[A4] take back a ♣3", dict(phase="takeback"), cat.take(kind("♣3")),
     {"type": one_hot(af.TYPES, "takeback"), "held": 0, "strength": 0}),
    ("[A3] give back a ♦6 (option tribute_return)", dict(phase="return", hand="♦6"),
     cat.give_back(kind("♦6")), {"type": one_hot(af.TYPES, "return"), "count": 0.25}),
    ("[A2] declare ♥ with two level cards, holding four hearts",
     dict(phase="declare", hand="♥5 ♥5 ♥A ♣A ♥9"), cat.declare_level(HEARTS, 2),
     {"type": one_hot(af.TYPES, "declare"), "declare_suit": [0, 0, 1, 0],
      "declare_cards": 0.5, "declare_jokers": 0, "declare_held": 4 / 26, "count": 0}),
    ("[A2] the big-joker grab names no suit", dict(phase="declare", hand="BJ"), cat.GRAB,
     {"declare_suit": [0] * 4, "declare_cards": 0.25, "declare_jokers": 1}),
    ("[A2] pass while declaring", dict(phase="declare"), cat.PASS,
     {"type": one_hot(af.TYPES, "declare_pass"), "declare_cards": 0}),
]


@pytest.mark.parametrize("clause, args, action, expected", TABLE, ids=[t[0] for t in TABLE])
def test_features_of_hand_built_positions(clause, args, action, expected):
    got = features(observation(**args), action)
    for name, value in expected.items():
        assert got[name] == pytest.approx(np.atleast_1d(value), abs=1e-6), (clause, name)


def reference(state, action) -> dict:
    """The play features from the engine's trick (phases.trick), not from the observation."""
    seat, t = state.current, state.trick
    k_kind, count = divmod(action - cat.PLAY, 4)
    count += 1
    points = sum(KIND_POINTS[k] * c for _, play, _, _ in t.plays for k, c in play.items())
    points += sum(KIND_POINTS[k] * c for k, c in t.partial.items()) + KIND_POINTS[k_kind] * count
    out = {"trick_points": points / 160, "breaks_group": count < state.v["hand"][seat, k_kind]}
    if not t.plays:
        return {**out, "completes": 1, "wins": 1, "partner_winning": 0}
    partial = {**t.partial, k_kind: count}
    complete = sum(partial.values()) == min(t.k, state.cards_left[seat])
    wins = False
    if complete:
        cls = SUIT_CLASS[state.trump, state.level - 3]
        identical = k_kind if len(partial) == 1 and count == t.k else -1
        void = not any(cls[k] == cls[t.led_kind] for k in partial)
        plays = t.copy()
        plays.plays.append([seat, partial, identical, void])
        wins = trick._winner(state, plays) == seat
    return {**out, "completes": complete, "wins": wins,
            "partner_winning": trick.winning_seat(state) == (seat + 2) % 4}


def top_reference(obs, action) -> bool:
    """``top`` by a loop over the kinds: no stronger kind of the class has ``count`` unseen."""
    v = {name: view[0] for name, view in LAYOUT.observation_views(obs[None]).items()}
    trump, level = int(v["trump"].argmax()), int(v["level"].argmax())
    k_kind, count = divmod(action - cat.PLAY, 4)
    count += 1
    strength, cls = STRENGTH[trump, level], SUIT_CLASS[trump, level]
    for j in range(54):
        unseen = v["unseen"][j]
        if cls[j] == cls[k_kind] and strength[j] > strength[k_kind] and unseen >= count:
            return False
    return True


@pytest.mark.parametrize("options", [{}, {"dealer": "random", "levels": "random",
                                          "blood": "random", "tribute_return": "dealer_choice"}])
def test_random_games_agree_with_the_engines_trick(options):
    game = DabangGame(**options)
    checked = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        state = game.new_state(seed)
        while not state.is_over:
            legal = np.flatnonzero(state.legal_mask())
            obs = state.observation(state.current)
            feats = game.action_features(obs[None], np.zeros(legal.size, np.int64), legal)
            assert feats.shape == (legal.size, af.NUM_FEATURES) and feats.dtype == np.float32
            assert np.all(feats >= -1) and np.all(feats <= 1)
            views = af.FEATURES.views(feats)
            assert np.all(views["type"].sum(1) == 1)
            if state.phase == "play":
                for j, action in enumerate(legal.tolist()):
                    want = reference(state, action)
                    for name, value in want.items():
                        assert views[name][j, 0] == pytest.approx(float(value)), (seed, name)
                    if not state.trick.plays:
                        assert views["top"][j, 0] == top_reference(obs, action)
                    checked += 1
            state.apply(int(rng.choice(legal)))
    assert checked > 500
