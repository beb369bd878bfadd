"""PPO checkpoints and the agent that plays from one.

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

from cardagents.players.base import Agent, check_game
from cardagents.ppo.compute import autocast
from cardagents.ppo.net import CRITICS, HEADS, MAX_HIDDEN, MAX_LAYERS, PolicyNet, make_net
from cardenv.core.checks import check_bool, check_int
from cardenv.games import make_game


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
        search agent's prior (``cardagents.search.pimc``, ``top_k``)."""
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
