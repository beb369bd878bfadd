"""``DabangHeuristic`` for a whole batch, in numpy (rows x card kinds): the play phase,
burials and tribute returns.

``play_batch(agent, obs, masks, pieces)`` returns, for ``(B, D)`` play-phase observations and
``(B, N)`` masks, exactly the actions that ``DabangHeuristic._play`` picks row by row (before the
agent's defensive fallback, which ``act_batch`` applies afterwards in row order);
``discard_batch`` does the same for ``_pick_discard``. They mirror the per-state code rule for
rule, with no Python loop over rows:

- ``Context`` (``_Ctx`` of every row): strengths and suit classes under each row's trump and
  level (one gather from ``STRENGTH`` / ``SUIT_CLASS``), unseen cards, cards per class, and for
  card counting the strongest card of each class with at least ``k`` copies unseen
  (``top[b, k - 1, class]``): "an unseen card beats strength x" is ``top > x``. Reductions over
  the kinds run kinds-major (54, B). Void chances use the same float64 operations as
  ``_Ctx.void_prob``; where a power lands within 1e-9 of a risk threshold it is recomputed with
  Python's ``**`` (numpy's vectorized ``pow`` may differ from the C library's in the last bit);
- leads: one score per card kind (all copies held), the first best legal one;
- follows: the trick winner in play order (three steps over the batch), the seats after us,
  points at stake, then the winning play (cheapest safe, else unsafe, group) and otherwise the
  cheapest step, keyed ``(cost, -count)``, the first in action order.

Every float is computed from the same operands in the same order as the per-state code (IEEE
float64), so equal costs and scores tie exactly as there; integer rules are exact.
``tests/cardagents/players/heuristics/dabang/test_batch.py`` checks ``act_batch`` against ``act`` on
thousands of positions.
"""

from __future__ import annotations

import numpy as np

from cardagents.players.heuristics.dabang.tuning import (BREAK, LAST_TRICK_BONUS, POINT_WEIGHT,
                                                         RANK_A, VOID_RISK)
from cardenv.core.cards import BIG_JOKER, KIND_POINTS, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.dabang import catalogue as cat
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS, TRUMP

_NEAR = 1e-9   # a void chance this close to a risk threshold is recomputed in Python

