"""One training run, as ``train.py`` runs it (``Trainer``): the learner and its compute, the
warm start (imitation), the stages, self-play collection (in this process or in Ray actors),
the PPO (and distillation) updates, the learning-curve and final evaluations, the run's log and
its checkpoints. ``train.py`` reads the config and the command line and runs one; its docstring
says what a run does.
"""

from __future__ import annotations

import dataclasses
import os
import time

import numpy as np
import torch

from cardagents.evaluation.progress import Progress, RunClock
from cardagents.players.heuristics import heuristic_for
from cardagents.players.lockstep import as_game
from cardagents.players.random import RandomAgent
from cardagents.ppo import compute
from cardagents.ppo.agent import slim
from cardagents.ppo.losses import fit, imitation_loss, ppo_loss
from cardagents.ppo.net import make_net
from cardagents.training.checkpoints import restore, save_training
from cardagents.training.collector import Collector
from cardagents.training.config import (IMITATION_SEED_STRIDE, PPO_SEED_STRIDE, Config,
                                        collector_settings, learning_rate,
                                        needs_heuristic, option_sets, run_path, stage_at,
                                        stage_config)
from cardagents.training.evaluations import Evaluations
from cardagents.training.imitation import Demonstrator
from cardagents.training.runlog import RunLog, iteration_line
from cardagents.training.selfplay import Batch
from cardenv.core.errors import ConfigError
from cardenv.vector import VectorGame

__all__ = ["Trainer"]


