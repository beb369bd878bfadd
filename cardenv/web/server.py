"""The web page's server: a small JSON API over the rules engines, and the page's static files,
on Python's standard library alone (``http.server``; see ``docs/web.md``).

``App.handle(method, path, body)`` answers one request as ``(status, content type, bytes)``
without any socket, so tests call it directly; ``make_server`` puts it behind a ``Server`` (a
``ThreadingHTTPServer``: one thread per connection, so several tabs are served at once; each
game has its own lock). Every error is a JSON object ``{"error": message}`` with a 4xx status
(5xx only for a busy server, a failing agent or a bug), and leaves every game as it was.

The server is meant for this machine (it listens on 127.0.0.1 unless told otherwise, and has no
login), yet it holds up against a client that misbehaves (``tests/cardenv/web/test_hardening.py``):

- a connection has ``timeout`` seconds for each read and write and for receiving each whole
  request (a watchdog in the serving loop cuts one that trickles in): 408;
- at most ``max_connections`` connections are served at once; the next few are answered 503
  at once, any beyond those closed unanswered, so no client makes the server hang;
- bodies over ``max_body`` bytes are refused (413), unreadable lengths and chunked bodies too;
- http.server's own errors (a garbage request line, an unknown method, too many headers) are
  JSON as well, and a client that disconnects leaves no traceback;
- at most ``max_games`` games are kept, and a new one does not push out a game used in the last
  ``keep_busy`` seconds (503); a game has at most ``MAX_OPTION["hands"]`` Dagong hands, a Dabang
  match at most ``MAX_OPTION["max_hands"]`` (the default for a match on the page: an option of
  ``MAX_OPTION`` left ``None`` gets its bound where the game takes it);
- only checkpoints that load are offered, each loaded once when first found.

API (JSON bodies; ``lang`` is ``zh`` or ``en`` on every request that returns texts)::

    GET  /api/info                    games and their rules options and rules panels, players,
                                      search players, checkpoints, default opponents,
                                      languages, records folder
    POST /api/games                   {"game", "seat", "opponents": [3 specs], "options", "seed",
                                      "advance"}
    GET  /api/games/ID?lang=          the game as the person's seat may know it
    POST /api/games/ID/move           {"action": id, "version": n, "advance"}
    POST /api/games/ID/cards          {"cards": ["♠10", "SJ"], "version": n, "advance"}
    POST /api/games/ID/advance        the next other player's move (after "advance": false)
    POST /api/games/ID/replay         a finished game, opened in the viewer
    GET  /api/records                 the *.json files of the records folder
    POST /api/replays                 {"name": file in the records folder} or {"text", "filename"}
    GET  /api/replays/ID              the record's header and move list
    GET  /api/replays/ID/K?lang=      the table after K moves, every hand shown
    GET  /api/leagues                 the league tables offered (cardagents' league JSON files)
    GET  /api/leagues/NAME            one of them: ratings and win-rate matrix (the /league page)

``"advance": false`` answers right after the person's move (or, for a new game, before anyone
moves): the page then asks for the other players' moves one at a time (``advance``), showing who
is thinking; by default they all move before the answer.

A game's message is ``GameSession.message`` (see ``cardenv.web.sessions``): only what the
person's seat may know. Players act server-side: ``random``, ``heuristic`` (through
``cardenv.player_specs`` and its ``cardenv.players`` entry point, so the ``cardagents``
package is never imported here), a search player for each game (``SEARCH_PLAYERS``: the agents'
PIMC at a budget named in the menu, offered where its spec loads: not without the
``cardagents`` package) and the checkpoints found in the checkpoints folder or named on the
command line that load (a file that does not is skipped with a one-line
warning). Each is shown by a readable label (``App.label``: a checkpoint by its file name, the
search player as "search (PIMC)"); the shipped agent of a game (``SHIPPED`` in the checkpoints
folder), where it loads, is the default opponent (``App.defaults``).
"""

from __future__ import annotations

import json
import mimetypes
import os
import pathlib
import secrets
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from cardenv import records
from cardenv.core.checks import is_int
from cardenv.core.errors import ConfigError
from cardenv.games import make_game, names as game_names
from cardenv.player_specs import load_player, player_name
from cardenv.text import option_specs
from cardenv.web import extras, leagues
from cardenv.web.sessions import (GameSession, ReplaySession, Store, WebError, languages,
                                  translate_all, translator)

