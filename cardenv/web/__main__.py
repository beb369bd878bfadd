"""Command line of the web page: ``python -m cardenv.web [--port N] [--host H] [--checkpoint PATH
...] [--checkpoints DIR] [--records DIR]`` serves the page until Ctrl-C."""

from __future__ import annotations

import argparse
import ipaddress
import sys

from cardenv.web.server import App, make_server


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cardenv.web",
        description="Serve a local page to play Dagong and Dabang against the agents and to "
                    "step through game records (see docs/web.md).")
    parser.add_argument("--port", type=int, default=8000, help="port (8000; 0: any free port)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (127.0.0.1: this machine only)")
    parser.add_argument("--checkpoint", action="append", default=[], metavar="PATH",
                        help="a PPO checkpoint to offer as a player (repeatable), besides those "
                             "found in --checkpoints")
    parser.add_argument("--checkpoints", default="checkpoints", metavar="DIR",
                        help="folder searched for *.pt checkpoints (checkpoints/)")
    parser.add_argument("--records", default="records", metavar="DIR",
                        help="folder of game records the viewer lists (records/)")
    parser.add_argument("--no-save", action="store_true",
                        help="do not save finished games as records in --records")
    parser.add_argument("--max-games", type=int, default=64,
                        help="games kept in memory; the least recently used goes first (64)")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    if args.max_games < 1:
        parser.error("--max-games must be >= 1")
    app = App(checkpoints=args.checkpoint, checkpoint_dir=args.checkpoints,
              records_dir=args.records, max_games=args.max_games,
              save_records=not args.no_save)
    try:
        server = make_server(app, args.host, args.port, verbose=args.verbose)
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
    sys.exit(main())
