"""The Dagong action catalogue: the fixed ``Discrete(N)`` action space, built in code.

An action names *what* is played, not which physical cards: a combination type, the ranks it
covers and how many jokers it uses (plus the suit and the joker's place for a 510K). The
natural cards it consumes follow from the hand (see ``selection.py``). Every play exists twice:
once keeping every card of the called kind back and once playing the called card
(``called=True``: one copy, a second only when a dealer holding both needs it for that play), so
the hidden partner chooses when to reveal itself (明鸡).

Layout (``N = 3 + 2 * M``, ``M = NUM_COMBOS`` = 1208, so ``N = 2419``):

=========================  =======================================================================
ids                        meaning
=========================  =======================================================================
0                          pass (only when following a standing play)
1, 2                       硬牌 decision: decline / declare going solo
3 .. 3+M-1                 the M combinations, keeping the called card back
3+M .. 3+2M-1              the same M combinations, playing the called card
=========================  =======================================================================

The M combinations, in order (blocks are regular so that ``legality.py`` fills them by slices):

==========  =====  ==========================================================================
block       size   combinations
==========  =====  ==========================================================================
single-rank 520    for each rank 3..2: single; pair with 0/1 joker; triple with 0/1/2 jokers;
                   bombs of n = 4..12 cards with j jokers (n - j natural cards, 1..8; j <= 4;
                   n = 7 or 8 with no joker are 7喜 / 8喜) -- 40 per rank
joker-only  3      a lone joker = single 3, two jokers = pair of 3s, three = triple of 3s [D-B1]
天炸        1      the four jokers
510K        20     正510K per suit (♦♣♥♠) x joker replacing (nothing, 5, 10, K); then 杂510K x
                   the same four joker places
pair runs   319    2..12 consecutive pairs within 3..A, by length then start, with 0..4 jokers
                   (two pairs never with 4 jokers: four jokers alone are only 天炸)
triple runs 300    2..9 consecutive triples within 3..A (9 triples = 27 cards, a full hand)
摇摆        45     2..6 consecutive ranks within 3..A, exactly 4 natural cards each (6 x 4 = 24
                   cards; 7 would need 28 cards, more than a hand)
==========  =====  ==========================================================================

Runs longer than a hand can hold are left out, so every action can be legal in some position.

Each id has a structured description (``ACTIONS[id]``, an ``ActionInfo``) and a human string
(``ACTIONS[id].text``); ``action_id(...)`` maps a description back to its id.

Bomb order (B2, [D-B2]) is precomputed once: ``BOMB_STRENGTH[c]`` is 0 for non-bombs and a
positive rank for bombs, and ``BEATS[s, a]`` says whether action ``a`` may be played on the
standing combination ``s`` (row ``M``: leading, nothing standing).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardenv.core.cards import RANK_NAMES, SUIT_SYMBOLS

PASS = 0
SOLO_DECLINE = 1
SOLO_DECLARE = 2
FIRST_PLAY = 3

NUM_JOKERS = 4
HAND_SIZE = 27
RANK_3, RANK_5, RANK_10, RANK_K, RANK_A, RANK_2 = 0, 2, 7, 10, 11, 12
RUN_RANKS = 12  # runs use 3..A; a 2 is never part of a run
POINT_RANKS = (RANK_5, RANK_10, RANK_K)

# Play types. Pure-joker singles/pairs/triples are ordinary singles/pairs/triples of 3s.
SINGLE, PAIR, TRIPLE = "single", "pair", "triple"
PAIR_RUN, TRIPLE_RUN = "pair_run", "triple_run"
BOMB, XI7, XI8, K510, TIANZHA, YAOBAI = "bomb", "7xi", "8xi", "510k", "tianzha", "yaobai"
PLAY_TYPES = (SINGLE, PAIR, TRIPLE, PAIR_RUN, TRIPLE_RUN, BOMB, K510, TIANZHA, XI7, XI8, YAOBAI)
BOMB_TYPES = frozenset({BOMB, XI7, XI8, K510, TIANZHA, YAOBAI})


@dataclass(frozen=True)
class ActionInfo:
    """Public, structured description of one action id.

    Attributes:
        id: the action id.
        type: ``"pass"``, ``"solo_decline"``, ``"solo_declare"`` or one of ``PLAY_TYPES``.
        length: number of cards played (0 for non-plays).
        key_rank: the rank that orders combinations of one type and length (a run's top rank);
            ``None`` for 510K, 天炸 and non-plays. Ranks are face indices 0..12 = 3..2.
        ranks: the ranks the combination covers, ascending (510K: 5, 10, K).
        jokers: jokers used.
        naturals: natural cards used (``length - jokers``).
        per_rank: cards per covered rank (1 single, 2 pair / pair run, 3 triple / triple run,
            n for an n-card bomb, 4 for 摇摆, 1 for 510K).
        suit: suit of a 正510K (0..3 = ♦♣♥♠), else ``None``.
        zheng: ``True`` for 正510K, ``False`` for 杂510K, ``None`` otherwise.
        joker_as: the rank a joker replaces in a 510K, else ``None``.
        called: whether the play includes a card of the called kind.
        is_bomb: whether the combination is a bomb (beats every non-bomb).
        combo: index 0..M-1 of the underlying combination (``None`` for non-plays).
        text: human-readable string.
    """

    id: int
    type: str
    length: int
    key_rank: int | None
    ranks: tuple[int, ...]
    jokers: int
    naturals: int
    per_rank: int
    suit: int | None
    zheng: bool | None
    joker_as: int | None
    called: bool
    is_bomb: bool
    combo: int | None
    text: str


# --- the combinations -------------------------------------------------------------------------

# (type, cards, jokers) for each rank in the single-rank block.
SR_PATTERNS: tuple[tuple[str, int, int], ...] = (
    (SINGLE, 1, 0),
    (PAIR, 2, 0), (PAIR, 2, 1),
    (TRIPLE, 3, 0), (TRIPLE, 3, 1), (TRIPLE, 3, 2),
) + tuple(
    (XI7 if (n, j) == (7, 0) else XI8 if (n, j) == (8, 0) else BOMB, n, j)
    for n in range(4, 13)
    for j in range(0, NUM_JOKERS + 1)
    if 1 <= n - j <= 8 and n > j
)
assert len(SR_PATTERNS) == 40

K510_JOKER_PLACES = (None, RANK_5, RANK_10, RANK_K)


def _windows(lengths):
    return [(start, length) for length in lengths for start in range(RUN_RANKS - length + 1)]


PAIR_RUN_WINDOWS = _windows(range(2, 13))
TRIPLE_RUN_WINDOWS = _windows(range(2, HAND_SIZE // 3 + 1))
YAOBAI_WINDOWS = _windows(range(2, HAND_SIZE // 4 + 1))
NUM_PAIR2_WINDOWS = RUN_RANKS - 1  # two-pair runs: 4 joker counts, the rest 5


@dataclass(frozen=True)
class _Combo:
    type: str
    length: int
    key_rank: int | None
    ranks: tuple[int, ...]
    jokers: int
    per_rank: int
    suit: int | None = None
    zheng: bool | None = None
    joker_as: int | None = None


def _build_combos() -> tuple[list[_Combo], dict[str, slice]]:
    combos: list[_Combo] = []
    blocks: dict[str, slice] = {}

    def block(name, items):
        start = len(combos)
        combos.extend(items)
        blocks[name] = slice(start, len(combos))

    block("single_rank", [
        _Combo(t, n, r, (r,), j, n) for r in range(13) for (t, n, j) in SR_PATTERNS
    ])
    block("joker_only", [_Combo(t, n, RANK_3, (RANK_3,), n, n)
                         for t, n in ((SINGLE, 1), (PAIR, 2), (TRIPLE, 3))])
    block("tianzha", [_Combo(TIANZHA, 4, None, (), 4, 0)])
    block("k510", [
        _Combo(K510, 3, None, POINT_RANKS, int(x is not None), 1, s, True, x)
        for s in range(4) for x in K510_JOKER_PLACES
    ] + [
        _Combo(K510, 3, None, POINT_RANKS, int(x is not None), 1, None, False, x)
        for x in K510_JOKER_PLACES
    ])
    block("pair_run_2", [
        _Combo(PAIR_RUN, 4, s + 1, (s, s + 1), j, 2)
        for (s, length) in PAIR_RUN_WINDOWS[:NUM_PAIR2_WINDOWS] for j in range(4)
    ])
    block("pair_run", [
        _Combo(PAIR_RUN, 2 * length, s + length - 1, tuple(range(s, s + length)), j, 2)
        for (s, length) in PAIR_RUN_WINDOWS[NUM_PAIR2_WINDOWS:] for j in range(5)
    ])
    block("triple_run", [
        _Combo(TRIPLE_RUN, 3 * length, s + length - 1, tuple(range(s, s + length)), j, 3)
        for (s, length) in TRIPLE_RUN_WINDOWS for j in range(5)
    ])
    block("yaobai", [
        _Combo(YAOBAI, 4 * length, s + length - 1, tuple(range(s, s + length)), 0, 4)
        for (s, length) in YAOBAI_WINDOWS
    ])
    return combos, blocks


COMBOS, BLOCKS = _build_combos()
NUM_COMBOS = len(COMBOS)
NUM_ACTIONS = FIRST_PLAY + 2 * NUM_COMBOS
CALLED_OFFSET = FIRST_PLAY + NUM_COMBOS  # id of combo c with the called card = CALLED_OFFSET + c


def _bomb_key(c: _Combo):
    if c.type == K510:
        return (1, c.suit, 0) if c.zheng else (0, 0, 0)
    if c.type == BOMB:
        return (2, c.length, c.key_rank)
    if c.type == XI7:
        return (3, 0, c.key_rank)
    if c.type == YAOBAI:
        return (4, c.length, c.key_rank)
    if c.type == XI8:
        return (5, 0, c.key_rank)
    if c.type == TIANZHA:
        return (6, 0, 0)
    return None


def _bomb_strengths() -> np.ndarray:
    keys = [_bomb_key(c) for c in COMBOS]
    distinct = sorted({k for k in keys if k is not None})
    order = {k: i + 1 for i, k in enumerate(distinct)}
    return np.array([0 if k is None else order[k] for k in keys], dtype=np.int16)


BOMB_STRENGTH = _bomb_strengths()

# --- text ---------------------------------------------------------------------------------------


def _span(ranks):
    return f"{RANK_NAMES[ranks[0]]}-{RANK_NAMES[ranks[-1]]}"


def _joker_note(j):
    return "" if j == 0 else f" with {j} joker" + ("s" if j > 1 else "")


def _combo_text(c: _Combo) -> str:
    r = RANK_NAMES[c.key_rank] if c.key_rank is not None else ""
    if c.type in (SINGLE, PAIR, TRIPLE):
        if c.jokers == c.length:
            return f"{c.type} 3 ({c.jokers} joker{'s' if c.jokers > 1 else ''})"
        return f"{c.type} {r}{_joker_note(c.jokers)}"
    if c.type == BOMB:
        return f"bomb {c.length}x{r}{_joker_note(c.jokers)}"
    if c.type in (XI7, XI8):
        return f"{c.length}喜 {c.length}x{r}"
    if c.type == TIANZHA:
        return "天炸 (4 jokers)"
    if c.type == K510:
        name = f"正510K {SUIT_SYMBOLS[c.suit]}" if c.zheng else "杂510K"
        return name + ("" if c.joker_as is None else f" (joker as {RANK_NAMES[c.joker_as]})")
    if c.type == PAIR_RUN:
        return f"pair run {_span(c.ranks)} ({len(c.ranks)} pairs){_joker_note(c.jokers)}"
    if c.type == TRIPLE_RUN:
        return f"triple run {_span(c.ranks)} ({len(c.ranks)} triples){_joker_note(c.jokers)}"
    if c.type == YAOBAI:
        return f"摇摆 {_span(c.ranks)} ({len(c.ranks)}x4)"
    raise AssertionError(c)


def _build_actions() -> list[ActionInfo]:
    def special(i, t, text):
        return ActionInfo(i, t, 0, None, (), 0, 0, 0, None, None, None, False, False, None, text)

    actions = [
        special(PASS, "pass", "pass"),
        special(SOLO_DECLINE, "solo_decline", "decline 硬牌"),
        special(SOLO_DECLARE, "solo_declare", "declare 硬牌 (go solo)"),
    ]
    for called in (False, True):
        for ci, c in enumerate(COMBOS):
            text = _combo_text(c) + (" incl. called card" if called else "")
            actions.append(ActionInfo(
                id=len(actions), type=c.type, length=c.length, key_rank=c.key_rank,
                ranks=c.ranks, jokers=c.jokers, naturals=c.length - c.jokers,
                per_rank=c.per_rank, suit=c.suit, zheng=c.zheng, joker_as=c.joker_as,
                called=called, is_bomb=c.type in BOMB_TYPES, combo=ci, text=text))
    return actions


ACTIONS: list[ActionInfo] = _build_actions()
assert len(ACTIONS) == NUM_ACTIONS


def _key(type, length, key_rank, jokers, suit, joker_as, called):
    return (type, length, key_rank, jokers, suit, joker_as, called)


_ID_BY_KEY = {
    _key(a.type, a.length, a.key_rank, a.jokers, a.suit, a.joker_as, a.called): a.id
    for a in ACTIONS[FIRST_PLAY:]
}


def action_id(type: str, length: int, key_rank: int | None = None, jokers: int = 0, *,
              suit: int | None = None, joker_as: int | None = None, called: bool = False) -> int:
    """The id of a play described structurally (raises ``KeyError`` if no such action).

    ``key_rank`` is the face index (0..12 = 3..2) of the single rank or of a run's top rank;
    ``None`` for 510K and 天炸. For 510K give ``suit`` (正) or leave it ``None`` (杂).
    """
    key = _key(type, length, key_rank, jokers, suit, joker_as, called)
    if key not in _ID_BY_KEY:
        raise KeyError(f"no Dagong action is a {type} of {length} cards, key rank {key_rank}, "
                       f"{jokers} jokers, suit {suit}, joker_as {joker_as}, called={called}")
    return _ID_BY_KEY[key]


def combo_of(action: int) -> int:
    """Index 0..M-1 of the combination an action plays (-1 for pass and the 硬牌 decisions)."""
    if action < FIRST_PLAY:
        return -1
    return (action - FIRST_PLAY) % NUM_COMBOS


# --- the beat relation ---------------------------------------------------------------------------


def _beats_table() -> np.ndarray:
    """``BEATS[s, a]``: may action ``a`` follow standing combination ``s``? Row M = leading."""
    types = np.array([PLAY_TYPES.index(c.type) for c in COMBOS])
    lengths = np.array([c.length for c in COMBOS])
    keys = np.array([-1 if c.key_rank is None else c.key_rank for c in COMBOS])
    strength = BOMB_STRENGTH.astype(np.int64)
    same_class = (types[:, None] == types[None, :]) & (lengths[:, None] == lengths[None, :])
    plain = (strength[:, None] == 0) & (strength[None, :] == 0) & same_class & (
        keys[None, :] > keys[:, None])
    by_bomb = strength[None, :] > strength[:, None]
    combo_beats = plain | by_bomb  # (standing combo, played combo)
    table = np.zeros((NUM_COMBOS + 1, NUM_ACTIONS), dtype=bool)
    table[:NUM_COMBOS, PASS] = True
    table[:NUM_COMBOS, FIRST_PLAY:CALLED_OFFSET] = combo_beats
    table[:NUM_COMBOS, CALLED_OFFSET:] = combo_beats
    table[NUM_COMBOS, FIRST_PLAY:] = True
    return table


BEATS = _beats_table()
LEAD_ROW = NUM_COMBOS
