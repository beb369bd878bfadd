"""PPO for cardenv: the policy/value network with masked logits, GAE, the clipped loss, and the
``PPOAgent`` that plays from a checkpoint.

The network reads the observation scaled to [0, 1] by the layout's declared maxima, passes it
through an MLP trunk, and has a policy head (one logit per action; illegal actions are masked to
a large negative number before the softmax) and a value head. With ``critic="global"`` (as in
PerfectDou) the value comes from a separate MLP over the *global* state (every hand: the
engine's ``state()``), which only training needs; the policy, and so every agent playing from a
checkpoint, reads the seat's observation alone.

Checkpoints are plain ``torch.save`` dicts of tensors and plain data: ``{"game", "options",
"net": {"hidden", "critic", "head"}, "model": state_dict, ...}``; ``PPOAgent.load(path)``
rebuilds the agent, reading the file with ``torch.load(weights_only=True)``
(``read_checkpoint``), so that a file passed around cannot run code as it loads, and checking
every entry (``CheckpointError``).
``slim(src, dst)`` keeps only what playing needs (training checkpoints also hold the optimizer
and the frozen pool).
"""

from __future__ import annotations

import pickle

import numpy as np
import torch
from torch import nn

from agents.base import Agent, check_game
from agents.compute import autocast
from cardenv.core.checks import check_bool, check_int
from cardenv.games import make_game

MASKED = -1e9
COLUMN_STEP = 64  # the policy head's columns are taken in multiples of this (_legal_logits)


CRITICS = ("local", "global")
HEADS = ("fixed", "features")
FEATURE_WIDTH = 64  # the features head's context and hidden width
MAX_HIDDEN, MAX_LAYERS = 16384, 16  # a checkpoint's hidden sizes (train.py's bounds)


def game_sizes(game: str) -> tuple[int, int, np.ndarray]:
    """(observation size, number of actions, per-entry maxima) of a game."""
    made = make_game(check_game(game))
    return made.observation_size, made.num_actions, made.observation_high


def make_net(game: str, hidden, critic: str = "local", obs_size: int | None = None,
             state_size: int | None = None, head: str = "fixed") -> "PolicyNet":
    """A fresh ``PolicyNet`` for ``game``: MLP sizes ``hidden``; ``critic`` "local" (value
    head on the policy's trunk) or "global" (a critic MLP over the global state); ``head``
    "fixed" (one logit per action id) or "features" (that, plus a score of what each legal
    action does: the game's ``action_features``). ``obs_size`` / ``state_size``: the input
    sizes of a network trained before pieces were added at the end of the game's layout (it
    reads the leading entries; see ``PPOAgent``)."""
    if critic not in CRITICS:
        raise ValueError(f"critic must be one of {CRITICS}, got {critic!r}")
    if head not in HEADS:
        raise ValueError(f"head must be one of {HEADS}, got {head!r}")
    made = make_game(check_game(game))
    if head == "features" and made.action_features is None:
        raise ValueError(f"head 'features' needs a game with action features; {game} has none")
    return PolicyNet(made.observation_high[:obs_size], made.num_actions, tuple(hidden),
                     state_high=made.state_high[:state_size] if critic == "global" else None,
                     features=made if head == "features" else None)


def _mlp(width: int, hidden) -> tuple[nn.Sequential, int]:
    layers = []
    for size in hidden:
        layers += [nn.Linear(width, size), nn.Tanh()]
        width = size
    return nn.Sequential(*layers), width


# the parameters a features head has beyond a fixed one (PolicyNet.context, .action_score)
FEATURE_KEYS = ("context.", "action_score.")


