"""The training config of ``train.py``: its fields (``Config``, each with its meaning), the checks
that refuse a bad one before anything is trained (``ConfigError``, one line), reading it from
YAML and ``key=value`` overrides (``load_config``), and what a run derives from it: each stage's
config (``stage_config``, ``stage_at``, ``stage_bounds``), its folder (``run_path``), the
learning rate after some samples (``learning_rate``), the option sets its evaluations cover
(``option_sets``), whether it plays the heuristic (``needs_heuristic``) and what a
``Collector`` needs of it (``collector_settings``).

Without torch (the ``[train]`` extra) a config still loads; the device, precision and critic
are then checked by name only.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from dataclasses import dataclass, field

import yaml

from cardagents.evaluation.evaluate import MAX_DEALS, MAX_WORKERS  # as evaluate's --deals
from cardagents.training import schedules
from cardagents.training.opponents import opponent_problem
from cardagents.training.rewards import SHAPING, shaping_for
from cardagents.training.rewards.match_value import REWARDS, match_value_for
from cardenv import cli
from cardenv.core.checks import is_int, is_number
from cardenv.core.errors import ConfigError
from cardenv.games import make_game
from cardenv.games import names as game_names
from cardenv.vector import MAX_NUM_ENVS, game_variants

try:  # the [train] extra
    import torch
except ImportError:
    torch = None
if torch is not None:
    from cardagents.ppo import compute
    from cardagents.ppo.net import CRITICS


@dataclass
class Config:
    """A training run's settings. The defaults are the base that every config file (and a run
    with no file) sets its fields over; ``python train.py`` without ``--config`` is not these
    defaults but ``configs/quick.yaml`` over them (the README's Quick start)."""

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
    """value function: "local" (a head on the policy's trunk, reading the seat's observation),
    "global" (a critic MLP of its own reading the global state, every hand included, as in
    PerfectDou; the policy still reads only the observation) or "relative" (the same MLP over
    the global state seen from the seat to act: every seat axis rotated so that row 0 is that
    seat, as observations are; ``cardagents.ppo.net``)."""
    observation_size: int | None = None
    """read only the first N entries of the observation (null: all of it): an ablation of the
    pieces appended later, e.g. 1073, Dabang's observation before the counting pieces (issue
    35). A features head still computes its action features from the whole observation."""
    head: str = "fixed"
    """policy head: "fixed" (one logit per action id) or "features" (that, plus a score of
    what each legal action does in the position, from the game's per-action features; see
    ``cardagents.ppo.net.PolicyNet``)."""
    lr: float = 3e-4
    """Adam learning rate (the peak of each stage's schedule)."""
    lr_schedule: str = "linear"
    """each stage's learning-rate schedule (``cardagents.training.schedules``): "constant", "linear"
    (from lr down to lr_floor over the stage) or "cosine" (the same along half a cosine). A stage
    may set its own. (``anneal_lr: false`` of older configs reads as "constant".)"""
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
    """weight of the game's reward shaping (cardagents.training.rewards), added at each hand's end
    to every learner seat's reward. Dabang: ``score_shaping * (S - 160) / 80`` where S is the
    attackers' score, with the sign of its side (attackers +, defenders -): the levels a hand
    moves are a step function of S, so this adds a dense, aligned signal to the many hands whose
    level change is the same either way. Dagong: ``score_shaping * sign(payoff)``, a bonus for
    winning the hand whatever its multiplier. Evaluation never sees it."""
    pair_bonus: float = 0.0
    """games in deal pairs, as the duplicate evaluation plays them
    (``cardagents.training.selfplay``): two slots hold the same deal, the learner on one side in
    the first and on the other in the second, the same opponent in the seats left; when both
    games are over, ``pair_bonus * sign(score)`` goes to every learner seat of both, ``score``
    the learner's summed rewards over the two (above 0: the pair won). The luck of the cards
    cancels in it. 0: no pairs. Needs an even ``num_envs`` and ``reward: hand``; evaluation never
    sees it."""
    reward: str = "hand"
    """what the learner learns from (Dabang; ``cardagents.training.rewards.match_value``,
    docs/match_reward.md): "hand", the game's own rewards (a hand episode's level change and deal
    value, a match episode's +1/-1 at its end); "match", each hand's change in its team's chance to
    win the match, ``4 * (V(after) - V(before))``, V read from a table fitted on heuristic matches
    by levels, the dealing team and the blood owed (values keeping the deal and tribute as well as
    levels; zero-sum; over a whole match it is potential-based shaping of the +1/-1). Reported
    returns and evaluations stay the game's."""
    opponents: dict = field(default_factory=lambda: {"heuristic": 0.8, "frozen": 0.2})
    """opponent mix: weights of "heuristic", "frozen" (past snapshots of the learner),
    "random", and any player spec: a PPO checkpoint's path (it plays greedily, as in
    ``python -m cardagents evaluate``; checkpoints of one network shape act together in one
    batched pass) or a search spec, "pimc" / "pimc:key=value,..." (slow: a search decides in
    milliseconds to seconds). On the command line: ``opponents.<name>=weight``, e.g.
    ``opponents.checkpoints/dabang_ppo.pt=0.5`` (``cardagents.training.opponents``)."""
    snapshot_every: int = 5
    """iterations between snapshots of the learner for the frozen pool."""
    pool_size: int = 5
    """frozen snapshots kept."""
    init: str | None = None
    """a PPO checkpoint (e.g. checkpoints/dabang_ppo.pt) whose weights the learner starts from
    instead of random ones; it must play the game with the same hidden sizes and critic. The
    imitation warm start still runs on top unless imitation_samples is 0. A resumed run
    ignores it (it continues from its checkpoint)."""
    init_widen: bool = False
    """with ``init``: read today's whole observation and global state even where the checkpoint
    read an earlier, shorter layout (its prefix). The entries it never read get zero weights in
    the first layers, so the network plays and values exactly as the checkpoint did until PPO
    moves those weights (``cardagents.training.initial_weights``). Without it the run reads the
    checkpoint's prefix, as that checkpoint did."""
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
    eval_start: bool = False
    """evaluate the policy PPO starts from (after the imitation warm start, if any) against the
    heuristic exactly as the final evaluation does (``eval_deals`` pairs on the same seeds,
    under each option set) before the first PPO iteration, and end the run with a line that
    compares the two (start -> end, their 95% intervals, whether they are apart). Recorded in
    ``metrics.jsonl`` (phase ``start_evaluation``) and ``result.json`` (``evaluation_start``,
    ``start_to_end``). It plays the heuristic, whose random draws it restarts, so a run with it
    trains on other games than the same run without it."""
    curve_every: int = 0
    """iterations between learning-curve evaluations (0: none): ``curve_deals`` duplicate deal
    pairs of the greedy policy against the heuristic under each option set of the run (the
    config's and its stages'), on seeds of their own; written to ``metrics.jsonl`` and
    TensorBoard (``python -m cardagents curves`` draws them). With ``workers`` they run as Ray
    tasks beside training (a local instance gets a CPU more for them); without, they take
    their time from the run: size them to a few percent of it (``python -m cardagents bench train``
    prints the share)."""
    curve_deals: int = 200
    """duplicate deal pairs per learning-curve evaluation and option set."""
    curve_opponent: str = "heuristic"
    """whom the learning curve plays (and the console's recent win rate reads): "heuristic",
    "random" or a player spec, as ``opponents`` names them (``python -m cardagents exploit``
    sets it to its target)."""
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
    (``cardagents.ppo.compute.FreeCores``); an int sets it. Ray actors and evaluation workers use
    one each."""
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
    cardagents evaluate`` plays a checkpoint in fp32."""
    log_every: int = 1
    """iterations between progress lines."""
    workers: int = 0
    """Ray actors collecting the rollouts (the ``[dist]`` extra; ``cardagents.training.remote``):
    each plays ``num_envs`` games with the current weights and sends back its share of
    ``rollout_samples``; the update stays in this process. 0: collect here, no Ray."""
    ray_address: str | None = None
    """the Ray cluster to join with ``workers`` (``"auto"``, ``"host:port"``); ``None``
    starts a local instance."""
    stages: list = field(default_factory=list)
    """training phases, in order: a list of mappings, each with ``samples`` (the stage's PPO
    samples) and any of ``opponents``, ``score_shaping``, ``pair_bonus``, ``reward``, ``lr``,
    ``ent_coef``, ``options`` set over the config's for that stage (e.g. first against the
    heuristic only, then a mix with frozen snapshots; first hands, then matches).
    ``total_samples`` is then their sum. Games are dealt anew when a stage changes the options
    or turns deal pairs on or off. Empty: one stage, the
    config itself.
    A stage may also set ``kind`` and the distillation fields below (``kind: distill``; in a
    stage ``search``, ``labels``, ``select``, ``focus``, ``max_legal``, ``pool``,
    ``temperature`` and ``buffer`` name ``distill_search`` etc.), e.g. ``{kind: distill,
    samples: 2000000, search: "pimc:depth=8,critic=checkpoints/dabang_leaf.npz", labels: 128,
    select: uncertain, max_legal: 8, distill_coef: 1.0, temperature: 0}``."""
    # --- distillation from search (cardagents.training.distill)
    # -------------------------------------------
    kind: str = "ppo"
    """what a stage trains with: "ppo", or "distill": PPO plus distillation from a search agent
    (``cardagents.training.distill``): each iteration, ``distill_labels`` states from the learner's
    own games against the heuristic are labelled by the PIMC search ``distill_search``, and each PPO
    minibatch's loss adds ``distill_coef`` times the policy's cross-entropy to the labels of a
    minibatch of the last ``distill_buffer``. In this process only (``workers: 0``)."""
    distill_search: str = "pimc"
    """the teacher: a PIMC spec (``cardagents.search.pimc``), e.g.
    "pimc:depth=8,critic=checkpoints/dabang_leaf.npz" (~0.25 s per Dabang decision)."""
    distill_labels: int = 128
    """states labelled per PPO iteration."""
    distill_select: str = "uncertain"
    """which of the ``distill_pool`` x ``distill_labels`` candidate states to label: "all" (at
    random), "uncertain" (the smallest gap between the policy's two most likely actions) or
    "entropy" (the policy's highest entropy)."""
    distill_focus: list = field(default_factory=list)
    """label only states of these phases (where there are any): some of "tribute" (a hand with
    tribute paid), "bury" (the dealer's burial), "endgame" (the seat holds at most 6 cards).
    Empty: every phase."""
    distill_max_legal: int = 0
    """label only states with at most this many legal actions (0: any): at states with many
    (a Dabang burial: ~38) the search's choice is mostly noise (``cardagents.training.distill``)."""
    distill_pool: int = 4
    """candidate states gathered per label (with ``select: all`` and no focus: one)."""
    distill_temperature: float = 0.0
    """the target: softmax(search values / temperature) over the searched candidates; 0: the
    search's action alone (which keeps the rollout policy's choice unless another is better by
    the search's margin)."""
    distill_coef: float = 1.0
    """weight of the distillation cross-entropy in each PPO minibatch's loss."""
    distill_buffer: int = 2048
    """labels kept (the most recent) to draw the distillation minibatches from."""
    distill_minibatch: int = 256
    """labels per PPO minibatch."""
    distill_envs: int = 64
    """games in lockstep the learner plays to meet the states to label."""


# The seeds a run deals from, one copy for the trainer, its Ray workers, its evaluations and
# the exploit command's check that its own evaluation deals none of them (``training_seeds``).
PPO_SEED_STRIDE = 1_000_003  # a run's PPO games: from seed * stride on, one seed a game
IMITATION_SEED_STRIDE = 7_000_003  # the imitation's games: from seed * stride on
EVAL_SEED_BASE = 10_000_000  # the final evaluations' deal pairs: from base + seed on
CURVE_SEED_BASE = 20_000_000  # the learning curve's deal pairs: from base + seed on
# Ray worker i deals from (i + 1) blocks above the run's first PPO seed, each replacement of it
# a restart step further (cardagents.training.remote.first_deal)
WORKER_SEED_BLOCK, WORKER_RESTART_STEP = 1_000_000_000, 10_000_000
# upper bounds of the counts (bounds against typos such as 10**12, not targets)
MAX_SAMPLES = 10 ** 13  # total_samples, rollout_samples, minibatch, imitation_* samples
# hidden, as cardagents.ppo.agent reads a checkpoint (1 GB a layer)
MAX_HIDDEN, MAX_LAYERS = 16384, 16
LIMITS = {"num_envs": MAX_NUM_ENVS, "epochs": 10_000, "imitation_epochs": 10_000,
          "snapshot_every": 10 ** 6, "pool_size": 10_000, "checkpoint_every": 10 ** 6,
          "log_every": 10 ** 6}
STAGE_FIELDS = ("opponents", "score_shaping", "pair_bonus", "lr", "ent_coef", "options",
                "lr_schedule", "lr_floor", "lr_warmup", "reward")
# distillation (cardagents.training.distill): a stage's short names of its fields, and the checks
DISTILL_ALIASES = {"search": "distill_search", "labels": "distill_labels",
                   "select": "distill_select", "focus": "distill_focus", "pool": "distill_pool",
                   "max_legal": "distill_max_legal",
                   "temperature": "distill_temperature", "buffer": "distill_buffer"}
DISTILL_FIELDS = ("kind", "distill_search", "distill_labels", "distill_select", "distill_focus",
                  "distill_max_legal", "distill_pool", "distill_temperature", "distill_coef",
                  "distill_buffer", "distill_minibatch", "distill_envs")
KINDS = ("ppo", "distill")
DISTILL_SELECT = ("all", "uncertain", "entropy")  # cardagents.training.distill.SELECT, FOCUS
DISTILL_FOCUS = ("tribute", "bury", "endgame")


def _need(ok, message) -> None:
    """A failed check: ``ConfigError`` with ``message`` (one line, after ``config: ``)."""
    if not ok:
        raise ConfigError(f"config: {message}")


def _check_distill(cfg: Config) -> None:
    """The distillation fields (``kind: distill``) and ``init``."""
    from cardagents.search.parse import parse_spec  # numpy only
    _need(cfg.kind in KINDS, f"kind must be one of {', '.join(KINDS)}, got {cfg.kind!r}")
    for name, high in (("distill_labels", 10 ** 6), ("distill_pool", 1000),
                       ("distill_buffer", 10 ** 7), ("distill_minibatch", 10 ** 6),
                       ("distill_envs", MAX_NUM_ENVS)):
        value = getattr(cfg, name)
        _need(is_int(value) and 1 <= value <= high,
              f"{name} must be an int >= 1 (at most {high:,}), got {value!r}")
    _need(is_int(cfg.distill_max_legal) and cfg.distill_max_legal >= 0,
          f"distill_max_legal must be an int >= 0, got {cfg.distill_max_legal!r}")
    _need(cfg.distill_select in DISTILL_SELECT, f"distill_select must be one of "
          f"{', '.join(DISTILL_SELECT)}, got {cfg.distill_select!r}")
    _need(isinstance(cfg.distill_focus, list) and all(f in DISTILL_FOCUS
                                                      for f in cfg.distill_focus),
          f"distill_focus must be a list of {', '.join(DISTILL_FOCUS)}, got "
          f"{cfg.distill_focus!r}")
    for name in ("distill_temperature", "distill_coef"):
        value = getattr(cfg, name)
        _need(is_number(value) and value >= 0, f"{name} must be a finite number >= 0, got "
                                                f"{value!r}")
    try:
        spec = parse_spec(cfg.distill_search)
    except ValueError as exc:
        raise ConfigError(f"config: distill_search: {exc}") from None
    for key in ("critic", "prior"):
        _need(spec[key] is None or os.path.isfile(spec[key]),
              f"distill_search: {key} {spec[key]!r} is not a file")
    _need(cfg.init is None or (isinstance(cfg.init, str) and os.path.isfile(cfg.init)),
          f"init must be the path of a PPO checkpoint, got {cfg.init!r}")
    _need(isinstance(cfg.init_widen, bool), f"init_widen must be true or false, got "
          f"{cfg.init_widen!r}")
    _need(not cfg.init_widen or cfg.init is not None, "init_widen needs init (a checkpoint)")
    _need(not cfg.init_widen or cfg.observation_size is None,
          "init_widen reads the whole observation: leave observation_size null")
    if cfg.kind == "distill":
        _need(not cfg.workers, "kind: distill labels in this process: it needs workers: 0")
        from cardagents.search.pimc import sampler_of
        try:
            sampler_of(make_game(cfg.game))
        except ValueError:
            raise ConfigError(f"config: kind: distill needs a game with a sampler of hidden "
                              f"cards; {cfg.game} has none") from None


def _check(cfg: Config) -> Config:
    """``cfg`` checked field by field, in a fixed order (the first failing check is the error),
    with ``total_samples`` set to its stages' sum where it has stages."""
    _check_game(cfg)
    _check_counts(cfg)
    _check_run(cfg)
    _check_imitation(cfg)
    _check_update(cfg)
    _check_compute(cfg)
    _check_reward(cfg)
    _check_network(cfg)
    _check_opponents(cfg)
    # the game options are checked by the game itself
    game_variants(cfg.game, cfg.options)
    _check_distill(cfg)
    _check_stages(cfg)
    if cfg.stages:
        cfg.total_samples = sum(stage["samples"] for stage in cfg.stages)
    return cfg


def _check_game(cfg: Config) -> None:
    """``game`` and the shape of ``options`` (their values are the game's to check)."""
    _need(cfg.game in game_names(), f"game must be one of {', '.join(game_names())}, got "
                                    f"{cfg.game!r}")
    _need(isinstance(cfg.options, dict) or (isinstance(cfg.options, list) and cfg.options and
                                            all(isinstance(o, dict) for o in cfg.options)),
          "options must be a mapping or a non-empty list of mappings")


def _check_counts(cfg: Config) -> None:
    """The sample counts and intervals (each at most its ``LIMITS`` bound), and ``seed``."""
    for name in ("total_samples", "num_envs", "rollout_samples", "epochs", "minibatch",
                 "snapshot_every", "pool_size", "checkpoint_every", "log_every"):
        value, high = getattr(cfg, name), LIMITS.get(name, MAX_SAMPLES)
        _need(is_int(value) and 1 <= value <= high,
              f"{name} must be an int >= 1 (at most {high:,}), got {value!r}")
    _need(is_int(cfg.seed) and 0 <= cfg.seed < 2 ** 32, f"seed must be an int in 0..2**32-1, "
                                                        f"got {cfg.seed!r}")


def _check_run(cfg: Config) -> None:
    """Where the run is written, its evaluations and learning curves, and its Ray workers."""
    _need(isinstance(cfg.run_dir, str) and cfg.run_dir, f"run_dir must be a folder name, got "
                                                        f"{cfg.run_dir!r}")
    _need(isinstance(cfg.run_name, str), f"run_name must be a string, got {cfg.run_name!r}")
    _need(is_int(cfg.eval_deals) and 0 <= cfg.eval_deals <= MAX_DEALS,
          f"eval_deals must be an int >= 0 (at most {MAX_DEALS:,}), got {cfg.eval_deals!r}")
    _need(is_int(cfg.workers) and 0 <= cfg.workers <= MAX_WORKERS,
          f"workers must be an int >= 0 (at most {MAX_WORKERS}), got {cfg.workers!r}")
    _need(cfg.ray_address is None or (isinstance(cfg.ray_address, str) and cfg.ray_address),
          "ray_address must be null, \"auto\" or \"host:port\"")
    _need(isinstance(cfg.eval_start, bool), f"eval_start must be true or false, got "
                                            f"{cfg.eval_start!r}")
    _need(is_int(cfg.curve_every) and cfg.curve_every >= 0, "curve_every must be an int >= 0")
    _need(is_int(cfg.curve_deals) and 1 <= cfg.curve_deals <= MAX_DEALS,
          f"curve_deals must be an int >= 1 (at most {MAX_DEALS:,}), got {cfg.curve_deals!r}")
    _need(cfg.curve_opponent != "frozen", "curve_opponent cannot be frozen (the learner's own "
                                          "snapshots change as it trains)")
    problem = opponent_problem(cfg.curve_opponent, cfg.game)
    _need(problem is None, f"curve_opponent: {problem}")


def _check_imitation(cfg: Config) -> None:
    """The imitation warm start: its samples, chunks, epochs and learning rate."""
    _need(is_int(cfg.imitation_samples) and 0 <= cfg.imitation_samples <= MAX_SAMPLES,
          f"imitation_samples must be an int >= 0 (at most {MAX_SAMPLES:,}), got "
          f"{cfg.imitation_samples!r}")
    for name in ("imitation_chunk", "imitation_epochs"):
        value, high = getattr(cfg, name), LIMITS.get(name, MAX_SAMPLES)
        _need(is_int(value) and 1 <= value <= high,
              f"{name} must be an int >= 1 (at most {high:,}), got {value!r}")
    _need(is_number(cfg.imitation_lr) and cfg.imitation_lr > 0,
          "imitation_lr must be a finite number > 0")


def _check_update(cfg: Config) -> None:
    """The PPO update's coefficients and the learning-rate schedule."""
    for name in ("lr", "gamma", "gae_lambda", "clip", "ent_coef", "vf_coef", "max_grad_norm"):
        value = getattr(cfg, name)
        _need(is_number(value) and value >= 0, f"{name} must be a finite number >= 0, got "
                                               f"{value!r}")
    _need(0 < cfg.gamma <= 1 and 0 <= cfg.gae_lambda <= 1,
          "gamma in (0, 1], gae_lambda in [0, 1]")
    schedules.check(cfg.lr_schedule, cfg.lr, cfg.lr_floor, cfg.lr_warmup)


def _check_compute(cfg: Config) -> None:
    """``torch_threads``, and (with torch) whether this machine can run ``device`` and
    ``precision``."""
    _need(cfg.torch_threads == "auto" or (is_int(cfg.torch_threads)
                                          and 1 <= cfg.torch_threads <= cli.MAX_THREADS),
          f"torch_threads must be auto or an int >= 1 (at most {cli.MAX_THREADS}), got "
          f"{cfg.torch_threads!r}")
    if torch is not None:  # device and precision: ConfigError for what this machine cannot do
        compute.resolve(cfg.device, cfg.precision, cfg.torch_threads)


def _check_reward(cfg: Config) -> None:
    """``score_shaping`` and ``reward`` (a match reward needs the game's table for its rules)."""
    _need(is_number(cfg.score_shaping) and cfg.score_shaping >= 0,
          "score_shaping must be a finite number >= 0")
    _need(cfg.score_shaping == 0 or shaping_for(cfg.game) is not None,
          f"score_shaping applies to {', '.join(SHAPING)} only")
    _need(cfg.reward in REWARDS, f"reward must be one of {', '.join(REWARDS)}, got "
                                 f"{cfg.reward!r}")
    _need(is_number(cfg.pair_bonus) and cfg.pair_bonus >= 0,
          "pair_bonus must be a finite number >= 0")
    _need(cfg.pair_bonus == 0 or cfg.reward == "hand",
          "pair_bonus goes with reward: hand (the game's own rewards)")
    _need(cfg.pair_bonus == 0 or (is_int(cfg.num_envs) and cfg.num_envs % 2 == 0),
          f"pair_bonus plays deal pairs: num_envs must be even, got {cfg.num_envs!r}")
    if cfg.reward == "match":  # a game with a table, which is there and was fitted under the
        # game's rules (cardagents.training.rewards.match_value says which games have one)
        try:
            match_value_for(cfg.reward, game_variants(cfg.game, cfg.options))
        except ValueError as exc:
            raise ConfigError(f"config: reward: match: {exc}") from None


def _check_network(cfg: Config) -> None:
    """The networks: ``critic``, ``head``, ``observation_size`` and ``hidden``."""
    _need(cfg.critic in CRITICS if torch is not None else isinstance(cfg.critic, str),
          f"critic must be one of local, global, relative, got {cfg.critic!r}")
    _need(cfg.head in ("fixed", "features"),
          f"head must be fixed or features, got {cfg.head!r}")
    _need(cfg.observation_size is None or (is_int(cfg.observation_size)
                                           and cfg.observation_size >= 1),
          f"observation_size must be null or an int >= 1, got {cfg.observation_size!r}")
    _need(isinstance(cfg.hidden, list) and 1 <= len(cfg.hidden) <= MAX_LAYERS and
          all(is_int(h) and 1 <= h <= MAX_HIDDEN for h in cfg.hidden),
          f"hidden must be a list of ints (1..{MAX_LAYERS} of them, each 1..{MAX_HIDDEN}), got "
          f"{cfg.hidden!r}")


def _check_opponents(cfg: Config) -> None:
    """The opponent mix: names that make an agent for the game (``opponent_problem``: a
    checkpoint is read, a search spec parsed), weights >= 0, not all 0."""
    _need(isinstance(cfg.opponents, dict) and cfg.opponents, "opponents must be a mapping")
    for name, weight in cfg.opponents.items():
        problem = opponent_problem(name, cfg.game)
        _need(problem is None, problem)
        _need(is_number(weight) and weight >= 0,
              f"opponent weight {name} must be a finite number >= 0, got {weight!r}")
    _need(sum(cfg.opponents.values()) > 0, "opponent weights sum to 0")


def _check_stages(cfg: Config) -> None:
    """``stages``: each a mapping with ``samples`` and known fields, whose config
    (``stage_config``) passes every check (its error prefixed ``stages[i]: ``)."""
    _need(isinstance(cfg.stages, list), "stages must be a list of mappings")
    for i, stage in enumerate(cfg.stages):
        _need(isinstance(stage, dict), f"stages[{i}] must be a mapping, got {stage!r}")
        _need(is_int(stage.get("samples")) and stage["samples"] >= 1,
              f"stages[{i}] needs samples: an int >= 1")
        unknown = sorted(set(stage) - {"samples", *STAGE_FIELDS, *DISTILL_FIELDS,
                                       *DISTILL_ALIASES})
        _need(not unknown, f"stages[{i}]: unknown field(s) {unknown}; a stage sets samples and "
                           f"any of {', '.join(STAGE_FIELDS)}, kind and its distillation "
                           f"fields")
        try:
            stage_config(cfg, i)
        except ConfigError as exc:
            raise ConfigError(f"config: stages[{i}]: {str(exc).removeprefix('config: ')}") \
                from None


def stage_config(cfg: Config, index: int) -> Config:
    """The config that stage ``index`` trains with: the stage's fields over ``cfg``'s."""
    stage = cfg.stages[index]
    fields = {DISTILL_ALIASES.get(k, k): v for k, v in stage.items() if k != "samples"}
    return _check(dataclasses.replace(cfg, stages=[], **fields))


def run_path(cfg: Config) -> str:
    """The run's folder: ``run_dir/run_name`` (``run_name`` by default ``<game>-<seed>``)."""
    return os.path.join(cfg.run_dir, cfg.run_name or f"{cfg.game}-{cfg.seed}")


def needs_heuristic(cfg: Config) -> bool:
    """Whether the run plays the heuristic: as an opponent (of any stage), in the final
    evaluations, or as the teacher of the warm start."""
    mixes = [cfg.opponents] + [stage.get("opponents", {}) for stage in cfg.stages]
    return any(m.get("heuristic", 0) > 0 for m in mixes) or cfg.eval_deals > 0 \
        or cfg.imitation_samples > 0 or (cfg.curve_every > 0 and cfg.curve_opponent == "heuristic")


def training_seeds(cfg: Config) -> list[tuple[str, int, int]]:
    """The seeds a run of ``cfg`` can deal, as (what, first, last + 1): its PPO games (a game
    holds at least one learner decision, so there are no more than the samples and the games
    in play; with ``workers``, each worker's block, its replacements included), the
    imitation's games and the learning curve's and final evaluations' deal pairs, where the
    run has them."""
    first = cfg.seed * PPO_SEED_STRIDE
    seeds = [("PPO games", first, first + cfg.total_samples + cfg.num_envs + 1)]
    seeds += [(f"PPO games of Ray worker {i}", first + (i + 1) * WORKER_SEED_BLOCK,
               first + (i + 2) * WORKER_SEED_BLOCK) for i in range(cfg.workers)]
    if cfg.imitation_samples:
        start = cfg.seed * IMITATION_SEED_STRIDE
        seeds.append(("imitation games", start,
                      start + cfg.imitation_samples + cfg.num_envs + 1))
    if cfg.curve_every:
        seeds.append(("learning-curve pairs", CURVE_SEED_BASE + cfg.seed,
                      CURVE_SEED_BASE + cfg.seed + cfg.curve_deals))
    if cfg.eval_deals:
        seeds.append(("final evaluation pairs", EVAL_SEED_BASE + cfg.seed,
                      EVAL_SEED_BASE + cfg.seed + cfg.eval_deals))
    return seeds


def stage_at(cfg: Config, samples: int) -> int:
    """The stage a run is in after ``samples`` PPO samples (the last one past the end)."""
    end = 0
    for i, stage in enumerate(cfg.stages):
        end += stage["samples"]
        if samples < end:
            return i
    return max(len(cfg.stages) - 1, 0)


@dataclass(frozen=True)
class CollectorSettings:
    """What collection reads of a (stage's) training config: the fields of the same names
    (``Config`` says what each means), and ``precision``, the one
    the learner acts in."""

    game: str
    num_envs: int
    options: dict
    opponents: dict
    gamma: float
    gae_lambda: float
    score_shaping: float
    critic: str
    pair_bonus: float = 0.0
    head: str = "fixed"
    observation_size: int | None = None
    reward: str = "hand"
    precision: str = "fp32"
    # the games ``options`` make (``cardenv.vector.game_variants``: one per rules variant), which
    # the collection plays: a training run makes each option set's game once and passes them
    # (``collector_settings(..., games=)``); made here from ``game`` and ``options`` otherwise
    games: tuple = ()

    def __post_init__(self):
        if not self.games:
            object.__setattr__(self, "games", tuple(game_variants(self.game, self.options)))


def collector_settings(cfg: Config, precision: str = "fp32",
                       games: list | tuple = ()) -> CollectorSettings:
    """What a ``Collector`` needs of a (stage's) config; ``precision``: the resolved one the
    learner acts in; ``games``: the games its options make, made already (else made here)."""
    fields = [f.name for f in dataclasses.fields(CollectorSettings)
              if f.name not in ("precision", "games")]
    return CollectorSettings(**{k: getattr(cfg, k) for k in fields}, precision=precision,
                             games=tuple(games))


def stage_bounds(cfg: Config, index: int) -> tuple[int, int]:
    """(first sample, samples) of stage ``index`` (the whole run without stages)."""
    if not cfg.stages:
        return 0, cfg.total_samples
    start = sum(stage["samples"] for stage in cfg.stages[:index])
    return start, cfg.stages[index]["samples"]


def learning_rate(cfg: Config, samples: int, active: Config | None = None) -> float:
    """The learning rate after ``samples`` PPO samples: the schedule of the stage they fall
    in (``cardagents.training.schedules``). ``active``: that stage's config, if the caller holds
    it checked already (a training run does: it is not checked again every iteration)."""
    index = stage_at(cfg, samples)
    if active is None:
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


def made_variants(cfg: Config) -> list[tuple[dict, object]]:
    """Each option set of the run (``option_sets``) with its game, made once
    (``cardenv.vector.game_variants``): what collection, imitation, distillation and the
    evaluations play."""
    return [(options, game_variants(cfg.game, options)[0]) for options in option_sets(cfg)]


def games_of(variants: list, options: dict | list) -> list:
    """The made games of ``variants`` (``made_variants``) that a stage's ``options`` (one set
    or a list) name, one per rules variant, in order."""
    wanted = options if isinstance(options, list) else [options]
    return [next(game for made, game in variants if made == dict(variant)) for variant in wanted]


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
        # opponents.<spec>=weight: a search spec holds '=' itself, the weight follows the last
        key, sep, raw = item.rpartition("=") if item.startswith("opponents.") \
            else item.partition("=")
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


def _upgrade(data: dict) -> None:
    """Read the fields of older configs (a resumed run's, a user's file) as today's:
    ``anneal_lr: false`` is ``lr_schedule: constant`` (``true``, linear, is the default)."""
    if "anneal_lr" in data:
        if not isinstance(data["anneal_lr"], bool):
            raise ConfigError(f"config: anneal_lr (now lr_schedule) must be true or false, got "
                              f"{data['anneal_lr']!r}")
        if data.pop("anneal_lr") is False:
            data["lr_schedule"] = "constant"
