"""What every cardenv rules engine shares: the game object's plumbing (options, replays, action
descriptions) and the state's (seeding, the tensor buffer, common queries, checking an action,
copying the random generator, copies and saved states).

A game subclass sets ``state_class``, ``actions`` (its ``ActionInfo`` list) and ``layout`` and
implements ``new_state(seed)`` and ``state_from_deal(seed, deal)``; a state subclass implements
``legal_actions``/``legal_mask``, ``is_legal`` and ``_play`` and keeps ``phase`` (``"over"`` at
the end), ``current`` and a ``"hand"`` piece in its layout.

Copies: ``CardState.clone`` copies what every state has (seed, custom deal, history, hand
results, the tensor buffer, the random generator) and calls the subclass's
``_copy_fields(new)`` for the rest, other than the attributes named in ``SHARED`` (never changed
in place, so the copy shares them).

Saved states are recipes (format ``FORMAT``, ``"cardenv.<game>.state/<version>"``)::

    {"format", "options", "seed", "deal", "history", "results", "crc"}

``deal`` is ``None`` for a seeded game, else what ``game.state_from_deal`` takes (a hand dealt
by hand). Reading one replays it, every action checked by the rules themselves, so a saved
state is exactly a position play can reach, and no rule is written a second time as a check of
saved fields. ``results`` (each finished hand's ``to_dict()``) and ``crc`` (CRC-32 of the final
buffer) are integrity checks: an edited seed or history that still replays is caught by them.
``REPLAYED_FORMATS`` names older formats, which saved the whole buffer, results and generator:
they are read by the same replay and compared with what they saved. ``OLD_FORMATS`` maps formats
no longer read to the reason.
"""

from __future__ import annotations

import json
import zlib

import numpy as np

from cardenv.core.checks import check_int, check_int_list, is_int
from cardenv.core.errors import ConfigError, IllegalActionError, StateError

