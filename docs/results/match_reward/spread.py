"""The match reward against the hand reward on the hands of heuristic-vs-heuristic matches: each
one's spread, their correlation and how often they disagree in sign (docs/match_reward.md).

    python docs/results/match_reward/spread.py [MATCHES] [FIRST_SEED]
"""

import sys

import numpy as np

from cardagents.players.heuristics import heuristic_for
from cardagents.players.lockstep import play_batched
from cardagents.training.rewards.match_value import match_value_for
from cardenv.games import make_game

matches = int(sys.argv[1]) if len(sys.argv) > 1 else 100
first = int(sys.argv[2]) if len(sys.argv) > 2 else 30_000_001
game = make_game("dabang")  # hand_value: the hand episode's reward, whatever the episode mode
mv = match_value_for("match", game)
h = heuristic_for("dabang", 0)
done = play_batched("dabang", lambda j: [h] * 4, range(first, first + matches),
                    {"episode": "match", "max_hands": 80})
hand, match, tribute = [], [], []
for g in done:
    before = ((3, 3), None, 0)
    for r in g.results:
        hand.append(game.hand_value(r, 0))
        match.append(mv.hand_reward(before, r)[0])
        tribute.append(before[2] > 0)
        if r.next_dealer is not None:
            before = (tuple(r.levels_after), r.next_dealer % 2, r.blood)
hand, match, tribute = np.array(hand), np.array(match), np.array(tribute)
both = (hand != 0) & (np.abs(match) > 1e-12)
print(f"{matches} matches, {len(hand)} hands ({tribute.mean():.0%} tribute hands)")
print(f"std: hand reward {hand.std():.3f}, match reward {match.std():.3f}; "
      f"correlation {np.corrcoef(hand, match)[0, 1]:.3f}")
print(f"opposite signs: {np.mean(np.sign(hand[both]) != np.sign(match[both])):.1%} of the "
      f"{both.sum()} hands where both are nonzero; hand reward 0 but match reward not: "
      f"{np.mean((hand == 0) & (np.abs(match) > 1e-12)):.1%} of hands")
