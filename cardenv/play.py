"""Watch and tally random games: ``python -m cardenv.play dagong`` (or ``dabang``).

Plays one game with uniformly random legal moves, rendering every move, then plays ``--games``
more silently and prints how they ended. A quick way to see an environment work end to end.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import sys
import time

import numpy as np

from cardenv.bench import GAMES


def random_episode(env, seed: int, rng: np.random.Generator, show: bool) -> None:
    env.reset(seed=seed)
    if show:
        print(env.render())
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        if show:
            print(f"\n{agent}: {env.unwrapped.describe_action(action)}")
        env.step(action)
        if show:
            print(env.render())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m cardenv.play", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--games", type=int, default=200, help="silent games to tally (200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (0)")
    parser.add_argument("--quiet", action="store_true", help="do not show the first game")
    args = parser.parse_args(argv)
    if args.games < 0:
        parser.error("--games must be >= 0")
    module = importlib.import_module(f"cardenv.{args.game}_v0")
    rng = np.random.default_rng(args.seed)
    if not args.quiet:
        random_episode(module.raw_env(render_mode="ansi"), args.seed, rng, show=True)
    env = module.raw_env()
    reasons, steps = collections.Counter(), 0
    start = time.perf_counter()
    for i in range(args.games):
        random_episode(env, args.seed + 1 + i, rng, show=False)
        state = env.game_state
        steps += len(state.history)
        reasons.update(r.label for r in state.results)
        if (i + 1) % max(1, args.games // 10) == 0:
            print(f"\r{i + 1}/{args.games} games", end="", file=sys.stderr, flush=True)
    if args.games:
        elapsed = time.perf_counter() - start
        print(f"\n{args.games} random games in {elapsed:.1f} s ({steps / elapsed:,.0f} steps/s); "
              f"hands ended by: " + ", ".join(f"{k} {v}" for k, v in reasons.most_common()))


if __name__ == "__main__":
    main()