MAX_SEED = 2 ** 63 - 1
RECIPE_KEYS = ("format", "options", "seed", "deal", "history", "results", "crc")
RECIPE_REQUIRED = ("format", "options", "seed", "history")  # deal, results, crc: optional
OLD_KEYS = ("format", "options", "seed", "history", "results", "buffer", "rng")


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
    # per-action features from the observation (core.action_features): a function
    # (observations, rows, actions) -> (M, F) and its declared pieces; None: the game has none
    action_features = None
    action_feature_pieces: tuple = ()

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
        # one gather per seat with a shared column index: 4x faster at batch 1024 than one
        # take_along_axis with a (B, D) index; then the derived pieces (core.layout)
        return self.layout.observe(buffers, np.asarray(seats, dtype=np.int64))

    def global_states(self, states) -> np.ndarray:
        """``(B, state_size)`` float32 global states."""
        return np.stack([s.buffer for s in states]).astype(np.float32)

    def sides(self, state) -> tuple[list[int], list[int]]:
        """The two sides of the hand about to be played, as dealt."""
        raise NotImplementedError

    def hand_value(self, result, seat: int) -> float:
        """What the finished hand ``result`` (an entry of ``state.results``) is worth to
        ``seat``: by default the reward it paid (``result.rewards[seat]``); a game whose
        episodes pay some hands nothing (Dabang's match episodes) says what the hand itself is
        worth, e.g. for a search that stops at the end of the hand."""
        return float(result.rewards[seat])

    def action_info(self, action: int):
        """Structured description of an action id (``ActionInfo``: type, ..., ``text``)."""
        return self.actions[check_int(action, "action", 0, len(self.actions) - 1,
                                      error=ValueError)]

    def options_dict(self) -> dict:
        """The options as plain JSON values (tuples as lists)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()}

    def replay(self, seed: int, actions, deal: dict | None = None):
        """The state that ``deal`` (``None``: the shuffle of ``seed``; else a custom deal, see
        ``state_from_deal``) and the ``actions`` played from it (e.g. ``state.history``) lead
        to. ``IllegalActionError`` naming the first illegal one (``history[k]: ...``);
        ``ValueError`` for a bad deal. Saved states and game records are read by it."""
        state = self.new_state(seed) if deal is None else self.state_from_deal(seed, deal)
        for k, a in enumerate(actions):
            try:
                state.apply(a)
            except IllegalActionError as exc:
                raise IllegalActionError(f"history[{k}]: {exc}") from None
        return state

    def state_from_deal(self, seed: int, deal: dict):
        """A new episode from a custom deal (the ``deal`` a state dealt by hand saves as
        ``given_deal``); ``seed`` draws whatever the deal leaves to chance (later hands)."""
        raise ValueError(f"{self.name or type(self).__name__} has no custom deals; "
                         f"deal must be None, got {deal!r}"[:300])

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
        return self.seat_observation(check_int(seat, "seat", 0, self.game.num_players - 1,
                                               error=ValueError))

    def seat_observation(self, seat: int) -> np.ndarray:
        """``observation`` of ``seat`` known to be a seat number (an int in 0..3), unchecked:
        what the env, which numbers its agents itself, asks at every step."""
        layout = self.game.layout
        gathered = self.buffer[layout.observation_index[seat]].astype(np.float32)
        return layout.complete(gathered[None])[0] if layout.derived else gathered

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

    # --- copies and saved states (see the module docstring) -----------------------------------

    FORMAT: str = ""
    # older formats of this game: format -> how to read it (None: by replaying its seed and
    # history and comparing the whole buffer; an int: only that many first buffer entries)
    REPLAYED_FORMATS: dict[str, int | None] = {}
    OLD_FORMATS: dict[str, str] = {}  # formats no longer read -> why
    # buffer sizes of this format's earlier layouts (pieces appended since): a saved crc of
    # that many first entries is accepted too (``crc``)
    CRC_PREFIXES: tuple[int, ...] = ()
    SHARED: tuple[str, ...] = ()  # attributes never changed in place: a clone shares them
    given_deal: dict | None = None  # the custom deal the episode started from (None: seeded)

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
        """A state object with nothing set but its game (filled by ``clone``)."""
        state = cls.__new__(cls)
        state.game = game
        return state

    def clone(self) -> "CardState":
        """An independent copy (the random generator included)."""
        new = self._blank(self.game)
        new.seed = self.seed
        new.given_deal = self.given_deal  # never changed in place
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

    def crc(self, size: int | None = None) -> int:
        """CRC-32 of the tensor buffer (little-endian int16), or of its first ``size``
        entries: a saved state's check that its recipe replays to the same position."""
        return zlib.crc32(self.buffer[:size].astype("<i2", copy=False).tobytes())

    def to_dict(self) -> dict:
        """The state as its recipe, a JSON-compatible dict: the options, the seed, the custom
        deal (``None`` for a seeded game) and the history, plus two integrity fields, the hand
        results and ``crc`` (see ``crc``). ``from_dict`` replays it."""
        return {"format": self.FORMAT, "options": self.game.options_dict(), "seed": self.seed,
                "deal": self.given_deal, "history": list(self.history),
                "results": [r.to_dict() for r in self.results], "crc": self.crc()}

    @classmethod
    def from_dict(cls, data: dict) -> "CardState":
        """Rebuild a state from ``to_dict`` output by replaying its recipe: the deal from the
        seed (or the custom ``deal``), then each action of the history, every one checked. The
        replay must give back the saved ``results`` and ``crc`` (each optional: a recipe written
        by hand may leave them out). ``StateError`` naming the first problem (a bad field, the
        first illegal step ``history[k]``, a result or position that differs), ``ConfigError``
        for bad options. Older formats (``REPLAYED_FORMATS``) are read by the same replay."""
        what = f"saved {cls.__name__.removesuffix('State')} state"
        if not isinstance(data, dict):
            raise StateError(f"not a {what}: expected a dict, got {type(data).__name__}")
        fmt = data.get("format")
        if isinstance(fmt, str) and fmt in cls.OLD_FORMATS:
            raise StateError(f"{what} in the old format {fmt!r}: {cls.OLD_FORMATS[fmt]}")
        old = isinstance(fmt, str) and fmt in cls.REPLAYED_FORMATS
        if fmt != cls.FORMAT and not old:
            raise StateError(f"not a {what} (expected format {cls.FORMAT!r}, got {fmt!r})")
        if old:
            what += f" in format {fmt!r}"
            required, allowed = OLD_KEYS, None
        else:
            required, allowed = RECIPE_REQUIRED, RECIPE_KEYS
        missing = [k for k in required if k not in data]
        if missing:
            raise StateError(f"{what} lacks {missing}")
        unknown = sorted(set(data) - set(allowed), key=repr) if allowed else []
        if unknown:
            raise StateError(f"{what} has unknown keys {unknown}")
        options = data["options"]
        if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
            raise StateError(f"{what}: options must be a dict with string keys, got "
                             f"{options!r}"[:300])
        try:
            game = cls._game_class()(**options)
        except ConfigError as exc:
            raise ConfigError(f"{what} has bad options: {exc}") from None
        try:
            seed = check_int(data["seed"], "seed", 0, MAX_SEED)
            history = check_int_list(data["history"], "history", low=0,
                                     high=game.num_actions - 1)
        except StateError as exc:
            raise StateError(f"{what}: {exc}") from None
        if old:
            return cls._from_old(game, data, seed, history, what)
        state = _replayed(game, seed, history, data.get("deal"), what)
        if "results" in data:
            _check_results(state, data["results"], what)
        if "crc" in data:
            crc = data["crc"]
            if not is_int(crc) or isinstance(crc, bool):
                raise StateError(f"{what}: crc must be an int, got {crc!r}"[:300])
            if int(crc) != state.crc() and all(int(crc) != state.crc(size)
                                               for size in cls.CRC_PREFIXES):
                raise StateError(
                    f"{what}: its recipe replays to another position (crc {state.crc()}, "
                    f"saved {crc}): the seed, deal or history was changed after it was saved")
        return state

    @classmethod
    def _from_old(cls, game, data, seed, history, what) -> "CardState":
        """A state in an older format (its whole buffer, results and generator saved): replayed
        from its seed, or from the custom deal ``_old_deal`` finds in it, and accepted only if
        the replay gives back its buffer (the first ``REPLAYED_FORMATS[format]`` entries),
        results and generator."""
        size = cls.REPLAYED_FORMATS[data["format"]] or game.layout.size
        try:
            buffer = np.asarray(data["buffer"])
        except (TypeError, ValueError):
            buffer = None

        def same(state) -> bool:
            return (buffer is not None and buffer.shape == (size,)
                    and np.array_equal(state.buffer[:size], buffer)
                    and same_json(_plain_results(state), data["results"])
                    and state.rng.bit_generator.state == data["rng"])

        deals = [None]
        try:
            deal = cls._old_deal(game, data)
        except (KeyError, TypeError, ValueError, IndexError):
            deal = None
        if deal is not None:
            deals.append(deal)
        failure = None
        for deal in deals:
            try:
                state = _replayed(game, seed, history, deal, what)
            except StateError as exc:
                failure = failure or exc
                continue
            if same(state):
                return state
        if failure is not None and len(deals) == 1:
            # a hand dealt by hand fails here too: say so, as the message below does
            raise StateError(f"{failure} (it is read by replaying its seed and history; a hand "
                             f"dealt by hand is found only in the first hand of an episode)")
        raise StateError(f"{what}: replaying its seed and history does not give back its "
                         f"buffer, results and generator (a hand dealt by hand is found only in "
                         f"the first hand of an episode): rebuild it the way it was made, then "
                         f"apply its history")

    @classmethod
    def _old_deal(cls, game, data: dict) -> dict | None:
        """The custom deal an older saved state of the first hand was made from, read from its
        fields (``None``: it was seeded, or the format does not tell)."""
        return None

    @classmethod
    def _game_class(cls) -> type:
        raise NotImplementedError

    def _copy_fields(self, new: "CardState") -> None:
        raise NotImplementedError


