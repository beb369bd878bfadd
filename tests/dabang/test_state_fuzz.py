"""Saved states are validated, not trusted: systematic mutations of ``to_dict()`` output.

Saved states of seeded random games, taken in every phase and situation (declare, return, bury,
koujoker, takeback, a lead, the first lead, a follow being built, right after a hand ended in a
match, over) under four option sets, are mutated one change at a time: each key removed (at the
top level and inside the parts and results) or given a value of a wrong type; each int (in lists
and nested lists too) set to -1, out of range or moved by one; each number made non-finite; two
list items swapped; buffer entries moved by one. Each mutated dict must either be refused with a
``StateError`` / ``ConfigError`` carrying a message, or load into a state that plays on under
random legal moves with every invariant intact. Any other exception, or a broken invariant, is a
failure naming the mutation. To keep the test within a few seconds, the items of the long lists
(the history, the deck) and the mutations of the fields that nothing constrains much (the options,
the seed, the generator), which mostly load and play a whole hand, are a deterministic sample.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cardenv.dabang import DabangState
from cardenv.dabang.observation import LAYOUT
from cardenv.dabang.phases.deal import DEALT
from cardenv.dabang.scoring import MAX_LEVEL, MIN_LEVEL, TOTAL_POINTS
from tests.dabang.positions import random_step, sample_positions
from tests.sizes import sizes
from tests.state_mutations import buffer_mutations, leaf_mutations, leaves, try_mutation

BIG_INTS = (-1, 7, 300, 40000, 10 ** 30)
LONG_LISTS = ("history", "deck")  # their items are sampled
SAMPLED_ITEMS = 6  # ints mutated per long list
SPARSE_KEYS = ("options", "seed", "rng")  # a quarter of their mutations are tried
SPARSE_SHARE = 0.25
BUFFER_ENTRIES = 2  # set entries of each buffer piece moved by +1 and -1, per state
MAX_EXTRA_HANDS = 2  # a loaded state plays on to the end, or this many more hands

CASES = [
    ({}, range(0, 6)),
    ({"episode": "match", "max_hands": 3}, range(10, 14)),
    ({"dealer": 1, "levels": [5, 7], "blood": 4, "tribute_return": "dealer_choice"},
     range(20, 30)),
    ({"follow": "live"}, range(30, 36)),
]


def base_states():
    states = []
    for options, seeds in CASES:
        for kind, state in sample_positions(options, seeds).items():
            states.append((f"{options} {kind}", state.to_dict()))
    return states


# --- the mutations -------------------------------------------------------------------------------

def mutations(data: dict, rng: np.random.Generator):
    """``(description, mutated dict)`` pairs, deterministic for a given ``rng``."""
    for path, value in leaves({k: v for k, v in data.items() if k != "buffer"}):
        if not path:
            continue
        in_long_list = any(key in LONG_LISTS for key in path if isinstance(key, str)) and \
            isinstance(path[-1], int)
        if in_long_list and rng.random() > SAMPLED_ITEMS / 200:
            continue
        if path[0] in SPARSE_KEYS and rng.random() > SPARSE_SHARE:
            continue
        yield from leaf_mutations(data, path, value, rng, BIG_INTS)
    yield from buffer_mutations(data, LAYOUT, rng, BUFFER_ENTRIES)


# --- the invariants ------------------------------------------------------------------------------

def episode_ended(state) -> bool:
    options, results = state.game.options, state.results
    if options["episode"] == "hand":
        return len(results) == 1
    return bool(results) and (results[-1].match_winner is not None
                              or len(results) == options["max_hands"])


def check_invariants(state) -> None:
    v, deal = state.v, state.deal
    undealt = np.bincount(np.asarray(deal.deck[deal.pos:DEALT], dtype=np.int64), minlength=54)
    held = v["hand"].sum(axis=0) + v["played"].sum(axis=0) + v["kitty"] + undealt
    assert (held == 4).all(), "the 216 cards are not conserved"
    assert (v["hand"] >= 0).all() and (v["played"] >= 0).all()
    assert sorted(state.kitty.cards) == np.repeat(np.arange(54), v["kitty"]).tolist()
    assert v["hand"].sum(axis=1).tolist() == state.cards_left == v["cards_left"].tolist()
    returns = [0.0] * 4
    for result in state.results:
        returns = [a + b for a, b in zip(returns, result.rewards)]
    assert state.returns == returns, "returns are not the sum of the rewards"
    assert state.is_over == episode_ended(state), "is_over disagrees with the episode's end"
    assert state.last_rewards == [0.0] * 4 or state.last_rewards == state.results[-1].rewards


def check_result(result) -> None:
    assert sum(result.trick_points) + result.kitty_points == TOTAL_POINTS
    assert result.defenders == result.dealer % 2 and result.attackers == 1 - result.defenders
    assert result.score == result.trick_points[result.attackers] + \
        (2 * result.kitty_points if result.koudi else 0)
    assert result.match_winner is not None or \
        all(MIN_LEVEL <= x <= MAX_LEVEL for x in result.levels_after)
    r = result.rewards
    assert r[0] == r[2] and r[1] == r[3] and r[0] == -r[1], "team rewards are not opposite"
    assert all(math.isfinite(x) for x in r)


def play_out(state, seed: int) -> None:
    """Random legal moves to the end (or MAX_EXTRA_HANDS more hands), checking as it goes."""
    rng = np.random.default_rng(seed)
    check_invariants(state)
    for result in state.results:
        check_result(result)
    stop = len(state.results) + MAX_EXTRA_HANDS
    steps = 0
    while not state.is_over and len(state.results) < stop:
        finished = len(state.results)
        random_step(state, rng)
        steps += 1
        assert steps < 2000 * MAX_EXTRA_HANDS, "the hand does not end"
        if len(state.results) > finished:
            check_result(state.results[-1])
            check_invariants(state)
    check_invariants(state)
    saved = state.to_dict()
    again = DabangState.from_dict(json.loads(json.dumps(saved)))
    assert again.to_dict() == saved, "to_dict -> from_dict round trip differs"


@sizes("every", 3, 1)  # every third mutation in the default run, all of them under -m slow
@pytest.mark.parametrize("name, data", base_states(), ids=lambda x: x if isinstance(x, str) else "")
def test_mutated_states_are_refused_or_sound(name, data, every):
    pristine = json.dumps(data)
    play_out(DabangState.from_dict(json.loads(pristine)), 0)  # the unmutated state is sound
    failures, count = [], 0
    for i, (what, mutated) in enumerate(mutations(data, np.random.default_rng(len(pristine)))):
        if i % every:
            continue
        count += 1
        problem = try_mutation(DabangState, mutated, play_out, seed=count)
        if problem:
            failures.append(f"{what}: {problem}")
    assert json.dumps(data) == pristine, "from_dict changed its input"
    assert count > 500 // every
    assert not failures, f"{len(failures)} of {count} mutations:\n" + "\n".join(failures[:20])


def test_every_situation_is_sampled():
    kinds = {name.rsplit(" ", 1)[1] for name, _ in base_states()}
    assert kinds == {"declare", "return", "bury", "koujoker", "takeback", "lead", "first_lead",
                     "follow", "between_hands", "over"}