STATIC = pathlib.Path(__file__).resolve().parent / "static"
BUILT_IN_PLAYERS = ("random", "heuristic")
# The search player offered for each game (cardagents.search.pimc's PIMC, named through
# cardenv.player_specs): game -> [(spec, menu label)], the first that loads offered, then those
# of "" (any game; a game without a sampler of hidden cards gets none). ``{checkpoints}`` is the
# checkpoints folder. The budget answers within about a second a decision on a 2-core machine
# (``time=``: seconds a searched decision, whatever the position; measured in docs/web.md); a Dabang
# follow of several cards is a decision a card. Dabang's rollouts stop after 8 steps, valued by the
# shipped leaf value (stronger there than rollouts to the end of the hand: docs/results.md).
SEARCH_PLAYERS = {
    "dabang": [("pimc:fast,depth=8,critic={checkpoints}/dabang_leaf.npz,time=1",
                "search (PIMC, 1 s a decision)")],
    "": [("pimc:fast,time=1", "search (PIMC, 1 s a decision)")],
}
SEARCH_NAME = "search (PIMC)"  # a search player's label at the table and in the viewer
SHIPPED = "{game}_ppo.pt"  # the shipped agent of each game, in the checkpoints folder
MAX_BODY = 8 * 1024 * 1024  # bytes: a request body larger than this is refused (413)
MAX_RECORDS_LISTED = 500
# Rules options a game on the page may ask for, at most: stricter than the games' own
# bounds, since each game is kept in memory and played move by move through requests. A Dabang
# match given no max_hands gets MAX_OPTION["max_hands"], so that every game on the page ends.
MAX_OPTION = {"hands": 20, "max_hands": 100}
MAX_OTHER_OPTION = 1000  # any other number (solo_multiplier, blood, deal_value)


class LockedPlayer:
    """A player shared by several games (a loaded checkpoint): one ``act`` at a time."""

    def __init__(self, player):
        self.player = player
        self.name = player_name(player)
        self._lock = threading.Lock()

    def act(self, observation: dict) -> int:
        with self._lock:
            return self.player.act(observation)

    @property
    def needs_state(self) -> bool:  # a search player decides from the position
        return bool(getattr(self.player, "needs_state", False))

    def act_states(self, states):
        with self._lock:
            return self.player.act_states(states)


