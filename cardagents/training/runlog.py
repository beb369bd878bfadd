"""A training run's log (``RunLog``): one call (``log``) per event feeds its three sinks under one
set of names: ``metrics.jsonl`` in the run folder, one JSON record per line (the learner's
settings, one per imitation chunk, per PPO iteration, per learning-curve evaluation and per final
evaluation, each with the PPO samples and imitated decisions so far and the run's wall seconds
over all its processes), TensorBoard scalars beside it (``tb/``: each number of the record as
``phase/name``, or ``phase/group/name`` for one of several evaluations at a step), and the
console line of the event (``iteration_line``, ``curve_line``, ``evaluation_line``, made from the
record). ``python -m cardagents curves`` draws the records. ``run_phases``: what is left of a
run, phase by phase, for the ``RunClock`` its lines end with.

A resumed run drops the records that came after its checkpoint (those iterations are trained
again), so that a run's log reads as if it had never stopped.
"""

from __future__ import annotations

import json
import math
import os
import time

from torch.utils.tensorboard import SummaryWriter


class RunLog:
    """The log of the run in folder ``path``, whose earlier processes trained ``elapsed``
    seconds, up to ``samples`` PPO samples and ``imitated`` decisions (0s for a new run)."""

    def __init__(self, path: str, elapsed: float = 0.0, samples: int = 0, imitated: int = 0):
        self.writer = SummaryWriter(os.path.join(path, "tb"))
        self.elapsed, self.clock = elapsed, time.perf_counter()
        self.metrics_path = os.path.join(path, "metrics.jsonl")
        self._trim(samples, imitated)

    def seconds(self) -> float:
        """Wall seconds the run has trained, over all its processes."""
        return self.elapsed + time.perf_counter() - self.clock

    def _trim(self, samples: int, imitated: int) -> None:
        """Keep only the records up to where this process starts."""
        if not os.path.exists(self.metrics_path):
            return
        with open(self.metrics_path, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        kept = [r for r in records if r.get("samples", 0) <= samples
                and r.get("imitated", 0) <= imitated and r.get("seconds", 0) <= self.elapsed]
        with open(self.metrics_path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in kept)

    def record(self, phase: str, samples: int, imitated: int, **values) -> dict:
        """Append one record to ``metrics.jsonl`` and return it: the phase, the PPO samples and
        imitated decisions so far, the run's wall seconds, and ``values``."""
        # seconds rounded down: a checkpoint saved right after keeps the record on resume
        # (``_trim`` keeps what is not later than the checkpoint's seconds)
        record = {"phase": phase, "samples": samples, "imitated": imitated,
                  "seconds": math.floor(self.seconds() * 100) / 100, **values}
        with open(self.metrics_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        return record

    def log(self, phase: str, values: dict, *, samples: int, imitated: int,
            step: int | None = None, group: str = "", line: str | None = None) -> dict:
        """The event ``phase`` with ``values``, in all three sinks: the record appended to
        ``metrics.jsonl`` (returned), its numbers as TensorBoard scalars at ``step`` (default
        ``samples``) tagged ``phase/name`` (``phase/group/name`` with a ``group``), and
        ``line`` printed when given."""
        record = self.record(phase, samples, imitated, **values)
        prefix = f"{phase}/{group}/" if group else f"{phase}/"
        self.scalars(samples if step is None else step,
                     {prefix + k: v for k, v in values.items() if _number(v)})
        if line is not None:
            print(line, flush=True)
        return record

    def close(self) -> None:
        """Flush and close the TensorBoard writer (``metrics.jsonl`` is closed after each
        record)."""
        self.writer.close()

    def records(self, phase: str) -> list[dict]:
        """The records of ``phase`` in ``metrics.jsonl`` so far (a resumed run's earlier ones)."""
        if not os.path.exists(self.metrics_path):
            return []
        with open(self.metrics_path, encoding="utf-8") as f:
            return [r for r in map(json.loads, filter(str.strip, f)) if r["phase"] == phase]

    def scalars(self, step: int, values: dict) -> None:
        """TensorBoard scalars at ``step`` (PPO samples or imitated decisions): tag -> value;
        ``None`` values are skipped."""
        for tag, value in values.items():
            if value is not None:
                self.writer.add_scalar(tag, value, step)


def _number(value) -> bool:
    """Whether ``value`` is a TensorBoard scalar (an int or float, not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def run_phases(cfg, option_sets: int, imitated: int, iteration: int, samples: int) -> list:
    """What is left of the run ``cfg`` (``option_sets`` option sets; ``imitated`` decisions,
    ``iteration`` iterations and ``samples`` PPO samples done), phase by phase, for its
    ``RunClock``: ``(name, kind, units)``, the evaluations one phase per option set (each has
    its progress line)."""
    sets = range(option_sets)
    phases = [("imitation", "imitation", max(cfg.imitation_samples - imitated, 0))]
    if cfg.eval_start and cfg.eval_deals and iteration == 0:
        phases += [(f"start evaluation {i}", "evaluation", 2 * cfg.eval_deals) for i in sets]
    phases.append(("ppo", "ppo", max(cfg.total_samples - samples, 0)))
    for opponent in ("random", "heuristic") if cfg.eval_deals else ():
        phases += [(f"evaluation vs {opponent} {i}", "evaluation", 2 * cfg.eval_deals)
                   for i in sets]
    return phases


def iteration_record(iteration: int, stage: int, rows: int, seconds: float, lr: float,
                     timing: dict, threads: int, collector, against: str, stats: dict) -> dict:
    """The values of a PPO iteration's record: ``iteration`` of stage ``stage``, ``rows``
    samples in ``seconds`` (``timing``: by part) at learning rate ``lr``, the update on
    ``threads`` threads; the recent games' win rate and payoff against the heuristic (and
    against the curve's opponent ``against`` where it is another) as ``collector`` holds them;
    the update's ``stats``."""
    more = {} if against == "heuristic" else {
        "win_rate_vs_opponent": collector.win_rate(against),
        "payoff_vs_opponent": collector.mean_payoff(against)}
    return dict(iteration=iteration, stage=stage, samples_per_s=round(rows / max(seconds, 1e-9)),
                lr=lr, **{f"{k}_s": round(v, 3) for k, v in timing.items()},
                other_s=round(seconds - sum(timing.values()), 3),  # stage changes, hooks
                update_samples_per_s=round(rows / max(timing["update"], 1e-9)),
                update_threads=threads, win_rate_vs_heuristic=collector.win_rate(),
                payoff_vs_heuristic=collector.mean_payoff("heuristic"), **more,
                **{k: round(v, 6) for k, v in stats.items()})


def iteration_line(iteration: int, samples: int, total: int, sps: float, timing: dict,
                   win: float | None, lr: float, stats: dict, run: str = "",
                   opponent: str = "heuristic") -> str:
    """The console line of a PPO iteration; ``win``: the recent win rate against
    ``opponent``; ``run``, the whole run's time left
    (``cardagents.evaluation.progress.RunClock.text``), ends it."""
    bar = "#" * int(min(1.0, samples / total) * 20)
    return (f"[{bar:<20}] iter {iteration} | {samples:,}/{total:,} samples | {sps:,.0f} "
            f"samples/s (collect {timing['collect']:.1f} s, update {timing['update']:.1f} s, "
            f"eval {timing['eval']:.1f} s) | win vs {opponent} "
            f"{'n/a' if win is None else f'{win:.2f}'} (recent hands) | lr {lr:.2e} | kl "
            f"{stats['approx_kl']:.5f} | clip {stats['clip_fraction']:.3f} | entropy "
            f"{stats['entropy']:.2f}" + (f" | {run}" if run else ""))


def curve_line(samples: int, options: dict, deals: int, stats: dict,
               opponent: str = "heuristic") -> str:
    """The console line of a learning-curve point (``cardagents.evaluation.evaluate.duplicate``'s
    ``stats`` against ``opponent`` under ``options``, at ``samples``)."""
    low, high = stats["win_rate_ci95"]
    return (f"curve: PPO vs {opponent}{' ' + str(options) if options else ''} at {samples:,} "
            f"samples: win rate {stats['win_rate']:.3f} ({low:.3f}..{high:.3f}) on {deals} "
            f"pairs, mean payoff per game {stats['mean_payoff_per_game']:+.3f}")


def evaluation_line(label: str, options: dict, deals: int, stats: dict) -> str:
    """The console line of a final evaluation."""
    low, high = stats["win_rate_ci95"]
    return (f"{label}{' ' + str(options) if options else ''}, {deals} duplicate deal pairs: "
            f"win rate {stats['win_rate']:.3f} (95% CI {low:.3f}..{high:.3f}), mean payoff per "
            f"game {stats['mean_payoff_per_game']:+.3f}")
