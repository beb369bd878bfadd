"""Timing of training runs (``cardagents.training.trainer.Trainer``, what ``train.py`` runs):
``python -m cardagents bench train|ray|collection|frozen``, from a checkout's root (it reads the
shipped ``configs/<game>.yaml``); ``python -m cardagents bench GAME`` times the engine and the
players (``cardagents.bench.players``).

``python -m cardagents bench train [--game G] [--samples N]`` runs the shipped configs' PPO phase
(``Trainer``, imitation and evaluations off) for ``N`` samples (default 65,536) after a
warm-up iteration in two settings, taking turns in one process: "before" (fp32 on the CPU, one
torch thread: every run before issue 20) and "now" (the config's own ``precision``, ``device``
and ``torch_threads``, ``auto`` by default). It prints each setting's seconds in collection and
in the update, its samples/s end to end and through the update alone, the ratios to "before",
and what one learning-curve evaluation costs as a share of the PPO phase.

``python -m cardagents bench ray`` prints the collection samples/s of ``train.py`` with 0 (in this
process), 1 and 2 Ray rollout workers (``workers: N``, a local Ray instance), both games'
configs with their own ``rollout_samples``, the ratio to 0 workers, and the samples/s of the
PPO update that follows each collection (the ``[dist]`` extra).

``python -m cardagents bench frozen`` prints the collection samples/s of ``train.py`` with a full
pool of frozen snapshots (the configs' ``frozen`` share of the games), the snapshots acting one
at a time (a ``PPOAgent`` each, as before ``cardagents.ppo.frozen``) and together (``FrozenPool``).

``python -m cardagents bench collection`` prints the collection samples/s of ``train.py``
(``Trainer.collect``) with ``configs/dagong.yaml`` and ``configs/dabang.yaml`` settings, before
(each state stepped by its own ``apply``, the heuristic opponents deciding per row,
``torch.multinomial``) and after (the games' batched engines, the batched heuristics,
``PolicyNet.act``'s draw over the legal actions only). The "before" path is rebuilt by
swapping ``PolicyNet.act`` for the old draw while it runs (put back after).

Run on an idle machine, from the repository root.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time

from cardagents.training.config import load_config
from cardenv import cli

MAX_SAMPLES = 10 ** 9  # --samples: PPO samples per setting

GAMES = ("dagong", "dabang")  # the shipped configs: configs/<game>.yaml


def new_trainer(cfg):
    """A ``Trainer`` of ``cfg`` (imported here: the module loads without torch, and says so
    in one line when a command needs it)."""
    from cardagents.training.trainer import Trainer
    return Trainer(cfg)


def _act_before(net, obs, mask, greedy: bool = False, generator=None, state=None):
    """``PolicyNet.act`` before batching: the full masked logits, ``torch.multinomial``."""
    import torch

    with torch.no_grad():
        logits, value = net(obs, mask, state)
        action = logits.argmax(dim=-1) if greedy else torch.multinomial(
            torch.softmax(logits, dim=-1), 1, generator=generator).squeeze(-1)
        logp = torch.log_softmax(logits, dim=-1).gather(-1, action[:, None]).squeeze(-1)
    return action, logp, value


def _collect_rate(trainer, seconds: float) -> float:
    """Learner samples/s of ``trainer.collect()`` called for ``seconds``."""
    samples, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        samples += len(trainer.collect())
    return samples / (time.perf_counter() - start)


def _side_by_side(rate, key: str, label: str, width: int, digits: int) -> dict:
    """Each game's config timed by ``rate(config, before: bool)``, before then after, one
    line each with the ratio; ``{f"{game}_{key}": (before, after)}``."""
    results = {}
    for game in GAMES:
        config = f"configs/{game}.yaml"
        before, after = rate(config, True), rate(config, False)
        results[f"{game}_{key}"] = (before, after)
        print(f"{label + config:<{width}} {before:>10,.0f} {after:>10,.0f} "
              f"{after / before:>6.{digits}f}x", flush=True)
    return results


def collection_rate(config: str, seconds: float, per_row: bool = False,
                    overrides: tuple = ("rollout_samples=2048",)) -> float:
    """Learner samples/s of ``train.py``'s ``Trainer.collect`` with ``config``'s settings (the
    imitation phase skipped). ``per_row``: the path before batching -- each state stepped by
    its own ``apply`` (``VectorGame(batched=False)``), the heuristic opponents deciding row by
    row, the PPO actions drawn by ``torch.multinomial``; the same games and samples."""
    import tempfile

    from cardagents.players.base import Agent
    from cardagents.ppo import net as ppo

    act = ppo.PolicyNet.act
    with tempfile.TemporaryDirectory() as run_dir:
        cfg = load_config(config, [f"run_dir={run_dir}", "eval_deals=0", *overrides])
        trainer = new_trainer(cfg)
        if per_row:
            heuristic = trainer.heuristic
            heuristic.act_batch = lambda o, m: Agent.act_batch(heuristic, o, m)
            # the same games, each state stepped by its own apply
            trainer.collector.deal(trainer.settings(trainer.active),
                                   trainer.collector.games.seeds[0], batched=False)
            ppo.PolicyNet.act = _act_before
        try:
            if cfg.workers:  # the actors' start-up is not collection
                trainer.collect()
            return _collect_rate(trainer, seconds)
        finally:
            ppo.PolicyNet.act = act
            trainer.runlog.close()


def bench_collection(seconds: float) -> dict:
    """train.py's collection, per row (the path before batching) against batched."""
    print(f"cardagents bench collection: {seconds:g} s per figure")
    print(f"{'measure':<42} {'before':>10} {'after':>10} {'ratio':>7}")
    return _side_by_side(lambda config, before: collection_rate(config, seconds, per_row=before),
                         "collection", "train.py collection, samples/s, ", 42, 1)


