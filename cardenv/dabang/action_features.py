"""Dabang per-action features: what each legal move does in the position (``core.action_features``).

``action_features(observations, rows, actions)`` reads only the observation (pieces by name
through ``LAYOUT``) and static tables indexed by action id (``catalogue``, ``strength``), in
numpy over all ``M`` actions at once. ``PIECES`` declares the columns; the env docstring's
table is ``FEATURES.markdown_table()``.

Rules behind the play features (brief A5): a follower plays ``k`` cards, built one group of
identical cards per step (the ``selection`` piece holds the steps so far); the follow is
complete at ``min(k, cards left)`` cards. Only ``k`` identical cards can take a trick: of the
led suit class, or all trump from a follower holding no led-suit card; the strongest wins, the
first played among equals (``phases.trick._winner``).
"""

from __future__ import annotations

import numpy as np

from cardenv.core.action_features import Feature, FeatureLayout, check_inputs
from cardenv.core.cards import BIG_JOKER, KIND_POINTS, NUM_KINDS, SMALL_JOKER
from cardenv.dabang import catalogue as cat
from cardenv.dabang import counting
from cardenv.dabang.observation import LAYOUT
from cardenv.dabang.phase import DECISIONS, Phase
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS, TRUMP

TYPES = ("declare_pass", "declare", "return", "bury", "koujoker", "koujoker_stop", "takeback",
         "lead", "follow")
MAX_PLAY_POINTS = 40  # four 10s or Ks
MAX_TRICK_POINTS = 160  # four plays of four 10s or Ks
MAX_STRENGTH = int(STRENGTH.max())
HELD_SCALE = 26  # cards of one suit in a 52-card hand: 13 on average

PIECES = [
    Feature("type", len(TYPES), "one-hot: " + ", ".join(TYPES) + " (declare: the grab or a "
            "declaration; koujoker_stop: pass while burying jokers; lead / follow: a play "
            "before / after the lead, a follow step being one group of identical cards)"),
    Feature("declare_suit", 4, "one-hot suit ♦♣♥♠ a declaration names (zeros for the grab)"),
    Feature("declare_cards", 1, "level cards or jokers a declaration shows / 4 (grab: 1/4)"),
    Feature("declare_jokers", 1, "1 for the big-joker grab and the four-joker declarations"),
    Feature("declare_held", 1, "cards of the declared suit in hand / 26"),
    Feature("suit_class", 5, "one-hot suit class of the card kind under the trump and level: "
            "side ♦♣♥♠, trump (zeros for actions without a card, or before trump is known)"),
    Feature("strength", 1, "strength rank of the kind within its suit class, 0 (lowest) .. 1 "
            "(highest: the side A, the big joker)"),
    Feature("count", 1, "cards the action moves / 4 (a play step's copies; 1 for bury, "
            "take back, return)"),
    Feature("points", 1, "points of those cards / 40"),
    Feature("point_card", 1, "1 if the kind is a 5, 10 or K"),
    Feature("joker", 1, "1 if the kind is a joker"),
    Feature("held", 1, "copies of the kind in hand / 4"),
    Feature("breaks_group", 1, "1 if the action moves fewer copies than the hand holds (splits "
            "a 棒 / 滚子 / 四联)"),
    Feature("completes", 1, "play: 1 if this step ends the play (a lead; a follow step that "
            "brings the selection to min(k, cards left))"),
    Feature("wins", 1, "play: 1 if the completed play would take the trick as it stands (a "
            "lead; k identical cards of the led suit class, or trump when void in it, "
            "stronger than the winner so far) [A5]"),
    Feature("margin", 1, "play: (strength - the winning play's strength) / 45 for a follow "
            "that could win (k identical cards of the led class, or trump when void); else 0"),
    Feature("trick_points", 1, "play: points in the trick once this step is played (the plays "
            "so far, the selection, these cards) / 160"),
    Feature("partner_winning", 1, "follow: 1 if the partner's play takes the trick so far"),
    Feature("top", 1, "lead: 1 if no stronger kind of its suit class has as many copies "
            "unseen (not in hand, played, or known in the kitty): no one can beat it in class"),
]
FEATURES = FeatureLayout(PIECES)
NUM_FEATURES = FEATURES.size

# --- static tables indexed by action id --------------------------------------------------------

_A = np.arange(cat.NUM_ACTIONS)
_PASS, _DECLARE, _BURY, _TAKE, _PLAY, _RETURN = range(6)  # the catalogue's blocks
_BASE = np.select([_A == cat.PASS, _A < cat.BURY, _A < cat.TAKE, _A < cat.PLAY, _A < cat.RETURN],
                  [_PASS, _DECLARE, _BURY, _TAKE, _PLAY], _RETURN)
