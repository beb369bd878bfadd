"""``follow.play_mask`` and ``follow.trick_winner`` against the slow reference
(``reference_follow``).

2,500 positions in the default run and 25,000 under ``-m slow``, from a fixed seed: every trump suit
and level 3..10, k = 1..4, 死棒 (dead) and live, leading positions, and followers of these kinds:

- clumpy hands: few kinds, many identical copies (3-4 copies of several kinds), in and out of
  the led suit;
- short in the led suit (fewer than k of it, at least one) and void in it;
- hands with fewer than k cards in all (after tribute), including an empty hand;
- led-suit kinds held mostly once or twice (the [2,2], [2,1,1], [1,1,1,1] duties);
- trump leads against trump-heavy hands (jokers, 2s, level cards of every suit, trump-suit cards);
- hands dealt at random from the 216 cards (sizes 1..52; at most 32 for k = 4, to keep the
  reference's literal enumeration fast).

For every follower, partial selections at every depth: the prefixes (0 .. all groups) of random
legal complete follows, taken in random group orders.

The trick test plays thousands of random tricks (equal cards, off-suit level cards and 2s, void
players trumping in, trump leads, non-identical plays) and compares the winner.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from cardenv.dabang import follow, strength
from tests.sizes import fast_and_slow, sizes

try:  # tests/dabang as a package or as a plain rootdir-inserted folder
    from . import reference_follow as ref
except ImportError:  # pragma: no cover
    import reference_follow as ref

SEED = 2024_0813
MIN_POSITIONS = 25_000  # under -m slow
FAST_POSITIONS = 2_500  # the default run (2,000 meet "no buildable duty shape" 3 times of 5)
BATCH = 2048
NUM_TRICKS = 6_000
LEVELS = range(3, 11)
DECK = np.repeat(np.arange(ref.NKINDS), 4)  # 4 decks
COUNT_P = np.array([0.28, 0.30, 0.24, 0.18])  # copies of a kind in a clumpy hand: 1, 2, 3, 4

KINDS_BY_CLASS = {}  # (trump, level, suit or "T") -> kinds
for _t in range(4):
    for _lv in LEVELS:
        for _j in range(ref.NKINDS):
            KINDS_BY_CLASS.setdefault((_t, _lv, ref.suit_of(_j, _t, _lv)), []).append(_j)


class Position:
    __slots__ = ("hand", "partial", "led", "k", "trump", "level", "dead", "origin")

    def __init__(self, hand, partial, led, k, trump, level, dead, origin):
        self.hand, self.partial = hand, partial
        self.led, self.k, self.trump, self.level, self.dead = led, k, trump, level, dead
        self.origin = origin

    def describe(self) -> str:
        lead = ("leading" if self.led < 0
                else f"led {self.k} x {ref.card_name(self.led)} "
                     f"(suit {ref.suit_of(self.led, self.trump, self.level)})")
        return (f"[{self.origin}] trump {ref.SUITS[self.trump]}, level {self.level}, "
                f"{'dead (死棒)' if self.dead else 'live'}, {lead}\n"
                f"    hand ({sum(self.hand)} cards): {ref.hand_text(self.hand)}\n"
                f"    partial: {ref.hand_text(self.partial)}")


# --- position generation -----------------------------------------------------------------------


def _scatter(rng, kinds, n_kinds, hand, cap):
    """Give the hand ``n_kinds`` random kinds of ``kinds``, 1..4 copies each (clumpy)."""
    kinds = [j for j in kinds if hand[j] < cap[j]]
    if not kinds or n_kinds <= 0:
        return
    for j in rng.choice(kinds, size=min(n_kinds, len(kinds)), replace=False):
        hand[j] = min(int(rng.choice(4, p=COUNT_P)) + 1, cap[j])


def _spread(rng, kinds, n_cards, hand, cap):
    """Add ``n_cards`` cards of ``kinds`` one at a time (clumped onto few kinds)."""
    pool = [j for j in rng.permutation(kinds)[:max(1, int(rng.integers(1, 5)))]]
    added = 0
    while added < n_cards:
        free = [j for j in pool if hand[j] < cap[j]] or [j for j in kinds if hand[j] < cap[j]]
        if not free:
            break
        hand[free[int(rng.integers(len(free)))]] += 1
        added += 1


def make_follower(rng, mode, led, k, trump, level):
    cap = [4] * ref.NKINDS
    if led >= 0:
        cap[led] = 4 - k  # the leader holds k copies of the led kind
    hand = [0] * ref.NKINDS
    led_suit = ref.suit_of(led, trump, level)
    suit_kinds = KINDS_BY_CLASS[(trump, level, led_suit)]
    other_kinds = [j for j in range(ref.NKINDS) if j not in set(suit_kinds)]
    if mode == "clumpy":
        _scatter(rng, suit_kinds, int(rng.integers(0, 7)), hand, cap)
        _scatter(rng, other_kinds, int(rng.integers(0, 6)), hand, cap)
    elif mode == "short":
        _spread(rng, suit_kinds, int(rng.integers(1, k)), hand, cap)
        _scatter(rng, other_kinds, int(rng.integers(1, 7)), hand, cap)
    elif mode == "void":
        _scatter(rng, other_kinds, int(rng.integers(1, 9)), hand, cap)
    elif mode == "tiny":  # fewer than k cards in all
        n = int(rng.integers(0, k))
        _spread(rng, suit_kinds if rng.random() < 0.5 else list(range(ref.NKINDS)), n, hand, cap)
    elif mode == "pairs":  # led-suit kinds held mostly once or twice: [2,2], [2,1,1], ... duties
        for j in rng.choice(suit_kinds, size=min(len(suit_kinds), int(rng.integers(2, 7))),
                            replace=False):
            hand[j] = min(int(rng.choice(4, p=[0.45, 0.45, 0.05, 0.05])) + 1, cap[j])
        _scatter(rng, other_kinds, int(rng.integers(0, 4)), hand, cap)
    elif mode == "trump_heavy":  # many trump kinds with copies (the lead is trump here)
        _scatter(rng, KINDS_BY_CLASS[(trump, level, ref.TRUMP)], int(rng.integers(3, 12)),
                 hand, cap)
        _scatter(rng, other_kinds, int(rng.integers(0, 4)), hand, cap)
    elif mode == "deal":  # a random hand from the 216 cards
        size = int(rng.integers(1, {1: 53, 2: 53, 3: 53, 4: 33}[k]))
        deck = DECK.copy()
        if led >= 0:
            deck = np.delete(deck, np.flatnonzero(deck == led)[:k])
        for j in rng.choice(deck, size=size, replace=False):
            hand[int(j)] += 1
    else:
        raise AssertionError(mode)
    assert all(0 <= hand[j] <= cap[j] for j in range(ref.NKINDS))
    return hand


MODES = ["clumpy", "pairs", "short", "void", "tiny", "trump_heavy", "deal"]
MODE_P = np.array([0.32, 0.12, 0.14, 0.09, 0.05, 0.12, 0.16])


def _partials(rng, legal, n_follows=2):
    """Prefixes at every depth of ``n_follows`` random legal follows, in random group orders
    (the complete follow itself only now and then)."""
    out = {tuple([0] * ref.NKINDS)}
    legal = sorted(legal)
    for _ in range(min(n_follows, len(legal))):
        f = legal[int(rng.integers(len(legal)))]
        groups = [f[i] for i in rng.permutation(len(f))]
        p = [0] * ref.NKINDS
        for depth, (j, c) in enumerate(groups, 1):
            p[j] = c
            if depth < len(groups) or rng.random() < 0.2:  # few complete ones (nothing to add)
                out.add(tuple(p))
    return [list(p) for p in sorted(out)]


def generate_positions(rng, n=MIN_POSITIONS):
    positions = []
    while len(positions) < n:
        trump, level = int(rng.integers(4)), int(rng.integers(3, 11))
        k = int(rng.integers(1, 5))
        dead = bool(rng.random() < 0.6)
        if rng.random() < 0.06:  # leading
            hand = make_follower(rng, ["clumpy", "deal"][int(rng.integers(2))], -1, 1,
                                 trump, level)
            positions.append(Position(hand, [0] * ref.NKINDS, -1, k, trump, level, dead,
                                      "lead"))
            continue
        mode = str(rng.choice(MODES, p=MODE_P))
        if mode == "tiny" and k == 1:
            k = int(rng.integers(2, 5))
        if mode == "short" and k == 1:
            k = int(rng.integers(2, 5))
        trump_lead = mode == "trump_heavy" or rng.random() < 0.35
        led = int(rng.choice(KINDS_BY_CLASS[(trump, level, ref.TRUMP)] if trump_lead else
                             [j for j in range(52) if ref.suit_of(j, trump, level) != ref.TRUMP]))
        hand = make_follower(rng, mode, led, k, trump, level)
        legal = ref.legal_follows(hand, led, k, trump, level, dead)
        for p in _partials(rng, legal):
            positions.append(Position(hand, p, led, k, trump, level, dead, mode))
    return positions


# --- the mask test -----------------------------------------------------------------------------


def _arrays(batch):
    return (np.array([p.hand for p in batch], dtype=np.int64),
            np.array([p.partial for p in batch], dtype=np.int64),
            np.array([p.led for p in batch]), np.array([p.k for p in batch]),
            np.array([p.trump for p in batch]), np.array([p.level for p in batch]),
            np.array([p.dead for p in batch]))


def _coverage(positions):
    """What the generated positions must include (so that the test checks what it claims)."""
    cov = {}

    def tick(name):
        cov[name] = cov.get(name, 0) + 1

    for p in positions:
        tick(f"trump {p.trump}")
        tick(f"level {p.level}")
        if p.led < 0:
            tick("leading")
            continue
        tick(f"k {p.k} {'dead' if p.dead else 'live'}")
        depth = sum(1 for x in p.partial if x)
        tick(f"depth {depth}")
        if sum(p.partial) == min(p.k, sum(p.hand)):
            tick("complete partial")
        rules = ref.FollowRules(p.hand, p.led, p.k, p.trump, p.level, p.dead)
        if sum(p.hand) == 0:
            tick("empty hand")
        if sum(p.hand) < p.k:
            tick("fewer than k cards in all")
        elif rules.a == 0:
            tick("void")
        elif rules.a < p.k:
            tick("short in the led suit")
        if ref.suit_of(p.led, p.trump, p.level) == ref.TRUMP:
            tick("trump lead")
        if sum(1 for n in rules.suit_counts if n >= 3) >= 2:
            tick("several 3-4 copy kinds in the led suit")
        if p.dead and rules.duty is not None and p.k >= 2:
            tick(f"k {p.k} duty {ref.SHAPES[p.k][rules.duty]}")
        if p.dead and rules.a >= p.k and rules.duty is None:
            tick("no buildable duty shape")
    return cov


REQUIRED = (
    [f"trump {t}" for t in range(4)] + [f"level {lv}" for lv in LEVELS]
    + [f"k {k} {m}" for k in range(1, 5) for m in ("dead", "live")]
    + [f"depth {d}" for d in range(5)]
    + [f"k {k} duty {s}" for k in (2, 3, 4) for s in ref.SHAPES[k]]
    + ["leading", "complete partial", "empty hand", "fewer than k cards in all", "void",
       "short in the led suit", "trump lead", "several 3-4 copy kinds in the led suit",
       "no buildable duty shape"]
)


@pytest.fixture(scope="module", params=fast_and_slow(FAST_POSITIONS, MIN_POSITIONS))
def cases(request):
    """The positions and the reference's masks, computed once for the tests below (fewer in
    the default run, every one under -m slow)."""
    rng = np.random.default_rng(SEED)
    t0 = time.perf_counter()
    positions = generate_positions(rng, request.param)
    t1 = time.perf_counter()
    expected = np.array([ref.step_mask(p.hand, p.partial, p.led, p.k, p.trump, p.level, p.dead)
                         for p in positions])
    t2 = time.perf_counter()
    print(f"\n{len(positions)} positions: generate {t1 - t0:.2f}s, reference {t2 - t1:.2f}s")
    return positions, expected


def _compare(positions, expected, got, what):
    assert got.shape == expected.shape
    bad = np.flatnonzero((got != expected).any(axis=1))
    if bad.size:
        lines = [f"{what}: {bad.size} of {len(positions)} positions differ; first ones:"]
        for i in bad[:12]:
            p = positions[i]
            extra = [ref.step_text(s) for s in np.flatnonzero(got[i] & ~expected[i])]
            lacking = [ref.step_text(s) for s in np.flatnonzero(expected[i] & ~got[i])]
            lines.append(p.describe())
            lines.append(f"    play_mask allows, reference forbids: {extra}")
            lines.append(f"    reference allows, play_mask forbids: {lacking}")
            lines.append(f"    reference allows: "
                         f"{[ref.step_text(s) for s in np.flatnonzero(expected[i])]}")
        raise AssertionError("\n".join(lines))


def test_generator_coverage(cases, request):
    positions, _ = cases
    assert len(positions) >= request.node.callspec.params["cases"]
    cov = _coverage(positions)
    missing = [name for name in REQUIRED if cov.get(name, 0) < 5]
    assert not missing, f"the generator missed {missing}; coverage: {cov}"


def test_play_mask_matches_reference(cases):
    """Batches of states (the vectorized path)."""
    positions, expected = cases
    t0 = time.perf_counter()
    got = np.concatenate([follow.play_mask(*_arrays(positions[s:s + BATCH]))
                          for s in range(0, len(positions), BATCH)])
    print(f"\nplay_mask, batches of {BATCH}: {time.perf_counter() - t0:.3f}s")
    _compare(positions, expected, got, "play_mask in batches")


def test_play_mask_one_state_matches_reference(cases):
    """One state per call (play_mask answers fewer than NUMPY_FROM states in plain Python)."""
    positions, expected = cases
    t0 = time.perf_counter()
    got = np.array([follow.play_mask(*(np.array([x]) for x in (
        p.hand, p.partial, p.led, p.k, p.trump, p.level, p.dead)))[0] for p in positions])
    print(f"\nplay_mask, one state a call: {time.perf_counter() - t0:.3f}s")
    _compare(positions, expected, got, "play_mask one state at a time")


def test_play_mask_scalar_dead_and_single_rows_agree():
    """``dead`` as a plain bool, and one state at a time, give the batch's answers."""
    rng = np.random.default_rng(SEED + 1)
    positions = generate_positions(rng, 300)
    arrays = _arrays(positions)
    batch = follow.play_mask(*arrays)
    for dead in (True, False):
        rows = np.flatnonzero(arrays[6] == dead)
        sub = [a[rows] for a in arrays[:6]]
        np.testing.assert_array_equal(follow.play_mask(*sub, dead=dead), batch[rows])
    for i in range(0, len(positions), 7):
        one = follow.play_mask(*(a[i:i + 1] for a in arrays))
        np.testing.assert_array_equal(one[0], batch[i], err_msg=positions[i].describe())


