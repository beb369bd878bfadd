"""What every cardenv rules engine shares: the game object's plumbing (options, replays, action
descriptions) and the state's (seeding, the tensor buffer, common queries, checking an action,
copying the random generator).

A game subclass sets ``state_class``, ``actions`` (its ``ActionInfo`` list) and ``layout``; a
state subclass implements ``legal_actions``/``legal_mask``, ``is_legal`` and ``_play`` and keeps
``phase`` (``"over"`` at the end), ``current`` and a ``"hand"`` piece in its layout.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.errors import IllegalActionError


def check_seed(seed) -> int:
    """A usable seed: fresh entropy for ``None``, else a non-negative int."""
    if seed is None:
        return int(np.random.SeedSequence().entropy % (2 ** 63))
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    return int(seed)


def generator_from_state(state: dict) -> np.random.Generator:
    """A generator in a saved ``bit_generator.state`` (``ValueError``-family errors if bad)."""
    bits = np.random.PCG64(0)  # seeded: avoids gathering OS entropy for a state we overwrite
    bits.state = state
    return np.random.Generator(bits)


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    return generator_from_state(rng.bit_generator.state)


class CardGame:
    """Options holder that makes, replays and describes states of one game."""

    num_players = 4
    state_class: type
    actions: list
    layout = None
    options: dict

    @property
    def num_actions(self) -> int:
        return len(self.actions)

    @property
    def observation_size(self) -> int:
        return self.layout.observation_size

    @property
    def state_size(self) -> int:
        return self.layout.size

    def action_info(self, action: int):
        """Structured description of an action id (``ActionInfo``: type, ..., ``text``)."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= action < len(self.actions):
            raise ValueError(f"action must be an int in 0..{len(self.actions) - 1}, got "
                             f"{action!r}")
        return self.actions[int(action)]

    def replay(self, seed: int, actions, **kwargs):
        """The state reached by ``actions`` (e.g. ``state.history``) from
        ``new_state(seed, **kwargs)``; ``IllegalActionError`` if one is illegal."""
        state = self.new_state(seed, **kwargs)
        for a in actions:
            state.apply(int(a))
        return state

    def state_from_dict(self, data: dict):
        """A state from ``to_dict()`` output (its own options are used)."""
        return self.state_class.from_dict(data)

    def __repr__(self):
        options = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({options})"


class CardState:
    """Common queries and the action check of a rules state."""

    game: CardGame

    def _init_episode(self, seed) -> None:
        self.seed = check_seed(seed)
        self.rng = np.random.default_rng(self.seed)
        self.buffer = np.zeros(self.game.layout.size, dtype=np.int16)
        self.v = self.game.layout.views(self.buffer)
        self.history: list[int] = []
        self.results: list = []

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def current_player(self) -> int:
        """Seat to act, or -1 when the episode is over."""
        return -1 if self.phase == "over" else self.current

    @property
    def hands(self) -> np.ndarray:
        """``(4, 54)`` copy counts of each seat's hand (a read-only view)."""
        view = self.v["hand"].view()
        view.flags.writeable = False
        return view

    def observation(self, seat: int) -> np.ndarray:
        """What ``seat`` may know, as float32 (layout: the game's ``layout``)."""
        return self.buffer[self.game.layout.observation_index[seat]].astype(np.float32)

    def global_state(self) -> np.ndarray:
        """The full state (every hidden card included) as float32, for centralised critics."""
        return self.buffer.astype(np.float32)

    def apply(self, action: int) -> None:
        """Take ``action`` for the player to act.

        Raises ``IllegalActionError`` (a ``ValueError``) naming the action and the legal ones if
        it is not legal; the state is then unchanged.
        """
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"action must be an int in 0..{self.game.num_actions - 1}, "
                                     f"got {action!r}")
        action = int(action)
        if self.phase == "over":
            raise IllegalActionError("the episode is over; no action is legal")
        if not self.is_legal(action):
            raise IllegalActionError(self._illegal_message(action))
        self._play(action)
        self.history.append(action)

    def _illegal_message(self, action: int) -> str:
        actions = self.game.actions
        what = actions[action].text if 0 <= action < len(actions) else "out of range"
        legal = self.legal_actions()
        shown = ", ".join(f"{a} ({actions[a].text})" for a in legal[:12])
        more = f", ... and {len(legal) - 12} more: {legal[12:]}" if len(legal) > 12 else ""
        return (f"illegal action {action} ({what}) for player_{self.current} in the "
                f"{self.phase} phase; legal actions: {shown}{more}")
