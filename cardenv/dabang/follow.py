"""Vectorized Dabang play legality and trick comparison (A5), for batches of states.

``play_mask(hands, partial, led, k, trump, level, dead)`` returns the ``(B, 216)`` mask over the
"play c cards of kind j" actions (``catalogue.PLAY + 4*j + c - 1``) with no Python loop over
cards or states. It is written once, as ``play_mask_groups`` (the follow given as its groups,
as the engines hold it), which both batched callers use (``batched_masks.legal_masks`` and
``vector.DabangBatch``); ``play_steps_one`` is the same rule for one state in plain Python (the
environment's hot path, and ``play_mask``'s answer for fewer than ``NUMPY_FROM`` states). The
rule:

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
(``_TOP3``) are small precomputed tables, so a step is two gathers.

``trick_winner`` compares the plays of a trick: only ``k`` identical cards of the led suit, or
``k`` identical trump cards from a follower void in the led suit, can win; the strongest wins,
the first played among equals.
"""

from __future__ import annotations

import itertools

import numpy as np

from cardenv.core.cards import NUM_KINDS
from cardenv.dabang.strength import NUM_LEVELS, STRENGTH, SUIT_CLASS, TRUMP

MAX_COUNT = 4
SHAPES = {
    1: [(1,)],
    2: [(2,), (1, 1)],
    3: [(3,), (2, 1), (1, 1, 1)],
    4: [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)],
}

# --- tables ----------------------------------------------------------------------------------


def _sub(big: tuple, small: list):
    """``big - small`` as multisets, or ``None`` if ``small`` is not contained in ``big``."""
    rest = list(big)
    for part in small:
        if part not in rest:
            return None
        rest.remove(part)
    return rest


def _table_row(k, duty, n1, n2, n3, c):
    return ((((k * 5 + duty) * 4 + n1) * 2 + n2) * 2 + n3) * 4 + (c - 1)


def _tcode(t):
    return (t[0] * 5 + t[1]) * 5 + t[2]


def _build_feasible() -> np.ndarray:
    """_FEASIBLE[row(k, duty, n1, n2, n3, c), tcode(t1, t2, t3)]."""
    table = np.zeros((_table_row(4, 4, 3, 1, 1, 4) + 1, 125), dtype=bool)
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
                                table[_table_row(k, duty, n1, n2, n3, c), _tcode(t)] = True
                                break
    return table