class App:
    """The page's server without its socket: ``handle`` answers one request.

    ``checkpoints``: checkpoint paths offered besides those found in ``checkpoint_dir``
    (``*.pt``, searched at each ``/api/info``); ``records_dir``: the folder the viewer lists;
    ``max_games`` / ``max_replays``: how many of each are kept in memory; ``ttl``: seconds an
    idle one is kept; ``keep_busy``: seconds after its last request during which a game or
    replay is not pushed out by a new one (the new one is refused, 503); ``save_records``: write
    each finished game into ``records_dir`` as a game record (the message then names the file),
    as terminal play does; ``warn``: called with a line for each checkpoint that is not offered
    (a warning on stderr by default); ``league_dir`` (its ``league*.json``) and
    ``league_files``: the league tables the ``/league`` page shows (``cardenv.web.leagues``)."""

    def __init__(self, checkpoints=(), checkpoint_dir: str | None = "checkpoints",
                 records_dir: str = "records", max_games: int = 64, max_replays: int = 16,
                 ttl: float = 6 * 3600, keep_busy: float = 600.0, save_records: bool = False,
                 warn=None, league_dir: str | None = "docs/results", league_files=()):
        self.extra_checkpoints = [os.fspath(p) for p in checkpoints]
        self.checkpoint_dir = checkpoint_dir
        self.records_dir = records_dir
        self.save_records = save_records
        self.league_dir = league_dir
        self.league_files = [os.fspath(p) for p in league_files]
        self.games = Store("game", max_games, ttl, keep_busy)
        self.replays = Store("replay", max_replays, ttl, keep_busy)
        self.warn = warn or (lambda line: print(f"warning: {line}", file=sys.stderr, flush=True))
        # path -> ((mtime, size), game, LockedPlayer, "") or (..., None, None, reason): each
        # version of each file is loaded once
        self._checked: dict[str, tuple] = {}
        self._load_lock = threading.Lock()
        self._searchers: dict[str, dict | None] = {}  # game -> its search entry (None: none)

    # --- players -------------------------------------------------------------------------------

    def checkpoints(self) -> list[dict]:
        """The checkpoints offered: ``[{"path", "game"}]``, the ``--checkpoint`` paths and the
        ``*.pt`` files of ``checkpoint_dir``, each loaded when first found (and again when the
        file changes) for the game it plays; one that does not load is left out, with one
        ``warn`` line saying why."""
        paths = list(self.extra_checkpoints)
        if self.checkpoint_dir and os.path.isdir(self.checkpoint_dir):
            found = sorted(pathlib.Path(self.checkpoint_dir).rglob("*.pt"))
            paths += [os.fspath(p) for p in found if os.fspath(p) not in paths]
        out = []
        for path in paths:
            game, _ = self.check_checkpoint(path)
            if game is not None:
                out.append({"path": path, "game": game, "label": self._file_label(path)})
        return out

    def _file_label(self, path: str) -> str:
        """A checkpoint as people read it: its path inside the checkpoints folder
        (``dagong_ppo.pt``, ``previous/dagong_ppo.pt``), else its file name."""
        if self.checkpoint_dir:
            try:
                return pathlib.Path(path).resolve().relative_to(
                    pathlib.Path(self.checkpoint_dir).resolve()).as_posix()
            except (ValueError, OSError):
                pass
        return pathlib.PurePath(path).name

    def label(self, spec) -> str:
        """The player ``spec`` (a spec, or a name in a game record) as people read it: a search
        player as ``SEARCH_NAME``, a checkpoint by its file name, a built-in one by its name."""
        if not isinstance(spec, str):
            return player_name(spec)
        if spec.startswith("pimc"):  # cardagents' search specs: pimc[:key=value,...]
            return SEARCH_NAME
        if spec.endswith(".pt") or "/" in spec or os.sep in spec:
            return self._file_label(spec)
        return spec

    def defaults(self) -> dict[str, str]:
        """The default opponent of each game shown: its shipped agent (``SHIPPED`` in the
        checkpoints folder) where that loads, else ``heuristic``."""
        offered = {(c["path"], c["game"]) for c in self.checkpoints()}
        out = {}
        for game in _shown_games():
            path = os.fspath(pathlib.Path(self.checkpoint_dir or ".") / SHIPPED.format(game=game))
            out[game] = path if self.checkpoint_dir and (path, game) in offered else "heuristic"
        return out

    def check_checkpoint(self, path: str, warn: bool = True) -> tuple[str | None, str]:
        """``(game, "")`` if checkpoint ``path`` loads (kept loaded), else ``(None, reason)``
        (with ``warn``, warned once per version of the file)."""
        try:
            stat = os.stat(path)
            version = (stat.st_mtime_ns, stat.st_size)
        except (OSError, ValueError):  # ValueError: a NUL in the name
            version = None
        with self._load_lock:
            known = self._checked.get(path)
            if known is None or known[0] != version:
                game, player, reason = _load_checkpoint(path)
                self._checked[path] = known = (version, game, player, reason)
                if game is None and warn:
                    self.warn(f"checkpoint {path} is not offered: {reason}")
            return known[1], known[3]

    def searchers(self) -> list[dict]:
        """The search players offered: ``[{"spec", "game", "label"}]``, one for each game shown
        whose ``SEARCH_PLAYERS`` entry loads (tried once per game; one that does not, as without
        the ``cardagents`` package, is left out without a word)."""
        out = []
        for game in _shown_games():
            with self._load_lock:
                if game not in self._searchers:
                    self._searchers[game] = self._searcher(game)
                entry = self._searchers[game]
            if entry is not None:
                out.append(entry)
        return out

    def _searcher(self, game: str) -> dict | None:
        folder = self.checkpoint_dir
        for spec, label in [*SEARCH_PLAYERS.get(game, []), *SEARCH_PLAYERS[""]]:
            if "{checkpoints}" in spec:
                if not folder:
                    continue
                spec = spec.format(checkpoints=pathlib.Path(folder).as_posix())
            try:
                load_player(spec, game, 0)
            except Exception:  # noqa: BLE001 -- not offered: no cardagents package, no leaf file
                continue
            return {"spec": spec, "game": game, "label": label, "name": SEARCH_NAME}
        return None

    def player(self, spec, game: str, seed: int):
        """The player ``spec`` names for ``game``: a built-in one or the game's search player,
        new for each game (a search player has its own generators and time limit in each), or
        one of the checkpoints offered, loaded once (``WebError`` 400 with the reason
        otherwise)."""
        searchers = [(s["spec"], s["game"]) for s in self.searchers()]
        if spec in BUILT_IN_PLAYERS or (spec, game) in searchers:
            try:
                return load_player(spec, game, seed)
            except ValueError as exc:
                raise WebError(400, f"player {spec!r}: {exc}") from None
        if any(spec == other for other, _ in searchers):
            games = ", ".join(g for other, g in searchers if other == spec)
            raise WebError(400, f"player {spec!r} cannot play {game}: it is the search player "
                                f"offered for {games}")
        offered = {c["path"]: c["game"] for c in self.checkpoints()}
        if not isinstance(spec, str) or spec not in offered:
            ours = [s["spec"] for s in self.searchers() if s["game"] == game]
            raise WebError(400, f"unknown player {spec!r}: choose "
                                f"{', '.join([*BUILT_IN_PLAYERS, *ours])} or one of the "
                                f"checkpoints offered ({', '.join(offered) or 'none'})")
        if offered[spec] != game:
            raise WebError(400, f"player {spec!r} cannot play {game}: checkpoint {spec} plays "
                                f"{offered[spec]}, not {game}")
        player = self._checked[spec][2]
        if player is None:  # the file changed since it was offered, and no longer loads
            raise WebError(400, f"checkpoint {spec} no longer loads: {self._checked[spec][3]}")
        return player

    # --- requests ------------------------------------------------------------------------------

    def handle(self, method: str, path: str, body: bytes = b"") -> tuple[int, str, bytes]:
        """Answer one request: ``(status, content type, body bytes)``."""
        url = urllib.parse.urlsplit(path)
        query = dict(urllib.parse.parse_qsl(url.query))
        parts = [urllib.parse.unquote(p) for p in url.path.split("/") if p]
        try:
            if any("\0" in text for text in [*parts, *query, *query.values()]):
                raise WebError(400, f"the address {path[:200]!r} holds a null byte (%00)")
            if not parts or parts[0] != "api":
                if method not in ("GET", "HEAD"):
                    raise WebError(405, f"{method} is not allowed on {url.path}")
                return self.static(parts)
            result = self.api(method, parts[1:], query, body)
            status, data = result if isinstance(result, tuple) else (200, result)
            return status, "application/json; charset=utf-8", _json(data)
        except WebError as exc:
            return exc.status, "application/json; charset=utf-8", _json({"error": exc.message})
        except Exception as exc:  # a bug or a failing agent: say so, keep serving
            return 500, "application/json; charset=utf-8", _json(
                {"error": f"internal error: {type(exc).__name__}: {exc}"})

    def static(self, parts: list[str]) -> tuple[int, str, bytes]:
        pages = {(): "index.html", ("league",): "league.html"}
        name = pages.get(tuple(parts)) or ("/".join(parts[1:]) if parts[0] == "static"
                                           else None)
        file = (STATIC / name).resolve() if name else None
        if file is None or STATIC not in file.parents or not file.is_file():
            raise WebError(404, f"no such page: /{'/'.join(parts)}")
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind.endswith("javascript"):
            kind += "; charset=utf-8"
        return 200, kind, file.read_bytes()

    def api(self, method: str, parts: list[str], query: dict, body: bytes):
        lang = query.get("lang", "zh")
        if lang not in languages():
            raise WebError(400, f"lang must be one of {', '.join(languages())}, got {lang!r}")
        route = (method, parts[0] if parts else "", len(parts))
        if route == ("GET", "info", 1):
            return self.info(lang)
        if route == ("GET", "records", 1):
            return self.list_records()
        if route == ("GET", "leagues", 1):
            return leagues.listing(self.league_dir, self.league_files)
        if route == ("GET", "leagues", 2):
            return leagues.shown(self.league_dir, self.league_files, parts[1])
        if parts[:1] == ["games"]:
            if route == ("POST", "games", 1):
                return 201, self.new_game(_body(body), lang)
            if len(parts) >= 2:
                return self.game_request(method, parts[1], parts[2:], body, lang)
        if parts[:1] == ["replays"]:
            if route == ("POST", "replays", 1):
                return 201, self.open_replay(_body(body), lang)
            if method == "GET" and len(parts) in (2, 3):
                replay = self.replays.get(parts[1])
                with replay.lock:
                    if len(parts) == 2:
                        return self._summary(replay, parts[1], lang)
                    return replay.step(_int(parts[2], "move"), lang)
        known = any(parts[:1] == [p] for p in ("info", "records", "games", "replays",
                                               "leagues"))
        if known:
            raise WebError(405, f"{method} /api/{'/'.join(parts)} is not part of the API "
                                f"(see docs/web.md)")
        raise WebError(404, f"no such API endpoint: /api/{'/'.join(parts)}")

    def info(self, lang: str = "zh") -> dict:
        try:
            from cardenv.core.lang import TERMS
        except ImportError:  # pragma: no cover - lang ships with this package
            TERMS = {}
        translate = translator(lang)
        shown = translate_all(_shown_games(), translate)  # the docs name terms
        return {"games": list(shown), "options": shown, "players": list(BUILT_IN_PLAYERS),
                "search": self.searchers(), "checkpoints": self.checkpoints(),
                "defaults": self.defaults(),
                "help": {game: extras.help_panel(game, translate) for game in shown},
                "langs": languages(),
                "terms": dict(TERMS), "records_dir": self.records_dir}

    def new_game(self, data: dict, lang: str) -> dict:
        name = data.get("game")
        shown = _shown_games()
        if not isinstance(name, str) or name not in shown:
            raise WebError(400, f"unknown game {name!r}: choose one of {', '.join(shown)}")
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise WebError(400, f"'options' must be an object of rules options, got {options!r}")
        options = _bounded(name, options)
        self.games.check_room()
        try:
            game = make_game(name, **options)
        except (ConfigError, TypeError, ValueError) as exc:
            said = str(exc)  # the game's own errors name it already: say it once
            said = said[len(name) + 2:] if said.startswith(f"{name}: ") else said
            raise WebError(400, f"bad options for {name}: {said}") from None
        seat = data.get("seat", 0)
        if not is_int(seat) or not 0 <= seat < game.num_players:
            raise WebError(400, f"'seat' must be 0..{game.num_players - 1}, got {seat!r}")
        opponents = data.get("opponents")
        if opponents is None:
            opponents = self.defaults().get(name, "heuristic")
        if isinstance(opponents, str):
            opponents = [opponents] * (game.num_players - 1)
        if not isinstance(opponents, list) or len(opponents) != game.num_players - 1:
            raise WebError(400, f"'opponents' must list {game.num_players - 1} players (the "
                                f"other seats in seat order), got {opponents!r}")
        seed = data.get("seed")
        if seed is None:
            seed = secrets.randbelow(2 ** 31)
        if not is_int(seed) or not 0 <= seed < 2 ** 63:
            raise WebError(400, f"'seed' must be an int in 0..2**63-1, got {seed!r}")
        advance = _flag(data, "advance")
        specs = opponents[:seat] + ["human"] + opponents[seat:]
        players = [None if s == seat else self.player(spec, name, seed * 4 + s)
                   for s, spec in enumerate(specs)]
        names = ["human" if s == seat else player_name(spec) for s, spec in enumerate(specs)]
        labels = ["you" if s == seat else self.label(spec) for s, spec in enumerate(specs)]
        session = GameSession(game, seat, players, names, seed, labels, advance)
        ident = self.games.add(session)
        with session.lock:
            self.save_if_over(session, ident)
            return dict(session.message(lang), id=ident, record=session.saved)

    def game_request(self, method: str, ident: str, rest: list[str], body: bytes, lang: str):
        session = self.games.get(ident)
        action = rest[0] if rest else ""
        with session.lock:
            if method == "GET" and not rest:
                return dict(session.message(lang), id=ident, record=session.saved)
            actions = ("move", "cards", "advance", "replay")
            if method != "POST" or len(rest) != 1 or action not in actions:
                raise WebError(405 if action in ("", *actions) else 404,
                               f"{method} /api/games/{ident}/{'/'.join(rest)} is not part of "
                               f"the API (see docs/web.md)")
            if action == "replay":
                if not session.state.is_over:
                    raise WebError(409, "the game is not over: its hands are still hidden")
                return 201, self._add_replay(ReplaySession(session.record()), lang)
            data = _body(body)
            version = data.get("version")
            if version is not None and not is_int(version):
                raise WebError(400, f"'version' must be an int, got {version!r}")
            advance = _flag(data, "advance")
            if action == "advance":
                session.advance_one()
            elif action == "move":
                if "action" not in data:
                    raise WebError(400, "the move has no 'action' (an action id)")
                session.move(data["action"], version, translator(lang), advance)
            else:
                choices = session.cards(data.get("cards"), version, translator(lang), advance)
                if choices is not None:
                    return dict(session.message(lang), id=ident, choices=choices)
            self.save_if_over(session, ident)
            return dict(session.message(lang), id=ident, record=session.saved)

    def save_if_over(self, session, ident: str) -> None:
        """Keep a finished game as a record in the records folder (once; with
        ``save_records``); ``session.saved`` names the file."""
        if not self.save_records or not session.state.is_over or session.saved:
            return
        os.makedirs(self.records_dir, exist_ok=True)
        name = f"{session.game.name}-{session.seed}-web-{ident[:8]}.json"
        records.save(session.record(), os.path.join(self.records_dir, name))
        session.saved = name

    def list_records(self) -> dict:
        folder = self.records_dir
        files = []
        if os.path.isdir(folder):
            for path in sorted(pathlib.Path(folder).rglob("*.json")):
                if len(files) >= MAX_RECORDS_LISTED:
                    break
                files.append({"name": path.relative_to(folder).as_posix(),
                              "size": path.stat().st_size})
        return {"folder": folder, "files": files, "exists": os.path.isdir(folder)}

    def open_replay(self, data: dict, lang: str) -> dict:
        if "name" in data:
            name = data["name"]
            listed = {f["name"] for f in self.list_records()["files"]}
            if name not in listed:
                raise WebError(404, f"no record {name!r} in {self.records_dir}")
            try:
                record = records.load(os.path.join(self.records_dir, name), verify=False)
                replay = ReplaySession(record)
            except records.RecordError as exc:
                raise WebError(400, str(exc)) from None
        elif "text" in data:
            replay = self._replay_of_text(data["text"], str(data.get("filename") or "upload"))
        else:
            raise WebError(400, "open a record by 'name' (a file of the records folder) or "
                                "send its 'text' (an uploaded file)")
        return self._add_replay(replay, lang)

    @staticmethod
    def _replay_of_text(text, filename: str) -> ReplaySession:
        if not isinstance(text, str):
            raise WebError(400, f"{filename}: 'text' must be the file's text")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise WebError(400, f"{filename}: not JSON ({exc.msg} at line {exc.lineno} column "
                                f"{exc.colno})") from None
        try:
            return ReplaySession(records.GameRecord.from_dict(data, source=filename))
        except records.RecordError as exc:
            raise WebError(400, str(exc)) from None

    def _add_replay(self, replay: ReplaySession, lang: str) -> dict:
        ident = self.replays.add(replay)
        return self._summary(replay, ident, lang)

    def _summary(self, replay: ReplaySession, ident: str, lang: str) -> dict:
        summary = replay.summary(lang)
        return dict(summary, id=ident, labels=[self.label(p) for p in summary["players"]])


