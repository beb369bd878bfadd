"""A saved Dabang state is its recipe, and a recipe is replayed, not trusted: systematic mutations
of ``to_dict()`` output (tests/state_mutations.py).

Saved states of seeded random games, taken in every phase and situation (declare, return, bury,
koujoker, takeback, a lead, the first lead, a follow being built, right after a hand ended in a
match, over) under five option sets (matches with tribute among them), and of hands dealt from a
given deck and first seat, are mutated one change at a time: each key removed or given a wrong
type, the format, each option, the seed, the custom deck and first seat, history steps dropped,
inserted, replaced, swapped, truncated or made non-ints, the results and the crc. Each mutated
recipe must be refused with a one-line ``StateError`` / ``ConfigError`` naming the field or the
first illegal step ``history[k]``, or load into exactly the position that replaying it gives
(reachable by play) and round-trip. Any other exception is a failure naming the mutation.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardenv.dabang import DabangGame, DabangState
from cardenv.dabang.game import DECK
from tests.cardenv.dabang.positions import KINDS, random_step, sample_positions
from tests.sizes import sizes
from tests.state_mutations import WRONG_TYPES, judge, recipe_mutations, set_at

OTHER_OPTIONS = {"episode": ["match"], "max_hands": [1, 5], "levels": [[4, 6], "random"],
                 "dealer": [0, "random"], "blood": [2, "random"], "bidding": ["after_deal"],
                 "follow": ["live"], "joker_levels": [False], "keep_dealer": ["same"],
                 "four_joker_win": ["big_only"], "deal_value": [0, 1.5],
                 "tribute_return": ["dealer_choice"]}
OTHER_FORMAT = "cardenv.dagong.state/4"
CASES = [
    ({}, range(0, 6)),
    ({"episode": "match", "max_hands": 3}, range(10, 14)),
    ({"dealer": 1, "levels": [5, 7], "blood": 4, "tribute_return": "dealer_choice"},
     range(20, 30)),
    ({"follow": "live"}, range(30, 36)),
    ({"episode": "match", "max_hands": 2, "dealer": "random", "levels": "random",
      "blood": "random"}, range(40, 44)),
]


def custom_states():
    """Hands dealt from a given deck: a first hand from a reversed deck and seat 2, some way in;
    a match whose first hand is dealt from a shuffled deck (the later hands from the seed), in
    its second hand; and a later hand of a match (option dealer) from a given deck."""
    rng = np.random.default_rng(8)
    states = {}
    first = DabangGame().new_state(3, deck=list(DECK[::-1]), first_seat=2)
    for _ in range(40):
        random_step(first, rng)
    states["custom deck, first seat 2"] = first
    deck = rng.permutation(DECK).tolist()
    match = DabangGame(episode="match", max_hands=3).new_state(5, deck=deck)
    while not match.results:
        random_step(match, rng)
    for _ in range(30):
        random_step(match, rng)
    states["custom deck, match in hand 2"] = match
    later = DabangGame(dealer=3, levels=[6, 4], blood=2).new_state(9, deck=deck[::-1])
    for _ in range(70):
        random_step(later, rng)
    states["custom deck, later hand with tribute"] = later
    return states


def base_states():
    states = []
    for options, seeds in CASES:
        for kind, state in sample_positions(options, seeds).items():
            states.append((f"{options} {kind}", state))
    states.extend(custom_states().items())
    return states


STATES = base_states()


def deal_mutations(deal, rng):
    """Changes of a custom deal (``new_state``'s deck and first seat)."""
    deck, seat = deal["deck"], deal["first_seat"]
    if deck is not None:
        i, j = next((i, j) for i, j in rng.choice(len(deck), (50, 2)).tolist()
                    if deck[i] != deck[j])
        yield f"deck[{i}] <-> deck[{j}]", set_at(set_at(deal, ("deck", i), deck[j]),
                                                 ("deck", j), deck[i])
        yield f"deck[{i}] = deck[{j}] (a fifth copy)", set_at(deal, ("deck", i), deck[j])
        yield "deck reversed", set_at(deal, ("deck",), deck[::-1])
        yield "a card dropped", set_at(deal, ("deck",), deck[1:])
        yield "a card added", set_at(deal, ("deck",), deck + deck[:1])
        for wrong in (54, -1, 1.5, None, "♠3", True):
            yield f"deck[{i}] = {wrong!r}", set_at(deal, ("deck", i), wrong)
    yield "deck = None", set_at(deal, ("deck",), None)
    for wrong in WRONG_TYPES:
        yield f"deck = {wrong!r}", set_at(deal, ("deck",), wrong)
    for other in {0, 1, 2, 3, 4, -1, None} - {seat}:
        yield f"first_seat = {other!r}", set_at(deal, ("first_seat",), other)
    for wrong in ("x", 1.5, True, []):
        yield f"first_seat = {wrong!r}", set_at(deal, ("first_seat",), wrong)
    yield "an unknown key", {**deal, "colour": "red"}
    yield "no first_seat", {"deck": deck}


@sizes("every", 16, 1)  # every 16th mutation in the default run, all of them under -m slow
@pytest.mark.parametrize("index", range(len(STATES)), ids=[name for name, _ in STATES])
def test_mutated_recipes_are_refused_or_replay(index, every):
    name, state = STATES[index]
    data = json.loads(json.dumps(state.to_dict()))
    pristine = json.dumps(data)
    assert DabangState.from_dict(data).to_dict() == data  # the unmutated recipe loads
    rng = np.random.default_rng(len(pristine))
    failures, count = [], 0
    for i, m in enumerate(recipe_mutations(data, state, rng, other_options=OTHER_OPTIONS,
                                           other_format=OTHER_FORMAT,
                                           deal_mutations=deal_mutations)):
        if (i + index) % every:
            continue
        count += 1
        problem = judge(DabangState, DabangGame, m, np.random.default_rng(i))
        if problem:
            failures.append(f"{m.what}: {problem}")
    assert json.dumps(data) == pristine, "from_dict changed its input"
    assert count > 100 // every
    assert not failures, f"{len(failures)} of {count} mutations:\n" + "\n".join(failures[:20])


def test_every_situation_is_sampled():
    kinds = {name.rsplit(" ", 1)[1] for name, _ in STATES if not name.startswith("custom")}
    assert kinds == set(KINDS)
    assert any(s.results and s.v["tribute"].any() for _, s in STATES)  # a match with tribute
