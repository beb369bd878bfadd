"""cardenv: reinforcement-learning environments for two regional Chinese card games.

- ``cardenv.dagong_v0``: Xianning Dagong (咸宁打拱), a 2-deck climbing game.
- ``cardenv.dabang_v0``: Huludao Dabang (葫芦岛打棒), a 4-deck trick-taking upgrade game.
- ``cardenv.games.make_game(name, **options)``: the rules engines by name, without PettingZoo.

After ``import cardenv``, ``pettingzoo.make("aec", "cardenv/dagong_v0")`` (or
``"cardenv/dabang_v0"``) works. The registration waits until PettingZoo is imported, so that
the rules engines (``cardenv.dagong``, ``cardenv.dabang``, ``cardenv.games``) load without it.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys

__version__ = "0.1.0"

ENVIRONMENTS = {"cardenv/dagong_v0": "cardenv.dagong_v0:env",
                "cardenv/dabang_v0": "cardenv.dabang_v0:env"}


def _turn_based(env_id: str):
    """The "parallel" entry of ``env_id``: these games have none, and say so."""
    def refuse(**_):
        raise ValueError(f"{env_id} is turn-based (one seat acts at a time): it has the AEC "
                         f"API only; use pettingzoo.make('aec', {env_id!r})")
    return refuse


def _register(pettingzoo) -> None:
    for env_id, entry_point in ENVIRONMENTS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=entry_point)
        if env_id not in pettingzoo.parallel_registry:
            pettingzoo.register("parallel", env_id, entry_point=_turn_based(env_id))


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """Registers the environments right after ``pettingzoo`` is first imported (anywhere)."""

    def find_spec(self, name, path=None, target=None):
        if name != "pettingzoo":
            return None
        sys.meta_path.remove(self)  # one shot: find the real module the usual way
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_register(module):
            exec_module(module)
            _register(module)

        spec.loader.exec_module = exec_then_register
        return spec


if "pettingzoo" in sys.modules:
    _register(sys.modules["pettingzoo"])
else:
    sys.meta_path.insert(0, _RegisterOnImport())
