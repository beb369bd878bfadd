"""A round-robin league of agents in duplicate format: ``python -m cardagents league``.

Every pair of named players plays the same duplicate deal pairs
(``cardagents.evaluation.evaluate``'s format and machinery: deal seeds ``seed``, ``seed + 1``, ...,
each deal played twice with the sides swapped), for hands or, in Dabang with ``--match``, whole
matches, under any rules options (later Dabang hands: ``--set blood=random --set dealer=random --set
levels=random``). Players are named as everywhere else (``cardagents.specs.make_agent``, the
``cardenv.players`` entry point): ``random``, ``heuristic``, ``pimc[:key=value,...]`` or a PPO
checkpoint path. With no players named, the league is random, heuristic, the shipped PPO checkpoint,
the previous one (``checkpoints/previous/``) and PIMC at its fast budget (``pimc:fast``, heuristic
rollouts; ``cardagents.search.parse.BUDGETS``); a default checkpoint that is missing is left out,
with a note.

It prints the ratings (Bradley-Terry over deal pairs, Elo scale, with bootstrap intervals that
resample the deals: ``cardagents.evaluation.ratings``) and the matrix of pairwise win rates with 95%
Wilson intervals (``cardagents.evaluation.league_report``), and writes three files: the JSON
(``--out``, default ``league_{game}.json``, ``league_{game}_matches.json`` with ``--match``) holding
everything to redraw it (settings, players and their checkpoints' SHA-256, every pairing's per-deal
scores, matrix, ratings, timings, versions), and next to it the same stem as markdown (``.md``) and
a PNG chart of the ratings (matplotlib, the ``[plot]`` extra; without it, a note and no chart).
``--redraw FILE`` computes a finished league's matrix and ratings again from its pairings and
rewrites its JSON, markdown and chart, playing nothing.

A pairing's deals are played in chunks (``--chunk``, 250 pairs as in
``cardagents.evaluation.evaluate``, the agents' random choices restarting at each: a pairing's
result is then exactly evaluate's for the same two players and seed). Nothing finished is lost: the
JSON is rewritten after each chunk, ``"complete": false`` until the end, with the finished pairings
and the finished chunks of the others. Run the same command again (after Ctrl-C, a crash, or with
more players added) and every pairing and chunk already in the file with the same settings (game,
rules options, unit, seed, pair count, chunk size) and the same players (the same spec, the same
checkpoint bytes) is reused, not played again (with another ``--pairs``, the chunks whose deals are
the same); ``--fresh`` plays everything anew.

``--workers N`` plays the chunks as Ray tasks (``cardagents.evaluation.remote``, the ``[dist]``
extra), every pairing's chunks in one queue, and gives exactly the result of one process. A pairing
with a slow player (PIMC) is one task per chunk: ``--chunk 10`` spreads it over more workers (and
keeps more of it when interrupted), at the price of other random draws than evaluate's.

Example::

    python -m cardagents league dagong random heuristic checkpoints/dagong_ppo.pt --pairs 100
    python -m cardagents league dabang --match --pairs 50 --workers 16 --chunk 5
    python -m cardagents league dabang heuristic pimc:worlds=4 --pairs 10 --out later.json \
        --set blood=random --set dealer=random --set levels=random
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from datetime import datetime, timezone

from cardagents.evaluation import league_report
from cardagents.evaluation.duplicate import CHUNK, Pairs, chunk_seed, deal_chunks, play_pairs
from cardagents.evaluation.evaluate import (MAX_HANDS, check_run, join_workers,
                                            set_torch_threads)
from cardagents.evaluation.progress import Progress
from cardagents.players.lockstep import as_game
from cardagents.search.parse import parse_spec
from cardagents.specs import make_agent
from cardenv import cli
from cardenv.core.options import parse_assignments
from cardenv.games import names

FORMAT = "cardenv-league/1"
DEFAULT_PAIRS = {"hand": 20, "match": 4}  # small: a Dabang match pair is thousands of searches
MAX_PAIRS = 10 ** 7
MAX_PLAYERS = 64
BOOTSTRAP = 1000  # replicates
MAX_BOOTSTRAP = 100_000
BATCH = 256  # games at once in a chunk (part of the settings: a random agent's draws follow it)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_players(game: str, note=None) -> list[str]:
    """random, heuristic, the shipped and the previous PPO checkpoint of ``game`` (from
    ``checkpoints/`` here, else the repository's; ``note(line)`` hears about one that is
    missing) and PIMC at its fast budget."""
    players = ["random", "heuristic"]
    for folder in ("checkpoints", os.path.join("checkpoints", "previous")):
        path = os.path.join(folder, f"{game}_ppo.pt")
        if not os.path.isfile(path) and os.path.isfile(os.path.join(ROOT, path)):
            path = os.path.join(ROOT, path)
        if os.path.isfile(path):
            players.append(path)
        elif note is not None:
            note(f"note: {path} not found, left out of the league")
    return players + ["pimc:fast"]


def player_files(spec: str) -> dict:
    """SHA-256 of each file a player spec names (a checkpoint, a search agent's rollout
    checkpoint): a pairing is reused only while its players' files are the same."""
    values = [spec]
    if spec.startswith("pimc:"):  # its rollout, prior and critic may be files
        values += [v for v in parse_spec(spec).values() if isinstance(v, str)]
    out = {}
    for value in values:
        if os.path.isfile(value):
            with open(value, "rb") as f:
                out[value] = hashlib.sha256(f.read()).hexdigest()
    return out