class _PerSnapshot:
    """The frozen opponents before ``cardagents.ppo.frozen``: a ``PPOAgent`` per snapshot in the
    learner's precision, each acting on its own rows (one forward pass per snapshot a step)."""

    def __init__(self, agents: list):
        self.agents = agents

    def __len__(self) -> int:
        return len(self.agents)

    def act_batch(self, obs, masks, which):
        import numpy as np

        actions = np.zeros(len(which), dtype=np.int64)
        for k in np.unique(which).tolist():
            rows = which == k
            actions[rows] = self.agents[k].act_batch(obs[rows], masks[rows])
        return actions


def frozen_rate(config: str, seconds: float, pooled: bool) -> float:
    """Learner samples/s of ``Trainer.collect`` with ``config``'s settings and a full pool of
    frozen snapshots (``pool_size`` copies of the learner), the snapshots acting together
    (``pooled``: ``cardagents.ppo.frozen.FrozenPool``) or one at a time (``_PerSnapshot``)."""
    import tempfile

    from cardagents.ppo.agent import PPOAgent

    with tempfile.TemporaryDirectory() as run_dir:
        cfg = load_config(config, [f"run_dir={run_dir}", "eval_deals=0", "stages=[]",
                                   "rollout_samples=2048"])
        with contextlib.redirect_stdout(io.StringIO()):  # the run's lines: not the bench's
            trainer = new_trainer(cfg)
        collector = trainer.collector
        pool = [trainer.learner.snapshot() for _ in range(cfg.pool_size)]
        collector.set_pool(pool)
        if not pooled:
            collector.frozen = collector.selfplay.frozen = _PerSnapshot([
                PPOAgent(cfg.game, collector._frozen_net(sd), greedy=False, seed=cfg.seed,
                         precision=collector.settings.precision) for sd in pool])
        try:
            for _ in range(2):  # the games dealt before the pool end and seat its snapshots
                trainer.collect()
            return _collect_rate(trainer, seconds)
        finally:
            trainer.runlog.close()


def bench_frozen(seconds: float) -> dict:
    """train.py's collection with a full pool of frozen snapshots: one at a time against
    together."""
    print(f"cardagents bench frozen: {seconds:g} s per figure, the pool full (pool_size copies)")
    print(f"{'measure':<48} {'one by one':>10} {'pooled':>10} {'ratio':>7}")
    return _side_by_side(lambda config, before: frozen_rate(config, seconds, pooled=not before),
                         "frozen", "collection with frozen snapshots, ", 48, 2)


def update_rate(config: str, samples: int = 8192) -> float:
    """Samples/s of ``train.py``'s PPO update (``Trainer.update``, the config's epochs and
    minibatch) on a collected batch: what bounds a run however many workers collect."""
    import tempfile

    with tempfile.TemporaryDirectory() as run_dir:
        cfg = load_config(config, [f"run_dir={run_dir}", f"rollout_samples={samples}",
                                         "eval_deals=0"])
        trainer = new_trainer(cfg)
        try:
            batch = trainer.collect()
            start = time.perf_counter()
            trainer.update(batch)
            return len(batch) / (time.perf_counter() - start)
        finally:
            trainer.runlog.close()


