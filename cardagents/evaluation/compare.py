"""Where agent A wins or loses against a reference agent B: ``python -m cardagents compare``.

The deals are played in duplicate as ``cardagents.evaluation.evaluate`` plays them (the same games,
the same win rate), and two things are measured on them.

**Agreement by phase.** On every decision A makes in its seats, B is asked what it would play on
the same observation and legal mask; the table gives, per kind of decision, how many A made with
a choice (two legal actions or more; the forced ones are counted apart) and the fraction where
B chose the same action (95% Wilson interval). B is asked through a copy of
its own (the B at the table plays exactly as in ``cardagents.evaluation.evaluate``), whose random
choices start from A's seed, so that an agent compared with itself agrees on every decision. Kinds
of decision: Dabang, the observation's ``phase`` piece (declare, return, bury, koujoker, takeback,
play), the play phase split into leads (``led_count`` 0) and follows, each inside or outside a
tribute hand (the state's ``blood_due`` > 0: the dealer was owed blood by the hand before); Dagong,
the 硬牌 decision (``solo_phase``), leads (``standing_cards`` all zero) and answers, with a row for
the answers' pass-or-play choice alone.

**Paired payoffs by kind of hand.** Each deal is played by A's team in one pair of seats and by
B's team in the same seats (then the other way round): the "both" rows take that deal pair as
the unit, A's payoff minus B's per game (A's two games minus B's two, halved) and the deal's
outcome (A's win rate, ties half: ``cardagents.evaluation.evaluate``'s). Within a pair, though, A's
team defending faces B's team attacking, and in a zero-sum hand the two same-seat comparisons of a
pair are one and the same number, so they cannot say whether A gains in defence or in attack. The
role rows therefore compare each of A's games with a third game of the deal, B in every seat: A's
team against B's opponents, beside B's team in the same seats against the same opponents. Rows go by
kind of hand and role of A's team: Dabang, a first hand / a later hand without tribute / a tribute
hand, and A's team defending (the dealer's) or attacking, with the attackers' score (``points``:
positive when A's team conceded fewer points, or won more, than B's in the same seats); Dagong, a
hand with or without a 硬牌 (in any of the deal's games) and A's team holding the dealer or not.
Each row gives the deals or comparisons, A's payoff minus B's (mean, 95% normal interval of the
paired mean), and how often A did better (ties half, Wilson interval); a kind's "both" row is the
sum of its two role rows where every deal has both.

A first Dabang hand's dealer is settled in play, so A's game and the other may have different
dealers: such comparisons are counted under "roles differ", without points. With ``--match``
(Dabang) the games of a deal part after the first hand, so hands after it cannot be paired: the
match outcome is paired (the duplicate win rate), and each kind of hand and role gets A's
team's and B's team's mean payoff per hand, unpaired (no third game is played).

Agents are named as in ``cardagents.evaluation.evaluate`` (``random``, ``heuristic``,
``pimc[:...]``, a PPO checkpoint path). The deals are played in one process
(``cardagents.evaluation.evaluate``'s ``--workers`` is not offered: the tallies are kept by the
agent wrapper).

Example::

    python -m cardagents compare dabang checkpoints/dabang_ppo.pt heuristic --deals 100 \\
        --set dealer=random --set levels=random --set blood=random --json compare.json
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import sys
import time

import numpy as np

from cardagents.evaluation.duplicate import Pair, chunk_seed, mean_interval, wilson
from cardagents.evaluation.evaluate import MAX_DEALS, MAX_HANDS, check_seed_threads, duplicate
from cardagents.evaluation.hands import (BOTH, DIFFER, KINDS, ROLES, deal_kind, decisions_for,
                                         hand_role, match_hand_kinds, seat_points)
from cardagents.evaluation.progress import Progress
from cardagents.players.base import Agent
from cardagents.players.lockstep import as_game, play_seated
from cardagents.specs import make_agent
from cardenv import cli
from cardenv.core.options import parse_assignments
from cardenv.games import names

__all__ = ["Shadow", "compare", "main", "report"]


class Shadow(Agent):
    """Agent A in its seats, with ``reference`` (B's copy) asked on each of A's decisions;
    ``tally[(phase, hand)]`` counts ``[decisions with a choice, agreements, forced]``. It reads
    the states (for the hand's kind: ``needs_state``) and gives both agents the observations
    and masks the batched engine would (the game's ``observations`` and ``legal_masks``)."""

    needs_state = True

    def __init__(self, agent, reference, game):
        self.agent, self.reference, self.made = agent, reference, game
        self.game, self.name = game.name, getattr(agent, "name", "agent")
        self.decisions = decisions_for(game.name)
        self.tally: dict = collections.defaultdict(lambda: [0, 0, 0])

    def reseed(self, seed: int) -> None:
        # the reference draws from A's stream: an agent compared with itself agrees throughout
        self.agent.reseed(seed)
        self.reference.reseed(seed)

    def _ask(self, agent, states, obs, masks):
        if getattr(agent, "needs_state", False):
            return np.asarray(agent.act_states(states))
        return np.asarray(agent.act_batch(obs, masks))

    def act_states(self, states) -> np.ndarray:
        obs, masks = self.made.observations(states), self.made.legal_masks(states)
        mine = self._ask(self.agent, states, obs, masks)
        theirs = self._ask(self.reference, states, obs, masks)
        labels = self.decisions.labels(obs, states)
        # a decision with one legal action agrees by force: counted apart, not in the rate
        choice = masks.sum(axis=1) >= 2
        rows = list(zip(labels, mine == theirs, choice))
        extra = self.decisions.extra(labels, mine, theirs)
        rows += [(label, same, choice[i]) for i, (label, same) in extra]
        for label, same, free in rows:
            entry = self.tally[label]
            if free:
                entry[0] += 1
                entry[1] += int(same)
            else:
                entry[2] += 1
        return mine


def agreement_rows(shadow: Shadow) -> list[dict]:
    order = shadow.decisions.order + sorted(set(shadow.tally) - set(shadow.decisions.order))
    rows = []
    for label in order:
        if label in shadow.tally:
            n, same, forced = shadow.tally[label]
            rows.append({"phase": label[0], "hand": label[1], "decisions": n, "agreed": same,
                         "rate": same / n if n else 1.0, "ci95": list(wilson(same, n)),
                         "forced": forced})
    return rows


def seat_comparison(game: str, seats, mine, theirs) -> dict:
    """A's game ``mine`` and a game ``theirs`` of the same deal compared in ``seats``: the
    role of A's team, its payoff (``a``) and the other game's in the same seats (``b``), and
    the points edge (``None`` where the roles differ or the game has no points)."""
    r_a, r_b = mine.results[0], theirs.results[0]
    role_a, role_b = hand_role(game, r_a, seats), hand_role(game, r_b, seats)
    p_a, p_b = seat_points(game, r_a, seats), seat_points(game, r_b, seats)
    same = role_a == role_b
    return {"role": role_a if same else DIFFER, "a": sum(mine.returns[s] for s in seats),
            "b": sum(theirs.returns[s] for s in seats),
            "points": p_a - p_b if same and p_a is not None else None}


def comparisons(game: str, pair, base, dealt) -> tuple[str, list[dict], list[dict]]:
    """A single-hand deal's kind, its duplicate comparisons (A's games against B's, seats by
    seats) and its role comparisons (A's games against ``base``, B in every seat)."""
    other = [s for s in range(4) if s not in pair.a_side]
    duplicate_rows = [seat_comparison(game, pair.a_side, pair.a_first, pair.b_first),
                      seat_comparison(game, other, pair.b_first, pair.a_first)]
    role_rows = [seat_comparison(game, pair.a_side, pair.a_first, base),
                 seat_comparison(game, other, pair.b_first, base)]
    return deal_kind(game, dealt, (pair.a_first, pair.b_first, base)), duplicate_rows, role_rows


def _row(kind: str, role: str, diffs, points, unit: str) -> dict:
    mean, low, high = mean_interval(diffs)
    better = sum(1.0 if d > 0 else 0.5 if d == 0 else 0.0 for d in diffs)
    row = {"kind": kind, "role": role, unit: len(diffs), "payoff_diff": mean,
           "payoff_diff_ci95": [low, high], "a_better": better / len(diffs),
           "a_better_ci95": list(wilson(better, len(diffs)))}
    points = [p for p in points if p is not None]
    if points:
        mean, low, high = mean_interval(points)
        row.update(points_edge=mean, points_edge_ci95=[low, high], points_n=len(points))
    return row


def paired_rows(game: str, pairs: list, bases: list, dealt: list) -> list[dict]:
    """Per kind of hand, a "both" row (deal pairs: A's two games against B's two, per game) and
    one row per role of A's team (A's game against the game of B in every seat); kinds and
    roles in a fixed order."""
    by_deal, by_role = collections.defaultdict(list), collections.defaultdict(list)
    for pair, base, state in zip(pairs, bases, dealt):
        kind, both, roles = comparisons(game, pair, base, state)
        pts = [r["points"] for r in both]
        for k in (kind, "all hands"):
            by_deal[k].append((sum(r["a"] - r["b"] for r in both) / 2,
                               None if None in pts else sum(pts) / 2))
            for r in roles:
                by_role[(k, r["role"])].append((r["a"] - r["b"], r["points"]))
    kinds = ["all hands", *KINDS]
    order = [*ROLES[:2], DIFFER, *ROLES[2:]]
    out = []
    for kind in kinds + sorted(set(by_deal) - set(kinds)):
        if kind not in by_deal:
            continue
        out.append(_row(kind, BOTH, *zip(*by_deal[kind]), unit="deals"))
        for role in order:
            if (kind, role) in by_role:
                out.append(_row(kind, role, *zip(*by_role[(kind, role)]), unit="comparisons"))
    return out


def unpaired_rows(game: str, pairs: list, dealt: list) -> list[dict]:
    """Episodes of several hands (a Dabang match): per kind of hand and role of A's team, the
    hands and each team's mean payoff per hand (A's and B's games part after the first hand,
    so these are not paired)."""
    stats = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for pair, state in zip(pairs, dealt):
        other = [s for s in range(4) if s not in pair.a_side]
        for a_seats, done in ((pair.a_side, pair.a_first), (other, pair.b_first)):
            for result, kind in zip(done.results, match_hand_kinds(game, state, done.results)):
                role = hand_role(game, result, a_seats)
                for key in ((kind, BOTH), (kind, role), ("all hands", BOTH)):
                    entry = stats[key]
                    entry[0] += 1
                    entry[1] += sum(result.rewards[s] for s in a_seats)
                    entry[2] += sum(result.rewards[s] for s in range(4) if s not in a_seats)
    order = ["all hands", *KINDS]
    return [{"kind": k, "role": r, "hands": n, "a_per_hand": a / n, "b_per_hand": b / n}
            for k in order + sorted({k for k, _ in stats} - set(order))
            for r in (BOTH, *ROLES)
            if (k, r) in stats for n, a, b in [stats[(k, r)]]]


# --- the comparison --------------------------------------------------------------------------

def single_hand(game) -> bool:
    """Whether an episode of ``game`` (a made game) is one hand: only then are its games paired
    hand by hand."""
    options = game.options_dict()
    return options.get("episode", "hand") == "hand" and options.get("hands", 1) == 1


def compare(game, agent_a, agent_b, deals: int, options: dict | None = None, seed: int = 0,
            progress=None, reference=None, baseline=None) -> dict:
    """Play ``deals`` duplicate deal pairs from seed ``seed`` as
    ``cardagents.evaluation.evaluate.duplicate`` does, ``reference`` (a copy of B: by default
    ``copy.deepcopy(agent_b)``) asked on each of A's decisions; for single hands, each deal once
    more with ``baseline`` (another copy of B) in every seat. Returns ``agreement`` rows, ``paired``
    rows (single hands) or ``unpaired`` rows (several hands per episode), and ``duplicate``:
    ``cardagents.evaluation.evaluate``'s statistics. ``progress(games)`` hears the games finished
    (``2 * deals``, ``3 * deals`` for single hands)."""
    game = as_game(game, options)
    reference = copy.deepcopy(agent_b) if reference is None else reference
    shadow = Shadow(agent_a, reference, game)
    pairs: list = []
    stats = duplicate(game, shadow, agent_b, deals, seed=seed, progress=progress,
                      records=lambda *pair: pairs.append(Pair(*pair)))
    out = {"agreement": agreement_rows(shadow), "duplicate": stats}
    dealt = [game.new_state(p.seed) for p in pairs]  # the deal's kind: dealt again, read only
    if not single_hand(game):
        out["unpaired"] = unpaired_rows(game.name, pairs, dealt)
        return out
    baseline = copy.deepcopy(agent_b) if baseline is None else baseline
    baseline.reseed(chunk_seed(seed, deals))  # a stream of its own, fixed by the seed
    done = None if progress is None else (lambda n: progress(2 * deals + n))
    bases = play_seated(game, lambda _j, _dealt: [baseline] * 4, [p.seed for p in pairs],
                        progress=done, dealt=dealt)
    out["paired"] = paired_rows(game.name, pairs, bases, dealt)
    return out


def _interval(mean, ci, fmt="+.3f") -> str:
    return f"{mean:{fmt}} ({ci[0]:{fmt}}..{ci[1]:{fmt}})"


def report(result: dict, title: str) -> str:
    """The result of ``compare`` as text tables (Markdown)."""
    lines = [title, "", "Agreement: on A's decisions with a choice (two legal actions or more), "
             "how often B would choose the same action; forced: one legal action, not counted",
             "| Phase | Hand | Decisions | Agreement (95% CI) | Forced |", "|---|---|---|---|---|"]
    for r in result["agreement"]:
        lines.append(f"| {r['phase']} | {r['hand']} | {r['decisions']:,} | "
                     f"{_interval(r['rate'], r['ci95'], '.3f')} | {r['forced']:,} |")
    if "paired" in result:
        lines += ["", "Paired: A's payoff minus B's in the same seats on the same deal, per game; "
                  "points: the attackers' score, + when A's team did better",
                  "| Hand | Role of A's team | Deals / comparisons | Payoff A - B (95% CI) | "
                  "Points A - B (95% CI) | A better (95% CI) |", "|---|---|---|---|---|---|"]
        for r in result["paired"]:
            n = r.get("deals", r.get("comparisons"))
            pts = _interval(r["points_edge"], r["points_edge_ci95"], "+.1f") \
                if "points_edge" in r else "-"
            lines.append(f"| {r['kind']} | {r['role']} | {n:,} | "
                         f"{_interval(r['payoff_diff'], r['payoff_diff_ci95'])} | {pts} | "
                         f"{_interval(r['a_better'], r['a_better_ci95'], '.3f')} |")
    else:
        lines += ["", "Per hand, not paired (the two games of a pair part after the first hand)",
                  "| Hand | Role of A's team | Hands | A's team per hand | B's team per hand |",
                  "|---|---|---|---|---|"]
        for r in result["unpaired"]:
            lines.append(f"| {r['kind']} | {r['role']} | {r['hands']:,} | "
                         f"{r['a_per_hand']:+.3f} | {r['b_per_hand']:+.3f} |")
    s = result["duplicate"]
    lines += ["", f"Duplicate: {s['pairs']:,} deal pairs, A's win rate "
              f"{_interval(s['win_rate'], s['win_rate_ci95'], '.3f')}, mean payoff per game "
              f"{_interval(s['mean_payoff_per_game'], s['mean_payoff_ci95'])}"]
    return "\n".join(lines)


# --- the command line ------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = cli.ArgumentParser(prog="python -m cardagents compare", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=names())
    for name in ("agent_a", "agent_b"):
        parser.add_argument(name, help="random, heuristic, pimc[:key=value,...], or a PPO "
                                       "checkpoint path")
    parser.add_argument("--deals", type=int, default=200, help="deal pairs (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="first deal's seed (default 0)")
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a rules option of the game, e.g. --set dealer=random (repeatable)")
    parser.add_argument("--match", action="store_true",
                        help="dabang: whole matches (the hands after the first are not paired)")
    parser.add_argument("--max-hands", type=int, default=MAX_HANDS,
                        help=f"dabang --match: truncate a match after this many hands "
                             f"({MAX_HANDS})")
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON to this path")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads of a PPO agent (default 1)")
    return parser


def main(argv=None) -> dict:
    parser = _parser()
    args = parser.parse_args(argv)
    if not 1 <= args.deals <= MAX_DEALS:
        parser.error(f"--deals must be >= 1 (at most {MAX_DEALS:,}), got {args.deals}")
    check_seed_threads(parser, args)
    if args.json is not None and (problem := cli.output_file_problem(args.json)):
        parser.error(f"--json {args.json}: {problem}")
    options = {"episode": "match", "max_hands": args.max_hands} if args.match else {}
    try:
        options.update(parse_assignments(args.set))
        game = as_game(args.game, options)  # checks the options
        a = make_agent(args.agent_a, args.game, args.seed)
        b = make_agent(args.agent_b, args.game, args.seed + 1)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    if "torch" in sys.modules and sys.modules["torch"] is not None:  # a PPO agent was loaded
        sys.modules["torch"].set_num_threads(args.threads)
    start = time.perf_counter()
    games = (3 if single_hand(game) else 2) * args.deals
    progress = None if args.quiet else Progress(games, "compare", "games")
    result = compare(game, a, b, args.deals, seed=args.seed, progress=progress)
    seconds = time.perf_counter() - start
    result.update(game=args.game, agent_a=args.agent_a, agent_b=args.agent_b, seed=args.seed,
                  deals=args.deals, options=options, seconds=seconds)
    print(report(result, f"{args.game}: A = {args.agent_a}, B = {args.agent_b}, "
                         f"{args.deals:,} deal pairs from seed {args.seed}"
                         f"{', ' + str(options) if options else ''}; {seconds:.1f} s "
                         f"({seconds / args.deals:.2f} s per deal pair)"))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2, ensure_ascii=False)
        print(f"  written to {args.json}", file=sys.stderr)
    return result


if __name__ == "__main__":
    cli.run(main)