class PolicyNet(nn.Module):
    """MLP trunk with a masked policy head and a value head; with ``state_high`` (the global
    state's per-entry maxima) the value head sits on a critic MLP of its own over the global
    state instead (``critic == "global"``).

    With ``features`` (a made game with ``action_features``; ``head == "features"``) each legal
    action's logit also gets a score from what the action does in this position: a small MLP
    over the trunk's context and the action's features (the game's ``action_features`` of the
    raw observation, as DouZero and DanZero+ feed their networks each legal action). The
    fixed head still gives each action id its own logit; the score starts near zero, so a
    fresh features network plays like a fixed one."""

    def __init__(self, obs_high, num_actions: int, hidden=(256, 256), state_high=None,
                 features=None):
        super().__init__()
        high = torch.as_tensor(np.asarray(obs_high, dtype=np.float32))
        self.register_buffer("scale", 1.0 / torch.clamp(high, min=1.0))
        self.obs_size = high.numel()
        self.trunk, width = _mlp(high.numel(), hidden)
        self.policy = nn.Linear(width, num_actions)
        self.head = "fixed" if features is None else "features"
        if features is not None:
            self._action_features = features.action_features
            self._features_width = features.observation_size
            size = sum(piece[1] for piece in features.action_feature_pieces)
            self.context = nn.Linear(width, FEATURE_WIDTH)
            self.action_score = nn.Sequential(nn.Linear(FEATURE_WIDTH + size, FEATURE_WIDTH),
                                              nn.Tanh(), nn.Linear(FEATURE_WIDTH, 1))
            nn.init.orthogonal_(self.action_score[2].weight, gain=0.01)
            nn.init.zeros_(self.action_score[2].bias)
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
        features = self._trunk(obs)
        # float32 out whatever the precision inside (bf16 autocast): the softmax, the sampling
        # and the losses work on float32
        logits = self.policy(features).float()
        if self.head == "features":
            rows, cols = mask.nonzero(as_tuple=True)
            logits = logits.index_put((rows, cols), self._scores(obs, features, rows, cols),
                                      accumulate=True)
        logits = logits.masked_fill(~mask, MASKED)
        if self.critic == "global":
            if state is None:
                return logits, None
            features = self._critic(state)
        return logits, self.value(features).squeeze(-1).float()

    def values(self, states: torch.Tensor, chunk: int = 4096) -> torch.Tensor:
        """A global critic's values of ``(B, S)`` global states, ``chunk`` rows at a time, no
        gradients (float32; the caller's autocast applies)."""
        with torch.no_grad():
            return torch.cat([
                self.value(self._critic(states[i:i + chunk])).squeeze(-1).float()
                for i in range(0, len(states), chunk)]) \
                if len(states) else torch.zeros(0)

    def legal_log_probs(self, obs: torch.Tensor, mask: torch.Tensor,
                        state: torch.Tensor | None = None) -> tuple:
        """The policy at the legal actions only, and the value: ``(rows, cols, logp, value)``
        where ``logp[k]`` is ``log pi(cols[k] | obs[rows[k]])`` for every legal pair in
        row-major order -- the same numbers as ``log_softmax(forward(...)[0])`` at those
        places (masked logits are ``MASKED``: their probability is 0), up to float rounding.

        Why: a row has a few legal actions out of hundreds or thousands (Dagong: about 10 of
        2,419 in training), and a minibatch uses only some of the actions at all (2,048 Dagong
        rows: about 830 distinct legal actions; Dabang: about 230 of 404), so the policy head
        is multiplied by those columns alone, a third of the full ``(B, 512) x (512, N)``
        product for Dagong, which was half the update's arithmetic. It stays a matrix
        product, which bf16 speeds up (a gather of each legal pair's row, the way before, did
        not: 124 against 61 ms per Dagong minibatch in bf16, 161 against 107 ms in fp32)."""
        features = self._trunk(obs)
        rows, cols, logits = self._legal_logits(features, mask, obs)
        logp = segment_log_softmax(rows, logits, len(obs))
        if self.critic == "global":
            if state is None:
                return rows, cols, logp, None
            features = self._critic(state)
        return rows, cols, logp, self.value(features).squeeze(-1).float()

    def _critic(self, state: torch.Tensor) -> torch.Tensor:
        """The critic trunk's output; like the policy's trunk it reads the global state's first
        entries, as many as it was made for (a network of an earlier layout)."""
        size = self.state_scale.numel()
        if state.shape[-1] != size:
            state = state[..., :size]
        return self.critic_trunk(state * self.state_scale)

    def _trunk(self, obs: torch.Tensor) -> torch.Tensor:
        """The trunk's output; it reads the observation's first ``obs_size`` entries (a
        features network is given whole observations: the action features read them)."""
        if obs.shape[-1] != self.obs_size:
            obs = obs[..., :self.obs_size]
        return self.trunk(obs * self.scale)

    def _scores(self, obs: torch.Tensor, features: torch.Tensor, rows: torch.Tensor,
                cols: torch.Tensor) -> torch.Tensor:
        """The features head's float32 score of each legal pair ``(rows[j], cols[j])``."""
        table = self.feature_table(obs, rows, cols).to(device=features.device,
                                                      dtype=features.dtype)
        return self.score_pairs(features, rows, table)

    def feature_table(self, obs: torch.Tensor, rows: torch.Tensor,
                      cols: torch.Tensor) -> torch.Tensor:
        """``(P, F)`` float32 on the CPU: the game's features of each legal pair (a features
        head reads whole observations)."""
        if obs.shape[-1] != self._features_width:
            raise ValueError(f"a features head reads whole observations ({self._features_width} "
                             f"entries), got {obs.shape[-1]}")
        return torch.from_numpy(self._action_features(
            obs.detach().float().cpu().numpy(), rows.cpu().numpy(), cols.cpu().numpy()))

    def score_pairs(self, features: torch.Tensor, rows: torch.Tensor,
                    table: torch.Tensor) -> torch.Tensor:
        """The scorer on pairs whose rows' trunk outputs are ``features[rows]`` and whose
        action features are ``table``."""
        context = torch.tanh(self.context(features))[rows]
        return self.action_score(torch.cat([context, table], dim=1)).squeeze(-1).float()

    def _legal_logits(self, features: torch.Tensor, mask: torch.Tensor,
                      obs: torch.Tensor | None = None) -> tuple:
        """``(rows, cols, logits)`` of every legal pair of ``mask``, row-major, the logits in
        float32: the policy head multiplied by the columns legal somewhere in the batch only
        (see ``legal_log_probs``); a features head adds each pair's score (it needs ``obs``)."""
        if not bool(mask.any(-1).all()):
            raise ValueError("a row of the mask has no legal action")
        rows, cols = mask.nonzero(as_tuple=True)
        # torch.unique sorts: the same columns in the same order every time, and each
        # (row, column) pair is met once, so the backward sums nothing in a varying order (a
        # seeded run stays reproducible on several threads)
        used, at = torch.unique(cols, return_inverse=True)
        # a multiple of 64 columns (padded with column 0, whose extra copies get no gradient):
        # a few product shapes, whose kernels bf16 matmuls build once, not one per batch
        used = torch.cat([used, used.new_zeros(-len(used) % COLUMN_STEP)])
        logits = nn.functional.linear(features, self.policy.weight.index_select(0, used),
                                      self.policy.bias.index_select(0, used)).float()[rows, at]
        if self.head == "features":
            logits = logits + self._scores(obs, features, rows, cols)
        return rows, cols, logits

    def act(self, obs, mask, greedy: bool = False, generator: torch.Generator | None = None,
            state=None):
        """Sampled (or greedy: the most likely, the lowest action of equal ones) actions with
        their log-probabilities and values (``None`` for a global critic without
        ``state``), no gradients. Only the legal actions' logits are computed (as in
        ``legal_log_probs``): for Dagong's 2,419 actions, a few hundred columns of the policy
        head per batch."""
        with torch.no_grad():
            features = self._trunk(obs)
            rows, cols, logits = self._legal_logits(features, mask, obs)
            if not bool(torch.isfinite(logits).all()):
                raise RuntimeError("the policy's logits are not finite (a diverged network?)")
            logp = segment_log_softmax(rows, logits, len(obs))
            if greedy:
                score = logp
            else:
                score = logp.double() + exponential_race(len(rows), generator, logp.device)
            pick = segment_first_max(rows, score, len(obs))
            action, logp = cols[pick], logp[pick]
            if self.critic == "global":
                value = None if state is None else \
                    self.value(self._critic(state)).squeeze(-1).float()
            else:
                value = self.value(features).squeeze(-1).float()
        return action, logp, value