_PTS = KIND_POINTS.astype(np.int64)                     # (54,)
_PTS_F = _PTS.astype(np.float64)
_PTS_TRICK = np.tile(_PTS, 4)                           # (216,): the trick piece's points
_IS_ACE = (np.arange(NUM_KINDS) // 4) == RANK_A         # (54,)
_ACE_F = np.where(_IS_ACE, 4.0, 0.0)                    # the step's extra cost of an ace
_STR = STRENGTH.astype(np.int64)
_CLS = SUIT_CLASS.astype(np.int64)
_COUNTS = np.arange(1, 5)                               # cards per group, 1..4
_SEATS4 = np.arange(4)
# a kind's 4 play actions (1..4 cards) as the bytes of a uint32, by copies held (0..4): those
# that play them all (no break) and those that leave some
_WHOLE = np.array([(_COUNTS >= h).astype(np.uint8) for h in range(5)]).view(np.uint32)[:, 0]
_BROKEN = np.array([(_COUNTS < h).astype(np.uint8) for h in range(5)]).view(np.uint32)[:, 0]
# play actions in id order (PLAY + 4k + c - 1): the step's tie-break, larger first: more
# cards, then the lower id
_TIE_KEY = (np.tile(_COUNTS, NUM_KINDS) * 256 - np.arange(4 * NUM_KINDS)).astype(
    np.int16)


def _first_max(values: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the first column of the largest ``values`` among ``valid`` ones, and whether
    there is any."""
    masked = np.where(valid, values, -np.inf)
    return masked.argmax(axis=1), valid.any(axis=1)


def _first_min(values: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    masked = np.where(valid, values, np.inf)
    return masked.argmin(axis=1), valid.any(axis=1)


def _void_chances(unseen_cls: np.ndarray, left: np.ndarray) -> np.ndarray:
    """``_Ctx.void_prob`` of seats 1 and 3 for the side suits: ``(B, 2, 4)`` float64."""
    total = unseen_cls.sum(axis=1)                                     # (B,)
    seats = left[:, [1, 3]]                                            # (B, 2)
    live = (total[:, None] > 0) & (seats > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.minimum(1.0, seats.astype(np.float64) / total[:, None].astype(np.float64))
    base = 1.0 - share                                                 # (B, 2)
    expo = unseen_cls[:, None, :4].astype(np.float64)                  # (B, 1, 4)
    p = np.where(live[:, :, None], np.power(base[:, :, None], expo), 0.0)
    near = live[:, :, None] & ((np.abs(p - VOID_RISK) < _NEAR)
                               | (np.abs(p - 2 * VOID_RISK) < _NEAR))
    for b, s, c in zip(*np.nonzero(near)):  # rare: bit-exact with the per-state path
        p[b, s, c] = float(base[b, s]) ** int(unseen_cls[b, c])
    return p


def _risk(vp: np.ndarray, rows: np.ndarray, cls_: np.ndarray, k: np.ndarray,
          seat1: np.ndarray, seat3: np.ndarray) -> np.ndarray:
    """``trump_risk`` of ``_Ctx.beatable`` for a class ``cls_`` led with ``k`` cards against
    seats 1 / 3 (flags); shapes broadcast with ``rows``."""
    side = np.minimum(cls_, 3)
    factor = np.where(k == 1, 1.0, 0.5)
    r1 = seat1 & (vp[rows, 0, side] * factor > VOID_RISK)
    r3 = seat3 & (vp[rows, 1, side] * factor > VOID_RISK)
    return (cls_ == TRUMP) | r1 | r3


class Context:
    """``_Ctx`` of every row, as arrays: ``st`` / ``cls`` (B, 54), ``hand``, ``unseen``,
    ``unseen_cls`` / ``mine_cls`` (B, 5), ``left`` (B, 4), ``top`` (B, 4, 5) and the void
    chances ``vp`` (B, 2, 4) of seats 1 and 3 for each side suit."""

    def __init__(self, obs: np.ndarray, pieces: dict, counting: bool = True):
        self.obs, self.pieces = obs, pieces
        n = self.n = obs.shape[0]
        tr = self.seg("trump").argmax(axis=1)
        li = self.seg("level").argmax(axis=1)
        self.st = st = _STR[tr, li]                                   # (B, 54) int
        self.cls = cls = _CLS[tr, li]                                 # (B, 54) int
        self.stf = st.astype(np.float64)
        self.hand = hand = self.seg("hand").astype(np.int64)
        self.trump = trump = cls == TRUMP
        # card counting works kinds-major (54, B): reductions over kinds vectorize over rows
        trump_t = np.ascontiguousarray(trump.T)
        self.mine_cls = _per_class(np.ascontiguousarray(hand.T), trump_t)
        if not counting:
            return
        # small whole numbers: the float32 sum is exact, as the per-state float64 one
        played = self.seg("played").reshape(n, 4, NUM_KINDS).sum(axis=1).astype(np.int64)
        kitty = self.seg("kitty_known").astype(np.int64)
        self.unseen = unseen = np.maximum(0, 4 - hand - played - kitty)
        unseen_t = np.ascontiguousarray(unseen.T)
        self.unseen_cls = _per_class(unseen_t, trump_t)
        self.left = self.seg("cards_left").astype(np.int64)
        # top[b, k - 1, c]: strongest card of class c with >= k copies unseen (0: none; every
        # strength is >= 1)
        st_t = st.T.astype(np.uint8)
        st_side = np.where(trump_t, np.uint8(0), st_t)[:NUM_NATURAL]
        st_trump = np.where(trump_t, st_t, np.uint8(0))
        top = np.empty((n, 4, 5), dtype=np.int64)
        for i, k in enumerate(_COUNTS):
            enough = unseen_t >= k
            side = (enough[:NUM_NATURAL] * st_side).reshape(13, 4, n).max(axis=0)   # (4, B)
            top[:, i, :4] = side.T
            top[:, i, TRUMP] = (enough * st_trump).max(axis=0)
        self.top = top
        self.vp = vp = _void_chances(self.unseen_cls, self.left)
        # trump_risk of a lead against seats 1 and 3: [b, 0 (one card) / 1 (more), class]
        risk = np.ones((n, 2, 5), dtype=bool)
        risk[:, 0, :4] = (vp * 1.0 > VOID_RISK).any(axis=1)
        risk[:, 1, :4] = (vp * 0.5 > VOID_RISK).any(axis=1)
        self.lead_risk = risk

    def seg(self, name):
        start, stop = self.pieces[name]
        return self.obs[:, start:stop]


def _per_class(counts_t: np.ndarray, trump_t: np.ndarray) -> np.ndarray:
    """Cards of ``counts_t`` (54, B) per class (B, 5): side suits by suit, then trump."""
    out = np.empty((counts_t.shape[1], 5), dtype=np.int64)
    out[:, :4] = np.where(trump_t[:NUM_NATURAL], 0, counts_t[:NUM_NATURAL]) \
        .reshape(13, 4, -1).sum(axis=0).T
    out[:, TRUMP] = np.where(trump_t, counts_t, 0).sum(axis=0)
    return out


def play_batch(agent, obs: np.ndarray, masks: np.ndarray, pieces: dict) -> np.ndarray:
    """Play-phase actions of ``agent`` (a ``DabangHeuristic``) for every row: ``(B,)`` int64."""
    obs = np.asarray(obs)
    masks = np.asarray(masks, dtype=bool)
    ctx = Context(obs, pieces)
    k_led = ctx.seg("led_count")[:, 0].astype(np.int64)
    out = np.zeros(ctx.n, dtype=np.int64)
    lead = k_led == 0
    if lead.any():
        idx = np.flatnonzero(lead)
        out[idx] = _lead(agent, masks[idx], ctx, idx)
    if (~lead).any():
        idx = np.flatnonzero(~lead)
        out[idx] = _follow(agent, masks[idx], ctx, idx, k_led[idx])
    return out


def discard_batch(obs: np.ndarray, masks: np.ndarray, pieces: dict, base: int) -> np.ndarray:
    """``DabangHeuristic._pick_discard`` (burial: ``base = BURY``, tribute return: ``RETURN``)
    of every row, whose legal actions must all lie in ``base .. base + 53``."""
    ctx = Context(np.asarray(obs), pieces, counting=False)
    stf, cls, hand = ctx.stf, ctx.cls, ctx.hand
    rows = np.arange(ctx.n)[:, None]
    pts = _PTS[None, :]
    trump_cost = (200.0 + stf) + 50.0 * (pts > 0)
    suit_len = ctx.mine_cls[rows, np.minimum(cls, 3)].astype(np.float64)
    cost = (stf + 1.5 * suit_len) + np.where(hand >= 2, 5.0, 0.0)
    cost = np.where(_IS_ACE[None, :], cost + 8.0, cost)
    cost = np.where(pts > 0, cost + (100.0 + 3.0 * pts.astype(np.float64)), cost)
    cost = np.where(cls == TRUMP, trump_cost, cost)
    cost[:, SMALL_JOKER] = 900.0
    cost[:, BIG_JOKER] = 1000.0
    legal = np.asarray(masks)[:, base:base + NUM_KINDS]
    best, _ = _first_min(cost, legal)
    return base + best


def _lead(agent, masks, ctx, idx):
    n = len(idx)
    rows = np.arange(n)[:, None]
    st, stf, cls, hand = ctx.st[idx], ctx.stf[idx], ctx.cls[idx], ctx.hand[idx]
    mine_cls, top = ctx.mine_cls[idx], ctx.top[idx]
    c = hand                                                       # all copies of each kind
    cf = c.astype(np.float64)
    ci = np.maximum(c, 1) - 1
    action = cat.PLAY + 4 * np.arange(NUM_KINDS)[None, :] + ci
    legal = (c > 0) & masks[rows, action]
    # winner: not beatable(st[k], kc, kc, c, (1, 3))
    risk = ctx.lead_risk[idx].reshape(n, -1)[rows, np.where(c == 1, 0, 5) + cls]
    side = cls != TRUMP
    beaten = (risk & (top[rows, ci, TRUMP] > st)) | (side & (top[rows, ci, cls] > st))
    winner = ~beaten
    pc = (_PTS[None, :] * c).astype(np.float64)
    tenth = 0.1 * stf
    dealer = ctx.seg("dealer")[idx]
    dealer_seat = dealer.argmax(axis=1)
    defending = (dealer.max(axis=1) > 0) & ((dealer_seat == 0) | (dealer_seat == 2))
    bonus = np.where(defending & (mine_cls[:, TRUMP] >= 12), agent.draw_bonus, 0.0)
    base = np.where(side, stf, stf + 10.0)
    short = agent.short_suit * mine_cls[rows, cls].astype(np.float64)
    score = np.where(
        winner,
        np.where(side | (c >= 2), (np.where(side, 100.0, 80.0) + 10.0 * cf) + pc,
                 (agent.trump_lead + bonus)[:, None]) - tenth,
        ((50.0 - base) - 2.0 * _PTS_F[None, :]) - short - 0.0)
    legal &= score > -1e9                       # the per-state path starts from -1e9
    best, found = _first_max(score, legal)
    return np.where(found, action[np.arange(n), best], masks.argmax(axis=1))


def _follow(agent, masks, ctx, idx, k_led):
    n = len(idx)
    r = np.arange(n)
    st, stf, cls, hand = ctx.st[idx], ctx.stf[idx], ctx.cls[idx], ctx.hand[idx]
    mine_cls, left, top, vp = ctx.mine_cls[idx], ctx.left[idx], ctx.top[idx], ctx.vp[idx]
    trick = ctx.seg("trick")[idx].astype(np.int64)
    plays = trick.reshape(n, 4, NUM_KINDS)
    leader = ctx.seg("leader")[idx].argmax(axis=1)
    led = plays[r, leader].argmax(axis=1)
    led_cls = cls[r, led]
    points = trick @ _PTS_TRICK
    my_pos = (-leader) % 4
    nkinds = np.count_nonzero(plays, axis=2)                            # (B, 4)
    only = plays.argmax(axis=2)                                         # the kind when single
    # by seat (columns): played, still to play after us, the play if it is k_led identical
    # cards of the led suit or trump (its strength, else -1); in play order from the leader,
    # the winner is the first strongest (a later equal play does not beat it), as in
    # the per-state walk over the plays in order (integers: exact)
    played = nkinds > 0
    not_me = _SEATS4 != 0
    after = not_me & ~played & (left > 0) & (((_SEATS4 - leader[:, None]) % 4) > my_pos[:, None])
    done = not_me & played
    rc = r[:, None]
    cy = cls[rc, only]
    one = not_me & played & (nkinds == 1) & (plays[rc, _SEATS4, only] == k_led[:, None]) \
        & ((cy == led_cls[:, None]) | (cy == TRUMP))
    order = (leader[:, None] + _SEATS4) % 4                             # seats in play order
    value = np.where(one, st[rc, only], -1)[rc, order]
    value[:, 0] = st[r, led]                                            # the lead
    best = value.argmax(axis=1)
    win_seat = order[r, best]
    win_str = value[r, best]
    win_cls = np.where(best == 0, led_cls, cy[r, win_seat])
    seat1, seat3 = after[:, 1], after[:, 3]
    opp = seat1 | seat3
    last = ~(done & (left != 0)).any(axis=1) & ~(after & (left > k_led[:, None])).any(axis=1) \
        & (left[:, 0] <= k_led)
    value = points + np.where(last, LAST_TRICK_BONUS, 0)
    fresh = ~(ctx.seg("selection")[idx] != 0).any(axis=1)
    void = mine_cls[r, led_cls] == 0
    risk = _risk(vp, r, led_cls, k_led, seat1, seat3)                   # (B,)
    ki = k_led - 1
    top_trump = top[r, ki, TRUMP]
    top_led = top[r, ki, np.minimum(led_cls, 3)]
    side_led = led_cls != TRUMP

    partner = win_seat == 2
    feed = partner & ~(opp & ((risk & (top_trump > win_str))
                              | (side_led & (win_cls == led_cls) & (top_led > win_str))))
    try_win = np.where(partner, ~feed & fresh & (value >= 10),
                       fresh & ((value > 0) | (agent.take_free & ~opp)))
    safe_only = partner | (value < 10)
    side_only = ~partner & (value <= 0)

    won = np.zeros(n, dtype=bool)
    win_kind = np.zeros(n, dtype=np.int64)
    w = np.flatnonzero(try_win)
    if len(w):  # winning play: k_led copies of one kind beating the winner
        wr = w[:, None]
        kc, kw = cls[w], k_led[w, None]
        a_win = cat.PLAY + 4 * np.arange(NUM_KINDS)[None, :] + (kw - 1)
        cand = (hand[w] >= kw) & (st[w] > win_str[wr]) \
            & ((kc == led_cls[wr]) | (void[wr] & (kc == TRUMP))) \
            & ~(side_only[wr] & (kc == TRUMP)) & masks[wr, a_win]
        cost = (stf[w] + np.where(hand[w] > kw, BREAK, 0.0)) - 0.2 * _PTS_F
        k_beaten = opp[wr] & ((risk[wr] & (top_trump[wr] > st[w]))
                              | (side_led[wr] & (kc == led_cls[wr]) & (top_led[wr] > st[w])))
        safe_k, any_safe = _first_min(cost, cand & ~k_beaten)
        unsafe_k, any_unsafe = _first_min(cost, cand & k_beaten)
        win_kind[w] = np.where(any_safe, safe_k, unsafe_k)
        won[w] = any_safe | (any_unsafe & ~safe_only[w])

    out = cat.PLAY + 4 * win_kind + ki
    rest = np.flatnonzero(~won)
    if len(rest):
        out[rest] = _step(masks[rest], feed[rest], st[rest], stf[rest], cls[rest], hand[rest],
                          mine_cls[rest])
    return out


def _step(masks, feed, st, stf, cls, hand, mine_cls):
    """``DabangHeuristic._step``: the cheapest legal group, key ``(cost, -count)``, the first
    in action order. A group's cost is its kind's, plus ``BREAK`` when it leaves copies of the
    kind in hand: per kind, the cheapest whole group and the cheapest broken one."""
    n = len(masks)
    sign = np.where(feed, -POINT_WEIGHT, POINT_WEIGHT)[:, None]
    trump_cost = (15.0 + 2.0 * (st - 20).astype(np.float64)) + (0.5 * sign) * _PTS_F
    side_cost = ((stf + _ACE_F) + 0.4 * mine_cls[np.arange(n)[:, None], np.minimum(cls, 3)]
                 .astype(np.float64)) + sign * _PTS_F
    kind_cost = np.where(cls == TRUMP, trump_cost, side_cost)           # (B, 54)
    # the 4 counts of a kind as 4 bytes of one uint32 (0 / 1 each): bitwise and, any = != 0
    legal = np.ascontiguousarray(masks[:, cat.PLAY:cat.PLAY + 4 * NUM_KINDS]).view(np.uint32)
    legal_whole = legal & _WHOLE[hand]                                  # (B, 54)
    legal_broken = legal & _BROKEN[hand]
    whole_cost = np.where(legal_whole != 0, kind_cost, np.inf)
    broken_cost = np.where(legal_broken != 0, kind_cost + BREAK, np.inf)
    low = np.minimum(whole_cost.min(axis=1), broken_cost.min(axis=1))[:, None]
    tied = np.where(whole_cost == low, legal_whole, np.uint32(0)) \
        | np.where(broken_cost == low, legal_broken, np.uint32(0))
    tied = tied.view(np.bool_)                                          # (B, 216)
    best = np.where(tied, _TIE_KEY, np.int16(-1)).argmax(axis=1)
    return np.where(np.isfinite(low[:, 0]), cat.PLAY + best, masks.argmax(axis=1))
