"""Train a PPO agent for a cardenv game against heuristic players and frozen copies of itself.

    python train.py                                   # short default run (Dagong, a few minutes)
    python train.py --config configs/dabang.yaml      # a config from configs/
    python train.py --config configs/dagong.yaml total_samples=2000000 lr=1e-4
    python train.py --resume runs/dagong-1/checkpoint.pt total_samples=6000000  # continue it

Every field of ``Config`` below can be set in the YAML file or on the command line as
``key=value`` (values are read as YAML: ``hidden=[512,256]``, ``options.follow=live``); a
resumed run starts from the config it saved, overlaid with ``--config`` and the overrides. The run
writes TensorBoard logs, ``checkpoint.pt`` (latest, for ``--resume``), ``final.pt`` and
``agent.pt`` (the final weights alone, for ``python -m agents.evaluate`` and sharing) to
``run_dir/run_name``, and ends by printing its evaluation against the random player and against
the heuristic in duplicate format (``result.json`` holds both).

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

Logs: ``metrics.jsonl`` in the run folder has a record per imitation chunk, per iteration, per
learning-curve evaluation (``curve_every``) and per final evaluation, with the run's wall
seconds; ``python -m agents.curves`` draws them.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import yaml

from agents.evaluate import duplicate
from agents.heuristics import heuristic_for
from agents.progress import Progress
from agents.random_agent import RandomAgent
from agents.rollout import game_variants
from agents.shaping import SHAPING, shaping_for
from cardenv.core.checks import is_int, is_number
from cardenv.core.errors import ConfigError
from cardenv.games import names as game_names
from cardenv.vector import VectorGame

try:  # the [train] extra; main() says so if it is missing
    import torch
except ImportError:
    torch = None
if torch is not None:  # (any other import error is a real one, and shows as such)
    from torch.utils.tensorboard import SummaryWriter

    from agents.collector import Collector
    from agents.ppo import CRITICS, PPOAgent, fit, make_net, ppo_loss, slim


@dataclass
class Config:
    game: str = "dagong"
    """game to train: "dagong" or "dabang"."""
    options: dict | list = field(default_factory=dict)
    """rules options of the game (see its env docs), e.g. {"dealer": "random"} for Dabang; a
    list of option dicts trains on all of them side by side (game slot i uses entry i mod n)."""
    seed: int = 1
    """seeds the games, the opponents' draws, torch and the heuristics."""
    total_samples: int = 100_000
    """learner decisions to train on (PPO; the imitation warm start comes on top)."""
    num_envs: int = 64
    """games stepped in lockstep."""
    rollout_samples: int = 4096
    """learner decisions per PPO iteration (complete hands only)."""
    hidden: list = field(default_factory=lambda: [256, 256])
    """sizes of the MLP trunk (and of the critic's, with critic: global)."""
    critic: str = "local"
    """value function: "local" (a head on the policy's trunk, reading the seat's observation) or
    "global" (a critic MLP of its own reading the global state, every hand included, as in
    PerfectDou; the policy still reads only the observation)."""
    lr: float = 3e-4
    """Adam learning rate (linearly annealed to 0 if anneal_lr)."""
    anneal_lr: bool = True
    """anneal the learning rate linearly over the run."""
    gamma: float = 1.0
    """discount (hands are short episodes with a final reward)."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip: float = 0.2
    """PPO ratio clip."""
    epochs: int = 4
    """passes over each rollout."""
    minibatch: int = 1024
    """minibatch size."""
    ent_coef: float = 0.01
    """entropy bonus."""
    vf_coef: float = 0.5
    """value-loss weight."""
    max_grad_norm: float = 0.5
    """gradient clipping."""
    score_shaping: float = 0.0
    """weight of the game's reward shaping (agents.shaping; Dabang only): at each hand's end
    every learner seat also gets ``score_shaping * (S - 160) / 80`` where S is the attackers'
    score, with the sign of its side (attackers +, defenders -). The levels a hand moves are a
    step function of S, so this adds a dense, aligned signal to the many hands whose level
    change is the same either way. Evaluation never sees it."""
    opponents: dict = field(default_factory=lambda: {"heuristic": 0.8, "frozen": 0.2})
    """opponent mix: weights of "heuristic", "frozen" (past snapshots) and "random"."""
    snapshot_every: int = 5
    """iterations between snapshots of the learner for the frozen pool."""
    pool_size: int = 5
    """frozen snapshots kept."""
    imitation_samples: int = 200_000
    """heuristic decisions to imitate before PPO (0: start from scratch)."""
    imitation_chunk: int = 20_000
    """decisions gathered per imitation chunk."""
    imitation_epochs: int = 3
    """passes over each imitation chunk."""
    imitation_lr: float = 1e-3
    """learning rate of the imitation phase."""
    eval_deals: int = 200
    """duplicate deal pairs of the final evaluations against the random player and against the
    heuristic."""
    curve_every: int = 0
    """iterations between learning-curve evaluations (0: none): ``curve_deals`` duplicate deal
    pairs of the greedy policy against the heuristic under each option set of the run (the
    config's and its stages'), on seeds of their own; written to ``metrics.jsonl`` and
    TensorBoard (``python -m agents.curves`` draws them)."""
    curve_deals: int = 200
    """duplicate deal pairs per learning-curve evaluation and option set."""
    checkpoint_every: int = 10
    """iterations between checkpoints."""
    run_dir: str = "runs"
    """where runs are written."""
    run_name: str = ""
    """run folder name (default: "<game>-<seed>")."""
    torch_threads: int = 2
    """torch CPU threads."""
    log_every: int = 1
    """iterations between progress lines."""
    workers: int = 0
    """Ray actors collecting the rollouts (the ``[dist]`` extra; ``agents.distributed``):
    each plays ``num_envs`` games with the current weights and sends back its share of
    ``rollout_samples``; the update stays in this process. 0: collect here, no Ray."""
    ray_address: str | None = None
    """the Ray cluster to join with ``workers`` (``"auto"``, ``"host:port"``); ``None``
    starts a local instance."""
    stages: list = field(default_factory=list)
    """training phases, in order: a list of mappings, each with ``samples`` (the stage's PPO
    samples) and any of ``opponents``, ``score_shaping``, ``lr``, ``ent_coef``, ``options`` set
    over the config's for that stage (e.g. first against the heuristic only, then a mix with
    frozen snapshots; first hands, then matches). ``total_samples`` is then their sum. Games
    are dealt anew when a stage changes the options. Empty: one stage, the config itself."""


_OPPONENTS = ("heuristic", "frozen", "random")
STAGE_FIELDS = ("opponents", "score_shaping", "lr", "ent_coef", "options")


def _check(cfg: Config) -> Config:
    def need(ok, message):
        if not ok:
            raise ConfigError(f"config: {message}")

    need(cfg.game in game_names(), f"game must be one of {', '.join(game_names())}, got "
                                   f"{cfg.game!r}")
    need(isinstance(cfg.options, dict) or (isinstance(cfg.options, list) and cfg.options and
                                           all(isinstance(o, dict) for o in cfg.options)),
         "options must be a mapping or a non-empty list of mappings")
    for name in ("total_samples", "num_envs", "rollout_samples", "epochs", "minibatch",
                 "snapshot_every", "pool_size", "checkpoint_every", "torch_threads", "log_every"):
        value = getattr(cfg, name)
        need(is_int(value) and value >= 1, f"{name} must be an int >= 1, got {value!r}")
    need(is_int(cfg.eval_deals) and cfg.eval_deals >= 0, "eval_deals must be an int >= 0")
    need(is_int(cfg.workers) and cfg.workers >= 0, "workers must be an int >= 0")
    need(cfg.ray_address is None or (isinstance(cfg.ray_address, str) and cfg.ray_address),
         "ray_address must be null, \"auto\" or \"host:port\"")
    need(is_int(cfg.curve_every) and cfg.curve_every >= 0, "curve_every must be an int >= 0")
    need(is_int(cfg.curve_deals) and cfg.curve_deals >= 1, "curve_deals must be an int >= 1")
    need(is_int(cfg.imitation_samples) and cfg.imitation_samples >= 0,
         "imitation_samples must be an int >= 0")
    for name in ("imitation_chunk", "imitation_epochs"):
        value = getattr(cfg, name)
        need(is_int(value) and value >= 1, f"{name} must be an int >= 1")
    need(is_number(cfg.imitation_lr) and cfg.imitation_lr > 0,
         "imitation_lr must be a finite number > 0")
    for name in ("lr", "gamma", "gae_lambda", "clip", "ent_coef", "vf_coef", "max_grad_norm"):
        value = getattr(cfg, name)
        need(is_number(value) and value >= 0, f"{name} must be a finite number >= 0, got "
                                               f"{value!r}")
    need(0 < cfg.gamma <= 1 and 0 <= cfg.gae_lambda <= 1, "gamma in (0, 1], gae_lambda in [0, 1]")
    need(is_number(cfg.score_shaping) and cfg.score_shaping >= 0,
         "score_shaping must be a finite number >= 0")
    need(cfg.score_shaping == 0 or shaping_for(cfg.game) is not None,
         f"score_shaping applies to {', '.join(SHAPING)} only")
    need(cfg.critic in CRITICS if torch is not None else isinstance(cfg.critic, str),
         f"critic must be one of local, global, got {cfg.critic!r}")
    need(isinstance(cfg.hidden, list) and cfg.hidden and
         all(is_int(h) and h >= 1 for h in cfg.hidden), "hidden must be a list of ints")
    need(isinstance(cfg.opponents, dict) and cfg.opponents, "opponents must be a mapping")
    for name, weight in cfg.opponents.items():
        need(name in _OPPONENTS, f"unknown opponent {name!r}; expected {_OPPONENTS}")
        need(isinstance(weight, (int, float)) and weight >= 0, f"opponent weight {name} < 0")
    need(sum(cfg.opponents.values()) > 0, "opponent weights sum to 0")
    # the game options are checked by the game itself
    game_variants(cfg.game, cfg.options)
    need(isinstance(cfg.stages, list), "stages must be a list of mappings")
    for i, stage in enumerate(cfg.stages):
        need(isinstance(stage, dict), f"stages[{i}] must be a mapping, got {stage!r}")
        need(is_int(stage.get("samples")) and stage["samples"] >= 1,
             f"stages[{i}] needs samples: an int >= 1")
        unknown = sorted(set(stage) - {"samples", *STAGE_FIELDS})
        need(not unknown, f"stages[{i}]: unknown field(s) {unknown}; a stage sets samples and "
                          f"any of {', '.join(STAGE_FIELDS)}")
        try:
            stage_config(cfg, i)
        except ConfigError as exc:
            raise ConfigError(f"config: stages[{i}]: {str(exc).removeprefix('config: ')}") \
                from None
    if cfg.stages:
        cfg.total_samples = sum(stage["samples"] for stage in cfg.stages)
    return cfg


def stage_config(cfg: Config, index: int) -> Config:
    """The config that stage ``index`` trains with: the stage's fields over ``cfg``'s."""
    stage = cfg.stages[index]
    fields = {k: v for k, v in stage.items() if k != "samples"}
    return _check(dataclasses.replace(cfg, stages=[], **fields))


def stage_at(cfg: Config, samples: int) -> int:
    """The stage a run is in after ``samples`` PPO samples (the last one past the end)."""
    end = 0
    for i, stage in enumerate(cfg.stages):
        end += stage["samples"]
        if samples < end:
            return i
    return max(len(cfg.stages) - 1, 0)


def collector_settings(cfg: Config) -> dict:
    """What a ``Collector`` needs of a (stage's) config, as a plain mapping."""
    return {k: getattr(cfg, k) for k in ("game", "num_envs", "options", "opponents", "gamma",
                                         "gae_lambda", "score_shaping", "critic")}


def option_sets(cfg: Config) -> list[dict]:
    """Every distinct option set the run trains under (the config's, then its stages'), in
    order of appearance: what its evaluations cover."""
    found: list[dict] = []
    for options in [cfg.options] + [stage["options"] for stage in cfg.stages
                                     if "options" in stage]:
        for variant in options if isinstance(options, list) else [options]:
            if dict(variant) not in found:
                found.append(dict(variant))
    return found


def load_config(path: str | None, overrides: list[str], base: dict | None = None) -> Config:
    """Defaults (or ``base``, e.g. a resumed run's config), overlaid with the YAML file, overlaid
    with ``key=value`` overrides."""
    data: dict = dict(base or {})
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                loaded = yaml.safe_load(f) or {}
        except FileNotFoundError:
            raise ConfigError(f"config file {path!r} not found") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"config file {path!r} is not valid YAML: {exc}") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"config file {path!r} must hold a mapping")
        data.update(loaded)
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"override {item!r} must look like key=value")
        key, raw = item.split("=", 1)
        value = yaml.safe_load(raw)
        if key.startswith("options."):
            if isinstance(data.get("options"), list):
                raise ConfigError("options.<name>=... cannot change a list of options")
            data.setdefault("options", {})[key[len("options."):]] = value
        elif key.startswith("opponents."):
            data.setdefault("opponents", {})[key[len("opponents."):]] = value
        else:
            data[key] = value
    names = {f.name for f in dataclasses.fields(Config)}
    for key in data:
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"config: unknown field {key!r}{hint}")
    return _check(Config(**data))


