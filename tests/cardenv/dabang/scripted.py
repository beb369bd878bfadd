"""Helpers for scripted Dabang scenarios: fixed decks and drivers through the phases of a hand.

Decks. ``build_deck`` takes the cards each seat receives (in the order it receives them) and the
kitty, fills whatever is left unspecified deterministically with the remaining cards, and
interleaves the four hands into deal order: ``deck[i]`` goes to seat ``(first_seat + i) % 4`` for
``i < 208`` and ``deck[208:216]`` is the kitty (this is how ``DabangGame.new_state(deck=...)``
deals).

Drivers. ``run_declare`` answers every declaration decision from a script (PASS otherwise) and
logs each decision point; ``bury`` / ``finish_kitty`` / ``to_play`` take a state through the
burial and 扣王; ``play_out`` plays a hand to its end with a policy; ``census`` counts where every
one of the 216 cards is.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from cardenv.core.cards import BIG_JOKER, KIND_POINTS, NUM_KINDS, NUM_NATURAL, SMALL_JOKER, \
    parse_cards
from cardenv.dabang import catalogue as cat
from cardenv.dabang.game import DEALT, DabangGame

PASS = cat.PASS
GRAB = cat.GRAB
SJ, BJ = SMALL_JOKER, BIG_JOKER
SUITS = {"♦": 0, "♣": 1, "♥": 2, "♠": 3}
D, C, H, S = 0, 1, 2, 3
ALL_KINDS = [k for k in range(NUM_KINDS) for _ in range(4)]


def cards(spec) -> list[int]:
    """Card kinds from ``None``, a ``parse_cards`` string, an int or a list of ints/strings."""
    if spec is None:
        return []
    if isinstance(spec, str):
        return parse_cards(spec)
    if isinstance(spec, (int, np.integer)):
        return [int(spec)]
    out = []
    for x in spec:
        out += cards(x)
    return out


def card(text: str) -> int:
    (kind,) = parse_cards(text)
    return kind


def kind(rank: str, suit: int) -> int:
    """Kind of face ``rank`` ("3".."A", "2") and suit 0..3."""
    return card(rank + "♦♣♥♠"[suit])


def points(kinds) -> int:
    return int(sum(int(KIND_POINTS[k]) for k in kinds))


def build_deck(hands=(None, None, None, None), kitty=None, *, first_seat: int = 0,
               tail=(None, None, None, None)) -> list[int]:
    """A 216-card deck in deal order.

    ``hands[s]``: the first cards seat ``s`` receives, in order; ``tail[s]``: the last cards it
    receives, in order; ``kitty``: the first kitty cards (deck[208:]), in order. The rest is
    filled deterministically from the unused cards: the kitty first with the lowest non-joker
    kinds, then the hands round-robin (seat 0, 1, 2, 3, 0, ...) in ascending kind order, between
    each hand's head and tail.
    """
    heads = [cards(h) for h in hands] + [[] for _ in range(4 - len(hands))]
    tails = [cards(t) for t in tail] + [[] for _ in range(4 - len(tail))]
    kit = cards(kitty)
    pool = Counter(ALL_KINDS)
    for group in (*heads, *tails, kit):
        for k in group:
            pool[k] -= 1
            if pool[k] < 0:
                raise ValueError(f"card kind {k} used more than four times")
    for s in range(4):
        if len(heads[s]) + len(tails[s]) > 52:
            raise ValueError(f"seat {s} given more than 52 cards")
    if len(kit) > 8:
        raise ValueError("kitty given more than 8 cards")
    rest = sorted(pool.elements())
    naturals = [k for k in rest if k < NUM_NATURAL]
    for k in naturals[:8 - len(kit)]:
        kit.append(k)
        pool[k] -= 1
    rest = sorted(pool.elements())
    fills = [[] for _ in range(4)]
    need = [52 - len(heads[s]) - len(tails[s]) for s in range(4)]
    seat = 0
    for k in rest:
        while need[seat] == 0:
            seat = (seat + 1) % 4
        fills[seat].append(k)
        need[seat] -= 1
        seat = (seat + 1) % 4
    deck = [0] * 216
    for s in range(4):
        seq = heads[s] + fills[s] + tails[s]
        assert len(seq) == 52
        offset = (s - first_seat) % 4
        for j, k in enumerate(seq):
            deck[4 * j + offset] = k
    deck[DEALT:] = kit
    assert sorted(deck) == ALL_KINDS
    return deck


def position(seat: int, j: int, first_seat: int = 0) -> int:
    """Deck index of the ``j``-th card (0-based) seat ``seat`` receives."""
    return 4 * j + (seat - first_seat) % 4


def new_state(deck=None, *, seed: int = 0, first_seat: int | None = None, **options):
    """``DabangGame(**options).new_state(seed, deck=deck, first_seat=...)``.

    In a later hand (``dealer=`` given) the first seat is the dealer."""
    game = DabangGame(**options)
    if first_seat is None and options.get("dealer") is not None:
        first_seat = options["dealer"]
    if first_seat is None and deck is not None:
        first_seat = 0
    return game.new_state(seed, deck=deck, first_seat=first_seat)


@dataclass
class Decision:
    seat: int
    phase: str
    reason: str | None
    legal: list
    action: int
    deal_pos: int
    hand_sizes: list
    kitty_shown: int


def run_declare(state, script=(), *, strict: bool = True) -> list[Decision]:
    """Answer declaration decisions until the declare phase ends.

    ``script``: ``(seat, action)`` pairs used in order, each when that seat is next asked;
    every other decision is PASS. With ``strict``, a scripted action that is not legal when
    its seat is asked raises, and so does an unused script.
    """
    script = list(script)
    log = []
    while state.phase == "declare":
        seat = state.current
        legal = state.legal_actions()
        action = PASS
        if script and script[0][0] == seat:
            want = script[0][1]
            if want in legal:
                action = want
                script.pop(0)
            elif strict:
                raise AssertionError(f"scripted action {want} ({cat.ACTIONS[want].text}) not "
                                     f"legal for seat {seat}: {legal}")
        log.append(Decision(seat, state.phase, state.deal.ask_reason, legal, action, state.deal.pos,
                            [int(x) for x in state.hands.sum(axis=1)],
                            int(state.v["kitty_shown"][0])))
        state.apply(action)
    if strict and script:
        raise AssertionError(f"script not used up: {script}")
    return log


def bury(state, kinds) -> None:
    """The dealer buries ``kinds`` (card kinds or a string), one decision per card."""
    for k in cards(kinds):
        assert state.phase == "bury", state.phase
        state.apply(cat.bury(k))


def bury_lowest(state) -> None:
    """Bury the lowest legal kinds (default burial)."""
    while state.phase == "bury":
        state.apply(state.legal_actions()[0])


def finish_kitty(state, koujoker=None, takes=None) -> list[Decision]:
    """Run 扣王 / take-back: ``koujoker[seat]`` = how many jokers it buries (default 0);
    ``takes``: kinds chosen, in order, at take-back choices (default: the first legal)."""
    koujoker = dict(koujoker or {})
    takes = list(cards(takes)) if takes is not None else []
    log = []
    while state.phase in ("koujoker", "takeback"):
        seat, legal = state.current, state.legal_actions()
        if state.phase == "koujoker":
            action = PASS
            if koujoker.get(seat, 0) > 0:
                action = [a for a in legal if a != PASS][0]
                koujoker[seat] -= 1
        else:
            action = cat.take(takes.pop(0)) if takes else legal[0]
        log.append(Decision(seat, state.phase, None, legal, action, state.deal.pos,
                            [int(x) for x in state.hands.sum(axis=1)],
                            int(state.v["kitty_shown"][0])))
        state.apply(action)
    return log


def to_play(state, script=(), burial=None) -> None:
    """Declare by ``script`` (others pass), bury ``burial`` (default: lowest), no 扣王."""
    run_declare(state, script)
    if state.phase == "bury":
        if burial is None:
            bury_lowest(state)
        else:
            bury(state, burial)
    finish_kitty(state)
    assert state.phase == "play", state.phase


def first_legal(state) -> int:
    return state.legal_actions()[0]


def play_out(state, policy=first_legal, max_steps: int = 5000):
    """Apply ``policy`` until the current hand ends (a new result) or the episode is over."""
    hands_done = len(state.results)
    for _ in range(max_steps):
        if state.is_over or len(state.results) > hands_done:
            return state
        state.apply(policy(state))
    raise AssertionError("hand did not end")


def play(state, seat: int, kinds) -> None:
    """Seat ``seat`` plays ``kinds`` (a lead: identical cards; a follow: built group by group)."""
    assert state.phase == "play" and state.current == seat, (state.phase, state.current, seat)
    groups = Counter(cards(kinds))
    for k, c in groups.items():
        state.apply(cat.play(k, c))


def census(state) -> np.ndarray:
    """Copies of each kind in hands + played + kitty (+ undealt cards during the deal)."""
    v = state.v
    total = v["hand"].sum(axis=0).astype(int) + v["played"].sum(axis=0).astype(int)
    total = total + np.bincount(state.kitty.cards, minlength=NUM_KINDS)
    # during the deal, the cards not dealt yet
    total = total + np.bincount(state.deal.deck[state.deal.pos:DEALT], minlength=NUM_KINDS)
    return total


def counts(kinds) -> np.ndarray:
    return np.bincount(cards(kinds), minlength=NUM_KINDS)


def later_hand_deck(level: int, hands=(None, None, None, None), kitty=None, *,
                    first_seat: int = 0, tail=(None, None, None, None),
                    spread=(2, 3), sink: int | None = None) -> list[int]:
    """A deck for a later hand at ``level`` where only the given cards can make declarations.

    The level cards and jokers not placed in ``hands`` / ``tail`` / ``kitty`` go, one copy per
    level-card kind and at most three per joker kind, to the seats in ``spread`` (at the end of
    their heads), then the level cards still left to seat ``sink`` if given, and whatever is
    still left into the kitty (``ValueError`` if it overflows).
    The rest is filled as ``build_deck`` does (with no level card and no joker).
    """
    heads = [cards(h) for h in hands] + [[] for _ in range(4 - len(hands))]
    tails = [cards(t) for t in tail] + [[] for _ in range(4 - len(tail))]
    kit = cards(kitty)
    lr = level - 3
    special = [lr * 4 + s for s in range(4)] + [SJ, BJ]
    used = Counter(k for group in (*heads, *tails, kit) for k in group)
    for k in special:
        for _ in range(4 - used[k]):
            for seat in spread:
                have = sum(1 for x in heads[seat] + tails[seat] if x == k)
                if have < (3 if k >= NUM_NATURAL else 1):
                    heads[seat].append(k)
                    break
            else:
                if sink is not None and k < NUM_NATURAL:
                    heads[sink].append(k)
                else:
                    kit.append(k)
    if len(kit) > 8:
        raise ValueError("level cards and jokers overflow the kitty")
    return build_deck(heads, kit, first_seat=first_seat, tail=tails)


def initial_hands(deck, first_seat: int = 0) -> np.ndarray:
    """``(4, 54)`` counts each seat is dealt from ``deck``."""
    out = np.zeros((4, NUM_KINDS), dtype=int)
    for i in range(DEALT):
        out[(first_seat + i) % 4, deck[i]] += 1
    return out
