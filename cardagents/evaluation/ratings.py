"""Bradley-Terry ratings of players from round-robin duplicate deal pairs, with bootstrap
intervals: what ``python -m cardagents league`` reports.

The model: player i beats player j in a deal pair with probability
``1 / (1 + exp(-(r_i - r_j)))``. ``fit`` finds the ratings by Hunter's MM iterations (2004) from
the pairings' wins (a tie counts half a win to each). Each pairing also gets ``PRIOR`` virtual
pairs, half won by each side. Why: a player that wins every pair against everyone (the search
agent against random) has no finite maximum-likelihood rating; the prior keeps it finite and
moves a rating measured on hundreds of pairs by very little. Ratings are returned on the Elo
scale (``ELO`` points per logit: 200 points above is about a 0.76 win rate), their mean 0.

``bootstrap`` resamples the deals: each replicate draws as many deal seeds as were played, with
replacement, the same draw for every pairing (the league plays the same deals in every
pairing, so the pairings' results are correlated through the cards; resampling deals keeps
that), refits, and takes the 2.5% and 97.5% percentiles of each player's rating. The draws come
from ``numpy.random.default_rng(seed)``: the same seed gives the same intervals.
"""

from __future__ import annotations

import math

import numpy as np

ELO = 400 / math.log(10)  # Elo points per logit
PRIOR = 1.0  # virtual deal pairs per pairing, half won by each side
MAX_ITER = 10_000
TOL = 1e-10


def outcomes(a_scores, b_scores) -> np.ndarray:
    """Player A's result in each deal pair: 1 (A scored more), 0.5 (tie) or 0."""
    a, b = np.asarray(a_scores, float), np.asarray(b_scores, float)
    return np.where(a > b, 1.0, np.where(a == b, 0.5, 0.0))


def fit(players: int, pairings, wins, counts, prior: float = PRIOR) -> np.ndarray:
    """Bradley-Terry ratings (Elo scale, mean 0) of ``players`` players from the pairings
    ``[(i, j)]``, ``wins[..., k]`` being i's wins (ties halved) against j out of
    ``counts[k]`` pairs. ``wins`` may have leading axes (bootstrap replicates): the ratings
    then have the same leading axes, fitted independently."""
    wins = np.asarray(wins, float)
    lead = wins.shape[:-1]
    won = np.zeros(lead + (players,))
    games = np.zeros((players, players))
    for k, (i, j) in enumerate(pairings):
        won[..., i] += wins[..., k] + prior / 2
        won[..., j] += counts[k] - wins[..., k] + prior / 2
        games[i, j] += counts[k] + prior
        games[j, i] += counts[k] + prior
    strength = np.ones(lead + (players,))
    for _ in range(MAX_ITER):
        # MM step (Hunter 2004): p_i = W_i / sum_j n_ij / (p_i + p_j)
        total = strength[..., :, None] + strength[..., None, :]
        new = won / (games / total).sum(axis=-1)
        new /= np.exp(np.log(new).mean(axis=-1, keepdims=True))  # geometric mean 1
        change = np.abs(np.log(new) - np.log(strength)).max() if new.size else 0.0
        strength = new
        if change < TOL:
            break
    ratings = np.log(strength) * ELO
    return ratings - ratings.mean(axis=-1, keepdims=True)


def bootstrap(players: int, pairings, results, replicates: int, seed: int,
              prior: float = PRIOR) -> np.ndarray:
    """``replicates`` refits on resampled deals: ``results[k]`` is pairing k's ``outcomes``,
    one per deal, every pairing over the same deals. Returns the ratings, one row per
    replicate."""
    results = np.asarray(results, float)
    deals = results.shape[1]
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, deals, size=(replicates, deals))
    wins = results[:, draws].sum(axis=-1).T  # (replicates, pairings)
    return fit(players, pairings, wins, [deals] * len(pairings), prior)


def ratings_with_intervals(players: int, pairings, results, replicates: int, seed: int,
                           prior: float = PRIOR) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ratings, 2.5% and 97.5% bootstrap percentiles) of each player."""
    results = np.asarray(results, float)
    counts = [results.shape[1]] * len(pairings)
    point = fit(players, pairings, results.sum(axis=1), counts, prior)
    draws = bootstrap(players, pairings, results, replicates, seed, prior)
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    return point, low, high
