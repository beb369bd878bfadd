"""Train a PPO agent for a cardenv game against heuristic players and frozen copies of itself.

    python train.py                                   # the Quick start's run: configs/quick.yaml
    python train.py --config configs/dabang.yaml      # a config from configs/
    python train.py --config configs/dagong.yaml total_samples=2000000 lr=1e-4
    python train.py --resume runs/dagong-1/checkpoint.pt total_samples=6000000  # continue it

Without ``--config`` a new run is ``configs/quick.yaml`` (the README's Quick start; overrides go
over it, e.g. ``python train.py seed=2``): Dagong, a short imitation and PPO run that evaluates
its imitation-only start against the heuristic (``eval_start``), then its end on the same deals,
and closes with one line, start -> end with their 95% intervals and whether they are apart.
``Config``'s own defaults are the base every YAML file sets its fields over.

Every field of ``Config`` (``cardagents.training.config``) can be set in the YAML file or on the
command line as ``key=value`` (read as YAML: ``hidden=[512,256]``, ``options.follow=live``); a
resumed run starts from the config it saved, overlaid with ``--config`` and the overrides. A bad
config, override, run folder or ``ray_address`` is one line on standard error (exit status 2) before
anything is trained. The run writes TensorBoard logs, ``checkpoint.pt`` (for ``--resume``),
``final.pt`` and ``agent.pt`` (the weights alone, for ``python -m cardagents evaluate``) to
``run_dir/run_name``, and ends with its duplicate evaluations against the random player and the
heuristic (``result.json``); with ``eval_start``, the policy PPO starts from is evaluated against
the heuristic the same way before the first iteration, and the run ends comparing the two.

Warm start (``imitation_samples > 0``): before PPO, the network imitates the heuristic players
in chunks of ``imitation_chunk`` of their decisions (``cardagents.training.imitation``):
cross-entropy on their actions, the value head on the hands' final rewards. PPO then improves on
that.

How data is gathered (``cardagents.training.collector``, ``cardagents.training.selfplay``):
``num_envs`` games in lockstep (``cardenv.vector.VectorGame``); in each the learner plays one side's
seats (a random side of the hand's partnerships as dealt) against an opponent drawn from
``opponents`` (``heuristic``, ``frozen``: one of the last ``pool_size`` snapshots of the learner,
``random``, or any player spec: a PPO checkpoint's path, ``pimc:...``;
``cardagents.training.opponents``). Only complete hands are learned from, with GAE advantages
and no bootstrapping. With ``workers: N`` (the ``[dist]`` extra) N Ray actors collect and this
process updates (``cardagents.training.remote``).

Distillation from search (a stage with ``kind: distill``, ``cardagents.training.distill``): each
iteration also labels ``distill_labels`` states of the learner's own games with a PIMC search
(``distill_search``), and each PPO minibatch's loss adds ``distill_coef`` times the policy's
cross-entropy to a minibatch of the recent labels; the labelling's seconds are ``label_s`` in
``metrics.jsonl``. ``init: PATH`` starts a new run from a PPO checkpoint's weights.

The learner (``cardagents.ppo.compute``): ``device``, ``precision`` (bf16 autocast where the device
runs it natively, float32 weights either way) and ``torch_threads``, each ``auto`` by default;
the run's first lines say what was chosen and why. Collection and evaluation act on the CPU with
a copy of the weights; a global critic's values are computed by the learner over the whole batch
before the update (``Learner.complete``, ``cardagents.training.learner``; the run itself is
``cardagents.training.trainer.Trainer``, which joins the learner, the collection, the warm
start, distillation and the evaluations, and runs curve points, snapshots and checkpoints as
periodic hooks).
Each stage has its learning-rate schedule (``cardagents.training.schedules``).

Logs (``cardagents.training.runlog``): ``metrics.jsonl`` in the run folder (the learner's settings,
each imitation chunk, iteration, learning-curve point and final evaluation, with the run's wall
seconds; ``python -m cardagents curves`` draws them), TensorBoard, and a console line per iteration.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from cardagents.training.config import Config, learning_rate, load_config, run_path
from cardenv import cli
from cardenv.core.errors import ConfigError

try:  # the [train] extra; main() says so if it is missing
    import torch
except ImportError:
    torch = None
if torch is not None:  # (any other import error is a real one, and shows as such)
    from cardagents.training.checkpoints import read_training
    from cardagents.training.trainer import Trainer

__all__ = ["Config", "QUICK", "Trainer", "learning_rate", "load_config", "main"]

# the config of ``python train.py`` without --config (and without --resume)
QUICK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs", "quick.yaml")


def main(argv=None) -> dict:
    parser = cli.ArgumentParser(prog="train.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="YAML config (default, for a new run: "
                        "configs/quick.yaml, the short run of the Quick start)")
    parser.add_argument("--resume", help="checkpoint.pt of a run to continue (its saved config, "
                        "overlaid with --config and the overrides)")
    parser.add_argument("overrides", nargs="*", help="key=value settings over the config")
    args = parser.parse_args(argv)
    if torch is None:
        sys.exit('train.py needs torch: pip install -e ".[train]" (it pins the CPU build)')
    try:
        # a resumed run: its saved config, overlaid with --config and the overrides (e.g.
        # total_samples=... extends the run)
        resume = read_training(args.resume) if args.resume else None
        # a new run without --config is the short run of the Quick start
        config = args.config or (None if resume else QUICK)
        cfg = load_config(config, args.overrides, base=resume and resume["config"])
    except (ValueError, TypeError) as exc:  # ConfigError, or a value no check foresaw
        parser.error(str(exc))
    # the run folder is made and written before any training: checked now, not at the end
    if problem := cli.output_folder_problem(run_path(cfg)):
        parser.error(f"run_dir/run_name {run_path(cfg)}: {problem}")
    if cfg.workers:
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error(f'workers={cfg.workers} needs Ray: pip install -e ".[dist]"')
    shown = "configs/quick.yaml, the default" if config == QUICK else config
    print(f"training {cfg.game}{f' ({shown})' if shown else ''} for {cfg.total_samples:,} samples "
          f"({'resumed' if resume else 'new run'}) -> "
          f"{cfg.run_dir}/{cfg.run_name or f'{cfg.game}-{cfg.seed}'}")
    try:
        trainer = Trainer(cfg, resume)
    except ConfigError as exc:
        parser.error(str(exc))
    except ConnectionError as exc:  # cardagents.cluster.Unreachable: ray_address
        parser.error(f"ray_address: {exc}")
    result = trainer.train()
    with open(os.path.join(run_path(cfg), "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    cli.run(main)
