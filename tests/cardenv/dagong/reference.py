"""A slow, direct reference move generator for Xianning Dagong, written from RULES-BRIEF B1/B2.

It is the independent oracle for ``cardenv.dagong.legality``: it does not import legality.py nor
the catalogue's precomputed bomb order (``BOMB_STRENGTH``, ``BEATS``). From the catalogue it only
uses ``action_id`` / ``ACTIONS`` to translate its own structured results into ids and back.

Three parts, each a plain reading of the brief:

``classify(kinds)``
    Every interpretation a multiset of cards admits, as ``Combo(type, length, key_rank, jokers,
    suit, joker_as)`` (the catalogue's vocabulary: ranks 0..12 = 3..2; ``key_rank`` is the single
    rank or a run's top rank, ``None`` for 510K and 天炸; ``suit`` only for 正510K; ``joker_as``
    only for a 510K with a joker). Split in two:

    * ``classify_ranks(nat, j)`` -- all types except 510K. These never look at suits (B1: "suits
      matter only for 510K and for the called card"), so they are a function of the natural rank
      counts ``nat`` (13 numbers) and the joker count ``j``.
    * ``classify_510k(kinds)`` -- the 510K interpretations, from the concrete cards.

``beats(play, standing)``
    B2 verbatim: non-bombs beat only the same type and length with a higher key rank; every bomb
    beats every non-bomb; bombs follow the order 杂510K < 正510K ♦<♣<♥<♠ < n-card bombs (longer,
    then higher rank; jokers irrelevant) < 7喜 < 摇摆 (more cards, then higher top) < 8喜 < 天炸;
    杂510K never beats 杂510K, 正510K never beats the same suit, equal bombs never beat each other.

``legal_actions(hand, standing, called)``
    Brute force: enumerate sub-multisets of the hand, classify each, keep the interpretations that
    beat the standing play (all of them when leading), and turn each into its id(s). Pass is legal
    iff something stands. The "called" flag of an id is True iff the sub-multiset holds at least
    one card of the called kind.

Why the enumeration is exhaustive although it does not list all 2^27 sub-multisets
----------------------------------------------------------------------------------
A sub-multiset with no interpretation contributes nothing, so it suffices to enumerate a superset
of the sub-multisets that admit one. By the definitions in B2, a sub-multiset with an
interpretation is in (at least) one of these families:

1. joker-only: no natural card, 1..4 jokers (single/pair/triple of 3s, 天炸);
2. single-rank: its natural cards all have one rank (single, pair, triple, n-card bomb, 7喜, 8喜);
3. run window: for a per-rank count ``m`` in {2, 3} and a window of ``L >= 2`` consecutive ranks
   inside 3..A, its naturals lie in the window with at most ``m`` per rank, and its jokers number
   exactly ``m*L - naturals`` (a pair run / 飞机 of that window: jokers fill every missing card);
4. 摇摆 window: exactly 4 naturals on each rank of a window of ``L >= 2`` ranks inside 3..A, no
   joker;
5. point cards: at most one card of each of the ranks 5, 10, K and at most one joker (510K).

Families 1-4 are enumerated abstractly, as (natural count per rank, joker count) with every
count bounded by what the hand holds -- every such pair is realised by some sub-multiset and vice
versa -- and classified with ``classify_ranks``, which is exact for every non-510K type because
those types ignore suits. For the called flag of an abstract candidate that takes ``c`` cards of
the called kind's rank (or ``c`` jokers, for a called joker) out of ``t`` held, of which ``h``
are the called kind: some realisation contains the called kind iff ``c >= 1`` and ``h >= 1``,
and some realisation avoids it iff ``c <= t - h``. Both flags are produced when both hold.
Family 5 is enumerated concretely (actual kinds, suits included) and classified with the full
``classify``, so 510K suits, the joker's slot and the called flag are exact there.

Family 3 is enumerated by "deficits": in a window, start from ``min(held, m)`` per rank and
remove cards while the missing cards (= the jokers) stay within ``min(jokers held, 4)``; that is
exactly the set of (naturals in window with at most ``m`` per rank, jokers = missing cards).

Classification is memoised (``functools.lru_cache``) on its exact arguments only.
"""

