"""Dagong per-action features: what each legal move does in the position (``core.action_features``).

``action_features(observations, rows, actions)`` reads only the observation (pieces by name
through ``LAYOUT``) and the catalogue's static tables indexed by action id, in numpy over all
``M`` actions at once. ``PIECES`` declares the columns; the env docstring's table is
``FEATURES.markdown_table()``.

The points a play carries are those of the natural cards it takes from this hand: an action
names a combination, the hand decides the cards (``selection``). Only a run with jokers leaves
a choice, and ``_run_points`` makes it as ``selection._take_naturals`` does (unprotected cards
before the 5 / 10 / K of complete natural 正510K sets, lower ranks first, the second called
card last), vectorised; tests/cardenv/dagong/test_action_features.py checks it against
``select_cards`` in random games.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.action_features import Feature, FeatureLayout, check_inputs
from cardenv.core.cards import NUM_NATURAL, RANK_POINTS
from cardenv.dagong import catalogue as cat
from cardenv.dagong.observation import LAYOUT

TYPES = ("pass", "solo_decline", "solo_declare") + cat.PLAY_TYPES
MAX_RANK = 12  # the 2
MAX_PLAY_POINTS = 100  # more than any play holds (eight Ks: 80)
TOTAL_POINTS = 200
MAX_BOMB = int(cat.BOMB_STRENGTH.max())

PIECES = [
    Feature("type", len(TYPES), "one-hot: " + ", ".join(TYPES) + " [B2]"),
    Feature("length", 1, "cards played / 27"),
    Feature("key_rank", 1, "key rank (a run's top rank) / 12, 3 = 0 .. 2 = 1 (0 for 510K, "
            "天炸 and non-plays)"),
    Feature("jokers", 1, "jokers (wildcards) it spends / 4"),
    Feature("bomb", 1, "1 for a bomb (beats every non-bomb) [B2]"),
    Feature("bomb_strength", 1, "rank of the bomb in the bomb order / the strongest (天炸 = 1; "
            "0 for non-bombs) [D-B2]"),
    Feature("zheng", 1, "1 for a 正510K (one suit), 0 for a 杂510K and the rest"),
    Feature("points", 1, "points of the natural cards it takes from this hand / 100"),
    Feature("called", 1, "1 if it plays a card of the called kind (the partner's play of "
            "it reveals the partnership, 明鸡) [B3]"),
    Feature("cards_after", 1, "cards left in hand after it / 27"),
    Feature("empties", 1, "1 if it plays the last cards of the hand (goes out) [B3]"),
    Feature("lead", 1, "1 for a play with nothing standing (a lead)"),
    Feature("rank_margin", 1, "a non-bomb on a standing play of its type and length: (key rank "
            "- the standing key rank) / 12; else 0"),
    Feature("bomb_margin", 1, "a bomb on a standing play: (its bomb rank - the standing one's, "
            "0 for a non-bomb) / the strongest; else 0"),
    Feature("trick_points", 1, "points of the current trick with this play's / 200 (what its "
            "side takes if the play stands)"),
]
FEATURES = FeatureLayout(PIECES)
NUM_FEATURES = FEATURES.size

# --- static tables indexed by action id --------------------------------------------------------

_INFO = cat.ACTIONS
TYPE = np.array([TYPES.index(a.type) for a in _INFO], dtype=np.int64)
LENGTH = np.array([a.length for a in _INFO], dtype=np.int64)
KEY = np.array([-1 if a.key_rank is None else a.key_rank for a in _INFO], dtype=np.int64)
JOKERS = np.array([a.jokers for a in _INFO], dtype=np.int64)
NATURALS = np.array([a.naturals for a in _INFO], dtype=np.int64)
PER_RANK = np.array([a.per_rank for a in _INFO], dtype=np.int64)
CALLED = np.array([a.called for a in _INFO], dtype=bool)
ZHENG = np.array([bool(a.zheng) for a in _INFO], dtype=bool)
STRENGTH = np.array([0 if a.combo is None else cat.BOMB_STRENGTH[a.combo] for a in _INFO],
                    dtype=np.int64)
# COVERS[a, r]: the combination covers rank r (510K: 5, 10, K)
COVERS = np.zeros((cat.NUM_ACTIONS, 13), dtype=bool)
for _a in _INFO:
    COVERS[_a.id, list(_a.ranks)] = True
_JOKER_AS = np.array([-1 if a.joker_as is None else a.joker_as for a in _INFO], dtype=np.int64)
_RUNS = (TYPES.index(cat.PAIR_RUN), TYPES.index(cat.TRIPLE_RUN))
_K510 = TYPES.index(cat.K510)
# the points of a play whose natural cards the combination fixes (every one but a run with
# jokers): a one-rank play's naturals, a run's cards per rank, less a 510K's joker place
FIXED_POINTS = np.where(
    TYPE == _K510, 25 - np.where(_JOKER_AS >= 0, RANK_POINTS[np.maximum(_JOKER_AS, 0)], 0),
    (COVERS * RANK_POINTS).sum(1) * np.where(COVERS.sum(1) == 1, NATURALS, PER_RANK))
RUN_WITH_JOKERS = np.isin(TYPE, _RUNS) & (JOKERS > 0)


def _standing_strengths() -> tuple[np.ndarray, int, np.ndarray]:
    """Bomb ranks of standing plays as the observation gives them: ``[type, length, key]``
    (key 13: none) for all but 510K, the 杂510K's and each suit's 正510K's."""
    table = np.zeros((len(cat.PLAY_TYPES), cat.HAND_SIZE + 1, 14), dtype=np.int64)
    zheng = np.zeros(4, dtype=np.int64)
    za = 0
    for combo, strength in zip(cat.COMBOS, cat.BOMB_STRENGTH.tolist()):
        if combo.type == cat.K510:
            if combo.zheng:
                zheng[combo.suit] = strength
            else:
                za = strength
        elif strength:
            key = 13 if combo.key_rank is None else combo.key_rank
            table[cat.PLAY_TYPES.index(combo.type), combo.length, key] = strength
    return table, za, zheng


