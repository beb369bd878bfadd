"""One training run, as ``train.py`` runs it (``Trainer``): it joins the parts and runs the loop.
The parts are objects it holds: the learner (``learner.Learner``: network, optimizer, compute,
updates), who collects (``collector.Collector``, or ``remote.RayCollector``'s Ray actors), the
warm start (``imitation.Imitation``), the network surgery of ``init``
(``initial_weights.InitialWeights``), distillation (``distill.Distillation``), the evaluations
(``run_evaluations.RunEvaluations``) and the run's log (``runlog.RunLog``). Learning-curve points,
frozen snapshots and checkpoints are periodic hooks (``hooks.Periodic``) run after iterations.
``train.py`` runs one; its docstring says what a run does.
"""

from __future__ import annotations

import dataclasses
import os
import time

import numpy as np
import torch

from cardagents.evaluation.progress import RunClock
from cardagents.players.heuristics import heuristic_for
from cardagents.players.random import RandomAgent
from cardagents.ppo import compute
from cardagents.ppo.agent import slim
from cardagents.training.checkpoints import Restored, restore, save_training
from cardagents.training.collector import Collector
from cardagents.training.config import (IMITATION_SEED_STRIDE, PPO_SEED_STRIDE, Config,
                                        collector_settings, games_of, learning_rate,
                                        made_variants, needs_heuristic, run_path, stage_at,
                                        stage_config)
from cardagents.training.distill import Distillation
from cardagents.training.run_evaluations import RunEvaluations
from cardagents.training.hooks import Periodic, run_due
from cardagents.training.imitation import Imitation
from cardagents.training.initial_weights import InitialWeights
from cardagents.training.learner import Learner
from cardagents.training.runlog import RunLog, iteration_line, iteration_record, run_phases
from cardagents.training.selfplay import Batch
from cardenv.vector import VectorGame

__all__ = ["Trainer"]