from __future__ import annotations

import functools
import itertools
from typing import NamedTuple

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, SMALL_JOKER, kind_of, rank_of, suit_of
from cardenv.dagong.catalogue import ACTIONS, action_id

# --- vocabulary (the catalogue's type strings and rank indices) -----------------------------------

SINGLE, PAIR, TRIPLE = "single", "pair", "triple"
PAIR_RUN, TRIPLE_RUN = "pair_run", "triple_run"
BOMB, XI7, XI8, K510, TIANZHA, YAOBAI = "bomb", "7xi", "8xi", "510k", "tianzha", "yaobai"

RANK_NAMES = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
R3, R5, R10, RK, RA, R2 = 0, 2, 7, 10, 11, 12
POINT_RANKS = (R5, R10, RK)
JOKERS = (SMALL_JOKER, BIG_JOKER)
MAX_JOKERS = 4  # two decks


class Combo(NamedTuple):
    """One interpretation of a multiset of cards (what the catalogue calls a combination)."""

    type: str
    length: int
    key_rank: int | None
    jokers: int
    suit: int | None = None  # 正510K only
    joker_as: int | None = None  # 510K with a joker only

    def __str__(self):
        key = "" if self.key_rank is None else f" key {RANK_NAMES[self.key_rank]}"
        extra = "" if self.suit is None else f" suit {'DCHS'[self.suit]}"
        extra += "" if self.joker_as is None else f" joker as {RANK_NAMES[self.joker_as]}"
        return f"{self.type} {self.length} cards{key} {self.jokers} jokers{extra}"


# --- the classifier -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def classify_ranks(nat: tuple[int, ...], j: int) -> frozenset[Combo]:
    """Non-510K interpretations of ``nat[r]`` natural cards per rank plus ``j`` jokers."""
    assert len(nat) == 13 and 0 <= j <= MAX_JOKERS
    n = sum(nat) + j
    ranks = [r for r in range(13) if nat[r] > 0]
    out: set[Combo] = set()
    if n == 0:
        return frozenset()

    if not ranks:  # jokers alone [D-B1]
        out.add({1: Combo(SINGLE, 1, R3, 1), 2: Combo(PAIR, 2, R3, 2),
                 3: Combo(TRIPLE, 3, R3, 3), 4: Combo(TIANZHA, 4, None, 4)}[j])
        return frozenset(out)

    if len(ranks) == 1:  # one natural rank, jokers stand for more of it
        r = ranks[0]
        if n == 1:
            out.add(Combo(SINGLE, 1, r, j))
        elif n == 2:
            out.add(Combo(PAIR, 2, r, j))
        elif n == 3:
            out.add(Combo(TRIPLE, 3, r, j))  # incl. one natural + two jokers: only a triple
        elif j == 0 and nat[r] == 7:
            out.add(Combo(XI7, 7, r, 0))
        elif j == 0 and nat[r] == 8:
            out.add(Combo(XI8, 8, r, 0))
        else:
            out.add(Combo(BOMB, n, r, j))  # n >= 4: bomb of its total length

    # Runs (连对, 飞机): L >= 2 consecutive ranks within 3..A (never a 2, no wrap), m cards per
    # rank; jokers fill any missing card, even a whole rank. Some natural card is always present
    # here.
    for m, kind in ((2, PAIR_RUN), (3, TRIPLE_RUN)):
        if n % m or n // m < 2 or any(nat[r] > m for r in ranks) or max(ranks) > RA:
            continue
        length = n // m
        for start in range(0, RA - length + 2):
            top = start + length - 1
            if start <= min(ranks) and max(ranks) <= top:
                out.add(Combo(kind, n, top, j))

    # 摇摆: 2+ consecutive ranks within 3..A with exactly 4 natural cards each, no joker.
    if (j == 0 and len(ranks) >= 2 and all(nat[r] == 4 for r in ranks) and max(ranks) <= RA
            and ranks == list(range(ranks[0], ranks[-1] + 1))):
        out.add(Combo(YAOBAI, n, ranks[-1], 0))
    return frozenset(out)


