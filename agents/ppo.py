"""PPO for cardenv: the policy/value network with masked logits, GAE, the clipped loss, and the
``PPOAgent`` that plays from a checkpoint.

The network reads the observation scaled to [0, 1] by the layout's declared maxima, passes it
through an MLP trunk, and has a policy head (one logit per action; illegal actions are masked to
a large negative number before the softmax) and a value head. With ``critic="global"`` (as in
PerfectDou) the value comes from a separate MLP over the *global* state (every hand: the
engine's ``state()``), which only training needs; the policy, and so every agent playing from a
checkpoint, reads the seat's observation alone.

Checkpoints are plain ``torch.save`` dicts: ``{"game", "options", "net": {"hidden", "critic"},
"model": state_dict, ...}``; ``PPOAgent.load(path)`` rebuilds the agent. ``slim(src, dst)``
keeps only what playing needs (training checkpoints also hold the optimizer and the frozen
pool).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.base import Agent, check_game
from cardenv.games import make_game

MASKED = -1e9


CRITICS = ("local", "global")


def game_sizes(game: str) -> tuple[int, int, np.ndarray]:
    """(observation size, number of actions, per-entry maxima) of a game."""
    made = make_game(check_game(game))
    return made.observation_size, made.num_actions, made.observation_high


def make_net(game: str, hidden, critic: str = "local", obs_size: int | None = None,
             state_size: int | None = None) -> "PolicyNet":
    """A fresh ``PolicyNet`` for ``game``: MLP sizes ``hidden``; ``critic`` "local" (value
    head on the policy's trunk) or "global" (a critic MLP over the global state). ``obs_size`` /
    ``state_size``: the input sizes of a network trained before pieces were added at the end of
    the game's layout (it reads the leading entries; see ``PPOAgent``)."""
    if critic not in CRITICS:
        raise ValueError(f"critic must be one of {CRITICS}, got {critic!r}")
    made = make_game(check_game(game))
    return PolicyNet(made.observation_high[:obs_size], made.num_actions, tuple(hidden),
                     state_high=made.state_high[:state_size] if critic == "global" else None)


def _mlp(width: int, hidden) -> tuple[nn.Sequential, int]:
    layers = []
    for size in hidden:
        layers += [nn.Linear(width, size), nn.Tanh()]
        width = size
    return nn.Sequential(*layers), width


class PolicyNet(nn.Module):
    """MLP trunk with a masked policy head and a value head; with ``state_high`` (the global
    state's per-entry maxima) the value head sits on a critic MLP of its own over the global
    state instead (``critic == "global"``)."""

    def __init__(self, obs_high, num_actions: int, hidden=(256, 256), state_high=None):
        super().__init__()
        high = torch.as_tensor(np.asarray(obs_high, dtype=np.float32))
        self.register_buffer("scale", 1.0 / torch.clamp(high, min=1.0))
        self.trunk, width = _mlp(high.numel(), hidden)
        self.policy = nn.Linear(width, num_actions)
        self.critic = "local" if state_high is None else "global"
        if state_high is not None:
            state_high = torch.as_tensor(np.asarray(state_high, dtype=np.float32))
            self.register_buffer("state_scale", 1.0 / torch.clamp(state_high, min=1.0))
            self.critic_trunk, _ = _mlp(state_high.numel(), hidden)
        self.value = nn.Linear(width, 1)
        nn.init.orthogonal_(self.policy.weight, gain=0.01)
        nn.init.zeros_(self.policy.bias)
        nn.init.orthogonal_(self.value.weight, gain=1.0)
        nn.init.zeros_(self.value.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor, state: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``(masked logits, value)`` for ``(B, D)`` observations and ``(B, N)`` bool masks; a
        global critic needs ``(B, S)`` global states for the value (``None`` without them)."""
        features = self.trunk(obs * self.scale)
        logits = self.policy(features).masked_fill(~mask, MASKED)
        if self.critic == "global":
            if state is None:
                return logits, None
            features = self.critic_trunk(state * self.state_scale)
        return logits, self.value(features).squeeze(-1)

    def legal_log_probs(self, obs: torch.Tensor, mask: torch.Tensor,
                        state: torch.Tensor | None = None) -> tuple:
        """The policy at the legal actions only, and the value: ``(rows, cols, logp, value)``
        where ``logp[k]`` is ``log pi(cols[k] | obs[rows[k]])`` for every legal pair in
        row-major order -- the same numbers as ``log_softmax(forward(...)[0])`` at those
        places (masked logits are ``MASKED``: their probability is 0), up to float rounding.

        Why: a row has a few legal actions out of thousands (Dagong: 5.7 of 2,419 on average
        in training), so the policy head's rows for the legal actions alone cost a few
        hundredths of the full ``(B, 512) x (512, N)`` product, which was half the update's
        arithmetic (the update runs 2.2x faster). Where more than 1% of the mask is legal
        (Dabang: 9.3 of 404) the gathers cost more than they save and the full product is
        used."""
        features = self.trunk(obs * self.scale)
        rows, cols = mask.nonzero(as_tuple=True)
        if len(rows) * 100 > mask.numel():
            logits = self.policy(features).masked_fill(~mask, MASKED)
            logp = torch.log_softmax(logits, dim=-1)[rows, cols]
        else:
            # index_select, not [] indexing: its backward adds the gradients of repeated
            # indexes in a fixed order (indexing's does not with several threads), so a seeded
            # run stays reproducible
            logits = (features.index_select(0, rows) * self.policy.weight.index_select(0, cols)
                      ).sum(-1) + self.policy.bias.index_select(0, cols)
            top = torch.full((len(obs),), float("-inf"), dtype=logits.dtype).scatter_reduce(
                0, rows, logits.detach(), "amax")  # each row's max, for a stable softmax
            shifted = logits - top.index_select(0, rows)
            total = torch.zeros(len(obs), dtype=logits.dtype).index_add(0, rows,
                                                                         shifted.exp())
            logp = shifted - total.log().index_select(0, rows)
        if self.critic == "global":
            if state is None:
                return rows, cols, logp, None
            features = self.critic_trunk(state * self.state_scale)
        return rows, cols, logp, self.value(features).squeeze(-1)

    def act(self, obs, mask, greedy: bool = False, generator: torch.Generator | None = None,
            state=None):
        """Sampled (or greedy) actions with their log-probabilities and values (``None`` for
        a global critic without ``state``), no gradients."""
        with torch.no_grad():
            logits, value = self(obs, mask, state)
            if greedy:
                action = logits.argmax(dim=-1)
            else:
                action = sample_categorical(torch.softmax(logits, dim=-1), generator)
            logp = torch.log_softmax(logits, dim=-1).gather(-1, action[:, None]).squeeze(-1)
        return action, logp, value


def sample_categorical(probs: torch.Tensor, generator: torch.Generator | None = None
                       ) -> torch.Tensor:
    """One action per row of ``(B, N)`` probabilities: exactly ``torch.multinomial(probs, 1,
    generator=generator).squeeze(-1)`` (same actions, same generator state after), about 3x
    faster on masked rows.

    torch samples one category as ``argmax(probs / q)`` with ``q ~ Exp(1)`` drawn by
    ``exponential_``, i.e. ``float(-log1p(-u))`` from double uniforms ``u``. All the uniforms
    must be drawn to leave the generator where torch leaves it, but the logarithm, the costly
    part, is needed only where ``probs > 0``: elsewhere ``probs / q`` is 0, below the row's
    maximum (a row of probabilities has a positive entry), so the argmax is taken over those
    entries alone, the first of equal maxima winning as in ``argmax``. A ``u`` of exactly 0 (``q
    = 0``, where torch divides by zero) takes the full computation. ``tests/agents/test_ppo.py``
    checks the equality on random masked rows.
    """
    if not bool((probs >= 0).all()):  # multinomial's own check (NaN: a diverged network)
        raise RuntimeError("probability tensor contains either inf, nan or element < 0")
    u = torch.rand(probs.shape, generator=generator, dtype=torch.float64)
    if bool((u == 0).any()):
        return (probs / (-torch.log1p(-u)).to(probs.dtype)).argmax(dim=-1)
    rows, cols = (probs > 0).nonzero(as_tuple=True)
    score = probs[rows, cols] / (-torch.log1p(-u[rows, cols])).to(probs.dtype)
    best = torch.full((len(probs),), float("-inf"), dtype=probs.dtype).scatter_reduce(
        0, rows, score, "amax")
    top = score == best[rows]
    return torch.full((len(probs),), probs.shape[-1], dtype=torch.int64).scatter_reduce(
        0, rows[top], cols[top], "amin")


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
    entropy = -torch.zeros(len(actions), dtype=logp_legal.dtype).index_add(
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


def fit(net: nn.Module, optimizer, rows: int, *, epochs: int, minibatch: int,
        generator: torch.Generator, max_grad_norm: float, loss_fn) -> dict[str, list]:
    """Minibatch gradient descent, the one loop of imitation and PPO: each epoch visits the
    ``rows`` rows in a fresh random order (``generator``), ``minibatch`` at a time;
    ``loss_fn(index) -> (loss, {name: float})`` gives a minibatch's loss, whose gradient (its
    norm clipped to ``max_grad_norm``) takes one ``optimizer`` step. Returns each named part's
    values, one per minibatch."""
    stats: dict[str, list] = {}
    for _ in range(epochs):
        order = torch.randperm(rows, generator=generator)
        for start in range(0, rows, minibatch):
            loss, parts = loss_fn(order[start:start + minibatch])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()
            for key, value in parts.items():
                stats.setdefault(key, []).append(value)
    return stats


def slim(src: str, dst: str, half: bool = True) -> None:
    """Write the playing part of checkpoint ``src`` (game, options, sizes, weights) to ``dst``,
    the weights in float16 unless ``half=False`` (half the size; loading restores float32)."""
    data = torch.load(src, map_location="cpu", weights_only=False)
    out = {k: data[k] for k in ("game", "options", "net") if k in data}
    out["model"] = {k: (v.half() if half and v.is_floating_point() else v)
                    for k, v in data["model"].items()}
    torch.save(out, dst)


class PPOAgent(Agent):
    """Plays with a trained ``PolicyNet``: greedy by default, sampling with ``greedy=False``.

    A game's layout only ever grows at its end, so a network trained on an earlier observation
    reads the leading entries of today's (``obs_size``, taken from the network), and keeps
    playing as it was trained."""

    name = "ppo"

    def __init__(self, game: str, net: PolicyNet, greedy: bool = True, seed: int | None = None):
        self.game = check_game(game)
        self.net = net.eval()
        self.greedy = greedy
        self.generator = torch.Generator().manual_seed(0 if seed is None else seed)
        self.obs_size = net.scale.numel()
        current = make_game(self.game).observation_size
        if self.obs_size > current:
            raise ValueError(f"the network reads {self.obs_size} observation entries, more "
                             f"than {self.game}'s {current}: it comes from a newer cardenv")

    def act_batch(self, observations, masks) -> np.ndarray:
        observations = np.asarray(observations, dtype=np.float32)
        if observations.shape[-1] != self.obs_size:
            observations = observations[..., :self.obs_size]  # an earlier layout's prefix
        obs = torch.as_tensor(observations)
        mask = torch.as_tensor(np.asarray(masks).astype(bool, copy=False))
        action, _, _ = self.net.act(obs, mask, greedy=self.greedy, generator=self.generator)
        return action.numpy()

    def reseed(self, seed: int) -> None:
        self.generator = torch.Generator().manual_seed(seed)

    @classmethod
    def load(cls, path: str, greedy: bool = True, seed: int | None = None) -> "PPOAgent":
        try:
            data = torch.load(path, map_location="cpu", weights_only=False)
        except IsADirectoryError:
            raise ValueError(f"{path} is a folder, not a PPO checkpoint (a run folder holds "
                             f"agent.pt and final.pt)") from None
        except Exception as exc:  # noqa: BLE001 -- torch.load raises many kinds on junk
            raise ValueError(f"{path} is not a cardenv PPO checkpoint (torch cannot read it: "
                             f"{type(exc).__name__})") from None
        try:
            game, hidden = data["game"], tuple(data["net"]["hidden"])
            critic = data["net"].get("critic", "local")
        except (KeyError, TypeError, AttributeError):
            raise ValueError(f"{path} is not a cardenv PPO checkpoint") from None
        model = data["model"]
        state = model.get("state_scale")
        net = make_net(game, hidden, critic, obs_size=model["scale"].numel(),
                       state_size=None if state is None else state.numel())
        net.load_state_dict({k: v.float() if v.is_floating_point() else v
                             for k, v in model.items()})
        return cls(game, net, greedy, seed)