# the card kind an action moves (-1: none) and how many copies
KIND = np.full(cat.NUM_ACTIONS, -1, dtype=np.int64)
COUNT = np.zeros(cat.NUM_ACTIONS, dtype=np.int64)
DECLARE_SUIT = np.full(cat.NUM_ACTIONS, -1, dtype=np.int64)
DECLARE_COUNT = np.zeros(cat.NUM_ACTIONS, dtype=np.int64)
DECLARE_JOKERS = np.zeros(cat.NUM_ACTIONS, dtype=np.float32)
for _info in cat.ACTIONS:
    if _info.kind is not None:
        KIND[_info.id], COUNT[_info.id] = _info.kind, _info.count
    if _info.type in ("grab", "declare"):
        DECLARE_SUIT[_info.id] = -1 if _info.suit is None else _info.suit
        DECLARE_COUNT[_info.id] = _info.count
        DECLARE_JOKERS[_info.id] = _info.with_ != "level"
_KIND0 = np.maximum(KIND, 0)  # a gather index (masked where KIND < 0)
_POINTS = KIND_POINTS.astype(np.float32)
_SUITS = np.arange(NUM_KINDS) % 4  # a natural kind's suit
_NATURAL = np.arange(NUM_KINDS) < SMALL_JOKER


def _strength_ranks() -> np.ndarray:
    """``[trump, level - 3, kind]``: the kind's dense strength rank in its suit class, 0..1."""
    out = np.zeros(STRENGTH.shape, dtype=np.float32)
    for t in range(STRENGTH.shape[0]):
        for li in range(STRENGTH.shape[1]):
            for cls in range(TRUMP + 1):
                kinds = np.flatnonzero(SUIT_CLASS[t, li] == cls)
                values = np.unique(STRENGTH[t, li, kinds])
                out[t, li, kinds] = np.searchsorted(values, STRENGTH[t, li, kinds]) / (
                    len(values) - 1)
    return out


STRENGTH_RANK = _strength_ranks()
_PHASE = {phase: i for i, phase in enumerate(DECISIONS)}
# the type column of [catalogue block, in the 扣王 phase, after the lead]
_TYPE_OF = np.zeros((6, 2, 2), dtype=np.int64)
for _base, _name in ((_PASS, "declare_pass"), (_DECLARE, "declare"), (_RETURN, "return"),
                     (_BURY, "bury"), (_TAKE, "takeback"), (_PLAY, "lead")):
    _TYPE_OF[_base] = TYPES.index(_name)
_TYPE_OF[_PASS, 1], _TYPE_OF[_BURY, 1] = TYPES.index("koujoker_stop"), TYPES.index("koujoker")
_TYPE_OF[_PLAY, :, 1] = TYPES.index("follow")


