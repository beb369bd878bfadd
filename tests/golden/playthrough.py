"""Golden playthroughs (as OpenSpiel's): whole seeded games written one line per decision, so
that any change in what the engines do shows as a diff of a text file.

Each file starts with a header (game, options, seed), then one line per decision::

    seat phase action "action text" legal=N obs=CRC mask=CRC rewards=[...]

(``obs`` and ``mask`` are CRC-32 checksums of the acting seat's observation and legal mask, so a
change in what a seat sees or may do shows too), then ``result`` with each finished hand's
result as JSON. The players pick among the legal actions with a seeded generator; in Dagong's
硬牌 decision they declare with probability ``solo_rate`` so that ordinary hands are played too.

Regenerate after an intended change with ``python -m pytest tests/test_golden.py
--update-golden`` and read the diff before committing it.
"""

from __future__ import annotations

import json
import pathlib
import zlib
from dataclasses import dataclass, field

import numpy as np

from cardenv.dabang import DabangGame
from cardenv.dagong import DagongGame

DIRECTORY = pathlib.Path(__file__).resolve().parent


@dataclass(frozen=True)
class Playthrough:
    name: str
    game: str
    seed: int
    options: dict = field(default_factory=dict)
    solo_rate: float = 0.0  # Dagong: chance of declaring 硬牌 when it is offered

    @property
    def path(self) -> pathlib.Path:
        return DIRECTORY / f"{self.name}.txt"


PLAYTHROUGHS = [
    Playthrough("dagong_two_hands", "dagong", 3, {"hands": 2}),
    Playthrough("dagong_solo", "dagong", 11, {"hands": 1}, solo_rate=0.5),
    Playthrough("dabang_hand", "dabang", 5),
    Playthrough("dabang_match_3_hands", "dabang", 8, {"episode": "match", "max_hands": 3}),
    Playthrough("dabang_tribute_return", "dabang", 21,
                {"dealer": 1, "levels": [5, 7], "blood": 4, "tribute_return": "dealer_choice"}),
    Playthrough("dabang_live_follow", "dabang", 13, {"follow": "live"}),
]

_MAKERS = {"dagong": DagongGame, "dabang": DabangGame}


def _crc(array: np.ndarray) -> str:
    return f"{zlib.crc32(np.ascontiguousarray(array).tobytes()):08x}"


def _number(x) -> str:
    return f"{float(x):g}"


def render(play: Playthrough) -> str:
    """The playthrough's text, played afresh on the current engine."""
    game = _MAKERS[play.game](**play.options)
    state = game.new_state(play.seed)
    rng = np.random.default_rng(play.seed)
    lines = [f"game {play.game}", f"options {json.dumps(play.options, sort_keys=True)}",
             f"seed {play.seed}"]
    reported = 0
    while not state.is_over:
        seat = state.current_player
        mask = state.legal_mask()
        legal = np.flatnonzero(mask)
        if play.game == "dagong" and state.phase == "solo":
            declare = rng.random() < play.solo_rate
            action = int(legal[1 if declare else 0])  # legal is [decline, declare]
        else:
            action = int(legal[rng.integers(len(legal))])
        obs = state.observation(seat)
        text = game.action_info(action).text
        phase = state.phase
        state.apply(action)
        rewards = "[" + ",".join(_number(r) for r in state.last_rewards) + "]"
        lines.append(f"{seat} {phase} {action} {json.dumps(text, ensure_ascii=False)} "
                     f"legal={len(legal)} obs={_crc(obs)} mask={_crc(mask)} rewards={rewards}")
        while reported < len(state.results):
            result = state.results[reported].to_dict()
            lines.append("result " + json.dumps(result, sort_keys=True, ensure_ascii=False))
            reported += 1
    lines.append("returns [" + ",".join(_number(r) for r in state.returns) + "]")
    lines.append(f"truncated {bool(getattr(state, 'truncated', False))}")
    return "\n".join(lines) + "\n"