class Trainer(Evaluations):
    """One training run: games, learner, opponents, buffers, logs and checkpoints (and its
    evaluations, ``cardagents.training.evaluations``)."""

    def __init__(self, cfg: Config, resume: dict | None = None):
        self.cfg = cfg
        # where and how the learner computes (cardagents.ppo.compute): said at the start of the run
        self.compute = compute.resolve(cfg.device, cfg.precision, cfg.torch_threads)
        print(self.compute.describe(), flush=True)
        # collection acts on one thread (its engines are numpy, its batches small); the update
        # and the imitation take compute.threads while collection is idle
        torch.set_num_threads(1)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.run_path = run_path(cfg)
        os.makedirs(self.run_path, exist_ok=True)
        self._learner(resume)
        self.heuristic = heuristic_for(cfg.game, cfg.seed) if needs_heuristic(cfg) else None
        self.random = RandomAgent(cfg.game, cfg.seed)
        self.pool: list = []  # frozen snapshots (state dicts)
        self.iteration, self.samples, first_seed = 0, 0, cfg.seed * PPO_SEED_STRIDE
        self.imitated, elapsed = 0, 0.0
        if resume:  # where the run stood (cardagents.training.checkpoints; ConfigError if damaged)
            at = restore(resume, self.net, self.optimizer, cfg.lr, self.rng, cfg.game)
            self.iteration, self.samples, self.pool = at.iteration, at.samples, at.pool
            self.imitated, elapsed, first_seed = at.imitated, at.elapsed, at.next_seed
        self.generator = torch.Generator().manual_seed(cfg.seed + self.iteration)
        # the stage this run is in (see Config.stages) and the config it trains with
        # each stage's config, checked once here (load_config checked them already): the loop
        # reads them every iteration
        self.stages = [stage_config(cfg, i) for i in range(len(cfg.stages))] or [cfg]
        self.stage = stage_at(cfg, self.samples)
        self.active = self.stages[self.stage]
        # each option set of the run, made into its game once: collection, imitation,
        # distillation and the evaluations play these
        self.variants = [(options, as_game(cfg.game, dict(options)))
                         for options in option_sets(cfg)]
        self.sync_actor()
        self._collection(resume, first_seed)
        # seconds of the iteration in progress, by part (collect, update, eval)
        self.timing: dict[str, float] = {}
        self.run: RunClock | None = None  # the whole run's time left (made by train)
        # torch_threads auto in one process: the update takes the cores that stayed free while
        # collecting (none that another process holds); Ray actors idle during the update, so
        # with workers it takes them all
        self.free = compute.FreeCores(self.compute.threads) \
            if cfg.torch_threads == "auto" and not cfg.workers else None
        self.update_threads = self.compute.threads
        self.runlog = RunLog(self.run_path, elapsed, self.samples, self.imitated)
        # the policy PPO started from, evaluated (eval_start): this process's evaluations are
        # kept as they are made; a resumed run's were made before it, read once here
        self.starts = self.runlog.records("start_evaluation") if resume else []
        self.log("compute", device=str(self.compute.device), precision=self.compute.precision,
                 threads=self.compute.threads, reasons=list(self.compute.reasons))
        # a distillation stage's labels (cardagents.training.distill; made when one is entered)
        self.distiller, self.distiller_key = None, None
        self.distill_saved = resume.get("distill") if resume else None

    def _learner(self, resume: dict | None) -> None:
        """The learner's network (``net``), the one collection acts with (``actor``), their
        maker (``make_net``) and the optimizer; a new run with ``init`` starts from its
        weights."""
        cfg = self.cfg
        # a run from an init checkpoint of an earlier layout reads the observation and state
        # prefixes that checkpoint was trained on (layouts only grow at their end)
        obs_size, state_size = cfg.observation_size, None
        if cfg.init:
            obs_size, state_size = self.init_sizes(cfg.init)
        self.make_net = lambda: make_net(cfg.game, cfg.hidden, cfg.critic, head=cfg.head,
                                         obs_size=obs_size, state_size=state_size)
        self.net = self.make_net().to(self.compute.device)
        # the network collection acts with, on the CPU: the learner itself when it is there too,
        # else a copy refreshed after every update
        self.actor = self.net if self.compute.device.type == "cpu" else self.make_net()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=1e-5)
        if cfg.init and not resume:
            self.load_init(cfg.init)

    def _collection(self, resume: dict | None, first_seed: int) -> None:
        """Who collects (``collector``: in this process, or Ray actors with ``workers``, and
        then the curve evaluations as Ray tasks beside training, ``evaluator``)."""
        cfg = self.cfg
        players = {"heuristic": self.heuristic, "random": self.random}
        self.evaluator = None  # curve evaluations as Ray tasks beside training (workers > 0)
        if cfg.workers:  # Ray actors collect; nothing imports Ray otherwise
            from cardagents.evaluation.remote import AsyncEvaluator
            from cardagents.training.remote import RayCollector
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

    def games_of(self, options: dict | list) -> list:
        """The made games (``variants``) of a stage's ``options``, one per rules variant."""
        wanted = options if isinstance(options, list) else [options]
        return [next(game for made, game in self.variants if made == dict(variant))
                for variant in wanted]

    def settings(self, active: Config) -> dict:
        """``collector_settings`` of a stage, in the run's resolved precision, with its games."""
        return collector_settings(active, self.compute.precision, self.games_of(active.options))

    def sync_actor(self) -> None:
        """Copy the learner's weights to the network collection acts with (nothing to do when
        they are one network, on the CPU)."""
        if self.actor is not self.net:
            self.actor.load_state_dict({k: v.detach().cpu() for k, v in
                                        self.net.state_dict().items()})

    # --- the run's log ---------------------------------------------------------------------------

    def log(self, phase: str, *, step: int | None = None, group: str = "",
            line: str | None = None, **values) -> dict:
        """One event of the run's log (``cardagents.training.runlog.RunLog.log``: the record,
        its TensorBoard scalars at ``step``, default the samples so far, and ``line``)."""
        return self.runlog.log(phase, values, samples=self.samples, imitated=self.imitated,
                               step=step, group=group, line=line)

    def _enter_stage(self, index: int) -> None:
        """Switch to stage ``index``: its opponent mix and shaping from the next game seated
        on; new games if it changes the options (the hands in progress are dropped)."""
        self.stage = index
        self.active = self.stages[index]
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
        games = VectorGame(self.games_of(self.active.options), cfg.num_envs,
                           seed=cfg.seed * IMITATION_SEED_STRIDE + self.imitated)
        demonstrator = Demonstrator(games, self.heuristic, self.net.critic == "global")
        first = self.imitated
        if self.run is None:  # (called on its own, not by train)
            self.run = RunClock(self.run_phases())
        self.run.start("imitation")
        while self.imitated < cfg.imitation_samples:
            if self.free is not None:
                self.free.start()
            chunk = demonstrator.chunk(cfg.imitation_chunk)
            dev = self.compute.device
            t_obs, t_mask, t_act, t_ret, t_has = (torch.as_tensor(a).to(dev) for a in (
                chunk.obs, chunk.mask, chunk.action, chunk.ret, chunk.has_value))
            t_state = None if chunk.state is None else torch.as_tensor(chunk.state).to(dev)

            def loss(idx):
                return imitation_loss(self.net, t_obs[idx], t_mask[idx], t_act[idx], t_ret[idx],
                                      t_has[idx], vf_coef=cfg.vf_coef,
                                      states=None if t_state is None else t_state[idx])

            if self.free is not None:  # the cores that stayed free while gathering
                self.update_threads = self.free.count()
            with compute.threads(self.update_threads):
                losses = fit(self.net, optimizer, len(chunk), epochs=cfg.imitation_epochs,
                             minibatch=cfg.minibatch, generator=self.generator,
                             max_grad_norm=cfg.max_grad_norm, loss_fn=loss,
                             precision=self.compute.precision, device_type=dev.type)
                with torch.no_grad(), self.compute.autocast():
                    logits, _ = self.net(t_obs[:4096], t_mask[:4096])
                    agreement = (logits.argmax(-1) == t_act[:4096]).float().mean().item()
            self.sync_actor()
            self.imitated += len(chunk)
            policy_loss, value_loss = np.mean(losses["policy_loss"]), np.mean(losses["value_loss"])
            self.run.update("imitation", self.imitated - first)
            line = (f"imitation {self.imitated:,}/{cfg.imitation_samples:,} decisions | policy "
                    f"loss {policy_loss:.3f} | value loss {value_loss:.3f} | agrees with the "
                    f"heuristic on {agreement:.1%} | {self.run.text()}")
            self.log("imitation", step=self.imitated, line=line, agreement=round(agreement, 4),
                     policy_loss=round(float(policy_loss), 4))

    # --- learning -----------------------------------------------------------------------------

    def complete(self, batch: Batch) -> Batch:
        """A batch collected with its values to come (a global critic, see
        ``cardagents.training.selfplay.SelfPlay``'s ``values_later``) with the critic's values of
        all its rows, and the advantages and returns they give; any other batch as it is."""
        if batch.adv is not None:
            return batch
        dev = self.compute.device
        with compute.threads(self.update_threads), self.compute.autocast():
            values = self.net.values(torch.as_tensor(batch.state).to(dev)).cpu().numpy()
        return batch.with_values(values, self.cfg.gamma, self.cfg.gae_lambda)

    def update(self, batch: Batch, labels: dict | None = None) -> dict:
        """PPO epochs over a collected batch (completed first, see ``complete``); the mean
        losses and statistics. With ``labels`` (a distillation stage's, ``distill_labels``)
        each minibatch's loss adds the distillation loss of a minibatch of them."""
        cfg = self.cfg
        dev = self.compute.device
        batch = self.complete(batch)
        t = batch.to(dev)
        extra = self.distill_term(labels) if labels else None

        def loss(idx):
            adv = t.adv[idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(idx) > 1 else adv
            total, parts = ppo_loss(self.net, t.obs[idx], t.mask[idx], t.action[idx],
                                    t.logp[idx], adv, t.ret[idx], clip=cfg.clip,
                                    vf_coef=cfg.vf_coef, ent_coef=self.active.ent_coef,
                                    states=None if t.state is None else t.state[idx])
            if extra is None:
                return total, parts
            more, more_parts = extra()
            return total + more, {**parts, **more_parts}

        with compute.threads(self.update_threads):  # the free cores: collection is idle now
            stats = fit(self.net, self.optimizer, len(t.action), epochs=cfg.epochs,
                        minibatch=cfg.minibatch, generator=self.generator,
                        max_grad_norm=cfg.max_grad_norm, loss_fn=loss,
                        precision=self.compute.precision, device_type=dev.type)
        self.sync_actor()
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        ret, val = batch.ret, batch.value
        out["explained_variance"] = float(1 - np.var(ret - val) / np.var(ret)) \
            if np.var(ret) > 0 else 0.0
        if labels:  # what the labelling found and cost
            out.update(labels)
            print(f"distill: {labels['labels']} states labelled ({labels['labels_per_s']:.2f}/s; "
                  f"{labels['labelled']:,} in all), the search plays another action than the "
                  f"policy's on {labels['search_differs']:.0%} (another than its rollout "
                  f"policy's on {labels['search_overrides']:.0%}) | distill loss "
                  f"{out['distill_loss']:.3f}, the policy's top action is the labels' on "
                  f"{out['distill_agreement']:.0%}", flush=True)
        return out

    # --- distillation from search (cardagents.training.distill)
    # ---------------------------------------------

    def init_sizes(self, path: str) -> tuple[int | None, int | None]:
        """The observation and global-state sizes the checkpoint ``path`` reads (``None``:
        today's), as long as it plays the config's game (else ``load_init`` says what is
        wrong)."""
        from cardagents.ppo.agent import CheckpointError, PPOAgent
        try:
            net = PPOAgent.load(path).net
        except CheckpointError:
            return self.cfg.observation_size, None
        state = getattr(net, "state_scale", None)
        return net.scale.numel(), None if state is None else state.numel()

    def load_init(self, path: str) -> None:
        """Start from the weights of the PPO checkpoint ``path`` (``init``); its network must
        be the config's (game, hidden sizes, critic, observation): else one ``ConfigError``
        line. A fixed-head checkpoint may start a ``head: features`` run (its scorer added at
        zero: the same policy to begin with)."""
        from cardagents.ppo.agent import CheckpointError, PPOAgent
        from cardagents.ppo.net import FEATURE_KEYS
        try:
            agent = PPOAgent.load(path)
        except CheckpointError as exc:
            raise ConfigError(f"config: init {path}: {exc}") from None
        if agent.game != self.cfg.game:
            raise ConfigError(f"config: init {path}: it plays {agent.game}, not {self.cfg.game}")
        weights = agent.net.state_dict()
        mine = self.net.state_dict()
        # a fixed-head checkpoint may start a features head: its weights fill everything but
        # the action scorer, whose last layer starts at zero so that the new network plays
        # exactly as the checkpoint did until PPO moves it
        grown = (agent.net.head == "fixed" and self.net.head == "features"
                 and set(mine) - set(weights) == {k for k in mine if k.startswith(FEATURE_KEYS)})
        if grown:
            weights = {**{k: v for k, v in mine.items() if k.startswith(FEATURE_KEYS)},
                       **weights}
            last = f"action_score.{len(self.net.action_score) - 1}."
            weights = {k: torch.zeros_like(v) if k.startswith(last) else v
                       for k, v in weights.items()}
        if set(weights) != set(mine) or any(weights[k].shape != mine[k].shape for k in mine):
            raise ConfigError(f"config: init {path}: a network with hidden {agent.net.hidden} "
                              f"and a "
                              f"{agent.net.critic} critic over another observation or "
                              f"other sizes than the config's (hidden {list(self.cfg.hidden)}, "
                              f"critic {self.cfg.critic})")
        self.net.load_state_dict({k: v.to(self.compute.device) for k, v in weights.items()})
        print(f"starting from the weights of {path}"
              + (" (its fixed head; the action scorer starts at zero)" if grown else ""),
              flush=True)

    def distill_labels(self) -> dict:
        """A distillation iteration's labels: ``distill_labels`` states from the learner's own
        games labelled by the search (``cardagents.training.distill.Distiller``), added to the
        buffer; their seconds in ``timing["label"]``; what the update's distillation term needs."""
        from cardagents.training.distill import Distiller
        active, began = self.active, time.perf_counter()
        key = (self.cfg.game, repr(active.options), active.distill_search, active.distill_envs)
        if self.distiller is None or self.distiller_key != key:
            self.distiller = Distiller(
                self.games_of(active.options), active.distill_search,
                self.heuristic or heuristic_for(self.cfg.game, self.cfg.seed), self.cfg.seed,
                active.distill_envs, saved=self.distill_saved)
            self.distiller_key, self.distill_saved = key, None
        count = active.distill_labels
        found = self.distiller.label(
            self.actor, count, select_how=active.distill_select, pool=active.distill_pool,
            temperature=active.distill_temperature, focus=active.distill_focus,
            max_legal=active.distill_max_legal,
            precision=self.compute.precision,
            progress=Progress(count, "distill: labelling states with the search", "states"))
        self.distiller.add(found.pop("new"), active.distill_buffer)
        self.timing["label"] = time.perf_counter() - began  # logged as label_s
        seconds = found.pop("label_s")
        return {**found, "labels_per_s": found["labels"] / max(seconds, 1e-9),
                "labelled": self.distiller.labelled, "label_seconds": self.distiller.seconds}

    def distill_term(self, labels: dict):
        """A callable giving the distillation term of one minibatch: ``distill_coef`` times the
        cross-entropy to the targets of ``distill_minibatch`` labels drawn from the buffer."""
        from cardagents.training.distill import distill_loss
        dev, buffer, active = self.compute.device, self.distiller.kept, self.active
        obs, mask, target = (torch.as_tensor(a).to(dev) for a in (buffer.obs, buffer.mask,
                                                                  buffer.target))
        size = min(active.distill_minibatch, len(buffer))

        def term():
            idx = torch.randint(len(buffer), (size,), generator=self.generator)
            loss, parts = distill_loss(self.net, obs[idx], mask[idx], target[idx])
            return active.distill_coef * loss, parts

        return term

    # --- the run -------------------------------------------------------------------------------

    def save(self, name: str) -> str:
        """A training checkpoint in the run folder (``cardagents.training.checkpoints``)."""
        return save_training(
            os.path.join(self.run_path, name), dataclasses.asdict(self.cfg), self.net,
            self.optimizer, self.pool, self.rng, iteration=self.iteration, samples=self.samples,
            next_seed=self.collector.next_seed, imitated=self.imitated,
            workers=self.collector.state() if self.cfg.workers else None,
            elapsed=self.runlog.seconds(),
            distill=self.distiller.state() if self.distiller else self.distill_saved)

    def run_phases(self) -> list:
        """What is left of the run, phase by phase, for its ``RunClock``: ``(name, kind,
        units)``, the evaluations one phase per option set (each has its progress line)."""
        cfg, sets = self.cfg, range(len(self.variants))
        phases = [("imitation", "imitation", max(cfg.imitation_samples - self.imitated, 0))]
        if cfg.eval_start and cfg.eval_deals and self.iteration == 0:
            phases += [(f"start evaluation {i}", "evaluation", 2 * cfg.eval_deals) for i in sets]
        phases.append(("ppo", "ppo", max(cfg.total_samples - self.samples, 0)))
        for opponent in ("random", "heuristic") if cfg.eval_deals else ():
            phases += [(f"evaluation vs {opponent} {i}", "evaluation", 2 * cfg.eval_deals)
                       for i in sets]
        return phases

    def train(self) -> dict:
        """The run: the warm start, the start evaluation and curve point, the PPO iterations
        (stage by stage), the checkpoints and the final evaluations; what ``result.json``
        holds."""
        cfg = self.cfg
        start = time.perf_counter()
        # the time left for the whole run, on every phase's line
        self.run = RunClock(self.run_phases())
        if self.imitated < cfg.imitation_samples:
            self.imitate()
            self.save("checkpoint.pt")
        if cfg.eval_start and cfg.eval_deals and self.iteration == 0:
            self.evaluate(cfg.eval_deals, "heuristic", start=True)  # where PPO starts
        if cfg.curve_every and self.iteration == 0 and self.samples < cfg.total_samples:
            self.curve_point()  # where PPO starts
        if cfg.stages and self.samples < cfg.total_samples:
            print(f"stage {self.stage + 1}/{len(cfg.stages)}", flush=True)
        # an iteration's clock runs from the end of the previous one's log: the checkpoint
        # written after that log counts in the next iteration (a checkpoint must come after
        # its iteration's record, which a resume keeps by its seconds)
        began = time.perf_counter()
        first = self.samples
        self.run.start("ppo")
        while self.samples < cfg.total_samples:
            self.iterate(began, first)
            began = time.perf_counter()
            if self.iteration % cfg.checkpoint_every == 0:
                self.save("checkpoint.pt")
        self.save("checkpoint.pt")
        final = self.save("final.pt")
        self.collector.close()
        if self.evaluator is not None:  # the last curve points, before the final evaluations
            self.curve_results(wait=True)
        slim(final, os.path.join(self.run_path, "agent.pt"))
        self.runlog.writer.flush()
        result = {"checkpoint": final, "samples": self.samples, "iterations": self.iteration,
                  "seconds": time.perf_counter() - start}
        if cfg.eval_deals:
            result["evaluation_vs_random"] = self.evaluate(cfg.eval_deals, "random")
            result["evaluation"] = self.evaluate(cfg.eval_deals, "heuristic")
            if cfg.eval_start:
                result.update(self.start_to_end(result["evaluation"]))
        return result

    def iterate(self, began: float, first: int) -> None:
        """One PPO iteration: the stage and learning rate, (labels,) collection, the update,
        curve points and snapshots, and its log (timed from ``began``; ``first``: the samples
        this process started from)."""
        cfg = self.cfg
        if cfg.stages and stage_at(cfg, self.samples) != self.stage:
            self._enter_stage(stage_at(cfg, self.samples))
        lr = learning_rate(cfg, self.samples, self.active)  # the stage's schedule
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.timing = {"collect": 0.0, "update": 0.0, "eval": 0.0}
        labels = self.distill_labels() if self.active.kind == "distill" else None
        start_collect = time.perf_counter()
        batch = self.collect()
        self.timing["collect"] = time.perf_counter() - start_collect
        stats = self.update(batch, labels)
        self.timing["update"] = time.perf_counter() - start_collect - self.timing["collect"]
        self.iteration += 1
        self.samples += len(batch)
        self.run.update("ppo", self.samples - first)
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
        win, payoff = self.collector.win_rate(), self.collector.mean_payoff("heuristic")
        # the console reads the recent games against the curve's opponent (the heuristic by
        # default; an exploiter's target)
        against = cfg.curve_opponent
        shown = win if against == "heuristic" else self.collector.win_rate(against)
        line = iteration_line(self.iteration, self.samples, cfg.total_samples, sps,
                              self.timing, shown, lr, stats, self.run.text(), against) \
            if self.iteration % cfg.log_every == 0 else None
        more = {} if against == "heuristic" else {
            "win_rate_vs_opponent": shown,
            "payoff_vs_opponent": self.collector.mean_payoff(against)}
        self.log("ppo", line=line, iteration=self.iteration, stage=self.stage,
                 samples_per_s=round(sps), lr=lr,
                 **{f"{k}_s": round(v, 3) for k, v in self.timing.items()},
                 other_s=round(other, 3),
                 update_samples_per_s=round(len(batch) / max(self.timing["update"], 1e-9)),
                 update_threads=self.update_threads,
                 win_rate_vs_heuristic=win, payoff_vs_heuristic=payoff, **more,
                 **{k: round(v, 6) for k, v in stats.items()})