def _build_top3() -> np.ndarray:
    """_TOP3[s-code of the four largest counts (desc), h]: tcode of the three largest once one
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
_TOP3 = _build_top3()


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
# A kind's allowed counts c = 1..4 are a 4-bit set; once the kinds not held or already in the
# follow are set aside (they get nothing), the set depends on figures of the state (cards still
# to choose, led-suit cards held, free cards, the duty shape, the largest free led-suit counts)
# and on the kind only through the copies held h (1..4) and whether it is of the led suit. So
# each state gets a table of 9 entries (nothing; h = 1..4 off the led suit; h = 1..4 in it), the
# state figures come from a histogram of those 9 codes and from the follow's groups (at most 4)
# rather than from sums and a sort over the 54 kinds, and one gather spreads the table over the
# kinds, each set as four booleans (a uint32 viewed as bytes).

_FEASIBLE_BITS = (_FEASIBLE.reshape(-1, 4, 125) << np.arange(4)[None, :, None]).sum(axis=1) \
    .astype(np.uint8)  # [row(k, duty, n1, n2, n3) // 4, tcode] -> allowed counts as bits
_EXPAND32 = np.ascontiguousarray(((np.arange(16)[:, None] >> np.arange(4)) & 1).astype(bool)) \
    .view(np.uint32).ravel()  # a 4-bit set as four bools, read as one uint32
_H = np.arange(1, MAX_COUNT + 1)  # copies of a kind a hand can hold
_SCODE = np.array([125, 25, 5, 1])  # the code of four counts 0..4 (_TOP3's first index)
_ONE_HOT = np.eye(5, dtype=np.int64)  # _ONE_HOT[c]: c in 0..4 as a histogram's unit
# _IN_CLASS[(trump * NUM_LEVELS + level - 3) * 5 + class]: the kinds of that suit class
_CLASS_ROWS = SUIT_CLASS.reshape(-1, NUM_KINDS).astype(np.int64)
_IN_CLASS = (_CLASS_ROWS[:, None, :] == np.arange(5)[None, :, None]).reshape(-1, NUM_KINDS)
# _CODE[_IN_CLASS5[suit row] + copies held]: the kind's entry of its state's table
_IN_CLASS5 = (_IN_CLASS * 5).astype(np.int8)
_CODE = np.array([0, 1, 2, 3, 4, 0, 5, 6, 7, 8], dtype=np.int32)


def _base_table() -> np.ndarray:
    """The dead-rule table row (``_table_row(...) // 4``) from ``k``, the led-suit kinds held
    exactly 2 (up to 2), 3 and 4 times (up to 1) and the follow's groups of 1 (up to 3), 2 and 3
    cards (up to 1)."""
    k, e2, e3, e4, n1, n2, n3 = np.indices((5, 3, 2, 2, 4, 2, 2))
    return _table_row(np.maximum(k, 1), duty_index(k, e2, e3, e4), n1, n2, n3, 1) // 4


def _top3_table() -> np.ndarray:
    """``_TOP3`` indexed by the counts of free led-suit kinds held at least 1, 2, 3, 4 times
    (each up to 4, coded base 5) instead of by the four largest counts."""
    at_least = np.indices((5, 5, 5, 5)).reshape(4, -1).T  # rows: [>= 1, >= 2, >= 3, >= 4]
    top4 = (at_least[:, None, :] > np.arange(4)[None, :, None]).sum(axis=2)  # largest first
    table = np.zeros((5 ** 4, 5), dtype=np.int64)
    table[at_least @ _SCODE] = _TOP3[top4 @ _SCODE]
    return table


_BASE = _base_table()
_TOP3_AT_LEAST = _top3_table()


def _counts_between(lo, hi):
    """Bits of the counts c in 1..4 with lo <= c <= hi."""
    up_to_hi = (1 << np.clip(hi, 0, 4)) - 1
    below_lo = (1 << np.clip(lo - 1, 0, 4)) - 1
    return up_to_hi & ~below_lo & 15


def groups(partial: dict) -> tuple[list[int], list[int]]:
    """A ``{kind: count}`` follow or play as 4 kinds and 4 counts, 0-padded (insertion order
    kept): the form ``play_mask_groups`` takes."""
    kinds, counts = list(partial), list(partial.values())
    pad = [0] * (MAX_COUNT - len(kinds))
    return kinds + pad, counts + pad


# From this many states on, one numpy pass is faster than play_steps_one state by state: numpy
# costs about 150 us a call whatever the batch, play_steps_one about 4-8 us a state (measured
# at 1, 8, 16 and 32 states: 4 / 43 / 126 / 263 us against 151 / 161 / 169 / 220 us).
NUMPY_FROM = 16


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
    partial = np.broadcast_to(np.asarray(partial, dtype=np.int64), hands.shape)
    b = hands.shape[0]
    if b < NUMPY_FROM:  # a few states: no numpy pass over the groups either
        hands_rows = hands.tolist()
        parts = [{j: c for j, c in enumerate(row) if c} for row in partial.tolist()]
        return _one_by_one(hands_rows, parts, *(np.broadcast_to(np.asarray(x), (b,)).tolist()
                                                for x in (led, k, trump, level, dead)),
                           [sum(h) for h in hands_rows])
    # a follow has at most three groups: the (up to) four first kinds in it, in kind order
    kinds = np.argsort(partial == 0, axis=1, kind="stable")[:, :MAX_COUNT]
    counts = np.take_along_axis(partial, kinds, axis=1)
    return play_mask_groups(hands, kinds, counts, led, k, trump, level, dead, hands.sum(axis=1))


def _one_by_one(hands, parts, led, k, trump, level, dead, size) -> np.ndarray:
    """``(B, 216)`` masks of a few states by ``play_steps_one`` (plain lists, a dict each)."""
    rows = np.zeros((len(hands), NUM_KINDS * MAX_COUNT), dtype=bool)
    for i, (hand, part) in enumerate(zip(hands, parts)):
        rows[i, play_steps_one(hand, part, int(led[i]), int(k[i]), int(trump[i]),
                               int(level[i]), bool(dead[i]), int(size[i]))] = True
    return rows


def play_mask_groups(hands, part_kind, part_count, led, k, trump, level, dead,
                     size) -> np.ndarray:
    """``play_mask`` with the follow being built given as its groups of identical cards, as the
    engines hold it: ``part_kind``, ``part_count`` ``(B, 4)`` (count 0: no group; see
    ``groups``), and ``size`` ``(B,)`` the cards in each hand (``hands`` summed). The one
    batched follow rule: ``batched_masks.legal_masks`` and ``vector.DabangBatch`` both call it."""
    hands = np.atleast_2d(np.asarray(hands))
    b = hands.shape[0]
    led, k, trump, level, dead, size = (np.broadcast_to(np.asarray(x), (b,))
                                        for x in (led, k, trump, level, dead, size))
    part_kind, part_count = (np.asarray(x, dtype=np.int64) for x in (part_kind, part_count))
    if b < NUMPY_FROM:  # a few states: play_steps_one, state by state
        parts = [{j: c for j, c in zip(kinds, counts) if c}
                 for kinds, counts in zip(part_kind.tolist(), part_count.tolist())]
        return _one_by_one(hands.tolist(), parts, led.tolist(), k.tolist(), trump.tolist(),
                           level.tolist(), dead.tolist(), size.tolist())
    line = np.arange(b)
    table = trump.astype(np.int64) * NUM_LEVELS + level - 3
    suit_row = table * 5 + _CLASS_ROWS[table, np.maximum(led, 0)]
    code = _CODE[_IN_CLASS5[suit_row] + hands]  # 0 not held, 1..4 off suit, 5..8 in suit
    grouped = part_count > 0  # the follow's groups (distinct kinds)
    code.reshape(-1)[(line[:, None] * NUM_KINDS + part_kind)[grouped]] = 0  # used: no more
    held = np.take_along_axis(hands, part_kind, axis=1) * grouped  # copies of those kinds
    in_suit = _IN_CLASS[suit_row[:, None], part_kind] & grouped
    code += 9 * line[:, None].astype(np.int32)  # now the state's entry of the flat tables
    free = np.bincount(code.reshape(-1), minlength=9 * b).reshape(b, 9)[:, 5:]
    # free: unused led-suit kinds held 1, 2, 3, 4 times
    k = np.minimum(np.where(led < 0, 1, k), size)  # a short hand plays all it has
    held_suit = (held * in_suit).sum(axis=1)
    a = free @ _H + held_suit  # led-suit cards held
    remaining = k - part_count.sum(axis=1)  # cards still to choose
    suit_free = a - held_suit
    other_free = (size - a - (held * ~in_suit).sum(axis=1))[:, None]
    suit_left = a - (part_count * in_suit).sum(axis=1)
    h = _H[None, :]
    common = ((1 << h) - 1) & ((1 << np.clip(remaining, 0, 4)) - 1)[:, None]
    # short in the led suit: each led-suit kind whole, the gap filled from other cards
    gap = (remaining - suit_left)[:, None]
    suit_step = np.where(gap <= other_free, 1 << (h - 1), 0)
    fill_step = _counts_between(gap - (other_free - h), gap)
    # enough: the live rule (enough led-suit cards left afterwards), or (dead) the parts still
    # needed fitting the free kinds
    live = _counts_between(remaining[:, None] - (suit_free[:, None] - h), 4)
    # the led-suit kinds held exactly 2, 3, 4 times (the duty shape) and the follow's led-suit
    # groups of 1, 2, 3 cards: histograms of the groups, one-hot summed
    held_kinds = free + _ONE_HOT[held * in_suit].sum(axis=1)[:, 1:]
    chosen = _ONE_HOT[part_count * in_suit].sum(axis=1)
    base = _BASE[np.clip(k, 1, 4), np.minimum(held_kinds[:, 1], 2),
                 np.minimum(held_kinds[:, 2], 1), np.minimum(held_kinds[:, 3], 1),
                 np.minimum(chosen[:, 1], 3), np.minimum(chosen[:, 2], 1),
                 np.minimum(chosen[:, 3], 1)]
    at_least = np.minimum(free[:, ::-1].cumsum(axis=1)[:, ::-1], 4)  # kinds held >= 1..4
    dead_bits = _FEASIBLE_BITS[base[:, None], _TOP3_AT_LEAST[at_least @ _SCODE][:, 1:]]
    enough = np.where(dead[:, None], dead_bits, live)
    short = (a < k)[:, None]
    bits = np.zeros((b, 9), dtype=np.int64)
    bits[:, 1:5] = common & np.where(short, fill_step, 0)
    bits[:, 5:] = common & np.where(short, suit_step, enough)
    bits[led < 0, 1:] = np.tile((1 << _H) - 1, 2)  # a lead: any count held
    return np.take(_EXPAND32[bits].reshape(-1), code).view(bool).reshape(b, 4 * NUM_KINDS)


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
_FEASIBLE_BITS_LISTS = _FEASIBLE_BITS.tolist()
_TOP3_LISTS = _TOP3.tolist()
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
    that give exactly ``_play_steps_general``'s answer (``tests/cardenv/dabang/test_follow_fast.py``
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
    base = _table_row(min(k, 4), duty, min(chosen.count(1), 3), min(chosen.count(2), 1),
                min(chosen.count(3), 1), 1) // 4
    top = sorted((h for _, h in free), reverse=True)[:4] + [0, 0, 0, 0]
    scode = ((top[0] * 5 + top[1]) * 5 + top[2]) * 5 + top[3]
    feasible, top3 = _FEASIBLE_BITS_LISTS[base], _TOP3_LISTS[scode]
    for j, h in free:
        steps += _FROM_BITS[j][feasible[top3[h]] & ((1 << min(h, remaining)) - 1)]
    return steps
