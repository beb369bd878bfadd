"""The learner's frozen snapshots (self-play's ``frozen`` opponents) acting as one player.

Self-play seats each game's frozen opponent from a pool of up to ``pool_size`` snapshots of the
learner. Acting snapshot by snapshot costs one forward pass per snapshot per step, each on a
handful of rows, and a pass costs about the same whatever its rows: with Dagong's 30% frozen
games the collection ran at a third of its rate without snapshots. ``FrozenPool`` stacks the
snapshots' weights and sends every frozen row of a step through one set of batched matrix
products (``torch.baddbmm``, rows padded per snapshot): one pass whatever the pool's size.

Each row acts exactly as its snapshot's ``PolicyNet.act`` would in float32 (the same legal
logits, the same sampling by an exponential race); a test holds the two equal. The snapshots
act in float32 whatever the learner's precision: they only choose moves (no log-probabilities
are learnt from), and at a few rows a step bf16 saves nothing. A features head's scorer (a small
MLP per legal pair) runs snapshot by snapshot on the pairs of its rows, over features computed
once for the batch.

The same pool plays the PPO checkpoints a training config names as opponents
(``cardagents.training.opponents``): there each snapshot is a checkpoint's network, acting
greedily as ``PPOAgent`` plays it by default (``greedy=True``), and checkpoints of one network
shape share a pool, so that a mix of several (an agent, its predecessors, its exploiters) costs
one pass a step.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from cardagents.ppo.net import PolicyNet, exponential_race, segment_first_max, segment_log_softmax


class FrozenPool:
    """Snapshots of one network shape, acting together.

    Args:
        nets: the snapshots (``PolicyNet`` of one shape), index ``k`` being snapshot ``k``.
        seed: seeds the sampling of their actions (one generator for the pool).
        greedy: each row plays its snapshot's most likely action (the lowest of equal ones,
            as ``PolicyNet.act(greedy=True)``) instead of a sampled one.
    """

    def __init__(self, nets: list[PolicyNet], seed: int, greedy: bool = False):
        if not nets:
            raise ValueError("a pool needs at least one snapshot")
        self.scale = nets[0].scale
        # the trunks read the observation's first obs_size entries (a network of an earlier
        # layout); a features head scores each legal pair with the whole observation's
        # features (PolicyNet._scores), snapshot by snapshot
        self.obs_size = nets[0].obs_size
        self.nets = nets if nets[0].head == "features" else None
        layers = [[m for m in net.trunk if isinstance(m, nn.Linear)] for net in nets]
        with torch.no_grad():
            # layer by layer: (K, in, out) weights and (K, 1, out) biases
            self.layers = [(torch.stack([ls[i].weight.t() for ls in layers]).contiguous(),
                            torch.stack([ls[i].bias for ls in layers]).unsqueeze(1))
                           for i in range(len(layers[0]))]
            self.head_weight = torch.stack([net.policy.weight for net in nets])  # (K, A, W)
            self.head_bias = torch.stack([net.policy.bias for net in nets])  # (K, A)
        self.generator = torch.Generator().manual_seed(seed)
        self.greedy = bool(greedy)

    def __len__(self) -> int:
        return len(self.head_weight)

    def act_batch(self, observations, masks, which=None) -> np.ndarray:
        """Sampled (``greedy``: most likely) actions of rows ``observations``/``masks``, row
        ``r`` played by snapshot ``which[r]`` (``None``: every row by snapshot 0)."""
        if which is None:
            which = np.zeros(len(masks), dtype=np.int64)
        which = torch.as_tensor(np.asarray(which, dtype=np.int64))
        mask = torch.as_tensor(np.asarray(masks).astype(bool, copy=False))
        if not bool(mask.any(-1).all()):
            raise ValueError("a row of the mask has no legal action")
        n, k = len(which), len(self)
        # the learner's autocast region (collection) does not reach in here: float32 throughout
        with torch.no_grad(), torch.autocast("cpu", enabled=False):
            whole = torch.as_tensor(np.asarray(observations, dtype=np.float32))
            x = whole[:, :self.obs_size] * self.scale
            counts = torch.bincount(which, minlength=k)
            order = torch.argsort(which, stable=True)
            # each row's place in its snapshot's block of the padded (K, m, D) batch
            slot = torch.empty(n, dtype=torch.int64)
            slot[order] = torch.arange(n) - (torch.cumsum(counts, 0) - counts)[which[order]]
            h = x.new_zeros(k, int(counts.max()), x.shape[1])
            h[which, slot] = x
            for weight, bias in self.layers:
                h = torch.tanh(torch.baddbmm(bias, h, weight))
            # the policy head at the columns legal somewhere in the batch (as PolicyNet.act)
            rows, cols = mask.nonzero(as_tuple=True)
            used, at = torch.unique(cols, return_inverse=True)
            logits = torch.baddbmm(self.head_bias.index_select(1, used).unsqueeze(1), h,
                                   self.head_weight.index_select(1, used).transpose(1, 2))
            logits = logits[which[rows], slot[rows], at]
            if self.nets is not None:
                logits = logits + self._scores(whole, h[which, slot], which, rows, cols)
            if not bool(torch.isfinite(logits).all()):
                raise RuntimeError("a snapshot's logits are not finite (a diverged network?)")
            logp = segment_log_softmax(rows, logits, n)
            score = logp if self.greedy else \
                logp.double() + exponential_race(len(rows), self.generator)
            return cols[segment_first_max(rows, score, n)].numpy()

    def _scores(self, obs, features, which, rows, cols) -> torch.Tensor:
        """Each legal pair's features-head score by its row's snapshot: the game's features
        once for all pairs, each snapshot's scorer on its own rows' pairs."""
        table = self.nets[0].feature_table(obs, rows, cols)
        scores = torch.zeros(len(rows))
        owner = which[rows]
        for k in torch.unique(owner).tolist():
            pairs = (owner == k).nonzero(as_tuple=True)[0]
            scores[pairs] = self.nets[k].score_pairs(features, rows[pairs], table[pairs])
        return scores
