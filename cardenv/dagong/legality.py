"""Vectorized Dagong legality: which actions a batch of hands may take, in one numpy call.

``play_mask(hands, standing, called)`` takes ``B`` hands (copy counts, shape ``(B, 54)``), the
action id of the play standing in each trick (``-1`` when the player leads) and each hand's called
card kind, and returns the ``(B, N)`` boolean mask. There is no Python loop over actions or
states: the hands are reduced to a few small per-hand numbers by two matrix products, every
combination is then one comparison, and the bomb order is the precomputed ``catalogue.BEATS``.

For a hand with ``nat[r]`` natural cards of rank ``r`` and ``jok`` jokers, a combination using
``j`` jokers is playable iff ``jok >= j`` and

- single-rank combinations (singles, pairs, triples, bombs, 7喜, 8喜) of rank ``r`` with ``n``
  cards: ``nat[r] >= n - j``;
- runs over a window of ``L`` ranks with ``m`` cards per rank (pairs: 2, triples: 3): the hand
  can put ``S = sum(min(nat[r], m))`` naturals into the window, and needs ``S >= m*L - j``;
- 摇摆: every rank of the window holds at least 4 naturals;
- 510K: only the set of suits held for each of 5, 10 and K matters (one card per slot), so
  ``T510`` is a table over the 16^3 suit-set triples and joker availability, built once by brute
  force over suit choices.

The called card: the "keep it back" half of the catalogue is the same computation on the hand
with every copy of the called kind removed. The "play it" half is the full hand's feasibility
restricted to combinations that can contain that kind (``INCL``): a natural of rank ``r`` in any
combination that uses at least one natural of rank ``r`` (a feasible run can always be rebuilt to
use one), a called joker in any combination that uses a joker. For 杂510K that is not enough (the
called card fixes one suit), so 510K's "play it" half looks ``T510`` up again with the called
card's slot restricted to its suit.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import NUM_KINDS, NUM_NATURAL, kind_of, rank_of, suit_of
from cardenv.dagong import catalogue as cat

M = cat.NUM_COMBOS
N = cat.NUM_ACTIONS
B_510 = cat.BLOCKS["k510"]
JMAX = cat.NUM_JOKERS

# --- tables --------------------------------------------------------------------------------------

K510_RANKS = cat.POINT_RANKS
K510_KINDS = np.array([[kind_of(r, s) for s in range(4)] for r in K510_RANKS])  # (3, 4)
_K510 = [cat.COMBOS[i] for i in range(B_510.start, B_510.stop)]


def _build_t510() -> np.ndarray:
    """T510[(m5*256 + m10*16 + mK)*2 + joker, i]: can 510K combo i be built from these suits?

    ``m5``, ``m10``, ``mK`` are the 4-bit sets of suits held for each slot. A 正510K of suit s
    needs s in every natural slot; a 杂510K needs every natural slot filled and the naturals not
    forced into a single suit -- impossible only when each natural slot holds exactly one suit
    and it is the same one.
    """
    m = np.arange(16)
    single = (m & (m - 1)) == 0  # one suit (or none)
    m5, m10, mk = np.meshgrid(m, m, m, indexing="ij")
    slots = {K510_RANKS[0]: m5, K510_RANKS[1]: m10, K510_RANKS[2]: mk}
    table = np.zeros((16, 16, 16, 2, len(_K510)), dtype=bool)
    for i, c in enumerate(_K510):
        natural = [slots[r] for r in K510_RANKS if r != c.joker_as]
        if c.zheng:
            ok = np.logical_and.reduce([(x >> c.suit) & 1 == 1 for x in natural])
        else:
            filled = np.logical_and.reduce([x > 0 for x in natural])
            forced_one_suit = np.logical_and.reduce(
                [single[x] for x in natural] + [x == natural[0] for x in natural[1:]])
            ok = filled & ~forced_one_suit
        table[..., 1, i] = ok
        if c.joker_as is None:
            table[..., 0, i] = ok
    return table.reshape(16 * 16 * 16 * 2, len(_K510))


T510 = _build_t510()


def _build_inclusion():
    """INCL[k, c]: can combination c contain a card of kind k (non-510K combos only)?

    INCL510[k, i]: can 510K combo i contain kind k, given that k's slot is restricted to k's suit.
    SLOT[k]: 0/1/2 for natural 5/10/K kinds, else -1.
    """
    incl = np.zeros((NUM_KINDS, M), dtype=bool)
    incl510 = np.zeros((NUM_KINDS, len(_K510)), dtype=bool)
    slot = np.full(NUM_KINDS, -1, dtype=np.intp)
    for k in range(NUM_KINDS):
        for ci, c in enumerate(cat.COMBOS):
            if c.type == cat.K510:
                continue
            if k >= NUM_NATURAL:
                incl[k, ci] = c.jokers > 0
            else:
                incl[k, ci] = rank_of(k) in c.ranks and c.length > c.jokers
        for i, c in enumerate(_K510):
            if k >= NUM_NATURAL:
                incl510[k, i] = c.joker_as is not None
            elif rank_of(k) in K510_RANKS:
                incl510[k, i] = c.joker_as != rank_of(k) and (not c.zheng or c.suit == suit_of(k))
        if k < NUM_NATURAL and rank_of(k) in K510_RANKS:
            slot[k] = K510_RANKS.index(rank_of(k))
    return incl, incl510, slot


INCL, INCL510, SLOT = _build_inclusion()

# --- the computation -----------------------------------------------------------------------------

# Every non-510K combination c is playable iff  FEATURES[:, FEATURE_OF[c]] >= NEED[c]  and
# jok >= JOKERS[c], where the per-hand features are: naturals per rank (13), a constant 0 (for
# the joker-only combos), the naturals a hand can put into each pair-run window (min(nat, 2)
# summed) and each triple-run window (min(nat, 3) summed), and the number of ranks holding 4+
# naturals in each 摇摆 window. Features are numbered in catalogue order, so FEATURE_OF is
# non-decreasing and the per-combination gather is a cheap np.repeat.
_F_NAT = 0
_F_ANY = _F_NAT + 13
_F_PAIR = _F_ANY + 1
_F_TRIPLE = _F_PAIR + len(cat.PAIR_RUN_WINDOWS)
_F_YAOBAI = _F_TRIPLE + len(cat.TRIPLE_RUN_WINDOWS)
NUM_FEATURES = _F_YAOBAI + len(cat.YAOBAI_WINDOWS)
_IMPOSSIBLE = 255


def _feature_requirements():
    feature = np.full(M, _F_ANY, dtype=np.intp)
    need = np.zeros(M, dtype=np.uint8)
    jokers = np.array([c.jokers for c in cat.COMBOS], dtype=np.uint8)
    windows = {
        cat.PAIR_RUN: {w: _F_PAIR + i for i, w in enumerate(cat.PAIR_RUN_WINDOWS)},
        cat.TRIPLE_RUN: {w: _F_TRIPLE + i for i, w in enumerate(cat.TRIPLE_RUN_WINDOWS)},
        cat.YAOBAI: {w: _F_YAOBAI + i for i, w in enumerate(cat.YAOBAI_WINDOWS)},
    }
    for ci, c in enumerate(cat.COMBOS):
        if c.type == cat.K510:
            need[ci] = _IMPOSSIBLE  # decided by T510 instead
        elif c.type in windows:
            feature[ci] = windows[c.type][(c.ranks[0], len(c.ranks))]
            need[ci] = len(c.ranks) if c.type == cat.YAOBAI else c.length - c.jokers
        elif c.length > c.jokers:  # single-rank combos with naturals
            feature[ci], need[ci] = _F_NAT + c.key_rank, c.length - c.jokers
    assert np.all(np.diff(feature) >= 0)
    return np.bincount(feature, minlength=NUM_FEATURES), need, jokers


FEATURE_REPEATS, NEED, JOKERS = _feature_requirements()


# Window bounds of the run features, for cumulative sums over the ranks 3..A.
_PAIR_START, _PAIR_END = (np.array(x) for x in zip(*[(s, s + n) for s, n in cat.PAIR_RUN_WINDOWS]))
_TRIPLE_START, _TRIPLE_END = (np.array(x) for x in zip(*[(s, s + n)
                                                         for s, n in cat.TRIPLE_RUN_WINDOWS]))
_YAOBAI_START, _YAOBAI_END = (np.array(x) for x in zip(*[(s, s + n)
                                                         for s, n in cat.YAOBAI_WINDOWS]))


def _rank_feature_table():
    """_RANK_FEATURES[r, n]: what rank r holding n naturals adds to each feature (one hand)."""
    table = np.zeros((13, 9, NUM_FEATURES), dtype=np.uint8)
    for r in range(13):
        for n in range(9):
            table[r, n, _F_NAT + r] = n
            for base, windows, value in ((_F_PAIR, cat.PAIR_RUN_WINDOWS, min(n, 2)),
                                         (_F_TRIPLE, cat.TRIPLE_RUN_WINDOWS, min(n, 3)),
                                         (_F_YAOBAI, cat.YAOBAI_WINDOWS, int(n >= 4))):
                for i, (start, length) in enumerate(windows):
                    if start <= r < start + length:
                        table[r, n, base + i] = value
    return table


_RANK_FEATURES = _rank_feature_table()
_RANKS = np.arange(13)

# T510 row of a hand: sum over held 5/10/K kinds of a per-kind weight (= 2 * its suit bit in its
# slot's position), plus 1 if a joker is available.
_K510_FLAT = K510_KINDS.ravel()
_K510_WEIGHTS = np.zeros(NUM_KINDS, dtype=np.int64)
for _slot, _shift in enumerate((256, 16, 1)):
    _K510_WEIGHTS[K510_KINDS[_slot]] = 2 * _shift * np.array([1, 2, 4, 8])
_K510_FLAT_WEIGHTS = _K510_WEIGHTS[_K510_FLAT]

# For the "play it" half of 510K: the called card's slot may only use the called card itself.
_SLOT_KEEP = np.ones((NUM_KINDS, NUM_KINDS), dtype=bool)
_SLOT_ONLY = np.zeros((NUM_KINDS, NUM_KINDS), dtype=bool)
for _k in range(NUM_NATURAL):
    if SLOT[_k] >= 0:
        _SLOT_KEEP[_k, K510_KINDS[SLOT[_k]]] = False
        _SLOT_ONLY[_k, _k] = True

_JOKER_OK = np.arange(JMAX + 1)[:, None] >= JOKERS[None, :].astype(np.intp)


# No float matrix products here: numpy would hand them to a multithreaded BLAS, which slows
# down by an order of magnitude when another process keeps a core busy.


def _k510_rows(presence, jok):
    """T510 rows from the presence of the twelve 5/10/K kinds ``(b, 12)`` and joker counts."""
    key = (presence * _K510_FLAT_WEIGHTS).sum(axis=1) + (jok > 0)
    return np.take(T510, key, axis=0)


def _window_sums(values, start, end):
    cs = np.zeros((values.shape[0], values.shape[1] + 1), dtype=np.int16)
    np.cumsum(values, axis=1, out=cs[:, 1:])
    return np.take(cs, end, axis=1) - np.take(cs, start, axis=1)


def _combo_feasibility(hands: np.ndarray) -> np.ndarray:
    """``(b, M)``: which combinations each hand (int counts) can build (called card ignored)."""
    b = hands.shape[0]
    nat = hands[:, 0:52:4] + hands[:, 1:52:4] + hands[:, 2:52:4] + hands[:, 3:52:4]
    jok = hands[:, NUM_NATURAL] + hands[:, NUM_NATURAL + 1]
    run = nat[:, :cat.RUN_RANKS]
    features = np.empty((b, NUM_FEATURES), dtype=np.uint8)
    features[:, _F_NAT:_F_ANY] = nat
    features[:, _F_ANY] = 0
    features[:, _F_PAIR:_F_TRIPLE] = _window_sums(np.minimum(run, 2), _PAIR_START, _PAIR_END)
    features[:, _F_TRIPLE:_F_YAOBAI] = _window_sums(np.minimum(run, 3), _TRIPLE_START,
                                                    _TRIPLE_END)
    features[:, _F_YAOBAI:] = _window_sums(run >= 4, _YAOBAI_START, _YAOBAI_END)
    out = np.repeat(features, FEATURE_REPEATS, axis=1) >= NEED
    out &= np.take(_JOKER_OK, jok, axis=0)
    out[:, B_510] = _k510_rows(hands[:, _K510_FLAT] > 0, jok)
    return out


def _called_510(hands: np.ndarray, called: np.ndarray) -> np.ndarray:
    """``(h, 20)``: 510K combos each hand can build with its called card inside."""
    presence = hands > 0
    presence &= _SLOT_KEEP[called]
    presence |= _SLOT_ONLY[called]
    return _k510_rows(presence[:, _K510_FLAT], hands[:, NUM_NATURAL:].sum(axis=1)) \
        & INCL510[called]


def feasible(hands, called) -> np.ndarray:
    """``(B, N)``: every play each hand could make, ignoring the standing play.

    Pass is marked possible (a hand can always pass); ``catalogue.BEATS`` forbids it when leading.
    The 硬牌 decisions are never marked.

    Args:
        hands: ``(B, 54)`` or ``(54,)`` copy counts.
        called: ``(B,)`` or scalar card kind of the called card (what the "incl. called card"
            half of the catalogue refers to).
    """
    hands = np.asarray(hands).astype(np.int16, copy=False)
    if hands.ndim == 1:
        return _feasible_one(hands, int(called))
    b = hands.shape[0]
    called = np.broadcast_to(np.asarray(called, dtype=np.intp), (b,))
    if b == 1:
        return _feasible_one(hands[0], int(called[0]))[None]
    holders = np.flatnonzero(hands[np.arange(b), called])

    # Hands that hold the called kind are evaluated twice: as they are (for the "play it" half)
    # and without that kind (for the "keep it back" half); one stacked pass does both.
    h = holders.size
    ck = called[holders]
    stacked = np.concatenate([hands, hands[holders]])
    stacked[b + np.arange(h), ck] = 0
    feas = _combo_feasibility(stacked)

    out = np.zeros((b, N), dtype=bool)
    out[:, cat.PASS] = True
    out[:, cat.FIRST_PLAY:cat.CALLED_OFFSET] = feas[:b]
    if h:
        with_called = feas[holders] & INCL[ck]
        with_called[:, B_510] = _called_510(hands[holders], ck)
        out[holders, cat.CALLED_OFFSET:] = with_called
        out[holders, cat.FIRST_PLAY:cat.CALLED_OFFSET] = feas[b:]
    return out


# The single-hand path (the env's hot path) does the same computation with as few numpy calls
# as possible. The features of a hand are a sum over its ranks of a row that depends on the rank
# and how many naturals of it the hand holds (``_RANK_FEATURES``); every feature stays below 256,
# so each row is packed into one Python int, a byte per feature, and the 13-row sum is 13 big-int
# additions with no carry between bytes (half the time of a (13, F) numpy gather and sum).
_K510_ITEMS = [(int(k), int(_K510_WEIGHTS[k])) for k in np.flatnonzero(_K510_WEIGHTS)]
_JOKER_ROWS = list(_JOKER_OK)
_FEATURE_OF_COMBO = np.repeat(np.arange(NUM_FEATURES), FEATURE_REPEATS)  # the feature each reads
assert _RANK_FEATURES.max(axis=1).sum(axis=0, dtype=np.int64).max() < 256  # bytes never carry
_RANK_PACKED = [[int.from_bytes(_RANK_FEATURES[r, n].tobytes(), "little") for n in range(9)]
                for r in range(13)]


def _k510_key(hand: list, jokers: int, called: int | None = None) -> int:
    key = 0
    for k, weight in _K510_ITEMS:
        if hand[k] and (called is None or SLOT[k] != SLOT[called] or SLOT[called] < 0):
            key += weight
    if called is not None and SLOT[called] >= 0:
        key += int(_K510_WEIGHTS[called])
    return key + (jokers > 0)


def _naturals(hand_list: list) -> list:
    """Naturals per rank: a rank's four suits are consecutive kinds (``kind_of``)."""
    suits = iter(hand_list[:NUM_NATURAL])
    return [a + b + c + d for a, b, c, d in zip(suits, suits, suits, suits)]


