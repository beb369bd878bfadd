"""Saved states are validated, not trusted: systematic mutations of ``to_dict()`` output.

Saved states of seeded random games (every phase, mid-trick, after a player went out, right
after a hand ended in a multi-hand episode, over) are mutated one change at a time: each key
removed or given a value of a wrong type, each int (in lists and nested dicts too) set to -1,
out of range or moved by one, two list items swapped, buffer entries moved by one. Each mutated
dict must either be refused with a ``StateError`` / ``ConfigError`` carrying a message, or load
into a state that plays to the end under random legal moves with every invariant intact. Any
other exception, or a broken invariant, is a failure naming the mutation.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardenv.core.cards import KIND_POINTS
from cardenv.dagong import DagongGame, DagongState
from cardenv.dagong.observation import LAYOUT
from tests.dagong.util import random_step, sample_positions
from tests.sizes import sizes
from tests.state_mutations import buffer_mutations, leaf_mutations, leaves, try_mutation

BIG_INTS = (-1, 7, 40000, 10 ** 30)
SAMPLED_LIST_ITEMS = 6  # ints mutated per long list (history, deal_order[s])
BUFFER_ENTRIES = 2  # set entries of each buffer piece moved by +1 and -1, per state
MAX_EXTRA_HANDS = 4  # a state whose options now ask for many hands plays this many more


# --- the saved states ----------------------------------------------------------------------------

CASES = [({}, 11), ({}, 12), ({"hands": 3}, 5), ({"allow_solo": False}, 7)]


def base_states():
    states = []
    for options, seed in CASES:
        for name, state in sample_positions(options, seed).items():
            states.append((f"{options} seed {seed} {name}", state.to_dict()))
    puzzle = DagongGame(hands=2, allow_solo=False).state_from_hands(
        ["♠3 ♦4 ♦5 ♥K", "♣6 ♣9 ♣10", "♠3 ♥7 ♥5", "♠8 ♠J ♠Q"], dealer=0, called="♠3", seed=4)
    states.append(("custom deal", puzzle.to_dict()))
    return states


# --- the mutations -------------------------------------------------------------------------------

def mutations(data: dict, rng: np.random.Generator):
    """``(description, mutated dict)`` pairs, deterministic for a given ``rng``."""
    for path, value in leaves({k: v for k, v in data.items() if k != "buffer"}):
        if not path:
            continue
        long_list_item = path[0] in ("history", "deal_order") and isinstance(path[-1], int) \
            and len(_at(data, path[:-1])) > SAMPLED_LIST_ITEMS  # a short list: every item
        if long_list_item and rng.random() > SAMPLED_LIST_ITEMS / 27:
            continue
        yield from leaf_mutations(data, path, value, rng, BIG_INTS)
    yield from buffer_mutations(data, LAYOUT, rng, BUFFER_ENTRIES)


def _at(data, path):
    for key in path:
        data = data[key]
    return data


# --- the invariants ------------------------------------------------------------------------------

def check_invariants(state) -> None:
    v = state.v
    dealt = v["hand"] + v["played"]
    assert (v["hand"] >= 0).all() and (v["played"] >= 0).all()
    assert dealt.sum(axis=0).max() <= 2, "a card kind dealt more than twice"
    assert np.array_equal(dealt, state.dealt), "hands + played != dealt"
    assert v["hand"].sum(axis=1).tolist() == state.cards_left == v["cards_left"].tolist()
    in_hands = int(KIND_POINTS @ v["hand"].sum(axis=0))
    assert sum(state.won) + state.trick_points + in_hands == state.total_points
    assert state.returns == [sum(r.rewards[i] for r in state.results) for i in range(4)]
    assert state.is_over == (len(state.results) == state.game.options["hands"])
    assert state.hand_index == min(len(state.results), state.game.options["hands"] - 1)
    assert state.last_rewards in ([0, 0, 0, 0], state.results[-1].rewards if state.results else 0)


def check_result(result, total_points) -> None:
    assert sum(result.rewards) == 0 and sum(result.payoff) == 0 and sum(result.xiqian) == 0
    if len(result.places) == 4:
        assert sum(result.points) == total_points
    else:
        assert result.points == result.trick_points and sum(result.points) <= total_points


def play_out(state, seed: int) -> None:
    """Random legal moves to the end (or MAX_EXTRA_HANDS more hands), checking as it goes."""
    rng = np.random.default_rng(seed)
    check_invariants(state)
    stop = len(state.results) + MAX_EXTRA_HANDS
    steps = 0
    while not state.is_over and len(state.results) < stop:
        finished, total = len(state.results), state.total_points
        random_step(state, rng)
        steps += 1
        assert steps < 5000, "the hand does not end"
        check_invariants(state)
        if len(state.results) > finished:
            check_result(state.results[-1], total)
    saved = state.to_dict()
    again = DagongState.from_dict(json.loads(json.dumps(saved)))
    assert again.to_dict() == saved, "to_dict -> from_dict round trip differs"


@sizes("every", 3, 1)  # every third mutation in the default run, all of them under -m slow
@pytest.mark.parametrize("name, data", base_states(), ids=lambda x: x if isinstance(x, str) else "")
def test_mutated_states_are_refused_or_sound(name, data, every):
    pristine = json.dumps(data)
    DagongState.from_dict(data)  # the unmutated state loads
    rng = np.random.default_rng(len(pristine))
    failures, count = [], 0
    for i, (what, mutated) in enumerate(mutations(data, rng)):
        if i % every:
            continue
        count += 1
        problem = try_mutation(DagongState, mutated, play_out, seed=count)
        if problem:
            failures.append(f"{what}: {problem}")
    assert json.dumps(data) == pristine, "from_dict changed its input"
    assert count > 300 // every
    assert not failures, f"{len(failures)} of {count} mutations:\n" + "\n".join(failures[:20])
