"""How well depth-limited rollouts valued by a leaf rank a position's candidates, which is what
PIMC needs from a leaf (docs/results.md, "A leaf value for depth-limited rollouts").

The script takes positions of heuristic play (every 11th step of hands seeded from 1000, more
than one legal action). In the true state (perfect information) it plays the heuristic's own
choice and up to 15 other legal actions. Each then gets a full heuristic rollout and a
``DEPTH``-step rollout valued by each leaf named (an ``.npz`` of ``cardagents.search.leaf`` or a PPO
checkpoint with a global critic). It prints, over all candidates, the correlation of the two
estimates of a candidate's gain over the heuristic's choice, their mean gains, and how often
the leaf calls better a candidate that full rollouts find worse:

    python docs/results/leaf_ranking.py dagong 40 8 checkpoints/dagong_leaf.npz \\
        checkpoints/dagong_ppo.pt
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from cardagents.players.heuristics import heuristic_for  # noqa: E402
from cardagents.search.parse import leaf_value  # noqa: E402
from cardagents.search.rollouts import hand_worth, rollout_values  # noqa: E402
from cardenv.games import make_game  # noqa: E402


def positions(game, heuristic, count: int) -> list:
    out = []
    for seed in range(1000, 1100):
        state, steps = game.new_state(seed), 0
        while not state.is_over and len(out) < count and not state.results:
            mask = state.legal_mask()
            if mask.sum() > 1 and steps % 11 == 5:
                out.append(state.clone())
            state.apply(int(heuristic.act_batch(game.observations([state]), mask[None])[0]))
            steps += 1
    return out


def main(name: str, count: int, depth: int, leaves: list[str]) -> None:
    game, heuristic = make_game(name), heuristic_for(name, 0)
    starts, seats, owners, ended = [], [], [], {}
    for d, position in enumerate(positions(game, heuristic, count)):
        own = int(heuristic.act_batch(game.observations([position]),
                                      position.legal_mask()[None])[0])
        others = [int(a) for a in np.flatnonzero(position.legal_mask()) if a != own][:15]
        for k, action in enumerate([own, *others]):
            state = position.clone()
            hands = len(state.results)
            state.apply(action)
            if len(state.results) > hands or state.is_over:  # the hand ended: its worth
                ended[d, k] = hand_worth(state, position.current_player)
            else:
                starts.append(state)
                seats.append(position.current_player)
                owners.append((d, k))
    full = rollout_values([s.clone() for s in starts], seats, heuristic)
    for spec in leaves:
        cut = rollout_values([s.clone() for s in starts], seats, heuristic, depth=depth,
                             leaf=leaf_value(spec, name))
        table = {key: (a, b) for key, a, b in zip(owners, full.tolist(), cut.tolist())}
        table.update({key: (v, v) for key, v in ended.items()})
        gains = np.array([(a - table[d, 0][0], b - table[d, 0][1])
                          for (d, k), (a, b) in table.items() if k and (d, 0) in table])
        worse = gains[:, 0] < 0
        print(f"{spec}, depth {depth}: {len(gains)} candidates of {count} positions; "
              f"correlation of gains {np.corrcoef(gains.T)[0, 1]:.3f}; mean gain: full "
              f"{gains[:, 0].mean():+.3f}, leaf {gains[:, 1].mean():+.3f}; called better: "
              f"{(gains[:, 1] > 0).mean():.2f} (full rollouts {(gains[:, 0] > 0).mean():.2f}), "
              f"of the worse {(gains[worse, 1] > 0).mean():.2f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
