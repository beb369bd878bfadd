"""Command line of the web page: ``python -m cardenv.web [--port N] [--host H] [--checkpoint PATH
...] [--checkpoints DIR] [--records DIR]`` serves the page until Ctrl-C.

It listens on 127.0.0.1 (this machine only) unless ``--host`` says otherwise, with a warning,
since the page has no login. Checkpoints are loaded before it starts serving: a ``--checkpoint``
that does not load stops it (exit 2, naming the file and the reason), since it was asked for by
name; a file of the ``--checkpoints`` folder that does not load is only left out of the page's
menu, with a one-line warning, and a page with no checkpoint at all is warned about once.

``--checkpoints`` and ``--leagues`` default to the repository's ``checkpoints/`` and
``docs/results/``, found from any working folder (``cardenv.web.paths``): the shipped agents
and leagues are offered wherever the server is started."""

from __future__ import annotations

import ipaddress
import os
import sys

from cardenv import cli
from cardenv.web import paths
from cardenv.web.server import App, make_server

MAX_GAMES = 10_000  # --max-games: games kept in memory
MAX_CONNECTIONS = 1024  # --max-connections: threads serving at once
MAX_TIMEOUT = 3600.0  # --timeout: seconds


def _parser():
    parser = cli.ArgumentParser(
        prog="python -m cardenv.web",
        description="Serve a local page to play Dagong and Dabang against the agents and to "
                    "step through game records (see docs/web.md).")
    parser.add_argument("--port", type=int, default=8000, help="port (8000; 0: any free port)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (127.0.0.1: this machine only)")
    parser.add_argument("--checkpoint", action="append", default=[], metavar="PATH",
                        help="a PPO checkpoint to offer as a player (repeatable), besides those "
                             "found in --checkpoints")
    parser.add_argument("--checkpoints", default=None, metavar="DIR",
                        help="folder searched for *.pt checkpoints (checkpoints/ of the current "
                             "folder, else of the repository cardenv was installed from)")
    parser.add_argument("--records", default="records", metavar="DIR",
                        help="folder of game records the viewer lists (records/)")
    parser.add_argument("--leagues", default=None, metavar="DIR",
                        help="folder whose league*.json tables (python -m cardagents league) the "
                             "/league page shows (docs/results/ of the current folder, else of "
                             "the repository)")
    parser.add_argument("--league", action="append", default=[], metavar="FILE",
                        help="a league's JSON to show on the /league page (repeatable)")
    parser.add_argument("--no-save", action="store_true",
                        help="do not save finished games as records in --records")
    parser.add_argument("--max-games", type=int, default=64,
                        help="games kept in memory; the least recently used goes first, unless "
                             "it was used in the last 10 minutes (64)")
    parser.add_argument("--max-connections", type=int, default=32,
                        help="connections served at once; the next ones are answered 503 (32)")
    parser.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS",
                        help="time a client has for each request, and for each read and write "
                             "(20)")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    return parser


def _check(parser, args) -> None:
    """The arguments' bounds, and the files and folders they name, checked before anything
    starts (``parser.error`` on the first that is wrong)."""
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    if not 1 <= args.max_games <= MAX_GAMES:
        parser.error(f"--max-games must be in 1..{MAX_GAMES}, got {args.max_games}")
    if not 1 <= args.max_connections <= MAX_CONNECTIONS:
        parser.error(f"--max-connections must be in 1..{MAX_CONNECTIONS}, got "
                     f"{args.max_connections}")
    if not 0 < args.timeout <= MAX_TIMEOUT:  # also refuses nan and inf
        parser.error(f"--timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}], got "
                     f"{args.timeout}")
    if "\0" in args.host:
        parser.error(f"--host {args.host!r}: an address holds no NUL character")
    for path in args.checkpoint:
        if "\0" in path:
            parser.error(f"--checkpoint {path!r}: a file name holds no NUL character")
    if "\0" in args.checkpoints or (os.path.exists(args.checkpoints)
                                     and not os.path.isdir(args.checkpoints)):
        parser.error(f"--checkpoints {args.checkpoints!r}: not a folder")
    # finished games are saved there: checked now, not when the first game ends
    problem = cli.output_folder_problem(args.records) if not args.no_save else \
        ("not a folder" if "\0" in args.records or (os.path.exists(args.records)
                                                   and not os.path.isdir(args.records))
         else None)
    if problem:
        parser.error(f"--records {args.records!r}: {problem}")
    for path in args.league:  # named by the user: one that cannot be shown is a mistake
        if "\0" in path or not os.path.isfile(path):
            parser.error(f"--league {path!r}: no such file")


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.checkpoints is None:
        args.checkpoints = paths.shipped("checkpoints")
    if args.leagues is None:
        args.leagues = paths.shipped("docs/results")
    _check(parser, args)
    app = App(checkpoints=args.checkpoint, checkpoint_dir=args.checkpoints,
              records_dir=args.records, max_games=args.max_games,
              save_records=not args.no_save, league_dir=args.leagues,
              league_files=args.league)
    for path in args.checkpoint:  # named by the user: one that does not load is a mistake
        game, reason = app.check_checkpoint(path, warn=False)
        if game is None:
            print(f"error: --checkpoint {path}: {reason}", file=sys.stderr)
            return 2
    if not app.checkpoints():  # loads the folder's now, each that does not load warned once
        print(f"warning: no checkpoint found in {args.checkpoints}: the page offers random, "
              f"heuristic and the search player only (--checkpoints DIR names the folder)",
              file=sys.stderr, flush=True)
    try:
        server = make_server(app, args.host, args.port, verbose=args.verbose,
                             timeout=args.timeout, max_connections=args.max_connections)
    except OSError as exc:
        parser.error(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
    host, port = server.server_address[:2]
    try:
        public = not ipaddress.ip_address(host).is_loopback
    except ValueError:
        public = True
    if public:
        print(f"warning: listening on {host}, reachable from other machines; the page has no "
              f"login", file=sys.stderr)
    shown = f"[{host}]" if ":" in host else host
    print(f"cardenv web page: http://{shown}:{port}/  (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nStopped.")
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    cli.run(main)
