"""The Dabang action catalogue: one fixed ``Discrete(404)`` space for every decision of a hand.

=========  ======  ===========================================================================
ids        count   meaning
=========  ======  ===========================================================================
0          1       pass: decline to declare, or stop burying jokers (扣王)
1          1       grab the trump with a big joker (抢亮大王, first hand of a match only)
2..17      16      declare suit s with n identical level cards: ``2 + 4*s + (n-1)``
18..21     4       declare suit s with the four small jokers
22..25     4       declare suit s with the four big jokers
26..79     54      bury a card of kind k (the dealer's burial, and 扣王 with k = SJ / BJ)
80..133    54      take back a card of kind k from the kitty (a choice between equal cards)
134..349   216     play c identical cards of kind k: ``134 + 4*k + (c-1)``, c = 1..4
350..403   54      give a card of kind k back to the tributer (option ``tribute_return``)
=========  ======  ===========================================================================

Plays: a lead is one action (c = 1..4 identical cards: single, 棒, 滚子, 四联). A follow of k
cards is built in steps, one per group of identical cards: each step adds ``c`` copies of one
kind not used yet in this follow, and the follow is complete when it holds k cards. The mask at
every step allows exactly the steps that can still end in a legal follow (``follow.py``).

Card kinds are ``core.cards`` kinds (rank * 4 + suit, 52 = SJ, 53 = BJ). ``ACTIONS[a]``
describes action ``a``; ``.text`` is a human string ("pair ♠9", "declare ♥ with 2 level
cards", "bury BJ").
"""

from __future__ import annotations

from dataclasses import dataclass

from cardenv.core.cards import NUM_KINDS, SUIT_SYMBOLS, card_str

PASS = 0
GRAB = 1
DECLARE_LEVEL = 2
DECLARE_SJ4 = 18
DECLARE_BJ4 = 22
BURY = 26
TAKE = 80
PLAY = 134
RETURN = PLAY + 4 * NUM_KINDS
NUM_ACTIONS = RETURN + NUM_KINDS
assert NUM_ACTIONS == 404

COUNT_NAMES = {1: "single", 2: "pair", 3: "triple", 4: "quad"}


@dataclass(frozen=True)
class ActionInfo:
    """Structured description of one action id.

    Attributes:
        id: the action id.
        type: ``"pass"``, ``"grab"``, ``"declare"``, ``"bury"``, ``"take"``, ``"play"`` or
            ``"return"``.
        kind: the card kind buried, taken, played or returned (``None`` otherwise).
        count: cards played (plays), level cards or jokers shown (declarations), else 0.
        suit: the suit declared (declarations except the grab), else ``None``.
        with_: what a declaration shows: ``"level"``, ``"small_jokers"``, ``"big_jokers"``,
            ``"big_joker"`` (the grab); ``None`` otherwise.
        text: human-readable string.
    """

    id: int
    type: str
    kind: int | None
    count: int
    suit: int | None
    with_: str | None
    text: str


def _build() -> list[ActionInfo]:
    acts = [ActionInfo(PASS, "pass", None, 0, None, None, "pass"),
            ActionInfo(GRAB, "grab", None, 1, None, "big_joker",
                       "grab the trump with a big joker")]
    for s in range(4):
        for n in range(1, 5):
            acts.append(ActionInfo(len(acts), "declare", None, n, s, "level",
                                   f"declare {SUIT_SYMBOLS[s]} with {n} level card"
                                   + ("s" if n > 1 else "")))
    for base, name, word in ((DECLARE_SJ4, "small_jokers", "small"),
                             (DECLARE_BJ4, "big_jokers", "big")):
        assert len(acts) == base
        for s in range(4):
            acts.append(ActionInfo(len(acts), "declare", None, 4, s, name,
                                   f"declare {SUIT_SYMBOLS[s]} with 4 {word} jokers"))
    assert len(acts) == BURY
    acts += [ActionInfo(BURY + k, "bury", k, 1, None, None, f"bury {card_str(k)}")
             for k in range(NUM_KINDS)]
    acts += [ActionInfo(TAKE + k, "take", k, 1, None, None, f"take back {card_str(k)}")
             for k in range(NUM_KINDS)]
    for k in range(NUM_KINDS):
        for c in range(1, 5):
            acts.append(ActionInfo(len(acts), "play", k, c, None, None,
                                   f"{COUNT_NAMES[c]} {card_str(k)}"))
    acts += [ActionInfo(RETURN + k, "return", k, 1, None, None, f"return {card_str(k)}")
             for k in range(NUM_KINDS)]
    return acts


ACTIONS: list[ActionInfo] = _build()
assert len(ACTIONS) == NUM_ACTIONS


def declare_level(suit: int, n: int) -> int:
    return DECLARE_LEVEL + 4 * suit + (n - 1)


def play(kind: int, count: int) -> int:
    return PLAY + 4 * kind + (count - 1)


def bury(kind: int) -> int:
    return BURY + kind


def take(kind: int) -> int:
    return TAKE + kind


def give_back(kind: int) -> int:
    return RETURN + kind
