"""Train a PPO agent for a cardenv game against heuristic players and frozen copies of itself.

    python train.py                                   # short default run (Dagong, a few minutes)
    python train.py --config configs/dabang.yaml      # a config from configs/
    python train.py --config configs/dagong.yaml total_samples=2000000 lr=1e-4
    python train.py --resume runs/dagong-1/checkpoint.pt total_samples=6000000  # continue it

Every field of ``Config`` (``agents.config``) can be set in the YAML file or on the command line as
``key=value`` (values are read as YAML: ``hidden=[512,256]``, ``options.follow=live``); a
resumed run starts from the config it saved, overlaid with ``--config`` and the overrides. A bad
config, override, run folder or ``ray_address`` is one line on standard error (exit status 2)
before anything is trained. The run writes TensorBoard logs, ``checkpoint.pt`` (latest, for
``--resume``), ``final.pt`` and ``agent.pt`` (the final weights alone, for
``python -m agents.evaluate`` and sharing) to ``run_dir/run_name``, and ends by printing its
evaluation against the random player and against the heuristic in duplicate format
(``result.json`` holds both).

Warm start (``imitation_samples > 0``): before PPO, the network is trained to imitate the
heuristic players (cross-entropy on their decisions in heuristic-only games, the value head on
the hands' final rewards), in chunks of ``imitation_chunk`` decisions. PPO then improves on that.

How data is gathered: ``num_envs`` games run in lockstep (``cardenv.vector.VectorGame``). In
each game the learner plays one side's seats (a random side per game; sides are the hand's
partnerships as dealt, see ``agents.rollout.partnership``) and the other seats are taken by an
opponent drawn from ``opponents`` (``heuristic``, ``frozen`` = a random
snapshot of the learner from the last ``pool_size`` snapshots, ``random``). Only complete
hands are learned from: each learner seat's decisions form an episode ending with the hand's
reward, and advantages come from GAE with no bootstrapping (``agents.selfplay`` keeps
that bookkeeping; ``agents.collector`` runs it). With ``workers: N`` (the ``[dist]`` extra)
N Ray actors collect instead, each with ``num_envs`` games, and this process updates
(``agents.distributed``; ``ray_address`` joins a cluster).

The learner (``agents.compute``): ``device`` (auto: CUDA when available), ``precision`` (auto:
bf16 autocast on a CPU with AMX or AVX512-BF16 or a CUDA device that supports it, float32
weights and optimizer state either way) and ``torch_threads`` (auto: every core, for the update
and the imitation, while collection, which acts on one thread, is idle). The run's first lines
say what was chosen and why. Collection and evaluation act on the CPU (here or in the Ray
actors) with a copy of the weights. With a global critic, the values of a batch's decisions are
computed by the learner over the whole batch before the update (``Trainer.complete``), not
step by step while collecting.

Learning rates: each stage has its own schedule (``lr_schedule``: constant, linear or cosine,
from ``lr`` down to ``lr_floor``, by default a tenth of ``lr``; ``lr_warmup`` samples rising
from the floor first; ``agents.schedules``).

Logs: ``metrics.jsonl`` in the run folder has a record of the learner's settings, one per
imitation chunk, per iteration (learning rate, approx_kl, clip fraction, losses, and the
seconds spent collecting, updating and evaluating, with the end-to-end samples/s), per
learning-curve evaluation (``curve_every``; with ``workers`` they run as Ray tasks while
training goes on, logged when they finish, at the samples whose weights they played) and per
final evaluation, with the run's wall seconds; ``python -m agents.curves`` draws them. The same
figures go to TensorBoard (``charts/``, ``losses/``, ``time/``) and the console line.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time

import numpy as np

from agents.config import (Config, collector_settings, learning_rate, load_config,
                           option_sets, stage_at, stage_config)
from agents.evaluate import duplicate
from agents.heuristics import heuristic_for
from agents.imitation import Demonstrator
from agents.progress import Progress
from agents.random_agent import RandomAgent
from agents.rollout import as_game
from cardenv import cli
from cardenv.core.checks import check_int, check_number
from cardenv.core.errors import ConfigError
from cardenv.vector import VectorGame

try:  # the [train] extra; main() says so if it is missing
    import torch
except ImportError:
    torch = None
if torch is not None:  # (any other import error is a real one, and shows as such)
    from torch.utils.tensorboard import SummaryWriter

    from agents import compute
    from agents.collector import Collector
    from agents.selfplay import Batch
    from agents.ppo import (CheckpointError, PPOAgent, fit, make_net, on_cpu, ppo_loss,
                            read_checkpoint, slim)

__all__ = ["Config", "Trainer", "learning_rate", "load_config", "main", "on_cpu"]


class Trainer:
    """One training run: games, learner, opponents, buffers, logs and checkpoints."""

    def __init__(self, cfg: Config, resume: dict | None = None):
        self.cfg = cfg
        # where and how the learner computes (agents.compute): said at the start of the run
        self.compute = compute.resolve(cfg.device, cfg.precision, cfg.torch_threads)
        print(self.compute.describe(), flush=True)
        # collection acts on one thread (its engines are numpy, its batches small); the update
        # and the imitation take compute.threads while collection is idle
        torch.set_num_threads(1)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.run_path = os.path.join(cfg.run_dir, cfg.run_name or f"{cfg.game}-{cfg.seed}")
        os.makedirs(self.run_path, exist_ok=True)
        self.make_net = lambda: make_net(cfg.game, cfg.hidden, cfg.critic)
        self.net = self.make_net().to(self.compute.device)
        # the network collection acts with, on the CPU: the learner itself when it is there too,
        # else a copy refreshed after every update
        self.actor = self.net if self.compute.device.type == "cpu" else self.make_net()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=1e-5)
        mixes = [cfg.opponents] + [stage.get("opponents", {}) for stage in cfg.stages]
        needs_heuristic = any(m.get("heuristic", 0) > 0 for m in mixes) or cfg.eval_deals > 0 \
            or cfg.imitation_samples > 0
        self.heuristic = heuristic_for(cfg.game, cfg.seed) if needs_heuristic else None
        self.random = RandomAgent(cfg.game, cfg.seed)
        self.pool: list = []  # frozen snapshots (state dicts)
        self.iteration, self.samples, first_seed = 0, 0, cfg.seed * 1_000_003
        self.imitated = 0
        self.elapsed = 0.0  # wall seconds of the run before this process (resumes add up)
        if resume:  # a damaged or partial training checkpoint is a ConfigError naming what
            try:
                trained = resume["model"]["scale"].numel()
                if trained != self.net.scale.numel():
                    raise ConfigError(
                        f"the checkpoint's network reads {trained} observation entries, "
                        f"{cfg.game}'s observation now has {self.net.scale.numel()} (the layout "
                        f"grew): its agent still plays (python -m agents.evaluate reads the "
                        f"leading entries), but training must start a new run")
                self.net.load_state_dict(resume["model"])
                self.optimizer.load_state_dict(resume["optimizer"])
                for group in self.optimizer.param_groups:  # the saved state carries its last lr
                    group["lr"] = cfg.lr
                self.iteration = check_int(resume["iteration"], "iteration", 0, error=ValueError)
                self.samples = check_int(resume["samples"], "samples", 0, error=ValueError)
                self.pool = [{k: v.cpu() for k, v in sd.items()} for sd in resume["pool"]]
                self.imitated = check_int(resume.get("imitated", 0), "imitated", 0,
                                          error=ValueError)
                self.elapsed = check_number(resume.get("elapsed", 0.0), "elapsed", 0,
                                            error=ValueError)
                self.rng.bit_generator.state = resume["rng"]
                torch.set_rng_state(resume["torch_rng"])
                first_seed = check_int(resume["next_seed"], "next_seed", 0, error=ValueError)
            except ConfigError:
                raise
            except (KeyError, TypeError, ValueError, RuntimeError, AttributeError,
                    IndexError) as exc:
                what = " ".join(f"{type(exc).__name__}: {exc}".split())
                raise ConfigError(f"cannot resume: not a complete training checkpoint "
                                  f"({what[:300]})") from None
        self.generator = torch.Generator().manual_seed(cfg.seed + self.iteration)
        # the stage this run is in (see Config.stages) and the config it trains with
        self.stage = stage_at(cfg, self.samples)
        self.active = stage_config(cfg, self.stage) if cfg.stages else cfg
        self.sync_actor()
        players = {"heuristic": self.heuristic, "random": self.random}
        self.evaluator = None  # curve evaluations as Ray tasks beside training (workers > 0)
        if cfg.workers:  # Ray actors collect; nothing imports Ray otherwise
            from agents.distributed import AsyncEvaluator, RayCollector
            self.collector = RayCollector(
                self.settings(self.active), self.actor, cfg.hidden, cfg.workers,
                seed=cfg.seed, address=cfg.ray_address, pool=self.pool,
                saved=resume.get("workers") if resume else None,
                spare_cpus=1 if cfg.curve_every else 0)
            if cfg.curve_every:
                self.evaluator = AsyncEvaluator()
        else:
            self.collector = Collector(cfg.game, cfg.seed, self.actor, self.make_net, self.rng,
                                       self.generator, players)
            self.collector.deal(self.settings(self.active), first_seed)
            self.collector.set_pool(self.pool)
        # seconds of the iteration in progress, by part (collect, update, eval)
        self.timing: dict[str, float] = {}
        # torch_threads auto in one process: the update takes the cores that stayed free while
        # collecting (none that another process holds); Ray actors idle during the update, so
        # with workers it takes them all
        self.free = compute.FreeCores(self.compute.threads) \
            if cfg.torch_threads == "auto" and not cfg.workers else None
        self.update_threads = self.compute.threads
        self.writer = SummaryWriter(os.path.join(self.run_path, "tb"))
        self.clock = time.perf_counter()
        self.metrics_path = os.path.join(self.run_path, "metrics.jsonl")
        self._trim_metrics()
        self.log("compute", device=str(self.compute.device), precision=self.compute.precision,
                 threads=self.compute.threads, reasons=list(self.compute.reasons))

    def settings(self, active: Config) -> dict:
        """``collector_settings`` of a stage, in the run's resolved precision."""
        return collector_settings(active, self.compute.precision)

    def sync_actor(self) -> None:
        """Copy the learner's weights to the network collection acts with (nothing to do when
        they are one network, on the CPU)."""
        if self.actor is not self.net:
            self.actor.load_state_dict({k: v.detach().cpu() for k, v in
                                        self.net.state_dict().items()})

    # --- the run's log ---------------------------------------------------------------------------

    def seconds(self) -> float:
        """Wall seconds this run has trained, over all its processes."""
        return self.elapsed + time.perf_counter() - self.clock

    def _trim_metrics(self) -> None:
        """Keep only the records up to where this process starts (a resumed run drops what
        came after its checkpoint: those iterations are trained again)."""
        if not os.path.exists(self.metrics_path):
            return
        with open(self.metrics_path, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        kept = [r for r in records if r.get("samples", 0) <= self.samples
                and r.get("imitated", 0) <= self.imitated and r.get("seconds", 0) <= self.elapsed]
        with open(self.metrics_path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in kept)

    def log(self, phase: str, **values) -> None:
        """Append one record to ``metrics.jsonl``: the phase, the PPO samples and imitated
        decisions so far, the run's wall seconds, and ``values``."""
        # seconds rounded down: a checkpoint saved right after keeps the record on resume
        # (``_trim_metrics`` keeps what is not later than the checkpoint's seconds)
        record = {"phase": phase, "samples": self.samples, "imitated": self.imitated,
                  "seconds": math.floor(self.seconds() * 100) / 100, **values}
        with open(self.metrics_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")

    def _enter_stage(self, index: int) -> None:
        """Switch to stage ``index``: its opponent mix and shaping from the next game seated
        on; new games if it changes the options (the hands in progress are dropped)."""
        self.stage = index
        self.active = stage_config(self.cfg, index)
        self.collector.enter(self.settings(self.active))
        changed = {k: v for k, v in self.cfg.stages[index].items() if k != "samples"}
        print(f"stage {index + 1}/{len(self.cfg.stages)} from sample {self.samples:,}: "
              f"{changed or 'the config as it is'}", flush=True)

    # --- collecting ---------------------------------------------------------------------------

    def collect(self) -> Batch:
        """Play until ``rollout_samples`` learner decisions of finished hands are ready (in
        this process, or shared between the Ray workers); meanwhile, see which cores the update
        may take (``compute.FreeCores``)."""
        if self.free is not None:
            self.free.start()
        batch = self.collector.collect(self.cfg.rollout_samples)
        if self.free is not None:
            self.update_threads = self.free.count()
        return batch

    def imitate(self) -> None:
        """Clone the heuristic: chunks of heuristic self-play decisions, cross-entropy on the
        chosen actions and value regression on each seat's final reward."""
        cfg = self.cfg
        optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.imitation_lr)
        games = VectorGame(cfg.game, cfg.num_envs, options=self.active.options,
                           seed=cfg.seed * 7_000_003 + self.imitated)
        demonstrator = Demonstrator(games, self.heuristic, self.net.critic == "global")
        while self.imitated < cfg.imitation_samples:
            if self.free is not None:
                self.free.start()
            chunk = demonstrator.chunk(cfg.imitation_chunk)
            dev = self.compute.device
            t_obs, t_mask, t_act, t_ret, t_has = (torch.as_tensor(a).to(dev) for a in (
                chunk.obs, chunk.mask, chunk.action, chunk.ret, chunk.has_value))
            t_state = None if chunk.state is None else torch.as_tensor(chunk.state).to(dev)

            def imitation_loss(idx):
                rows, cols, logp, values = self.net.legal_log_probs(
                    t_obs[idx], t_mask[idx], None if t_state is None else t_state[idx])
                # cross-entropy on the heuristic's action (the policy at legal actions only)
                policy_loss = -logp[cols == t_act[idx][rows]].mean()
                weight = t_has[idx].float()
                value_loss = (weight * (values - t_ret[idx]) ** 2).sum() / weight.sum().clamp(min=1)
                return policy_loss + cfg.vf_coef * value_loss, {
                    "policy_loss": policy_loss.item(), "value_loss": value_loss.item()}

            if self.free is not None:  # the cores that stayed free while gathering
                self.update_threads = self.free.count()
            with compute.threads(self.update_threads):
                losses = fit(self.net, optimizer, len(chunk), epochs=cfg.imitation_epochs,
                             minibatch=cfg.minibatch, generator=self.generator,
                             max_grad_norm=cfg.max_grad_norm, loss_fn=imitation_loss,
                             precision=self.compute.precision, device_type=dev.type)
                with torch.no_grad(), self.compute.autocast():
                    logits, _ = self.net(t_obs[:4096], t_mask[:4096])
                    agreement = (logits.argmax(-1) == t_act[:4096]).float().mean().item()
            self.sync_actor()
            self.imitated += len(chunk)
            policy_loss, value_loss = np.mean(losses["policy_loss"]), np.mean(losses["value_loss"])
            self.writer.add_scalar("imitation/policy_loss", policy_loss, self.imitated)
            self.writer.add_scalar("imitation/agreement", agreement, self.imitated)
            self.log("imitation", agreement=round(agreement, 4),
                     policy_loss=round(float(policy_loss), 4))
            print(f"imitation {self.imitated:,}/{cfg.imitation_samples:,} decisions | policy "
                  f"loss {policy_loss:.3f} | value loss {value_loss:.3f} | agrees with the "
                  f"heuristic on {agreement:.1%}", flush=True)

    # --- learning -----------------------------------------------------------------------------

    def complete(self, batch: Batch) -> Batch:
        """A batch collected with its values to come (a global critic, see
        ``agents.selfplay.SelfPlay``'s ``values_later``) with the critic's values of all its
        rows, and the advantages and returns they give; any other batch as it is."""
        if batch.adv is not None:
            return batch
        dev = self.compute.device
        with compute.threads(self.update_threads), self.compute.autocast():
            values = self.net.values(torch.as_tensor(batch.state).to(dev)).cpu().numpy()
        return batch.with_values(values, self.cfg.gamma, self.cfg.gae_lambda)

    def update(self, batch: Batch) -> dict:
        """PPO epochs over a collected batch (completed first, see ``complete``); the mean
        losses and statistics."""
        cfg = self.cfg
        dev = self.compute.device
        batch = self.complete(batch)
        t = {k: torch.as_tensor(v) for k, v in batch.as_dict().items()
             if k not in ("reward", "lengths")}
        t["obs"], t["mask"] = t["obs"].float(), t["mask"].bool()
        for k in ("logp", "value", "adv", "ret"):
            t[k] = t[k].float()
        t = {k: v.to(dev) for k, v in t.items()}

        def loss(idx):
            adv = t["adv"][idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(idx) > 1 else adv
            return ppo_loss(self.net, t["obs"][idx], t["mask"][idx], t["action"][idx],
                            t["logp"][idx], adv, t["ret"][idx], clip=cfg.clip,
                            vf_coef=cfg.vf_coef, ent_coef=self.active.ent_coef,
                            states=t["state"][idx] if "state" in t else None)

        with compute.threads(self.update_threads):  # the free cores: collection is idle now
            stats = fit(self.net, self.optimizer, len(t["action"]), epochs=cfg.epochs,
                        minibatch=cfg.minibatch, generator=self.generator,
                        max_grad_norm=cfg.max_grad_norm, loss_fn=loss,
                        precision=self.compute.precision, device_type=dev.type)
        self.sync_actor()
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        ret, val = batch.ret, batch.value
        out["explained_variance"] = float(1 - np.var(ret - val) / np.var(ret)) \
            if np.var(ret) > 0 else 0.0
        return out

    def win_rate(self, kind: str = "heuristic") -> float | None:
        return self.collector.win_rate(kind)

    # --- the run -------------------------------------------------------------------------------

    def save(self, name: str) -> str:
        path = os.path.join(self.run_path, name)
        torch.save(on_cpu({
            "game": self.cfg.game, "options": self.cfg.options,
            "net": {"hidden": list(self.cfg.hidden), "critic": self.cfg.critic},
            "model": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(), "config": dataclasses.asdict(self.cfg),
            "iteration": self.iteration, "samples": self.samples, "pool": self.pool,
            "rng": self.rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
            "next_seed": self.collector.next_seed, "imitated": self.imitated,
            "workers": self.collector.state() if self.cfg.workers else None,
            "elapsed": self.seconds(),
        }), path)
        return path

    def train(self) -> dict:
        cfg = self.cfg
        start = time.perf_counter()
        if self.imitated < cfg.imitation_samples:
            self.imitate()
            self.save("checkpoint.pt")
        if cfg.curve_every and self.iteration == 0 and self.samples < cfg.total_samples:
            self.curve_point()  # where PPO starts
        if cfg.stages and self.samples < cfg.total_samples:
            print(f"stage {self.stage + 1}/{len(cfg.stages)}", flush=True)
        # an iteration's clock runs from the end of the previous one's log: the checkpoint
        # written after that log counts in the next iteration (a checkpoint must come after
        # its iteration's record, which a resume keeps by its seconds)
        began = time.perf_counter()
        while self.samples < cfg.total_samples:
            if cfg.stages and stage_at(cfg, self.samples) != self.stage:
                self._enter_stage(stage_at(cfg, self.samples))
            lr = learning_rate(cfg, self.samples)  # the stage's schedule
            for group in self.optimizer.param_groups:
                group["lr"] = lr
            self.timing = {"collect": 0.0, "update": 0.0, "eval": 0.0}
            start_collect = time.perf_counter()
            batch = self.collect()
            self.timing["collect"] = time.perf_counter() - start_collect
            stats = self.update(batch)
            self.timing["update"] = time.perf_counter() - start_collect - self.timing["collect"]
            self.iteration += 1
            self.samples += len(batch)
            if cfg.curve_every and self.iteration % cfg.curve_every == 0:
                self.curve_point()  # adds its seconds to timing["eval"]
            self.curve_results()  # curve evaluations that finished on Ray meanwhile
            if self.iteration % cfg.snapshot_every == 0:
                self.pool.append({k: v.detach().cpu().clone()
                                  for k, v in self.net.state_dict().items()})
                self.pool = self.pool[-cfg.pool_size:]
                self.collector.set_pool(self.pool)
            seconds = time.perf_counter() - began  # the whole iteration, end to end
            sps = len(batch) / max(seconds, 1e-9)
            other = seconds - sum(self.timing.values())  # stage changes, snapshots, checkpoints
            win = self.win_rate()
            payoff = self.collector.mean_payoff("heuristic")
            self.log("ppo", iteration=self.iteration, stage=self.stage, samples_per_s=round(sps),
                     lr=lr, collect_s=round(self.timing["collect"], 3),
                     update_s=round(self.timing["update"], 3),
                     eval_s=round(self.timing["eval"], 3), other_s=round(other, 3),
                     update_samples_per_s=round(len(batch) /
                                                max(self.timing["update"], 1e-9)),
                     update_threads=self.update_threads,
                     win_rate_vs_heuristic=win, payoff_vs_heuristic=payoff,
                     **{k: round(v, 6) for k, v in stats.items()})
            for key, value in stats.items():
                self.writer.add_scalar(f"losses/{key}", value, self.samples)
            self.writer.add_scalar("charts/SPS", sps, self.samples)
            self.writer.add_scalar("charts/learning_rate", lr, self.samples)
            for part, value in self.timing.items():
                self.writer.add_scalar(f"time/{part}_s", value, self.samples)
            self.writer.add_scalar("time/iteration_s", seconds, self.samples)
            if win is not None:
                self.writer.add_scalar("charts/win_rate_vs_heuristic", win, self.samples)
                self.writer.add_scalar("charts/payoff_vs_heuristic", payoff, self.samples)
            if self.iteration % cfg.log_every == 0:
                done = min(1.0, self.samples / cfg.total_samples)
                bar = "#" * int(done * 20)
                print(f"[{bar:<20}] iter {self.iteration} | {self.samples:,}/{cfg.total_samples:,}"
                      f" samples | {sps:,.0f} samples/s (collect {self.timing['collect']:.1f} s, "
                      f"update {self.timing['update']:.1f} s, eval {self.timing['eval']:.1f} s) | "
                      f"win vs heuristic {'n/a' if win is None else f'{win:.2f}'} (recent "
                      f"hands) | lr {lr:.2e} | kl {stats['approx_kl']:.5f} | clip "
                      f"{stats['clip_fraction']:.3f} | entropy {stats['entropy']:.2f}", flush=True)
            began = time.perf_counter()
            if self.iteration % cfg.checkpoint_every == 0:
                self.save("checkpoint.pt")
        self.save("checkpoint.pt")
        final = self.save("final.pt")
        self.collector.close()
        if self.evaluator is not None:  # the last curve points, before the final evaluations
            self.curve_results(wait=True)
        slim(final, os.path.join(self.run_path, "agent.pt"))
        self.writer.flush()
        result = {"checkpoint": final, "samples": self.samples, "iterations": self.iteration,
                  "seconds": time.perf_counter() - start}
        if cfg.eval_deals:
            result["evaluation_vs_random"] = self.evaluate(cfg.eval_deals, "random")
            result["evaluation"] = self.evaluate(cfg.eval_deals, "heuristic")
        return result

    def playing_agent(self) -> "PPOAgent":
        """The greedy policy as it stands, for evaluations: a CPU network of its own (training
        goes on changing the learner's), acting in the run's precision."""
        net = self.make_net()
        net.load_state_dict({k: v.detach().cpu() for k, v in self.net.state_dict().items()})
        return PPOAgent(self.cfg.game, net, greedy=True, precision=self.compute.precision)

    def curve_point(self) -> None:
        """A learning-curve evaluation: ``curve_deals`` duplicate pairs against the heuristic
        under each option set, on seeds apart from the final evaluation's. With Ray workers
        they are Ray tasks that run while training goes on (``curve_results`` logs them when
        they finish); else they are played here, and their seconds count as evaluation."""
        began = time.perf_counter()
        agent = self.playing_agent()
        for options in option_sets(self.cfg):
            if self.evaluator is not None:
                self.evaluator.submit((self.samples, self.iteration, options),
                                      as_game(self.cfg.game, dict(options)), agent,
                                      self.heuristic, self.cfg.curve_deals,
                                      seed=20_000_000 + self.cfg.seed)
                continue
            stats = duplicate(as_game(self.cfg.game, dict(options)), agent, self.heuristic,
                              self.cfg.curve_deals, seed=20_000_000 + self.cfg.seed)
            self._curve_record(self.samples, options, stats)
        if self.timing:
            self.timing["eval"] += time.perf_counter() - began

    def curve_results(self, wait: bool = False) -> None:
        """Log the curve evaluations that Ray finished (all of them, waiting, with ``wait``)."""
        if self.evaluator is None:
            return
        for (samples, _, options), stats in self.evaluator.results(wait):
            self._curve_record(samples, options, stats)

    def _curve_record(self, samples: int, options: dict, stats: dict) -> None:
        low, high = stats["win_rate_ci95"]
        print(f"curve: PPO vs heuristic{' ' + str(options) if options else ''} at "
              f"{samples:,} samples: win rate {stats['win_rate']:.3f} ({low:.3f}.."
              f"{high:.3f}) on {self.cfg.curve_deals} pairs, mean payoff per game "
              f"{stats['mean_payoff_per_game']:+.3f}", flush=True)
        self.log("curve", at_samples=samples, options=options, deals=self.cfg.curve_deals,
                 win_rate=stats["win_rate"], win_rate_ci95=stats["win_rate_ci95"],
                 mean_payoff_per_game=stats["mean_payoff_per_game"],
                 mean_payoff_ci95=stats["mean_payoff_ci95"])
        self.writer.add_scalar("eval/curve_win_rate_vs_heuristic", stats["win_rate"], samples)

    def evaluate(self, deals: int, opponent: str = "heuristic") -> dict:
        """Duplicate evaluation against ``opponent`` ("heuristic" or "random") under each set
        of training options, with a progress line; as Ray tasks with ``workers``."""
        agent = self.playing_agent()
        other = self.heuristic if opponent == "heuristic" else RandomAgent(self.cfg.game,
                                                                           self.cfg.seed)
        variants = option_sets(self.cfg)
        results = []
        for options in variants:
            label = f"evaluation: PPO vs {opponent}{' ' + str(options) if options else ''}"
            # with workers, the chunks go to Ray (the rollout actors are gone by now): the
            # same result as here, sooner
            stats = duplicate(as_game(self.cfg.game, dict(options)), agent, other, deals,
                              seed=10_000_000 + self.cfg.seed,
                              progress=Progress(2 * deals, label, "games"),
                              workers=self.cfg.workers, address=self.cfg.ray_address)
            low, high = stats["win_rate_ci95"]
            print(f"{label}, {deals} duplicate deal pairs: win rate {stats['win_rate']:.3f} "
                  f"(95% CI {low:.3f}..{high:.3f}), mean payoff per game "
                  f"{stats['mean_payoff_per_game']:+.3f}", flush=True)
            results.append({"options": options, **stats})
            self.log("evaluation", opponent=opponent, options=options, deals=deals,
                     win_rate=stats["win_rate"], win_rate_ci95=stats["win_rate_ci95"],
                     mean_payoff_per_game=stats["mean_payoff_per_game"])
        self.writer.add_scalar(f"eval/win_rate_vs_{opponent}", results[0]["win_rate"],
                               self.samples)
        return results[0] if len(results) == 1 else {"by_options": results}


def main(argv=None) -> dict:
    parser = cli.ArgumentParser(prog="train.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="YAML config (default: the built-in short run)")
    parser.add_argument("--resume", help="checkpoint.pt of a run to continue (its saved config, "
                        "overlaid with --config and the overrides)")
    parser.add_argument("overrides", nargs="*", help="key=value settings over the config")
    args = parser.parse_args(argv)
    if torch is None:
        sys.exit('train.py needs torch: pip install -e ".[train]" (it pins the CPU build)')
    try:
        resume = None
        if args.resume:
            try:
                # tensors and plain data only: a foreign file cannot run code as it loads
                resume = read_checkpoint(args.resume)
                saved = resume["config"]
                if not isinstance(saved, dict):
                    raise TypeError("its config is not a mapping")
            except CheckpointError as exc:
                raise ConfigError(f"cannot resume: {exc}") from None
            except (KeyError, TypeError) as exc:
                raise ConfigError(f"cannot resume from {args.resume!r}: it is not a training "
                                  f"checkpoint ({exc})") from None
            # the saved config, overlaid with --config and the overrides (e.g. total_samples=...
            # extends the run)
            cfg = load_config(args.config, args.overrides, base=saved)
        else:
            cfg = load_config(args.config, args.overrides)
    except (ValueError, TypeError) as exc:  # ConfigError, or a value no check foresaw
        parser.error(str(exc))
    # the run folder is made and written before any training: checked now, not at the end
    run_path = os.path.join(cfg.run_dir, cfg.run_name or f"{cfg.game}-{cfg.seed}")
    if problem := cli.output_folder_problem(run_path):
        parser.error(f"run_dir/run_name {run_path}: {problem}")
    if cfg.workers:
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error(f'workers={cfg.workers} needs Ray: pip install -e ".[dist]"')
    print(f"training {cfg.game} for {cfg.total_samples:,} samples "
          f"({'resumed' if resume else 'new run'}) -> "
          f"{cfg.run_dir}/{cfg.run_name or f'{cfg.game}-{cfg.seed}'}")
    try:
        trainer = Trainer(cfg, resume)
    except ConfigError as exc:
        parser.error(str(exc))
    except ConnectionError as exc:  # agents.distributed.Unreachable: ray_address
        parser.error(f"ray_address: {exc}")
    result = trainer.train()
    with open(os.path.join(cfg.run_dir, cfg.run_name or f"{cfg.game}-{cfg.seed}",
                           "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    cli.run(main)
