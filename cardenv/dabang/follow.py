"""Vectorized Dabang play legality and trick comparison (A5), for batches of states.

``play_mask(hands, partial, led, k, trump, level, dead)`` returns the ``(B, 216)`` mask over the
"play c cards of kind j" actions (``catalogue.PLAY + 4*j + c - 1``) with no Python loop over
cards or states:

- leading (``led < 0``): any kind held at least ``c`` times;
- following a lead of ``k`` identical cards of kind ``led``: the follow is built in steps, one
  group of identical cards per step; ``partial`` holds the cards chosen so far. A step ``(j, c)``
  is allowed iff kind ``j`` is not used yet and some legal complete follow contains the partial
  selection plus ``c`` cards of ``j`` (and no other card of ``j``).

The follow rules, for a follower holding ``a`` cards of the led suit (trump is one suit):

- suit duty: with ``a >= k`` the follow is ``k`` cards of the led suit; with ``a < k`` it is all
  ``a`` of them plus any ``k - a`` others;
- shape duty (死棒, ``dead=True``): with ``a >= k``, the shape of the follow (its group sizes of
  identical cards) must rank at least as high as the *duty shape*: the best shape buildable from
  the led suit taking each multi-card part from a kind held exactly that many times (singles from
  anything). Shapes best first: [2] [1,1]; [3] [2,1] [1,1,1]; [4] [3,1] [2,2] [2,1,1] [1,1,1,1]
  [D-A7]. ``dead=False`` is the live rule: the suit duty only.

A follower with fewer than ``k`` cards in all (possible after tribute) plays all of them.

How the dead-rule steps are decided: after the step, the follow still needs parts ``R`` (at most
three, sizes summing to what is missing) such that the final shape is allowed; ``R`` is feasible
iff, sorted in decreasing order, each part fits the matching one of the three largest counts
among the unused led-suit kinds. Both the candidate part lists (``_FEASIBLE``, indexed by ``k``,
the duty, the parts chosen so far and ``c``) and the "three largest counts once ``j`` is removed"
(``TOP3``) are small precomputed tables, so a step is two gathers.

``trick_winner`` compares the plays of a trick: only ``k`` identical cards of the led suit, or
``k`` identical trump cards from a follower void in the led suit, can win; the strongest wins,
the first played among equals.
"""

from __future__ import annotations

import itertools

import numpy as np

from cardenv.core.cards import NUM_KINDS
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS, TRUMP

MAX_COUNT = 4
SHAPES = {
    1: [(1,)],
    2: [(2,), (1, 1)],
    3: [(3,), (2, 1), (1, 1, 1)],
    4: [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)],
}
_C = np.arange(1, MAX_COUNT + 1)

# --- tables ----------------------------------------------------------------------------------


def _sub(big: tuple, small: list):
    """``big - small`` as multisets, or ``None`` if ``small`` is not contained in ``big``."""
    rest = list(big)
    for part in small:
        if part not in rest:
            return None
        rest.remove(part)
    return rest


def table_row(k, duty, n1, n2, n3, c):
    # public: shared with cardenv.dabang.vector (DabangBatch's follow mask)
    return ((((k * 5 + duty) * 4 + n1) * 2 + n2) * 2 + n3) * 4 + (c - 1)


def _tcode(t):
    return (t[0] * 5 + t[1]) * 5 + t[2]


def _build_feasible() -> np.ndarray:
    """_FEASIBLE[row(k, duty, n1, n2, n3, c), tcode(t1, t2, t3)]."""
    table = np.zeros((table_row(4, 4, 3, 1, 1, 4) + 1, 125), dtype=bool)
    tops = list(itertools.product(range(5), repeat=3))
    for k, shapes in SHAPES.items():
        for duty in range(len(shapes)):
            allowed = shapes[:duty + 1]
            for n1, n2, n3 in itertools.product(range(4), range(2), range(2)):
                chosen = [1] * n1 + [2] * n2 + [3] * n3
                if sum(chosen) >= k:
                    continue
                for c in range(1, 5):
                    rests = [r for shape in allowed
                             if (r := _sub(shape, chosen + [c])) is not None]
                    for t in tops:
                        if t[0] < t[1] or t[1] < t[2]:
                            continue
                        for rest in rests:
                            parts = sorted(rest, reverse=True) + [0, 0, 0]
                            if all(p <= q for p, q in zip(parts[:3], t)):
                                table[table_row(k, duty, n1, n2, n3, c), _tcode(t)] = True
                                break
    return table


