"""Who a training run plays against: the names of a config's ``opponents`` mix and the agents
they become.

A mix names the built-in kinds, ``heuristic``, ``random`` and ``frozen`` (the learner's own
snapshots), and any player spec of ``cardagents.specs``: a PPO checkpoint's path, or a search
spec (``pimc``, ``pimc:key=value,...``; a search decides in milliseconds to seconds where a
network takes microseconds, so a search opponent slows collection by orders of magnitude).

``opponent_problem(name, game)`` says what is wrong with a name, before any game is dealt (the
config's checks read it): a file that is no checkpoint, a checkpoint of the other game, one whose
network reads more of the observation than the game gives, a search spec that does not parse.

``make_opponents(names, game, seed, players)`` makes the agents: a checkpoint acts as
``cardagents.ppo.frozen.FrozenPool`` acts for the learner's snapshots (the same code), greedily,
as ``PPOAgent`` plays it in ``python -m cardagents evaluate``; checkpoints of one network shape
share one pool, so that several of them (an agent, its predecessors, its exploiters) cost one
pass a step. Each name maps to ``(agent, snapshot)``, the snapshot being the checkpoint's index
in its pool (-1 for an agent that plays alone).
"""

from __future__ import annotations

import difflib
import os

BUILTIN = ("heuristic", "frozen", "random")
"""the opponent kinds that are not player specs of their own (``frozen``) or that the run
already holds (``heuristic``, ``random``)."""


KINDS = ("an opponent is heuristic, random, frozen, pimc[:key=value,...] or the path of a PPO "
         "checkpoint")


def is_search(name) -> bool:
    """Whether ``name`` is a search spec (``pimc`` or ``pimc:...``)."""
    return isinstance(name, str) and (name == "pimc" or name.startswith("pimc:"))


def opponent_problem(name, game: str) -> str | None:
    """What is wrong with opponent ``name`` for ``game`` (one line), or ``None``: a built-in
    kind, a search spec that makes an agent, or a PPO checkpoint of ``game`` whose observation
    the game still gives."""
    if name in BUILTIN:
        return None
    if not isinstance(name, str) or not name:
        return f"unknown opponent {name!r}: {KINDS}"
    if is_search(name):
        from cardagents.specs import make_agent
        try:
            make_agent(name, game)
        except (ValueError, TypeError) as exc:
            return f"opponent {name!r}: {exc}"
        return None
    if os.path.exists(name):
        from cardagents.ppo.loading import checkpoint_agent
        try:
            checkpoint_agent(name, game)
        except ValueError as exc:  # CheckpointError too: one line saying what is wrong
            return f"opponent {name!r}: {str(exc).removeprefix(name + ': ')}"
        return None
    if os.sep in name or "/" in name or name.endswith(".pt"):
        return f"opponent {name!r}: no such file ({KINDS})"
    close = difflib.get_close_matches(name, BUILTIN + ("pimc",), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown opponent {name!r}{hint}: {KINDS}"


def make_opponents(names, game: str, seed: int, players: dict | None = None) -> dict:
    """``{name: (agent, snapshot)}`` for every name of ``names`` but ``frozen`` (see the module
    docstring): ``players`` gives agents the caller holds already (e.g. its ``heuristic``),
    checkpoints of one network shape share a greedy ``FrozenPool``."""
    players = players or {}
    out: dict = {}
    nets: dict = {}  # network shape -> [(name, net)]
    for name in dict.fromkeys(names):  # in order, once each
        if name == "frozen":
            continue
        if players.get(name) is not None:
            out[name] = (players[name], -1)
        elif name in BUILTIN or is_search(name):
            from cardagents.specs import make_agent
            out[name] = (make_agent(name, game, seed), -1)
        else:
            from cardagents.ppo.loading import checkpoint_agent
            net = checkpoint_agent(name, game).net
            nets.setdefault(_shape(net), []).append((name, net))
    if nets:
        from cardagents.ppo.frozen import FrozenPool
        for group in nets.values():
            pool = FrozenPool([net for _, net in group], seed, greedy=True)
            for index, (name, _) in enumerate(group):
                out[name] = (pool, index)
    return out


def _shape(net) -> tuple:
    """What networks must share to act in one pool: their head, the observation entries they
    read and how they scale them (the pool scales with its first network's), and every
    weight's shape."""
    return (net.head, net.obs_size, tuple(net.scale.tolist()),
            tuple((k, tuple(v.shape)) for k, v in net.state_dict().items()))
