"""Speed of the batched rollout engine, in decisions per second: ``python -m cardagents bench
dagong`` (or ``dabang``).

For each kind of player (uniform random, the heuristic, a PPO network sampling its actions) it
plays whole games for ``--seconds`` two ways, in one process:

- **batched**: ``cardenv.vector.VectorGame`` with ``--envs`` games in lockstep, observations and
  masks in batch, the player acting once per step on all the games (what training and evaluation
  use);
- **one env per game** (the reference): ``raw_env()`` played through the AEC loop, the player
  acting on one observation at a time.

It prints decisions/s of both and their ratio. The PPO network is the shipped checkpoint's when
``--checkpoint`` names one, else a fresh network of the same sizes (speed does not depend on the
weights); torch runs on ``--threads`` threads.

``python -m cardagents bench`` (no game) prints, for both games, the heuristic player's decisions/s
deciding one row at a time (``Agent.act_batch``'s per-row loop, the path before batching) and in
batch (its own ``act_batch``) on the same positions, at batch 64 and 1024.

``python -m cardagents bench search`` times the search agent's parts (``cardagents.search.pimc``)
for both games: the sampler's worlds/s at the default number of worlds, each call at another
position of heuristic play (``python -m cardenv.bench worlds`` measures it at early, middle and late
positions of random play); rollouts/s through the batched engine (heuristic rollouts from positions
met in heuristic play, each to the end of its hand) at batch 1, 64 and 1024 rollouts; and each named
budget's seconds per PIMC decision (``cardagents.search.parse.BUDGETS``: fast, default, strong) on
positions with more than one legal action, side by side: one decision at a time (what a search
did before it searched many decisions at once, and what a person's table still asks) and
``TOGETHER`` decisions in one call (what an evaluation's games in lockstep ask: all their worlds'
rollouts in one batch), with heuristic rollouts and, with torch and the shipped checkpoint, the PPO
agent as rollout policy and prior (to the end of the hand, and cut at depth 16 with its critic as
the leaf value). A game without a sampler of hidden cards
(``game.sample_worlds``) is said to miss it.

The timings of training runs (their collection, their PPO phase before and now, Ray workers) are
``python -m cardagents bench train|ray|collection|frozen`` (``cardagents.bench.training``).

Run on an idle machine.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

import numpy as np

from cardenv import cli
from cardenv.vector import MAX_NUM_ENVS

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
    from cardagents.players.heuristics import heuristic_for
    from cardagents.players.random import RandomAgent

    out = {"random": RandomAgent(game, seed), "heuristic": heuristic_for(game, seed)}
    try:
        from cardagents.ppo.agent import PPOAgent
        from cardagents.ppo.net import PolicyNet, game_sizes
    except ImportError:  # torch is in the [train] extra
        return out
    if checkpoint:
        out["ppo"] = PPOAgent.load(checkpoint, greedy=False, seed=seed)
    else:
        _, num_actions, high = game_sizes(game)
        out["ppo"] = PPOAgent(game, PolicyNet(high, num_actions), greedy=False, seed=seed)
    return out


def positions(game: str, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` (observation, mask) rows met in heuristic self-play, each decision kept with
    probability 1/8 so that every stage of a game is represented."""
    from cardagents.players.heuristics import heuristic_for
    from cardenv.vector import VectorGame

    games, player = VectorGame(game, 256, seed=seed), heuristic_for(game, seed)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while sum(len(o) for o in obs) < count:
        o, m = games.observations(), games.masks()
        keep = rng.random(len(o)) < 1 / 8
        obs.append(o[keep])
        masks.append(m[keep])
        games.step(player.act_batch(o, m))
    order = rng.permutation(count)
    return np.concatenate(obs)[:count][order], np.concatenate(masks)[:count][order]


def heuristic_rates(game: str, batch: int, seconds: float,
                    count: int = 4096) -> tuple[float, float]:
    """(per-row, batched) decisions/s of the heuristic on ``batch``-row calls over ``count``
    positions."""
    from cardagents.players.base import Agent
    from cardagents.players.heuristics import heuristic_for

    obs, masks = positions(game, count)  # the same mix of positions at every batch size
    player = heuristic_for(game, 0)
    rates = []
    for decide in (lambda o, m: Agent.act_batch(player, o, m), player.act_batch):
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for i in range(0, len(obs), batch):
                decide(obs[i:i + batch], masks[i:i + batch])
                done += batch
        rates.append(done / (time.perf_counter() - start))
    return rates[0], rates[1]


