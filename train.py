"""Train a PPO agent for a cardenv game against heuristic players and frozen copies of itself.

    python train.py                                   # short default run (Dagong, a few minutes)
    python train.py --config configs/dabang.yaml      # a config from configs/
    python train.py --config configs/dagong.yaml total_samples=2000000 lr=1e-4
    python train.py --resume runs/dagong-1/checkpoint.pt total_samples=6000000  # continue it

Every field of ``Config`` below can be set in the YAML file or on the command line as
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
import difflib
import json
import math
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
from agents.rollout import as_game
from agents import schedules
from agents.shaping import SHAPING, shaping_for
from cardenv import cli
from cardenv.core.checks import check_int, check_number, is_int, is_number
from cardenv.core.errors import ConfigError
from cardenv.games import names as game_names
from cardenv.vector import MAX_NUM_ENVS, VectorGame, game_variants

try:  # the [train] extra; main() says so if it is missing
    import torch
except ImportError:
    torch = None
if torch is not None:  # (any other import error is a real one, and shows as such)
    from torch.utils.tensorboard import SummaryWriter

    from agents import compute
    from agents.collector import Collector
    from agents.selfplay import Batch
    from agents.ppo import (CRITICS, CheckpointError, PPOAgent, fit, make_net, ppo_loss,
                            read_checkpoint, slim)


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
    """Adam learning rate (the peak of each stage's schedule)."""
    lr_schedule: str = "linear"
    """each stage's learning-rate schedule (``agents.schedules``): "constant", "linear" (from
    lr down to lr_floor over the stage) or "cosine" (the same along half a cosine). A stage may
    set its own. (``anneal_lr: false`` of older configs reads as "constant".)"""
    lr_floor: float | None = None
    """where linear and cosine schedules end: null for a tenth of the stage's lr (never 0: a
    rate of 0 ends a run on updates that change nothing)."""
    lr_warmup: int = 0
    """samples at the start of each stage over which the rate rises from the floor to lr (0:
    none)."""
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
    TensorBoard (``python -m agents.curves`` draws them). With ``workers`` they run as Ray
    tasks beside training (a local instance gets a CPU more for them); without, they take
    their time from the run: size them to a few percent of it (``python bench_train.py train``
    prints the share)."""
    curve_deals: int = 200
    """duplicate deal pairs per learning-curve evaluation and option set."""
    checkpoint_every: int = 10
    """iterations between checkpoints."""
    run_dir: str = "runs"
    """where runs are written."""
    run_name: str = ""
    """run folder name (default: "<game>-<seed>")."""
    torch_threads: int | str = "auto"
    """torch CPU threads of the update and the imitation: "auto" takes every core the process
    may use (collection, which alternates with the update in one process, acts on one), less,
    without workers, the cores other processes kept busy while it collected
    (``agents.compute.FreeCores``); an int sets it. Ray actors and evaluation workers use one
    each."""
    device: str = "auto"
    """where the learner (the PPO update and the imitation) runs: "auto" (CUDA when available,
    else the CPU), "cpu", "cuda" or "cuda:N". Collection and evaluation stay on the CPU (this
    process or the Ray actors), with the weights copied to them after each update."""
    precision: str = "auto"
    """arithmetic of the update, the imitation and acting in collection and curve evaluations:
    "fp32", "bf16" (torch.autocast to bfloat16 with float32 weights and optimizer state; about
    2-3x faster on CPUs with AMX or AVX512-BF16) or "auto" (bf16 where the device runs it
    natively, else fp32; the run's first lines say which and why). Checkpoints are float32
    either way. The run's curve and final evaluations play in its precision; ``python -m
    agents.evaluate`` plays a checkpoint in fp32."""
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
# upper bounds of the counts (bounds against typos such as 10**12, not targets)
MAX_SAMPLES = 10 ** 13  # total_samples, rollout_samples, minibatch, imitation_* samples
MAX_DEALS = 10 ** 8  # eval_deals, curve_deals (as agents.evaluate --deals)
MAX_WORKERS = 1024
MAX_HIDDEN, MAX_LAYERS = 16384, 16  # hidden, as agents.ppo reads a checkpoint (1 GB a layer)
LIMITS = {"num_envs": MAX_NUM_ENVS, "epochs": 10_000, "imitation_epochs": 10_000,
          "snapshot_every": 10 ** 6, "pool_size": 10_000, "checkpoint_every": 10 ** 6,
          "log_every": 10 ** 6}
STAGE_FIELDS = ("opponents", "score_shaping", "lr", "ent_coef", "options", "lr_schedule",
                "lr_floor", "lr_warmup")


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
                 "snapshot_every", "pool_size", "checkpoint_every", "log_every"):
        value, high = getattr(cfg, name), LIMITS.get(name, MAX_SAMPLES)
        need(is_int(value) and 1 <= value <= high,
             f"{name} must be an int >= 1 (at most {high:,}), got {value!r}")
    need(is_int(cfg.seed) and 0 <= cfg.seed < 2 ** 32, f"seed must be an int in 0..2**32-1, "
                                                       f"got {cfg.seed!r}")
    need(isinstance(cfg.run_dir, str) and cfg.run_dir, f"run_dir must be a folder name, got "
                                                       f"{cfg.run_dir!r}")
    need(isinstance(cfg.run_name, str), f"run_name must be a string, got {cfg.run_name!r}")
    need(is_int(cfg.eval_deals) and 0 <= cfg.eval_deals <= MAX_DEALS,
         f"eval_deals must be an int >= 0 (at most {MAX_DEALS:,}), got {cfg.eval_deals!r}")
    need(is_int(cfg.workers) and 0 <= cfg.workers <= MAX_WORKERS,
         f"workers must be an int >= 0 (at most {MAX_WORKERS}), got {cfg.workers!r}")
    need(cfg.ray_address is None or (isinstance(cfg.ray_address, str) and cfg.ray_address),
         "ray_address must be null, \"auto\" or \"host:port\"")
    need(is_int(cfg.curve_every) and cfg.curve_every >= 0, "curve_every must be an int >= 0")
    need(is_int(cfg.curve_deals) and 1 <= cfg.curve_deals <= MAX_DEALS,
         f"curve_deals must be an int >= 1 (at most {MAX_DEALS:,}), got {cfg.curve_deals!r}")
    need(is_int(cfg.imitation_samples) and 0 <= cfg.imitation_samples <= MAX_SAMPLES,
         f"imitation_samples must be an int >= 0 (at most {MAX_SAMPLES:,}), got "
         f"{cfg.imitation_samples!r}")
    for name in ("imitation_chunk", "imitation_epochs"):
        value, high = getattr(cfg, name), LIMITS.get(name, MAX_SAMPLES)
        need(is_int(value) and 1 <= value <= high,
             f"{name} must be an int >= 1 (at most {high:,}), got {value!r}")
    need(is_number(cfg.imitation_lr) and cfg.imitation_lr > 0,
         "imitation_lr must be a finite number > 0")
    for name in ("lr", "gamma", "gae_lambda", "clip", "ent_coef", "vf_coef", "max_grad_norm"):
        value = getattr(cfg, name)
        need(is_number(value) and value >= 0, f"{name} must be a finite number >= 0, got "
                                               f"{value!r}")
    need(0 < cfg.gamma <= 1 and 0 <= cfg.gae_lambda <= 1, "gamma in (0, 1], gae_lambda in [0, 1]")
    schedules.check(cfg.lr_schedule, cfg.lr, cfg.lr_floor, cfg.lr_warmup)
    need(cfg.torch_threads == "auto" or (is_int(cfg.torch_threads)
                                         and 1 <= cfg.torch_threads <= cli.MAX_THREADS),
         f"torch_threads must be auto or an int >= 1 (at most {cli.MAX_THREADS}), got "
         f"{cfg.torch_threads!r}")
    if torch is not None:  # device and precision: ConfigError for what this machine cannot do
        compute.resolve(cfg.device, cfg.precision, cfg.torch_threads)
    need(is_number(cfg.score_shaping) and cfg.score_shaping >= 0,
         "score_shaping must be a finite number >= 0")
    need(cfg.score_shaping == 0 or shaping_for(cfg.game) is not None,
         f"score_shaping applies to {', '.join(SHAPING)} only")
    need(cfg.critic in CRITICS if torch is not None else isinstance(cfg.critic, str),
         f"critic must be one of local, global, got {cfg.critic!r}")
    need(isinstance(cfg.hidden, list) and 1 <= len(cfg.hidden) <= MAX_LAYERS and
         all(is_int(h) and 1 <= h <= MAX_HIDDEN for h in cfg.hidden),
         f"hidden must be a list of ints (1..{MAX_LAYERS} of them, each 1..{MAX_HIDDEN}), got "
         f"{cfg.hidden!r}")
    need(isinstance(cfg.opponents, dict) and cfg.opponents, "opponents must be a mapping")
    for name, weight in cfg.opponents.items():
        need(name in _OPPONENTS, f"unknown opponent {name!r}; expected {_OPPONENTS}")
        need(is_number(weight) and weight >= 0,
             f"opponent weight {name} must be a finite number >= 0, got {weight!r}")
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


def collector_settings(cfg: Config, precision: str = "fp32") -> dict:
    """What a ``Collector`` needs of a (stage's) config, as a plain mapping; ``precision``: the
    resolved one the learner acts in."""
    return {**{k: getattr(cfg, k) for k in ("game", "num_envs", "options", "opponents", "gamma",
                                            "gae_lambda", "score_shaping", "critic")},
            "precision": precision}


def stage_bounds(cfg: Config, index: int) -> tuple[int, int]:
    """(first sample, samples) of stage ``index`` (the whole run without stages)."""
    if not cfg.stages:
        return 0, cfg.total_samples
    start = sum(stage["samples"] for stage in cfg.stages[:index])
    return start, cfg.stages[index]["samples"]


def learning_rate(cfg: Config, samples: int) -> float:
    """The learning rate after ``samples`` PPO samples: the schedule of the stage they fall
    in (``agents.schedules``)."""
    index = stage_at(cfg, samples)
    active = stage_config(cfg, index) if cfg.stages else cfg
    start, length = stage_bounds(cfg, index)
    return schedules.rate(active.lr_schedule, active.lr, active.lr_floor, active.lr_warmup,
                          samples - start, length)


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
    _upgrade(data)
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                loaded = yaml.safe_load(f) or {}
        except FileNotFoundError:
            raise ConfigError(f"config file {path!r} not found") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"config file {path!r} is not valid YAML: "
                              f"{_yaml_problem(exc)}") from None
        except (OSError, UnicodeDecodeError) as exc:  # a folder, unreadable, not text
            raise ConfigError(f"config file {path!r} cannot be read "
                              f"({getattr(exc, 'strerror', None) or exc})") from None
        except ValueError as exc:  # a NUL in the name
            raise ConfigError(f"config file {path!r} cannot be read ({exc})") from None
        except RecursionError:  # [[[[... nested deeper than the parser recurses
            raise ConfigError(f"config file {path!r} is not a config: it nests too deep") \
                from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"config file {path!r} must hold a mapping")
        _upgrade(loaded)
        data.update(loaded)
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"override {item!r} must look like key=value")
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError as exc:  # hidden=[64, : one line, not the parser's report
            raise ConfigError(f"override {item!r}: {raw!r} is not a YAML value "
                              f"({_yaml_problem(exc)})") from None
        if key.startswith(("options.", "opponents.")):
            group, name = key.split(".", 1)
            if not name:
                raise ConfigError(f"override {item!r}: {group}.<name>=value needs a name")
            if group == "options" and isinstance(data.get("options"), list):
                raise ConfigError("options.<name>=... cannot change a list of options")
            if not isinstance(data.setdefault(group, {}), dict):
                raise ConfigError(f"override {item!r}: {group} is not a mapping "
                                  f"({data[group]!r})")
            data[group] = {**data[group], name: value}  # the base config's dict stays as it was
        else:
            data[key] = value
            _upgrade(data)
    names = {f.name for f in dataclasses.fields(Config)}
    for key in data:
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"config: unknown field {key!r}{hint}")
    return _check(Config(**data))


def _yaml_problem(exc: Exception) -> str:
    """PyYAML's error as one short line: its problem and where (``line L, column C``)."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return " ".join(f"{problem}{where}".split())


def on_cpu(value):
    """``value`` with every tensor in it on the CPU (a checkpoint loads anywhere; its weights
    and optimizer state are float32 in any precision)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: on_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(on_cpu(v) for v in value)
    return value


def _upgrade(data: dict) -> None:
    """Read the fields of older configs (a resumed run's, a user's file) as today's:
    ``anneal_lr: false`` is ``lr_schedule: constant`` (``true``, linear, is the default)."""
    if "anneal_lr" in data:
        if not isinstance(data["anneal_lr"], bool):
            raise ConfigError(f"config: anneal_lr (now lr_schedule) must be true or false, got "
                              f"{data['anneal_lr']!r}")
        if data.pop("anneal_lr") is False:
            data["lr_schedule"] = "constant"


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

    def collect(self) -> dict:
        """Play until ``rollout_samples`` learner decisions of finished hands are ready (in
        this process, or shared between the Ray workers); meanwhile, see which cores the update
        may take (``compute.FreeCores``)."""
        if self.free is not None:
            self.free.start()
        batch = self.collector.collect(self.cfg.rollout_samples).as_dict()
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
        while self.imitated < cfg.imitation_samples:
            if self.free is not None:
                self.free.start()
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
            dev = self.compute.device
            t_obs = torch.as_tensor(np.array(obs[:n])).to(dev)
            t_mask = torch.as_tensor(np.unpackbits(np.array(masks[:n]), axis=1)
                                     [:, :games.num_actions].astype(bool)).to(dev)
            t_act = torch.as_tensor(np.array(actions[:n])).to(dev)
            t_ret = torch.as_tensor(target[:n]).to(dev)
            t_has = torch.as_tensor(has_value).to(dev)
            t_state = torch.as_tensor(np.array(states[:n])).to(dev) if states else None

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
                losses = fit(self.net, optimizer, n, epochs=cfg.imitation_epochs,
                             minibatch=cfg.minibatch, generator=self.generator,
                             max_grad_norm=cfg.max_grad_norm, loss_fn=imitation_loss,
                             precision=self.compute.precision, device_type=dev.type)
                with torch.no_grad(), self.compute.autocast():
                    logits, _ = self.net(t_obs[:4096], t_mask[:4096])
                    agreement = (logits.argmax(-1) == t_act[:4096]).float().mean().item()
            self.sync_actor()
            self.imitated += n
            policy_loss, value_loss = np.mean(losses["policy_loss"]), np.mean(losses["value_loss"])
            self.writer.add_scalar("imitation/policy_loss", policy_loss, self.imitated)
            self.writer.add_scalar("imitation/agreement", agreement, self.imitated)
            self.log("imitation", agreement=round(agreement, 4),
                     policy_loss=round(float(policy_loss), 4))
            print(f"imitation {self.imitated:,}/{cfg.imitation_samples:,} decisions | policy "
                  f"loss {policy_loss:.3f} | value loss {value_loss:.3f} | agrees with the "
                  f"heuristic on {agreement:.1%}", flush=True)

    # --- learning -----------------------------------------------------------------------------

    def complete(self, batch: dict) -> dict:
        """A batch collected with its values to come (a global critic, see
        ``agents.selfplay.SelfPlay``'s ``values_later``) with the critic's values of all its
        rows, and the advantages and returns they give; any other batch as it is."""
        if "adv" in batch:
            return batch
        dev = self.compute.device
        with compute.threads(self.update_threads), self.compute.autocast():
            values = self.net.values(torch.as_tensor(batch["state"]).to(dev)).cpu().numpy()
        cfg = self.cfg
        return Batch(**batch).with_values(values, cfg.gamma, cfg.gae_lambda).as_dict()

    def update(self, batch: dict) -> dict:
        cfg = self.cfg
        dev = self.compute.device
        batch = self.complete(batch)
        t = {k: torch.as_tensor(v) for k, v in batch.items() if k not in ("reward", "lengths")}
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
        ret, val = batch["ret"], batch["value"]
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
            self.samples += len(batch["action"])
            if cfg.curve_every and self.iteration % cfg.curve_every == 0:
                self.curve_point()  # adds its seconds to timing["eval"]
            self.curve_results()  # curve evaluations that finished on Ray meanwhile
            if self.iteration % cfg.snapshot_every == 0:
                self.pool.append({k: v.detach().cpu().clone()
                                  for k, v in self.net.state_dict().items()})
                self.pool = self.pool[-cfg.pool_size:]
                self.collector.set_pool(self.pool)
            seconds = time.perf_counter() - began  # the whole iteration, end to end
            sps = len(batch["action"]) / max(seconds, 1e-9)
            other = seconds - sum(self.timing.values())  # stage changes, snapshots, checkpoints
            win = self.win_rate()
            payoff = self.collector.mean_payoff("heuristic")
            self.log("ppo", iteration=self.iteration, stage=self.stage, samples_per_s=round(sps),
                     lr=lr, collect_s=round(self.timing["collect"], 3),
                     update_s=round(self.timing["update"], 3),
                     eval_s=round(self.timing["eval"], 3), other_s=round(other, 3),
                     update_samples_per_s=round(len(batch["action"]) /
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