# --- strength tables ---------------------------------------------------------------------------


def test_strength_tables_order_like_reference():
    """strength.py's values order every pair of cards that can meet (same side suit, trump vs
    trump, trump vs side) as A1 does, and its suit classes are A1's."""
    for trump in range(4):
        for level in LEVELS:
            st = strength.STRENGTH[trump, level - 3]
            cl = strength.SUIT_CLASS[trump, level - 3]
            for a in range(ref.NKINDS):
                sa = ref.suit_of(a, trump, level)
                assert (cl[a] == strength.TRUMP) == (sa == ref.TRUMP), (trump, level, a)
                if sa != ref.TRUMP:
                    assert cl[a] == sa, (trump, level, ref.card_name(a))
                for b in range(ref.NKINDS):
                    sb = ref.suit_of(b, trump, level)
                    if sa != sb and ref.TRUMP not in (sa, sb):
                        continue  # cards of two side suits never meet
                    ka, kb = ref.strength(a, trump, level), ref.strength(b, trump, level)
                    want = (ka > kb) - (ka < kb)
                    have = (int(st[a]) > int(st[b])) - (int(st[a]) < int(st[b]))
                    assert want == have, (ref.SUITS[trump], level, ref.card_name(a),
                                          ref.card_name(b), want, have)