_STANDING, _ZA_510K, _ZHENG_510K = _standing_strengths()
_POINT_KINDS = np.array([4 * r + s for r in cat.POINT_RANKS for s in range(4)])


def standing_strength(views: dict) -> np.ndarray:
    """``(B,)`` bomb rank of each row's standing play (0: a non-bomb, or nothing standing)."""
    kind = views["standing_type"].argmax(1)
    length = views["standing_length"][:, 0].astype(np.int64)
    rank = np.where(views["standing_rank"].any(1), views["standing_rank"].argmax(1), 13)
    out = _STANDING[kind, np.minimum(length, cat.HAND_SIZE), rank]
    is_510k = views["standing_type"][:, cat.PLAY_TYPES.index(cat.K510)] > 0
    if is_510k.any():
        # 正 or 杂 from the suits of its natural 5 / 10 / K (a joker stands for one of them)
        cards = views["standing_cards"][is_510k][:, _POINT_KINDS].reshape(-1, 3, 4)
        suits = cards.sum(1) > 0
        one = suits.sum(1) == 1
        out[is_510k] = np.where(one, _ZHENG_510K[suits.argmax(1)], _ZA_510K)
    return out


def _protected(hands: np.ndarray) -> np.ndarray:
    """``(m, 54)`` copies of each kind in complete natural 正510K sets (selection's
    ``protected_copies``)."""
    out = np.zeros(hands.shape, dtype=np.int64)
    sets = hands[:, _POINT_KINDS].reshape(-1, 3, 4).min(1)  # (m, suit)
    out[:, _POINT_KINDS] = np.tile(sets, 3)
    return out


