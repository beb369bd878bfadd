"""Game records: one played game (a hand, several hands, or a whole Dabang match) as a JSON file
that replays exactly through the rules engine.

A record is a saved state (``state.to_dict()``, the game's recipe: rules options, deal seed, a
custom deal if the game was dealt by hand, the actions, each hand's result) plus the game's
name, each seat's total, who sat where (``players``) and free-form ``meta`` (where it came from,
when, which deal pair). Reading it back replays it as a saved state is replayed (the deal by
``game.replay(seed, [], deal)``, then every action checked by the rules), and the replay must
give back the same results and returns. The format is described in ``docs/records.md``::

    from cardenv.records import load, record_of, replay, save

    save(record_of(state, ["heuristic", "random", "human", "random"]), "game.json")
    record = load("game.json")          # RecordError (a ValueError) naming the file and problem
    states = replay(record)             # the state after 0, 1, ..., len(record.actions) moves

``python -m cardenv.replay FILE`` steps through a record on the terminal, and
``python -m cardagents evaluate ... --records DIR`` writes one per game it plays.

Limits: ``load`` refuses a file larger than ``MAX_BYTES`` (16 MiB; a 1,000-hand record is
about 1 MiB) and JSON nested deeper than ``MAX_DEPTH`` (64 arrays or objects inside one
another; the records ``save`` writes nest 4 deep), before parsing it, so that no file makes it
run out of memory or stack.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

from cardenv.core.checks import check_bool, is_int, is_number
from cardenv.core.errors import ConfigError, IllegalActionError
from cardenv.core.state import same_json
from cardenv.games import check_name, make_game

__all__ = ["FORMAT", "VERSION", "GameRecord", "RecordError", "record_of", "dumps", "save",
           "load", "replay", "check", "game_of"]

FORMAT = "cardenv-record"
VERSION = 1
MAX_SEED = 2 ** 63 - 1
MAX_BYTES = 16 * 2 ** 20  # the largest record file load reads
MAX_DEPTH = 64  # the deepest nesting of arrays and objects load accepts
FIELDS = ("format", "version", "game", "options", "seed", "deal", "players", "actions",
          "results", "returns", "meta")
OPTIONAL = ("deal", "meta")  # a seeded game has no deal; meta may be left out
REQUIRED = tuple(k for k in FIELDS if k not in OPTIONAL)


class RecordError(ValueError):
    """A file that is not a valid, replayable game record; the message is one line naming the
    file (when the record came from one) and the problem."""


@dataclass
class GameRecord:
    """One game as played: see the module docstring and ``docs/records.md``.

    ``source`` is where the record was read from (``load``), used in error messages; it is not
    part of the record."""

    game: str  # the registry name: "dagong", "dabang"
    options: dict  # the game's rules options (make_game(game, **options))
    seed: int  # the deal seed (new_state(seed))
    players: list  # a name per seat, in seat order ("heuristic", "human", a checkpoint path)
    actions: list  # the action ids, in the order played
    results: list  # each finished hand's result, as its to_dict()
    returns: list  # each seat's total reward
    meta: dict = field(default_factory=dict)  # free-form: source, date, deal pair, ...
    deal: dict | None = None  # the custom deal (a state's given_deal); None: dealt from seed
    source: str | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict:
        """The record as the JSON object ``save`` writes (``deal`` only for a custom deal)."""
        data = {"format": FORMAT, "version": VERSION, "game": self.game,
                "options": dict(self.options), "seed": self.seed}
        if self.deal is not None:
            data["deal"] = self.deal
        data.update({"players": list(self.players), "actions": list(self.actions),
                     "results": list(self.results), "returns": list(self.returns)})
        if self.meta:
            data["meta"] = dict(self.meta)
        return data

    @classmethod
    def from_dict(cls, data, source: str | None = None) -> "GameRecord":
        """A record from its JSON object, every field checked (``RecordError``); the actions are
        checked for range here and for legality by ``check`` / ``replay``."""
        return _parse(data, source)

    def fail(self, problem: str) -> RecordError:
        """A ``RecordError`` naming this record's file (if any) and ``problem``."""
        return _error(self.source, problem)


def _error(source: str | None, problem: str) -> RecordError:
    where = f"{source}: " if source else "game record: "
    return RecordError(where + " ".join(str(problem).split()))  # one line


def _plain(value):
    """``value`` as JSON would give it back (tuples as lists, numpy scalars as numbers)."""
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(value):
    if is_int(value):
        return int(value)
    if is_number(value):
        return float(value)
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON-compatible")


def record_of(state, players, meta: dict | None = None) -> GameRecord:
    """The record of ``state``'s game so far (finished or not): its saved state (options, seed,
    custom deal, history, the results of its finished hands), its game's name and the returns
    so far. ``players`` names the seats in order (strings, e.g.
    ``cardenv.player_specs.player_name(spec)``)."""
    game = state.game
    players = [str(p) for p in players]
    if len(players) != game.num_players:
        raise ValueError(f"players must name the {game.num_players} seats, got {players!r}")
    saved = _plain(state.to_dict())
    return GameRecord(game=game.name, options=saved["options"], seed=int(saved["seed"]),
                      deal=saved.get("deal"), players=players, actions=saved["history"],
                      results=saved["results"], returns=_plain(list(state.returns)),
                      meta=_plain(dict(meta or {})))