# --- the trick ---------------------------------------------------------------------------------


def _random_trick(rng):
    trump, level, k = int(rng.integers(4)), int(rng.integers(3, 11)), int(rng.integers(1, 5))
    trumps = KINDS_BY_CLASS[(trump, level, ref.TRUMP)]
    level_cards = [ref.RANKS.index(str(level)) * 4 + s for s in range(4)]
    twos = [12 * 4 + s for s in range(4)]
    if rng.random() < 0.3:
        led = int(rng.choice(trumps))
    else:
        led = int(rng.choice([j for j in range(52) if ref.suit_of(j, trump, level) != ref.TRUMP]))
    led_suit = ref.suit_of(led, trump, level)
    suit_kinds = KINDS_BY_CLASS[(trump, level, led_suit)]
    used = {led: k}
    plays, void = [[led] * k], [False]
    for _ in range(3):
        for _attempt in range(50):
            r = rng.random()
            if r < 0.30:  # k identical of the led suit
                play = [int(rng.choice(suit_kinds))] * k
            elif r < 0.45:  # k identical trump (void players trumping in; or trump led)
                play = [int(rng.choice(trumps))] * k
            elif r < 0.60:  # equal-strength cards: off-suit level cards and 2s, the led kind
                play = [int(rng.choice(level_cards + twos + [led]))] * k
            elif r < 0.70:  # k identical of another side suit (a discard)
                play = [int(rng.integers(52))] * k
            else:  # mixed cards (off-suit level cards of two suits, etc.), or a short hand
                pool = level_cards + twos + suit_kinds + trumps
                n = k if rng.random() < 0.9 else int(rng.integers(0, k))
                play = [int(x) for x in rng.choice(pool, size=n)]
            cnt = dict(used)
            for x in play:
                cnt[x] = cnt.get(x, 0) + 1
            if max(cnt.values()) <= 4:
                break
        used = cnt
        has_led_suit = any(ref.suit_of(x, trump, level) == led_suit for x in play)
        plays.append(play)
        void.append(False if has_led_suit else bool(rng.random() < 0.8))
    return plays, void, trump, level


