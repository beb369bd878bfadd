"""Training checkpoints (a run's ``checkpoint.pt``, what ``train.py --resume`` continues from):
writing one (``save_training``), reading one with its config checked (``read_training``) and
putting a learner back where the run stood (``restore``). A damaged or partial checkpoint is a
``ConfigError`` (one line naming what is wrong) before anything is trained. Files are read as
tensors and plain data only (``cardagents.ppo.agent.read_checkpoint``): a foreign file cannot run
code as it loads.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from cardagents.ppo.agent import CheckpointError, on_cpu, read_checkpoint
from cardenv.core.checks import check_int, check_number
from cardenv.core.errors import ConfigError


def save_training(path: str, config: dict, net, optimizer, pool: list, rng, *, iteration: int,
                  samples: int, next_seed: int, imitated: int, workers: list | None,
                  elapsed: float, distill: dict | None = None) -> str:
    """Write a training checkpoint to ``path`` (returned): what ``cardagents.ppo.agent`` plays it
    with (game, options, network shape, weights), the optimizer, the run's ``config`` (a mapping),
    the frozen ``pool``, the numpy ``rng``'s and torch's global generator's states, and where the
    run stands (``Restored``'s fields; ``workers``: each Ray worker's draws and deals; ``distill``:
    a distillation stage's labels and draws, ``cardagents.training.distill.Distiller.state``). Every
    tensor goes to the CPU: a checkpoint loads anywhere, float32 in any precision."""
    torch.save(on_cpu({
        "game": config["game"], "options": config["options"],
        "net": {"hidden": list(config["hidden"]), "critic": config["critic"],
                "head": config.get("head", "fixed")},
        "model": net.state_dict(), "optimizer": optimizer.state_dict(), "config": config,
        "iteration": iteration, "samples": samples, "pool": pool,
        "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
        "next_seed": next_seed, "imitated": imitated, "workers": workers, "elapsed": elapsed,
        "distill": distill,
    }), path)
    return path


def read_training(path: str) -> dict:
    """The training checkpoint at ``path`` (its ``config`` a mapping)."""
    try:
        resume = read_checkpoint(path)
        if not isinstance(resume["config"], dict):
            raise TypeError("its config is not a mapping")
    except CheckpointError as exc:
        raise ConfigError(f"cannot resume: {exc}") from None
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"cannot resume from {path!r}: it is not a training checkpoint "
                          f"({exc})") from None
    return resume


@dataclass
class Restored:
    """Where a run stood at its checkpoint."""

    iteration: int  # PPO iterations done
    samples: int  # PPO samples trained on
    pool: list  # the frozen snapshots (state dicts, on the CPU)
    imitated: int  # decisions imitated
    elapsed: float  # wall seconds trained, over all its processes
    next_seed: int  # the next deal's seed (collection in this process)


def restore(resume: dict, net, optimizer, lr: float, rng, game: str) -> Restored:
    """Load the learner ``net``, its ``optimizer`` (at rate ``lr``), the numpy generator
    ``rng`` and torch's global generator from the training checkpoint ``resume``."""
    try:
        trained = resume["model"]["scale"].numel()
        if trained != net.scale.numel():
            raise ConfigError(
                f"the checkpoint's network reads {trained} observation entries, {game}'s "
                f"observation now has {net.scale.numel()} (the layout grew): its agent still "
                f"plays (python -m cardagents evaluate reads the leading entries), but training "
                f"must start a new run")
        net.load_state_dict(resume["model"])
        optimizer.load_state_dict(resume["optimizer"])
        for group in optimizer.param_groups:  # the saved state carries its last lr
            group["lr"] = lr
        restored = Restored(
            check_int(resume["iteration"], "iteration", 0, error=ValueError),
            check_int(resume["samples"], "samples", 0, error=ValueError),
            [{k: v.cpu() for k, v in sd.items()} for sd in resume["pool"]],
            check_int(resume.get("imitated", 0), "imitated", 0, error=ValueError),
            check_number(resume.get("elapsed", 0.0), "elapsed", 0, error=ValueError), 0)
        rng.bit_generator.state = resume["rng"]
        torch.set_rng_state(resume["torch_rng"])
        restored.next_seed = check_int(resume["next_seed"], "next_seed", 0, error=ValueError)
    except ConfigError:
        raise
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError, IndexError) as exc:
        what = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise ConfigError(f"cannot resume: not a complete training checkpoint "
                          f"({what[:300]})") from None
    return restored