def _build_top3() -> np.ndarray:
    """TOP3[s-code of the four largest counts (desc), h]: tcode of the three largest once one
    count equal to ``h`` is removed (nothing removed if ``h`` is not among the first three)."""
    table = np.zeros((5 ** 4, 5), dtype=np.int64)
    for s in itertools.product(range(5), repeat=4):
        code = ((s[0] * 5 + s[1]) * 5 + s[2]) * 5 + s[3]
        for h in range(5):
            rest = list(s)
            if h in rest[:3]:
                rest.remove(h)
            table[code, h] = _tcode(rest[:3])
    return table


_FEASIBLE = _build_feasible()
TOP3 = _build_top3()  # public: shared with cardenv.dabang.vector (DabangBatch)


def duty_index(k, e2, e3, e4):
    """Index (0 = best) of the duty shape in ``SHAPES[k]``, from the numbers of led-suit kinds
    held exactly 2, 3 and 4 times. Vectorized over arrays."""
    k, e2, e3, e4 = np.broadcast_arrays(*(np.asarray(x) for x in (k, e2, e3, e4)))
    d = np.zeros(k.shape, dtype=np.int64)
    d = np.where(k == 2, np.where(e2 >= 1, 0, 1), d)
    d = np.where(k == 3, np.where(e3 >= 1, 0, np.where(e2 >= 1, 1, 2)), d)
    d = np.where(k == 4, np.where(e4 >= 1, 0, np.where(e3 >= 1, 1, np.where(
        e2 >= 2, 2, np.where(e2 >= 1, 3, 4)))), d)
    return d


# --- the mask ----------------------------------------------------------------------------------
#
# Every condition is computed per (state, kind) as a 4-bit set of the allowed counts c = 1..4,
# on (B, 54) arrays; one final gather turns each set into 4 booleans (a uint32 viewed as bytes).

# FEASIBLE_BITS, EXPAND32 and counts_between are public: shared with cardenv.dabang.vector
FEASIBLE_BITS = (_FEASIBLE.reshape(-1, 4, 125) << np.arange(4)[None, :, None]).sum(axis=1) \
    .astype(np.uint8)  # [row(k, duty, n1, n2, n3) // 4, tcode] -> allowed counts as bits
_EXPAND = ((np.arange(16)[:, None] >> np.arange(4)) & 1).astype(bool)
EXPAND32 = np.ascontiguousarray(_EXPAND).view(np.uint32).ravel()


def counts_between(lo, hi):
    """Bits of the counts c in 1..4 with lo <= c <= hi."""
    up_to_hi = (1 << np.clip(hi, 0, 4)) - 1
    below_lo = (1 << np.clip(lo - 1, 0, 4)) - 1
    return up_to_hi & ~below_lo & 15