def segment_log_softmax(rows: torch.Tensor, logits: torch.Tensor, n: int) -> torch.Tensor:
    """``log_softmax`` of ``logits`` within each row: ``rows[k]`` is the row of entry ``k``
    (``n`` rows, each with at least one entry)."""
    top = torch.full((n,), float("-inf"), dtype=logits.dtype,
                     device=logits.device).scatter_reduce(
        0, rows, logits.detach(), "amax")  # each row's max, for a stable softmax
    shifted = logits - top.index_select(0, rows)
    total = torch.zeros(n, dtype=logits.dtype, device=logits.device).index_add(
        0, rows, shifted.exp())
    return shifted - total.log().index_select(0, rows)


def segment_first_max(rows: torch.Tensor, score: torch.Tensor, n: int) -> torch.Tensor:
    """The index of each row's largest ``score`` (the first of equal ones, entries being in
    row-major order)."""
    best = torch.full((n,), float("-inf"), dtype=score.dtype,
                      device=score.device).scatter_reduce(0, rows, score, "amax")
    index = torch.arange(len(score), device=score.device)
    top = score == best.index_select(0, rows)
    return torch.full((n,), len(score), dtype=torch.int64, device=score.device).scatter_reduce(
        0, rows[top], index[top], "amin")


def exponential_race(count: int, generator: torch.Generator | None = None,
                     device=None) -> torch.Tensor:
    """``-log(E)`` for ``count`` independent ``E ~ Exp(1)`` (float64): added to the log-
    probabilities of a row's entries, its largest sum is a draw from the row's distribution
    (the smallest of independent ``E_k / p_k`` is entry ``k`` with probability ``p_k``; this
    is how ``torch.multinomial`` draws one sample, over every column). Drawn for the legal
    entries only: for Dagong about 10 uniforms a row instead of 2,419."""
    u = torch.rand(count, generator=generator, dtype=torch.float64)
    # u = 0 gives E = 0, a sure pick of a legal entry; the clamp keeps the log finite
    return -torch.log(torch.clamp(-torch.log1p(-u), min=1e-300)).to(device or "cpu")


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