def _shown_games() -> dict[str, list[dict]]:
    """The games the page offers (those registered with a presentation), each with its rules
    options (``cardenv.text.option_specs``), the page's bounds (``MAX_OPTION``) applied."""
    shown = {}
    for name in game_names():
        try:
            specs = option_specs(name)
        except ValueError:  # registered without a presentation: played by programs only
            continue
        for spec in specs:
            if "ints" in spec:
                low, high = spec["ints"]
                spec["ints"] = [low, min(high, MAX_OPTION.get(spec["name"], MAX_OTHER_OPTION))]
        shown[name] = specs
    return shown


def _bounded(game: str, options: dict) -> dict:
    """``options`` within the page's limits (``MAX_OPTION``; ``WebError`` 400 naming the option
    and its bound); an option of ``MAX_OPTION`` that the game has and that is left ``None``
    gets the bound where the game takes it (a Dabang match: ``max_hands``), so that every game
    on the page ends."""
    for key, value in options.items():
        if is_int(value) or isinstance(value, (float, np.floating)):  # numpy's as Python's
            bound = MAX_OPTION.get(key, MAX_OTHER_OPTION)
            if value > bound:
                raise WebError(400, f"options.{key} is at most {bound} on the web page, got "
                                    f"{str(value)[:40]}")
    known = {spec["name"]: spec for spec in option_specs(game)}
    for key, bound in MAX_OPTION.items():
        if key in known and known[key]["default"] is None and options.get(key) is None:
            try:
                make_game(game, **dict(options, **{key: bound}))
            except (ConfigError, TypeError, ValueError):  # not with these options (a hand)
                continue
            options = dict(options, **{key: bound})
    return options