def classify_510k(kinds) -> frozenset[Combo]:
    """510K interpretations of the concrete cards ``kinds``."""
    kinds = list(kinds)
    if len(kinds) != 3:
        return frozenset()
    naturals = [k for k in kinds if k not in JOKERS]
    jokers = 3 - len(naturals)
    if jokers > 1:  # one natural + two jokers make only a triple
        return frozenset()
    nat_ranks = [rank_of(k) for k in naturals]
    if len(set(nat_ranks)) != len(nat_ranks) or not set(nat_ranks) <= set(POINT_RANKS):
        return frozenset()
    joker_as = None
    if jokers:
        (joker_as,) = set(POINT_RANKS) - set(nat_ranks)
    suits = {suit_of(k) for k in naturals}
    if len(suits) == 1:  # 正: all naturals share a suit (the joker completes it)
        return frozenset({Combo(K510, 3, None, jokers, suits.pop(), joker_as)})
    return frozenset({Combo(K510, 3, None, jokers, None, joker_as)})  # 杂


def classify(kinds) -> frozenset[Combo]:
    """Every interpretation the multiset of card kinds ``kinds`` admits (B2, [D-B1])."""
    kinds = [int(k) for k in kinds]
    nat = [0] * 13
    j = 0
    for k in kinds:
        if k in JOKERS:
            j += 1
        else:
            nat[rank_of(k)] += 1
    if j > MAX_JOKERS:
        return frozenset()
    return classify_ranks(tuple(nat), j) | classify_510k(kinds)


# --- the beat relation ----------------------------------------------------------------------------

# Bomb classes, low to high (B2, [D-B2]).
BOMB_CLASSES = ("za510k", "zheng510k", BOMB, XI7, YAOBAI, XI8, TIANZHA)


def bomb_class(c: Combo) -> str | None:
    if c.type == K510:
        return "zheng510k" if c.suit is not None else "za510k"
    return c.type if c.type in BOMB_CLASSES else None


def beats(play: Combo, standing: Combo | None) -> bool:
    """May ``play`` be played on ``standing`` (``None``: leading, anything goes)?"""
    if standing is None:
        return True
    pc, sc = bomb_class(play), bomb_class(standing)
    if pc is None and sc is None:  # non-bombs: same type and length, higher rank
        return (play.type == standing.type and play.length == standing.length
                and play.key_rank > standing.key_rank)
    if sc is None:
        return True  # every bomb beats every non-bomb
    if pc is None:
        return False
    if pc != sc:
        return BOMB_CLASSES.index(pc) > BOMB_CLASSES.index(sc)
    if pc == "za510k":
        return False  # the first 杂510K stands
    if pc == "zheng510k":
        return play.suit > standing.suit  # ♦ < ♣ < ♥ < ♠; same suit does not beat
    if pc == BOMB:  # longer beats shorter, then rank; jokers change nothing
        return (play.length, play.key_rank) > (standing.length, standing.key_rank)
    if pc in (XI7, XI8):
        return play.key_rank > standing.key_rank
    if pc == YAOBAI:  # more cards, then higher top rank
        return (play.length, play.key_rank) > (standing.length, standing.key_rank)
    return False  # 天炸 on 天炸 cannot happen


# --- ids <-> combos -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def combo_id(c: Combo, called: bool) -> int:
    try:
        return action_id(c.type, c.length, c.key_rank, c.jokers, suit=c.suit,
                         joker_as=c.joker_as, called=called)
    except KeyError:
        raise KeyError(f"the catalogue has no action for {c} (called={called})") from None


