"""The web page's server: a small JSON API over the rules engines, and the page's static files,
on Python's standard library alone (``http.server``; see ``docs/web.md``).

``App.handle(method, path, body)`` answers one request as ``(status, content type, bytes)``
without any socket, so tests call it directly; ``make_server`` puts it behind a
``ThreadingHTTPServer`` (one thread per request, so several tabs are served at once; each game
has its own lock). Every error is a JSON object ``{"error": message}`` with a 4xx status (5xx
only for a failing agent or a bug), and leaves every game as it was.

API (JSON bodies; ``lang`` is ``zh`` or ``en`` on every request that returns texts)::

    GET  /api/info                    games, players, checkpoints, languages, records folder
    POST /api/games                   {"game", "seat", "opponents": [3 specs], "options", "seed"}
    GET  /api/games/ID?lang=          the game as the person's seat may know it
    POST /api/games/ID/move           {"action": id, "version": n}
    POST /api/games/ID/cards          {"cards": ["♠10", "SJ"], "version": n}
    POST /api/games/ID/replay         a finished game, opened in the viewer
    GET  /api/records                 the *.json files of the records folder
    POST /api/replays                 {"name": file in the records folder} or {"text", "filename"}
    GET  /api/replays/ID              the record's header and move list
    GET  /api/replays/ID/K?lang=      the table after K moves, every hand shown

A game's message is ``GameSession.message`` (see ``cardenv.web.sessions``): only what the
person's seat may know. Players act server-side: ``random``, ``heuristic`` (through
``cardenv.players``, so the ``agents`` package is never imported here) and the checkpoints found
in the checkpoints folder or named on the command line, each loaded when first chosen and kept.
"""

from __future__ import annotations

import json
import mimetypes
import os
import pathlib
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cardenv import records
from cardenv.core.errors import ConfigError
from cardenv.games import make_game, names as game_names
from cardenv.players import load_player, player_name
from cardenv.web.sessions import (GameSession, ReplaySession, Store, WebError, languages,
                                  translator)

STATIC = pathlib.Path(__file__).resolve().parent / "static"
BUILT_IN_PLAYERS = ("random", "heuristic")
MAX_BODY = 8 * 1024 * 1024  # bytes: a request body larger than this is refused (413)
MAX_RECORDS_LISTED = 500


class LockedPlayer:
    """A player shared by several games (a loaded checkpoint): one ``act`` at a time."""

    def __init__(self, player):
        self.player = player
        self.name = player_name(player)
        self._lock = threading.Lock()

    def act(self, observation: dict) -> int:
        with self._lock:
            return self.player.act(observation)


