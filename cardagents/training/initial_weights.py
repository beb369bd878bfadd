"""The weights a new training run starts from (the config's ``init``: a PPO checkpoint's path),
and the network surgery that loads them into the run's network (``InitialWeights``): the
checkpoint's layout sizes (a checkpoint of an earlier observation layout is read through that
layout's prefix: layouts only grow at their end), and a fixed-head checkpoint grown into a
``head: features`` network, its action scorer added at zero so that the new network plays
exactly as the checkpoint did until PPO moves it. With ``widen`` the run reads today's whole
observation and global state instead of the checkpoint's prefixes: the first layers' columns for
the entries the checkpoint never read start at zero (the same function again), so PPO can learn
to use pieces added after the checkpoint was trained.
"""

from __future__ import annotations

import torch

from cardagents.ppo.agent import CheckpointError, PPOAgent
from cardagents.ppo.net import FEATURE_KEYS
from cardenv.core.errors import ConfigError

__all__ = ["InitialWeights"]


class InitialWeights:
    """The PPO checkpoint at ``path`` as the start of a run of ``game``."""

    def __init__(self, path: str, game: str, widen: bool = False):
        self.path, self.game, self.widen = path, game, widen

    def sizes(self, observation_size: int | None, critic: str = "global"
              ) -> tuple[int | None, int | None]:
        """The observation and global-state sizes the checkpoint reads (``None``: today's;
        ``observation_size``, the config's, where the checkpoint does not load: ``load_into``
        then says what is wrong; with ``widen``, today's). A ``relative`` critic (the run's
        ``critic``) reads today's whole state: one of another view starts fresh anyway."""
        if self.widen:
            return observation_size, None
        try:
            net = PPOAgent.load(self.path).net
        except CheckpointError:
            return observation_size, None
        state = getattr(net, "state_scale", None)
        whole = state is None or critic == "relative"
        return net.scale.numel(), None if whole else state.numel()

    def load_into(self, net, hidden, critic: str, device) -> None:
        """Load the checkpoint's weights into ``net`` (on ``device``); its network must be the
        run's (``hidden`` sizes and ``critic`` are the config's, named in the error): else one
        ``ConfigError`` line. A fixed-head checkpoint may start a ``head: features`` network
        (its scorer added at zero: the same policy to begin with)."""
        path = self.path
        try:
            agent = PPOAgent.load(path)
        except CheckpointError as exc:
            raise ConfigError(f"config: init {path}: {exc}") from None
        if agent.game != self.game:
            raise ConfigError(f"config: init {path}: it plays {agent.game}, not {self.game}")
        weights, mine = agent.net.state_dict(), net.state_dict()
        # a fixed-head checkpoint may start a features head: its weights fill everything but
        # the action scorer, whose last layer starts at zero
        grown = (agent.net.head == "fixed" and net.head == "features"
                 and set(mine) - set(weights) == {k for k in mine if k.startswith(FEATURE_KEYS)})
        if grown:
            weights = {**{k: v for k, v in mine.items() if k.startswith(FEATURE_KEYS)},
                       **weights}
            last = f"action_score.{len(net.action_score) - 1}."
            weights = {k: torch.zeros_like(v) if k.startswith(last) else v
                       for k, v in weights.items()}
        widened = self.widen and _widen(weights, mine)
        # a critic that reads the state from another view (global <-> relative) learned another
        # function of the same inputs: the run's critic starts fresh, the policy from the file
        fresh = agent.net.critic != net.critic and "local" not in (agent.net.critic, net.critic)
        if fresh:
            weights.update({k: v for k, v in mine.items()
                            if k.startswith(("critic_trunk.", "value.")) or k == "state_scale"})
        if set(weights) != set(mine) or any(weights[k].shape != mine[k].shape for k in mine):
            raise ConfigError(f"config: init {path}: a network with hidden {agent.net.hidden} "
                              f"and a {agent.net.critic} critic over another observation or "
                              f"other sizes than the config's (hidden {list(hidden)}, critic "
                              f"{critic})")
        net.load_state_dict({k: v.to(device) for k, v in weights.items()})
        print(f"starting from the weights of {path}"
              + (" (its fixed head; the action scorer starts at zero)" if grown else "")
              + (f" (widened to read {widened}; the new entries' weights start at zero)"
                 if widened else "")
              + (f" (its {agent.net.critic} critic left out: the run's {net.critic} critic "
                 f"starts fresh)" if fresh else ""), flush=True)


# each first layer that reads an input, and the buffer that scales that input
_INPUTS = (("trunk.0.weight", "scale"), ("critic_trunk.0.weight", "state_scale"))


def _widen(weights: dict, mine: dict) -> str:
    """Grow, in ``weights`` (a checkpoint's state dict), each first layer that reads a prefix of
    the input ``mine`` (the run's network) reads: zero columns for the entries after the prefix.
    The prefix keeps the checkpoint's scale (the maxima it was trained with, as a run reading
    the prefix does), the new entries take the run's. Returns what was widened, in words (""
    where nothing was); other shapes are left for the shape check to refuse."""
    done = []
    for layer, scale in _INPUTS:
        if layer not in weights or layer not in mine:
            continue
        old, new = weights[layer], mine[layer]
        n, size = old.shape[1], new.shape[1]
        if old.shape[0] != new.shape[0] or n >= size:
            continue
        grown = torch.zeros_like(new, dtype=old.dtype)
        grown[:, :n] = old
        weights[layer] = grown
        weights[scale] = torch.cat([weights[scale],
                                    mine[scale][n:].to(weights[scale].dtype)])
        done.append(f"{'observation' if scale == 'scale' else 'state'} {n} -> {size}")
    return ", ".join(done)
