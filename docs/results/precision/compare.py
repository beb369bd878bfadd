"""bf16 against fp32 on the same budget (issue 20): does bf16 autocast change learning?

For each game: one imitation checkpoint (the shipped config's settings, ``IMITATION``
heuristic decisions), then two PPO runs resumed from it, identical but for ``precision``
(fp32, bf16): ``PPO_SAMPLES`` samples as one stage (the config's first stage settings and
schedule), a learning-curve evaluation (``curve_deals: 300`` duplicate pairs against the
heuristic under each option set) every ``CURVE_EVERY`` iterations. The two runs go side by side
(one torch thread each: learning per sample does not depend on speed). Then
``python -m cardagents curves`` draws both runs in one figure:

    python docs/results/precision/compare.py [dagong|dabang ...] [--runs runs/precision]

writes ``runs/precision/<game>-{fp32,bf16}/`` and ``docs/results/precision/<game>_curves.png``,
copies each run's ``metrics.jsonl`` next to it, and writes ``<game>_agreement.md``: every curve
point of both runs side by side with the difference and its interval.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))))
IMITATION = 500_000
PPO_SAMPLES = 300_000
CURVE_EVERY = 3
HERE = os.path.join(ROOT, "docs", "results", "precision")


def imitation_checkpoint(game: str, runs: str) -> str:
    """The shared start: the config's imitation phase (``IMITATION`` decisions), saved."""
    sys.path.insert(0, ROOT)
    import train

    name = f"{game}-imitation"
    path = os.path.join(runs, name, "checkpoint.pt")
    if os.path.exists(path):
        return path
    cfg = train.load_config(os.path.join(ROOT, "configs", f"{game}.yaml"), [
        f"run_dir={runs}", f"run_name={name}", f"imitation_samples={IMITATION}", "stages=[]",
        f"total_samples={PPO_SAMPLES}", "eval_deals=0", "curve_every=0"])
    trainer = train.Trainer(cfg)
    trainer.imitate()
    trainer.save("checkpoint.pt")
    trainer.runlog.close()
    return path


def agreement(game: str, folder: str = HERE) -> str:
    """A markdown table of both runs' curve points side by side: win rate and mean payoff per
    game with their 95% intervals, whether the two runs' intervals overlap (win rate and
    payoff), and the fp32 - bf16 differences with their 95% intervals and whether those hold 0
    (independent samples: conservative, the two runs play the same deals; at 95%, about 1 in
    20 differences falls outside by chance)."""
    import json

    runs = {}
    for precision in ("fp32", "bf16"):
        with open(os.path.join(folder, f"{game}_{precision}_metrics.jsonl"),
                  encoding="utf-8") as f:
            runs[precision] = [r for r in map(json.loads, f) if r["phase"] == "curve"]
    lines = ["| samples (fp32 / bf16) | options | win rate fp32 | win rate bf16 | difference "
             "(95% CI) | payoff fp32 | payoff bf16 | difference (95% CI) | intervals overlap "
             "| differences' intervals hold 0 |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for a, b in zip(runs["fp32"], runs["bf16"]):
        n = a["deals"]
        pa, pb = a["win_rate"], b["win_rate"]
        half = 1.96 * ((pa * (1 - pa) + pb * (1 - pb)) / n) ** 0.5
        ma, mb = a["mean_payoff_per_game"], b["mean_payoff_per_game"]
        sa = (a["mean_payoff_ci95"][1] - a["mean_payoff_ci95"][0]) / 3.92
        sb = (b["mean_payoff_ci95"][1] - b["mean_payoff_ci95"][0]) / 3.92
        mhalf = 1.96 * (sa ** 2 + sb ** 2) ** 0.5

        def overlap(x, y):
            return x[0] <= y[1] and y[0] <= x[1]

        overlaps = overlap(a["win_rate_ci95"], b["win_rate_ci95"]) and \
            overlap(a["mean_payoff_ci95"], b["mean_payoff_ci95"])
        zero = abs(pa - pb) <= half and abs(ma - mb) <= mhalf
        options = ", ".join(f"{k}={v}" for k, v in a["options"].items()) or "default"
        lines.append(
            f"| {a.get('at_samples', a['samples']):,} / {b.get('at_samples', b['samples']):,} "
            f"| {options} | {pa:.3f} ({a['win_rate_ci95'][0]:.3f}..{a['win_rate_ci95'][1]:.3f})"
            f" | {pb:.3f} ({b['win_rate_ci95'][0]:.3f}..{b['win_rate_ci95'][1]:.3f}) | "
            f"{pa - pb:+.3f} (±{half:.3f}) | {ma:+.3f} | {mb:+.3f} | {ma - mb:+.3f} "
            f"(±{mhalf:.3f}) | {'yes' if overlaps else '**no**'} | "
            f"{'yes' if zero else '**no**'} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=["dagong", "dabang"])
    parser.add_argument("--runs", default=os.path.join(ROOT, "runs", "precision"))
    args = parser.parse_args(argv)
    for game in args.games:
        start = imitation_checkpoint(game, args.runs)
        procs = []
        for precision in ("fp32", "bf16"):
            log = open(os.path.join(args.runs, f"{game}-{precision}.log"), "w")
            procs.append(subprocess.Popen(
                [sys.executable, os.path.join(ROOT, "train.py"), "--resume", start,
                 f"run_dir={args.runs}", f"run_name={game}-{precision}",
                 f"precision={precision}", "torch_threads=1", f"curve_every={CURVE_EVERY}",
                 "curve_deals=300", "eval_deals=0", "checkpoint_every=1000"],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT))
        for proc in procs:
            if proc.wait():
                sys.exit(f"a {game} run failed: see {args.runs}/{game}-*.log")
        for precision in ("fp32", "bf16"):
            shutil.copy(os.path.join(args.runs, f"{game}-{precision}", "metrics.jsonl"),
                        os.path.join(HERE, f"{game}_{precision}_metrics.jsonl"))
        with open(os.path.join(HERE, f"{game}_agreement.md"), "w", encoding="utf-8") as f:
            f.write(agreement(game) + "\n")
        subprocess.run([sys.executable, "-m", "cardagents", "curves",
                        os.path.join(args.runs, f"{game}-fp32"),
                        os.path.join(args.runs, f"{game}-bf16"),
                        "--out", os.path.join(HERE, f"{game}_curves.png"),
                        "--title", f"{game}: fp32 vs bf16, {PPO_SAMPLES:,} PPO samples from "
                                   f"one imitation checkpoint"], cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