def _replayed(game: CardGame, seed: int, history: list[int], deal, what: str) -> CardState:
    """``game.replay(seed, history, deal)``, its errors as ``StateError`` naming ``what``."""
    if deal is not None and not isinstance(deal, dict):
        raise StateError(f"{what}: deal must be null (a seeded game) or a dict, got "
                         f"{deal!r}"[:300])
    try:
        return game.replay(seed, history, deal)
    except IllegalActionError as exc:
        raise StateError(f"{what}: {exc}") from None
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise StateError(f"{what}: bad deal: {exc}"[:600]) from None


def _plain_results(state: CardState) -> list:
    """The state's hand results as JSON gives them back (tuples as lists)."""
    return json.loads(json.dumps([r.to_dict() for r in state.results]))


def same_json(a, b) -> bool:
    """``a == b`` for JSON values, except that a bool equals only a bool (``True == 1`` in
    Python: a saved ``true`` for a seat 1 is not the engine's result)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a == b


def _check_results(state: CardState, saved, what: str) -> None:
    replayed = _plain_results(state)
    if not isinstance(saved, list):
        raise StateError(f"{what}: results must be a list, got {saved!r}"[:300])
    if len(saved) != len(replayed):
        raise StateError(f"{what}: results holds {len(saved)} hand result(s) but its "
                         f"history finishes {len(replayed)} hand(s)")
    for i, (mine, theirs) in enumerate(zip(saved, replayed)):
        if same_json(mine, theirs):
            continue
        if isinstance(mine, dict):  # name the first item that differs, as records do
            for key in [*theirs, *(k for k in mine if k not in theirs)]:
                have, want = mine.get(key, _ABSENT), theirs.get(key, _ABSENT)
                if have is _ABSENT or want is _ABSENT or not same_json(have, want):
                    raise StateError(f"{what}: results[{i}][{key!r}] is {_shown(have)} in "
                                     f"the saved state but {_shown(want)} on replay"[:600])
        raise StateError(f"{what}: results[{i}] is not what its history gives "
                         f"({theirs!r})"[:600])


_ABSENT = object()


def _shown(value) -> str:
    return "absent" if value is _ABSENT else repr(value)[:200]