def _packed_features(nat: list) -> int:
    total = 0
    for row, n in zip(_RANK_PACKED, nat):
        total += row[n]
    return total


def _combos_from(packed: int, jokers: int, k510_key: int) -> np.ndarray:
    """``(M,)`` feasibility from a hand's packed features, joker count and 510K table key."""
    features = np.frombuffer(packed.to_bytes(NUM_FEATURES, "little"), dtype=np.uint8)
    out = features.take(_FEATURE_OF_COMBO) >= NEED  # (a take: faster than np.repeat)
    out &= _JOKER_ROWS[jokers]
    out[B_510] = T510[k510_key]
    return out


def _feasible_one(hand: np.ndarray, called: int) -> np.ndarray:
    """``feasible`` for one hand (the env's hot path)."""
    hand_list = hand.tolist()
    out = np.zeros(N, dtype=bool)
    out[cat.PASS] = True
    nat = _naturals(hand_list)
    packed = _packed_features(nat)
    jokers = hand_list[NUM_NATURAL] + hand_list[NUM_NATURAL + 1]
    held = hand_list[called]
    if held > 0:
        with_called = out[cat.CALLED_OFFSET:]
        np.logical_and(_combos_from(packed, jokers, _k510_key(hand_list, jokers)),
                       INCL[called], out=with_called)
        with_called[B_510] = T510[_k510_key(hand_list, jokers, called)] & INCL510[called]
        # the same hand without the called kind: only its rank's row (or the jokers) changes
        hand_list[called] = 0
        if called < NUM_NATURAL:
            rank = called // 4
            packed += _RANK_PACKED[rank][nat[rank] - held] - _RANK_PACKED[rank][nat[rank]]
        else:
            jokers -= held
    out[cat.FIRST_PLAY:cat.CALLED_OFFSET] = _combos_from(packed, jokers,
                                                         _k510_key(hand_list, jokers))
    return out


def beats_row(standing) -> np.ndarray:
    """Row of ``catalogue.BEATS`` for standing action ids (-1 = leading)."""
    standing = np.asarray(standing, dtype=np.intp)
    return np.where(standing < cat.FIRST_PLAY, cat.LEAD_ROW,
                    (standing - cat.FIRST_PLAY) % M)


def play_mask(hands, standing, called) -> np.ndarray:
    """``(B, N)`` legal-action mask in the play phase (``(N,)`` for one ``(54,)`` hand).

    Args:
        hands: ``(B, 54)`` copy counts of the players to move (or one ``(54,)`` hand).
        standing: ``(B,)`` action id of the play to beat, ``-1`` when the player leads.
        called: ``(B,)`` called card kind of each game.
    """
    mask = feasible(hands, called)
    mask &= np.take(cat.BEATS, beats_row(standing), axis=0)
    return mask
