"""What a Dabang card player counts (issue 35): the rules of the counting pieces.

The pieces (``voids`` .. ``points_out`` in ``cardenv.dabang.observation``, where each is
documented) live in the state buffer like every other piece, so that an observation stays one
gather: ``raw_env`` steps at several times RLCard's speed only if reading an observation costs
next to nothing. The engines keep them up to date:

- in trick play, the hot path, by small updates as each play completes (``trick._complete`` in
  plain Python; its numpy twin in ``cardenv.dabang.vector``) and by ``at_trick_start`` when a
  trick opens;
- after every other move by ``refresh``, which recomputes them from the other pieces.

A property test holds the two engines equal, and another rebuilds every piece from public
events and the seat's own cards alone.

Sure winners (a lead no unseen cards can beat inside its suit, ``beaten_from``) are not a
piece: counting them for every seat at each trick's start took more time than the rest of a
step (a quarter of ``raw_env``'s speed); the per-action features give each lead's (``top``),
from the ``unseen`` piece, with this module's ``beaten_from``.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import KIND_POINTS, NUM_KINDS
from cardenv.dabang.strength import NUM_LEVELS, STRENGTH, SUIT_CLASS, TRUMP

COPIES = 4  # four decks: copies of each card kind
NUM_CLASSES = TRUMP + 1  # suit classes: the four side suits, then trump
THRESHOLDS = (120, 160, 200)  # the attackers' score bands of a hand's result (A6)
TOTAL_POINTS = 400
KIND_POINTS_I = KIND_POINTS.astype(np.int64)
# SEEN_BY_OTHERS[seat][count]: what a play of count cards of a kind by seat takes off each
# seat's unseen copies of that kind (the player had seen them already)
SEEN_BY_OTHERS = [[np.array([0 if s == seat else c for s in range(4)], dtype=np.int16)
                   for c in range(COPIES + 1)] for seat in range(4)]


def _order_tables():
    """Per (trump, level) row: the kinds sorted by suit class, then strength from the top
    (``ORDER``); each sorted position's class offset (class * 8: unseen counts are below 8, so a
    running maximum over the sorted values restarts at every class); the position just before
    its group of equally strong kinds (``PREV``, -1 at a class's top group); the inverse
    permutation (``INVERSE``)."""
    strength = STRENGTH.reshape(-1, NUM_KINDS).astype(np.int64)
    suit_class = SUIT_CLASS.reshape(-1, NUM_KINDS).astype(np.int64)
    n = len(strength)
    order = np.zeros((n, NUM_KINDS), np.int64)
    offset = np.zeros((n, NUM_KINDS), np.int64)
    prev = np.zeros((n, NUM_KINDS), np.int64)
    for r in range(n):
        o = np.lexsort((-strength[r], suit_class[r]))
        order[r] = o
        offset[r] = suit_class[r, o] * 8
        for i in range(NUM_KINDS):
            j = i
            while j > 0 and suit_class[r, o[j - 1]] == suit_class[r, o[i]] \
                    and strength[r, o[j - 1]] == strength[r, o[i]]:
                j -= 1
            same_class = j > 0 and suit_class[r, o[j - 1]] == suit_class[r, o[i]]
            prev[r, i] = j - 1 if same_class else -1
    inverse = np.argsort(order, axis=1)
    return order, offset, prev, inverse, suit_class


ORDER, OFFSET, PREV, INVERSE, CLASS_ROWS = _order_tables()
_PREV_SAFE, _NO_PREV = np.maximum(PREV, 0), PREV < 0


def table_row(trump, level) -> np.ndarray:
    """Row of the strength tables for each ``(trump, level)`` (``strength.STRENGTH``)."""
    return np.asarray(trump) * NUM_LEVELS + np.asarray(level) - 3


def unseen(hand: np.ndarray, played: np.ndarray, kitty_known: np.ndarray) -> np.ndarray:
    """``(..., 4, 54)``: for each seat, copies of each kind it has not seen: four, less its
    hand, all played cards (``played``: ``(..., 4, 54)``, the seats' plays) and the kitty
    cards it knows."""
    return COPIES - hand - played.sum(axis=-2, keepdims=True) - kitty_known


def _beaten_sorted(ranked: np.ndarray, offset: np.ndarray, prev: np.ndarray,
                   no_prev: np.ndarray) -> np.ndarray:
    """``beaten_from`` in each row's sorted order, from the offset unseen counts ``ranked``."""
    running = np.maximum.accumulate(ranked, axis=-1)
    above = np.take_along_axis(running, np.broadcast_to(prev, running.shape), axis=-1) - offset
    above[np.broadcast_to(no_prev, above.shape)] = 0
    return above


def beaten_from(unseen_counts: np.ndarray, row: np.ndarray) -> np.ndarray:
    """``(R, 4, 54)``: for each seat and kind, the most unseen copies of any strictly stronger
    kind of its suit class (0 for a class's strongest kinds). A lead of k of that kind can be
    beaten inside its suit only if this is at least k: only k identical cards win (A5).

    How: the kinds sorted by class, then strength from the top (``ORDER``), each class's counts
    raised by 8 * class so that one running maximum restarts at every class; a kind's answer is
    the running maximum just above its group of equally strong kinds (``PREV``)."""
    order = ORDER[row][:, None, :]
    offset = OFFSET[row][:, None, :]
    ranked = np.take_along_axis(unseen_counts, np.broadcast_to(order, unseen_counts.shape),
                                axis=2) + offset
    above = _beaten_sorted(ranked, offset, _PREV_SAFE[row][:, None, :],
                           _NO_PREV[row][:, None, :])
    return np.take_along_axis(above, np.broadcast_to(INVERSE[row][:, None, :], above.shape),
                              axis=2)


def score(points: np.ndarray, dealer: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(attack_points (R,), thresholds (R, 3), points_out (R,))`` of seats' trick points
    ``(R, 4)`` with the dealer ``(R,)`` (the attackers are the two other seats)."""
    rows = np.arange(len(points))
    attack = points[rows, (dealer + 1) % 4] + points[rows, (dealer + 3) % 4]
    return attack, attack[:, None] >= np.array(THRESHOLDS), TOTAL_POINTS - points.sum(axis=1)


def refresh(state) -> None:
    """Recompute one state's counting pieces from its other pieces (after any move but a play
    that leaves the hand in trick play). The trick's own pieces (``trick_winner``,
    ``trick_points``, ``still_to_play``) are the trick code's."""
    v = state.v
    v["unseen"][:] = unseen(v["hand"], v["played"], v["kitty_known"])
    v["kitty_points"][:, 0] = v["kitty_known"] @ KIND_POINTS_I
    _score(state)


def _score(state) -> None:
    """``score`` of one state, in plain Python (0 for the attackers while no dealer is known)."""
    v, points, dealer = state.v, state.points, state.dealer
    attack = 0 if dealer is None else points[(dealer + 1) % 4] + points[(dealer + 3) % 4]
    v["attack_points"][0] = attack
    thresholds = v["thresholds"]
    for i, threshold in enumerate(THRESHOLDS):
        thresholds[i] = attack >= threshold
    v["points_out"][0] = TOTAL_POINTS - sum(points)


def at_trick_start(state) -> None:
    """A trick opens in one state: the trick's pieces start over, the score pieces follow the
    points won so far."""
    v = state.v
    v["trick_winner"].fill(0)
    v["trick_points"][0] = 0
    still = v["still_to_play"]
    still.fill(0)
    for seat in state.trick.to_play:  # (scalar writes: cheaper than a fancy index of <= 4)
        still[seat] = 1
    _score(state)
