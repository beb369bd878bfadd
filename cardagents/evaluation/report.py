"""A markdown table of evaluation results: ``python -m cardagents report
docs/results/dabang_*.json``.

Each file is the JSON that ``python -m cardagents evaluate ... --out FILE`` wrote; the table gives
the command that reproduces it, the deals, the win rate and the mean payoff with their 95%
confidence intervals, and the wall time.
"""

from __future__ import annotations

import json

from cardagents.evaluation.evaluate import MAX_HANDS
from cardenv import cli
from cardenv.core.checks import is_int, is_number

MAX_BYTES = 2 ** 20  # a cardagents evaluate result is under 2 KB


def command(result: dict) -> str:
    parts = ["python -m cardagents evaluate", result["game"], result["agent_a"], result["agent_b"],
             f"--deals {result['pairs']}"]
    options = dict(result.get("options") or {})
    if result.get("unit") == "match":
        parts.append("--match")
        options.pop("episode", None)
        max_hands = options.pop("max_hands", MAX_HANDS)
        if max_hands != MAX_HANDS:
            parts.append(f"--max-hands {max_hands}")
    parts += [f"--set {k}={v}" for k, v in options.items()]
    if result.get("seed"):
        parts.append(f"--seed {result['seed']}")
    return " ".join(parts)


def table(results: list[dict]) -> str:
    lines = ["| Game | A vs B | Unit | Deal pairs | A's win rate (95% CI) | A's mean payoff per "
             "game (95% CI) | Wins / ties / losses | Time |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        low, high = r["win_rate_ci95"]
        mlow, mhigh = r["mean_payoff_ci95"]
        options = {k: v for k, v in (r.get("options") or {}).items()
                   if k not in ("episode", "max_hands")}
        unit = r.get("unit", "hand") + (f" ({', '.join(f'{k}={v}' for k, v in options.items())})"
                                        if options else "")
        lines.append(f"| {r['game']} | {r['agent_a']} vs {r['agent_b']} | {unit} | {r['pairs']:,} "
                     f"| "
                     f"{r['win_rate']:.3f} ({low:.3f}..{high:.3f}) | "
                     f"{r['mean_payoff_per_game']:+.3f} ({mlow:+.3f}..{mhigh:+.3f}) | "
                     f"{r['wins']} / {r['ties']} / {r['losses']} | {r['seconds']:.0f} s |")
    return "\n".join(lines)


def load(path: str) -> dict:
    """One ``cardagents evaluate --out`` JSON; anything else is a one-line error."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)  # no more than that: /dev/zero would never end
        if len(raw) > MAX_BYTES:
            raise SystemExit(f"cardagents report: {path} is not a cardagents evaluate result "
                             f"(larger "
                             f"than {MAX_BYTES:,} bytes)")
        result = json.loads(raw.decode("utf-8"))
    except OSError as e:
        raise SystemExit(f"cardagents report: cannot read {path}: {e.strerror}")
    except (ValueError, RecursionError) as e:  # not UTF-8, not JSON, nested too deep
        raise SystemExit(f"cardagents report: {path} is not JSON ({e})")
    missing = [k for k in ("game", "agent_a", "agent_b", "pairs", "win_rate", "win_rate_ci95",
                           "mean_payoff_per_game", "mean_payoff_ci95", "wins", "ties", "losses",
                           "seconds") if not isinstance(result, dict) or k not in result]
    if missing:
        raise SystemExit(f"cardagents report: {path} is not a cardagents evaluate result "
                         f"(missing {', '.join(missing)})")
    problem = _problem(result)
    if problem:
        raise SystemExit(f"cardagents report: {path} is not a cardagents evaluate result "
                         f"({problem})")
    return result


def _problem(result: dict) -> str | None:
    """What is wrong with the fields of a ``cardagents evaluate`` result, if anything."""
    def pair(value):
        return isinstance(value, list) and len(value) == 2 and all(map(is_number, value))

    checks = {"game": lambda v: isinstance(v, str), "agent_a": lambda v: isinstance(v, str),
              "agent_b": lambda v: isinstance(v, str), "pairs": lambda v: is_int(v) and v >= 0,
              "win_rate": is_number, "win_rate_ci95": pair, "mean_payoff_per_game": is_number,
              "mean_payoff_ci95": pair, "wins": lambda v: is_int(v) and v >= 0,
              "ties": lambda v: is_int(v) and v >= 0, "losses": lambda v: is_int(v) and v >= 0,
              "seconds": lambda v: is_number(v) and v >= 0}
    optional = {"options": lambda v: isinstance(v, dict), "unit": lambda v: v in ("hand", "match"),
                "seed": lambda v: is_int(v) and v >= 0}
    for name, ok in (*checks.items(), *optional.items()):
        if (name in checks or name in result) and not ok(result[name]):
            text = repr(result[name])
            return f"{name} is {text if len(text) <= 40 else text[:37] + '...'}"
    return None


def main(argv=None) -> str:
    parser = cli.ArgumentParser(
        prog="python -m cardagents report",
        description="Print a markdown table of cardagents evaluate --out JSON files, with the "
                    "command that reproduces each.")
    parser.add_argument("paths", nargs="+", metavar="FILE", help="cardagents evaluate --out JSON")
    paths = parser.parse_args(argv).paths
    results = [load(p) for p in paths]
    text = table(results) + "\n\nCommands:\n\n" + "\n".join(
        f"    {command(r)} --out {p}" for r, p in zip(results, paths))
    print(text)
    return text


if __name__ == "__main__":
    cli.run(main)