# --- writing and reading -------------------------------------------------------------------------

def dumps(record: GameRecord) -> str:
    """The record as ``save`` writes it: one line per field, each hand result on a line of its
    own, the actions 30 to a line (any JSON layout reads back the same)."""
    def one(value) -> str:
        return json.dumps(value, ensure_ascii=False, default=_json_default)

    lines = []
    for key, value in record.to_dict().items():
        if key == "results" and value:
            body = "[\n" + ",\n".join(f"    {one(r)}" for r in value) + "\n  ]"
        elif key == "actions" and len(value) > 30:
            rows = [", ".join(str(a) for a in value[i:i + 30]) for i in range(0, len(value), 30)]
            body = "[\n" + ",\n".join(f"    {row}" for row in rows) + "\n  ]"
        else:
            body = one(value)
        lines.append(f"  {one(key)}: {body}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def save(record: GameRecord, path) -> None:
    """Write ``record`` to ``path`` as UTF-8 JSON (see ``dumps``)."""
    text = dumps(record)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def load(path, verify: bool = True) -> GameRecord:
    """The record in the file ``path``: every field checked and, with ``verify``, replayed
    through the engine (``check``). ``RecordError`` naming the file and the problem: a missing
    or unreadable file, not JSON, not a cardenv record, an unsupported version, an unknown game,
    bad options, a missing or ill-typed field, an illegal action, or results that the replay
    does not give back."""
    if not isinstance(path, (str, os.PathLike)):
        raise RecordError(f"a record is read from a file path, got {_describe(path)}")
    source = os.fspath(path)
    if isinstance(source, bytes):
        source = os.fsdecode(source)
    verify = check_bool(verify, "verify", error=RecordError)
    if "\0" in source:
        raise _error(source.replace("\0", "\\0"), "no such file (a file name holds no NUL "
                                                      "character)")
    try:
        with open(source, "rb") as f:
            raw = f.read(MAX_BYTES + 1)  # no more than that, whatever the file is
    except FileNotFoundError:
        raise _error(source, "no such file") from None
    except IsADirectoryError:
        raise _error(source, "is a folder, not a game record file") from None
    except OSError as exc:
        raise _error(source, f"cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_BYTES:
        raise _error(source, f"not a game record: the file is larger than {MAX_BYTES:,} bytes "
                             f"(records.MAX_BYTES)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _error(source, "not a game record: the file is not UTF-8 text") from None
    data = parse_json(text, source)
    record = _parse(data, source)
    if verify:
        check(record)
    return record


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # a JSON string, escapes included
_BRACKET = re.compile(r"[\[\]{}]")


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of the JSON ``text`` nest (brackets inside strings do
    not count), found without parsing it: ``json.loads`` recurses once per level."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def parse_json(text: str, source: str | None = None):
    """The JSON value of ``text``; ``RecordError`` naming ``source`` if it is not JSON or nests
    deeper than ``MAX_DEPTH``."""
    if nesting_depth(text) > MAX_DEPTH:
        raise _error(source, f"not a game record: its JSON nests deeper than {MAX_DEPTH} "
                             f"levels (records.MAX_DEPTH)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _error(source, f"not JSON ({exc.msg} at line {exc.lineno} column "
                             f"{exc.colno})") from None
    except (ValueError, RecursionError) as exc:  # a number of over 4,300 digits, say
        raise _error(source, f"not a game record: {exc}") from None


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _parse(data, source: str | None) -> GameRecord:
    def fail(problem):
        return _error(source, problem)

    if not isinstance(data, dict):
        raise fail(f"not a cardenv game record (a JSON {type(data).__name__}, expected an "
                   f"object with \"format\": \"{FORMAT}\")")
    if "format" not in data:
        raise fail(f"not a cardenv game record (no \"format\" field; expected \"{FORMAT}\")")
    if data["format"] != FORMAT:
        raise fail(f"not a cardenv game record (format {_describe(data['format'])}, expected "
                   f"\"{FORMAT}\")")
    version = data.get("version")
    if "version" not in data:
        raise fail("the record has no \"version\" field")
    if not is_int(version):
        raise fail(f"\"version\" must be an int, got {_describe(version)}")
    if version != VERSION:
        raise fail(f"record version {version} is not supported (this cardenv reads version "
                   f"{VERSION})")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise fail(f"missing field{'s' if len(missing) > 1 else ''} "
                   f"{', '.join(repr(k) for k in missing)}")
    unknown = [k for k in data if k not in FIELDS]
    if unknown:
        raise fail(f"unknown field{'s' if len(unknown) > 1 else ''} "
                   f"{', '.join(repr(k) for k in unknown)} (free-form data goes in \"meta\")")
    name = data["game"]
    try:
        check_name(name)
    except ValueError as exc:
        raise fail(str(exc)) from None
    options = data["options"]
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise fail(f"\"options\" must be an object of rules options, got {_describe(options)}")
    try:
        game = make_game(name, **options)
    except ConfigError as exc:
        raise fail(f"bad options: {exc}") from None
    seed = data["seed"]
    if not is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise fail(f"\"seed\" must be an int in 0..2**63-1, got {_describe(seed)}")
    players = data["players"]
    if not (isinstance(players, list) and len(players) == game.num_players
            and all(isinstance(p, str) for p in players)):
        raise fail(f"\"players\" must be a list of {game.num_players} names (strings), got "
                   f"{_describe(players)}")
    actions = data["actions"]
    if not isinstance(actions, list):
        raise fail(f"\"actions\" must be a list of action ids, got {_describe(actions)}")
    for k, a in enumerate(actions):
        if not is_int(a) or not 0 <= a < game.num_actions:
            raise fail(f"actions[{k}] (move {k + 1}) must be an action id in "
                       f"0..{game.num_actions - 1}, got {_describe(a)}")
    results = data["results"]
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        raise fail(f"\"results\" must be a list of hand results (objects), got "
                   f"{_describe(results)}")
    returns = data["returns"]
    if not (isinstance(returns, list) and len(returns) == game.num_players
            and all(is_number(r) for r in returns)):
        raise fail(f"\"returns\" must be a list of {game.num_players} numbers, got "
                   f"{_describe(returns)}")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise fail(f"\"meta\" must be an object, got {_describe(meta)}")
    deal = data.get("deal")
    if deal is not None and not isinstance(deal, dict):
        raise fail(f"\"deal\" must be an object (a custom deal) or left out, got "
                   f"{_describe(deal)}")
    return GameRecord(game=name, options=options, seed=int(seed), players=list(players),
                      actions=[int(a) for a in actions], results=results, returns=returns,
                      meta=meta, deal=deal, source=source)


# --- replaying -----------------------------------------------------------------------------------

def game_of(record: GameRecord):
    """The game the record was played under (``RecordError`` for an unknown game or bad
    options)."""
    try:
        return make_game(check_name(record.game), **record.options)
    except ConfigError as exc:
        raise record.fail(f"bad options: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise record.fail(str(exc)) from None


def _states(record: GameRecord, keep: bool):
    """Play the record: yields the state after 0, 1, ... moves (copies if ``keep``, else the
    one state being played), then checks the results and returns against the record."""
    game = game_of(record)
    try:
        state = game.replay(record.seed, [], record.deal)  # the deal: the loader of saved states
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise record.fail(f"bad deal: {exc}") from None
    yield state.clone() if keep else state
    for k, action in enumerate(record.actions):
        if state.is_over:
            raise record.fail(f"move {k + 1} (actions[{k}]): action {action} comes after the "
                              f"end of the game ({k} moves); the record has "
                              f"{len(record.actions) - k} moves too many")
        seat = state.current_player
        who = f"player_{seat}" + (f" ({record.players[seat]})"
                                  if 0 <= seat < len(record.players) else "")
        try:
            state.apply(int(action))
        except IllegalActionError:
            text = game.action_info(int(action)).text
            raise record.fail(f"move {k + 1} (actions[{k}]): action {action} ({text}) is "
                              f"illegal for {who}") from None
        yield state.clone() if keep else state
    _compare(record, state)


def _first_difference(recorded, replayed, where: str) -> str:
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in [*recorded, *(k for k in replayed if k not in recorded)]:
            if key not in replayed:
                return f"{where} has {key!r}, which the engine does not give"
            if key not in recorded:
                return f"{where} lacks {key!r}"
            if not same_json(recorded[key], replayed[key]):
                return _first_difference(recorded[key], replayed[key], f"{where}[{key!r}]")
    return f"{where} is {_describe(recorded)} in the record but {_describe(replayed)} on replay"


def _compare(record: GameRecord, state) -> None:
    results = _plain([r.to_dict() for r in state.results])
    if len(results) != len(record.results):
        raise record.fail(f"the record does not replay: it has {len(record.results)} hand "
                          f"result(s) but its actions finish {len(results)} hand(s)")
    for i, (mine, theirs) in enumerate(zip(record.results, results)):
        if not same_json(_plain(mine), theirs):
            raise record.fail("the record does not replay: "
                              + _first_difference(_plain(mine), theirs, f"results[{i}]"))
    returns = _plain(list(state.returns))
    if not same_json(_plain(record.returns), returns):
        raise record.fail(f"the record does not replay: returns are {record.returns} in the "
                          f"record but {returns} on replay")


def check(record: GameRecord):
    """Replay ``record`` through the engine; the final state if it plays (every action legal)
    and gives back the recorded results and returns, else ``RecordError``."""
    state = None
    for state in _states(record, keep=False):
        pass
    return state


def replay(record: GameRecord) -> list:
    """The states of ``record``'s game after 0, 1, ..., ``len(record.actions)`` moves
    (independent copies), checked as ``check`` does (``RecordError``)."""
    return list(_states(record, keep=True))
