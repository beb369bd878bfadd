"""Card encoding shared by both games.

A *card kind* is an integer 0..53. Natural cards are ``kind = rank * 4 + suit`` with

- rank 0..12 for the faces ``3 4 5 6 7 8 9 10 J Q K A 2`` (the Dagong order; Dabang computes its
  own strengths from the trump suit and level, so the face index is only a name there),
- suit 0..3 for diamonds, clubs, hearts, spades (``♦ ♣ ♥ ♠``), ascending in the Dagong 510K order;

and ``52`` is the small joker (SJ), ``53`` the big joker (BJ). A hand is a length-54 vector of
copy counts. Several decks are simply several copies of each kind.

Text: ``card_str`` writes ``♠10``, ``♥K``, ``SJ``, ``BJ``. ``parse_cards`` reads those and also
rank-first ASCII such as ``10S KH 5D JS`` (jack of spades) with ``SJ``/``BJ`` for the jokers.
"""

from __future__ import annotations

import numpy as np

NUM_RANKS = 13
NUM_SUITS = 4
NUM_NATURAL = NUM_RANKS * NUM_SUITS
SMALL_JOKER = 52
BIG_JOKER = 53
NUM_KINDS = 54

RANK_NAMES = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUIT_SYMBOLS = ("♦", "♣", "♥", "♠")
SUIT_LETTERS = ("D", "C", "H", "S")

# Point cards, shared by both games: 5 = 5 points, 10 = 10, K = 10.
RANK_POINTS = np.zeros(NUM_RANKS, dtype=np.int64)
RANK_POINTS[RANK_NAMES.index("5")] = 5
RANK_POINTS[RANK_NAMES.index("10")] = 10
RANK_POINTS[RANK_NAMES.index("K")] = 10
KIND_POINTS = np.concatenate([np.repeat(RANK_POINTS, NUM_SUITS), [0, 0]])

_RANK_OF = {name: i for i, name in enumerate(RANK_NAMES)}


def rank_of(kind: int) -> int:
    """Face index 0..12 of a natural card kind (undefined for jokers)."""
    return kind // NUM_SUITS


def suit_of(kind: int) -> int:
    """Suit index 0..3 of a natural card kind (undefined for jokers)."""
    return kind % NUM_SUITS


def kind_of(rank: int, suit: int) -> int:
    return rank * NUM_SUITS + suit


def card_str(kind: int) -> str:
    """``♠10``, ``♥K``, ``SJ`` or ``BJ``."""
    if kind == SMALL_JOKER:
        return "SJ"
    if kind == BIG_JOKER:
        return "BJ"
    if not 0 <= kind < NUM_NATURAL:
        raise ValueError(f"card kind must be in 0..53, got {kind!r}")
    return SUIT_SYMBOLS[suit_of(kind)] + RANK_NAMES[rank_of(kind)]


def _parse_one(token: str) -> int:
    if token.upper() in ("SJ", "BJ"):
        return SMALL_JOKER if token.upper() == "SJ" else BIG_JOKER
    if token.isascii():
        token = token.upper()
    for symbols in (SUIT_SYMBOLS, SUIT_LETTERS):
        if token[0] in symbols and token[1:].upper() in _RANK_OF:  # suit first: ♠10, S10
            return kind_of(_RANK_OF[token[1:].upper()], symbols.index(token[0]))
        if token[-1] in symbols and token[:-1].upper() in _RANK_OF:  # rank first: 10♠, 10S
            return kind_of(_RANK_OF[token[:-1].upper()], symbols.index(token[-1]))
    raise ValueError(f"cannot read card {token!r}: expected e.g. '♠10', '10S', 'KH', 'SJ', 'BJ'")


def parse_cards(text: str) -> list[int]:
    """Card kinds from a space-separated string such as ``"♠10 ♥K SJ"`` or ``"10S KH SJ"``.

    ``SJ`` and ``BJ`` are always the jokers; write the jack of spades ``JS`` or ``♠J``.
    """
    return [_parse_one(tok) for tok in text.split()]


def counts_of(kinds) -> np.ndarray:
    """Length-54 copy-count vector of a list of kinds."""
    kinds = np.asarray(list(kinds), dtype=np.int64)
    return np.bincount(kinds, minlength=NUM_KINDS).astype(np.int64)


def kinds_of(counts) -> list[int]:
    """The kinds of a count vector, each repeated by its count, ascending."""
    counts = np.asarray(counts)
    return [k for k in range(NUM_KINDS) for _ in range(int(counts[k]))]


def cards_str(kinds, *, sort_key=None) -> str:
    """Readable list of cards from a list of kinds, optionally sorted."""
    kinds = [int(k) for k in kinds]
    if sort_key is not None:
        kinds = sorted(kinds, key=sort_key)
    return " ".join(card_str(k) for k in kinds)


def hand_str(counts, *, sort_key=None) -> str:
    """Readable list of cards from a length-54 count vector."""
    return cards_str(kinds_of(counts), sort_key=sort_key)
