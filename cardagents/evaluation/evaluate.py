"""Pit two agents against each other in duplicate format: ``python -m cardagents evaluate``.

Every deal (a seed) is played twice: agent A as one side and agent B as the other, then the same
deal with the sides swapped, so the luck of the cards cancels. The sides are the hand's
partnerships as the deal makes them (the game's ``sides``): Dabang's fixed teams (seats 0 + 2
against 1 + 3); in Dagong the dealer and the holder of the called card's twin against the other
two, known from the deal before anyone moves (seat-based sides would put A and B on both teams
in two hands out of three and cancel). If someone goes solo (硬牌) the hand is one against three,
and each agent still scores the sum of its seats. For each deal pair, A's score is the sum of its
seats' rewards over both games; A wins the pair if its score beats B's (ties are counted apart
and as half a win).

Reported, with 95% confidence intervals: the win rate (Wilson interval) and the mean payoff
per game (A's reward per game, normal interval). Dabang is measured per hand (hand episodes:
the level-change reward) and, with ``--match``, per match (+1 / -1). Results are printed and,
with ``--out``, written as JSON. Every argument is checked before the first game -- the ``--out``
file's folder must exist and be writable, ``--records`` must be a folder or creatable, an
``--address`` must answer -- and a bad one is one line on standard error, exit status 2.

Agents: ``random``, ``heuristic``, ``pimc`` (search over sampled worlds, ``cardagents.search.pimc``;
with options: ``pimc:worlds=32,rollout=heuristic,top_k=8``), or a PPO checkpoint path
(``runs/.../final.pt``).

``--records DIR`` writes every game played as a game record (``cardenv.records``, described in
``docs/records.md``; step through one with ``python -m cardenv.replay FILE``), two per deal:
``{game}-{deal seed:06d}-afirst.json``, the pair's first game, agent A on the deal's first side
(the game's ``sides(state)[0]``: in Dagong the dealer's side, in Dabang seats 0 and 2), and
``{game}-{deal seed:06d}-bfirst.json``, the same deal with the agents swapped. The seats are
named by the agent specs; ``meta`` holds the deal, which game of the pair it is, A's and B's
seats and specs, and the evaluation's seed. With ``--match`` a record is a whole match. Writing
records changes nothing in the evaluation (same games, same statistics).

The deals are played in chunks of ``CHUNK`` pairs, the agents' random choices restarting at
each chunk; ``--workers N`` plays the chunks as Ray tasks (the ``[dist]`` extra; ``--address``
joins a cluster) and gives exactly the result of one process.

Example::

    python -m cardagents evaluate dagong heuristic random --deals 4000 --out result.json
    python -m cardagents evaluate dabang checkpoints/dabang_ppo.pt heuristic --workers 2
    python -m cardagents evaluate dagong heuristic random --deals 10 --records records/
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone

from cardagents.evaluation.duplicate import (CHUNK, chunk_seed, combine, deal_chunks, mean_interval,
                                             play_pairs, summarize, wilson)
from cardagents.evaluation.progress import Progress
from cardagents.players.lockstep import as_game
from cardagents.specs import make_agent
from cardenv import cli
from cardenv.core.options import parse_assignments
from cardenv.games import names

# the statistics and the chunk size are cardagents.evaluation.duplicate's; they stay importable from
# here, where the documentation and the tests take them
__all__ = ["CHUNK", "duplicate", "main", "mean_interval", "record_writer",
           "summarize", "wilson"]

MAX_HANDS = 40  # --match: a match is truncated after this many hands
MAX_SEED = 2 ** 32 - 1  # --seed: the deals are seeds seed, seed + 1, ... (at most 2**63 - 1)
MAX_DEALS = 10 ** 8  # --deals: deal pairs (a million take about an hour on one core)
MAX_WORKERS = 1024  # --workers: Ray tasks at a time


def duplicate(game, agent_a, agent_b, deals: int, options: dict | None = None,
              seed: int = 0, batch: int = 256, progress=None, workers: int = 0,
              address: str | None = None, records=None) -> dict:
    """Play ``deals`` deal pairs (seeds ``seed``, ``seed + 1``, ...) of ``game``, a made
    ``Game`` (``cardenv.games.make_game``: the rules options are its own) or a registered
    game's name with its ``options``; returns the statistics for agent A (see
    ``cardagents.evaluation.duplicate.summarize``). ``progress(games)`` hears how many of the
    ``2 * deals`` games are finished (e.g. an ``cardagents.evaluation.progress.Progress``).

    The deals go in chunks of ``CHUNK`` pairs, and the agents' random choices (the random
    player, the heuristics' tie-breaks, a sampling PPO agent) restart at each chunk from a seed
    of its own, so every chunk's games are the same wherever they are played: ``workers > 0``
    plays the chunks as Ray tasks (``cardagents.evaluation.remote``; on the cluster at ``address``,
    else a local instance) and returns exactly what one process returns.

    ``records(seed, a_side, a_first, b_first)``, if given, hears every deal pair's two games
    (``Finished`` with their actions; A on ``a_side`` in ``a_first``, B there in ``b_first``)
    in deal order, e.g. to write game records; the games and statistics are the same."""
    game = as_game(game, options)  # made once: every chunk, here or on Ray, plays this one
    starts, chunks = deal_chunks(deals, seed)
    if workers:
        from cardagents.evaluation.remote import play_chunks
        parts = play_chunks(game, agent_a, agent_b, chunks,
                            [chunk_seed(seed, s) for s in starts], batch, workers,
                            address, progress, history=records is not None)
        if records is not None:
            for part in parts:
                for pair in part.games:
                    records(*pair)
    else:
        parts, done = [], 0
        for start, chunk in zip(starts, chunks):
            sub = None
            if progress is not None:
                sub = (lambda base: lambda n: progress(base + n))(done)
            part = play_pairs(game, agent_a, agent_b, chunk, chunk_seed(seed, start), batch,
                              sub, history=records is not None)
            if records is not None:
                for pair in part.games:
                    records(*pair)
                part = part._replace(games=None)  # the games are written: keep the scores
            parts.append(part)
            done += 2 * len(chunk)
    return combine(parts)


def record_writer(folder: str, game, spec_a: str, spec_b: str, evaluation: dict):
    """A ``duplicate(records=...)`` callback writing each deal pair's two games of ``game`` (a
    made ``Game``) as game records in ``folder`` (file names and ``meta``: see the module
    docstring)."""
    from cardenv.records import GameRecord, save

    options, name = game.options_dict(), game.name
    date = datetime.now(timezone.utc).isoformat(timespec="seconds")

    def write(seed, a_side, a_first, b_first):
        for order, done in (("a", a_first), ("b", b_first)):
            a_seats = [s for s in range(4) if (s in a_side) == (order == "a")]
            players = [spec_a if s in a_seats else spec_b for s in range(4)]
            meta = {"source": "cardagents.evaluation.evaluate", "date": date, "deal": seed,
                    "game_of_pair": 1 if order == "a" else 2, "agent_a": spec_a,
                    "agent_b": spec_b, "a_seats": a_seats,
                    "b_seats": [s for s in range(4) if s not in a_seats],
                    "truncated": bool(done.truncated), "evaluation": evaluation}
            record = GameRecord(game=name, options=options, seed=int(done.seed),
                                players=players, actions=[int(a) for a in done.history],
                                results=[r.to_dict() for r in done.results],
                                returns=list(done.returns), meta=meta)
            save(record, os.path.join(folder, f"{name}-{seed:06d}-{order}first.json"))

    return write


def check_seed_threads(parser, args) -> None:
    """``--seed`` and ``--threads``, as every command line that plays deal pairs takes them
    (``evaluate``, ``league``, ``compare``); ``parser.error`` (one line, exit 2) if wrong."""
    if not 0 <= args.seed <= MAX_SEED:  # (as in train.py and cardenv.play)
        parser.error(f"--seed must be in 0..{MAX_SEED}, got {args.seed}")
    if not 1 <= args.threads <= cli.MAX_THREADS:
        parser.error(f"--threads must be >= 1 (at most {cli.MAX_THREADS}), got {args.threads}")


def check_run(parser, args) -> None:
    """The checks the command lines that can play on Ray share (``evaluate``, ``league``):
    ``check_seed_threads``, ``--workers`` and ``--address``, and Ray where ``--workers`` asks
    for it; ``parser.error`` (one line, exit 2) on the first that fails."""
    check_seed_threads(parser, args)
    if not 0 <= args.workers <= MAX_WORKERS:
        parser.error(f"--workers must be in 0..{MAX_WORKERS}, got {args.workers}")
    if args.address and not args.workers:
        parser.error("--address needs --workers")
    if args.workers:
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error('--workers needs Ray: pip install -e ".[dist]"')


def join_workers(parser, args) -> None:
    """Join (or start) Ray where ``--workers`` asks for it, so that an unreachable
    ``--address`` fails before the games (``evaluate``, ``league``); ``parser.error`` if so."""
    if args.workers:
        from cardagents.cluster import Unreachable, connect
        try:
            connect(args.address, args.workers)
        except Unreachable as exc:
            parser.error(f"--address: {exc}")


def set_torch_threads(threads: int) -> None:
    """``--threads``: torch's CPU threads, where a PPO agent was loaded (torch imported)."""
    if "torch" in sys.modules and sys.modules["torch"] is not None:
        sys.modules["torch"].set_num_threads(threads)