def train_phases(config: str, samples: int, settings: dict, rounds: int = 2) -> dict:
    """Time ``config``'s PPO phase in each of ``settings`` (name -> ``key=value`` overrides:
    precision, device, torch_threads), ``samples`` samples each after one warm-up iteration
    (no imitation, no evaluations; the frozen opponents' pool full, as in a run after its
    first ``pool_size`` snapshots), in ``rounds`` turns (each setting trains
    ``samples / rounds``, then the next, and so on: a machine whose speed drifts during the
    benchmark weighs on every setting alike). Per setting: seconds in collection and in the
    update (the run's own per-iteration log), samples/s end to end and through the update."""
    import json
    import os
    import tempfile

    out = {}
    with tempfile.TemporaryDirectory() as run_dir:
        trainers = {}
        for name, overrides in settings.items():
            cfg = load_config(config, [
                f"run_dir={run_dir}", f"run_name={name}", "imitation_samples=0", "eval_deals=0",
                "curve_every=0", "checkpoint_every=1000000", "stages=[]", *overrides])
            cfg.total_samples = cfg.rollout_samples  # the warm-up iteration
            with contextlib.redirect_stdout(io.StringIO()):  # the run's lines: not the bench's
                trainer = trainers[name] = new_trainer(cfg)
                trainer.train()
            # a full pool of frozen snapshots, as a run has from its pool_size-th snapshot on:
            # without one, the config's frozen share of the games would play the heuristic
            trainer.pool = [trainer.learner.snapshot() for _ in range(cfg.pool_size)]
            trainer.collector.set_pool(trainer.pool)
        for turn in range(rounds):
            for name, trainer in trainers.items():
                # each turn, past the samples so far: at least samples / rounds more
                trainer.cfg.total_samples = trainer.samples + samples // rounds
                with contextlib.redirect_stdout(io.StringIO()):
                    trainer.train()
        for name, trainer in trainers.items():
            trainer.runlog.close()
            with open(os.path.join(run_dir, name, "metrics.jsonl"), encoding="utf-8") as f:
                records = [r for r in map(json.loads, f) if r["phase"] == "ppo"]
            # the first iteration warms up (first calls, allocations): not counted
            warm, rows = records[0], records[1:]
            done = rows[-1]["samples"] - warm["samples"]
            parts = {k: sum(r[f"{k}_s"] for r in rows)
                     for k in ("collect", "update", "eval", "other")}
            total = sum(parts.values())
            out[name] = {"setting": trainer.compute.describe(), "samples": done,
                         "iterations": len(rows), **parts, "seconds": total,
                         "samples_per_s": done / total,
                         "update_samples_per_s": done / parts["update"]}
    return out


def curve_cost(config: str, overrides: tuple = ()) -> dict:
    """Seconds of one learning-curve evaluation of ``config`` (``curve_deals`` pairs under each
    option set) and its share of the run's time at ``curve_every`` iterations apart, given the
    seconds of one iteration (filled in by ``bench_train``)."""
    import tempfile

    with tempfile.TemporaryDirectory() as run_dir:
        cfg = load_config(config, [f"run_dir={run_dir}", "imitation_samples=0",
                                         "eval_deals=0", *overrides])
        with contextlib.redirect_stdout(io.StringIO()):
            trainer = new_trainer(cfg)
            trainer.timing = {}
            start = time.perf_counter()
            trainer.curve_point()
            seconds = time.perf_counter() - start
        trainer.runlog.close()
    return {"seconds": seconds, "every": cfg.curve_every, "deals": cfg.curve_deals}


def bench_train(games=GAMES, samples: int = 65536) -> dict:
    """The shipped configs' PPO phase, ``samples`` samples each, in two settings in one run:
    "before" (fp32 on the CPU, one torch thread) and "now" (the config's precision, device
    and threads)."""
    results = {}
    print(f"cardagents bench train: {samples:,} PPO samples per setting after a warm-up iteration "
          f"(no imitation, no evaluations), the settings taking turns")
    header = (f"{'config':<20} {'setting':<7} {'collect s':>9} {'update s':>9} {'samples/s':>10}"
              f" {'update samples/s':>17} {'vs before':>10} {'update vs before':>17}")
    for game in games:
        config = f"configs/{game}.yaml"
        timed = train_phases(config, samples, {
            "before": ("precision=fp32", "device=cpu", "torch_threads=1"), "now": ()})
        before, now = timed["before"], timed["now"]
        curve = curve_cost(config)
        results[game] = {"before": before, "now": now, "curve": curve}
        print(header)
        for name, r in (("before", before), ("now", now)):
            print(f"{config:<20} {name:<7} {r['collect']:>9.1f} {r['update']:>9.1f} "
                  f"{r['samples_per_s']:>10,.0f} {r['update_samples_per_s']:>17,.0f} "
                  f"{r['samples_per_s'] / before['samples_per_s']:>9.2f}x "
                  f"{r['update_samples_per_s'] / before['update_samples_per_s']:>16.2f}x")
        print(f"  before: {before['setting']}\n  now: {now['setting']}")
        per_iter = now["seconds"] / now["iterations"] * curve["every"]
        share = curve["seconds"] / (per_iter + curve["seconds"]) if per_iter else 0
        print(f"  a learning-curve evaluation ({curve['deals']} pairs per option set, now): "
              f"{curve['seconds']:.1f} s, every {curve['every']} iterations "
              f"= {share:.1%} of the PPO phase's time", flush=True)
    return results