def play_mask(hands, partial, led, k, trump, level, dead=True) -> np.ndarray:
    """``(B, 216)`` mask over play steps; see the module docstring.

    Args:
        hands: ``(B, 54)`` the player's cards at the start of its play (``partial`` included).
        partial: ``(B, 54)`` cards chosen so far in this follow (zeros when leading or at the
            first step).
        led: ``(B,)`` the led kind, ``-1`` when the player leads.
        k: ``(B,)`` cards in the lead (ignored when leading).
        trump, level: ``(B,)`` trump suit 0..3 and level 3..10 of each state.
        dead: ``True`` for the 死棒 shape duty, ``False`` for the live rule (bool or ``(B,)``).
    """
    hands = np.atleast_2d(np.asarray(hands)).astype(np.int64, copy=False)
    b = hands.shape[0]
    partial = np.broadcast_to(np.asarray(partial, dtype=np.int64), hands.shape)
    led, k, trump, level, dead = (np.broadcast_to(np.asarray(x), (b,))
                                  for x in (led, k, trump, level, dead))
    if b == 1:  # one state: the plain-Python path is an order of magnitude faster
        row = np.zeros((1, NUM_KINDS * MAX_COUNT), dtype=bool)
        part = {j: int(c) for j, c in enumerate(partial[0].tolist()) if c}
        row[0, play_steps_one(hands[0].tolist(), part, int(led[0]), int(k[0]), int(trump[0]),
                              int(level[0]), bool(dead[0]))] = True
        return row
    leading = led < 0
    held_bits = (1 << np.minimum(hands, 4)) - 1  # c <= copies held
    if leading.all():
        return _expand(held_bits, b)

    k = np.minimum(np.where(leading, 1, k), hands.sum(axis=1))  # a short hand plays all it has
    cls = SUIT_CLASS[trump, level - 3]  # (b, 54)
    in_suit = cls == cls[np.arange(b), np.maximum(led, 0)][:, None]
    unused = (partial == 0) & (hands > 0)
    remaining = (k - partial.sum(axis=1))[:, None]  # cards still to choose
    suit_held = np.where(in_suit, hands, 0)
    a = suit_held.sum(axis=1)
    common = held_bits & ((1 << np.clip(remaining, 0, 4)) - 1) & np.where(unused, 15, 0)

    # Short in the led suit: every led-suit kind goes in whole; fill with any other cards.
    other_free = np.where(~in_suit & unused, hands, 0).sum(axis=1)[:, None]
    suit_left = (a - np.where(in_suit, partial, 0).sum(axis=1))[:, None]
    gap = remaining - suit_left  # cards that must come from outside the led suit
    suit_step = np.where(gap <= other_free, 1 << (np.maximum(hands, 1) - 1), 0)
    fill_step = counts_between(gap - (other_free - hands), gap)
    short_bits = np.where(in_suit, suit_step, fill_step)

    # Enough in the led suit: only led-suit cards; live rule: enough of them left afterwards.
    suit_free = np.where(in_suit & unused, hands, 0)
    live_bits = counts_between(remaining - (suit_free.sum(axis=1)[:, None] - hands), 4)

    # Dead rule: the parts still needed must fit the unused led-suit kinds.
    held_exactly = [(suit_held == m).sum(axis=1) for m in (2, 3, 4)]
    duty = duty_index(k, *held_exactly)
    chosen = np.where(in_suit, partial, 0)
    n1, n2, n3 = ((chosen == m).sum(axis=1) for m in (1, 2, 3))
    base = table_row(np.clip(k, 1, 4), duty, np.minimum(n1, 3), np.minimum(n2, 1),
                np.minimum(n3, 1), 1) // 4
    top4 = -np.sort(-suit_free, axis=1)[:, :4]
    scode = ((top4[:, 0] * 5 + top4[:, 1]) * 5 + top4[:, 2]) * 5 + top4[:, 3]
    tcode = TOP3[scode[:, None], np.minimum(hands, 4)]  # (b, 54)
    dead_bits = FEASIBLE_BITS[base[:, None], tcode]

    enough_bits = np.where(in_suit, np.where(dead[:, None], dead_bits, live_bits), 0)
    bits = common & np.where((a < k)[:, None], short_bits, enough_bits)
    bits = np.where(leading[:, None], held_bits, bits)
    return _expand(bits, b)


def _expand(bits, b):
    return np.take(EXPAND32, bits).view(bool).reshape(b, NUM_KINDS * MAX_COUNT)


# --- the trick ---------------------------------------------------------------------------------


def trick_winner(kinds, identical, void, trump, level) -> np.ndarray:
    """Position (0 = leader) of each trick's winner.

    Args:
        kinds: ``(B, P)`` in play order, the kind of each play if it is ``k`` identical cards
            (any value, e.g. -1, otherwise); position 0 is the lead.
        identical: ``(B, P)`` whether each play is ``k`` identical cards (and was made).
        void: ``(B, P)`` whether each player held no card of the led suit before playing.
        trump, level: ``(B,)``.
    """
    kinds = np.atleast_2d(np.asarray(kinds, dtype=np.int64))
    safe = np.where(identical, kinds, 0)
    rows = (np.asarray(trump) * (STRENGTH.shape[1]) + (np.asarray(level) - 3))
    strength = STRENGTH.reshape(-1, NUM_KINDS)[rows[:, None], safe]
    cls = SUIT_CLASS.reshape(-1, NUM_KINDS)[rows[:, None], safe]
    led_cls = cls[:, :1]
    eligible = identical & ((cls == led_cls) | (void & (cls == TRUMP)))
    eligible[:, 0] = True
    value = np.where(eligible, strength, -1)
    return np.argmax(value, axis=1)  # argmax takes the first of equal maxima


# --- one state, in plain Python (the environment's hot path) ------------------------------------

_SUIT_CLASS_LISTS = SUIT_CLASS.tolist()
_FEASIBLE_BITS_LISTS = FEASIBLE_BITS.tolist()
_TOP3_LISTS = TOP3.tolist()
# kinds of each suit class under each (trump, level): _CLASS_KINDS[trump][level - 3][class]
_CLASS_KINDS = [[[[j for j in range(NUM_KINDS) if row[j] == c] for c in range(5)]
                 for row in by_level] for by_level in _SUIT_CLASS_LISTS]
