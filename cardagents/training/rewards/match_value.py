"""The match value of a Dabang situation, and the match reward built on it (``reward: match``
in the training config; docs/match_reward.md).

A *situation* is where a match stands when a hand is about to be dealt: both teams' levels, the
team that deals, and the blood (tribute) owed to the dealer. ``MatchValue`` holds ``W[d, o, b]``,
the probability that the dealing team wins the match from dealer-team level ``3 + d``, other
team's level ``3 + o`` and blood ``b`` (``b >= MAX_BLOOD`` share the last entry), and answers
``value(levels, dealer_team, blood, team)``: ``W`` for the dealing team, ``1 - W`` for the
other (so the two teams' values always sum to 1). A fresh match (first hand, no dealer yet) is
worth 1/2 to each team by symmetry; a won match 1, a lost one 0.

The match reward of a hand to a team is ``scale * (V(after) - V(before))``: what the hand did
to the team's chance of winning the match. It values level changes, keeping or taking the
deal and the blood owed to the next dealer by exactly how much they win matches, and is
zero-sum between the teams. Over a whole match it sums to ``scale * (won - 1/2)``: potential-
based shaping of the match's +1/-1, so training on ``episode: match`` with it keeps the
match's optimum (with ``gamma: 1``).

How ``W`` is fitted (``fit``): the hands of whole heuristic-vs-heuristic matches (and, for the
rare high bloods, later hands dealt with that blood) are recorded as what the rules' scoring
reads of a hand (team trick points, kitty points and jokers, 抠底, 干锅) with the blood the hand
was dealt with. A hand's outcome is taken to depend on the blood only, not on the levels; the
scoring itself (``cardenv.dabang.scoring.settle``, the engine's one copy of the rules) then
gives, for every situation and every recorded hand of its blood, the situation that follows, and
value iteration over that Markov chain gives ``W`` exactly for that model. ``check`` compares it
with the empirical win rates of the recorded matches.

CLI: ``python -m cardagents match_value fit --matches 600 --per-blood 200 --seed 100000`` (records
and fits the shipped ``cardagents/training/rewards/data/dabang_match_value.npz``; about 6 minutes on
2 cores), ``python -m cardagents match_value show [PATH]`` (the table's main
numbers).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from cardenv.dabang.scoring import MAX_LEVEL, MIN_LEVEL, settle

LEVELS = MAX_LEVEL - MIN_LEVEL + 1  # 3..10
MAX_BLOOD = 12  # bloods from 12 up share the table's last entry (0.3% of later hands)
DEFAULT_PATH = os.path.join(os.path.dirname(__file__), "data", "dabang_match_value.npz")
# the reward's scale: it weighs the critic's loss only (advantages are normalized per
# minibatch), and little with Adam; docs/match_reward.md gives its spread
DEFAULT_SCALE = 4.0
# the rules options the chain is fitted under (a table is refused under others)
RULES = ("joker_levels", "keep_dealer", "four_joker_win")
FEATURES = ("blood", "tp0", "tp1", "kitty_points", "big", "small", "koudi", "gangguo",
            "defenders")


class MatchValue:
    """The win probability of the dealing team by situation (see the module docstring)."""

    def __init__(self, table: np.ndarray, rules: dict, scale: float = DEFAULT_SCALE):
        table = np.asarray(table, dtype=np.float64)
        if table.shape != (LEVELS, LEVELS, MAX_BLOOD + 1):
            raise ValueError(f"a match value table has shape {(LEVELS, LEVELS, MAX_BLOOD + 1)}, "
                             f"got {table.shape}")
        self.table, self.rules, self.scale = table, dict(rules), float(scale)

    # --- the values --------------------------------------------------------------------------

    def value(self, levels, dealer_team: int | None, blood: int, team: int) -> float:
        """``team``'s chance to win the match from a situation: ``levels`` (team 0's, team
        1's), the dealing team (``None``: a fresh match, 1/2) and the blood owed to the
        dealer."""
        if dealer_team is None:
            return 0.5
        w = self.table[levels[dealer_team] - MIN_LEVEL, levels[1 - dealer_team] - MIN_LEVEL,
                       min(int(blood), MAX_BLOOD)]
        return float(w if team == dealer_team else 1.0 - w)

    def before(self, state) -> tuple:
        """The situation a Dabang state's hand was dealt in, from its public attributes (the
        ones ``cardenv.dabang.worlds`` reads as the hand's situation)."""
        if state.first_hand:
            return (3, 3), None, 0
        return tuple(state.levels), state.dealer % 2, int(state.blood_due)

    def hand_reward(self, before: tuple, result) -> np.ndarray:
        """Each seat's match reward for a finished hand: ``scale`` times its team's value after
        the hand (``result``, a ``HandResult``) less before it (``before``, as ``before``
        gives)."""
        levels, dealer_team, blood = before
        gain = []
        for team in (0, 1):
            was = self.value(levels, dealer_team, blood, team)
            if result.match_winner is not None:
                now = 1.0 if team == result.match_winner else 0.0
            else:
                now = self.value(result.levels_after, result.next_dealer % 2, result.blood, team)
            gain.append(self.scale * (now - was))
        return np.array([gain[seat % 2] for seat in range(4)])

    # --- saving --------------------------------------------------------------------------------

    def save(self, path: str, **extra) -> None:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        np.savez(path, table=self.table, scale=self.scale,
                 rules=np.array([f"{k}={self.rules[k]}" for k in RULES]), **extra)

    @classmethod
    def load(cls, path: str = DEFAULT_PATH, scale: float | None = None) -> "MatchValue":
        try:
            with np.load(path, allow_pickle=False) as data:
                rules = dict(item.split("=", 1) for item in data["rules"].tolist())
                table, saved = data["table"], float(data["scale"])
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"match value table {path!r} cannot be read ({exc})") from None
        return cls(table, rules, saved if scale is None else scale)

    def check_rules(self, options: dict) -> None:
        """``ValueError`` if the game's ``options`` score hands otherwise than the table's."""
        for key in RULES:
            if str(options[key]) != self.rules[key]:
                raise ValueError(f"the match value table was fitted with {key}="
                                 f"{self.rules[key]}, the game has {key}={options[key]}")


