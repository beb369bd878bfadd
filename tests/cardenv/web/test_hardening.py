"""The web server against clients that misbehave (``cardenv.web.server``): slow, truncated,
oversized and garbage requests sent over raw sockets, too many connections at once, clients
that vanish mid-request, games asking for too many hands, and checkpoints that do not load.

After each abuse the server must still answer another client normally; every error it sends is
JSON with a 4xx/5xx status, and no answer ever carries another seat's hidden cards (the checks of
``tests/cardenv/web/test_server.py``). The server runs here with a 1 s timeout so that the whole
file takes seconds; each loop is bounded."""

import contextlib
import json
import os
import shutil
import socket
import struct
import threading
import time

import pytest

from cardenv.web import App, make_server
from tests.cardenv.web.test_server import call, check_message, hidden_lists, session_of, walk
from tests import ROOT

TIMEOUT = 1.0  # the server's timeout in these tests (20 s by default)
LATE = TIMEOUT + 2.0  # the longest any abuse may hold a test's client (watchdog: 0.1 s polls)


@contextlib.contextmanager
def serving(app=None, **limits):
    server = make_server(app or App(checkpoint_dir=None), "127.0.0.1", 0, timeout=TIMEOUT,
                         **limits)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                              daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def connect(server) -> socket.socket:
    sock = socket.create_connection(server.server_address[:2], timeout=LATE + 3)
    return sock