def trick_winner(views: dict, strength: np.ndarray, cls: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(B,)`` each: the relative seat whose play takes the trick so far (-1 before a lead),
    the strength of its kind (-1) and the led suit class (-1), from the observation's
    ``trick_winner``, ``trick``, ``leader`` and ``led_count`` pieces and the rows' ``(B, 54)``
    strength and suit-class tables."""
    b = strength.shape[0]
    seat, best, led = np.full(b, -1), np.full(b, -1), np.full(b, -1)
    rows = np.flatnonzero(views["led_count"][:, 0] > 0)  # only the tricks under way
    if not rows.size:
        return seat, best, led
    trick, strength, cls = views["trick"][rows], strength[rows], cls[rows]  # (n, 4 seats, 54)
    n = np.arange(rows.size)
    leader = views["leader"][rows].argmax(1)
    led[rows] = cls[n, trick[n, leader].argmax(1)]
    piece = views["trick_winner"][rows]
    winner = piece.argmax(1)
    found = piece.any(1)
    seat[rows] = np.where(found, winner, -1)
    best[rows] = np.where(found, strength[n, trick[n, winner].argmax(1)], -1)
    return seat, best, led


def action_features(observations: np.ndarray, rows: np.ndarray,
                    actions: np.ndarray) -> np.ndarray:
    """``(M, NUM_FEATURES)`` float32 features of action ``actions[j]`` taken from observation
    ``observations[rows[j]]`` (``(B, D)``, the Dabang observation layout); see ``PIECES``."""
    observations, rows, actions = check_inputs(observations, rows, actions,
                                               LAYOUT.observation_size, cat.NUM_ACTIONS)
    views = LAYOUT.observation_views(observations)
    out = np.zeros((actions.size, NUM_FEATURES), dtype=np.float32)
    if not actions.size:
        return out
    f = FEATURES.views(out)
    led = views["led_count"][rows, 0] > 0
    koujoker = views["phase"][rows, _PHASE[Phase.KOUJOKER]] > 0
    base = _BASE[actions]
    column = _TYPE_OF[base, koujoker.astype(np.int64), led.astype(np.int64)]
    out[np.arange(actions.size), column] = 1.0

    declare = np.flatnonzero(DECLARE_COUNT[actions] > 0)
    if declare.size:
        suit = DECLARE_SUIT[actions[declare]]
        named = suit >= 0
        f["declare_suit"][declare[named], suit[named]] = 1.0
        f["declare_cards"][declare, 0] = DECLARE_COUNT[actions[declare]] / 4
        f["declare_jokers"][declare, 0] = DECLARE_JOKERS[actions[declare]]
        held = views["hand"][rows[declare]][:, _NATURAL] * (
            _SUITS[None, _NATURAL] == suit[:, None])
        f["declare_held"][declare, 0] = np.where(named, held.sum(1), 0) / HELD_SCALE

    card = np.flatnonzero(KIND[actions] >= 0)
    if card.size:
        # each row's trump and level once (trump ♦ where it is not known yet: cards move only
        # once it is, and the card features are masked there)
        trump = views["trump"].argmax(1)
        level = views["level"].argmax(1)
        known = views["trump"].any(1)
        _card_features(f, views, rows[card], actions[card], card, trump, level, known)
        play = card[base[card] == _PLAY]
        if play.size:
            tables = STRENGTH[trump, level], SUIT_CLASS[trump, level]
            _play_features(f, views, rows[play], actions[play], play, led[play], *tables)
    return out


def _card_features(f, views, rows, actions, at, trump, level, known) -> None:
    """The features of actions that move cards of one kind (bury, take back, return, play)."""
    kind, count = KIND[actions], COUNT[actions]
    trump, level, known = trump[rows], level[rows], known[rows]
    cls = SUIT_CLASS[trump, level, kind]
    f["suit_class"][at[known], cls[known]] = 1.0
    f["strength"][at, 0] = np.where(known, STRENGTH_RANK[trump, level, kind], 0)
    f["count"][at, 0] = count / 4
    f["points"][at, 0] = _POINTS[kind] * count / MAX_PLAY_POINTS
    f["point_card"][at, 0] = _POINTS[kind] > 0
    f["joker"][at, 0] = (kind == SMALL_JOKER) | (kind == BIG_JOKER)
    held = views["hand"][rows, kind]
    f["held"][at, 0] = held / 4
    f["breaks_group"][at, 0] = count < held


def _play_features(f, views, rows, actions, at, led, strength, cls) -> None:
    """The trick features of play actions: leads (``led`` False) and follow steps;
    ``strength`` and ``cls`` are each observation's ``(B, 54)`` tables."""
    kind, count = KIND[actions], COUNT[actions]
    chosen = views["selection"].sum(1)
    trick_points = (views["trick"].sum(1) + views["selection"]) @ _POINTS
    f["trick_points"][at, 0] = (trick_points[rows] + _POINTS[kind] * count) / MAX_TRICK_POINTS

    lead = np.flatnonzero(~led)
    if lead.size:
        r, k, a = rows[lead], kind[lead], at[lead]
        f["completes"][a, 0] = 1.0
        f["wins"][a, 0] = 1.0
        # top: no stronger kind of its class with as many copies unseen (the counting
        # module's rule, on the observation's unseen piece and the rows' trump and level)
        table = np.flatnonzero(views["trump"][r].any(1))
        beaten = counting.beaten_from(
            views["unseen"][r[table]][:, None, :].astype(np.int64),
            counting.table_row(views["trump"][r[table]].argmax(1),
                               views["level"][r[table]].argmax(1) + 3))[:, 0]
        f["top"][a[table], 0] = beaten[np.arange(table.size), k[table]] < count[lead][table]

    follow = np.flatnonzero(led)
    if follow.size:
        winner, best, led_cls = trick_winner(views, strength, cls)
        r, k, c, a = rows[follow], kind[follow], count[follow], at[follow]
        k_led = views["led_count"][r, 0]
        f["completes"][a, 0] = chosen[r] + c == np.minimum(k_led, views["cards_left"][r, 0])
        # a winning follow is k identical cards in one step, of the led class or trump when
        # void (one group in the follow, so void is "this kind is not of the led class")
        own_cls = cls[r, k]
        whole = (chosen[r] == 0) & (c == k_led)
        eligible = whole & ((own_cls == led_cls[r]) | (own_cls == TRUMP))
        margin = strength[r, k].astype(np.int64) - best[r]
        f["wins"][a, 0] = eligible & (margin > 0)
        f["margin"][a, 0] = np.where(eligible, margin / MAX_STRENGTH, 0)
        f["partner_winning"][a, 0] = winner[r] == 2
