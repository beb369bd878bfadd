"""What every cardenv rules engine shares: the game object's plumbing (options, replays, action
descriptions) and the state's (seeding, the tensor buffer, common queries, checking an action,
copying the random generator, and the skeleton of ``clone`` / ``to_dict`` / ``from_dict``).

A game subclass sets ``state_class``, ``actions`` (its ``ActionInfo`` list) and ``layout``; a
state subclass implements ``legal_actions``/``legal_mask``, ``is_legal`` and ``_play`` and keeps
``phase`` (``"over"`` at the end), ``current`` and a ``"hand"`` piece in its layout.

Copies and saved states: ``CardState`` copies, writes and reads what every state has (seed,
history, hand results, the tensor buffer, the random generator, the options) and calls the
subclass's hooks for the rest:

- ``_copy_fields(new)``: copy the game's own fields into the blank ``new`` (``clone``), other
  than those named in ``SHARED`` (never changed in place, so the copy shares them);
- ``_save_fields() -> dict``: the game's own fields, JSON-compatible (``to_dict``);
- ``_load_fields(data)``: read them back, checking each field's type and range and raising
  ``StateError`` naming the field; then ``_check_consistency()`` checks the fields against each
  other and against the buffer (cards conserved, derived values agreeing) (``from_dict``);
- ``_load_result(data)``: one hand result from its dict.

A subclass names its save format in ``FORMAT`` (``"cardenv.<game>.state/<version>"``) and the
keys its hooks write in ``FIELDS``; ``OLD_FORMATS`` maps formats it no longer reads to the reason.
``REPLAYED_FORMATS`` maps an older format that differs only by pieces added at the end of the
layout to its buffer size: such a state is read by replaying its seed and history, and accepted
only if the replay gives back its buffer (that prefix), results, history and generator (a
custom deal cannot be replayed, and says so).
"""

from __future__ import annotations

import numpy as np

from cardenv.core.checks import (check_array, check_generator_state, check_int, check_int_list,
                                  is_int)
from cardenv.core.errors import ConfigError, IllegalActionError, StateError

MAX_SEED = 2 ** 63 - 1
COMMON_KEYS = ("format", "options", "seed", "history", "results", "buffer", "rng")


def check_seed(seed) -> int:
    """A usable seed: fresh entropy for ``None``, else a non-negative int."""
    if seed is None:
        return int(np.random.SeedSequence().entropy % (2 ** 63))
    return check_int(seed, "seed", 0, MAX_SEED, error=ValueError)


def generator_from_state(state: dict) -> np.random.Generator:
    """A generator in a saved ``bit_generator.state`` (``ValueError``-family errors if bad)."""
    bits = np.random.PCG64(0)  # seeded: avoids gathering OS entropy for a state we overwrite
    bits.state = state
    return np.random.Generator(bits)


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    return generator_from_state(rng.bit_generator.state)


