"""Speed benchmarks that print figures: ``python -m cardenv.bench dagong``.

For a game it measures, in one process:

- steps/s of uniformly random masked play through ``raw_env()`` and through ``env()`` (the
  PettingZoo wrappers), and hands/s;
- microseconds per state of the batched legal-action mask (``legality.play_mask``) at batch 1,
  64 and 1024, on positions sampled from random games;
- the reference: RLCard's Dou Dizhu steps/s under the same random play, when ``rlcard`` is
  installed (``pip install -e ".[bench]"``), and the ratios.

Timings are wall-clock over fixed durations (``--seconds``); run on an idle machine.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time

import numpy as np

GAMES = ("dagong",)


def env_steps_per_second(make_env, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(steps/s, hands/s) of random masked play, each agent sampling uniformly from its mask."""
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
            legal = obs["action_mask"].view(bool).nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        hands += env.unwrapped.game.options.get("hands", 1)
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


def mask_microseconds(positions, batch: int, seconds: float) -> float:
    from cardenv.dagong import legality

    hands, standing, called = positions
    n = len(hands) // batch * batch
    calls = states = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for i in range(0, n, batch):
            legality.play_mask(hands[i:i + batch], standing[i:i + batch], called[i:i + batch])
            calls += 1
            states += batch
        if calls > 5 and time.perf_counter() - start >= seconds:
            break
    return (time.perf_counter() - start) / states * 1e6


def bench(game: str, seconds: float) -> dict:
    module = importlib.import_module(f"cardenv.{game}_v0")
    results = {}
    print(f"cardenv.bench {game}: {seconds:g} s per measurement, numpy {np.__version__}, "
          f"Python {sys.version.split()[0]}")
    results["raw_env_steps_per_s"], results["raw_env_hands_per_s"] = \
        env_steps_per_second(module.raw_env, seconds)
    print(f"  raw_env() random masked play : {results['raw_env_steps_per_s']:10,.0f} steps/s "
          f"({results['raw_env_hands_per_s']:,.1f} hands/s)")
    results["env_steps_per_s"], _ = env_steps_per_second(module.env, seconds)
    print(f"  env()     random masked play : {results['env_steps_per_s']:10,.0f} steps/s")
    positions = dagong_positions(4096)
    for batch in (1, 64, 1024):
        us = mask_microseconds(positions, batch, seconds / 2)
        results[f"mask_us_per_state_b{batch}"] = us
        print(f"  batched mask, batch {batch:>4}     : {us:10.2f} us/state")
    reference = rlcard_steps_per_second(seconds)
    if reference is None:
        print("  RLCard Dou Dizhu             : rlcard not installed (pip install -e '.[bench]')")
    else:
        results["rlcard_doudizhu_steps_per_s"] = reference
        ratio = results["raw_env_steps_per_s"] / reference
        results["raw_env_vs_rlcard"] = ratio
        print(f"  RLCard Dou Dizhu (reference) : {reference:10,.0f} steps/s")
        print(f"  raw_env / RLCard             : {ratio:10.2f}x   (target >= 5x)")
        print(f"  env / RLCard                 : "
              f"{results['env_steps_per_s'] / reference:10.2f}x")
    print(f"  batch-1024 mask target <= 5 us/state: "
          f"{'met' if results['mask_us_per_state_b1024'] <= 5 else 'MISSED'}")
    return results


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m cardenv.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="duration of each measurement (default 5)")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    bench(args.game, args.seconds)


if __name__ == "__main__":
    main()
