"""Compare two folders of ``same_outputs.sh``: the VectorGame checksums, the evaluations' JSONs
and every game they recorded, and each training run's metrics, result and weights, leaving out
only what measures time and where a run or a record was written. ``--summary FOLDER`` prints the
figures docs/results.md quotes from one folder.

    python docs/results/issue44/same_outputs.py BEFORE AFTER
    python docs/results/issue44/same_outputs.py --summary FOLDER
"""

import hashlib
import json
import pathlib
import sys

import numpy as np
import torch

RUNS = ("smoke", "resumed", "init", "staged_global", "match", "distill", "ray")
UNTIMED = ("checkpoint", "update_threads", "date", "written")


def strip(value):
    """``value`` without the entries that measure time or name a folder."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items()
                if k not in UNTIMED and not k.endswith(("_s", "seconds")) and "per_s" not in k}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def records(folder: pathlib.Path, run: str) -> list:
    """A run's metrics records without what measures time. Curve points played as Ray tasks
    beside training (the ``ray`` run) are logged when Ray finishes them: where they fall among
    the iterations' records, and the samples they are logged at, depend on the machine's speed,
    so they are compared apart, in the order of their own samples (``at_samples``)."""
    found = [strip(json.loads(line)) for line in (folder / run / "metrics.jsonl").open()]
    if run != "ray":
        return found
    curves = sorted(({k: v for k, v in r.items() if k != "samples"} for r in found
                     if r["phase"] == "curve"), key=lambda r: (r["at_samples"], repr(r)))
    return [r for r in found if r["phase"] != "curve"] + curves


def same_runs(a: pathlib.Path, b: pathlib.Path) -> bool:
    same = True
    for run in RUNS:
        lines = [records(d, run) for d in (a, b)]
        results = [strip(json.loads((d / run / "result.json").read_text())) for d in (a, b)]
        weights = [torch.load(d / run / "final.pt", weights_only=True)["model"] for d in (a, b)]
        equal = lines[0] == lines[1] and results[0] == results[1] and \
            weights[0].keys() == weights[1].keys() and \
            all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
        losses = [r["policy_loss"] for r in lines[0] if "policy_loss" in r]
        print(f"{run}: {len(lines[0])} metrics records (policy losses {losses[:2]} ... "
              f"{losses[-1:]}), result.json and weights {'same' if equal else 'DIFFERENT'}")
        same &= equal
    return same


def main(before: str, after: str) -> bool:
    a, b = pathlib.Path(before), pathlib.Path(after)
    same = (a / "vector.txt").read_text() == (b / "vector.txt").read_text()
    print(f"vector.txt (VectorGame checksums): {'same' if same else 'DIFFERENT'}")
    for name in sorted(p.name for p in a.glob("e*.json")):
        equal = strip(json.loads((a / name).read_text())) == \
            strip(json.loads((b / name).read_text()))
        records = sorted(p.relative_to(a) for p in a.glob(f"r{name[1:-5]}/*.json"))
        equal_records = records == sorted(p.relative_to(b) for p in b.glob(
            f"r{name[1:-5]}/*.json")) and all(
            strip(json.loads((a / r).read_text())) == strip(json.loads((b / r).read_text()))
            for r in records)
        print(f"{name}: {'same' if equal else 'DIFFERENT'}; its {len(records)} game records "
              f"{'same' if equal_records else 'DIFFERENT'}")
        same &= equal and equal_records
    same &= same_runs(a, b)
    with np.load(a / "leaf.npz") as x, np.load(b / "leaf.npz") as y:
        equal = sorted(x.files) == sorted(y.files) and all(
            np.array_equal(x[k], y[k]) for k in x.files if k not in ("meta", "command"))
    print(f"leaf.npz: {'same' if equal else 'DIFFERENT'}")
    same &= equal
    print("the same outputs" if same else "OUTPUTS DIFFER")
    return same


def summary(folder: str) -> None:
    """The smoke run's losses and final evaluations, each evaluation's result with the sha256 of
    the actions of every game it recorded, and the VectorGame checksums."""
    d = pathlib.Path(folder)
    for line in (d / "smoke" / "metrics.jsonl").open():
        r = json.loads(line)
        if r["phase"] in ("imitation", "ppo"):
            print(f"smoke {r['phase']} {r.get('iteration') or r['imitated']}: policy loss "
                  f"{r['policy_loss']}" + (f", value loss {r['value_loss']}, approx kl "
                                          f"{r['approx_kl']}" if r["phase"] == "ppo" else ""))
        elif r["phase"] == "evaluation":
            print(f"smoke evaluation vs {r['opponent']}: win rate {r['win_rate']}, mean payoff "
                  f"{r['mean_payoff_per_game']}")
    for path in sorted(d.glob("e*.json")):
        e = json.loads(path.read_text())
        actions = hashlib.sha256(json.dumps([json.loads(p.read_text())["actions"] for p in sorted(
            d.glob(f"r{path.stem[1:]}/*.json"))]).encode()).hexdigest()[:16]
        print(f"{path.name} {e['agent_a']} vs {e['agent_b']}: {e['wins']}/{e['ties']}/"
              f"{e['losses']}, mean payoff {e['mean_payoff_per_game']}; actions sha256 {actions}")
    print((d / "vector.txt").read_text(), end="")


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        summary(sys.argv[2])
        sys.exit(0)
    sys.exit(0 if main(*sys.argv[1:3]) else 1)
