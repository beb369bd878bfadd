"""What a Dagong card player counts (issue 35): the rules of the counting pieces.

The pieces (``unseen`` .. ``twin`` in ``cardenv.dagong.observation``, where each is documented)
live in the state buffer like every other piece, so that an observation stays one gather:
``raw_env`` steps at several times RLCard's speed only if reading an observation costs next to
nothing. The engines keep them up to date:

- as each play is made, the hot path, by small updates: ``DagongState._apply_play`` adds one
  precomputed buffer delta per card (``card_deltas``), its numpy twin ``DagongBatch.
  _count_play`` in ``cardenv.dagong.vector`` subtracts the plays' cards from the other seats'
  counts; after the rare plays that may move the called card's twin (a play of the called
  kind, a seat going out) ``refresh_twin`` (plain Python, one state) or ``twin`` (numpy, many)
  counts it again;
- when a hand is dealt (and when ``worlds`` swaps the hidden hands of a copy) by ``refresh``,
  which recomputes them all from the other pieces. Passes, trick ends and 硬牌 decisions change
  none of them.

A property test holds the two engines equal, and ``tests/cardenv/dagong/test_no_leak.py`` rebuilds
every piece from public events and the seat's own cards alone.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import KIND_POINTS, NUM_KINDS, NUM_SUITS

COPIES = 2  # two decks: copies of each card kind
TOTAL_POINTS = 200  # the points of both decks
NUM_GROUPS = 14  # unseen_ranks' columns: the ranks 3..2, then the jokers
# a kind's column of unseen_ranks: kind // 4 (the two jokers, 52 and 53, fall in column 13)
GROUP_OF = (np.arange(NUM_KINDS) // NUM_SUITS).tolist()
GROUP_STARTS = np.arange(0, NUM_KINDS - 1, NUM_SUITS)  # np.add.reduceat's column starts
KIND_POINTS_I = KIND_POINTS.astype(np.int64)
_NOT_SELF = ~np.eye(4, dtype=bool)  # [observer, seat]: another seat


def card_deltas(layout) -> list[list[np.ndarray]]:
    """``[seat][kind]``: what one card of ``kind`` played by ``seat`` adds to the counting
    pieces of a ``layout.size`` buffer (zero elsewhere): one copy fewer unseen, in its kind and
    its rank, for every other seat (the player had seen it already); its points off the points
    out and the player's hand points."""
    out = []
    for seat in range(4):
        row = []
        for kind in range(NUM_KINDS):
            delta = np.zeros(layout.size, dtype=np.int16)
            v = layout.views(delta)
            others = [s for s in range(4) if s != seat]
            v["unseen"][others, kind] = -1
            v["unseen_ranks"][others, GROUP_OF[kind]] = -1
            v["points_out"][0] = -KIND_POINTS[kind]
            v["hand_points"][seat, 0] = -KIND_POINTS[kind]
            row.append(delta)
        out.append(row)
    return out


def unseen(hand: np.ndarray, played: np.ndarray) -> np.ndarray:
    """``(..., 4, 54)``: for each seat, the copies of each kind it has not seen: two, less its
    hand and every card played this hand (``hand``, ``played``: ``(..., 4, 54)``)."""
    return COPIES - hand - played.sum(axis=-2, keepdims=True)


def unseen_ranks(unseen_counts: np.ndarray) -> np.ndarray:
    """``(..., 14)``: ``unseen_counts`` ``(..., 54)`` summed per rank 3..2, then the jokers."""
    return np.add.reduceat(unseen_counts, GROUP_STARTS, axis=-1)


def twin(called_held: np.ndarray, called_played: np.ndarray, dealer: np.ndarray,
         forced: np.ndarray, cards_left: np.ndarray) -> np.ndarray:
    """``(R, 4, 4)`` bool, ``[row, observer, seat]``: the seats each observer knows may still
    hold the called card's twin, from ``(R, 4)`` copies of the called kind each seat holds and
    has played, the dealer ``(R,)``, whether it holds both copies (``forced``, ``(R,)``) and
    each seat's cards left ``(R, 4)``:

    - the dealer holds both: the dealer, for everyone, until it has played them both;
    - else, once a seat other than the dealer has played a copy (the dealer had only one):
      nobody;
    - else the partner sees itself alone (it holds it); every other seat sees the seats but
      itself and the dealer still holding cards (one out without playing it never had it)."""
    r = np.arange(len(dealer))
    is_dealer = np.zeros((len(dealer), 4), dtype=bool)
    is_dealer[r, dealer] = True
    live = (called_played * ~is_dealer).sum(axis=1) == 0
    mine = (called_held > 0) & ~is_dealer  # (R, observer): the partner
    others = _NOT_SELF & (~is_dealer & (cards_left > 0))[:, None, :]
    out = np.where(mine[:, :, None], np.eye(4, dtype=bool), others) & live[:, None, None]
    alone = is_dealer & (called_played[r, dealer] < 2)[:, None]  # (R, seat)
    return np.where(forced[:, None, None], alone[:, None, :], out)


def refresh(state) -> None:
    """Recompute one state's counting pieces from its other pieces (a new deal, or hands
    changed under it)."""
    v = state.v
    v["unseen"][:] = seen = unseen(v["hand"], v["played"])
    v["unseen_ranks"][:] = unseen_ranks(seen)
    v["points_out"][0] = TOTAL_POINTS - int(KIND_POINTS_I @ v["played"].sum(axis=0))
    v["hand_points"][:, 0] = v["hand"] @ KIND_POINTS_I
    refresh_twin(state)


def refresh_twin(state) -> None:
    """Recompute one state's ``twin`` (at a deal, and after a play of the called kind or a
    seat going out: a play that may move it): ``twin``'s rules for one state, in plain Python
    (a numpy call costs more than its arithmetic here)."""
    v, called, dealer = state.v, state.called, state.dealer
    played = v["played"][:, called].tolist()
    rows = [[0] * 4 for _ in range(4)]
    if state.forced_solo:
        if played[dealer] < 2:
            for row in rows:
                row[dealer] = 1
    elif sum(played) == played[dealer]:  # no one else has played a copy: the twin is out there
        held = v["hand"][:, called].tolist()
        holding = [s != dealer and left > 0 for s, left in enumerate(state.cards_left)]
        for seat, row in enumerate(rows):
            if seat != dealer and held[seat]:
                row[seat] = 1
            else:
                row[:] = [int(h and s != seat) for s, h in enumerate(holding)]
    v["twin"][:] = rows
