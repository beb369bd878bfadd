"""Probe (issue 43, item 5): how much of a Dagong learner seat's return variance the deal's par
(the same deal played by the heuristic in every seat) would remove as a baseline.

Run from the repository root: ``python docs/results/issue43/dagong_par_variance.py`` (1,000
deal pairs of the shipped agent against the heuristic from seed 123, about 15 s).
"""

import numpy as np
import torch

from cardagents.evaluation.duplicate import Pair
from cardagents.evaluation.evaluate import duplicate
from cardagents.players.lockstep import as_game, play_seated
from cardagents.specs import make_agent


def main():
    torch.set_num_threads(1)
    game = as_game("dagong")
    pairs = []
    duplicate(game, make_agent("checkpoints/dagong_ppo.pt", "dagong"),
              make_agent("heuristic", "dagong"), 1000, seed=123,
              records=lambda *pair: pairs.append(Pair(*pair)))
    heuristic = make_agent("heuristic", "dagong")
    heuristic.reseed(99)
    dealt = [game.new_state(p.seed) for p in pairs]
    pars = play_seated(game, lambda _j, _d: [heuristic] * 4, [p.seed for p in pairs],
                       dealt=dealt)
    raw, less_par = [], []
    for pair, par in zip(pairs, pars):
        for seat in pair.a_side:
            raw.append(pair.a_first.returns[seat])
            less_par.append(pair.a_first.returns[seat] - par.returns[seat])
    raw, less_par = np.array(raw, float), np.array(less_par, float)
    print(f"learner seat-games {raw.size}: return variance {raw.var():.3f}, less the par "
          f"{less_par.var():.3f} ({less_par.var() / raw.var():.2f}x)")


if __name__ == "__main__":
    main()
