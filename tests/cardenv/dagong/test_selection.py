"""The documented rule for which physical cards an action takes (selection.py)."""

import pytest

from cardenv.core.cards import cards_str, counts_of, parse_cards
from cardenv.dagong import catalogue as cat
from cardenv.dagong.selection import select_cards
from tests.cardenv.dagong.util import act

# (rule, hand, called card, action, cards expected)
CASES = [
    ("rule 3: extra jokers keep the highest ranks back",
     "♠3 ♥3 ♦4 ♣4 ♠5 ♥5 SJ BJ", "♣3", act("pair_run", "5", 6, 2), "♠3 ♥3 ♦4 ♣4 SJ BJ"),
    ("rule 1+3: the called card is kept back, then the highest ranks",
     "♠3 ♥3 ♦4 ♣4 ♠5 ♥5 SJ BJ", "♦4", act("pair_run", "5", 6, 2), "♠3 ♥3 ♣4 ♥5 SJ BJ"),
    ("rule 3: a 5/10/K completing a natural 正510K is kept back before a higher card",
     "♠5 ♠10 ♠K ♥5 ♥6 ♥6 SJ", "♣3", act("pair_run", "6", 4, 1), "♥5 ♥6 ♥6 SJ"),
    ("rule 4: within a rank, the copy outside a 正510K set goes first",
     "♠5 ♥5 ♠10 ♠K", "♠10", act("single", "5"), "♥5"),
    ("rule 4: suits in the order ♦♣♥♠", "♠9 ♥9 ♦9", "♠9", act("pair", "9"), None),
    ("rule 1: keep the called card back", "♠9 ♥9 ♦9", "♥9", act("pair", "9"), "♦9 ♠9"),
    ("rule 1: play exactly one called card", "♠9 ♥9 ♦9", "♥9", act("pair", "9", called=True),
     "♥9 ♦9"),
    ("rule 2: small joker before big joker", "♠9 SJ BJ", "♥3", act("pair", "9", jokers=1),
     "SJ ♠9"),
    ("rule 1+2: a called joker is played by the called variant", "♠9 SJ BJ", "BJ",
     act("pair", "9", jokers=1, called=True), "BJ ♠9"),
    ("rule 5: 杂510K leaves a 正510K set whole", "♠5 ♠10 ♠K ♥5 ♦10 ♣K", "♥3",
     cat.action_id("510k", 3, None, 0), "♥5 ♦10 ♣K"),
    ("rule 1: a dealer holding both called cards plays the second only if needed",
     "♠9 ♠9 ♥9", "♠9", act("pair", "9", called=True), "♠9 ♥9"),
    ("rule 1: ...and when needed", "♠9 ♠9", "♠9", act("pair", "9", called=True), "♠9 ♠9"),
]


@pytest.mark.parametrize("rule, hand, called, action, expected", CASES, ids=[c[0] for c in CASES])
def test_selection_rule(rule, hand, called, action, expected):
    counts = counts_of(parse_cards(hand)).tolist()
    chosen = select_cards(counts, action, parse_cards(called)[0])
    assert len(chosen) == cat.ACTIONS[action].length
    remaining = list(counts)
    for k in chosen:
        remaining[k] -= 1
    assert min(remaining) >= 0
    if expected is not None:
        assert sorted(chosen) == sorted(parse_cards(expected)), (rule, cards_str(chosen))


def test_impossible_selection_raises():
    counts = counts_of(parse_cards("♠9")).tolist()
    with pytest.raises(ValueError):
        select_cards(counts, act("pair", "9"), parse_cards("♥3")[0])


def test_one_rank_shortcut_takes_what_the_general_rule_takes():
    """selection._take_one_rank (one rank, nothing protected) against _take_naturals on random
    hands, caps, counts, cards already taken and last-resort kinds: the same cards in the same
    order, or the same error."""
    import random

    from cardenv.dagong.selection import _take_naturals, _take_one_rank

    rng = random.Random(0)
    outcomes = set()
    for _ in range(20_000):
        avail = [rng.choice((0, 0, 1, 2)) for _ in range(54)]
        rank = rng.randrange(13)
        cap, total = rng.randint(1, 8), rng.randint(1, 8)
        taken = rng.choice([[], [4 * rank + rng.randrange(4)], [52], [rng.randrange(52)]])
        last = rng.choice([None, 4 * rank + rng.randrange(4), rng.randrange(54)])
        results = []
        for take in (lambda t: _take_naturals(avail, None, (rank,), cap, total, t, last),
                     lambda t: _take_one_rank(avail, rank, cap, total, t, last)):
            got = list(taken)
            try:
                take(got)
                results.append(got)
            except ValueError:
                results.append("error")
        assert results[0] == results[1], (avail[4 * rank:4 * rank + 4], rank, cap, total,
                                          taken, last)
        outcomes.add(results[0] == "error")
    assert outcomes == {True, False}
