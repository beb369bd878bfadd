"""cardenv: reinforcement-learning environments for two regional Chinese card games.

- ``cardenv.dagong_v0``: Xianning Dagong (咸宁打拱), a 2-deck climbing game.
- ``cardenv.dabang_v0``: Huludao Dabang (葫芦岛打棒), a 4-deck trick-taking upgrade game.

Importing ``cardenv`` registers the environments with PettingZoo's registry, so that
``pettingzoo.make("aec", "cardenv/dagong_v0")`` (or ``"cardenv/dabang_v0"``) works after
``import cardenv``.
"""

from pettingzoo import register as _register

__version__ = "0.1.0"

_register("aec", "cardenv/dagong_v0", entry_point="cardenv.dagong_v0:env")
_register("aec", "cardenv/dabang_v0", entry_point="cardenv.dabang_v0:env")
