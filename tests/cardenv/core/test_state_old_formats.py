"""Saved states of the older formats stay readable: format /3 (and /2, which is /3 without the
last buffer pieces) saved the whole buffer, the results and the generator; ``from_dict`` reads
them by replaying their seed and history (from the custom deal it finds in a first hand dealt by
hand) and accepts them only if the replay gives back what they saved.

The /3 states of tests/data/old_states.json were written by the code of commit 0fa6db6, the
last that wrote them (tests/data/make_old_states.py): seeded positions of both games (a start,
a game over, a later hand, a follow, a match, a tribute return) and hands dealt by hand.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from cardenv.core.errors import StateError
from cardenv.dabang import DabangGame, DabangState
from cardenv.dagong import DagongGame, DagongState
from tests import ROOT

DATA = json.loads((ROOT / "tests" / "data" / "old_states.json")
                  .read_text(encoding="utf-8"))
GAMES = {"dagong": (DagongGame, DagongState, 634), "dabang": (DabangGame, DabangState, 1687)}
# format 3 tells the deal of a hand dealt by hand only in the episode's first hand
UNREADABLE = {("dabang", "custom deck, second hand")}
CASES = [(game, name) for game in DATA for name in DATA[game]]
READABLE = [case for case in CASES if case not in UNREADABLE]


def old(game, name) -> dict:
    return copy.deepcopy(DATA[game][name]["state"])


@pytest.mark.parametrize("game, name", READABLE, ids=[f"{g}-{n}" for g, n in READABLE])
def test_format_3_loads_to_the_position_its_replay_gives(game, name):
    game_class, state_class, _ = GAMES[game]
    data, deal = old(game, name), DATA[game][name]["deal"]
    assert data["format"] == f"cardenv.{game}.state/3"
    state = state_class.from_dict(data)
    # the saved buffer is a prefix of today's (pieces appended since: the counting pieces)
    assert np.array_equal(state.buffer[:len(data["buffer"])], data["buffer"])
    assert state.rng.bit_generator.state == data["rng"]
    assert json.loads(json.dumps([r.to_dict() for r in state.results])) == data["results"]
    replayed = game_class(**data["options"]).replay(data["seed"], data["history"], deal)
    saved = state.to_dict()
    assert saved == replayed.to_dict()
    assert saved["format"] == f"cardenv.{game}.state/4" and saved["deal"] == deal
    assert state_class.from_dict(json.loads(json.dumps(saved))).to_dict() == saved


@pytest.mark.parametrize("game, name", READABLE, ids=[f"{g}-{n}" for g, n in READABLE])
def test_format_2_loads_unless_dealt_by_hand(game, name):
    """Format /2 is /3 without the last buffer pieces; it does not tell a custom deal."""
    _, state_class, size = GAMES[game]
    data = old(game, name)
    data["format"], data["buffer"] = f"cardenv.{game}.state/2", data["buffer"][:size]
    if DATA[game][name]["deal"] is None:
        assert state_class.from_dict(data).to_dict() == state_class.from_dict(old(game, name)) \
            .to_dict()
    else:
        with pytest.raises(StateError, match="found only in the first hand of an episode"):
            state_class.from_dict(data)


def test_a_later_hand_dealt_by_hand_is_refused_clearly():
    data = old("dabang", "custom deck, second hand")
    with pytest.raises(StateError, match=r"saved Dabang state in format 'cardenv.dabang.state/3'"
                                         r": .*a hand dealt by hand is found only in the first "
                                         r"hand of an episode"):
        DabangState.from_dict(data)


def _bump_buffer(d):
    d["buffer"][0] += 1


def _bump_rng(d):
    d["rng"]["state"]["state"] += 1


def _bump_result(d):
    d["results"][0]["rewards"][0] += 1


def _step_after_the_end(d):
    d["history"].append(d["history"][-1])


TAMPERING = [  # (game, state, change, message)
    ("dagong", "over", _bump_buffer, "does not give back its buffer, results and generator"),
    ("dabang", "follow", _bump_buffer, "does not give back"),
    ("dagong", "hands3 second hand", _bump_rng, "does not give back"),
    ("dabang", "match second hand", _bump_result, "does not give back"),
    ("dagong", "over", _step_after_the_end,
     r"history\[133\]: the episode is over.*\(it is read by replaying its seed and history;"),
    ("dabang", "follow", lambda d: d.update(seed=d["seed"] + 1), "does not give back"),
    ("dagong", "custom deal, first hand", lambda d: d["deal_order"].reverse(),
     "does not give back"),
    ("dabang", "custom deck, first hand", lambda d: d["deal"]["deck"].reverse(),
     "does not give back"),
    ("dagong", "start", lambda d: d.pop("rng"), r"lacks \['rng'\]"),
    ("dabang", "follow", lambda d: d.update(history=[1.5]), r"history\[0\] must be an int"),
]


@pytest.mark.parametrize("game, name, change, message", TAMPERING,
                         ids=[f"{g}-{n}-{i}" for i, (g, n, _, _) in enumerate(TAMPERING)])
def test_a_tampered_old_state_is_refused(game, name, change, message):
    _, state_class, _ = GAMES[game]
    data = old(game, name)
    state_class.from_dict(copy.deepcopy(data))
    change(data)
    with pytest.raises(StateError, match=message) as info:
        state_class.from_dict(data)
    assert "\n" not in str(info.value)


def test_the_fixtures_cover_both_games_and_custom_deals():
    for game in GAMES:
        assert sum(DATA[game][n]["deal"] is not None for n in DATA[game]) >= 2
        assert any(DATA[game][n]["state"]["results"] for n in DATA[game])


# format 4 as written before Dagong's counting pieces (commit 3290c60): its crc is of the
# 688-entry buffer before them (DagongState.CRC_PREFIXES)
DAGONG_4_BEFORE_COUNTING = {
    "format": "cardenv.dagong.state/4",
    "options": {"hands": 1, "solo_multiplier": 2, "allow_solo": True, "xiqian": True},
    "seed": 5, "deal": None, "history": [2, 556, 537, 0, 90, 0, 0, 0, 166, 486, 334, 0, 0, 0],
    "results": [], "crc": 2018250356}


def test_format_4_written_before_the_counting_pieces_loads():
    data = copy.deepcopy(DAGONG_4_BEFORE_COUNTING)
    state = DagongState.from_dict(data)
    assert state.history == data["history"] and state.crc(688) == data["crc"]
    assert state.to_dict()["crc"] == state.crc() != data["crc"]  # saved again: today's crc
    data["crc"] += 1
    with pytest.raises(StateError, match="its recipe replays to another position"):
        DagongState.from_dict(data)


# format 4 as written before Dabang's counting pieces (commit bd2d45c): its crc is of the
# 1937-entry buffer before them (DabangState.CRC_PREFIXES)
DABANG_4_BEFORE_COUNTING = {'crc': 934216554,
 'deal': None,
 'format': 'cardenv.dabang.state/4',
 'history': [14, 3, 16, 0, 0, 27, 29, 26, 40, 71, 63, 75, 54, 78, 81, 79, 79, 259, 331, 291,
             163, 306, 322, 146, 210, 330, 322, 146, 322, 290, 334, 154, 158, 294, 134, 246,
             134, 198, 198, 230, 230, 150, 158, 154, 150, 282, 250, 250, 186, 275, 339, 227,
             243, 218, 314, 282, 298, 215, 295, 311, 183, 334, 306, 306, 210, 342, 178, 274,
             326, 306, 194, 194, 178, 218, 234, 250, 298, 162, 346, 194, 258, 258, 194, 146,
             226, 278, 262, 246, 166, 278, 230, 166, 278, 198, 166, 278, 182, 138, 170, 202,
             298, 234, 266, 186, 186, 286, 318, 142, 142, 266, 202, 266, 186, 326, 210, 326,
             326, 262, 198, 310, 134, 263, 246, 310, 134, 182, 215, 315, 171, 254, 202, 242,
             234, 303, 143, 239, 287, 298, 202, 318],
 'options': {'bidding': 'during_deal',
             'blood': 3,
             'deal_value': 0.5,
             'dealer': 2,
             'episode': 'hand',
             'follow': 'dead',
             'four_joker_win': 'big_or_small',
             'joker_levels': True,
             'keep_dealer': 'partner',
             'levels': [4, 6],
             'max_hands': None,
             'tribute_return': 'none'},
 'results': [],
 'seed': 11}


def test_dabang_format_4_written_before_the_counting_pieces_loads():
    data = copy.deepcopy(DABANG_4_BEFORE_COUNTING)
    state = DabangState.from_dict(data)
    assert state.history == data["history"] and state.crc(1937) == data["crc"]
    assert state.to_dict()["crc"] == state.crc() != data["crc"]
    data["crc"] += 1
    with pytest.raises(StateError, match="its recipe replays to another position"):
        DabangState.from_dict(data)
