"""Slow, literal reference for Dabang follows and trick winners, written from the rules brief.

Independent of ``cardenv.dabang.follow`` and ``cardenv.dabang.strength``: it defines its own card
encoding (the one the brief states: ``kind = rank * 4 + suit``, ranks ``3 4 5 6 7 8 9 10 J Q K A
2``, suits ``♦ ♣ ♥ ♠``, 52 = SJ, 53 = BJ), its own trump/strength rules (brief A1) and its own
follow rules (brief A5), and decides everything by enumeration.

- ``legal_follows`` lists every k-card sub-multiset of the hand (per-kind copy counts, up to 4
  identical copies of a kind) and keeps those that ``FollowRules.legal`` accepts. Nothing is pruned
  by the rules during the enumeration.
- ``step_mask`` derives the step mask from that set, by the definition of a step: ``(j, c)`` is
  allowed iff ``j`` is not used by the partial selection and some legal complete follow ``F``
  has ``F[i] == partial[i]`` for every used kind ``i`` (a kind is chosen in one step, so a used
  kind is final) and ``F[j] == c``.
- ``trick_winner_ref`` applies A5: only a play of k identical cards can win; it must be of the led
  suit, or all trump from a player void in the led suit; the strongest wins, the first among
  equals.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

# --- cards (the brief's encoding, written out here) ------------------------------------------

RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUITS = ("♦", "♣", "♥", "♠")
SJ, BJ = 52, 53
NKINDS = 54
NSTEPS = 4 * NKINDS
TRUMP = "T"  # the "suit" of every trump card


def card_name(kind: int) -> str:
    if kind == SJ:
        return "SJ"
    if kind == BJ:
        return "BJ"
    return SUITS[kind % 4] + RANKS[kind // 4]


def hand_text(counts) -> str:
    return " ".join(f"{card_name(j)}x{int(n)}" if n > 1 else card_name(j)
                    for j, n in enumerate(counts) if n) or "(none)"


def step_text(step: int) -> str:
    return f"{card_name(step // 4)}x{step % 4 + 1}"


# --- A1: trump and strength --------------------------------------------------------------------


def suit_of(kind: int, trump: int, level: int):
    """TRUMP for trump cards (jokers, every 2, every level-rank card, every card of the trump
    suit), else the side suit 0..3."""
    if kind in (SJ, BJ):
        return TRUMP
    face, suit = RANKS[kind // 4], kind % 4
    if face == "2" or face == str(level) or suit == trump:
        return TRUMP
    return suit


def strength(kind: int, trump: int, level: int) -> tuple:
    """A comparable key; larger is stronger. Only meaningful between cards of one "suit" (a side
    suit, or trump) and between trump and side cards (trump is higher).

    BJ > SJ > level card of the trump suit > other level cards (equal) > 2 of the trump suit >
    other 2s (equal) > trump-suit A K ... 3 > side cards (A > K > ... > 3 inside a side suit).
    """
    if kind == BJ:
        return (7, 0)
    if kind == SJ:
        return (6, 0)
    face, suit = RANKS[kind // 4], kind % 4
    if face == str(level):
        return (5, 0) if suit == trump else (4, 0)
    if face == "2":
        return (3, 0) if suit == trump else (2, 0)
    if suit == trump:
        return (1, RANKS.index(face))
    return (0, RANKS.index(face))


# --- A5: shapes ---------------------------------------------------------------------------------

SHAPES = {  # best first [D-A7]
    1: [(1,)],
    2: [(2,), (1, 1)],
    3: [(3,), (2, 1), (1, 1, 1)],
    4: [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)],
}


def shape_of(follow) -> tuple:
    """Group sizes of identical cards, largest first."""
    return tuple(sorted((c for _, c in follow), reverse=True))


def buildable(shape, suit_counts) -> bool:
    """Whether ``shape`` can be built from the led-suit kinds with the duty's restriction: each
    part of size m >= 2 from a distinct kind held exactly m times, each single from a distinct
    further kind (held any number of times).

    Parts of different sizes m >= 2 draw on disjoint sets of kinds (held exactly m), so each size
    only needs enough such kinds; singles then need enough kinds not taken by the bigger parts.
    """
    held = [n for n in suit_counts if n > 0]
    multi = [p for p in shape if p >= 2]
    for m in set(multi):
        if sum(1 for n in held if n == m) < multi.count(m):
            return False
    singles = sum(1 for p in shape if p == 1)
    return len(held) - len(multi) >= singles


def duty_rank(k: int, suit_counts):
    """Index in SHAPES[k] of the best buildable shape; None if no shape is buildable (then the
    duty constrains nothing)."""
    for i, shape in enumerate(SHAPES[k]):
        if buildable(shape, suit_counts):
            return i
    return None


# --- A5: legality of a complete follow --------------------------------------------------------


def _submultisets(items, n):
    """Every selection of n cards from ``items`` = [(kind, copies held)], as tuples of
    (kind, count) with count >= 1, one entry per kind, in the order of ``items``."""
    out = []

    def rec(i, need, acc):
        if need == 0:
            out.append(tuple(acc))
            return
        if i == len(items):
            return
        kind, held = items[i]
        for c in range(min(held, need), 0, -1):
            acc.append((kind, c))
            rec(i + 1, need - c, acc)
            acc.pop()
        rec(i + 1, need, acc)

    rec(0, n, [])
    return out


class FollowRules:
    """A5 for one follower: the hand (54 counts), the led kind, k, trump, level, dead/live.
    ``legal(follow)`` checks one complete follow, a tuple of (kind, count)."""

    def __init__(self, hand, led, k, trump, level, dead):
        self.hand = [int(x) for x in hand]
        self.k = int(k)
        self.dead = bool(dead)
        self.total = sum(self.hand)
        led_suit = suit_of(int(led), trump, level)
        self.in_suit = [suit_of(j, trump, level) == led_suit for j in range(NKINDS)]
        self.suit_counts = [n if s else 0 for n, s in zip(self.hand, self.in_suit)]
        self.a = sum(self.suit_counts)  # cards of the led suit held
        self.duty = duty_rank(self.k, self.suit_counts) if self.a >= self.k else None

    def legal(self, follow) -> bool:
        hand, k = self.hand, self.k
        size = sum(c for _, c in follow)
        if any(c > hand[j] for j, c in follow):
            return False
        if self.total < k:  # a player holding fewer than k cards plays all of them
            return size == self.total
        if size != k:
            return False
        if self.a < k:  # fewer than k of the led suit: all of them plus any others
            d = dict(follow)
            return all(d.get(j, 0) == n for j, n in enumerate(self.suit_counts) if n)
        # at least k of the led suit: k of them
        if not all(self.in_suit[j] for j, _ in follow):
            return False
        if not self.dead or self.duty is None:  # live: the suit duty only
            return True
        # 死棒: a shape at least as good as the duty shape
        return SHAPES[k].index(shape_of(follow)) <= self.duty


@lru_cache(maxsize=4096)
def _legal_follows_cached(hand: tuple, led: int, k: int, trump: int, level: int, dead: bool):
    rules = FollowRules(hand, led, k, trump, level, dead)
    items = [(j, n) for j, n in enumerate(hand) if n > 0]
    n = min(k, sum(hand))  # every sub-multiset of the size a follow can have
    return frozenset(f for f in _submultisets(items, n) if rules.legal(f))


def legal_follows(hand_counts, led_kind, k, trump, level, dead):
    """Set of the legal complete follows, each a tuple of (kind, count) sorted by kind."""
    return _legal_follows_cached(tuple(int(x) for x in hand_counts), int(led_kind), int(k),
                                 int(trump), int(level), bool(dead))


def legal_leads(hand_counts):
    """A lead is c identical cards (c = 1..4) of a kind held at least c times."""
    return frozenset(((j, c),) for j, n in enumerate(hand_counts) for c in range(1, int(n) + 1))


def step_mask(hand, partial, led, k, trump, level, dead) -> np.ndarray:
    """(216,) bool: step 4*j + c - 1 = "add c cards of kind j" (see the module docstring)."""
    hand = [int(x) for x in hand]
    partial = [int(x) for x in partial]
    if led < 0:
        legal = legal_leads(hand)
    else:
        legal = legal_follows(hand, led, k, trump, level, dead)
    used = [i for i in range(NKINDS) if partial[i] > 0]
    mask = np.zeros(NSTEPS, dtype=bool)
    for f in legal:
        d = dict(f)
        if any(d.get(i, 0) != partial[i] for i in used):
            continue
        for j, c in f:
            if partial[j] == 0:
                mask[4 * j + c - 1] = True
    return mask


# --- A5: the trick -----------------------------------------------------------------------------


def trick_winner_ref(plays, void, trump, level) -> int:
    """Position (0 = leader) of the winner. ``plays``: list of card lists in play order (the lead
    first, k identical cards); ``void``: whether each player held no card of the led suit."""
    lead = list(plays[0])
    k = len(lead)
    led_suit = suit_of(lead[0], trump, level)
    best, best_key = None, None
    for pos, play in enumerate(plays):
        if len(play) != k or len(set(play)) != 1:
            continue  # only k identical cards can win
        kind = play[0]
        s = suit_of(kind, trump, level)
        if not (s == led_suit or (void[pos] and s == TRUMP)):
            continue
        key = strength(kind, trump, level)
        if best is None or key > best_key:  # strictly stronger: the first among equals stays
            best, best_key = pos, key
    return best