def bench_heuristics(seconds: float) -> dict:
    """The heuristic players deciding per row against batched, at batch 64 and 1024."""
    results = {}
    print(f"cardagents.bench.players: {seconds:g} s per figure")
    print(f"{'measure':<42} {'per row':>10} {'batched':>10} {'ratio':>7}")
    for game in GAMES:
        for batch in (64, 1024):
            before, after = heuristic_rates(game, batch, seconds)
            results[f"{game}_heuristic_b{batch}"] = (before, after)
            print(f"{game + ' heuristic, decisions/s, batch ' + str(batch):<42} {before:>10,.0f} "
                  f"{after:>10,.0f} {after / before:>6.1f}x", flush=True)
    return results


def search_positions(game, count: int, seed: int = 0) -> list:
    """``count`` states with more than one legal action, met in heuristic play of ``game`` (a
    made game), each decision kept with probability 1/8."""
    from cardagents.players.heuristics import heuristic_for

    player, rng = heuristic_for(game.name, seed), np.random.default_rng(seed)
    out, deal = [], seed
    while len(out) < count:
        state = game.new_state(deal)
        deal += 1
        while not state.is_over and len(out) < count:
            mask = game.legal_masks([state])
            if mask.sum() > 1 and rng.random() < 1 / 8:
                out.append(state.clone())
            state.apply(int(player.act_batch(game.observations([state]), mask)[0]))
    return out


def rollouts_per_second(name: str, batch: int, seconds: float) -> float:
    """Heuristic rollouts to the end of the hand per second, ``batch`` at once."""
    from cardagents.players.heuristics import heuristic_for
    from cardagents.search.rollouts import rollout_values
    from cardenv.games import make_game

    starts = search_positions(make_game(name), 256)
    policy = heuristic_for(name, 0)
    done, spent = 0, 0.0
    while spent < seconds:
        picks = [starts[(done + i) % len(starts)].clone() for i in range(batch)]
        seats = [s.current_player for s in picks]
        start = time.perf_counter()
        rollout_values(picks, seats, policy, batch=batch)
        spent += time.perf_counter() - start
        done += batch
    return done / spent