def combo_of_action(action: int) -> Combo:
    """The structured combination of a play id (translation only)."""
    a = ACTIONS[action]
    return Combo(a.type, a.length, a.key_rank, a.jokers, a.suit, a.joker_as)


# --- enumeration ----------------------------------------------------------------------------------


def _deficit_vectors(caps, budget):
    """All vectors ``c`` with ``0 <= c[i] <= caps[i]`` and ``sum(caps) - sum(c) <= budget``."""
    if not caps:
        yield ()
        return
    first, rest = caps[0], caps[1:]
    for drop in range(0, min(first, budget) + 1):
        for tail in _deficit_vectors(rest, budget - drop):
            yield (first - drop,) + tail


def _abstract_candidates(nat, jokers_held):
    """(nat tuple, jokers) for families 1-4 of the module docstring (with repetitions)."""
    jmax = min(jokers_held, MAX_JOKERS)
    zero = (0,) * 13
    for j in range(1, jmax + 1):  # 1. jokers only
        yield zero, j
    for r in range(13):  # 2. one natural rank
        for c in range(1, nat[r] + 1):
            vec = zero[:r] + (c,) + zero[r + 1:]
            for j in range(0, jmax + 1):
                yield vec, j
    for m in (2, 3):  # 3. run windows
        caps_all = [min(x, m) for x in nat]
        for length in range(2, RA + 2):
            for start in range(0, RA - length + 2):
                caps = caps_all[start:start + length]
                missing = m * length - sum(caps)
                if missing > jmax:
                    continue
                for window in _deficit_vectors(caps, jmax - missing):
                    j = m * length - sum(window)
                    yield zero[:start] + window + zero[start + length:], j
    for length in range(2, RA + 2):  # 4. 摇摆 windows
        for start in range(0, RA - length + 2):
            if all(nat[r] >= 4 for r in range(start, start + length)):
                yield zero[:start] + (4,) * length + zero[start + length:], 0


def _point_candidates(hand):
    """Concrete sub-multisets for family 5: <= one card each of 5, 10, K, <= one joker."""
    slots = [[None] + [kind_of(r, s) for s in range(4) if hand[kind_of(r, s)] > 0]
             for r in POINT_RANKS]
    slots.append([None] + [k for k in JOKERS if hand[k] > 0])
    for pick in itertools.product(*slots):
        kinds = [k for k in pick if k is not None]
        if kinds:
            yield kinds


def _called_flags(vec, j, hand, nat, jokers_held, called):
    """Which called flags some realisation of the abstract candidate (vec, j) can have."""
    if called in JOKERS:
        used, total = j, jokers_held
    else:
        used, total = vec[rank_of(called)], nat[rank_of(called)]
    held = hand[called]
    flags = []
    if used >= 1 and held >= 1:
        flags.append(True)
    if used <= total - held:
        flags.append(False)
    return flags


def legal_actions(hand_counts, standing: int, called: int) -> set[int]:
    """The set of legal action ids in the play phase.

    Args:
        hand_counts: length-54 copy counts.
        standing: id of the play to beat, or -1 when leading.
        called: kind of the called card.
    """
    hand = [int(x) for x in hand_counts]
    assert len(hand) == NUM_KINDS and 0 <= called < NUM_KINDS
    nat = tuple(sum(hand[kind_of(r, s)] for s in range(4)) for r in range(13))
    jokers_held = hand[SMALL_JOKER] + hand[BIG_JOKER]
    standing_combo = None if standing < 0 else combo_of_action(standing)
    out: set[int] = set() if standing_combo is None else {0}  # pass iff something stands

    seen = set()
    for vec, j in _abstract_candidates(nat, jokers_held):
        if (vec, j) in seen:
            continue
        seen.add((vec, j))
        combos = [c for c in classify_ranks(vec, j) if beats(c, standing_combo)]
        if not combos:
            continue
        flags = _called_flags(vec, j, hand, nat, jokers_held, called)
        for c in combos:
            for f in flags:
                out.add(combo_id(c, f))

    for kinds in _point_candidates(hand):
        for c in classify(kinds):
            if beats(c, standing_combo):
                out.add(combo_id(c, called in kinds))
    return out


