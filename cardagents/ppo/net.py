"""The PPO policy/value network (``PolicyNet``, built for a game by ``make_net``) and the tensor
operations its head needs: masked logits over legal columns, log-softmax and first-max by
segment, and sampling by an exponential race.

The network reads the observation scaled to [0, 1] by the layout's declared maxima, passes it
through an MLP trunk, and has a policy head (one logit per action; illegal actions are masked to
a large negative number before the softmax) and a value head. With ``critic="global"`` (as in
PerfectDou) the value comes from a separate MLP over the *global* state (every hand: the
engine's ``state()``), which only training needs; the policy, and so every agent playing from a
checkpoint, reads the seat's observation alone. With ``head="features"`` each legal action's
logit also gets a score of what the action does (the game's ``action_features``). With
``critic="relative"`` the global critic reads that state as the seat to act would hold it if it
saw everything (``Layout.seat_state_index``: every seat axis rotated so that row 0 is the seat to
act, which the state's ``turn`` piece tells), so that one function values every seat; a
"global" critic reads the seats as the engine numbers them and must learn each seat's value
apart (where partnerships change from hand to hand, as in Dagong, that is most of its job).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from cardagents.players.base import check_game
from cardenv.games import make_game

MASKED = -1e9
COLUMN_STEP = 64  # the policy head's columns are taken in multiples of this (_legal_logits)


CRITICS = ("local", "global", "relative")
STATE_CRITICS = ("global", "relative")  # the critics that read the global state
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
    head on the policy's trunk), "global" (a critic MLP over the global state) or "relative"
    (the same over the global state seen from the seat to act); ``head``
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
    relative = None
    if critic == "relative":
        if state_size is not None and state_size != made.state_size:
            raise ValueError(f"a relative critic reads the whole global state ({made.state_size} "
                             f"entries), not its first {state_size}")
        relative = (made.layout.seat_state_index(), made.layout.turn_span())
    return PolicyNet(made.observation_high[:obs_size], made.num_actions, tuple(hidden),
                     state_high=made.state_high[:state_size] if critic != "local" else None,
                     features=made if head == "features" else None, relative=relative)


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
                 features=None, relative=None):
        super().__init__()
        high = torch.as_tensor(np.asarray(obs_high, dtype=np.float32))
        self.register_buffer("scale", 1.0 / torch.clamp(high, min=1.0))
        self.obs_size = high.numel()
        self.hidden = [int(h) for h in hidden]  # the trunk's (and a global critic's) sizes
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
        self.critic = "local" if state_high is None else \
            "global" if relative is None else "relative"
        if relative is not None:  # (seat_state_index, turn_span): made again on load, not saved
            index, (self._turn, self._turn_end) = relative
            self.register_buffer("state_index", torch.as_tensor(index, dtype=torch.int64),
                                 persistent=False)
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
        if self.critic != "local":
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
        if self.critic != "local":
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
        state = state * self.state_scale
        if self.critic == "relative":  # each row seen from its seat to act
            seat = state[:, self._turn:self._turn_end].argmax(dim=-1)
            state = torch.gather(state, 1, self.state_index[seat])
        return self.critic_trunk(state)

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
            if self.critic != "local":
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
