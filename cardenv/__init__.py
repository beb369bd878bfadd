"""cardenv: reinforcement-learning environments for two regional Chinese card games.

- ``cardenv.dagong_v0``: Xianning Dagong (咸宁打拱), a 2-deck climbing game.
- ``cardenv.dabang_v0``: Huludao Dabang (葫芦岛打棒), a 4-deck trick-taking upgrade game.
- ``cardenv.games.make_game(name, **options)``: the rules engines by name, without PettingZoo.
- ``cardenv.single_agent.SingleAgentEnv``: one seat as a single-agent Gymnasium env, the other
  three played inside it.

After ``import cardenv``, ``pettingzoo.make("aec", "cardenv/dagong_v0")`` (or
``"cardenv/dabang_v0"``) and ``gymnasium.make("cardenv/Dagong-v0", seat=0, opponents=...)`` (or
``"cardenv/Dabang-v0"``) work. Each registration waits until its package (PettingZoo,
Gymnasium) is first imported, anywhere, or happens at once if it already is, so that the rules
engines (``cardenv.dagong``, ``cardenv.dabang``, ``cardenv.games``) load without either.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys

__version__ = "0.1.0"

ENVIRONMENTS = {"cardenv/dagong_v0": "cardenv.dagong_v0:env",
                "cardenv/dabang_v0": "cardenv.dabang_v0:env"}
#: Gymnasium ids of ``cardenv.single_agent.SingleAgentEnv`` -> the game each one plays
GYMNASIUM_ENVIRONMENTS = {"cardenv/Dagong-v0": "dagong", "cardenv/Dabang-v0": "dabang"}


def _turn_based(env_id: str):
    """The "parallel" entry of ``env_id``: these games have none, and say so."""
    def refuse(**_):
        raise ValueError(f"{env_id} is turn-based (one seat acts at a time): it has the AEC "
                         f"API only; use pettingzoo.make('aec', {env_id!r})")
    return refuse


def _register_pettingzoo(pettingzoo) -> None:
    for env_id, entry_point in ENVIRONMENTS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=entry_point)
        if env_id not in pettingzoo.parallel_registry:
            pettingzoo.register("parallel", env_id, entry_point=_turn_based(env_id))


def _register_gymnasium(gymnasium) -> None:
    for env_id, game in GYMNASIUM_ENVIRONMENTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="cardenv.single_agent:SingleAgentEnv",
                               kwargs={"game": game})


#: package name -> what registers cardenv's environments in it once it is imported
_REGISTRARS = {"pettingzoo": _register_pettingzoo, "gymnasium": _register_gymnasium}


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """Registers the environments in a package of ``pending`` right after that package is first
    imported (anywhere); leaves ``sys.meta_path`` once none is pending.

    A package leaves ``pending`` when its module has run, not when it is first looked for: a
    bare ``importlib.util.find_spec("gymnasium")`` (how TorchRL and others check that a library
    is there) asks the finders without importing anything, and the import that follows must
    still register."""

    def __init__(self, pending: dict):
        self.pending = dict(pending)
        self._searching: set[str] = set()  # names this finder is looking up itself

    def find_spec(self, name, path=None, target=None):
        if name not in self.pending or name in self._searching:
            return None
        self._searching.add(name)
        try:
            spec = importlib.util.find_spec(name)  # the real module, found the usual way
        finally:
            self._searching.discard(name)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_register(module):
            exec_module(module)
            register = self.pending.pop(name, None)
            if not self.pending and self in sys.meta_path:
                sys.meta_path.remove(self)
            if register is not None:
                register(module)

        spec.loader.exec_module = exec_then_register
        return spec


def _install() -> None:
    pending = {}
    for package, register in _REGISTRARS.items():
        if package in sys.modules:
            register(sys.modules[package])
        else:
            pending[package] = register
    if pending:
        sys.meta_path.insert(0, _RegisterOnImport(pending))


_install()