class Trainer:
    """One training run: games, learner, opponents, buffers, logs and checkpoints."""

    def __init__(self, cfg: Config, resume: dict | None = None):
        self.cfg = cfg
        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.run_path = os.path.join(cfg.run_dir, cfg.run_name or f"{cfg.game}-{cfg.seed}")
        os.makedirs(self.run_path, exist_ok=True)
        self.make_net = lambda: make_net(cfg.game, cfg.hidden, cfg.critic)
        self.net = self.make_net()
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
        if resume:
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
            self.iteration, self.samples = resume["iteration"], resume["samples"]
            self.pool = resume["pool"]
            self.imitated = resume.get("imitated", 0)
            self.elapsed = resume.get("elapsed", 0.0)
            self.rng.bit_generator.state = resume["rng"]
            torch.set_rng_state(resume["torch_rng"])
            first_seed = resume["next_seed"]
        self.generator = torch.Generator().manual_seed(cfg.seed + self.iteration)
        # the stage this run is in (see Config.stages) and the config it trains with
        self.stage = stage_at(cfg, self.samples)
        self.active = stage_config(cfg, self.stage) if cfg.stages else cfg
        players = {"heuristic": self.heuristic, "random": self.random}
        if cfg.workers:  # Ray actors collect; nothing imports Ray otherwise
            from agents.distributed import RayCollector
            self.collector = RayCollector(
                collector_settings(self.active), self.net, cfg.hidden, cfg.workers,
                seed=cfg.seed, address=cfg.ray_address, pool=self.pool,
                saved=resume.get("workers") if resume else None)
        else:
            self.collector = Collector(cfg.game, cfg.seed, self.net, self.make_net, self.rng,
                                       self.generator, players)
            self.collector.set_pool(self.pool)
            self.collector.deal(collector_settings(self.active), first_seed)
        self.writer = SummaryWriter(os.path.join(self.run_path, "tb"))
        self.clock = time.perf_counter()
        self.metrics_path = os.path.join(self.run_path, "metrics.jsonl")
        self._trim_metrics()

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
        record = {"phase": phase, "samples": self.samples, "imitated": self.imitated,
                  "seconds": round(self.seconds(), 2), **values}
        with open(self.metrics_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")

    def _enter_stage(self, index: int) -> None:
        """Switch to stage ``index``: its opponent mix and shaping from the next game seated
        on; new games if it changes the options (the hands in progress are dropped)."""
        self.stage = index
        self.active = stage_config(self.cfg, index)
        self.collector.enter(collector_settings(self.active))
        changed = {k: v for k, v in self.cfg.stages[index].items() if k != "samples"}
        print(f"stage {index + 1}/{len(self.cfg.stages)} from sample {self.samples:,}: "
              f"{changed or 'the config as it is'}", flush=True)

    # --- collecting ---------------------------------------------------------------------------

    def collect(self) -> dict:
        """Play until ``rollout_samples`` learner decisions of finished hands are ready (in
        this process, or shared between the Ray workers)."""
        return self.collector.collect(self.cfg.rollout_samples).as_dict()

    def imitate(self) -> None:
        """Clone the heuristic: chunks of heuristic self-play decisions, cross-entropy on the
        chosen actions and value regression on each seat's final reward."""
        cfg = self.cfg
        optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.imitation_lr)
        games = VectorGame(cfg.game, cfg.num_envs, options=self.active.options,
                           seed=cfg.seed * 7_000_003 + self.imitated)
        while self.imitated < cfg.imitation_samples:
            obs, masks, actions, states = [], [], [], []
            pending: dict = {}  # (slot, seat) -> indexes of its decisions this hand
            target = np.zeros(cfg.imitation_chunk * 2, dtype=np.float32)
            while len(actions) < cfg.imitation_chunk:
                o, m, seats = games.observations(), games.masks(), games.current()
                a = self.heuristic.act_batch(o, m)
                if self.net.critic == "global":
                    states.extend(games.states())
                for i in range(len(games)):
                    pending.setdefault((i, seats[i]), []).append(len(actions))
                    obs.append(o[i])
                    masks.append(np.packbits(m[i]))
                    actions.append(a[i])
                before = len(games.finished)
                games.step(a)
                for done in games.finished[before:]:
                    for seat in range(4):
                        for j in pending.pop((done.index, seat), []):
                            if j < len(target):
                                target[j] = done.returns[seat]
            n = min(len(actions), cfg.imitation_chunk)
            # decisions of hands still running have no final reward yet: learn their policy only
            open_rows = {j for rows in pending.values() for j in rows if j < n}
            has_value = np.array([j not in open_rows for j in range(n)])
            t_obs = torch.as_tensor(np.array(obs[:n]))
            t_mask = torch.as_tensor(np.unpackbits(np.array(masks[:n]), axis=1)
                                     [:, :games.num_actions].astype(bool))
            t_act = torch.as_tensor(np.array(actions[:n]))
            t_ret = torch.as_tensor(target[:n])
            t_has = torch.as_tensor(has_value)
            t_state = torch.as_tensor(np.array(states[:n])) if states else None

            def imitation_loss(idx):
                rows, cols, logp, values = self.net.legal_log_probs(
                    t_obs[idx], t_mask[idx], None if t_state is None else t_state[idx])
                # cross-entropy on the heuristic's action (the policy at legal actions only)
                policy_loss = -logp[cols == t_act[idx][rows]].mean()
                weight = t_has[idx].float()
                value_loss = (weight * (values - t_ret[idx]) ** 2).sum() / weight.sum().clamp(min=1)
                return policy_loss + cfg.vf_coef * value_loss, {
                    "policy_loss": policy_loss.item(), "value_loss": value_loss.item()}

            losses = fit(self.net, optimizer, n, epochs=cfg.imitation_epochs,
                         minibatch=cfg.minibatch, generator=self.generator,
                         max_grad_norm=cfg.max_grad_norm, loss_fn=imitation_loss)
            self.imitated += n
            with torch.no_grad():
                logits, _ = self.net(t_obs[:4096], t_mask[:4096])
                agreement = (logits.argmax(-1) == t_act[:4096]).float().mean().item()
            policy_loss, value_loss = np.mean(losses["policy_loss"]), np.mean(losses["value_loss"])
            self.writer.add_scalar("imitation/policy_loss", policy_loss, self.imitated)
            self.writer.add_scalar("imitation/agreement", agreement, self.imitated)
            self.log("imitation", agreement=round(agreement, 4),
                     policy_loss=round(float(policy_loss), 4))
            print(f"imitation {self.imitated:,}/{cfg.imitation_samples:,} decisions | policy "
                  f"loss {policy_loss:.3f} | value loss {value_loss:.3f} | agrees with the "
                  f"heuristic on {agreement:.1%}", flush=True)

    # --- learning -----------------------------------------------------------------------------

    def update(self, batch: dict) -> dict:
        cfg = self.cfg
        t = {k: torch.as_tensor(v) for k, v in batch.items()}
        t["obs"], t["mask"] = t["obs"].float(), t["mask"].bool()
        for k in ("logp", "value", "adv", "ret"):
            t[k] = t[k].float()

        def loss(idx):
            adv = t["adv"][idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(idx) > 1 else adv
            return ppo_loss(self.net, t["obs"][idx], t["mask"][idx], t["action"][idx],
                            t["logp"][idx], adv, t["ret"][idx], clip=cfg.clip,
                            vf_coef=cfg.vf_coef, ent_coef=self.active.ent_coef,
                            states=t["state"][idx] if "state" in t else None)

        stats = fit(self.net, self.optimizer, len(t["action"]), epochs=cfg.epochs,
                    minibatch=cfg.minibatch, generator=self.generator,
                    max_grad_norm=cfg.max_grad_norm, loss_fn=loss)
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        ret, val = batch["ret"], batch["value"]
        out["explained_variance"] = float(1 - np.var(ret - val) / np.var(ret)) \
            if np.var(ret) > 0 else 0.0
        return out

    def win_rate(self, kind: str = "heuristic") -> float | None:
        return self.collector.win_rate(kind)

    # --- the run -------------------------------------------------------------------------------

    def save(self, name: str) -> str:
        path = os.path.join(self.run_path, name)
        torch.save({
            "game": self.cfg.game, "options": self.cfg.options,
            "net": {"hidden": list(self.cfg.hidden), "critic": self.cfg.critic},
            "model": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(), "config": dataclasses.asdict(self.cfg),
            "iteration": self.iteration, "samples": self.samples, "pool": self.pool,
            "rng": self.rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
            "next_seed": self.collector.next_seed, "imitated": self.imitated,
            "workers": self.collector.state() if self.cfg.workers else None,
            "elapsed": self.seconds(),
        }, path)
        return path

    def train(self) -> dict:
        cfg = self.cfg
        start = time.perf_counter()
        if self.imitated < cfg.imitation_samples:
            self.imitate()
            self.save("checkpoint.pt")
        # PPO's samples/s: the clock starts after the imitation phase
        last_samples, last_time = self.samples, time.perf_counter()
        if cfg.curve_every and self.iteration == 0 and self.samples < cfg.total_samples:
            self.curve_point()  # where PPO starts
        if cfg.stages and self.samples < cfg.total_samples:
            print(f"stage {self.stage + 1}/{len(cfg.stages)}", flush=True)
        while self.samples < cfg.total_samples:
            if cfg.stages and stage_at(cfg, self.samples) != self.stage:
                self._enter_stage(stage_at(cfg, self.samples))
            for group in self.optimizer.param_groups:  # the stage's lr, maybe annealed
                group["lr"] = self.active.lr * (max(0.0, 1 - self.samples / cfg.total_samples)
                                                if cfg.anneal_lr else 1.0)
            batch = self.collect()
            stats = self.update(batch)
            self.iteration += 1
            self.samples += len(batch["action"])
            now = time.perf_counter()
            sps = (self.samples - last_samples) / max(now - last_time, 1e-9)
            last_samples, last_time = self.samples, now
            win = self.win_rate()
            payoff = self.collector.mean_payoff("heuristic")
            self.log("ppo", iteration=self.iteration, stage=self.stage, samples_per_s=round(sps),
                     win_rate_vs_heuristic=win, payoff_vs_heuristic=payoff,
                     **{k: round(v, 5) for k, v in stats.items()})
            for key, value in stats.items():
                self.writer.add_scalar(f"losses/{key}", value, self.samples)
            self.writer.add_scalar("charts/SPS", sps, self.samples)
            if win is not None:
                self.writer.add_scalar("charts/win_rate_vs_heuristic", win, self.samples)
                self.writer.add_scalar("charts/payoff_vs_heuristic", payoff, self.samples)
            if cfg.curve_every and self.iteration % cfg.curve_every == 0:
                self.curve_point()
            if self.iteration % cfg.snapshot_every == 0:
                self.pool.append({k: v.clone() for k, v in self.net.state_dict().items()})
                self.pool = self.pool[-cfg.pool_size:]
                self.collector.set_pool(self.pool)
            if self.iteration % cfg.checkpoint_every == 0:
                self.save("checkpoint.pt")
            if self.iteration % cfg.log_every == 0:
                done = min(1.0, self.samples / cfg.total_samples)
                bar = "#" * int(done * 20)
                print(f"[{bar:<20}] iter {self.iteration} | {self.samples:,}/{cfg.total_samples:,}"
                      f" samples | {sps:,.0f} samples/s | win vs heuristic "
                      f"{'n/a' if win is None else f'{win:.2f}'} (recent hands) | kl "
                      f"{stats['approx_kl']:.4f} | entropy {stats['entropy']:.2f}", flush=True)
        self.save("checkpoint.pt")
        final = self.save("final.pt")
        self.collector.close()
        slim(final, os.path.join(self.run_path, "agent.pt"))
        self.writer.flush()
        result = {"checkpoint": final, "samples": self.samples, "iterations": self.iteration,
                  "seconds": time.perf_counter() - start}
        if cfg.eval_deals:
            result["evaluation_vs_random"] = self.evaluate(cfg.eval_deals, "random")
            result["evaluation"] = self.evaluate(cfg.eval_deals, "heuristic")
        return result

    def curve_point(self) -> None:
        """A learning-curve evaluation: ``curve_deals`` duplicate pairs against the heuristic
        under each option set, on seeds apart from the final evaluation's."""
        agent = PPOAgent(self.cfg.game, self.net, greedy=True)
        for options in option_sets(self.cfg):
            stats = duplicate(self.cfg.game, agent, self.heuristic, self.cfg.curve_deals,
                              dict(options), seed=20_000_000 + self.cfg.seed)
            low, high = stats["win_rate_ci95"]
            print(f"curve: PPO vs heuristic{' ' + str(options) if options else ''} at "
                  f"{self.samples:,} samples: win rate {stats['win_rate']:.3f} ({low:.3f}.."
                  f"{high:.3f}) on {self.cfg.curve_deals} pairs, mean payoff per game "
                  f"{stats['mean_payoff_per_game']:+.3f}", flush=True)
            self.log("curve", options=options, deals=self.cfg.curve_deals,
                     win_rate=stats["win_rate"], win_rate_ci95=stats["win_rate_ci95"],
                     mean_payoff_per_game=stats["mean_payoff_per_game"])
        self.writer.add_scalar("eval/curve_win_rate_vs_heuristic", stats["win_rate"],
                               self.samples)

    def evaluate(self, deals: int, opponent: str = "heuristic") -> dict:
        """Duplicate evaluation against ``opponent`` ("heuristic" or "random") under each set
        of training options, with a progress line."""
        agent = PPOAgent(self.cfg.game, self.net, greedy=True)
        other = self.heuristic if opponent == "heuristic" else RandomAgent(self.cfg.game,
                                                                           self.cfg.seed)
        variants = option_sets(self.cfg)
        results = []
        for options in variants:
            label = f"evaluation: PPO vs {opponent}{' ' + str(options) if options else ''}"
            stats = duplicate(self.cfg.game, agent, other, deals, dict(options),
                              seed=10_000_000 + self.cfg.seed,
                              progress=Progress(2 * deals, label, "games"))
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
    parser = argparse.ArgumentParser(description=__doc__,
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
                resume = torch.load(args.resume, map_location="cpu", weights_only=False)
                saved = resume["config"]
            except (OSError, KeyError, TypeError, RuntimeError) as exc:
                raise ConfigError(f"cannot resume from {args.resume!r}: {exc}") from None
            # the saved config, overlaid with --config and the overrides (e.g. total_samples=...
            # extends the run)
            cfg = load_config(args.config, args.overrides, base=saved)
        else:
            cfg = load_config(args.config, args.overrides)
    except ConfigError as exc:
        parser.error(str(exc))
    if cfg.workers:
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error(f'workers={cfg.workers} needs Ray: pip install -e ".[dist]"')
    print(f"training {cfg.game} for {cfg.total_samples:,} samples "
          f"({'resumed' if resume else 'new run'}) -> {cfg.run_dir}/{cfg.run_name or f'{cfg.game}-{cfg.seed}'}")
    try:
        trainer = Trainer(cfg, resume)
    except ConfigError as exc:
        parser.error(str(exc))
    result = trainer.train()
    with open(os.path.join(cfg.run_dir, cfg.run_name or f"{cfg.game}-{cfg.seed}",
                           "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main()