def versions() -> dict:
    """The versions that made a league (the code's commit when run from a git checkout, and
    whether tracked files differed from it)."""
    import numpy
    found = {"python": platform.python_version(), "numpy": numpy.__version__}
    try:
        from importlib.metadata import version
        found["cardenv"] = version("cardenv")
    except Exception:  # not installed: run from a checkout
        pass
    if "torch" in sys.modules and sys.modules["torch"] is not None:
        found["torch"] = sys.modules["torch"].__version__
    try:
        found["git"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"],
                                      capture_output=True, text=True, timeout=5,
                                      check=True).stdout.strip()
        found["git_changes"] = bool(subprocess.run(
            ["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=5, check=True).stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return found


def pairings_of(count: int) -> list[tuple[int, int]]:
    """The round robin of ``count`` players: every ``(i, j)`` with ``i < j``, i as agent A."""
    return [(i, j) for i in range(count) for j in range(i + 1, count)]


def reusable(old: dict | None, settings: dict, players: list[dict]) -> tuple[dict, dict]:
    """What this league may keep of a previous league document ``old``: its finished
    pairings ``{(a, b): pairing}`` and chunks ``{(a, b, start): chunk}`` (those of unfinished
    pairings, and those cut from finished pairings of another pair count, where the chunk's
    deals are the same), for the same settings but the pair count and the same players'
    files. A chunk is the same games wherever it is played, so a league of 50 pairs keeps
    the first chunks of one of 20."""
    def rest(values: dict) -> dict:
        return {k: v for k, v in values.items() if k != "pairs"}

    if not old or old.get("format") != FORMAT or rest(old.get("settings") or {}) != \
            rest(settings):
        return {}, {}
    files = {p["name"]: p["files"] for p in players}

    def same(entry) -> bool:
        a, b = entry.get("a"), entry.get("b")
        return a in files and b in files and entry.get("files") == [files[a], files[b]]

    size, pairs, before = settings["chunk"], settings["pairs"], old["settings"]["pairs"]
    pairings, chunks = {}, {}
    for e in old.get("pairings", []):
        if not same(e):
            continue
        if before == pairs:
            pairings[(e["a"], e["b"])] = e
            continue
        for first in range(0, min(before, pairs), size):
            length = min(size, pairs - first)
            if length == min(size, before - first):  # the same deals in the chunk
                cut = slice(first, first + length)
                chunks[(e["a"], e["b"], first)] = dict(
                    e, start=first, a_scores=e["a_scores"][cut], b_scores=e["b_scores"][cut],
                    per_game=e["per_game"][2 * first:2 * (first + length)],
                    seconds=round(e["seconds"] * length / before, 3))
    for e in old.get("chunks", []):
        if same(e) and e["start"] < pairs and \
                len(e["a_scores"]) == min(size, pairs - e["start"]):
            chunks[(e["a"], e["b"], e["start"])] = e
    return pairings, chunks


def play(game, agents: list, pairs: int, seed: int, todo: list[tuple[int, int]],
         finished, workers: int = 0, address: str | None = None, progress=None,
         chunk: int = CHUNK, have: dict | None = None, chunk_done=None) -> None:
    """Play the pairings ``todo`` (``(i, j)``: ``agents[i]`` as A) over deals ``seed`` ..
    ``seed + pairs - 1`` of ``game`` (a made ``Game``), in chunks of ``chunk`` pairs as
    ``cardagents.evaluation.evaluate`` plays them (the agents reseeded at each). ``have`` holds
    chunks played before, ``{(k, start): (Pairs, seconds)}`` for pairing ``todo[k]``: they are not
    played again. ``chunk_done(i, j, start, part, seconds)`` hears each chunk played, and
    ``finished(i, j, parts, seconds)`` each pairing once all its chunks are in (``parts``: the
    chunks' ``Pairs`` in deal order; ``seconds``: their play time). ``progress(games)`` hears the
    games played so far."""
    starts, chunks = deal_chunks(pairs, seed, chunk)
    have = have or {}
    parts: list[list] = [[None] * len(chunks) for _ in todo]
    seconds = [0.0] * len(todo)
    left = [len(chunks)] * len(todo)
    for (k, start), (part, spent) in have.items():
        parts[k][starts.index(start)] = part
        seconds[k] += spent
        left[k] -= 1
    jobs = [(k, start, seeds) for k in range(len(todo)) for start, seeds in zip(starts, chunks)
            if (k, start) not in have]
    games = 0

    def heard(job: int, part, spent: float) -> None:
        nonlocal games
        k, start, seeds = jobs[job]
        parts[k][starts.index(start)] = part
        seconds[k] += spent
        left[k] -= 1
        games += 2 * len(seeds)
        if progress is not None:
            progress(games)
        if chunk_done is not None:
            chunk_done(*todo[k], start, part, spent)
        if not left[k]:
            finished(*todo[k], parts[k], seconds[k])

    for k in range(len(todo)):  # every chunk played before
        if not left[k]:
            finished(*todo[k], parts[k], seconds[k])
    if workers:
        from cardagents.evaluation.remote import play_jobs
        play_jobs(game, [(agents[todo[k][0]], agents[todo[k][1]], seeds, chunk_seed(seed, start))
                         for k, start, seeds in jobs], BATCH, workers, address, heard)
        return
    for job, (k, start, seeds) in enumerate(jobs):
        sub = None
        if progress is not None:
            sub = (lambda base: lambda n: progress(base + n))(games)
        begin = time.perf_counter()
        i, j = todo[k]
        part = play_pairs(game, agents[i], agents[j], seeds, chunk_seed(seed, start), BATCH, sub)
        heard(job, part, time.perf_counter() - begin)


def write_json(doc: dict, path: str) -> None:
    """Write ``doc`` to ``path`` whole or not at all (a temporary file, then renamed)."""
    temporary = f"{path}.partial"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(temporary, path)


def read_json(path: str) -> dict | None:
    """A previous league document at ``path``, or ``None`` (no file, not a league)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def draw(doc: dict, out: str, quiet: bool = False) -> None:
    """Print the league's tables and write its markdown and chart next to the JSON ``out``."""
    stem = out[:-5] if out.endswith(".json") else out
    text = league_report.markdown(doc)
    print(text, end="")
    with open(stem + ".md", "w", encoding="utf-8") as f:
        f.write(text)
    problem = league_report.chart(doc, stem + ".png")
    written = [out, stem + ".md"] + ([] if problem else [stem + ".png"])
    if problem:
        print(problem, file=sys.stderr)
    if not quiet:
        print(f"written: {', '.join(written)}", file=sys.stderr)


def redraw(path: str) -> dict:
    doc = read_json(path)
    if doc is None or doc.get("format") != FORMAT:
        raise SystemExit(f"{path}: not a league's JSON (python -m cardagents league writes them)")
    if not doc.get("complete"):
        raise SystemExit(f"{path}: the league is not finished: run its command again to finish "
                         f"it ({doc.get('command', 'python -m cardagents league ...')})")
    rated = doc.get("ratings") or {}
    # the matrix and ratings again from the pairings (the same bootstrap: the same numbers)
    league_report.summary(doc, rated.get("bootstrap", BOOTSTRAP),
                          rated.get("bootstrap_seed", doc["settings"]["seed"]))
    write_json(doc, path)
    draw(doc, path)
    return doc


def main(argv=None) -> dict:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args = parser.parse_args(argv)
    args.argv = argv
    if args.redraw:
        if args.game or args.players:
            parser.error("--redraw FILE takes no game or players: they are in the file")
        return redraw(args.redraw)
    if args.game is None:
        parser.error("name a game: " + ", ".join(names()))
    unit = "match" if args.match else "hand"
    pairs = _check_sizes(parser, args, unit)
    check_run(parser, args)
    note = None if args.quiet else (lambda line: print(line, file=sys.stderr))
    specs = _players(parser, args, note)
    out = _out_path(parser, args)
    options, game, agents = _game_and_agents(parser, args, specs)
    join_workers(parser, args)
    set_torch_threads(args.threads)
    return run(game, specs, agents, out, {
        "game": args.game, "options": options, "unit": unit, "seed": args.seed,
        "pairs": pairs, "chunk": args.chunk, "batch": BATCH}, args, note)


def _parser() -> cli.ArgumentParser:
    """The command line of ``python -m cardagents league``."""
    parser = cli.ArgumentParser(prog="python -m cardagents league", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", nargs="?", choices=names())
    parser.add_argument("players", nargs="*",
                        help="random, heuristic, pimc[:key=value,...], PPO checkpoint paths "
                             "(default: random, heuristic, the shipped and previous PPO, "
                             "pimc:fast)")
    parser.add_argument("--pairs", type=int,
                        help=f"duplicate deal pairs per pairing (default "
                             f"{DEFAULT_PAIRS['hand']}, with --match {DEFAULT_PAIRS['match']})")
    parser.add_argument("--seed", type=int, default=0,
                        help="first deal's seed, and the bootstrap's (default 0)")
    parser.add_argument("--match", action="store_true",
                        help="dabang: whole matches (+1/-1) instead of single hands")
    parser.add_argument("--max-hands", type=int, default=MAX_HANDS,
                        help=f"--match: truncate a match after this many hands ({MAX_HANDS})")
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a rules option of the game, e.g. --set blood=random (repeatable)")
    parser.add_argument("--out", help="the JSON (default league_{game}.json, "
                                      "league_{game}_matches.json with --match); the markdown "
                                      "and PNG go next to it")
    parser.add_argument("--bootstrap", type=int, default=BOOTSTRAP,
                        help=f"bootstrap replicates of the ratings' intervals ({BOOTSTRAP})")
    parser.add_argument("--chunk", type=int, default=CHUNK,
                        help=f"deal pairs per unit of work ({CHUNK}, as cardagents evaluate: the "
                             f"pairings' results are then evaluate's); smaller chunks spread a "
                             f"slow pairing over more --workers and are kept as they finish")
    parser.add_argument("--fresh", action="store_true",
                        help="play every pairing, reusing none from an earlier --out")
    parser.add_argument("--redraw", metavar="FILE",
                        help="only compute a finished league's tables again from its JSON's "
                             "pairings and rewrite its files (nothing is played)")
    parser.add_argument("--workers", type=int, default=0,
                        help="play on Ray tasks, this many at a time (the [dist] extra); the "
                             "result is the same as in one process")
    parser.add_argument("--address", help="with --workers: the Ray cluster to join")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads of a PPO agent (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return parser


def _check_sizes(parser, args, unit: str) -> int:
    """The pair count (``--pairs``, else the unit's default), after checking it, ``--chunk``
    and ``--bootstrap``; ``parser.error`` on the first out of its range."""
    pairs = DEFAULT_PAIRS[unit] if args.pairs is None else args.pairs
    if not 1 <= pairs <= MAX_PAIRS:
        parser.error(f"--pairs must be >= 1 (at most {MAX_PAIRS:,}), got {pairs}")
    if not 1 <= args.chunk <= MAX_PAIRS:
        parser.error(f"--chunk must be >= 1 (at most {MAX_PAIRS:,}), got {args.chunk}")
    if not 10 <= args.bootstrap <= MAX_BOOTSTRAP:
        parser.error(f"--bootstrap must be in 10..{MAX_BOOTSTRAP:,}, got {args.bootstrap}")
    return pairs


def _players(parser, args, note) -> list[str]:
    """The players' specs: those named, else ``default_players`` (``note`` hears of one left
    out); 2 to ``MAX_PLAYERS`` of them, each once."""
    specs = args.players or default_players(args.game, note)
    if len(specs) < 2:
        parser.error(f"a league needs at least two players, got {len(specs)}")
    if len(specs) > MAX_PLAYERS:
        parser.error(f"at most {MAX_PLAYERS} players, got {len(specs)}")
    twice = sorted({s for s in specs if specs.count(s) > 1})
    if twice:
        parser.error(f"each player once: {', '.join(twice)} named twice")
    return specs


def _out_path(parser, args) -> str:
    """The JSON to write (``--out`` or the default): a ``.json`` that can be written and is no
    other file than a league's."""
    out = args.out or f"league_{args.game}{'_matches' if args.match else ''}.json"
    if not out.endswith(".json"):
        parser.error(f"--out {out}: name a .json file (the .md and .png go beside it)")
    if problem := cli.output_file_problem(out):
        parser.error(f"--out {out}: {problem}")
    if os.path.exists(out) and (read_json(out) or {}).get("format") != FORMAT:
        parser.error(f"--out {out}: the file exists and is not a league's JSON; it is not "
                     f"overwritten (choose another path, or remove it)")
    return out


def _game_and_agents(parser, args, specs: list[str]) -> tuple[dict, object, list]:
    """(the rules options, the game, the agents of ``specs``, player k seeded ``seed + k``);
    ``parser.error`` if the game has no whole matches (``--match``) or one fails to be made."""
    options = {"episode": "match", "max_hands": args.max_hands} if args.match else {}
    if args.match:
        try:
            as_game(args.game, dict(options))
        except ValueError as exc:
            parser.error(f"--match: {args.game} has no whole-match episodes ({exc})")
    try:
        options.update(parse_assignments(args.set))
        game = as_game(args.game, options)
        agents = [make_agent(spec, args.game, args.seed + k) for k, spec in enumerate(specs)]
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    return options, game, agents


def run(game, specs, agents, out, settings, args, note) -> dict:
    """Play the league (reusing what ``out`` holds of it), write and print it."""
    start = time.perf_counter()
    players = [{"name": spec, "files": player_files(spec)} for spec in specs]
    old = None if args.fresh else read_json(out)
    kept, kept_chunks = reusable(old, settings, players)
    if old and not kept and not kept_chunks and old.get("settings") != settings and note:
        note(f"note: {out} holds a league with other settings ({old.get('settings')}); it is "
             f"replaced")
    order = pairings_of(len(specs))
    names = [(specs[i], specs[j]) for i, j in order]
    done = {name: kept[name] for name in names if name in kept}
    todo = [(i, j) for i, j in order if (specs[i], specs[j]) not in done]
    # the finished chunks of unfinished pairings, kept in the file until their pairing is done
    partial = {key: entry for key, entry in kept_chunks.items() if key[:2] in names
               and key[:2] not in done}
    have = {(k, entry["start"]): (Pairs(entry["a_scores"], entry["b_scores"],
                                        entry["per_game"]), entry["seconds"])
            for k, (i, j) in enumerate(todo) for key, entry in partial.items()
            if key[:2] == (specs[i], specs[j])}
    reused = len(done)
    if (done or have) and note:
        note(f"reusing from {out}: {len(done)} finished pairing(s) and {len(have)} chunk(s) "
             f"of the other {len(todo)}; playing the rest")
    doc = {"format": FORMAT, "complete": False,
           "command": "python -m cardagents league " + shlex.join(args.argv),
           "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "settings": settings, "players": players, "pairings": [], "chunks": [],
           "versions": versions()}

    def save() -> None:
        doc["pairings"] = [done[name] for name in names if name in done]
        doc["chunks"] = [partial[key] for key in sorted(partial, key=lambda key: (
            names.index(key[:2]), key[2]))]
        write_json(doc, out)

    def chunk_done(i, j, first, part, seconds) -> None:
        partial[(specs[i], specs[j], first)] = {
            "a": specs[i], "b": specs[j], "files": [players[i]["files"], players[j]["files"]],
            "start": first, "a_scores": part.a_scores, "b_scores": part.b_scores,
            "per_game": part.per_game, "seconds": round(seconds, 3)}
        save()

    def finished(i, j, parts, seconds) -> None:
        a_scores = [x for part in parts for x in part.a_scores]
        b_scores = [x for part in parts for x in part.b_scores]
        per_game = [x for part in parts for x in part.per_game]
        done[(specs[i], specs[j])] = {
            "a": specs[i], "b": specs[j], "files": [players[i]["files"], players[j]["files"]],
            "a_scores": a_scores, "b_scores": b_scores, "per_game": per_game,
            "seconds": round(seconds, 3)}
        for key in [key for key in partial if key[:2] == (specs[i], specs[j])]:
            del partial[key]
        save()
        if note:
            wins = sum(a > b for a, b in zip(a_scores, b_scores))
            ties = sum(a == b for a, b in zip(a_scores, b_scores))
            note(f"\r{specs[i]} vs {specs[j]}: {(wins + ties / 2) / len(a_scores):.3f} of "
                 f"{len(a_scores)} pairs ({seconds:.0f} s) [{len(done)}/{len(order)} "
                 f"pairings]".ljust(79))

    save()
    total = 2 * (settings["pairs"] * len(todo) - sum(len(p.a_scores) for p, _ in have.values()))
    progress = Progress(total, "league", "games") if note and total else None
    play(game, agents, settings["pairs"], settings["seed"], todo, finished, args.workers,
         args.address, progress, settings["chunk"], have, chunk_done)
    save()
    league_report.summary(doc, args.bootstrap, settings["seed"])
    del doc["chunks"]
    doc["complete"] = True
    doc["timings"] = {
        "wall_seconds": round(time.perf_counter() - start, 3),
        "play_seconds": round(sum(p["seconds"] for p in doc["pairings"]), 3),
        "reused_pairings": reused, "reused_chunks": len(have), "workers": args.workers}
    write_json(doc, out)
    draw(doc, out, args.quiet)
    return doc


if __name__ == "__main__":
    cli.run(main)