def test_trick_winner_matches_reference():
    rng = np.random.default_rng(SEED + 2)
    tricks = [_random_trick(rng) for _ in range(NUM_TRICKS)]
    kinds = np.full((NUM_TRICKS, 4), -1, dtype=np.int64)
    identical = np.zeros((NUM_TRICKS, 4), dtype=bool)
    void = np.zeros((NUM_TRICKS, 4), dtype=bool)
    for t, (plays, vd, _, _) in enumerate(tricks):
        k = len(plays[0])
        for pos, play in enumerate(plays):
            if len(play) == k and len(set(play)) == 1:
                kinds[t, pos], identical[t, pos] = play[0], True
            void[t, pos] = vd[pos]
    trump = np.array([tr[2] for tr in tricks])
    level = np.array([tr[3] for tr in tricks])
    got = follow.trick_winner(kinds, identical, void, trump, level)
    want = np.array([ref.trick_winner_ref(*tr) for tr in tricks])
    winners_not_leader = int((want != 0).sum())
    assert winners_not_leader > NUM_TRICKS // 10  # the tricks are not all won by the leader
    bad = np.flatnonzero(got != want)
    if bad.size:
        lines = [f"{bad.size} of {NUM_TRICKS} tricks differ; first ones:"]
        for t in bad[:10]:
            plays, vd, tr, lv = tricks[t]
            lines.append(f"trump {ref.SUITS[tr]} level {lv}: "
                         + " | ".join(" ".join(ref.card_name(x) for x in p)
                                      + (" (void)" if v else "") for p, v in zip(plays, vd))
                         + f" -> trick_winner {got[t]}, reference {want[t]}")
        raise AssertionError("\n".join(lines))


@sizes("hands", 60, 200)
def test_reference_enumerates_every_submultiset(hands):
    """The reference's enumeration is complete: as many distinct selections as the coefficient
    of x^n in prod over kinds of (1 + x + ... + x^held), each a sub-multiset of n cards."""
    rng = np.random.default_rng(SEED + 3)
    for _ in range(hands):
        hand = [int(x) for x in rng.choice(5, size=ref.NKINDS, p=[0.7, 0.1, 0.08, 0.07, 0.05])]
        items = [(j, n) for j, n in enumerate(hand) if n]
        poly = np.array([1], dtype=object)
        for _, n in items:
            poly = np.convolve(poly, np.ones(n + 1, dtype=object))
        for n in range(1, 5):
            subs = ref._submultisets(items, n)
            assert len(set(subs)) == len(subs) == (poly[n] if n < len(poly) else 0)
            assert all(sum(c for _, c in f) == n and all(1 <= c <= hand[j] for j, c in f)
                       for f in subs)