class CardGame:
    """Options holder that makes, replays and describes states of one game; implements the
    ``core.protocol.Game`` contract (the batched queries default to one state at a time; a game
    overrides ``legal_masks`` with its vectorized core)."""

    name: str = ""  # the registry name
    num_players = 4
    state_class: type
    actions: list
    layout = None
    options: dict
    # a class stepping many states of this game in numpy (cardenv.vector's SlotBatch interface);
    # None: cardenv.vector.VectorGame steps each state by its own apply
    batch_engine = None

    @property
    def num_actions(self) -> int:
        return len(self.actions)

    @property
    def observation_size(self) -> int:
        return self.layout.observation_size

    @property
    def state_size(self) -> int:
        return self.layout.size

    @property
    def observation_high(self) -> np.ndarray:
        """``(observation_size,)`` float32: the largest value each observation entry takes."""
        return self.layout.observation_high

    @property
    def state_high(self) -> np.ndarray:
        """``(state_size,)`` float32: the largest value each global-state entry takes."""
        return self.layout.state_high

    def legal_masks(self, states) -> np.ndarray:
        """``(B, num_actions)`` bool legal masks of the seats to act (all False once over)."""
        masks = np.zeros((len(states), self.num_actions), dtype=bool)
        for i, state in enumerate(states):
            if not state.is_over:
                masks[i] = state.legal_mask()
        return masks

    def observations(self, states, seats=None) -> np.ndarray:
        """``(B, observation_size)`` float32 observations of ``seats`` (default: the seats to
        act; a finished state's seat 0), one gather over the stacked buffers."""
        buffers = np.stack([s.buffer for s in states])
        if seats is None:
            seats = [max(s.current_player, 0) for s in states]
        seats = np.asarray(seats, dtype=np.int64)
        out = np.empty((len(states), self.observation_size), dtype=np.float32)
        # one gather per seat with a shared column index: 4x faster at batch 1024 than one
        # take_along_axis with a (B, D) index
        for seat, index in enumerate(self.layout.observation_index):
            rows = np.flatnonzero(seats == seat)
            if rows.size:
                out[rows] = buffers[rows][:, index]
        return out

    def global_states(self, states) -> np.ndarray:
        """``(B, state_size)`` float32 global states."""
        return np.stack([s.buffer for s in states]).astype(np.float32)

    def sides(self, state) -> tuple[list[int], list[int]]:
        """The two sides of the hand about to be played, as dealt."""
        raise NotImplementedError

    def action_info(self, action: int):
        """Structured description of an action id (``ActionInfo``: type, ..., ``text``)."""
        return self.actions[check_int(action, "action", 0, len(self.actions) - 1,
                                      error=ValueError)]

    def options_dict(self) -> dict:
        """The options as plain JSON values (tuples as lists)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()}

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
    truncated = False  # over by an episode limit (Dabang's max_hands), not by the rules

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
        seat = check_int(seat, "seat", 0, self.game.num_players - 1, error=ValueError)
        return self.buffer[self.game.layout.observation_index[seat]].astype(np.float32)

    def global_state(self) -> np.ndarray:
        """The full state (every hidden card included) as float32, for centralised critics."""
        return self.buffer.astype(np.float32)

    def apply(self, action: int) -> None:
        """Take ``action`` for the player to act.

        Raises ``IllegalActionError`` (a ``ValueError``) naming the action and the legal ones if
        it is not legal; the state is then unchanged.
        """
        if not is_int(action):
            raise IllegalActionError(f"action must be an int in 0..{self.game.num_actions - 1}, "
                                     f"got {action!r}")
        action = int(action)
        if self.phase == "over":
            raise IllegalActionError("the episode is over; no action is legal")
        if not self.is_legal(action):
            raise IllegalActionError(self._illegal_message(action))
        self.apply_unchecked(action)

    def apply_unchecked(self, action: int) -> None:
        """Take ``action`` (an int) for the player to act without checking it, and append it
        to ``history``: ``apply`` for an action known to be legal (a batched engine checked
        it against its mask). An illegal one leaves the state in an undefined position."""
        self._play(action)
        self.history.append(action)

    # The sync API of the batched engines (``core.protocol.BatchEngine``): an engine steps the
    # common phase of many states in its own arrays, writes the states' public fields back
    # when they are read (``history`` included: it appends the actions it stepped), then says
    # so with ``position_changed``; it hands the states the rarer moves through
    # ``apply_unchecked`` (and the game's own public steps, e.g. ``DagongState.end_hand``).

    _given = None  # a legal mask handed over by use_legal, until the position changes

    def use_legal(self, mask: np.ndarray) -> None:
        """Take the player's legal mask as computed elsewhere (the game's batched legality
        over many states), so that ``apply`` checks against it instead of computing it again.
        The caller vouches that it is exact: the tests compare both paths."""
        self._given = np.array(mask, dtype=bool)  # its own copy: callers may edit theirs

    def position_changed(self) -> None:
        """Say that the position's fields were written from outside (a batched engine's
        steps): drop what the state cached about the position it held (a mask given by
        ``use_legal``; a game's state adds its own caches)."""
        self._given = None

    def _illegal_message(self, action: int) -> str:
        actions = self.game.actions
        what = actions[action].text if 0 <= action < len(actions) else "out of range"
        legal = self.legal_actions()
        shown = ", ".join(f"{a} ({actions[a].text})" for a in legal[:12])
        more = f", ... and {len(legal) - 12} more: {legal[12:]}" if len(legal) > 12 else ""
        try:
            reason = self.why_illegal(action) if 0 <= action < len(actions) else None
        except Exception:  # noqa: BLE001 - the words must never hide the IllegalActionError
            reason = None
        return (f"illegal action {action} ({what}) for player_{self.current} in the "
                f"{self.phase} phase" + (f": {reason}" if reason else "")
                + f"; legal actions: {shown}{more}")

    def why_illegal(self, action: int) -> str | None:
        """Why ``action`` is illegal for the player to act, in words (``None`` if legal or if
        the game gives no reasons); a game's state class overrides it with its rules' reasons
        (``cardenv.text.why_illegal`` is the language-aware entry point)."""
        return None

    # --- copies and saved states (see the module docstring for the hooks) -----------------------

    FORMAT: str = ""
    FIELDS: tuple[str, ...] = ()
    REPLAYED_FORMATS: dict[str, int] = {}
    OLD_FORMATS: dict[str, str] = {}
    SHARED: tuple[str, ...] = ()  # attributes never changed in place: a clone shares them

    _rng: np.random.Generator | None = None
    _rng_saved: dict | None = None  # a clone's generator state, until its first use

    @property
    def rng(self) -> np.random.Generator:
        """The state's own random generator. A clone holds its parent's generator state and
        builds its generator on first use (building one costs more than the rest of a clone,
        and most clones in a tree search never deal again)."""
        rng = self._rng
        if rng is None:
            rng = self._rng = generator_from_state(self._rng_saved)
            self._rng_saved = None
        return rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng, self._rng_saved = value, None

    @classmethod
    def _blank(cls, game: CardGame) -> "CardState":
        """A state object with nothing set but its game (filled by ``clone``/``from_dict``)."""
        state = cls.__new__(cls)
        state.game = game
        return state

    def clone(self) -> "CardState":
        """An independent copy (the random generator included)."""
        new = self._blank(self.game)
        new.seed = self.seed
        new.history = list(self.history)
        new.results = list(self.results)  # results are not changed once written
        new.buffer = self.buffer.copy()
        new.v = self.game.layout.views(new.buffer)
        # the generator state is read now (a new dict); the generator is built on first use
        new._rng_saved = self._rng_saved if self._rng is None else self._rng.bit_generator.state
        mine, theirs = self.__dict__, new.__dict__
        for name in self.SHARED:
            theirs[name] = mine[name]
        self._copy_fields(new)
        return new

    def to_dict(self) -> dict:
        """A JSON-compatible dict of the whole state (options and random generator included);
        ``from_dict`` reads it back."""
        data = {"format": self.FORMAT, "options": self.game.options_dict(), "seed": self.seed,
                "history": list(self.history), "results": [r.to_dict() for r in self.results],
                "buffer": self.buffer.tolist(), "rng": self.rng.bit_generator.state}
        data.update(self._save_fields())
        return data

    @classmethod
    def _from_replay(cls, data: dict, old_size: int) -> "CardState":
        """An older format's state, rebuilt by replaying its seed and history (see the module
        docstring) and checked against what it saved."""
        what = f"saved {cls.__name__.removesuffix('State')} state in format {data['format']!r}"
        try:
            game = cls._game_class()(**data["options"])
            state = game.replay(check_int(data["seed"], "seed", 0, MAX_SEED),
                                check_int_list(data["history"], "history", low=0,
                                               high=game.num_actions - 1))
            buffer = np.asarray(data["buffer"])
            same = buffer.shape == (old_size,) and \
                np.array_equal(state.buffer[:old_size], buffer) and \
                [r.to_dict() for r in state.results] == data["results"] and \
                state.to_dict()["rng"] == data["rng"]
        except (ConfigError, StateError, IllegalActionError, KeyError, TypeError,
                ValueError) as exc:
            raise StateError(f"{what}: it is read by replaying its seed and history, which "
                             f"failed ({exc})") from None
        if not same:
            raise StateError(f"{what}: replaying its seed and history does not give back its "
                             f"buffer, results and generator (a hand dealt by hand, e.g. "
                             f"with state_from_hands or a given deck, cannot be replayed): "
                             f"rebuild it the way it was made, then apply its history")
        return state

    @classmethod
    def from_dict(cls, data: dict) -> "CardState":
        """Rebuild a state from ``to_dict`` output. Every field is checked (type, range, the
        cards against the deck, derived values against the buffer): ``StateError`` naming the
        field if one is wrong, ``ConfigError`` for bad options."""
        what = f"serialized {cls.__name__.removesuffix('State')} state"
        if not isinstance(data, dict):
            raise StateError(f"not a {what}: expected a dict, got {type(data).__name__}")
        fmt = data.get("format")
        if isinstance(fmt, str) and fmt in cls.REPLAYED_FORMATS:
            return cls._from_replay(data, cls.REPLAYED_FORMATS[fmt])
        if isinstance(fmt, str) and fmt in cls.OLD_FORMATS:
            raise StateError(f"{what} in the old format {fmt!r}: {cls.OLD_FORMATS[fmt]}")
        if fmt != cls.FORMAT:
            raise StateError(f"not a {what} (expected format {cls.FORMAT!r}, got {fmt!r})")
        expected = (*COMMON_KEYS, *cls.FIELDS)
        missing = [k for k in expected if k not in data]
        if missing:
            raise StateError(f"{what} lacks {missing}")
        unknown = sorted(set(data) - set(expected), key=repr)
        if unknown:
            raise StateError(f"{what} has unknown keys {unknown}")
        if not isinstance(data["options"], dict):
            raise StateError(f"{what}: options must be a dict, got {data['options']!r}")
        if not all(isinstance(k, str) for k in data["options"]):
            raise StateError(f"{what}: options must have string keys, got {data['options']!r}")
        try:
            game = cls._game_class()(**data["options"])
        except ConfigError as exc:
            raise ConfigError(f"{what} has bad options: {exc}") from None
        state = cls._blank(game)
        state.seed = check_int(data["seed"], "seed", 0, MAX_SEED)
        state.history = check_int_list(data["history"], "history", low=0,
                                       high=game.num_actions - 1)
        layout = game.layout
        state.buffer = check_array(data["buffer"], "buffer", (layout.size,))
        bad = layout.out_of_range(state.buffer)
        if bad is not None:
            raise StateError(f"{what}: buffer piece {bad!r} is out of its range")
        state.v = layout.views(state.buffer)
        check_generator_state(data["rng"], "rng")
        try:
            state.rng = generator_from_state(data["rng"])
        except (TypeError, ValueError, KeyError, AttributeError, OverflowError) as exc:
            raise StateError(f"{what} has a bad generator state (rng): {exc}") from None
        results = data["results"]
        if not isinstance(results, list):
            raise StateError(f"results must be a list, got {results!r}")
        state.results = []
        for i, result in enumerate(results):
            if not isinstance(result, dict):
                raise StateError(f"results[{i}] must be a dict, got {result!r}")
            try:
                state.results.append(state._load_result(result))
            except StateError as exc:
                raise StateError(f"results[{i}]: {exc}") from None
            except (TypeError, ValueError, KeyError) as exc:
                raise StateError(f"results[{i}] is malformed: {exc}") from None
        state._load_fields(data)
        state._check_consistency()
        return state

    @classmethod
    def _game_class(cls) -> type:
        raise NotImplementedError

    def _copy_fields(self, new: "CardState") -> None:
        raise NotImplementedError

    def _save_fields(self) -> dict:
        raise NotImplementedError

    def _load_fields(self, data: dict) -> None:
        raise NotImplementedError

    def _check_consistency(self) -> None:
        pass

    def _load_result(self, data: dict):
        raise NotImplementedError
