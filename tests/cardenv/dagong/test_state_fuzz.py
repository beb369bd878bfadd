"""A saved Dagong state is its recipe, and a recipe is replayed, not trusted: systematic mutations
of ``to_dict()`` output (tests/state_mutations.py).

Saved states of seeded random games (the start, the 硬牌 decisions, mid-trick, a trick won, a
player out, a later hand just dealt, over; four option sets) and of hands dealt by hand
(``state_from_hands``, with later hands) are mutated one change at a time: each key removed or
given a wrong type, the format, each option, the seed, the custom deal's hands, dealer and called
card, history steps dropped, inserted, replaced, swapped, truncated or made non-ints, the results
and the crc. Each mutated recipe must be refused with a one-line ``StateError`` / ``ConfigError``
naming the field or the first illegal step ``history[k]``, or load into exactly the position
that replaying it gives (reachable by play) and round-trip. Any other exception is a failure
naming the mutation.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardenv.core.cards import NUM_KINDS
from cardenv.dagong import DagongGame, DagongState
from tests.cardenv.dagong.util import sample_positions
from tests.sizes import sizes
from tests.state_mutations import WRONG_TYPES, judge, recipe_mutations, set_at

OTHER_OPTIONS = {"hands": [1, 2, 5], "solo_multiplier": [1, 3], "allow_solo": [False, True],
                 "xiqian": [False, True]}
OTHER_FORMAT = "cardenv.dabang.state/4"
CASES = [({}, 11), ({}, 12), ({"hands": 3}, 5), ({"allow_solo": False, "xiqian": False}, 7)]


def custom_states():
    """Hands dealt by hand: a small puzzle of two hands (the second dealt from the seed), and a
    full deal of a seeded game's cards, with some play."""
    puzzle = DagongGame(hands=2, allow_solo=False).state_from_hands(
        ["♠3 ♦4 ♦5 ♥K", "♣6 ♣9 ♣10", "♠3 ♥7 ♥5", "♠8 ♠J ♠Q"], dealer=0, called="♠3", seed=4)
    states = {"custom puzzle": puzzle.clone()}
    rng = np.random.default_rng(4)
    while not puzzle.results:
        legal = puzzle.legal_actions()
        puzzle.apply(legal[rng.integers(len(legal))])
    states["custom puzzle, second hand"] = puzzle
    seeded = DagongGame().new_state(21)
    hands = [np.repeat(np.arange(NUM_KINDS), row).tolist() for row in seeded.hands]
    full = DagongGame(hands=2).state_from_hands(hands, seeded.dealer, seeded.called, seed=3)
    for _ in range(25):
        legal = full.legal_actions()
        full.apply(legal[rng.integers(len(legal))])
    states["custom full deal, mid-hand"] = full
    return states


def base_states():
    states = []
    for options, seed in CASES:
        for name, state in sample_positions(options, seed).items():
            states.append((f"{options} seed {seed} {name}", state))
    states.extend(custom_states().items())
    return states


STATES = base_states()


def deal_mutations(deal, rng):
    """Changes of a custom deal (``state_from_hands``' hands, dealer, called card)."""
    hands = deal["hands"]
    big = max(range(4), key=lambda s: len(hands[s]))
    other = (big + 1) % 4
    card = hands[big][0]
    yield "a card moved to another seat", set_at(set_at(deal, ("hands", big), hands[big][1:]),
                                                 ("hands", other), hands[other] + [card])
    yield "two seats' hands swapped", set_at(set_at(deal, ("hands", 0), hands[1]),
                                              ("hands", 1), hands[0])
    yield "a card dropped", set_at(deal, ("hands", big), hands[big][1:])
    yield "a third copy of a kind", set_at(deal, ("hands", big), hands[big] + [card, card])
    yield "a hand's order reversed", set_at(deal, ("hands", big), hands[big][::-1])
    yield "an empty hand", set_at(deal, ("hands", big), [])
    yield "three hands", set_at(deal, ("hands",), hands[:3])
    yield "a kind 54", set_at(deal, ("hands", big, 0), NUM_KINDS)
    yield "a card string", set_at(deal, ("hands", big, 0), "♠3")
    yield "an unknown key", {**deal, "colour": "red"}
    yield "no dealer", {k: v for k, v in deal.items() if k != "dealer"}
    for dealer in ((deal["dealer"] + 1) % 4, 4, -1):
        yield f"dealer {dealer}", set_at(deal, ("dealer",), dealer)
    held = {k for h in hands for k in h}
    for called in (next(k for k in held if k != deal["called"]), NUM_KINDS, -1):
        yield f"called {called}", set_at(deal, ("called",), called)
    for wrong in WRONG_TYPES:
        yield f"called = {wrong!r}", set_at(deal, ("called",), wrong)
        yield f"hands[0] = {wrong!r}", set_at(deal, ("hands", 0), wrong)
        yield f"dealer = {wrong!r}", set_at(deal, ("dealer",), wrong)


@sizes("every", 8, 1)  # every eighth mutation in the default run, all of them under -m slow
@pytest.mark.parametrize("index", range(len(STATES)), ids=[name for name, _ in STATES])
def test_mutated_recipes_are_refused_or_replay(index, every):
    name, state = STATES[index]
    data = json.loads(json.dumps(state.to_dict()))
    pristine = json.dumps(data)
    assert DagongState.from_dict(data).to_dict() == data  # the unmutated recipe loads
    rng = np.random.default_rng(len(pristine))
    failures, count = [], 0
    for i, m in enumerate(recipe_mutations(data, state, rng, other_options=OTHER_OPTIONS,
                                           other_format=OTHER_FORMAT,
                                           deal_mutations=deal_mutations)):
        if (i + index) % every:
            continue
        count += 1
        problem = judge(DagongState, DagongGame, m, np.random.default_rng(i))
        if problem:
            failures.append(f"{m.what}: {problem}")
    assert json.dumps(data) == pristine, "from_dict changed its input"
    assert count > 100 // every
    assert not failures, f"{len(failures)} of {count} mutations:\n" + "\n".join(failures[:20])
