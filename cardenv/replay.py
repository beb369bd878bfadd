"""Step through a game record on the terminal: ``python -m cardenv.replay FILE``.

The record (``cardenv.records``; written by ``cardagents evaluate --records`` or
``cardenv.records.save``) is replayed through the rules engine -- a record whose actions are
illegal or whose results the engine does not give back is refused -- and shown move by move: a
line ``move k/n: player_s (name): <action>`` and the table after it, every hand (default) or
only what one seat may know (``--seat N``, ``s N``). The move line always names the action; the
table follows the view. At the end of the record come the hand results in words (for the seat
viewed, or for everyone) and the returns.

Commands, one per line on standard input (so a replay can be scripted)::

    Enter, n   next move            b     back one move        g K   go to move K (0: the deal)
    s N        seat N's view        a     all hands            e     the end
    q          quit                 ?     this help

``--print`` writes every move from ``--step K`` (default 0) to the end and the results, with no
commands. ``--lang en`` writes the Chinese terms in English. A bad file is reported on one line
(standard error) with exit status 2; ``--print | head`` ends quietly when ``head`` has read
enough.

Example::

    python -m cardenv.replay records/dagong-000000-afirst.json --seat 0
    python -m cardenv.replay game.json --print --lang en
"""

from __future__ import annotations

import argparse
import sys

from cardenv import cli
from cardenv.records import RecordError, load, replay
from cardenv.text import explain, move_text, render

HELP = ("commands: Enter or n: next move | b: back one move | g K: go to move K (0: the deal) | "
        "s N: seat N's view | a: all hands | e: the end | q: quit | ?: this help")


def translate(text: str, lang: str) -> str:
    """``text`` with its Chinese terms in ``lang`` (unchanged for ``"zh"``)."""
    if lang == "zh":
        return text
    from cardenv.core.lang import translate as to_lang
    return to_lang(text, lang)


class Replay:
    """A record's states and what to show of them."""

    def __init__(self, record, states, seat: int | None = None, lang: str = "zh"):
        self.record, self.states = record, states
        self.seat, self.lang = seat, lang
        self.moves = len(record.actions)

    def who(self, seat: int) -> str:
        return f"player_{seat} ({self.record.players[seat]})"

    def header(self, k: int) -> str:
        view = "" if self.seat is None else f"  [{self.who(self.seat)}'s view]"
        if k == 0:
            state = self.states[0]
            turn = "" if state.is_over else f", {self.who(state.current_player)} to act"
            return f"move 0/{self.moves}: the deal (seed {self.record.seed}){turn}{view}"
        before = self.states[k - 1]
        text = move_text(before, self.record.actions[k - 1], self.seat, self.lang)
        return f"move {k}/{self.moves}: {self.who(before.current_player)}: {text}{view}"

    def ending(self) -> str:
        state = self.states[-1]
        lines = ["", "end of the record" + ("" if state.is_over else
                                            f" (unfinished: {self.who(state.current_player)} "
                                            f"to act)")
                 + f": {len(state.results)} hand result"
                 + ("" if len(state.results) == 1 else "s")]
        for i, result in enumerate(state.results):  # in words, for the seat viewed or everyone
            lines.append(f"hand {i + 1}: " + explain(state, result, self.seat))
        lines.append("returns: " + ", ".join(f"{self.who(s)} {r:+g}"
                                             for s, r in enumerate(state.returns)))
        return translate("\n".join(lines), self.lang)

    def screen(self, k: int) -> str:
        table = render(self.states[k], seat=self.seat, lang=self.lang)
        text = f"{self.header(k)}\n{table}"
        if k == self.moves:
            text += "\n" + self.ending()
        return text


def interact(show: Replay, k: int, stdin, out) -> None:
    """Read commands from ``stdin`` (see the module docstring) until ``q`` or its end."""
    prompt = stdin.isatty() if hasattr(stdin, "isatty") else False

    def write(text):
        print(text, file=out, flush=True)

    write(show.screen(k))
    while True:
        if prompt:
            print("> ", end="", file=out, flush=True)
        line = stdin.readline()
        if not line:
            break
        words = line.split()
        command, args = (words[0].lower(), words[1:]) if words else ("n", [])
        if command == "q":
            break
        if command == "?" or command == "h":
            write(HELP)
            continue
        if command == "n":
            if k == show.moves:
                write(f"(the end: move {k}/{show.moves}; b: back, g K: go to move K, q: quit)")
                continue
            k += 1
        elif command == "b":
            if k == 0:
                write("(already at the deal, move 0)")
                continue
            k -= 1
        elif command == "e":
            k = show.moves
        elif command == "a":
            show.seat = None
        elif command in ("g", "s"):
            high = show.moves if command == "g" else len(show.record.players) - 1
            what = "move" if command == "g" else "seat"
            try:
                value = int(args[0]) if len(args) == 1 else None
            except ValueError:
                value = None
            if value is None or not 0 <= value <= high:
                write(f"({command} needs a {what} number in 0..{high}, e.g. {command} {high})")
                continue
            if command == "g":
                k = value
            else:
                show.seat = value
        else:
            write(f"(unknown command {line.strip()!r}; {HELP})")
            continue
        write("")
        write(show.screen(k))


def main(argv=None, stdin=None, out=None) -> int:
    """The command line; returns the exit status (2 for a bad record or arguments)."""
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if out is None else out
    parser = cli.ArgumentParser(prog="python -m cardenv.replay", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="a game record (JSON)")
    parser.add_argument("--seat", type=int, help="show only what this seat may know")
    parser.add_argument("--lang", choices=("zh", "en"), default="zh",
                        help="language of the game's terms (default zh)")
    parser.add_argument("--print", dest="print_all", action="store_true",
                        help="write every move and the results, without commands")
    parser.add_argument("--step", type=int, default=0, metavar="K",
                        help="start at move K (default 0: the deal)")
    args = parser.parse_args(argv)
    try:
        record = load(args.file, verify=False)
        states = replay(record)  # checks every action and the results
    except RecordError as exc:
        print(f"cardenv.replay: {exc}", file=sys.stderr)
        return 2
    moves = len(record.actions)
    if args.seat is not None and not 0 <= args.seat < len(record.players):
        parser.error(f"--seat must be in 0..{len(record.players) - 1}, got {args.seat}")
    if not 0 <= args.step <= moves:
        parser.error(f"--step must be in 0..{moves} (the record has {moves} moves), "
                     f"got {args.step}")
    show = Replay(record, states, args.seat, args.lang)
    if args.print_all:
        print("\n\n".join(show.screen(k) for k in range(args.step, moves + 1)), file=out)
    else:
        interact(show, args.step, stdin, out)
    return 0


if __name__ == "__main__":
    cli.run(main)
