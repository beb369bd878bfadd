"""Learning curves of training runs, drawn from their logs:
``python -m cardagents curves runs/dagong-v3 [more runs] --out docs/results/dagong_curve.png``.

A run folder's ``metrics.jsonl`` (written by ``train.py``) holds one record per imitation chunk,
PPO iteration, learning-curve evaluation (``curve_every``) and final evaluation, each with the
PPO samples so far and the run's wall seconds. One PNG per call: win rate against the heuristic
(top) and mean payoff per game (bottom), against PPO samples (left) and wall time (right). Solid
lines with 95% bands are the duplicate-deal evaluations of the greedy policy, one line per option
set (e.g. Dabang's first and later hands); the faint line is the training games' own result
against the heuristic (the sampling policy, the last 400 games, not duplicate). Dotted vertical
lines mark where stages begin.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from cardenv import cli
from cardenv.core.checks import is_number

MAX_BYTES = 256 * 2 ** 20  # a metrics log: about 1 KB per PPO iteration


def read_metrics(path: str) -> list[dict]:
    """The records of a run folder's ``metrics.jsonl`` (or of that file itself)."""
    if os.path.isdir(path):
        path = os.path.join(path, "metrics.jsonl")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)  # no more than that: /dev/zero would never end
        if len(raw) > MAX_BYTES:
            raise SystemExit(f"{path}: not a metrics log (larger than {MAX_BYTES:,} bytes)")
        records = [json.loads(line) for line in raw.decode("utf-8").splitlines()
                   if line.strip()]
    except FileNotFoundError:
        raise SystemExit(f"{path}: no such file (train.py writes metrics.jsonl into its run "
                         f"folder)") from None
    except OSError as exc:
        raise SystemExit(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except (ValueError, RecursionError) as exc:  # not JSON lines, not UTF-8, nested too deep
        raise SystemExit(f"{path}: not a metrics log ({exc})") from None
    if not records or not all(isinstance(r, dict) and isinstance(r.get("phase"), str)
                              for r in records):
        raise SystemExit(f"{path}: not a metrics log (records with a 'phase' expected)")
    for line, r in enumerate(records, 1):
        problem = _problem(r)
        if problem:
            raise SystemExit(f"{path}: not a metrics log (record {line}, phase {r['phase']!r}: "
                             f"{problem})")
    if not any(_drawn(r) for r in records):
        raise SystemExit(f"{path}: nothing to draw (no 'curve' record and no 'ppo' record with "
                         f"win_rate_vs_heuristic)")
    return records


def _drawn(r: dict) -> bool:
    return r["phase"] == "curve" or (r["phase"] == "ppo"
                                     and r.get("win_rate_vs_heuristic") is not None)


def _problem(r: dict) -> str | None:
    """What is wrong with a record that ``plot`` draws (its fields' types), if anything."""
    def pair(value):
        return isinstance(value, list) and len(value) == 2 and all(map(is_number, value))

    if r["phase"] == "curve":
        need = {"samples": is_number, "seconds": is_number, "win_rate": is_number,
                "win_rate_ci95": pair, "mean_payoff_per_game": is_number}
        maybe = {"mean_payoff_ci95": lambda v: v is None or pair(v),
                 "options": lambda v: v is None or isinstance(v, dict),
                 "at_samples": is_number, "at_seconds": is_number}
    elif _drawn(r):
        need = {"samples": is_number, "seconds": is_number, "win_rate_vs_heuristic": is_number,
                "payoff_vs_heuristic": is_number}
        maybe = {}
    else:
        return None
    for name, ok in need.items():
        if name not in r:
            return f"no {name!r}"
    for name, ok in (*need.items(), *maybe.items()):
        if name in r and not ok(r[name]):
            text = repr(r[name])
            return f"{name} is {text if len(text) <= 40 else text[:37] + '...'}"
    return None


def label(options: dict) -> str:
    """A short name for an option set (key=value pairs)."""
    if not options:
        return "default options"
    return ", ".join(f"{k}={v}" for k, v in options.items())


def series(records: list[dict], opponent: str = "heuristic") -> dict:
    """What the plot draws: per option set the curve points, the training games' results
    against ``opponent`` (the heuristic, or a run's ``curve_opponent``), and the
    samples/seconds at which each stage begins."""
    win, payoff = (("win_rate_vs_heuristic", "payoff_vs_heuristic") if opponent == "heuristic"
                   else ("win_rate_vs_opponent", "payoff_vs_opponent"))
    curves: dict[str, list[dict]] = {}
    for r in records:
        if r["phase"] == "curve":
            curves.setdefault(label(r.get("options") or {}), []).append(r)
    training = [{**r, "win": r[win], "payoff": r.get(payoff, float("nan"))} for r in records
                if r["phase"] == "ppo" and r.get(win) is not None]
    stages, last = [], None
    for r in training:
        if r.get("stage") != last and last is not None:
            stages.append((r["samples"], r["seconds"]))
        last = r.get("stage")
    return {"curves": curves, "training": training, "stages": stages}


def plot(runs: list[tuple[str, list[dict]]], out: str, title: str | None = None,
         opponent: str = "heuristic") -> str:
    """Draw the runs' curves into ``out`` (PNG), played against ``opponent`` (the heuristic,
    or the runs' ``curve_opponent``); returns its path."""
    import matplotlib
    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharey="row")
    for name, records in runs:
        data = series(records, opponent)
        for col, x in enumerate(("samples", "seconds")):
            scale = 1e6 if x == "samples" else 3600
            for opt, points in data["curves"].items():
                # a curve point taken on Ray while training went on is logged later than the
                # weights it played: at_samples says which
                xs = [p.get(f"at_{x}", p[x]) / scale for p in points]
                tag = f"{name}: {opt}" if len(runs) > 1 else opt
                line, = axes[0][col].plot(xs, [p["win_rate"] for p in points], marker=".",
                                          label=tag)
                axes[0][col].fill_between(xs, [p["win_rate_ci95"][0] for p in points],
                                          [p["win_rate_ci95"][1] for p in points],
                                          color=line.get_color(), alpha=0.15)
                axes[1][col].plot(xs, [p["mean_payoff_per_game"] for p in points], marker=".",
                                  color=line.get_color(), label=tag)
                if all(p.get("mean_payoff_ci95") for p in points):
                    axes[1][col].fill_between(xs, [p["mean_payoff_ci95"][0] for p in points],
                                              [p["mean_payoff_ci95"][1] for p in points],
                                              color=line.get_color(), alpha=0.15)
            if data["training"]:
                xs = [r[x] / scale for r in data["training"]]
                tag = f"{name}: training games" if len(runs) > 1 else "training games"
                axes[0][col].plot(xs, [r["win"] for r in data["training"]],
                                  color="grey", alpha=0.35, lw=0.8, label=tag)
                axes[1][col].plot(xs, [r["payoff"] for r in data["training"]],
                                  color="grey", alpha=0.35, lw=0.8, label=tag)
            for at in data["stages"]:
                for row in (0, 1):
                    axes[row][col].axvline(at[col] / scale, color="black", ls=":", lw=0.8)
    for col, xlabel in enumerate(("PPO samples (millions)", "wall time (hours, imitation "
                                                            "included)")):
        axes[1][col].set_xlabel(xlabel)
        for row in (0, 1):
            axes[row][col].grid(alpha=0.3)
    axes[0][0].axhline(0.5, color="red", lw=0.6)
    axes[0][1].axhline(0.5, color="red", lw=0.6)
    shown = opponent if len(opponent) <= 30 else "..." + opponent[-27:]
    axes[0][0].set_ylabel(f"win rate vs {shown} (duplicate pairs)")
    axes[1][0].set_ylabel(f"mean payoff per game vs {shown}")
    axes[0][0].legend(fontsize=8, loc="lower right")
    fig.suptitle(title or ", ".join(name for name, _ in runs))
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def main(argv=None) -> str:
    parser = cli.ArgumentParser(prog="python -m cardagents curves", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="run folders (or their metrics.jsonl)")
    parser.add_argument("--out", required=True, help="PNG file to write")
    parser.add_argument("--title", help="figure title (default: the run names)")
    args = parser.parse_args(argv)
    if problem := cli.output_file_problem(args.out, create_folder=True):
        parser.error(f"--out {args.out}: {problem}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        sys.exit('cardagents.training.curves needs matplotlib: pip install -e ".[plot]"')
    runs = [(os.path.basename(os.path.normpath(p)), read_metrics(p)) for p in args.runs]
    path = plot(runs, args.out, args.title)
    print(f"wrote {path}")
    return path


if __name__ == "__main__":
    cli.run(main)
