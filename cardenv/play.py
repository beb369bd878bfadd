"""Play against the agents, or watch them, in the terminal.

    python -m cardenv.play dagong --seat 0 --opponents heuristic,checkpoints/dagong_ppo.pt,heuristic
    python -m cardenv.play dabang --seat 2 --opponents heuristic --match
    python -m cardenv.play dagong --agents heuristic,random,heuristic,random --delay 0.5
    python -m cardenv.play dabang                   # watch one random game, tally 200 more

Playing a seat (``--seat``), you see only what that seat may know: your hand (Dagong: sorted by
rank and suit; Dabang: grouped by suit, the trump apart), the other seats' card counts, the moves
since your last turn (a run of the same move once, with its count; a Dabang follow once whole),
and everything public. On your turn, type the number of a move from the list, or the move itself
("pair 7", "bomb 5x9", "pass"; Dabang moves name cards: "single ♠4" or "single 4s"; a unique
beginning is enough), or "more TYPE" for the whole of a type cut short in the list. In Dagong,
the cards of a play typed ("♠4 ♥4", or "4s 4h") are the move that plays them. In Dabang,
type a whole follow or burial as cards ("♠4 ♠4 ♥5", or "4s 4s 5h"): it is played step by step
for you, and refused whole if any step is not legal; in the tribute return, 扣王 and take-back,
one card typed alone is that move. Other commands: "?" this help, "moves" the list again,
"view" the table again, "quit".

``--agents`` with four agents watches a game with every hand shown, pausing ``--delay``
seconds between moves, or waiting for Enter with ``--step``. Without ``--seat`` or ``--agents``,
one random game is shown and ``--games`` more are tallied silently. Rules options (``--set``)
are checked, and apply, in every mode. Without ``--seed`` the deal is drawn at random and its
seed printed first (``seed N (replay with --seed N)``), so that a game can be played again.

Players are ``human`` (at ``--seat``), ``random``, and whatever installed packages provide
through ``cardenv.player_specs`` (this repository's ``cardagents``: ``heuristic``, ``pimc:...``
or a PPO checkpoint path). Each game played or watched is saved as a JSON game record
(``--record DIR``, default ``records/``; ``--no-record`` to skip) that ``python -m
cardenv.replay FILE`` steps through.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import os
import sys
import textwrap
import time

import numpy as np

from cardenv import cli
from cardenv.core.options import parse_assignments
from cardenv.games import make_game, names as game_names
from cardenv.moves import group_moves, is_type, label, moves_text, open_step, parse_move
from cardenv.player_specs import decide, load_player, player_name
from cardenv.text import explain, move_text, plays_matches, render


HELP = __doc__.split("\n\n")[2].replace("``", "")  # ``?``: that paragraph, as plain text
MAX_SEED = 2 ** 32 - 1  # --seed (player seeds are 4 * seed + seat)
MAX_GAMES = 1_000_000  # --games: random mode's silent games (about 1,000 a second)
MAX_DELAY = 3600.0  # --delay: seconds between moves


class Quit(Exception):
    """The human asked to stop."""


# --- the game loop -----------------------------------------------------------------------------

class Table:
    """One game with its players: ``human_seat`` (or ``None``) reads ``read_line`` and writes
    ``write``; agents act through ``act(observation dict)``."""

    def __init__(self, game, players, seed: int, human_seat: int | None, lang: str = "zh",
                 read_line=input, write=print, delay: float = 0.0, step: bool = False):
        self.game, self.players, self.seed = game, players, seed
        self.human, self.lang = human_seat, lang
        self.read_line, self.write = read_line, write
        self.delay, self.step_mode = delay, step
        self.state = game.new_state(seed)
        self.log: list[str] = []  # public moves since the human last acted
        self.steps: list[tuple[int, str]] = []  # a Dabang follow's steps until it is whole

    def translate(self, text: str) -> str:
        if self.lang == "zh":
            return text
        from cardenv.core.lang import translate
        return translate(text, self.lang)

    def observation(self, seat: int) -> dict:
        return {"observation": self.state.observation(seat),
                "action_mask": self.state.legal_mask().astype(np.int8)}

    def move_text(self, seat: int, action: int) -> str:
        """The move as the human sees it (every hand when watching)."""
        return f"player_{seat}: {move_text(self.state, action, self.human, self.lang)}"

    def show_hand_end(self, before: int) -> None:
        if self.log:
            self.write("Last moves: " + log_text(self.log))
            self.log = []
        for number, result in enumerate(self.state.results[before:], before + 1):
            self.write(f"\n=== Hand {number} over ===")
            if self.state.is_over:  # else the table is already the next hand's deal: the
                # result below says how this one ended, the next prompt shows the new table
                self.write(render(self.state, seat=self.human, lang=self.lang))
            self.write(explain(self.state, result, self.human, self.lang))  # None: watching

    def play(self) -> None:
        state = self.state
        if self.human is None:
            self.write(render(state, lang=self.lang))
        while not state.is_over:
            seat = state.current_player
            hands_before = len(state.results)
            if seat == self.human:
                actions = self.ask()
            else:
                actions = [decide(self.players[seat], state, self.observation(seat))]
            for action in actions:
                text = self.move_text(seat, action)
                state.apply(action)
                if self.human is None:
                    self.write(f"\n{text}")
                    self.write(render(state, lang=self.lang))
                    self.pause()
                elif seat != self.human:
                    self.note(seat, action, text)
            if len(state.results) > hands_before:
                self.show_hand_end(hands_before)

    def note(self, seat: int, action: int, text: str) -> None:
        """Log another seat's move for the human. A move built in several steps (a Dabang
        follow: ``open_step``) is logged once whole, its groups in card order, as the web
        page's log has it (the order the steps were chosen in is not shown)."""
        state = self.state
        self.steps.append((action, text.split(": ", 1)[1]))
        if not state.is_over and state.current_player == seat and open_step(state):
            return  # the move is not whole yet
        if len(self.steps) > 1:
            text = f"player_{seat}: " + " + ".join(t for _, t in sorted(self.steps))
        self.steps = []
        self.log.append(text)

    def pause(self) -> None:
        if self.step_mode:
            try:
                typed = self.read_line("[Enter: next move, q: quit] ")
            except EOFError:  # the input ended (a pipe, Ctrl-D): stop as 'q' does
                raise Quit from None
            if typed.strip().lower() in ("q", "quit"):
                raise Quit
        elif self.delay:
            time.sleep(self.delay)

    def ask(self) -> list[int]:
        """The human's move(s), asked until valid."""
        state, seat = self.state, self.human
        self.write("\n" + render(state, seat=seat, lang=self.lang))
        if self.log:
            self.write("Since your last move: " + log_text(self.log))
            self.log = []
        legal = state.legal_actions()
        self.write(moves_text(self.game, legal, self.translate, phase=state.phase))
        while True:
            try:
                typed = self.read_line(f"player_{seat}> ")
            except EOFError:
                raise Quit from None
            word = typed.strip().lower()
            if word in ("q", "quit", "exit"):
                raise Quit
            if word in ("?", "help"):
                self.write(textwrap.fill(self.translate(HELP), 96))  # rewrapped: the
                # English terms are longer or shorter than the Chinese ones
                continue
            if word in ("moves", "m", "list"):
                self.write(moves_text(self.game, legal, self.translate, phase=state.phase))
                continue
            if word in ("view", "v"):
                self.write(render(state, seat=seat, lang=self.lang))
                continue
            if word.startswith("more "):
                kind = word[5:].strip()
                kinds = group_moves(self.game, legal)
                if not any(is_type(self.game, k, kind, self.translate, state.phase)
                           for k in kinds):
                    names = ", ".join(f"'{label(self.game, k, self.translate, state.phase)}'"
                                      for k in kinds)
                    self.write(f"No '{kind}' moves now: the types here are {names}")
                    continue
                self.write(moves_text(self.game, legal, self.translate, expand=kind,
                                      phase=state.phase))
                continue
            if not word:
                continue
            try:
                actions = parse_move(state, typed, self.translate)
            except ValueError as exc:
                self.write(f"Not played: {exc}")
                continue
            joint = "; "  # several moves (a burial), or one built step by step (a follow):
            if len(actions) > 1:
                trial = state.clone()
                trial.apply(actions[0])
                joint = " + " if open_step(trial) else "; "
            self.write("You play: " + joint.join(self.translate(self.game.action_info(a).text)
                                                 for a in actions))  # a follow as the log has it
            return actions