# --- a small text notation for table-driven tests -------------------------------------------------

_RANK_INDEX = {name: i for i, name in enumerate(RANK_NAMES)}
_SUIT_INDEX = {"D": 0, "C": 1, "H": 2, "S": 3}
_COPY_SUITS = (0, 1, 2, 3, 0, 1, 2, 3)  # n copies of a rank: ♦♣♥♠, then a second deck


def parse_hand(text: str) -> list[int]:
    """Card kinds from ``"5S 10H KD SJ BJ"``; ``"9*7"`` is seven 9s (suits ♦♣♥♠♦♣♥)."""
    kinds = []
    for tok in text.split():
        if tok in ("SJ", "BJ"):
            kinds.append(SMALL_JOKER if tok == "SJ" else BIG_JOKER)
        elif "*" in tok:
            rank, n = tok.split("*")
            kinds += [kind_of(_RANK_INDEX[rank], _COPY_SUITS[i]) for i in range(int(n))]
        else:
            kinds.append(kind_of(_RANK_INDEX[tok[:-1]], _SUIT_INDEX[tok[-1]]))
    return kinds


def parse_action(desc: str) -> int:
    """Action id from a short description, e.g.::

        single 7 | single 3 j1 | pair 8 j1 | triple 9 j2 | bomb 5x6 j1 | 7xi 9 | 8xi 9 | tianzha
        510k S | 510k S j=K | 510k za | 510k za j=10 | pair_run 3-5 j1 | triple_run 7-8 | yaobai 6-7

    ``jN``: N jokers; ``j=R``: a 510K's joker stands for rank R; a trailing ``+called``: the
    variant that plays the called card.
    """
    toks = desc.split()
    called = "+called" in toks
    toks = [t for t in toks if t != "+called"]
    kind, args = toks[0], toks[1:]
    jokers = 0
    for t in args:
        if t[0] == "j" and t[1:].isdigit():
            jokers = int(t[1:])
    if kind in (SINGLE, PAIR, TRIPLE):
        c = Combo(kind, {SINGLE: 1, PAIR: 2, TRIPLE: 3}[kind], _RANK_INDEX[args[0]], jokers)
    elif kind == BOMB:
        n, r = args[0].split("x")
        c = Combo(BOMB, int(n), _RANK_INDEX[r], jokers)
    elif kind in (XI7, XI8):
        c = Combo(kind, 7 if kind == XI7 else 8, _RANK_INDEX[args[0]], 0)
    elif kind == TIANZHA:
        c = Combo(TIANZHA, 4, None, 4)
    elif kind == K510:
        suit = None if args[0] == "za" else _SUIT_INDEX[args[0]]
        joker_as = next((_RANK_INDEX[t[2:]] for t in args if t.startswith("j=")), None)
        c = Combo(K510, 3, None, int(joker_as is not None), suit, joker_as)
    elif kind in (PAIR_RUN, TRIPLE_RUN, YAOBAI):
        lo, hi = (_RANK_INDEX[x] for x in args[0].split("-"))
        per = {PAIR_RUN: 2, TRIPLE_RUN: 3, YAOBAI: 4}[kind]
        c = Combo(kind, per * (hi - lo + 1), hi, jokers)
    else:
        raise ValueError(f"cannot read action {desc!r}")
    return combo_id(c, called)


def absent_kind(kinds) -> int:
    """A card kind not among ``kinds`` (a called card the hand does not hold)."""
    return next(k for k in range(NUM_KINDS) if k not in kinds)


def table_case(hand: str, standing: str | None, called: str | None, action: str):
    """(hand counts, standing id or -1, called kind, action id) of one table row."""
    kinds = parse_hand(hand)
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    called_kind = absent_kind(kinds) if called is None else parse_hand(called)[0]
    standing_id = -1 if standing is None else parse_action(standing)
    return counts, standing_id, called_kind, parse_action(action)