def batch_tensors(batch, device) -> dict:
    """The fields of a collected ``agents.selfplay.Batch`` that the update reads, as tensors on
    ``device``: observations, log-probabilities, values, advantages and returns as float32,
    masks as bool, actions as they are."""
    t = {k: torch.as_tensor(v) for k, v in batch.as_dict().items()
         if k not in ("reward", "lengths")}
    t["obs"], t["mask"] = t["obs"].float(), t["mask"].bool()
    for k in ("logp", "value", "adv", "ret"):
        t[k] = t[k].float()
    return {k: v.to(device) for k, v in t.items()}


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
    autocast on ``device_type`` (``agents.compute``): the weights, gradients and optimizer
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


def on_cpu(value):
    """``value`` with every tensor in it on the CPU (a checkpoint loads anywhere; its weights
    and optimizer state are float32 in any precision)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: on_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(on_cpu(v) for v in value)
    return value



class CheckpointError(ValueError):
    """A file that is not a usable cardenv PPO checkpoint; the message says what is wrong."""


def read_checkpoint(path: str) -> dict:
    """The contents of checkpoint ``path``, read with ``torch.load(weights_only=True)``: tensors
    and plain data (dicts, lists, strings, numbers) only. A file that holds any other pickled
    object is refused before that object is built, so a foreign file cannot run code as it is
    loaded (every checkpoint cardenv writes, the shipped ones included, holds plain data
    only). ``CheckpointError`` for a missing, unreadable or refused file."""
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except IsADirectoryError:
        raise CheckpointError(f"{path} is a folder, not a PPO checkpoint (a run folder holds "
                              f"agent.pt and final.pt)") from None
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no such file") from None
    except pickle.UnpicklingError as exc:
        if "Unsupported global" not in str(exc):  # (junk, not a refused object)
            raise CheckpointError(f"{path} is not a cardenv PPO checkpoint (torch cannot read "
                                  f"it)") from None
        raise CheckpointError(
            f"{path} is refused: it holds Python objects other than tensors and plain data, "
            f"which could run code as they are loaded (a cardenv checkpoint holds none; "
            f"nothing in it was run)") from None
    except Exception as exc:  # noqa: BLE001 -- torch.load raises many kinds on junk
        raise CheckpointError(f"{path} is not a cardenv PPO checkpoint (torch cannot read it: "
                              f"{type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path} is not a cardenv PPO checkpoint: it holds a "
                              f"{type(data).__name__}, not a mapping")
    return data


def slim(src: str, dst: str, half: bool = True) -> None:
    """Write the playing part of checkpoint ``src`` (game, options, sizes, weights) to ``dst``,
    the weights in float16 unless ``half=False`` (half the size; loading restores float32)."""
    data = read_checkpoint(src)
    out = {k: data[k] for k in ("game", "options", "net") if k in data}
    out["model"] = {k: (v.half() if half and v.is_floating_point() else v)
                    for k, v in data["model"].items()}
    torch.save(out, dst)


class PPOAgent(Agent):
    """Plays with a trained ``PolicyNet``: greedy by default, sampling with ``greedy=False``;
    ``precision="bf16"`` acts under bf16 autocast (faster on CPUs with bf16 instructions; a few
    near-ties may then go the other way), float32 by default. The network's weights are float32
    in either case.

    A game's layout only ever grows at its end, so a network trained on an earlier observation
    reads the leading entries of today's (``obs_size``, taken from the network), and keeps
    playing as it was trained."""

    name = "ppo"

    def __init__(self, game: str, net: PolicyNet, greedy: bool = True, seed: int | None = None,
                 precision: str = "fp32"):
        self.game = check_game(game)
        self.net = net.eval()
        self.greedy = check_bool(greedy, "greedy", error=ValueError)
        if not isinstance(precision, str) or precision not in ("fp32", "bf16"):
            raise ValueError(f"precision must be fp32 or bf16, got {precision!r}")
        seed = check_int(seed, "seed", 0, 2 ** 63 - 1, optional=True, error=ValueError)
        self.precision = precision
        self.generator = torch.Generator().manual_seed(0 if seed is None else seed)
        self.obs_size = net.scale.numel()
        current = make_game(self.game).observation_size
        if self.obs_size > current:
            raise ValueError(f"the network reads {self.obs_size} observation entries, more "
                             f"than {self.game}'s {current}: it comes from a newer cardenv")

    def act_batch(self, observations, masks) -> np.ndarray:
        obs = torch.as_tensor(self._observations(observations))
        mask = torch.as_tensor(np.asarray(masks).astype(bool, copy=False))
        with autocast(self.precision):
            action, _, _ = self.net.act(obs, mask, greedy=self.greedy, generator=self.generator)
        return action.numpy()

    def action_probabilities(self, observations, masks) -> np.ndarray:
        """``(B, N)`` float32: the policy's probability of each action (0 where illegal); a
        search agent's prior (``agents.search``, ``top_k``)."""
        observations = self._observations(observations)
        mask = torch.as_tensor(np.asarray(masks).astype(bool, copy=False))
        with torch.no_grad(), autocast(self.precision):
            logits, _ = self.net(torch.as_tensor(observations), mask)
        return torch.softmax(logits.float(), dim=-1).numpy()

    def _observations(self, observations) -> np.ndarray:
        """float32 observations as the network reads them: an earlier layout's prefix for a
        fixed head; whole for a features head (its action features read today's layout)."""
        observations = np.asarray(observations, dtype=np.float32)
        if observations.shape[-1] != self.obs_size and self.net.head == "fixed":
            observations = observations[..., :self.obs_size]
        return observations

    def reseed(self, seed: int) -> None:
        seed = check_int(seed, "seed", 0, 2 ** 63 - 1, error=ValueError)
        self.generator = torch.Generator().manual_seed(seed)

    @classmethod
    def load(cls, path: str, greedy: bool = True, seed: int | None = None,
             precision: str = "fp32") -> "PPOAgent":
        """The agent of checkpoint ``path`` (``read_checkpoint``: tensors and plain data only).
        ``CheckpointError`` (a ``ValueError``) naming what is wrong: not a checkpoint, a
        missing or malformed entry, an unknown game, weights that do not fit the game's
        network (another game's, a wrong shape), or weights that are not finite."""
        data = read_checkpoint(path)

        def bad(what):
            return CheckpointError(f"{path} is not a usable cardenv PPO checkpoint: {what}")

        for key in ("game", "net", "model"):
            if key not in data:
                raise bad(f"it has no {key!r} entry")
        game, net_spec, model = data["game"], data["net"], data["model"]
        if not isinstance(game, str):
            raise bad(f"its game is {game!r}, not a game name")
        try:
            check_game(game)
        except ValueError as exc:
            raise bad(str(exc)) from None
        if not isinstance(net_spec, dict) or "hidden" not in net_spec:
            raise bad("its 'net' entry has no 'hidden' sizes")
        hidden = net_spec["hidden"]
        if not isinstance(hidden, (list, tuple)) or not 1 <= len(hidden) <= MAX_LAYERS or not all(
                isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= MAX_HIDDEN
                for h in hidden):
            raise bad(f"its hidden sizes are {hidden!r}"[:200] + f", not a list of ints "
                      f"(1..{MAX_LAYERS} of them, each 1..{MAX_HIDDEN})")
        critic = net_spec.get("critic", "local")
        if critic not in CRITICS:
            raise bad(f"its critic is {critic!r}, not one of {', '.join(CRITICS)}")
        head = net_spec.get("head", "fixed")  # (checkpoints before issue 35 have no head)
        if head not in HEADS:
            raise bad(f"its head is {head!r}, not one of {', '.join(HEADS)}")
        if not isinstance(model, dict) or not all(
                isinstance(k, str) and torch.is_tensor(v) for k, v in model.items()):
            raise bad("its 'model' entry is not a mapping of names to tensors")
        if "scale" not in model or model["scale"].dim() != 1:
            raise bad("its weights have no observation 'scale'")
        for name, value in model.items():
            if not value.is_floating_point():  # (an int or bool tensor loads silently)
                raise bad(f"weight {name!r} holds {str(value.dtype).removeprefix('torch.')}, not "
                          f"floating-point numbers")
        for name, value in model.items():
            if value.is_floating_point() and not bool(torch.isfinite(value).all()):
                raise bad(f"weight {name!r} holds NaN or infinite values")
        state = model.get("state_scale")
        obs_size = model["scale"].numel()
        current = make_game(game).observation_size
        if obs_size > current:
            raise bad(f"the network reads {obs_size} observation entries, more than {game}'s "
                      f"{current}: it comes from a newer cardenv, or from another game")
        net = make_net(game, tuple(hidden), critic, obs_size=obs_size,
                       state_size=None if state is None else state.numel(), head=head)
        expected = net.state_dict()
        missing = sorted(set(expected) - set(model))
        unexpected = sorted(set(model) - set(expected))
        if missing or unexpected:
            raise bad(f"its weights do not match a {game} network with hidden {list(hidden)} "
                      f"and a {critic} critic (missing {missing[:3]}, unexpected "
                      f"{unexpected[:3]})")
        for name, value in expected.items():
            if tuple(model[name].shape) != tuple(value.shape):
                raise bad(f"weight {name!r} has shape {tuple(model[name].shape)} where a "
                          f"{game} network with hidden {list(hidden)} has "
                          f"{tuple(value.shape)} (another game's network, or damaged)")
        net.load_state_dict({k: v.float() if v.is_floating_point() else v
                             for k, v in model.items()})
        return cls(game, net, greedy, seed, precision)
