"""Speed of the batched rollout engine, in decisions per second: ``python -m agents.bench dagong``
(or ``dabang``).

For each kind of player (uniform random, the heuristic, a PPO network sampling its actions) it
plays whole games for ``--seconds`` two ways, in one process:

- **batched**: ``cardenv.vector.VectorGame`` with ``--envs`` games in lockstep, observations and masks in
  batch, the player acting once per step on all the games (what training and evaluation use);
- **one env per game** (the reference): ``raw_env()`` played through the AEC loop, the player
  acting on one observation at a time.

It prints decisions/s of both and their ratio. The PPO network is the shipped checkpoint's when
``--checkpoint`` names one, else a fresh network of the same sizes (speed does not depend on the
weights); torch runs on ``--threads`` threads. Run on an idle machine.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

import numpy as np

GAMES = ("dagong", "dabang")  # the games with a PettingZoo env to compare against


def batched_decisions_per_second(game: str, agent, envs: int, seconds: float,
                                 options: dict | None = None, seed: int = 0) -> float:
    """Decisions/s of ``agent`` playing all four seats of ``envs`` games in lockstep."""
    from cardenv.vector import VectorGame

    games = VectorGame(game, envs, seed=seed, options=options)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = agent.act_batch(games.observations(), games.masks())
        games.step(actions)
        decisions += envs
    return decisions / (time.perf_counter() - start)


def aec_decisions_per_second(game: str, agent, seconds: float, options: dict | None = None,
                             seed: int = 0) -> float:
    """Decisions/s of ``agent`` playing all four seats through one ``raw_env()`` at a time."""
    from cardenv.bench import env_steps_per_second

    module = importlib.import_module(f"cardenv.{game}_v0")
    steps, _ = env_steps_per_second(lambda: module.raw_env(**(options or {})), seconds, seed,
                                    choose=agent.act)
    return steps


def players(game: str, checkpoint: str | None, seed: int = 0) -> dict:
    """The players measured: name -> agent."""
    from agents.heuristics import heuristic_for
    from agents.random_agent import RandomAgent

    out = {"random": RandomAgent(game, seed), "heuristic": heuristic_for(game, seed)}
    try:
        from agents.ppo import PolicyNet, PPOAgent, game_sizes
    except ImportError:  # torch is in the [train] extra
        return out
    if checkpoint:
        out["ppo"] = PPOAgent.load(checkpoint, greedy=False, seed=seed)
    else:
        _, num_actions, high = game_sizes(game)
        out["ppo"] = PPOAgent(game, PolicyNet(high, num_actions), greedy=False, seed=seed)
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--envs", type=int, default=128, help="games in lockstep (default 128)")
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement (default 5)")
    parser.add_argument("--checkpoint", help="PPO checkpoint to time (default: a fresh network)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    args = parser.parse_args(argv)
    if args.envs < 1 or args.seconds <= 0 or args.threads < 1:
        parser.error("--envs and --threads must be >= 1 and --seconds > 0")
    try:
        import torch
        torch.set_num_threads(args.threads)
    except ImportError:
        print("torch is not installed (pip install -e '.[train]'): PPO is not timed",
              file=sys.stderr)
    print(f"{args.game}: decisions/s, {args.seconds:g} s per figure, batched = {args.envs} "
          f"games in lockstep")
    print(f"{'player':<10} {'batched':>12} {'one env per game':>18} {'ratio':>7}")
    for name, agent in players(args.game, args.checkpoint).items():
        batched = batched_decisions_per_second(args.game, agent, args.envs, args.seconds)
        single = aec_decisions_per_second(args.game, agent, args.seconds)
        print(f"{name:<10} {batched:>12,.0f} {single:>18,.0f} {batched / single:>6.1f}x",
              flush=True)


if __name__ == "__main__":
    main()
