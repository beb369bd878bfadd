"""The losses PPO trains with and the loop that fits them: GAE over one episode, the clipped
PPO loss, the imitation loss (the warm start's cross-entropy and value regression), and ``fit``
(epochs of shuffled minibatches under the learner's precision).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from cardagents.ppo.compute import autocast
from cardagents.ppo.net import PolicyNet


def gae(rewards, values, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns of one finished episode (terminal after the last step).

    ``rewards[t]`` is what followed decision ``t``; the value after the last step is 0.
    """
    rewards = np.asarray(rewards, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    advantages = np.zeros_like(rewards)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        next_value = values[t + 1] if t + 1 < len(rewards) else 0.0
        delta = rewards[t] + gamma * next_value - values[t]
        running = delta + gamma * lam * running
        advantages[t] = running
    return advantages, advantages + values


def ppo_loss(net: PolicyNet, obs, masks, actions, old_logp, advantages, returns, *,
             clip: float, vf_coef: float, ent_coef: float, states=None
             ) -> tuple[torch.Tensor, dict]:
    """The clipped PPO objective (to minimize) and its parts.

    loss = -min(r A, clip(r, 1-eps, 1+eps) A) + vf_coef * (V - R)^2 / 2 - ent_coef * H, with
    r = exp(logp - old_logp), averaged over the batch; ``states`` feed a global critic.
    """
    rows, cols, logp_legal, values = net.legal_log_probs(obs, masks, states)
    logp = logp_legal[cols == actions[rows]]  # one legal pair per row is the action taken
    if len(logp) != len(actions):
        raise ValueError("an action taken is not legal under its mask")
    entropy = -torch.zeros(len(actions), dtype=logp_legal.dtype,
                           device=logp_legal.device).index_add(
        0, rows, logp_legal.exp() * logp_legal).mean()
    log_ratio = logp - old_logp
    ratio = log_ratio.exp()
    policy_loss = torch.max(-advantages * ratio,
                            -advantages * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
    value_loss = 0.5 * ((values - returns) ** 2).mean()
    loss = policy_loss + vf_coef * value_loss - ent_coef * entropy
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clip_fraction = ((ratio - 1).abs() > clip).float().mean()
    return loss, {"policy_loss": policy_loss.item(), "value_loss": value_loss.item(),
                  "entropy": entropy.item(), "approx_kl": approx_kl.item(),
                  "clip_fraction": clip_fraction.item()}


def imitation_loss(net: PolicyNet, obs, masks, actions, returns, has_value, *,
                   vf_coef: float, states=None) -> tuple[torch.Tensor, dict]:
    """The warm start's objective (to minimize) and its parts: cross-entropy on the
    demonstrated ``actions`` (the policy at the legal actions only) plus ``vf_coef`` times the
    squared error of the values against ``returns``, on the rows ``has_value`` only."""
    rows, cols, logp, values = net.legal_log_probs(obs, masks, states)
    policy_loss = -logp[cols == actions[rows]].mean()
    weight = has_value.float()
    value_loss = (weight * (values - returns) ** 2).sum() / weight.sum().clamp(min=1)
    return policy_loss + vf_coef * value_loss, {"policy_loss": policy_loss.item(),
                                                "value_loss": value_loss.item()}


def fit(net: nn.Module, optimizer, rows: int, *, epochs: int, minibatch: int,
        generator: torch.Generator, max_grad_norm: float, loss_fn, precision: str = "fp32",
        device_type: str = "cpu") -> dict[str, list]:
    """Minibatch gradient descent, the one loop of imitation and PPO: each epoch visits the
    ``rows`` rows in a fresh random order (``generator``), ``minibatch`` at a time;
    ``loss_fn(index) -> (loss, {name: float})`` gives a minibatch's loss, whose gradient (its
    norm clipped to ``max_grad_norm``) takes one ``optimizer`` step. Returns each named part's
    values, one per minibatch. ``precision="bf16"`` runs the forward passes under bf16
    autocast on ``device_type`` (``cardagents.ppo.compute``): the weights, gradients and optimizer
    state stay float32."""
    stats: dict[str, list] = {}
    for _ in range(epochs):
        order = torch.randperm(rows, generator=generator)
        for start in range(0, rows, minibatch):
            with autocast(precision, device_type):  # the backward runs in the forward's types
                loss, parts = loss_fn(order[start:start + minibatch])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()
            for key, value in parts.items():
                stats.setdefault(key, []).append(value)
    return stats
