"""What a league (``python -m cardagents league``) shows: the matrix of pairwise win rates and the
ratings, computed from its finished pairings, as a markdown table (printed, and written next to
the JSON) and a PNG chart of the ratings with their intervals (matplotlib, the ``[plot]``
extra; without it the chart is skipped with one line saying how to get it).

Everything here reads the league's JSON document (``cardagents.evaluation.league``):
``summary(doc)`` adds the matrix and ratings to it, ``markdown(doc)`` and ``chart(doc, path)`` draw
them, so a league's JSON can be redrawn without playing again (``python -m cardagents league
--redraw FILE``).
"""

from __future__ import annotations

import numpy as np

from cardagents.evaluation import ratings
from cardagents.evaluation.duplicate import summarize


def flipped(stats: dict) -> dict:
    """Duplicate statistics seen from the other player (B's wins are A's losses)."""
    low, high = stats["win_rate_ci95"]
    return {"pairs": stats["pairs"], "wins": stats["losses"], "ties": stats["ties"],
            "losses": stats["wins"], "win_rate": 1 - stats["win_rate"],
            "win_rate_ci95": [1 - high, 1 - low]}


def summary(doc: dict, replicates: int, seed: int) -> dict:
    """The matrix and the ratings of the league ``doc`` (all its pairings played): added to
    ``doc`` under ``matrix`` and ``ratings``, and returned."""
    names = [p["name"] for p in doc["players"]]
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    cells: list[list] = [[None] * n for _ in range(n)]
    pairings, results = [], []
    for pairing in doc["pairings"]:
        i, j = index[pairing["a"]], index[pairing["b"]]
        stats = summarize(pairing["a_scores"], pairing["b_scores"], pairing["per_game"])
        cells[i][j] = {k: stats[k] for k in ("pairs", "wins", "ties", "losses", "win_rate",
                                             "win_rate_ci95")}
        cells[j][i] = flipped(cells[i][j])
        pairings.append((i, j))
        results.append(ratings.outcomes(pairing["a_scores"], pairing["b_scores"]))
    doc["title"] = title(doc)
    doc["matrix"] = {"players": names, "cells": cells,
                     "about": "cells[i][j]: player i's share of the deal pairs against player j "
                              "(ties half), with its 95% Wilson interval"}
    point, low, high = ratings.ratings_with_intervals(n, pairings, results, replicates, seed)
    order = sorted(range(n), key=lambda i: -point[i])
    rows = []
    for i in range(n):
        mine = [c for c in cells[i] if c is not None]
        pairs = sum(c["pairs"] for c in mine)
        rows.append({"player": names[i], "rank": order.index(i) + 1, "rating": float(point[i]),
                     "ci95": [float(low[i]), float(high[i])], "pairs": pairs,
                     "win_rate": sum(c["win_rate"] * c["pairs"] for c in mine) / pairs})
    doc["ratings"] = {
        "model": "Bradley-Terry over deal pairs (ties half a win), Elo scale (400/ln 10 per "
                 "logit), mean 0",
        "prior_pairs": ratings.PRIOR, "bootstrap": replicates, "bootstrap_seed": seed,
        "interval": "2.5 and 97.5 percentiles over bootstrap replicates resampling the deals "
                    "(the same draw for every pairing)",
        "players": rows}
    return doc


def _rate(cell) -> str:
    if cell is None:
        return "—"
    low, high = cell["win_rate_ci95"]
    return f"{cell['win_rate']:.2f} ({low:.2f}–{high:.2f})"


def title(doc: dict) -> str:
    s = doc["settings"]
    unit = "whole matches" if s["unit"] == "match" else "hands"
    options = ", ".join(f"{k}={v}" for k, v in s["options"].items()
                        if not (s["unit"] == "match" and k == "episode"))
    last = s["seed"] + s["pairs"] - 1
    return (f"{s['game']} league: {unit}{' (' + options + ')' if options else ''}, "
            f"{s['pairs']} duplicate deal pair{'s' if s['pairs'] > 1 else ''} per pairing "
            f"(deals {s['seed']}..{last})")


def markdown(doc: dict) -> str:
    """The ratings table and the win-rate matrix of a summarized league, as markdown."""
    rated = doc["ratings"]
    rows = sorted(rated["players"], key=lambda r: r["rank"])
    lines = [f"**{title(doc)}**", "",
             "| rank | player | rating | 95% interval | pairs won (vs all) |",
             "|---:|---|---:|---|---:|"]
    for r in rows:
        low, high = r["ci95"]
        lines.append(f"| {r['rank']} | `{r['player']}` | {r['rating']:+.0f} | "
                     f"{low:+.0f}..{high:+.0f} | {r['win_rate']:.2f} |")
    lines += ["", f"Ratings: {rated['model']}; intervals: bootstrap ({rated['bootstrap']} "
                  f"replicates resampling the deals).", "",
              "Pairwise: the row player's share of deal pairs against the column player (ties "
              "half), 95% Wilson interval.", ""]
    names = doc["matrix"]["players"]
    order = [names.index(r["player"]) for r in rows]
    lines.append("| | " + " | ".join(f"`{names[j]}`" for j in order) + " |")
    lines.append("|---|" + "---|" * len(order))
    for i in order:
        lines.append(f"| `{names[i]}` | " + " | ".join(_rate(doc["matrix"]["cells"][i][j])
                                                     for j in order) + " |")
    return "\n".join(lines) + "\n"


def chart(doc: dict, path: str) -> str | None:
    """Draw the ratings with their intervals into the PNG ``path``; ``None`` when drawn, else
    the reason it was not (matplotlib missing)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return 'no chart: it needs matplotlib (pip install -e ".[plot]")'
    rows = sorted(doc["ratings"]["players"], key=lambda r: r["rating"])
    y = np.arange(len(rows))
    point = np.array([r["rating"] for r in rows])
    low = np.array([r["ci95"][0] for r in rows])
    high = np.array([r["ci95"][1] for r in rows])
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.45 * len(rows)))
    # a bound equal to the rating can come out a rounding error beyond it (a player whose every
    # pair is set by the prior): matplotlib refuses negative error bars
    xerr = [np.maximum(point - low, 0.0), np.maximum(high - point, 0.0)]
    ax.errorbar(point, y, xerr=xerr, fmt="o", capsize=4, color="C0")
    ax.set_yticks(y, [r["player"] for r in rows])
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("rating (Bradley-Terry, Elo scale, mean 0) with 95% bootstrap interval")
    ax.set_title(title(doc), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None
