"""Dagong per-action features (cardenv.dagong.action_features): hand-built observations with the
values the rules give (brief section B), and random games against the engine: the points of
the cards ``select_cards`` takes, the standing play's comparisons."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.core.cards import KIND_POINTS, parse_cards
from cardenv.dagong import DagongGame
from cardenv.dagong import action_features as af
from cardenv.dagong import catalogue as cat
from cardenv.dagong.observation import LAYOUT
from cardenv.dagong.selection import select_cards

RANKS = "3 4 5 6 7 8 9 10 J Q K A 2".split()
MAX_BOMB = int(cat.BOMB_STRENGTH.max())


def rank(name: str) -> int:
    return RANKS.index(name)


def observation(hand="", called="♦3", cards_left=None, standing=None, points=0):
    """One Dagong observation; ``standing`` = (cards, type, key rank name or None)."""
    obs = np.zeros((1, LAYOUT.observation_size), dtype=np.float32)
    v = {name: view[0] for name, view in LAYOUT.observation_views(obs).items()}
    kinds = parse_cards(hand)
    for k in kinds:
        v["hand"][k] += 1
    v["called"][parse_cards(called)[0]] = 1
    v["cards_left"][:] = len(kinds) if cards_left is None else cards_left
    v["trick_points"][0] = points
    if standing is not None:
        cards, kind, key = standing
        for k in parse_cards(cards):
            v["standing_cards"][k] += 1
        v["standing_seat"][3] = 1
        v["standing_type"][cat.PLAY_TYPES.index(kind)] = 1
        if key is not None:
            v["standing_rank"][rank(key)] = 1
        v["standing_length"][0] = len(parse_cards(cards))
    if LAYOUT.derived:  # the derived pieces follow from the rest, as the engines' gathers do
        LAYOUT.derive(LAYOUT.observation_views(obs))
    return obs


def features(obs, action) -> dict:
    row = af.action_features(obs, np.array([0]), np.array([action]))
    return {name: values[0] for name, values in af.FEATURES.views(row).items()}


def strength(*args, **kwargs) -> int:
    return int(cat.BOMB_STRENGTH[cat.combo_of(cat.action_id(*args, **kwargs))])


PAIR_9 = ("♥9 ♣9", cat.PAIR, "9")
ZA_510K = ("♥5 ♣10 ♠K", cat.K510, None)
PROTECTED = "♠5 ♠5 ♠10 ♠10 ♠K ♠K ♦9 ♣9 ♦J ♣J SJ"  # two natural ♠510K sets
TABLE = [
    ("[B2] a pair of Js on a pair of 9s beats it by two ranks",
     dict(hand="♦J ♥J ♣4", standing=PAIR_9), cat.action_id(cat.PAIR, 2, rank("J")),
     {"rank_margin": 2 / 12,
      "bomb_margin": 0, "lead": 0, "length": 2 / 27, "key_rank": rank("J") / 12,
      "cards_after": 1 / 27, "empties": 0}),
    ("[B2] every bomb beats a non-bomb: a four-card bomb of 3s on a pair",
     dict(hand="♦3 ♣3 ♥3 ♠3", standing=PAIR_9), cat.action_id(cat.BOMB, 4, rank("3")),
     {"bomb": 1, "rank_margin": 0, "bomb_margin": strength(cat.BOMB, 4, rank("3")) / MAX_BOMB,
      "empties": 1, "cards_after": 0}),
    ("[D-B2] a 正510K of spades on a 杂510K",
     dict(hand="♠5 ♠10 ♠K", standing=ZA_510K), cat.action_id(cat.K510, 3, suit=3),
     {"zheng": 1, "points": 25 / 100, "key_rank": 0,
      "bomb_margin": (strength(cat.K510, 3, suit=3) - strength(cat.K510, 3)) / MAX_BOMB}),
    ("[D-B2] a 6-card bomb on a 4-card bomb of Ks",
     dict(hand="♦4 ♣4 ♥4 ♠4 ♦4 ♣4", standing=("♦K ♣K ♥K ♠K", cat.BOMB, "K")),
     cat.action_id(cat.BOMB, 6, rank("4")),
     {"bomb_margin": (strength(cat.BOMB, 6, rank("4"))
                      - strength(cat.BOMB, 4, rank("K"))) / MAX_BOMB}),
    ("[D-B2] 天炸 tops the bomb order", dict(hand="SJ SJ BJ BJ"),
     cat.action_id(cat.TIANZHA, 4, None, 4),
     {"bomb_strength": 1.0, "jokers": 1.0, "points": 0, "lead": 1}),
    ("[B1] a triple of Ks with a joker holds two Ks: 20 points",
     dict(hand="♦K ♣K SJ ♦3", points=15), cat.action_id(cat.TRIPLE, 3, rank("K"), 1),
     {"points": 20 / 100, "jokers": 0.25, "trick_points": 35 / 200, "lead": 1}),
    ("[B2] a 510K with a joker as the 10 holds 15 points",
     dict(hand="♦5 ♣K BJ"), cat.action_id(cat.K510, 3, None, 1, joker_as=rank("10")),
     {"points": 15 / 100, "zheng": 0}),
    ("[B2] a run's joker stands in for the protected ♠10 (selection rule 3): 10 points",
     dict(hand=PROTECTED), cat.action_id(cat.PAIR_RUN, 6, rank("J"), 1),
     {"points": 10 / 100, "length": 6 / 27}),
    ("[B3] playing the called card", dict(hand="♦3 ♦4", called="♦3"),
     cat.action_id(cat.SINGLE, 1, rank("3"), called=True), {"called": 1}),
    ("[B3] pass", dict(hand="♦3", standing=PAIR_9), cat.PASS,
     {"length": 0, "lead": 0, "cards_after": 0, "points": 0, "trick_points": 0}),
    ("[B3] 硬牌 declared", dict(hand="♦3"), cat.SOLO_DECLARE, {"lead": 0, "length": 0}),
]


def one_hot(name):
    return [float(t == name) for t in af.TYPES]


@pytest.mark.parametrize("clause, args, action, expected", TABLE, ids=[t[0] for t in TABLE])
def test_features_of_hand_built_positions(clause, args, action, expected):
    got = features(observation(**args), action)
    assert got["type"] == pytest.approx(one_hot(cat.ACTIONS[action].type))
    for name, value in expected.items():
        if name != "type":
            assert got[name] == pytest.approx(np.atleast_1d(value), abs=1e-6), (clause, name)


def test_the_protected_run_matches_select_cards():
    """The hand-built run above takes the naturals select_cards takes (the ♠10 of a 正510K
    set is kept back; the joker stands for it)."""
    hand = np.bincount(parse_cards(PROTECTED), minlength=54).tolist()
    action = cat.action_id(cat.PAIR_RUN, 6, rank("J"), 1)
    taken = select_cards(hand, action, parse_cards("♦3")[0])
    assert sum(KIND_POINTS[k] for k in taken) == 10


def test_random_games_agree_with_the_engine():
    game = DagongGame()
    checked = runs = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        state = game.new_state(seed)
        while not state.is_over:
            seat = state.current_player
            legal = np.flatnonzero(state.legal_mask())
            feats = game.action_features(state.observation(seat)[None],
                                         np.zeros(legal.size, np.int64), legal)
            assert feats.shape == (legal.size, af.NUM_FEATURES) and feats.dtype == np.float32
            assert np.all(feats >= -1) and np.all(feats <= 1)
            v = af.FEATURES.views(feats)
            hand = state.hands[seat].tolist()
            # the standing combination, -1 when leading
            standing = cat.combo_of(state.standing) if state.standing >= 0 else -1
            for j, action in enumerate(legal.tolist()):
                info = cat.ACTIONS[action]
                if info.combo is None:
                    continue
                cards = select_cards(hand, action, state.called)
                assert v["points"][j, 0] * 100 == pytest.approx(
                    sum(KIND_POINTS[k] for k in cards)), (seed, info.text)
                assert v["empties"][j, 0] == (len(cards) == sum(hand))
                assert v["lead"][j, 0] == (standing < 0)
                if standing >= 0 and info.is_bomb:
                    margin = cat.BOMB_STRENGTH[info.combo] - cat.BOMB_STRENGTH[standing]
                    assert v["bomb_margin"][j, 0] * MAX_BOMB == pytest.approx(margin)
                    assert margin > 0
                elif standing >= 0:
                    margin = info.key_rank - cat.COMBOS[standing].key_rank
                    assert v["rank_margin"][j, 0] * 12 == pytest.approx(margin) and margin > 0
                runs += bool(af.RUN_WITH_JOKERS[action])
                checked += 1
            state.apply(int(rng.choice(legal)))
    assert checked > 2000 and runs > 100