class App:
    """The page's server without its socket: ``handle`` answers one request.

    ``checkpoints``: checkpoint paths offered besides those found in ``checkpoint_dir``
    (``*.pt``, searched at each ``/api/info``); ``records_dir``: the folder the viewer lists;
    ``max_games`` / ``max_replays``: how many of each are kept in memory; ``ttl``: seconds an
    idle one is kept; ``save_records``: write each finished game into ``records_dir`` as a game
    record (the message then names the file), as terminal play does."""

    def __init__(self, checkpoints=(), checkpoint_dir: str | None = "checkpoints",
                 records_dir: str = "records", max_games: int = 64, max_replays: int = 16,
                 ttl: float = 6 * 3600, save_records: bool = False):
        self.extra_checkpoints = [os.fspath(p) for p in checkpoints]
        self.checkpoint_dir = checkpoint_dir
        self.records_dir = records_dir
        self.save_records = save_records
        self.games = Store("game", max_games, ttl)
        self.replays = Store("replay", max_replays, ttl)
        self._loaded: dict[tuple[str, str], LockedPlayer] = {}
        self._load_lock = threading.Lock()

    # --- players -------------------------------------------------------------------------------

    def checkpoints(self) -> list[dict]:
        """The checkpoints offered: ``[{"path", "game"}]``, ``game`` guessed from the file name
        (``None`` if it names neither game; the file itself decides when it is loaded)."""
        paths = list(self.extra_checkpoints)
        if self.checkpoint_dir and os.path.isdir(self.checkpoint_dir):
            found = sorted(pathlib.Path(self.checkpoint_dir).rglob("*.pt"))
            paths += [os.fspath(p) for p in found if os.fspath(p) not in paths]
        out = []
        for path in paths:
            stem = os.path.basename(path).lower()
            guess = [g for g in game_names() if g in stem]
            out.append({"path": path, "game": guess[0] if len(guess) == 1 else None})
        return out

    def player(self, spec, game: str, seed: int):
        """The player ``spec`` names for ``game``: a built-in one, new for each game, or one of
        the checkpoints offered, loaded once (``WebError`` 400 with the reason otherwise)."""
        if spec in BUILT_IN_PLAYERS:
            try:
                return load_player(spec, game, seed)
            except ValueError as exc:
                raise WebError(400, f"player {spec!r}: {exc}") from None
        offered = [c["path"] for c in self.checkpoints()]
        if not isinstance(spec, str) or spec not in offered:
            raise WebError(400, f"unknown player {spec!r}: choose {', '.join(BUILT_IN_PLAYERS)} "
                                f"or one of the checkpoints offered ({', '.join(offered) or 'none'})")
        with self._load_lock:
            key = (spec, game)
            if key not in self._loaded:
                try:
                    self._loaded[key] = LockedPlayer(load_player(spec, game, seed))
                except ValueError as exc:
                    raise WebError(400, f"player {spec!r} cannot play {game}: {exc}") from None
            return self._loaded[key]

    # --- requests ------------------------------------------------------------------------------

    def handle(self, method: str, path: str, body: bytes = b"") -> tuple[int, str, bytes]:
        """Answer one request: ``(status, content type, body bytes)``."""
        url = urllib.parse.urlsplit(path)
        query = dict(urllib.parse.parse_qsl(url.query))
        parts = [urllib.parse.unquote(p) for p in url.path.split("/") if p]
        try:
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
        name = "index.html" if not parts else "/".join(parts[1:]) if parts[0] == "static" \
            else None
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
            return self.info()
        if route == ("GET", "records", 1):
            return self.list_records()
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
                        return dict(replay.summary(lang), id=parts[1])
                    return replay.step(_int(parts[2], "move"), lang)
        known = any(parts[:1] == [p] for p in ("info", "records", "games", "replays"))
        if known:
            raise WebError(405, f"{method} /api/{'/'.join(parts)} is not part of the API "
                                f"(see docs/web.md)")
        raise WebError(404, f"no such API endpoint: /api/{'/'.join(parts)}")

    def info(self) -> dict:
        try:
            from cardenv.core.lang import TERMS
        except ImportError:  # pragma: no cover - lang ships with this package
            TERMS = {}
        return {"games": list(game_names()), "players": list(BUILT_IN_PLAYERS),
                "checkpoints": self.checkpoints(), "langs": languages(),
                "terms": dict(TERMS), "records_dir": self.records_dir}

    def new_game(self, data: dict, lang: str) -> dict:
        name = data.get("game")
        if name not in game_names():
            raise WebError(400, f"unknown game {name!r}: choose one of "
                                f"{', '.join(game_names())}")
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise WebError(400, f"'options' must be an object of rules options, got {options!r}")
        try:
            game = make_game(name, **options)
        except (ConfigError, TypeError, ValueError) as exc:
            raise WebError(400, f"bad options for {name}: {exc}") from None
        seat = data.get("seat", 0)
        if not isinstance(seat, int) or isinstance(seat, bool) or \
                not 0 <= seat < game.num_players:
            raise WebError(400, f"'seat' must be 0..{game.num_players - 1}, got {seat!r}")
        opponents = data.get("opponents", ["heuristic"] * (game.num_players - 1))
        if isinstance(opponents, str):
            opponents = [opponents] * (game.num_players - 1)
        if not isinstance(opponents, list) or len(opponents) != game.num_players - 1:
            raise WebError(400, f"'opponents' must list {game.num_players - 1} players (the "
                                f"other seats in seat order), got {opponents!r}")
        seed = data.get("seed")
        if seed is None:
            seed = secrets.randbelow(2 ** 31)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 63:
            raise WebError(400, f"'seed' must be an int in 0..2**63-1, got {seed!r}")
        specs = opponents[:seat] + ["human"] + opponents[seat:]
        players = [None if s == seat else self.player(spec, name, seed * 4 + s)
                   for s, spec in enumerate(specs)]
        names = ["human" if s == seat else player_name(spec) for s, spec in enumerate(specs)]
        session = GameSession(game, seat, players, names, seed)
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
            if method != "POST" or len(rest) != 1 or action not in ("move", "cards", "replay"):
                raise WebError(405 if action in ("", "move", "cards", "replay") else 404,
                               f"{method} /api/games/{ident}/{'/'.join(rest)} is not part of "
                               f"the API (see docs/web.md)")
            if action == "replay":
                if not session.state.is_over:
                    raise WebError(409, "the game is not over: its hands are still hidden")
                return 201, self._add_replay(ReplaySession(session.record()), lang)
            data = _body(body)
            version = data.get("version")
            if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
                raise WebError(400, f"'version' must be an int, got {version!r}")
            if action == "move":
                if "action" not in data:
                    raise WebError(400, "the move has no 'action' (an action id)")
                session.move(data["action"], version)
            else:
                choices = session.cards(data.get("cards"), version, translator(lang))
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
        return dict(replay.summary(lang), id=ident)


def _json(data) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def _body(body: bytes) -> dict:
    """The request's JSON object (``WebError`` 400 for anything else)."""
    try:
        data = json.loads(body.decode("utf-8") if body else "{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WebError(400, f"malformed JSON in the request body: {exc}") from None
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

class Handler(BaseHTTPRequestHandler):
    """Hands each request to the server's ``App``."""

    server_version = "cardenv-web"
    protocol_version = "HTTP/1.1"

    def _serve(self, method: str) -> None:
        length = self.headers.get("Content-Length")
        try:
            size = int(length) if length else 0
        except ValueError:
            size = -1
        if size < 0 or size > MAX_BODY:
            status, kind, data = 413, "application/json; charset=utf-8", _json(
                {"error": f"request body too large or unreadable (at most {MAX_BODY} bytes)"})
            self.close_connection = True
        else:
            body = self.rfile.read(size) if size else b""
            status, kind, data = self.server.app.handle(method, self.path, body)
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(data)

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


def make_server(app: App, host: str = "127.0.0.1", port: int = 8000,
                verbose: bool = False) -> ThreadingHTTPServer:
    """An HTTP server for ``app`` (not yet serving: call ``serve_forever``); ``port=0`` picks a
    free port (``server.server_address[1]``)."""
    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    server.app = app
    server.verbose = verbose
    return server
