"""Compare two folders of ``same_outputs.sh``: evaluation and compare JSONs, the training runs'
metrics and weights, ignoring what measures time (``seconds``, rates) and where a run was written.

    python docs/results/issue36/same_outputs.py BEFORE AFTER
"""

import json
import pathlib
import sys

import numpy as np
import torch

RUNS = ("quick", "staged", "staged_global", "match", "distill")


def strip(value):
    """``value`` without the entries that measure time or name the run's folder."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items()
                if k not in ("checkpoint", "update_threads") and not k.endswith(("_s", "seconds"))
                and "per_s" not in k}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def main(before: str, after: str) -> bool:
    a, b = pathlib.Path(before), pathlib.Path(after)
    same = True
    for name in sorted(p.name for p in a.glob("*.json")):
        equal = strip(json.loads((a / name).read_text())) == strip(json.loads((b / name)
                                                                              .read_text()))
        print(f"{name}: {'same' if equal else 'DIFFERENT'}")
        same &= equal
    for run in RUNS:
        lines = [[strip(json.loads(line)) for line in (d / run / "metrics.jsonl").open()]
                 for d in (a, b)]
        results = [strip(json.loads((d / run / "result.json").read_text())) for d in (a, b)]
        weights = [torch.load(d / run / "final.pt", weights_only=True)["model"] for d in (a, b)]
        equal = lines[0] == lines[1] and results[0] == results[1] and \
            weights[0].keys() == weights[1].keys() and \
            all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
        print(f"{run}: metrics ({len(lines[0])} records), result.json and weights "
              f"{'same' if equal else 'DIFFERENT'}")
        same &= equal
    for name in sorted(p.name for p in a.glob("*.npz")):  # the leaf value's data and weights
        with np.load(a / name) as x, np.load(b / name) as y:
            equal = sorted(x.files) == sorted(y.files) and all(
                np.array_equal(x[k], y[k]) for k in x.files if k not in ("meta", "command"))
        print(f"{name}: {'same' if equal else 'DIFFERENT'}")
        same &= equal
    print("the same outputs" if same else "OUTPUTS DIFFER")
    return same


if __name__ == "__main__":
    sys.exit(0 if main(*sys.argv[1:3]) else 1)