def sampler_worlds_per_second(name: str, seconds: float, worlds: int) -> float | None:
    """Worlds/s of the game's sampler drawing ``worlds`` a call for the seat to act, each call
    at another position of heuristic play (as a search agent asks: 64 positions in turn, more
    than a sampler caches), or ``None`` without a sampler."""
    from cardagents.search.pimc import sampler_of
    from cardenv.games import make_game

    game = make_game(name)
    try:
        sample = sampler_of(game)
    except ValueError:
        return None
    positions = search_positions(game, 64, seed=2)
    rng = np.random.default_rng(0)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds or not done:
        state = positions[(done // worlds) % len(positions)]
        done += len(sample(state, state.current_player, worlds, rng))
    return done / (time.perf_counter() - start)


def pimc_decisions_per_second(name: str, seconds: float, spec: str = "pimc",
                              together: int = 1) -> float | None:
    """PIMC decisions/s at the budget ``spec`` (default: the default budget) on positions of
    heuristic play with more than one legal action (``None``: no sampler): ``together``
    decisions a call (``act_states``), as an evaluation's lockstep games ask them (1: one at a
    time, as a person's table asks). At least one call is timed."""
    from cardagents.search.pimc import sampler_of
    from cardagents.search.parse import make_search
    from cardenv.games import make_game

    game = make_game(name)
    try:
        sampler_of(game)
    except ValueError:
        return None
    agent = make_search(spec, name)
    positions = search_positions(game, max(64, together), seed=1)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds or not done:
        first = done % len(positions)
        asked = positions[first:first + together]
        agent.act_states(asked)
        done += len(asked)
    return done / (time.perf_counter() - start)


TOGETHER = 64  # decisions searched together in the benchmark's batched figure


def bench_search(seconds: float) -> dict:
    """Sampler worlds/s, rollouts/s at batch 1, 64 and 1024, and each named budget's seconds per
    PIMC decision, one at a time and ``TOGETHER`` at a time, with heuristic rollouts and (with
    torch and the shipped checkpoint) the PPO agent's, for both games."""
    from cardagents.search.parse import BUDGETS, DEFAULTS
    from cardagents.search.pimc import sampler_of
    from cardenv.games import make_game

    results = {}
    print(f"cardagents bench search: {seconds:g} s per figure (at least one call); rollouts to "
          f"the end of the hand; PIMC default budget {DEFAULTS}; named budgets {BUDGETS}")
    for game in GAMES:
        rate = sampler_worlds_per_second(game, seconds, DEFAULTS["worlds"])
        results[f"{game}_sampler_worlds"] = rate
        print(f"{game + ' sampler worlds/s, ' + str(DEFAULTS['worlds']) + ' a call':<42} "
              + (f"{rate:>10,.0f}" if rate is not None else
                 "   missing: the game has no sampler (sample_worlds)"), flush=True)
        for batch in (1, 64, 1024):
            rate = rollouts_per_second(game, batch, seconds)
            results[f"{game}_rollouts_b{batch}"] = rate
            print(f"{game + ' rollouts/s, batch ' + str(batch):<42} {rate:>10,.0f}", flush=True)
        try:
            sampler_of(make_game(game))
        except ValueError:
            print(f"{game} PIMC: missing: the game has no sampler (sample_worlds)")
            continue
        print(f"{game} PIMC seconds per decision: {'budget':<8} {'rollouts':<10} "
              f"{'one at a time':>14} {str(TOGETHER) + ' together':>12} {'ratio':>6}")
        for rollout, spec in search_specs(game):
            for budget in BUDGETS:
                full = f"pimc:{budget}{spec}"
                one = 1 / pimc_decisions_per_second(game, seconds, full)
                many = 1 / pimc_decisions_per_second(game, seconds, full, TOGETHER)
                results[f"{game}_{budget}_{rollout}_s_per_decision"] = {"one": one, "many": many}
                print(f"{'':<27} {budget:<8} {rollout:<10} {one:>14.3f} {many:>12.3f} "
                      f"{one / many:>5.1f}x", flush=True)
    return results


def search_specs(game: str) -> list[tuple[str, str]]:
    """The rollout policies the search benchmark times, each with what a spec adds for it:
    the heuristic, and (with torch and the shipped checkpoint) the PPO agent as rollout policy
    and prior, with rollouts to the end of the hand and cut at depth 16 (its critic the leaf
    value)."""
    out = [("heuristic", "")]
    path = f"checkpoints/{game}_ppo.pt"
    try:
        import torch  # noqa: F401
    except ImportError:
        return out
    if not os.path.isfile(path):
        return out
    ppo = f",rollout={path},prior={path}"
    # and the rollouts cut at depth 16, valued by the agent's own critic (Dabang's evaluated
    # budgets: docs/results.md, "Search budgets")
    return out + [("ppo", ppo), ("ppo-d16", f"{ppo},depth=16,critic={path}")]


def main(argv=None) -> None:
    parser = cli.ArgumentParser(prog="python -m cardagents bench",
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=(*GAMES, "search"), nargs="?",
                        help="time one game's batched engine against one env per game "
                             "('search': the search agent's rollouts and decisions); "
                             "without it, the heuristics per row and batched (training's "
                             "timings: python -m cardagents bench train|ray|collection|"
                             "frozen)")
    parser.add_argument("--envs", type=int, default=128,
                        help="games in lockstep (default 128, at most 65536)")
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement (default 5)")
    parser.add_argument("--checkpoint", help="PPO checkpoint to time (default: a fresh network)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (default 1, at most 1024)")
    args = parser.parse_args(argv)
    if not 1 <= args.envs <= MAX_NUM_ENVS:
        parser.error(f"--envs must be in 1..{MAX_NUM_ENVS}, got {args.envs}")
    if not 1 <= args.threads <= cli.MAX_THREADS:
        parser.error(f"--threads must be in 1..{cli.MAX_THREADS}, got {args.threads}")
    if not 0 < args.seconds <= cli.MAX_SECONDS:  # also refuses nan and inf
        parser.error(f"--seconds must be in (0, {cli.MAX_SECONDS:g}], got {args.seconds}")
    if args.game is None:  # (the heuristics are numpy: no torch)
        bench_heuristics(args.seconds)
        return
    try:
        import torch
        torch.set_num_threads(args.threads)
    except ImportError:
        print("torch is not installed (pip install -e '.[train]'): PPO is not timed",
              file=sys.stderr)
    if args.game == "search":
        bench_search(args.seconds)
        return
    try:  # the checkpoint is read before anything is timed
        measured = players(args.game, args.checkpoint)
    except ValueError as exc:  # CheckpointError: one line naming the file
        parser.error(f"--checkpoint: {exc}")
    if getattr(measured.get("ppo"), "game", args.game) != args.game:
        parser.error(f"--checkpoint {args.checkpoint} plays {measured['ppo'].game}, not "
                     f"{args.game}")
    print(f"{args.game}: decisions/s, {args.seconds:g} s per figure, batched = {args.envs} "
          f"games in lockstep")
    print(f"{'player':<10} {'batched':>12} {'one env per game':>18} {'ratio':>7}")
    for name, agent in measured.items():
        batched = batched_decisions_per_second(args.game, agent, args.envs, args.seconds)
        single = aec_decisions_per_second(args.game, agent, args.seconds)
        print(f"{name:<10} {batched:>12,.0f} {single:>18,.0f} {batched / single:>6.1f}x",
              flush=True)


if __name__ == "__main__":
    cli.run(main)