class Trainer:
    """One training run of ``cfg`` (``resume``: a checkpoint read by
    ``cardagents.training.checkpoints.read_training``, to go on from)."""

    def __init__(self, cfg: Config, resume: dict | None = None):
        self.cfg = cfg
        # where and how the learner computes (cardagents.ppo.compute), said at the start
        self.compute = compute.resolve(cfg.device, cfg.precision, cfg.torch_threads)
        print(self.compute.describe(), flush=True)
        # collection acts on one thread (its engines are numpy, its batches small); the update
        # and the imitation take the learner's threads while collection is idle
        torch.set_num_threads(1)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.run_path = run_path(cfg)
        os.makedirs(self.run_path, exist_ok=True)
        # a new run loads it; a resumed one reads its sizes
        init = InitialWeights(cfg.init, cfg.game, widen=cfg.init_widen) if cfg.init else None
        self.learner = Learner(cfg, self.compute, init, load=not resume)
        self.heuristic = heuristic_for(cfg.game, cfg.seed) if needs_heuristic(cfg) else None
        # where the run stands (cardagents.training.checkpoints; ConfigError if damaged)
        at = restore(resume, self.learner.net, self.learner.optimizer, cfg.lr, self.rng,
                     cfg.game) if resume else Restored(0, 0, [], 0, 0.0, cfg.seed * PPO_SEED_STRIDE)
        self.iteration, self.samples, self.imitated = at.iteration, at.samples, at.imitated
        self.pool: list = at.pool  # frozen snapshots (state dicts)
        self.generator = self.learner.generator = torch.Generator().manual_seed(
            cfg.seed + self.iteration)
        # each stage's config (see Config.stages), checked once here: the loop reads them
        self.stages = [stage_config(cfg, i) for i in range(len(cfg.stages))] or [cfg]
        self.stage = stage_at(cfg, self.samples)
        self.active = self.stages[self.stage]
        # each option set made into its game once: collection, imitation, distillation, evaluations
        self.variants = made_variants(cfg)
        self.learner.sync_actor()
        self.collector = self._collector(at.next_seed, resume.get("workers") if resume else None)
        self.timing: dict[str, float] = {}  # seconds of the iteration in progress, by part
        self.run: RunClock | None = None  # the whole run's time left (made by train)
        self.runlog = RunLog(self.run_path, at.elapsed, self.samples, self.imitated)
        # a resumed run's start evaluations (eval_start) were made before it: read once here
        self.evaluations = RunEvaluations(cfg, self.variants, self.heuristic, self.log,
                                       self.runlog.records("start_evaluation") if resume else [])
        self.log("compute", device=str(self.compute.device), precision=self.compute.precision,
                 threads=self.compute.threads, reasons=list(self.compute.reasons))
        self.imitation = Imitation(cfg, self.heuristic)
        self.distillation = Distillation(cfg.game, cfg.seed, self.heuristic,
                                         resume.get("distill") if resume else None)
        # periodic work, after an iteration: before its log record and after it
        self.hooks = [Periodic(cfg.curve_every, self.curve_point),
                      Periodic(1, self.evaluations.curve_results),  # what Ray finished
                      Periodic(cfg.snapshot_every, self.snapshot)]
        self.after_log = [Periodic(cfg.checkpoint_every, lambda: self.save("checkpoint.pt"))]

    def _collector(self, first_seed: int, saved: list | None):
        """Who collects: a ``Collector`` here dealing from ``first_seed``, or with ``workers``
        Ray actors (``RayCollector``; ``saved``: a resumed run's), one CPU kept for curve tasks."""
        cfg, learner, settings = self.cfg, self.learner, self.settings(self.active)
        if cfg.workers:  # nothing imports Ray otherwise
            from cardagents.training.remote import RayCollector
            return RayCollector(settings, learner.actor, cfg.hidden, cfg.workers, seed=cfg.seed,
                                address=cfg.ray_address, pool=self.pool, saved=saved,
                                spare_cpus=1 if cfg.curve_every else 0)
        collector = Collector(cfg.game, cfg.seed, learner.actor, learner.make_net, self.rng,
                              self.generator, {"heuristic": self.heuristic,
                                                      "random": RandomAgent(cfg.game, cfg.seed)})
        collector.deal(settings, first_seed)
        collector.set_pool(self.pool)
        return collector

    def settings(self, active: Config):
        """``collector_settings`` of a stage, in the run's resolved precision, with its games."""
        return collector_settings(active, self.compute.precision,
                                  games_of(self.variants, active.options))

    def log(self, phase: str, *, step: int | None = None, group: str = "",
            line: str | None = None, **values) -> dict:
        """One event of the run's log (``RunLog.log``; ``step``: default the samples so far)."""
        return self.runlog.log(phase, values, samples=self.samples, imitated=self.imitated,
                               step=step, group=group, line=line)

    def _enter_stage(self, index: int) -> None:
        """Switch to stage ``index`` (``Collector.enter``: new games if its options differ)."""
        self.stage, self.active = index, self.stages[index]
        self.collector.enter(self.settings(self.active))
        changed = {k: v for k, v in self.cfg.stages[index].items() if k != "samples"}
        print(f"stage {index + 1}/{len(self.cfg.stages)} from sample {self.samples:,}: "
              f"{changed or 'the config as it is'}", flush=True)

    def collect(self) -> Batch:
        """``rollout_samples`` learner decisions of finished hands (here, or shared between the
        Ray workers); meanwhile, see which cores the update may take."""
        self.learner.watch_cores()
        batch = self.collector.collect(self.cfg.rollout_samples)
        self.learner.claim_cores()
        return batch

    def imitate(self) -> None:
        """The warm start (``Imitation``) on games of the stage's options, each chunk logged."""
        games = VectorGame(games_of(self.variants, self.active.options), self.cfg.num_envs,
                           seed=self.cfg.seed * IMITATION_SEED_STRIDE + self.imitated)
        if self.run is None:  # (called on its own, not by train)
            self.run = RunClock(self.run_phases())
        for self.imitated, line, values in self.imitation.run(self.learner, games,
                                                               self.imitated, self.run):
            self.log("imitation", step=self.imitated, line=line, **values)

    def update(self, batch: Batch, labels: dict | None = None) -> dict:
        """The PPO update of a batch (``Learner.update``), with a distillation stage's
        ``labels`` (``Distillation.update``)."""
        if labels:
            return self.distillation.update(self.learner, batch, self.active, labels)
        return self.learner.update(batch, self.active.ent_coef)

    def save(self, name: str) -> str:
        """A training checkpoint in the run folder (``cardagents.training.checkpoints``)."""
        return save_training(
            os.path.join(self.run_path, name), dataclasses.asdict(self.cfg), self.learner.net,
            self.learner.optimizer, self.pool, self.rng, iteration=self.iteration,
            samples=self.samples, next_seed=self.collector.next_seed, imitated=self.imitated,
            workers=self.collector.state() if self.cfg.workers else None,
            elapsed=self.runlog.seconds(), distill=self.distillation.state())

    def run_phases(self) -> list:
        """What is left of the run, for its ``RunClock``."""
        return run_phases(self.cfg, len(self.variants), self.imitated, self.iteration, self.samples)

    def curve_point(self) -> None:
        """A learning-curve point of the policy as it stands; its seconds count as evaluation."""
        began = time.perf_counter()
        self.evaluations.curve_point(self.learner.playing_agent(), self.samples)
        if self.timing:
            self.timing["eval"] += time.perf_counter() - began

    def snapshot(self) -> None:
        """A frozen copy of the learner joins the opponents' pool (the last ``pool_size``)."""
        self.pool = (self.pool + [self.learner.snapshot()])[-self.cfg.pool_size:]
        self.collector.set_pool(self.pool)

    def evaluate(self, opponent: str, start: bool = False) -> dict:
        """The final (or, with ``start``, the start) evaluation of the policy as it stands."""
        return self.evaluations.evaluate(self.learner.playing_agent(), self.cfg.eval_deals,
                                         opponent, start, self.imitated, self.run)

    def train(self) -> dict:
        """The run: the warm start, the start evaluation and curve point, the PPO iterations
        and their hooks, and the final evaluations; what ``result.json`` holds."""
        cfg = self.cfg
        start = time.perf_counter()
        self.run = RunClock(self.run_phases())  # the time left for the whole run, on each line
        if self.imitated < cfg.imitation_samples:
            self.imitate()
            self.save("checkpoint.pt")
        if cfg.eval_start and cfg.eval_deals and self.iteration == 0:
            self.evaluate("heuristic", start=True)  # where PPO starts
        if cfg.curve_every and self.iteration == 0 and self.samples < cfg.total_samples:
            self.curve_point()  # where PPO starts
        if cfg.stages and self.samples < cfg.total_samples:
            print(f"stage {self.stage + 1}/{len(cfg.stages)}", flush=True)
        # an iteration's clock runs from the end of the previous one's log: a checkpoint written
        # after that log counts in the next (it must follow its record, kept by its seconds)
        began, first = time.perf_counter(), self.samples
        self.run.start("ppo")
        while self.samples < cfg.total_samples:
            self.iterate(began, first)
            began = time.perf_counter()
            run_due(self.after_log, self.iteration)
        self.save("checkpoint.pt")
        final = self.save("final.pt")
        self.collector.close()
        self.evaluations.curve_results(wait=True)  # the last curve points on Ray, if any
        slim(final, os.path.join(self.run_path, "agent.pt"))
        self.runlog.writer.flush()
        result = {"checkpoint": final, "samples": self.samples, "iterations": self.iteration,
                  "seconds": time.perf_counter() - start}
        if cfg.eval_deals:
            result["evaluation_vs_random"] = self.evaluate("random")
            result["evaluation"] = self.evaluate("heuristic")
            if cfg.eval_start:
                result.update(self.evaluations.start_to_end(result["evaluation"]))
        return result

    def iterate(self, began: float, first: int) -> None:
        """One PPO iteration: stage, learning rate, (labels,) collection, update, the hooks due
        and its log (timed from ``began``; ``first``: the samples this process started from)."""
        cfg = self.cfg
        if cfg.stages and stage_at(cfg, self.samples) != self.stage:
            self._enter_stage(stage_at(cfg, self.samples))
        lr = learning_rate(cfg, self.samples, self.active)  # the stage's schedule
        self.learner.set_lr(lr)
        self.timing = {"collect": 0.0, "update": 0.0, "eval": 0.0}
        labels, start_label, active = None, time.perf_counter(), self.active
        if active.kind == "distill":  # logged as label_s
            labels = self.distillation.labels(active, games_of(self.variants, active.options),
                                              self.learner.actor, self.compute.precision)
            self.timing["label"] = time.perf_counter() - start_label
        start_collect = time.perf_counter()
        batch = self.collect()
        self.timing["collect"] = time.perf_counter() - start_collect
        stats = self.update(batch, labels)
        self.timing["update"] = time.perf_counter() - start_collect - self.timing["collect"]
        self.iteration += 1
        self.samples += len(batch)
        self.run.update("ppo", self.samples - first)
        run_due(self.hooks, self.iteration)  # curve points, snapshots
        seconds = time.perf_counter() - began  # the whole iteration, end to end
        against = cfg.curve_opponent  # the console reads the recent games against it
        line = iteration_line(self.iteration, self.samples, cfg.total_samples,
                              len(batch) / max(seconds, 1e-9), self.timing,
                              self.collector.win_rate(against), lr, stats, self.run.text(),
                              against) if self.iteration % cfg.log_every == 0 else None
        self.log("ppo", line=line, **iteration_record(
            self.iteration, self.stage, len(batch), seconds, lr, self.timing,
            self.learner.threads, self.collector, against, stats))