def main(argv=None) -> dict:
    parser = _parser()
    args = parser.parse_args(argv)
    _check_arguments(parser, args)
    options, game, a, b = _game_and_agents(parser, args)
    join_workers(parser, args)
    records = _records(parser, args, game)
    set_torch_threads(args.threads)
    start = time.perf_counter()
    progress = None if args.quiet else Progress(2 * args.deals, "evaluation", "games")
    stats = duplicate(game, a, b, args.deals, seed=args.seed, progress=progress,
                      workers=args.workers, address=args.address, records=records)
    stats.update(game=args.game, agent_a=args.agent_a, agent_b=args.agent_b, seed=args.seed,
                 options=options, unit="match" if args.match else "hand",
                 seconds=time.perf_counter() - start)
    for side, agent in (("a", a), ("b", b)):
        if getattr(agent, "searched", 0) and not args.workers:  # (Ray: counted remotely)
            stats[f"search_{side}"] = {
                "decisions": agent.searched, "seconds": agent.search_seconds,
                "seconds_per_decision": agent.search_seconds / agent.searched}
    _report(args, stats, options)
    return stats


def _parser() -> cli.ArgumentParser:
    """The command line of ``python -m cardagents evaluate``."""
    parser = cli.ArgumentParser(prog="python -m cardagents evaluate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=names())
    parser.add_argument("agent_a", help="random, heuristic, pimc[:key=value,...], or a PPO "
                                             "checkpoint path")
    parser.add_argument("agent_b", help="random, heuristic, pimc[:key=value,...], or a PPO "
                                        "checkpoint path")
    parser.add_argument("--deals", type=int, default=1000,
                        help="deal pairs (default 1000, at most 10**8)")
    parser.add_argument("--seed", type=int, default=0, help="first deal's seed (default 0)")
    parser.add_argument("--match", action="store_true",
                        help="dabang: whole matches (+1/-1) instead of single hands")
    parser.add_argument("--max-hands", type=int, default=MAX_HANDS,
                        help=f"dabang --match: truncate a match after this many hands "
                             f"({MAX_HANDS})")
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a rules option of the game, e.g. --set dealer=random (repeatable)")
    parser.add_argument("--out", help="write the result as JSON to this path")
    parser.add_argument("--records", metavar="DIR",
                        help="write every game played as a game record (JSON) in this folder: "
                             "{game}-{deal seed:06d}-afirst.json (A on the deal's first side) "
                             "and -bfirst.json (sides swapped); see docs/records.md")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads of a PPO agent (default 1: the games are batched, "
                             "and more threads contend with anything else running; at most "
                             "1024)")
    parser.add_argument("--workers", type=int, default=0,
                        help="play the deals as Ray tasks, this many at a time (the [dist] "
                             "extra); the result is the same as in one process")
    parser.add_argument("--address", help="with --workers: the Ray cluster to join ('auto', "
                                          "'host:port'; default: start a local instance)")
    return parser


def _check_arguments(parser, args) -> None:
    """The counts, ``check_run``'s checks, and every path written at the end (a result is
    never lost after the games); ``parser.error`` on the first that fails."""
    if not 1 <= args.deals <= MAX_DEALS:
        parser.error(f"--deals must be >= 1 (at most {MAX_DEALS:,}), got {args.deals}")
    check_run(parser, args)
    if args.out is not None and (problem := cli.output_file_problem(args.out)):
        parser.error(f"--out {args.out}: {problem}")
    if args.records is not None and (problem := cli.output_folder_problem(args.records)):
        parser.error(f"--records {args.records}: {problem}")


def _game_and_agents(parser, args) -> tuple:
    """(the rules options, the game the deals are played in, agent A, agent B), made once
    (the game checks the options: ``--set``, ``--match``); ``parser.error`` if one fails."""
    options = {"episode": "match", "max_hands": args.max_hands} if args.match else {}
    try:
        options.update(parse_assignments(args.set))
    except ValueError as exc:
        parser.error(str(exc))
    try:
        game = as_game(args.game, options)
        a = make_agent(args.agent_a, args.game, args.seed)
        b = make_agent(args.agent_b, args.game, args.seed + 1)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    return options, game, a, b


def _records(parser, args, game):
    """``--records``: the folder made and its ``record_writer`` (``None`` without it)."""
    if not args.records:
        return None
    try:
        os.makedirs(args.records, exist_ok=True)
    except OSError as exc:
        parser.error(f"--records {args.records}: cannot create the folder "
                     f"({exc.strerror or exc})")
    return record_writer(args.records, game, args.agent_a, args.agent_b,
                         {"seed": args.seed, "deals": args.deals})


def _report(args, stats: dict, options: dict) -> None:
    """Print the result, and write it to ``--out``; say where the records went."""
    low, high = stats["win_rate_ci95"]
    mlow, mhigh = stats["mean_payoff_ci95"]
    print(f"{args.game}: {args.agent_a} vs {args.agent_b}, {stats['pairs']} duplicate deal pairs "
          f"({'matches' if args.match else 'hands'}{', ' + str(options) if options else ''}), "
          f"{stats['seconds']:.0f} s\n"
          f"  win rate {stats['win_rate']:.3f}  (95% CI {low:.3f}..{high:.3f}; "
          f"{stats['wins']} wins, {stats['ties']} ties, {stats['losses']} losses)\n"
          f"  mean payoff per game {stats['mean_payoff_per_game']:+.3f}  "
          f"(95% CI {mlow:+.3f}..{mhigh:+.3f})")
    for side, spec in (("a", args.agent_a), ("b", args.agent_b)):
        if f"search_{side}" in stats:  # a search agent: what its decisions cost here
            search = stats[f"search_{side}"]
            print(f"  {spec} searched {search['decisions']:,} decisions, "
                  f"{search['seconds_per_decision']:.3f} s a decision on average "
                  f"({search['seconds']:.0f} s of search)")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(stats, f, indent=2)
        print(f"  written to {args.out}", file=sys.stderr)
    if args.records:
        print(f"  {2 * args.deals} game records in {args.records}", file=sys.stderr)


if __name__ == "__main__":
    cli.run(main)