REWARDS = ("hand", "match")  # the config's ``reward``
_LOADED: dict = {}  # path -> MatchValue: each process reads the table once


def match_value_for(reward: str, games) -> MatchValue | None:
    """What a run's ``reward`` asks of collection on ``games`` (a made game, or a list of the
    made variants it plays: ``cardenv.vector.game_variants``): ``None`` for ``"hand"`` (the
    game's own rewards), the shipped table for ``"match"``; ``ValueError`` (one line) for a
    reward that is not one of ``REWARDS``, a game other than Dabang, or rules the table was not
    fitted under."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
    if reward == "hand":
        return None
    games = list(games) if isinstance(games, (list, tuple)) else [games]
    if any(game.name != "dabang" for game in games):
        raise ValueError(f"reward: match applies to dabang only, not {games[0].name!r}")
    if DEFAULT_PATH not in _LOADED:
        _LOADED[DEFAULT_PATH] = MatchValue.load(DEFAULT_PATH)
    mv = _LOADED[DEFAULT_PATH]
    for game in games:
        mv.check_rules(game.options)
    return mv


# --- recording and fitting ------------------------------------------------------------------------


def _hand_row(result, blood: int) -> list:
    """What scoring reads of a hand (``settle``'s inputs besides the situation)."""
    big, small = result.kitty_jokers
    return [blood, *result.trick_points, result.kitty_points, big, small, int(result.koudi),
            int(result.gangguo), result.defenders]


def record(matches: int, per_blood: int, seed: int = 0, progress=print) -> dict:
    """Heuristic-vs-heuristic hands: every later hand of ``matches`` whole matches (seeds from
    ``seed``), and ``per_blood`` later hands for each blood from 6 to ``MAX_BLOOD`` (dealt with
    ``dealer``, ``levels`` and ``blood`` set; these bloods are rare in matches). Returns arrays:
    ``hands`` (rows of ``FEATURES``), and per match hand ``m_levels`` (dealer team's level,
    other's), ``m_blood``, ``m_won`` (the dealing team won the match; -1 truncated)."""
    from cardagents.players.heuristics import heuristic_for
    from cardagents.players.lockstep import play_batched

    h = heuristic_for("dabang", seed)
    rows, m_levels, m_blood, m_won = [], [], [], []
    start = time.time()
    done = play_batched("dabang", lambda j: [h] * 4, range(seed, seed + matches),
                        {"episode": "match", "max_hands": 80})
    for game in done:
        winner = game.results[-1].match_winner
        for k, result in enumerate(game.results[1:], start=1):  # later hands
            blood = game.results[k - 1].blood
            rows.append(_hand_row(result, blood))
            team = result.dealer % 2
            m_levels.append([result.levels_before[team], result.levels_before[1 - team]])
            m_blood.append(blood)
            m_won.append(-1 if winner is None else int(winner == team))
    progress(f"{matches} matches, {len(rows)} later hands ({time.time() - start:.0f} s)")
    for blood in range(6, MAX_BLOOD + 1) if per_blood else ():
        options = {"dealer": "random", "levels": "random", "blood": blood}
        done = play_batched("dabang", lambda j: [h] * 4,
                            range(seed + 10_000 * blood, seed + 10_000 * blood + per_blood),
                            options)
        rows += [_hand_row(game.results[0], blood) for game in done]
    progress(f"{len(rows)} hands in all ({time.time() - start:.0f} s)")
    return {"hands": np.array(rows, dtype=np.int64), "m_levels": np.array(m_levels, np.int64),
            "m_blood": np.array(m_blood, np.int64), "m_won": np.array(m_won, np.int64)}


def transitions(hands: np.ndarray, rules: dict):
    """For every situation (dealer-team level, other level, blood bucket) and each recorded
    hand of that blood bucket, what follows under ``settle``: arrays of the situation index,
    the next situation's index (-1: the match ended), whether the deal changes team, and
    whether the dealing team won the match (when it ended)."""
    cols = {name: hands[:, i] for i, name in enumerate(FEATURES)}
    bucket = np.minimum(cols["blood"], MAX_BLOOD)
    src, dst, swap, won = [], [], [], []
    for d in range(LEVELS):
        for o in range(LEVELS):
            for k in range(len(hands)):
                defenders = int(cols["defenders"][k])  # the recorded dealer team
                levels = [0, 0]
                levels[defenders], levels[1 - defenders] = MIN_LEVEL + d, MIN_LEVEL + o
                tp = [int(cols["tp0"][k]), int(cols["tp1"][k])]
                r = settle(dealer=defenders, level=levels[defenders], trump=0, levels=levels,
                           trick_points=tp, kitty_points=int(cols["kitty_points"][k]),
                           kitty_jokers=(int(cols["big"][k]), int(cols["small"][k])),
                           koudi=bool(cols["koudi"][k]), gangguo=bool(cols["gangguo"][k]),
                           joker_levels=rules["joker_levels"], keep_dealer=rules["keep_dealer"],
                           four_joker_win=rules["four_joker_win"])
                src.append((d * LEVELS + o) * (MAX_BLOOD + 1) + bucket[k])
                if r.match_winner is not None:
                    dst.append(-1)
                    swap.append(False)
                    won.append(r.match_winner == defenders)
                    continue
                team = r.next_dealer % 2
                nd, no = r.levels_after[team] - MIN_LEVEL, r.levels_after[1 - team] - MIN_LEVEL
                dst.append((nd * LEVELS + no) * (MAX_BLOOD + 1) + min(r.blood, MAX_BLOOD))
                swap.append(team != defenders)
                won.append(False)
    return (np.array(src), np.array(dst), np.array(swap), np.array(won))


def fit(hands: np.ndarray, rules: dict, tol: float = 1e-10, max_iter: int = 100_000):
    """``W`` of the Markov chain the recorded ``hands`` define (module docstring), by value
    iteration from 1/2 until no entry moves by ``tol``. Returns (table, iterations)."""
    src, dst, swap, won = transitions(hands, rules)
    size = LEVELS * LEVELS * (MAX_BLOOD + 1)
    counts = np.bincount(src, minlength=size)
    if (counts == 0).any():
        missing = sorted(set(np.flatnonzero(counts == 0) % (MAX_BLOOD + 1)))
        raise ValueError(f"no recorded hand with blood bucket(s) {missing}: record more")
    w = np.full(size, 0.5)
    ended = dst < 0
    for it in range(max_iter):
        nxt = np.where(ended, won.astype(float), w[np.maximum(dst, 0)])
        nxt = np.where(~ended & swap, 1.0 - nxt, nxt)
        new = np.bincount(src, weights=nxt, minlength=size) / counts
        moved = np.abs(new - w).max()
        w = new
        if moved < tol:
            break
    return w.reshape(LEVELS, LEVELS, MAX_BLOOD + 1), it + 1


def check(mv: MatchValue, data: dict, min_visits: int = 40) -> dict:
    """The table against the recorded matches: for each situation met at least
    ``min_visits`` times in finished matches, the empirical share the dealing team won, and
    the visit-weighted mean absolute gap and the Brier scores of the table and of 1/2."""
    keep = data["m_won"] >= 0
    lv, bl, wn = data["m_levels"][keep], data["m_blood"][keep], data["m_won"][keep]
    pred = mv.table[lv[:, 0] - MIN_LEVEL, lv[:, 1] - MIN_LEVEL, np.minimum(bl, MAX_BLOOD)]
    key = (lv[:, 0] * 100 + lv[:, 1]) * 100 + np.minimum(bl, MAX_BLOOD)
    gaps, weights = [], []
    for k in np.unique(key):
        at = key == k
        if at.sum() >= min_visits:
            gaps.append(abs(wn[at].mean() - pred[at][0]))
            weights.append(at.sum())
    return {"hands": int(keep.sum()), "brier": float(np.mean((pred - wn) ** 2)),
            "brier_half": float(np.mean((0.5 - wn) ** 2)),
            "cells": len(gaps), "cell_gap": float(np.average(gaps, weights=weights))
            if gaps else float("nan")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cardagents match_value",
                                     description="Fit or show the Dabang match value table.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="record heuristic matches and fit the table")
    f.add_argument("--matches", type=int, default=200)
    f.add_argument("--per-blood", type=int, default=120)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--out", default=DEFAULT_PATH)
    f.add_argument("--data", default=None, help="save or reuse the recorded hands (npz)")
    s = sub.add_parser("show", help="print the table's main numbers")
    s.add_argument("path", nargs="?", default=DEFAULT_PATH)
    args = parser.parse_args(argv)
    if args.cmd == "fit":
        if args.data and os.path.exists(args.data):
            with np.load(args.data, allow_pickle=False) as saved:
                data = {k: saved[k] for k in saved.files}
        else:
            data = record(args.matches, args.per_blood, args.seed)
            if args.data:
                np.savez(args.data, **data)
        from cardenv.dabang.game import OPTIONS
        rules = {k: OPTIONS[k].default for k in RULES}
        table, iterations = fit(data["hands"], rules)
        mv = MatchValue(table, {k: str(v) for k, v in rules.items()})
        report = check(mv, data)
        mv.save(args.out, hands=len(data["hands"]), matches=int((data["m_won"] >= 0).sum()))
        print(f"fitted on {len(data['hands'])} hands in {iterations} iterations -> {args.out}")
        print(report)
    show(MatchValue.load(args.out if args.cmd == "fit" else args.path))
    return 0


def show(mv: MatchValue, out=sys.stdout) -> None:
    """The dealing team's win chance at equal levels by blood, and by level at blood 0."""
    t = mv.table
    print("dealing team's chance at equal levels, blood 0/2/5/10:", file=out)
    for lv in range(LEVELS):
        print(f"  {MIN_LEVEL + lv}:{MIN_LEVEL + lv}  " +
              " ".join(f"{t[lv, lv, b]:.3f}" for b in (0, 2, 5, 10)), file=out)
    print("blood 0, dealer level (rows) vs other level (columns):", file=out)
    for d in range(LEVELS):
        print(f"  {MIN_LEVEL + d:2d} " + " ".join(f"{t[d, o, 0]:.2f}" for o in range(LEVELS)),
              file=out)


if __name__ == "__main__":
    sys.exit(main())
