"""Probe (issue 43, item 5): the shipped Dagong agent with only its 硬牌 (going-solo) decisions made
by a PIMC search over itself, against the heuristic, beside the agent alone on the same pairs.

Run from the repository root: ``python docs/results/issue43/dagong_solo_search_probe.py DEALS
[SEED [SPEC]]`` (200 pairs from seed 0 took about 2 min on 2 cores).
"""

import json
import sys
import time

import numpy as np
import torch

from cardagents.evaluation.evaluate import duplicate
from cardagents.players.base import Agent
from cardagents.specs import make_agent

P = "checkpoints/dagong_ppo.pt"


class Hybrid(Agent):
    """PPO everywhere but the 硬牌 phase, where the search decides."""

    game = "dagong"
    name = "hybrid"
    needs_state = True

    def __init__(self, ppo, search):
        self.ppo, self.search, self.searched, self.changed = ppo, search, 0, 0

    def reseed(self, seed):
        self.ppo.reseed(seed)
        self.search.reseed(seed)

    def _ppo(self, states, rows):
        obs = np.stack([states[i].observation(states[i].current_player) for i in rows])
        masks = np.stack([states[i].legal_mask() for i in rows])
        return self.ppo.act_batch(obs, masks)

    def act_states(self, states):
        out = np.empty(len(states), np.int64)
        solo = [i for i, s in enumerate(states) if s.phase == "solo"]
        other = [i for i, s in enumerate(states) if s.phase != "solo"]
        if other:
            out[other] = self._ppo(states, other)
        if solo:
            picked = self.search.act_states([states[i] for i in solo])
            self.searched += len(solo)
            self.changed += int((picked != self._ppo(states, solo)).sum())
            out[solo] = picked
        return out


def main():
    torch.set_num_threads(1)
    deals = int(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    spec = sys.argv[3] if len(sys.argv) > 3 else f"pimc:strong,rollout={P},prior={P}"
    start = time.time()
    alone = duplicate("dagong", make_agent(P, "dagong"), make_agent("heuristic", "dagong"), deals,
                      seed=seed)
    print("PPO vs heuristic", round(alone["win_rate"], 4), alone["win_rate_ci95"],
          f"{time.time() - start:.0f} s", flush=True)
    hybrid = Hybrid(make_agent(P, "dagong"), make_agent(spec, "dagong"))
    start = time.time()
    both = duplicate("dagong", hybrid, make_agent("heuristic", "dagong"), deals, seed=seed)
    print("hybrid vs heuristic", round(both["win_rate"], 4), both["win_rate_ci95"],
          f"{time.time() - start:.0f} s; 硬牌 decisions searched {hybrid.searched}, changed "
          f"{hybrid.changed}")
    with open(f"dagong_solo_search_probe_{deals}_{seed}.json", "w") as f:
        json.dump({"ppo": alone, "hybrid": both, "searched": hybrid.searched,
                   "changed": hybrid.changed}, f, default=float)


if __name__ == "__main__":
    main()