def bench_ray(seconds: float, workers=(0, 1, 2), rollout_samples: int | None = None,
              update_samples: int = 8192) -> dict:
    """train.py's collection samples/s with 0, 1 and 2 Ray rollout workers (each config's own
    ``rollout_samples`` unless given), and its PPO update's on ``update_samples``."""
    import ray

    ray.init(address="local", num_cpus=max(workers), include_dashboard=False,
             logging_level="warning")
    results = {}
    try:
        print(f"cardagents bench ray: {seconds:g} s per figure, collection samples/s of train.py")
        print(f"{'config':<22}" + "".join(f"{f'{n} workers':>12}" for n in workers)
              + "".join(f"{f'{n} vs 0':>9}" for n in workers if n) + f"{'PPO update':>12}")
        for game in GAMES:
            config = f"configs/{game}.yaml"
            # the config's own rollout_samples: what an iteration sends and gathers
            size = () if rollout_samples is None else (f"rollout_samples={rollout_samples}",)
            rates = [collection_rate(config, seconds, overrides=(f"workers={n}", *size))
                     for n in workers]
            update = update_rate(config, update_samples)
            results[game] = {**dict(zip(workers, rates)), "update": update}
            print(f"{config:<22}" + "".join(f"{r:>12,.0f}" for r in rates)
                  + "".join(f"{r / rates[0]:>8.2f}x" for n, r in zip(workers, rates) if n)
                  + f"{update:>12,.0f}", flush=True)
    finally:
        ray.shutdown()
    return results


def main(argv=None) -> None:
    parser = cli.ArgumentParser(prog="python -m cardagents bench",
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("train", "ray", "collection", "frozen"),
                        help="'train': the shipped configs' PPO phase before (fp32, one thread) "
                             "and now (their precision, device and threads); 'ray': train.py's "
                             "collection with 0, 1 and 2 Ray workers; 'collection': train.py's "
                             "collection per row (before batching) and batched; 'frozen': "
                             "train.py's collection with a full pool of frozen snapshots, "
                             "acting one at a time and together")
    parser.add_argument("--game", dest="only", choices=GAMES,
                        help="with 'train': one game's config only")
    parser.add_argument("--samples", type=int, default=65536,
                        help="with 'train': PPO samples per setting (default 65,536)")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="with 'ray', 'collection' and 'frozen': per measurement "
                             "(default 5)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads of collection (default 1, at most 1024)")
    args = parser.parse_args(argv)
    if not 1 <= args.threads <= cli.MAX_THREADS:
        parser.error(f"--threads must be in 1..{cli.MAX_THREADS}, got {args.threads}")
    if not 0 < args.seconds <= cli.MAX_SECONDS:  # also refuses nan and inf
        parser.error(f"--seconds must be in (0, {cli.MAX_SECONDS:g}], got {args.seconds}")
    if not 1 <= args.samples <= MAX_SAMPLES:
        parser.error(f"--samples must be in 1..{MAX_SAMPLES:,}, got {args.samples}")
    if args.only and args.what != "train":
        parser.error("--game goes with 'train'")
    try:
        import torch
    except ImportError:
        parser.error('cardagents bench train|ray|collection|frozen needs torch: '
                     'pip install -e ".[train]"')
    if args.what == "train":
        bench_train((args.only,) if args.only else GAMES, args.samples)
        return
    torch.set_num_threads(args.threads)
    if args.what == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error('ray needs the [dist] extra: pip install -e ".[dist]"')
        bench_ray(args.seconds)
        return
    if args.what == "frozen":
        bench_frozen(args.seconds)
        return
    bench_collection(args.seconds)


if __name__ == "__main__":
    cli.run(main)
