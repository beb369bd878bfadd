"""Where Dabang matches are won and lost: levels gained per hand, by kind of hand.

Reads the match records that ``python -m cardagents evaluate dabang A B --match --records DIR``
writes and prints, for each kind of hand (a match's first hand, a later hand with no tribute, a
tribute hand: one whose dealer was owed blood by the hand before) and for each role of agent A's
team (defending: the dealer's team; attacking), how many such hands were played and the levels
each agent's team gained per hand. The figures in docs/results.md ("What limits the Dabang
agent") come from it::

    python -m cardagents evaluate dabang checkpoints/dabang_ppo.pt heuristic --deals 100 --match \\
        --seed 10000001 --records /tmp/matches
    python docs/results/dabang_match_hands.py /tmp/matches

Given the records of single later hands with tribute drawn (``--set dealer=random --set
levels=random --set blood=random``), it prints A's duplicate win rate on the deal pairs whose
dealer was owed no blood and on those owed some.
"""

from __future__ import annotations

import argparse
import collections
import json
import os

from cardagents.evaluation.evaluate import summarize
from cardenv.dabang.game import draw_blood


def hand_kind(index: int, blood_owed: int) -> str:
    if index == 0:
        return "first hand"
    return "tribute hand" if blood_owed > 0 else "later hand, no tribute"


def tally(records: list[dict]) -> tuple[dict, collections.Counter]:
    """``{(kind, role): [hands, levels gained by A's team, by B's team]}`` and match winners."""
    stats: dict = collections.defaultdict(lambda: [0, 0, 0])
    winners: collections.Counter = collections.Counter()
    for record in records:
        a_team = record["meta"]["a_seats"][0] % 2
        blood_owed = 0  # a match's first hand owes none
        for i, result in enumerate(record["results"]):
            role = "A defends" if result["dealer"] % 2 == a_team else "A attacks"
            for key in ((hand_kind(i, blood_owed), "both"), (hand_kind(i, blood_owed), role),
                        ("all hands", "both")):
                entry = stats[key]
                entry[0] += 1
                entry[1] += result["gained"][a_team]
                entry[2] += result["gained"][1 - a_team]
            blood_owed = result["blood"]  # what this hand's result owes the next dealer
        winner = record["results"][-1]["match_winner"] if record["results"] else None
        winners["none" if winner is None else "A" if winner == a_team else "B"] += 1
    return dict(stats), winners


def report(records: list[dict]) -> str:
    stats, winners = tally(records)
    lines = [f"{len(records)} matches: won by A {winners['A']}, by B {winners['B']}, "
             f"unfinished {winners['none']}",
             "| Hands | Role of A's team | Hands played | Levels per hand: A's team | B's team |",
             "|---|---|---|---|---|"]
    order = ["all hands", "first hand", "later hand, no tribute", "tribute hand"]
    for kind in order:
        for role in ("both", "A defends", "A attacks"):
            if (kind, role) in stats:
                n, a, b = stats[(kind, role)]
                lines.append(f"| {kind} | {role} | {n:,} | {a / n:.3f} | {b / n:.3f} |")
    return "\n".join(lines)


def by_blood(records: list[dict]) -> str:
    """A's duplicate win rate on hand records (``cardagents.evaluation.evaluate.summarize``: ties
    half, Wilson interval), the deal pairs grouped by the blood their dealer was owed."""
    games: dict = collections.defaultdict(list)  # deal seed -> [(A's score, B's score)]
    for record in records:
        meta = record["meta"]
        games[record["seed"]].append((sum(record["returns"][s] for s in meta["a_seats"]),
                                      sum(record["returns"][s] for s in meta["b_seats"])))
    groups: dict = {"no blood owed": [], "blood owed": []}
    for seed, pair in games.items():
        if len(pair) == 2:
            groups["blood owed" if draw_blood(seed) else "no blood owed"].append(pair)
    lines = ["| Later hands | Deal pairs | A's win rate (95% CI) |", "|---|---|---|"]
    for key, pairs in groups.items():
        if pairs:
            stats = summarize([a1 + a2 for (a1, _), (a2, _) in pairs],
                              [b1 + b2 for (_, b1), (_, b2) in pairs],
                              [a for pair in pairs for a, _ in pair])
            low, high = stats["win_rate_ci95"]
            lines.append(f"| {key} | {stats['pairs']:,} | {stats['win_rate']:.3f} "
                         f"({low:.3f}..{high:.3f}) |")
    return "\n".join(lines)


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="records of python -m cardagents evaluate dabang ... "
                        "--match --records")
    folder = parser.parse_args(argv).folder
    records = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            record = json.load(f)
        options = record.get("options", {})
        if record.get("game") != "dabang" or "meta" not in record:
            raise SystemExit(f"{name}: not a Dabang record of cardagents.evaluation.evaluate")
        if options.get("episode") != "match" and options.get("blood") != "random":
            raise SystemExit(f"{name}: neither a match nor a hand with blood='random'")
        records.append(record)
    if not records:
        raise SystemExit(f"{folder}: no records")
    matches = [r for r in records if r["options"]["episode"] == "match"]
    if matches and len(matches) != len(records):
        raise SystemExit(f"{folder}: holds matches and single hands; give one kind")
    text = report(records) if matches else by_blood(records)
    print(text)
    return text


if __name__ == "__main__":
    main()