# steps (as offsets 4*j + c - 1) of playing 1..h copies of kind j: _UP_TO[j][h]
_UP_TO = [[[4 * j + c - 1 for c in range(1, h + 1)] for h in range(5)] for j in range(NUM_KINDS)]
_chain = itertools.chain.from_iterable  # a lead's steps: one flat list of the _UP_TO picks
# steps of kind j allowed by a 4-bit set of counts: _FROM_BITS[j][bits]
_FROM_BITS = [[[4 * j + c - 1 for c in range(1, 5) if bits >> (c - 1) & 1] for bits in range(16)]
              for j in range(NUM_KINDS)]


def _duty_one(k: int, e2: int, e3: int, e4: int) -> int:
    if k == 2:
        return 0 if e2 else 1
    if k == 3:
        return 0 if e3 else 1 if e2 else 2
    if k == 4:
        return 0 if e4 else 1 if e3 else 2 if e2 >= 2 else 3 if e2 else 4
    return 0


def play_steps_one(hand: list, partial: dict, led: int, k: int, trump: int, level: int,
                   dead: bool, size: int | None = None) -> list[int]:
    """The allowed steps of one state as ascending offsets ``4*j + c - 1`` (the same rule as
    ``play_mask``; add ``catalogue.PLAY`` for action ids).

    Args:
        hand: length-54 counts as a list (the partial selection included).
        partial: ``{kind: c}`` chosen so far in this follow.
        size: the number of cards in ``hand``, if the caller knows it.

    The two commonest decisions of random play (about three in four play steps) take short cuts
    that give exactly ``_play_steps_general``'s answer (``tests/dabang/test_follow_fast.py``
    compares them): a lead, and a one-card follow.
    """
    if led < 0:  # a lead: 1..h copies of every kind held h times, in C-level iteration
        return list(_chain(map(list.__getitem__, _UP_TO, hand)))
    if (k == 1 or size == 1) and not partial:
        # One card to play: a single of the led suit (suit duty; one card has no shape to
        # duty) or, void in it, any single. A hand of one card plays it either way.
        li = level - 3
        steps = [4 * j for j in _CLASS_KINDS[trump][li][_SUIT_CLASS_LISTS[trump][li][led]]
                 if hand[j]]
        return steps or [4 * j for j, h in enumerate(hand) if h]
    return _play_steps_general(hand, partial, led, k, trump, level, dead, size)


def _play_steps_general(hand: list, partial: dict, led: int, k: int, trump: int, level: int,
                        dead: bool, size: int | None = None) -> list[int]:
    """``play_steps_one`` without its short cuts: the rule worked out for any state."""
    if led < 0:
        steps = []
        for j, h in enumerate(hand):
            if h:
                steps += _UP_TO[j][h]
        return steps
    k = min(k, sum(hand) if size is None else size)
    cls = _SUIT_CLASS_LISTS[trump][level - 3]
    led_cls = cls[led]
    suit = [(j, hand[j]) for j in _CLASS_KINDS[trump][level - 3][led_cls] if hand[j]]
    a = sum(h for _, h in suit)
    remaining = k - sum(partial.values())
    steps = []
    if a < k:  # short: every led-suit kind goes in whole, the rest from anything
        suit_left = a - sum(c for j, c in partial.items() if cls[j] == led_cls)
        other_free = sum(h for j, h in enumerate(hand)
                         if h and cls[j] != led_cls and j not in partial)
        gap = remaining - suit_left
        for j, h in enumerate(hand):
            if not h or j in partial:
                continue
            if cls[j] == led_cls:
                if h <= remaining and gap <= other_free:
                    steps.append(4 * j + h - 1)
            else:
                lo = max(1, gap - (other_free - h))
                steps += [4 * j + c - 1 for c in range(lo, min(gap, h, remaining) + 1)]
        return steps
    free = [(j, h) for j, h in suit if j not in partial]
    if not dead:
        total = sum(h for _, h in free)
        for j, h in free:
            lo = max(1, remaining - (total - h))
            steps += [4 * j + c - 1 for c in range(lo, min(h, remaining) + 1)]
        return steps
    counts = [h for _, h in suit]
    duty = _duty_one(k, counts.count(2), counts.count(3), counts.count(4))
    chosen = list(partial.values())
    base = table_row(min(k, 4), duty, min(chosen.count(1), 3), min(chosen.count(2), 1),
                min(chosen.count(3), 1), 1) // 4
    top = sorted((h for _, h in free), reverse=True)[:4] + [0, 0, 0, 0]
    scode = ((top[0] * 5 + top[1]) * 5 + top[2]) * 5 + top[3]
    feasible, top3 = _FEASIBLE_BITS_LISTS[base], _TOP3_LISTS[scode]
    for j, h in free:
        steps += _FROM_BITS[j][feasible[top3[h]] & ((1 << min(h, remaining)) - 1)]
    return steps