def read_response(sock) -> tuple[int | None, dict, bytes]:
    """One HTTP response from ``sock``: ``(status, headers, body)``; ``(None, {}, b"")`` if the
    server closed the connection without a word."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            assert not data, f"the server closed mid-response: {data[:200]!r}"
            return None, {}, b""
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (x.split(":", 1) for x in lines[1:])}
    size = int(headers.get("content-length", 0))
    while len(body) < size:
        chunk = sock.recv(65536)
        assert chunk, "the server closed before the announced body"
        body += chunk
    return status, headers, body[:size]


def exchange(server, data: bytes, pause: float = 0.0):
    """Send ``data`` (one byte every ``pause`` seconds if ``pause``) on a new connection, then
    read one response: ``(status, headers, body, seconds)``."""
    start = time.monotonic()
    with connect(server) as sock:
        try:
            if pause:
                for k in range(len(data)):
                    sock.sendall(data[k:k + 1])
                    time.sleep(pause)
                    if time.monotonic() - start > LATE + 1:
                        break  # (the server should have given up long before)
            else:
                sock.sendall(data)
        except OSError:  # the server closed it first: its answer, if any, is still to read
            pass
        status, headers, body = read_response(sock)
    return status, headers, body, time.monotonic() - start


def check_error(status, headers, body, expected: int):
    assert status == expected, (status, body)
    assert 400 <= status < 600
    assert headers["content-type"].startswith("application/json")
    error = json.loads(body)
    assert set(error) == {"error"} and isinstance(error["error"], str) and error["error"]
    return error["error"]


def check_private(server, body: bytes):
    """No card list of the answer is a hand hidden from its seat, in any game the server
    holds (a game's ``view`` is its seat's own, checked whole by ``check_message``: a Dabang
    dealer knows the kitty)."""
    data = json.loads(body)
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "view"}
    for _, session in list(server.app.games._items.values()):
        forbidden = hidden_lists(session.state, session.seat)
        for path, value in walk(data):
            if isinstance(value, list) and len(value) >= 2 and \
                    all(isinstance(c, str) for c in value):
                assert sorted(value) not in forbidden, f"{path} is a hidden hand"


def still_serves(server, game_id: str):
    """Another client gets the game as usual (checked whole against the true state)."""
    request = f"GET /api/games/{game_id} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    status, headers, body, seconds = exchange(server, request)
    assert status == 200 and seconds < LATE, (status, body[:200])  # timeout: served, not held
    message = json.loads(body)
    check_message(server.app, message)
    check_private(server, body)


def post(path: str, body: bytes, extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
            .encode() + body)


def test_abusive_requests_get_json_errors_and_the_server_keeps_serving(capfd):
    app = App(checkpoint_dir=None)
    with serving(app, max_body=4096) as server:
        _, message = call(app, "POST", "/api/games", {"game": "dabang", "seat": 1,
                                                      "opponents": ["random"] * 3, "seed": 4})
        gid = message["id"]
        move = f"/api/games/{gid}/move"
        long_line = b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n"
        many_headers = b"GET /api/info HTTP/1.1\r\n" + b"X-A: b\r\n" * 120 + b"\r\n"
        abuses = [  # (name, request, byte pause, status, words of the error)
            ("null byte in the path", b"GET /static/app.js%00.png HTTP/1.1\r\n\r\n", 0, 400,
             "null byte"),
            ("null byte in the query", f"GET /api/games/{gid}?lang=zh%00 HTTP/1.1\r\n\r\n"
             .encode(), 0, 400, "null byte"),
            ("garbage request line", b"GARBAGE\r\n\r\n", 0, 400, "Bad request"),
            ("binary request line", b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n", 0,
             400, "Bad request"),
            ("HTTP/0.9 request", b"GET /\r\n\r\n", 0, 400, "not an HTTP/1.x request"),
            ("unknown method", b"PATCH /api/info HTTP/1.1\r\n\r\n", 0, 501, "PATCH"),
            ("unknown route", b"GET /api/nothing HTTP/1.1\r\n\r\n", 0, 404, "no such API"),
            ("unknown page", b"GET /../../etc/passwd HTTP/1.1\r\n\r\n", 0, 404, "no such page"),
            ("bad JSON", post(move, b"{oops"), 0, 400, "malformed JSON"),
            ("bad UTF-8", post(move, b"\xff\xfe\x00"), 0, 400, "malformed JSON"),
            ("JSON that is no object", post(move, b"[1, 2]"), 0, 400, "JSON object"),
            ("huge Content-Length", b"POST /api/games HTTP/1.1\r\nContent-Length: "
             b"1000000000000\r\n\r\n", 0, 413, "at most 4096"),
            ("body over max_body", post("/api/games", b"{" + b" " * 5000 + b"}"), 0, 413,
             "at most 4096"),
            ("negative Content-Length", b"POST /api/games HTTP/1.1\r\nContent-Length: -5\r\n"
             b"\r\n", 0, 400, "Content-Length"),
            ("chunked body", b"POST /api/games HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
             b"5\r\nhello\r\n0\r\n\r\n", 0, 501, "Content-Length"),
            ("request line too long", long_line, 0, 414, "URI Too Long"),
            ("too many headers", many_headers, 0, 431, "Too many headers"),
            ("truncated body", b"POST /api/games HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"ga",
             0, 408, "did not arrive"),
            ("truncated headers", b"GET /api/info HTTP/1.1\r\nHost: x\r\n", 0, 408,
             "did not arrive"),
            ("headers a byte at a time", b"GET /api/info HTTP/1.1\r\n" + b"X-Slow: 1\r\n" * 40,
             0.05, 408, "did not arrive"),
            ("body a byte at a time", post(move, json.dumps({"action": 0}).encode() * 10), 0.1,
             408, "did not arrive"),
        ]
        for name, request, pause, expected, words in abuses:
            status, headers, body, seconds = exchange(server, request, pause)
            error = check_error(status, headers, body, expected)
            assert words in error, (name, error)
            assert seconds < LATE, f"{name}: answered after {seconds:.1f} s"  # timeout: cut
            check_private(server, body)
            still_serves(server, gid)
        # a connection that never says a word is closed after the timeout, unanswered
        start = time.monotonic()
        with connect(server) as sock:
            assert read_response(sock)[0] is None
        assert time.monotonic() - start < LATE  # timeout: a silent client is cut
        # clients that vanish mid-request or mid-answer (a reset): no traceback
        for request in (b"GET /api/info HTTP/1.1\r\nHo", b"GET /static/app.js HTTP/1.1\r\n\r\n",
                        post(move, b'{"act')):
            for _ in range(3):
                sock = connect(server)
                sock.sendall(request)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.close()
        time.sleep(TIMEOUT + 0.5)
        still_serves(server, gid)
        assert session_of(app, message).version == 0  # no abuse played a move
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "Error" not in err, err


def test_too_many_connections_are_refused_at_once_not_queued():
    with serving(max_connections=2) as server:
        app = server.app
        _, message = call(app, "POST", "/api/games", {"game": "dagong", "seat": 0,
                                                      "opponents": ["random"] * 3, "seed": 2})
        idle = [connect(server) for _ in range(2)]  # they hold both slots until the timeout
        time.sleep(0.3)
        try:
            status, headers, body, seconds = exchange(server, b"GET /api/info HTTP/1.1\r\n\r\n")
            error = check_error(status, headers, body, 503)
            # timeout: refused at once, not queued until a slot frees
            assert "busy" in error and headers["retry-after"] and seconds < 0.5 * TIMEOUT
            # a crowd: each is answered 503 or closed, none is kept waiting
            crowd = [connect(server) for _ in range(12)]
            for sock in crowd:
                with contextlib.suppress(OSError):
                    sock.sendall(b"GET /api/info HTTP/1.1\r\n\r\n")
            start = time.monotonic()
            answers = []
            for sock in crowd:
                with sock:
                    try:
                        answers.append(read_response(sock)[0])
                    except ConnectionResetError:
                        answers.append(None)
            assert set(answers) <= {503, None} and 503 in answers, answers
            assert time.monotonic() - start < LATE  # timeout: none is kept waiting
        finally:
            for sock in idle:
                sock.close()
        time.sleep(0.3)  # the slots come back as the idle connections end
        still_serves(server, message["id"])


def test_a_busy_server_refuses_new_games_rather_than_drop_games_in_play():
    app = App(checkpoint_dir=None, max_games=2)  # keep_busy: 10 minutes by default
    ids = [call(app, "POST", "/api/games", {"game": "dagong", "opponents": ["random"] * 3})[1]
           ["id"] for _ in range(2)]
    status, answer = call(app, "POST", "/api/games", {"game": "dagong"})
    assert status == 503 and "holds 2 games, all used in the last 10 minutes" in answer["error"]
    for ident in ids:
        assert call(app, "GET", f"/api/games/{ident}")[0] == 200


@pytest.mark.parametrize("game, options, words", [
    ("dagong", {"hands": 100000}, "options.hands is at most 20 on the web page, got 100000"),
    ("dagong", {"hands": 21}, "options.hands is at most 20"),
    ("dagong", {"solo_multiplier": 10 ** 400}, "options.solo_multiplier is at most 1000"),
    ("dabang", {"deal_value": 1e308}, "options.deal_value is at most 1000"),
    ("dabang", {"episode": "match", "max_hands": 101}, "options.max_hands is at most 100"),
])
def test_games_are_bounded(game, options, words):
    app = App(checkpoint_dir=None)
    status, answer = call(app, "POST", "/api/games", {"game": game, "options": options})
    assert status == 400 and words in answer["error"], answer
    assert len(app.games) == 0


def test_a_dabang_match_on_the_page_ends_after_at_most_100_hands():
    app = App(checkpoint_dir=None)
    for options, hands in (({"episode": "match"}, 100), ({"episode": "match", "max_hands": 3}, 3),
                           ({}, None)):
        status, message = call(app, "POST", "/api/games", {
            "game": "dabang", "options": options, "opponents": ["random"] * 3})
        assert status == 201 and message["options"]["max_hands"] == hands
    status, message = call(app, "POST", "/api/games", {
        "game": "dagong", "options": {"hands": 20}, "opponents": ["random"] * 3})
    assert status == 201 and message["options"]["hands"] == 20


def test_the_server_listens_on_loopback_by_default():
    server = make_server(App(checkpoint_dir=None), port=0)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()


# --- checkpoints ----------------------------------------------------------------------------------

def test_checkpoints_that_do_not_load_are_not_offered(tmp_path):
    folder = tmp_path / "checkpoints"
    (folder / "old").mkdir(parents=True)
    (folder / "dagong_broken.pt").write_bytes(b"not a checkpoint")
    (folder / "old" / "empty.pt").write_bytes(b"")
    missing = str(tmp_path / "gone.pt")
    warnings = []
    app = App(checkpoints=[missing], checkpoint_dir=str(folder), warn=warnings.append)
    for _ in range(2):  # each file warned once
        status, info = call(app, "GET", "/api/info")
        assert status == 200 and info["checkpoints"] == []
    assert len(warnings) == 3 and all("\n" not in w for w in warnings)
    assert warnings[0] == f"checkpoint {missing} is not offered: no such file"
    assert any("dagong_broken.pt is not offered" in w for w in warnings)
    status, answer = call(app, "POST", "/api/games", {
        "game": "dagong", "opponents": [str(folder / "dagong_broken.pt"), "random", "random"]})
    assert status == 400 and "unknown player" in answer["error"]


def test_a_checkpoint_that_loads_is_offered_for_the_game_it_plays(tmp_path):
    pytest.importorskip("torch", reason="loading a PPO checkpoint needs torch ([train] extra)")
    shipped = os.path.join(ROOT, "checkpoints", "dagong_ppo.pt")
    if not os.path.exists(shipped):
        pytest.skip("checkpoints/dagong_ppo.pt is not in this checkout")
    shutil.copy(shipped, tmp_path / "mine.pt")  # a name that says no game: the file decides
    warnings = []
    app = App(checkpoint_dir=str(tmp_path), warn=warnings.append)
    assert call(app, "GET", "/api/info")[1]["checkpoints"] == [
        {"path": str(tmp_path / "mine.pt"), "game": "dagong", "label": "mine.pt"}]
    assert warnings == []
    status, message = call(app, "POST", "/api/games", {
        "game": "dagong", "opponents": [str(tmp_path / "mine.pt"), "random", "random"]})
    assert status == 201 and message["players"][1] == str(tmp_path / "mine.pt")


def test_the_command_line_refuses_a_named_checkpoint_that_does_not_load(tmp_path, capsys):
    from cardenv.web.__main__ import main
    (tmp_path / "broken.pt").write_bytes(b"junk")
    for path, reason in ((tmp_path / "gone.pt", "no such file"),
                         (tmp_path / "broken.pt", "broken.pt")):
        assert main(["--port", "0", "--checkpoint", str(path),
                     "--checkpoints", str(tmp_path / "none")]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: --checkpoint {path}: ") and reason in err
        assert err.count("\n") == 1