def log_text(log: list[str]) -> str:
    """The moves of ``log`` on one line, a run of the same move said once with its count
    (``player_0: buries a card in the 底牌 (8 times)``)."""
    runs = [(text, len(list(group))) for text, group in itertools.groupby(log)]
    return "; ".join(text if n == 1 else f"{text} ({n} times)" for text, n in runs)


def save_record(state, names: list[str], directory: str, meta: dict) -> str | None:
    """Write the game's JSON record into ``directory``; its path (``None`` if records are
    not available)."""
    try:
        from cardenv import records
    except ImportError:  # pragma: no cover - records ship with this package
        return None
    os.makedirs(directory, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = os.path.join(directory, f"{state.game.name}-{state.seed}-{stamp}.json")
    records.save(records.record_of(state, names, meta=meta), path)
    return path


# --- the random games of the old spectator mode ------------------------------------------------

def random_episode(game, seed: int, rng: np.random.Generator, show: bool, lang: str = "zh"):
    """One game of uniformly random legal moves (drawn by ``rng``), shown move by move with
    every hand when ``show``; the finished state."""
    state = game.new_state(seed)
    if show:
        print(render(state, lang=lang))
    while not state.is_over:
        seat = state.current_player
        action = int(rng.choice(np.flatnonzero(state.legal_mask())))
        if show:
            print(f"\nplayer_{seat}: {move_text(state, action, None, lang)}")
        state.apply(action)
        if show:
            print(render(state, lang=lang))
    return state


def tally(game, games: int, seed: int, quiet: bool, lang: str = "zh") -> None:
    """Show one random game of ``game`` (unless ``quiet``), then play ``games`` more silently
    and count how their hands ended (a result's ``label``, where the game's results have
    one)."""
    rng = np.random.default_rng(seed)
    if not quiet:
        random_episode(game, seed, rng, show=True, lang=lang)
    reasons, steps = collections.Counter(), 0
    start = time.perf_counter()
    for i in range(games):
        state = random_episode(game, seed + 1 + i, rng, show=False)
        steps += len(state.history)
        reasons.update(getattr(r, "label", "over") for r in state.results)
        if (i + 1) % max(1, games // 10) == 0:
            print(f"\r{i + 1}/{games} games", end="", file=sys.stderr, flush=True)
    if games:
        elapsed = time.perf_counter() - start
        print(f"\n{games} random games in {elapsed:.1f} s ({steps / elapsed:,.0f} steps/s); "
              f"hands ended by: " + ", ".join(f"{k} {v}" for k, v in reasons.most_common()))


# --- command line ------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = cli.ArgumentParser(prog="python -m cardenv.play", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=game_names())
    parser.add_argument("--seat", type=int, help="play this seat (0..3) yourself")
    parser.add_argument("--opponents", default="heuristic",
                        help="the other three seats in seat order, comma-separated, or one "
                             "player for all three (default: heuristic)")
    parser.add_argument("--agents", help="watch: four players, comma-separated, seat order")
    parser.add_argument("--seed", type=int,
                        help="the deal's seed (default: a random one, printed for a replay)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a rules option, e.g. --set hands=3 or --set dealer=random")
    parser.add_argument("--match", action="store_true",
                        help="Dabang: play a whole match (--set episode=match)")
    parser.add_argument("--lang", default="zh", choices=("zh", "en"),
                        help="zh keeps the games' Chinese terms, en writes them in English")
    parser.add_argument("--delay", type=float, default=1.0,
                        help="watching: seconds between moves (1.0; 0..3600)")
    parser.add_argument("--step", action="store_true", help="watching: wait for Enter")
    parser.add_argument("--record", default="records", metavar="DIR",
                        help="where to save the game record (records/)")
    parser.add_argument("--no-record", action="store_true", help="do not save a record")
    parser.add_argument("--games", type=int, default=200,
                        help="random mode: silent games to tally (200; at most 1,000,000)")
    parser.add_argument("--quiet", action="store_true", help="random mode: do not show a game")
    return parser


def _game(parser, args):
    """The game ``args`` asks for (its ``--set`` options, ``--match``), with the options that
    hold in every mode checked (``--record``, ``--delay``, ``--seed``; a drawn seed is set)."""
    if args.seat is not None and args.agents is not None:
        parser.error("--seat plays a game, --agents watches one: give one of them")
    # the options are checked in every mode (the random mode plays under them too)
    try:
        options = parse_assignments(args.set)
    except ValueError as exc:
        parser.error(str(exc))
    if args.match:
        matches = [name for name in game_names() if plays_matches(name)]
        if args.game not in matches:
            parser.error(f"--match is for {', '.join(matches) or 'no game here'} (the games "
                         f"with an option episode='match'); for {args.game}, see its options "
                         f"(--set KEY=VALUE)")
        options["episode"] = "match"
    try:
        game = make_game(args.game, **options)
    except ValueError as exc:
        parser.error(str(exc))
    if not args.no_record and (args.seat is not None or args.agents is not None) and \
            (problem := cli.output_folder_problem(args.record)):
        parser.error(f"--record {args.record}: {problem}")  # now, not after the game
    if not 0 <= args.delay <= MAX_DELAY:  # also refuses nan; inf is over the bound
        parser.error(f"--delay must be a number of seconds in 0..{MAX_DELAY}, got {args.delay}")
    if args.seed is None:
        args.seed = int(np.random.default_rng().integers(MAX_SEED + 1))
    elif not 0 <= args.seed <= MAX_SEED:
        parser.error(f"--seed must be in 0..{MAX_SEED}, got {args.seed}")
    return game


def _seating(parser, args, game) -> tuple[list, list, int | None]:
    """The four seats' specs, players (``None`` for the human) and the human's seat (``None``
    when watching)."""
    if args.agents is not None:
        specs = [s.strip() for s in args.agents.split(",")]
        if len(specs) != 4:
            parser.error(f"--agents wants 4 players (seat order), got {len(specs)}")
        human = None
    else:
        if not 0 <= args.seat < game.num_players:
            parser.error(f"--seat must be 0..{game.num_players - 1}, got {args.seat}")
        others = [s.strip() for s in args.opponents.split(",")]
        if len(others) == 1:
            others *= 3
        if len(others) != 3:
            parser.error(f"--opponents wants 1 or 3 players, got {len(others)}")
        specs = others[:args.seat] + ["human"] + others[args.seat:]
        human = args.seat
    players = []
    for seat, spec in enumerate(specs):
        if spec == "human":
            if seat != human:
                parser.error("'human' plays only at --seat")
            players.append(None)
            continue
        try:
            player = load_player(spec, args.game, seed=args.seed * 4 + seat)
        except ValueError as exc:
            parser.error(f"seat {seat}: {exc}")
        if hasattr(player, "reseed"):
            player.reseed(args.seed * 4 + seat)
        players.append(player)
    return specs, players, human


def main(argv=None, read_line=input, write=print) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    drawn = args.seed is None  # a fresh deal each time, said so that it can be played again
    game = _game(parser, args)

    def say_seed():
        if drawn:
            write(f"seed {args.seed} (replay with --seed {args.seed})")

    if args.seat is None and args.agents is None:
        if not 0 <= args.games <= MAX_GAMES:
            parser.error(f"--games must be in 0..{MAX_GAMES:,}, got {args.games}")
        say_seed()
        tally(game, args.games, args.seed, args.quiet, args.lang)
        return 0
    specs, players, human = _seating(parser, args, game)
    table = Table(game, players, args.seed, human, args.lang, read_line, write,
                  delay=args.delay, step=args.step)
    names = [player_name(s) for s in specs]
    say_seed()
    write(f"{args.game}, seed {args.seed}: " + ", ".join(
        f"player_{i} {'you' if i == human else n}" for i, n in enumerate(names)))
    finished = True
    try:
        table.play()
    except Quit:
        finished = False
        write("Stopped.")
    except KeyboardInterrupt:
        finished = False
        write("\nStopped.")
    if not args.no_record and table.state.history:
        path = save_record(table.state, names, args.record,
                           {"source": "cardenv.play", "finished": finished})
        if path:
            write(f"Game record: {path} (python -m cardenv.replay {path})")
    return 0


if __name__ == "__main__":
    cli.run(main)
