"""Duplicate deal pairs, the machinery that ``cardagents.evaluation.evaluate`` (one process) and
``cardagents.evaluation.remote`` (Ray tasks) share: play a chunk of deal pairs, cut an evaluation
into chunks, and summarize the pairs' scores.

Every deal (a seed) is played twice, agent A on the deal's first side (the game's ``sides``)
and B on the other, then with the sides swapped. ``play_pairs`` plays the pairs of a chunk of
seeds of a made ``Game`` (the evaluation makes it once from the game's name and options; it
travels to Ray tasks pickled) and returns a ``Pairs``; ``deal_chunks`` and ``chunk_seed`` cut
an evaluation into chunks of ``CHUNK`` pairs, the agents' random choices restarting at each
chunk, so a chunk's games are the same wherever it is played; ``combine`` turns the chunks'
``Pairs`` into the statistics (``summarize``: win rate with a Wilson interval, mean payoff per
game with a normal interval).
The command line and ``duplicate`` are in ``cardagents.evaluation.evaluate``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from cardagents.players.lockstep import play_seated, seat_side
from cardenv.vector import Finished

Z95 = 1.959963984540054
CHUNK = 250  # deal pairs per unit of work; the agents' random choices restart at each


def wilson(successes: float, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + Z95 ** 2 / n
    centre = (p + Z95 ** 2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / denom
    return (centre - half, centre + half)


def mean_interval(values) -> tuple[float, float, float]:
    """(mean, low, high): 95% normal interval of the mean."""
    values = np.asarray(values, dtype=float)
    mean = float(values.mean()) if values.size else 0.0
    if values.size < 2:
        return (mean, mean, mean)
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(values.size)
    return (mean, mean - half, mean + half)


def summarize(a_scores, b_scores, per_game_a) -> dict:
    """Statistics of duplicate pairs: ``a_scores[i]``/``b_scores[i]`` summed over pair i."""
    a_scores, b_scores = np.asarray(a_scores, float), np.asarray(b_scores, float)
    wins = int((a_scores > b_scores).sum())
    ties = int((a_scores == b_scores).sum())
    n = len(a_scores)
    rate = (wins + 0.5 * ties) / n if n else 0.0
    low, high = wilson(wins + 0.5 * ties, n)
    mean, mlow, mhigh = mean_interval(per_game_a)
    return {"pairs": n, "wins": wins, "ties": ties, "losses": n - wins - ties,
            "win_rate": rate, "win_rate_ci95": [low, high],
            "mean_payoff_per_game": mean, "mean_payoff_ci95": [mlow, mhigh]}


def chunk_seed(seed: int, start: int) -> int:
    """The seed the agents' random choices restart from at the chunk of deals beginning at
    deal ``start`` (of an evaluation whose first deal is ``seed``)."""
    return (seed * 1_000_003 + start) % 2 ** 63


def deal_chunks(deals: int, seed: int, size: int = CHUNK) -> tuple[list[int], list[list[int]]]:
    """The chunks of an evaluation of ``deals`` pairs from seed ``seed``: each chunk's first
    deal index and its deal seeds (``size`` pairs each, ``CHUNK`` unless a league asks for
    smaller ones)."""
    starts = list(range(0, deals, size))
    return starts, [list(range(seed + start, seed + min(start + size, deals)))
                    for start in starts]


class Pair(NamedTuple):
    """One deal pair's two games: A on ``a_side`` in ``a_first``, B there in ``b_first``
    (``Finished`` with their actions)."""
    seed: int
    a_side: list[int]
    a_first: Finished
    b_first: Finished


class Pairs(NamedTuple):
    """The deal pairs of a chunk, in seed order: A's and B's score per pair (summed over both
    games), A's payoff per game (two per pair, in play order), and, when ``play_pairs`` was
    asked for the ``history``, each pair's games (else ``None``)."""
    a_scores: list
    b_scores: list
    per_game: list
    games: list[Pair] | None = None


def play_pairs(game, agent_a, agent_b, seeds: list[int], reseed: int, batch: int = 256,
               progress=None, history: bool = False) -> Pairs:
    """The deal pairs of ``seeds`` in ``game`` (a made ``Game``: its rules options are its
    own), each pair's two games in a row. The agents' random choices restart from ``reseed``
    first. A's side of each pair is read from its first game's deal, which the second game
    reuses. With ``history`` the result's ``games`` lists each pair's two games (``Pair``)."""
    for k, agent in enumerate({id(a): a for a in (agent_a, agent_b)}.values()):
        agent.reseed(reseed + k)
    dealt = [game.new_state(s) for s in seeds]  # each seed dealt once, both games play it
    sides = [game.sides(state)[0] for state in dealt]
    deals = len(seeds)

    def seating(first, second):
        return lambda j, _dealt: seat_side(sides[j], first, second, game.num_players)

    first = second = None
    if progress is not None:
        first, second = progress, (lambda done: progress(deals + done))
    a_first = play_seated(game, seating(agent_a, agent_b), seeds, batch, first, history, dealt)
    b_first = play_seated(game, seating(agent_b, agent_a), seeds, batch, second, history, dealt)
    a_scores, b_scores, per_game = [], [], []
    for side, one, two in zip(sides, a_first, b_first):
        a1 = sum(one.returns[s] for s in side)
        b1 = sum(one.returns) - a1
        b2 = sum(two.returns[s] for s in side)
        a2 = sum(two.returns) - b2
        a_scores.append(a1 + a2)
        b_scores.append(b1 + b2)
        per_game += [a1, a2]
    games = [Pair(*pair) for pair in zip(seeds, sides, a_first, b_first)] if history else None
    return Pairs(a_scores, b_scores, per_game, games)


def combine(parts: list[Pairs]) -> dict:
    """The statistics (``summarize``) of the chunks' ``play_pairs`` results, in chunk order."""
    return summarize([x for part in parts for x in part.a_scores],
                     [x for part in parts for x in part.b_scores],
                     [x for part in parts for x in part.per_game])
