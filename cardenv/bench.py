"""Speed benchmarks that print figures: ``python -m cardenv.bench dagong`` (or ``dabang``, or
``vector``).

For a game it measures, in one process:

- steps/s of uniformly random masked play through ``raw_env()`` and through ``env()`` (the
  PettingZoo wrappers), and hands/s;
- microseconds per state of the batched legality core at batch 1, 64 and 1024, on positions
  sampled from random games: Dagong's ``legality.play_mask``, Dabang's ``follow.play_mask``
  (play positions, leads and follows at every step);
- the reference: RLCard's Dou Dizhu steps/s under the same random play, when ``rlcard`` is
  installed (``pip install -e ".[bench]"``), and the ratios.

``python -m cardenv.bench vector`` measures the batched engine (``cardenv.vector.VectorGame``):
decisions/s of uniformly random masked play with the observations and masks of every game built
at every step, at batch 1, 64 and 1024, for both games; and the reference, OpenSpiel's C++ Dou
Dizhu stepped from Python (the observation tensor of the player to move, its legal actions, a
random one applied; chance nodes sampled and not counted), when ``open_spiel`` is installed
(``pip install -e ".[bench]"``), with the ratio at batch 1024 (the reference and batch 1024
alternating, three rounds, the median of the rounds' ratios); and, at batch 1024, the same
games with each state stepped by its own ``apply`` (``VectorGame(..., batched=False)``, the path
before the games' batched engines).

``python -m cardenv.bench load`` measures how long a saved state takes to load
(``game.state_from_dict`` of its JSON: a replay of its recipe, every action checked) for a
2-hand Dagong game and a 40-hand Dabang match, against the target ``LOAD_TARGET``; the games are
played with the first legal action outside play and random plays, from fixed seeds.

``python -m cardenv.bench worlds`` measures the world samplers (``game.sample_worlds``, of
the games that have one): worlds/s for the seat to act at early, middle and late positions of a
first hand (10%, 50% and 85% of its actions) of random play from fixed seeds, 16 worlds a call
(what a search agent draws for a decision; each call's reading of the position included), in
wall-clock time and per CPU second of the process (steadier on a shared machine).
``python -m cardenv.bench worlds --check N`` instead measures their consistency
(``core.worlds.check_consistency``): the worlds sampled at N positions per game (episodes of
random and, where installed, heuristic play under several option sets, every phase and
viewing seat), each replayed from its own recipe and compared with what the seat saw; it
prints the share consistent, positions, worlds, time and a reproducer of each failure
(``--per-position``, ``--only``, ``--seed``).

Timings are wall-clock over fixed durations (``--seconds``); run on an idle machine.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time

import numpy as np

from cardenv import cli
from cardenv.core.worlds import check_consistency, random_policy
from cardenv.vector import legal_indices

GAMES = ("dagong", "dabang")
VECTOR_TARGET = 1.0  # batch-1024 random play against OpenSpiel's C++ Dou Dizhu (issue 45)
LOAD_TARGET = 0.2  # seconds to load a saved 40-hand Dabang match (issue 22)
# (game, options, seed, what): seed 115 is a Dabang match of 44 hands under load_game's policy
LOAD_CASES = (("dagong", {"hands": 2}, 0, "2-hand Dagong game"),
              ("dabang", {"episode": "match", "max_hands": 40}, 115, "40-hand Dabang match"))
# raw_env() random play against RLCard's Dou Dizhu: 7x, as before the counting pieces of issue
# 35 (issue 45 won back what they cost)
RLCARD_TARGET = 7


def env_steps_per_second(make_env, seconds: float, seed: int = 0,
                         choose=None) -> tuple[float, float]:
    """(steps/s, hands/s) of masked play, each agent sampling uniformly from its mask, or
    playing ``choose(observation) -> action`` when given."""
    env = make_env()
    rng = random.Random(seed)
    steps = hands = 0
    episode = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + episode)
        episode += 1
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if choose is not None:
                env.step(choose(obs))
            else:
                legal = obs["action_mask"].view(bool).nonzero()[0]
                env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        hands += len(env.unwrapped.game_state.results)
    elapsed = time.perf_counter() - start
    return steps / elapsed, hands / elapsed


def rlcard_steps_per_second(seconds: float, seed: int = 0) -> float | None:
    """RLCard's Dou Dizhu under the same random play, or ``None`` without rlcard."""
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("doudizhu", config={"seed": seed})
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _ = env.step(legal[int(rng.random() * len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


def dagong_positions(count: int, seed: int = 0):
    """(hands, standing, called) of ``count`` positions met in random Dagong games."""
    from cardenv.dagong import DagongGame

    rng = np.random.default_rng(seed)
    game = DagongGame(allow_solo=False)
    hands, standing, called = [], [], []
    episode = 0
    while len(hands) < count:
        state = game.new_state(seed + episode)
        episode += 1
        while not state.is_over and len(hands) < count:
            hands.append(state.hands[state.current].copy())
            standing.append(state.standing)
            called.append(state.called)
            legal = np.flatnonzero(state.legal_mask())
            state.apply(int(legal[rng.integers(legal.size)]))
    return np.array(hands), np.array(standing), np.array(called)


def dabang_positions(count: int, seed: int = 0):
    """Arguments of ``follow.play_mask`` for ``count`` play steps met in random Dabang games."""
    from cardenv.dabang import DabangGame
    from cardenv.dabang.catalogue import NUM_KINDS

    rng = np.random.default_rng(seed)
    game = DabangGame()
    rows = []
    episode = 0
    while len(rows) < count:
        state = game.new_state(seed + episode)
        episode += 1
        while not state.is_over and len(rows) < count:
            if state.phase == "play":
                partial = np.zeros(NUM_KINDS, dtype=np.int64)
                for kind, c in state.partial.items():
                    partial[kind] = c
                rows.append((state.hands[state.current].copy(), partial, state.led_kind,
                             state.k, state.trump, state.level))
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
    hands, partial, led, k, trump, level = (np.array(x) for x in zip(*rows))
    return hands, partial, led, k, trump, level, True


def _dagong_mask(positions, i, j):
    from cardenv.dagong import legality

    hands, standing, called = positions
    legality.play_mask(hands[i:j], standing[i:j], called[i:j])


def _dabang_mask(positions, i, j):
    from cardenv.dabang import follow

    *arrays, dead = positions
    follow.play_mask(*(a[i:j] for a in arrays), dead)


POSITIONS = {"dagong": (dagong_positions, _dagong_mask), "dabang": (dabang_positions, _dabang_mask)}
MASK_NAMES = {"dagong": "mask", "dabang": "follow mask"}  # what each game's batched mask covers


def mask_microseconds(game: str, positions, batch: int, seconds: float) -> float:
    mask = POSITIONS[game][1]
    n = len(positions[0]) // batch * batch
    calls = states = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for i in range(0, n, batch):
            mask(positions, i, i + batch)
            calls += 1
            states += batch
        if calls > 5 and time.perf_counter() - start >= seconds:
            break
    return (time.perf_counter() - start) / states * 1e6


def _row(label: str, value: str) -> None:
    print(f"  {label:<31}: {value}")


def bench(game: str, seconds: float) -> dict:
    module = importlib.import_module(f"cardenv.{game}_v0")
    results = {}
    print(f"cardenv.bench {game}: {seconds:g} s per measurement, numpy {np.__version__}, "
          f"Python {sys.version.split()[0]}")
    # raw_env and the reference alternate (three rounds, medians), so that a machine busy for a
    # while slows both alike
    rounds, references = [], []
    for _ in range(3):
        rounds.append(env_steps_per_second(module.raw_env, seconds / 3))
        references.append(rlcard_steps_per_second(seconds / 3))
    steps = float(np.median([r[0] for r in rounds]))
    hands = float(np.median([r[1] for r in rounds]))
    results.update(raw_env_steps_per_s=steps, raw_env_hands_per_s=hands)
    _row("raw_env() random masked play", f"{steps:10,.0f} steps/s ({hands:,.1f} hands/s)")
    results["env_steps_per_s"], _ = env_steps_per_second(module.env, seconds)
    _row("env() random masked play", f"{results['env_steps_per_s']:10,.0f} steps/s")
    positions = POSITIONS[game][0](4096)
    what = MASK_NAMES[game]
    for batch in (1, 64, 1024):
        us = mask_microseconds(game, positions, batch, seconds / 2)
        results[f"mask_us_per_state_b{batch}"] = us
        _row(f"batched {what}, batch {batch}", f"{us:10.2f} us/state")
    reference = None if references[0] is None else float(np.median(references))
    if reference is None:
        _row("RLCard Dou Dizhu", "rlcard not installed (pip install -e '.[bench]')")
    else:
        results["rlcard_doudizhu_steps_per_s"] = reference
        results["raw_env_vs_rlcard"] = results["raw_env_steps_per_s"] / reference
        _row("RLCard Dou Dizhu (reference)", f"{reference:10,.0f} steps/s")
        _row("raw_env / RLCard", f"{results['raw_env_vs_rlcard']:10.2f}x   "
                                 f"(target >= {RLCARD_TARGET:g}x)")
        _row("env / RLCard", f"{results['env_steps_per_s'] / reference:10.2f}x")
    met = results["mask_us_per_state_b1024"] <= 5
    _row("batch-1024 target <= 5 us/state", "met" if met else "MISSED")
    return results


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``(B, N)`` bool masks, in numpy."""
    legal = legal_indices(masks)
    counts = np.bincount(legal // masks.shape[1], minlength=len(masks))
    pick = (rng.random(len(masks)) * counts).astype(np.int64)
    return legal[np.cumsum(counts) - counts + pick] % masks.shape[1]


def vector_decisions_per_second(game: str, batch: int, seconds: float, seed: int = 0,
                                batched: bool = True) -> float:
    """Decisions/s of random masked play on ``VectorGame(game, batch)``, the observations and
    masks of every game built at every step (``batched=False``: each state stepped by its own
    ``apply``, the path before the game's batched engine)."""
    from cardenv.vector import VectorGame

    games = VectorGame(game, batch, seed=seed, batched=batched)
    rng = np.random.default_rng(seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        games.observations()
        games.step(random_actions(games.masks(), rng))
        decisions += batch
    return decisions / (time.perf_counter() - start)


def openspiel_steps_per_second(seconds: float, seed: int = 0) -> float | None:
    """OpenSpiel's Dou Dizhu (C++) stepped from Python: per decision the player's observation
    tensor, its legal actions and a random one applied. ``None`` without open_spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("dou_dizhu")
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


def bench_vector(seconds: float, rounds: int = 3) -> dict:
    results = {}
    print(f"cardenv.bench vector: {seconds:g} s per measurement, numpy {np.__version__}, "
          f"Python {sys.version.split()[0]}")
    # the reference and the batch-1024 runs alternate (``rounds`` rounds, medians), so that a
    # machine whose speed drifts (a VM's neighbours) slows both alike, as in ``bench``
    references, big = [], {game: [] for game in GAMES}
    for _ in range(rounds):
        references.append(openspiel_steps_per_second(seconds))
        for game in GAMES:
            big[game].append(vector_decisions_per_second(game, 1024, seconds))
    reference = None if references[0] is None else float(np.median(references))
    if reference is None:
        _row("OpenSpiel Dou Dizhu", "open_spiel not installed (pip install -e '.[bench]')")
    else:
        results["openspiel_doudizhu_steps_per_s"] = reference
        _row("OpenSpiel Dou Dizhu (C++, ref.)", f"{reference:10,.0f} steps/s")
    for game in GAMES:
        for batch in (1, 64, 1024):
            rate = vector_decisions_per_second(game, batch, seconds) if batch < 1024 else \
                float(np.median(big[game]))
            results[f"{game}_b{batch}"] = rate
            _row(f"{game} VectorGame, batch {batch}", f"{rate:10,.0f} decisions/s")
        rate = vector_decisions_per_second(game, 1024, seconds, batched=False)
        results[f"{game}_b1024_per_state"] = rate
        speedup = results[f"{game}_b1024"] / rate
        _row(f"{game} per-state, batch 1024",
             f"{rate:10,.0f} decisions/s   (batched engine: {speedup:.1f}x)")
        if reference is not None:
            ratio = float(np.median([mine / ref for mine, ref in zip(big[game], references)]))
            results[f"{game}_b1024_vs_openspiel"] = ratio
            verdict = "met" if ratio >= VECTOR_TARGET else "MISSED"
            _row(f"{game} batch 1024 / OpenSpiel", f"{ratio:10.2f}x   (target >= "
                                                   f"{VECTOR_TARGET}x: {verdict}; median of "
                                                   f"{rounds} rounds, each beside the reference)")
    return results


def load_game(name: str, options: dict, seed: int):
    """A finished game: the first legal action outside play, random plays (seeded)."""
    state = importlib.import_module("cardenv.games").make_game(name, **options).new_state(seed)
    rng = np.random.default_rng(seed)
    while not state.is_over:
        legal = state.legal_actions()
        state.apply(int(rng.choice(legal)) if state.phase == "play" else legal[0])
    return state


def bench_load(seconds: float) -> dict:
    import json

    results = {}
    print(f"cardenv.bench load: {seconds:g} s per measurement, numpy {np.__version__}, "
          f"Python {sys.version.split()[0]}")
    for name, options, seed, what in LOAD_CASES:
        state = load_game(name, options, seed)
        text = json.dumps(state.to_dict())
        game, times = state.game, []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end or not times:
            start = time.perf_counter()
            loaded = game.state_from_dict(json.loads(text))
            times.append(time.perf_counter() - start)
        assert loaded.crc() == state.crc()
        best = float(np.median(times))
        results[f"{name}_load_s"] = best
        verdict = "met" if best < LOAD_TARGET else "MISSED"
        _row(f"{what} ({len(state.results)} hands, {len(state.history):,} actions)",
             f"{best * 1000:8.1f} ms to load, {len(text) / 1024:6.1f} KiB   "
             f"(target < {LOAD_TARGET:g} s: {verdict})")
    return results


WORLDS_PER_CALL = 16  # a search agent draws 8-16 worlds a decision
WORLD_STAGES = (("early", 0.10), ("middle", 0.50), ("late", 0.85))
CHECK_PROGRESS = 500  # the consistency check prints its figures every this many positions
# the option sets the consistency check plays in turn, per game
CHECK_OPTIONS = {
    "dagong": [{}, {"hands": 2}, {"hands": 3, "allow_solo": False}, {"allow_solo": False},
               {"hands": 3}],
    "dabang": [{}, {"follow": "live"}, {"bidding": "after_deal"},
               {"episode": "match", "max_hands": 2}],
}


def world_positions(name: str, seed: int = 0) -> list[tuple[str, object]]:
    """``(stage, state)`` at 10%, 50% and 85% of the actions of a first hand of random play
    (seeded; the hand is played out once to know its length)."""
    game = importlib.import_module("cardenv.games").make_game(name)
    rng = np.random.default_rng(seed)
    actions = []
    state = game.new_state(seed)
    while not state.is_over and not state.results:
        action = int(rng.choice(state.legal_actions()))
        actions.append(action)
        state.apply(action)
    return [(stage, game.replay(seed, actions[:int(share * len(actions))]))
            for stage, share in WORLD_STAGES]


def bench_worlds(seconds: float, games=GAMES) -> dict:
    results = {}
    print(f"cardenv.bench worlds: {seconds:g} s per measurement, {WORLDS_PER_CALL} worlds a "
          f"call, numpy {np.__version__}, Python {sys.version.split()[0]}")
    for name in games:
        game = importlib.import_module("cardenv.games").make_game(name)
        if not hasattr(game, "sample_worlds"):
            continue
        for stage, state in world_positions(name):
            seat = state.current_player
            rng = np.random.default_rng(0)
            worlds = 0
            start, cpu = time.perf_counter(), time.process_time()
            while time.perf_counter() - start < seconds or not worlds:
                worlds += len(game.sample_worlds(state, seat, WORLDS_PER_CALL, rng))
            rate = worlds / (time.perf_counter() - start)
            cpu_rate = worlds / max(time.process_time() - cpu, 1e-9)
            results[f"{name}_{stage}"] = rate
            _row(f"{name} {stage} ({len(state.history)} actions in)",
                 f"{rate:10,.0f} worlds/s ({cpu_rate:,.0f} per CPU second of this process; "
                 f"{1000 * WORLDS_PER_CALL / rate:.1f} ms a call)")
    return results


def check_policies(name: str) -> dict:
    """The policies whose play gives the consistency check its positions: uniformly random,
    and the heuristic where an installed package provides it (``cardenv.player_specs``)."""
    from cardenv.player_specs import decide, load_player

    policies = {"random": random_policy}
    try:
        load_player("heuristic", name, 0)
    except ValueError:
        return policies

    def heuristic(seed: int):
        player = load_player("heuristic", name, seed)

        def choose(state) -> int:
            seat = state.current_player
            return decide(player, state, {"observation": state.observation(seat),
                                          "action_mask": state.legal_mask().astype(np.int8)})
        return choose
    policies["heuristic"] = heuristic
    return policies


def check_worlds(positions: int, per_position: int = 2, games=GAMES, seed: int = 0) -> dict:
    """``core.worlds.check_consistency`` for each game with a sampler: printed, and returned
    by game name."""
    make_game = importlib.import_module("cardenv.games").make_game
    results = {}
    for name in games:
        variants = [make_game(name, **options) for options in CHECK_OPTIONS[name]]
        if not hasattr(variants[0], "sample_worlds"):
            continue
        policies = check_policies(name)
        print(f"cardenv.bench worlds --check {positions}: {name}, {per_position} worlds a "
              f"position, positions every 11 steps of episodes played by "
              f"{' and '.join(policies)} (in turn) from seed {seed}, options in turn: "
              f"{CHECK_OPTIONS[name]}")
        start = time.perf_counter()

        def progress(report) -> None:
            done = report.positions + report.skipped
            if done % CHECK_PROGRESS == 0 and done < positions:
                print(f"    {done:,} positions: {report.consistent:,} of {report.worlds:,} "
                      f"worlds consistent, {len(report.failures)} failed, {report.skipped:,} "
                      f"skipped, {time.perf_counter() - start:,.0f} s", flush=True)
        report = check_consistency(variants, positions, worlds=per_position, seed=seed,
                                   policies=policies, progress=progress)
        report.seconds = time.perf_counter() - start
        results[name] = report
        phases = ", ".join(f"{phase} {count:,}" for phase, count in sorted(report.phases.items()))
        _row(f"{name} consistent worlds",
             f"{report.percent:.3f}% ({report.consistent:,} of {report.worlds:,} worlds) at "
             f"{report.positions:,} positions ({phases}); {report.skipped:,} positions skipped "
             f"(not covered by the sampler); {report.seconds:,.1f} s")
        for failure in report.failures[:20]:
            print(f"    FAILED {failure.reproducer()}")
        if len(report.failures) > 20:
            print(f"    ... and {len(report.failures) - 20} more")
    return results


def main(argv=None) -> None:
    parser = cli.ArgumentParser(prog="python -m cardenv.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=(*GAMES, "vector", "load", "worlds"),
                        help="a game's engine and env, the batched engine for both games, "
                             "loading saved states, or the world samplers")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="duration of each measurement (default 5)")
    parser.add_argument("--check", type=int, metavar="N",
                        help="worlds: instead of the speed, check the worlds sampled at N "
                             "positions per game by replaying each (exit status 1 if any "
                             "is inconsistent)")
    parser.add_argument("--per-position", type=int, default=2, metavar="K",
                        help="worlds --check: worlds sampled per position (default 2)")
    parser.add_argument("--only", choices=GAMES, help="worlds: only this game's sampler")
    parser.add_argument("--seed", type=int, default=0,
                        help="worlds --check: the first episode's seed (default 0)")
    args = parser.parse_args(argv)
    if args.check is not None and args.game != "worlds":
        parser.error("--check goes with the worlds benchmark")
    if args.check is not None and not 1 <= args.check <= 10 ** 7:
        parser.error(f"--check must be in 1..10000000, got {args.check}")
    if not 1 <= args.per_position <= 1000:
        parser.error(f"--per-position must be in 1..1000, got {args.per_position}")
    if not 0 <= args.seed <= 2 ** 62:
        parser.error(f"--seed must be in 0..{2 ** 62}, got {args.seed}")
    if not 0 < args.seconds <= cli.MAX_SECONDS:  # also refuses nan and inf
        parser.error(f"--seconds must be in (0, {cli.MAX_SECONDS:g}], got {args.seconds}")
    if args.game == "vector":
        bench_vector(args.seconds)
    elif args.game == "load":
        bench_load(args.seconds)
    elif args.game == "worlds" and args.check is not None:
        games = (args.only,) if args.only else GAMES
        reports = check_worlds(args.check, args.per_position, games, args.seed)
        if any(report.failures for report in reports.values()):
            sys.exit(1)
    elif args.game == "worlds":
        bench_worlds(args.seconds, (args.only,) if args.only else GAMES)
    else:
        bench(args.game, args.seconds)


if __name__ == "__main__":
    cli.run(main)