def _load_checkpoint(path: str):
    """``(game, player, "")`` for a checkpoint that loads (through ``cardenv.player_specs``, whose
    factory reads it with the agents' safe loader: tensors and plain data only), else
    ``(None, None, reason)``; the game named by the file name is tried first."""
    if not os.path.isfile(path):
        return None, None, "no such file"
    stem = os.path.basename(path).lower()
    games = sorted(game_names(), key=lambda g: g not in stem)
    reasons = []
    for game in games:
        try:
            return game, LockedPlayer(load_player(path, game, 0)), ""
        except Exception as exc:  # noqa: BLE001 -- any file must leave the server running
            reasons.append(str(exc) if isinstance(exc, ValueError)
                           else f"{type(exc).__name__}: {exc}")
    return None, None, reasons[0]


def _flag(data: dict, key: str, default: bool = True) -> bool:
    """The yes/no field ``key`` of a request (``WebError`` 400 for anything but a bool)."""
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise WebError(400, f"'{key}' must be true or false, got {value!r}")
    return value


def _json(data) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def _body(body: bytes) -> dict:
    """The request's JSON object (``WebError`` 400 for anything else)."""
    try:
        data = json.loads(body.decode("utf-8") if body else "{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WebError(400, f"malformed JSON in the request body: {exc}") from None
    except (ValueError, RecursionError) as exc:  # a 5000-digit number, [[[[... 10**5 deep
        raise WebError(400, f"the request body is not a usable JSON object: {exc}") from None
    if not isinstance(data, dict):
        raise WebError(400, f"the request body must be a JSON object, got "
                            f"{type(data).__name__}")
    return data


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise WebError(400, f"{what} must be an integer, got {text!r}") from None


# --- HTTP ----------------------------------------------------------------------------------------

JSON = "application/json; charset=utf-8"
REFUSAL_TIMEOUT = 2.0  # seconds a refused connection has to send its request before it is closed


class Handler(BaseHTTPRequestHandler):
    """Hands each request to the server's ``App``; every answer it makes itself (a refused,
    late, malformed or oversized request) is JSON too."""

    server_version = "cardenv-web"
    protocol_version = "HTTP/1.1"
    # http.server answers a request line it cannot read as HTTP/0.9, the body alone with no
    # status line or headers: answer it as HTTP/1.0 instead, so the client sees the JSON error.
    default_request_version = "HTTP/1.0"
    refused = False  # the server is full: answer 503 to whatever this connection asks
    expired = False  # set by the server's watchdog: the request did not arrive in time

    def setup(self):
        # StreamRequestHandler.setup applies self.timeout to each read and write of the socket
        self.timeout = min(self.server.request_timeout, REFUSAL_TIMEOUT) if self.refused \
            else self.server.request_timeout
        super().setup()

    def handle_one_request(self):
        self.server.watch(self)  # the whole request must arrive within the timeout
        try:
            super().handle_one_request()
        finally:
            self.server.unwatch(self)

    def parse_request(self) -> bool:
        try:
            if not super().parse_request():  # reads the headers too
                return False
        except TimeoutError:  # (http.server would close the connection without a word)
            self.send_error(408)
            return False
        if self.expired:
            self.send_error(408)
            return False
        if len(self.requestline.split()) < 3:  # "GET /path": HTTP/0.9, no headers, no status
            self.send_error(400, f"not an HTTP/1.x request line: {self.requestline[:200]!r}")
            return False
        return True

    def _serve(self, method: str) -> None:
        if self.refused:
            return self._reply(503, f"the server is busy (it serves "
                                    f"{self.server.max_connections} connections at once): try "
                                    f"again in a moment")
        if self.headers.get("Transfer-Encoding"):
            return self._reply(501, "a request body must come with a Content-Length, not a "
                                    "Transfer-Encoding")
        length = self.headers.get("Content-Length", "0").strip() or "0"
        if not (length.isascii() and length.isdigit()):
            return self._reply(400, f"Content-Length must be a number of bytes, got "
                                    f"{length[:40]!r}")
        size, limit = int(length), self.server.max_body
        if size > limit:
            return self._reply(413, f"request body of {size} bytes refused: at most {limit}")
        try:
            body = self.rfile.read(size) if size else b""
        except TimeoutError:
            body = None
        self.server.unwatch(self)  # from here on the server works, the client waits
        if body is None or len(body) < size or self.expired:
            return self._reply(408, f"the request body did not arrive within "
                                    f"{self.timeout:g} s ({size} bytes announced)")
        status, kind, data = self.server.app.handle(method, self.path, body)
        self._send(status, kind, data)

    def _reply(self, status: int, message: str) -> None:
        """Answer ``{"error": message}`` and close the connection (what follows on it, such as
        the rest of a refused body, is not read)."""
        self.log_error("code %d, message %s", status, message)
        self._send(status, JSON, _json({"error": message}), close=True)

    def _send(self, status: int, kind: str, data: bytes, close: bool = False) -> None:
        # the status line carries the standard phrase only, never text from the request
        self.send_response(status, self.responses.get(status, ("Error",))[0])
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        if status == 503:
            self.send_header("Retry-After", "5")
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if getattr(self, "command", None) != "HEAD":
            self.wfile.write(data)

    def send_error(self, code, message=None, explain=None):
        """http.server's own errors (a malformed request line or header, an unknown method, a
        request line too long) as the API's: ``{"error": message}``."""
        if self.expired:
            code, message = 408, None
        if code == 408 and message is None:
            message = f"the request did not arrive within {self.timeout:g} s"
        message = message or self.responses.get(code, ("error",))[0]
        self.log_error("code %d, message %s", code, message)
        self._send(code, JSON, _json({"error": message}), close=True)

    def do_GET(self):  # noqa: N802 (http.server's names)
        self._serve("GET")

    def do_HEAD(self):  # noqa: N802
        self._serve("HEAD")

    def do_POST(self):  # noqa: N802
        self._serve("POST")

    def do_PUT(self):  # noqa: N802
        self._serve("PUT")

    def do_DELETE(self):  # noqa: N802
        self._serve("DELETE")

    def log_message(self, format, *args):  # noqa: A002
        if self.server.verbose:
            super().log_message(format, *args)


class Server(ThreadingHTTPServer):
    """A ``ThreadingHTTPServer`` with bounds (see the module docstring): ``request_timeout``
    seconds per read, write and whole request, ``max_connections`` served at once (a few more
    answered 503), bodies of at most ``max_body`` bytes; a client that goes away is not an
    error worth a traceback."""

    daemon_threads = True
    request_queue_size = 64  # connections the OS holds until accepted (5 by default)

    def __init__(self, address, app: App, verbose: bool = False, timeout: float = 20.0,
                 max_connections: int = 32, max_body: int = MAX_BODY):
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
        if max_connections < 1 or max_body < 0:
            raise ValueError(f"max_connections must be >= 1 and max_body >= 0, got "
                             f"{max_connections!r} and {max_body!r}")
        self.app, self.verbose = app, verbose
        self.request_timeout, self.max_connections, self.max_body = \
            timeout, max_connections, max_body
        self._slots = threading.BoundedSemaphore(max_connections)
        # connections answered 503 at once; any beyond are closed unanswered
        self._refusals = threading.BoundedSemaphore(max(4, max_connections // 4))
        self._refusing = type("Refusing" + Handler.__name__, (Handler,), {"refused": True})
        self._deadlines: dict[Handler, float] = {}
        self._deadline_lock = threading.Lock()
        super().__init__(address, Handler)

    # connections

    def process_request(self, request, client_address):
        if self._slots.acquire(blocking=False):
            handler, slot = self.RequestHandlerClass, self._slots
        elif self._refusals.acquire(blocking=False):
            handler, slot = self._refusing, self._refusals
        else:
            self.shutdown_request(request)
            return
        try:
            threading.Thread(target=self._serve_connection, daemon=True,
                             args=(request, client_address, handler, slot)).start()
        except RuntimeError:  # no thread to be had: the connection is closed, its slot freed
            slot.release()
            self.shutdown_request(request)

    def _serve_connection(self, request, client_address, handler, slot) -> None:
        try:
            handler(request, client_address, self)
        except Exception:  # noqa: BLE001 -- reported by handle_error, as socketserver does
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            slot.release()

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]
        if isinstance(error, OSError):  # the client went away or stalled: nothing to report
            if self.verbose:
                print(f"{client_address[0]}: connection ended: {type(error).__name__}: {error}",
                      file=sys.stderr)
            return
        super().handle_error(request, client_address)  # a bug: its traceback

    # the watchdog: the per-read timeout alone lets a client keep a connection by sending one
    # byte at a time, so each request must also arrive whole before its deadline

    def watch(self, handler: Handler) -> None:
        with self._deadline_lock:
            self._deadlines[handler] = time.monotonic() + handler.timeout

    def unwatch(self, handler: Handler) -> None:
        with self._deadline_lock:
            self._deadlines.pop(handler, None)

    def service_actions(self):
        """Called by ``serve_forever`` about every half second: end the reading of each request
        past its deadline (its handler then answers 408 and closes)."""
        now = time.monotonic()
        with self._deadline_lock:
            late = [h for h, deadline in self._deadlines.items() if deadline <= now]
            for handler in late:
                del self._deadlines[handler]
        for handler in late:
            handler.expired = True
            try:
                handler.connection.shutdown(socket.SHUT_RD)
            except OSError:
                pass


def make_server(app: App, host: str = "127.0.0.1", port: int = 8000, verbose: bool = False,
                timeout: float = 20.0, max_connections: int = 32,
                max_body: int = MAX_BODY) -> Server:
    """An HTTP server for ``app`` (not yet serving: call ``serve_forever``) on ``host`` (this
    machine only by default); ``port=0`` picks a free port (``server.server_address[1]``);
    ``timeout``, ``max_connections``, ``max_body``: see ``Server``."""
    return Server((host, port), app, verbose=verbose, timeout=timeout,
                  max_connections=max_connections, max_body=max_body)