def _run_points(hands: np.ndarray, called: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Points of the naturals runs with jokers take: ``selection._take_naturals``'s greedy,
    one tier at a time (unprotected, protected, the second called card), ranks ascending."""
    m = actions.size
    rows = np.arange(m)
    avail = hands.astype(np.int64)
    covers = COVERS[actions]
    playing = CALLED[actions]
    natural_called = playing & (called < NUM_NATURAL)
    called_rank = np.where(called < NUM_NATURAL, called // 4, 0)
    avail[rows, called] -= playing  # the called copy is taken first; otherwise none is played
    avail[rows[~playing], called[~playing]] = 0
    protect = (covers[:, list(cat.POINT_RANKS)]).any(1)
    protected = np.where(protect[:, None], _protected(hands.astype(np.int64)), 0)
    last = np.zeros(avail.shape, dtype=bool)
    last[rows, called] = True
    free = np.where(last, 0, np.maximum(avail - protected, 0))
    tiers = [free, np.where(last, 0, avail - free), np.where(last, avail, 0)]
    cap = np.where(covers, PER_RANK[actions][:, None], 0)
    cap[rows[natural_called], called_rank[natural_called]] -= 1
    need = NATURALS[actions] - natural_called
    taken = np.zeros((m, 13), dtype=np.int64)
    for tier in tiers:
        room = np.maximum(np.minimum(tier[:, :NUM_NATURAL].reshape(m, 13, 4).sum(2), cap), 0)
        before = np.cumsum(room, 1) - room
        take = np.clip(need[:, None] - before, 0, room)
        taken += take
        cap -= take
        need = need - take.sum(1)
    points = taken @ RANK_POINTS
    return points + np.where(natural_called, RANK_POINTS[called_rank], 0)


def action_features(observations: np.ndarray, rows: np.ndarray,
                    actions: np.ndarray) -> np.ndarray:
    """``(M, NUM_FEATURES)`` float32 features of action ``actions[j]`` taken from observation
    ``observations[rows[j]]`` (``(B, D)``, the Dagong observation layout); see ``PIECES``."""
    observations, rows, actions = check_inputs(observations, rows, actions,
                                               LAYOUT.observation_size, cat.NUM_ACTIONS)
    views = LAYOUT.observation_views(observations)
    out = np.zeros((actions.size, NUM_FEATURES), dtype=np.float32)
    if not actions.size:
        return out
    f = FEATURES.views(out)
    out[np.arange(actions.size), TYPE[actions]] = 1.0
    play = actions >= cat.FIRST_PLAY
    length = LENGTH[actions]
    f["length"][:, 0] = length / cat.HAND_SIZE
    f["key_rank"][:, 0] = np.maximum(KEY[actions], 0) / MAX_RANK
    f["jokers"][:, 0] = JOKERS[actions] / cat.NUM_JOKERS
    strength = STRENGTH[actions]
    f["bomb"][:, 0] = strength > 0
    f["bomb_strength"][:, 0] = strength / MAX_BOMB
    f["zheng"][:, 0] = ZHENG[actions]
    f["called"][:, 0] = CALLED[actions]

    points = FIXED_POINTS[actions].copy()
    runs = np.flatnonzero(RUN_WITH_JOKERS[actions])
    if runs.size:
        called = views["called"].argmax(1)[rows[runs]]
        points[runs] = _run_points(views["hand"][rows[runs]], called, actions[runs])
    f["points"][:, 0] = points / MAX_PLAY_POINTS

    left = views["cards_left"][rows, 0]
    f["cards_after"][:, 0] = np.where(play, left - length, 0) / cat.HAND_SIZE
    f["empties"][:, 0] = play & (length == left)
    following = views["standing_type"].any(1)[rows]
    f["lead"][:, 0] = play & ~following
    on = play & following
    standing_kind = views["standing_type"].argmax(1)[rows] + 3  # as an index of TYPES
    standing_key = views["standing_rank"].argmax(1)[rows]
    same = on & (strength == 0) & (TYPE[actions] == standing_kind) & (
        length == views["standing_length"][rows, 0])
    f["rank_margin"][:, 0] = np.where(same, KEY[actions] - standing_key, 0) / MAX_RANK
    bombed = on & (strength > 0)
    f["bomb_margin"][:, 0] = np.where(
        bombed, strength - standing_strength(views)[rows], 0) / MAX_BOMB
    f["trick_points"][:, 0] = np.where(
        play, views["trick_points"][rows, 0] + points, 0) / TOTAL_POINTS
    return out
