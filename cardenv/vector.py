"""Many games of one kind stepped in lockstep, with observations, masks and global states in
batch: the public batched engine (numpy only; no PettingZoo).

::

    from cardenv.vector import VectorGame

    games = VectorGame("dagong", num_envs=1024, seed=0, options={"hands": 1})
    games.current()        # (B,) int: the seat to act in each game
    games.observations()   # (B, D) float32: the acting seats' observations (the env's layout)
    games.masks()          # (B, N) bool: their legal actions
    games.states()         # (B, S) float32: global states (the env's state()), for critics
    index, feats = games.action_features()  # what each legal action does: (M,), (M, F)
    step = games.step(actions)
    step.rewards           # (B, 4) float: the rewards of this step
    step.ended             # (B,) bool: the games that ended at this step
    step.hands             # the hands that ended at this step: HandEnd(slot, result), by slot
    step.games             # the games that ended at this step: Finished(index, seed, returns,
                           # results, ...), by slot
    rewards, ended, hands, ended_games = games.step(actions)  # (a named tuple)

Slot ``i`` plays the game seeded ``seed + i``; when a game ends ``step`` returns its record and
the slot starts the next unused seed (``seed + num_envs``, then ``+ 1`` ...), so that a slot
always holds a game in progress. A game of several hands (a Dabang match) reports each hand as it
ends, in ``step.hands``, with the hand's result (the entry the game appends to its ``results``);
the game's last hand comes in ``step.hands`` and the game in ``step.games`` at the same step. The
engine keeps no list of ended games: what a caller wants of them it keeps from the steps.

With the same seed and the same actions, slot ``i`` plays move for move, observation for
observation, mask for mask and reward for reward the game that
``raw_env(**options).reset(seed=seed + i)`` plays (a property test proves it on hundreds of games
per game and option set). ``options`` may be one dict or a list: slot ``i`` then always
uses ``options[i % len(options)]`` (e.g. Dabang first hands and later hands side by side).
Instead of a name and options, ``VectorGame`` takes the made games themselves: one
(``make_game(name, **options)``) or a list of one game's variants (``game_variants(name,
options)``), so that a caller playing the same rules in several places makes them once.

With ``refill=False`` an ended game stays in its slot instead (e.g. a search agent's rollouts,
each played once): its record comes in the step's answer as always, and from then on the slot
reads as over (``current()`` -1, an all-False mask, its observation the one of seat 0, zero
rewards), its action is ignored (any int in range; ``masks().argmax(1)`` will do), ``step``
reports it ended only at the step its game ended, and stepping it costs nothing: no new game is
dealt, and the engines leave an over slot alone. ``keep(slots)`` then drops the slots a caller is
done with (``refill=False`` only): the batch goes on with the slots named, in that order, each
with its game, seed and options, without rebuilding their states (the engine contract's
``keep``), so that the rows of finished games stop costing observations and masks.

Rewards are the env's: each hand's reward when it ends (``Finished.returns`` sums them), zero on
other steps. ``step`` checks every slot's action before applying any: a wrong shape or type (an
action is a Python or numpy int, never a bool), an action out of range or illegal in its slot
raises ``ValueError`` naming the slot and its value, and no game changes.
Any game of ``cardenv.games``' registry works. The games are stepped by the game's own
batched engine (``Game.batch_engine``: Dagong's and Dabang's step their play phase as numpy over
all the games in it and hand the rarer phases to the single-game engine) or, for a game without
one, by ``SlotBatch`` (each state's own ``apply``; ``batched=False`` forces it); both answer the
``core.protocol.BatchEngine`` contract and must give the same games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from cardenv.core.action_features import features_of
from cardenv.core.checks import check_bool, check_int, is_int
from cardenv.core.state import MAX_SEED
from cardenv.core.protocol import Game
from cardenv.games import make_game, names


MAX_NUM_ENVS = 1 << 16  # games in lockstep (training runs 128..1024; a bound, not a target)


@dataclass
class Finished:
    """An ended game: the slot it ran in, its seed, each seat's total reward (``returns``), its
    hand results, and its actions when the engine keeps them (``keep_history``)."""

    index: int
    seed: int
    returns: list
    results: list
    history: list = field(default_factory=list)
    truncated: bool = False


class HandEnd(NamedTuple):
    """A hand that ended at a step: the slot it was played in and its result (the entry its
    game appended to ``results``)."""

    slot: int
    result: Any


class Step(NamedTuple):
    """What one ``VectorGame.step`` did: each slot's rewards, which games ended, and the hands
    and games that ended (by slot; a game's last hand is in ``hands`` too)."""

    rewards: np.ndarray  # (B, 4) float
    ended: np.ndarray  # (B,) bool
    hands: list  # [HandEnd]
    games: list  # [Finished]


def legal_indices(masks: np.ndarray) -> np.ndarray:
    """The flat indices of the True entries of ``(B, N)`` masks, in order (row ``i``'s legal
    actions are ``index - i * N``). numpy 2's ``flatnonzero`` of a bool array scans it in SIMD
    words: measured 2026-12-07 (numpy 2.4, AMD EPYC) 2.5-8x faster than reading 8-byte words
    and their bytes in numpy calls, this function's way before (docs/speed.md)."""
    return np.flatnonzero(np.ascontiguousarray(masks, dtype=bool))


def game_variants(game: str, options: dict | list | None = None) -> list:
    """The games (one per rules variant) that ``options`` -- one option dict or a non-empty list
    of them -- makes of ``game``; ``ConfigError`` / ``ValueError`` for bad options or game."""
    variants = options if isinstance(options, list) else [{} if options is None else options]
    if not variants or not all(isinstance(v, dict) for v in variants):
        raise ValueError(f"options must be a dict or a non-empty list of dicts, got {options!r}")
    for v in variants:
        if not all(isinstance(k, str) for k in v):
            raise ValueError(f"options must have option names (strings) as keys, got {v!r}")
    return [make_game(game, **v) for v in variants]


def made_variants(game) -> list:
    """A made game, or a non-empty list (or tuple) of made games of one name, as the list of
    rules variants ``VectorGame`` plays; ``ValueError`` saying what was passed instead."""
    variants = list(game) if isinstance(game, (list, tuple)) else [game]
    # a made game is anything with the protocol's members; say what was passed instead of
    # failing on the first missing attribute
    if not variants or not all(isinstance(v, Game) for v in variants):
        raise ValueError(f"game must be a registered game's name ({', '.join(names())}), a "
                         f"made game (make_game(name)) or a list of made games, got "
                         f"{game!r}"[:300])
    if len({v.name for v in variants}) > 1:
        raise ValueError(f"the games of a VectorGame are variants of one game, got "
                         f"{sorted({v.name for v in variants})}")
    return variants


class SlotBatch:
    """The generic batched engine: the states side by side, each stepped by its own ``apply``
    (any game of the registry; the reference the games' own batched engines must equal).

    A game whose ``Game.batch_engine`` names a class of the same interface (Dagong's
    ``cardenv.dagong.vector.DagongBatch``, Dabang's ``cardenv.dabang.vector.DabangBatch``) steps
    its bulk phase in numpy over the whole batch instead; see ``docs/engine.md``.
    """

    def __init__(self, states: list):
        self.states = list(states)
        self.game = self.states[0].game

    def __len__(self) -> int:
        return len(self.states)

    def current(self) -> np.ndarray:
        return np.fromiter((g.current_player for g in self.states), dtype=np.int64,
                           count=len(self.states))

    def observations(self, seats=None) -> np.ndarray:
        return self.game.observations(self.states, seats)

    def masks(self) -> np.ndarray:
        return self.game.legal_masks(self.states)

    def global_states(self) -> np.ndarray:
        return self.game.global_states(self.states)

    def legal(self, actions: np.ndarray) -> np.ndarray:
        # cheap after masks(): the states keep them
        return np.fromiter((s.is_legal(a) for s, a in zip(self.states, actions.tolist())),
                           dtype=bool, count=len(self.states))

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rewards = np.zeros((len(self.states), 4))
        over = np.zeros(len(self.states), dtype=bool)
        for i, (state, action) in enumerate(zip(self.states, actions.tolist())):
            if state.is_over:  # an over slot (``refill=False``) is left alone
                over[i] = True
                continue
            state.apply(action)
            if any(state.last_rewards):
                rewards[i] = state.last_rewards
            over[i] = state.is_over
        return rewards, over

    def state(self, i: int):
        return self.states[i]

    def hands_played(self) -> np.ndarray:
        return np.array([len(s.results) for s in self.states], dtype=np.int64)

    def replace(self, i: int, state) -> None:
        self.states[i] = state

    def keep(self, rows: np.ndarray) -> None:
        # the states are their own truth: the dropped ones are already up to date
        self.states = [self.states[i] for i in rows.tolist()]


class Slots(Sequence):
    """The states of a batched engine as a read-only sequence: ``slots[i]`` brings only slot
    ``i``'s state up to date."""

    def __init__(self, engine):
        self._engine = engine

    def __len__(self) -> int:
        return len(self._engine)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._engine.state(j) for j in range(*i.indices(len(self)))]
        n = len(self)
        if not is_int(i) or not -n <= i < n:
            raise IndexError(f"slot {i!r} is outside 0..{n - 1}")
        return self._engine.state(int(i) % n)


class VectorGame:
    """``num_envs`` games of ``game`` in lockstep (see the module docstring).

    Args:
        game: a registered game name (``"dagong"``, ``"dabang"``, ...) with its ``options``;
            or a made game (``make_game(name, **options)``: its options are its own,
            ``options`` stays None), or a list of made games of one name, its rules variants
            (slot ``i`` plays ``game[i % len(game)]``: the games ``game_variants`` makes of an
            option list, made once by a caller that plays them in several places).
        num_envs: how many games run at once (1..``MAX_NUM_ENVS``, 65536).
        seed: slot ``i`` plays seed ``seed + i``; ended games take the next unused seeds.
        options: the game's rules options, one dict or a list (slot ``i`` uses
            ``options[i % len(options)]``).
        seeds: instead of ``seed``, the first seed of each slot (``num_envs`` is then optional);
            later games take seeds from ``max(seeds) + 1`` on.
        states: instead of seeds, each slot's first game as dealt (states of the slot's game
            before any move, played as they are: pass clones to keep the originals); their
            seeds are the slots' seeds.
        started: with ``states``, accept games in progress (moves already played, not over):
            e.g. a search agent's rollouts from the position it decides in. Ended games are
            replaced as always (the queue, else new seeds); ``queue`` still holds games as
            dealt.
        queue: games as dealt (like ``states``; any iterable, read lazily) that the slots
            take, in order, as their games end, before any new seed is dealt (a caller that
            deals its seeds itself, such as a duplicate evaluation, deals each one once).
        keep_history: record each ended game's actions in ``Finished.history``.
        refill: deal the next game into a slot whose game ended (the default); ``False``: an
            ended game stays in its slot, over, and costs nothing to step (see the module
            docstring; it goes without ``queue``).
        batched: step the game's own batched engine (``Game.batch_engine``) when it has one
            and ``num_envs`` reaches its ``min_batch``; ``False`` steps each state by its
            ``apply`` (``SlotBatch``: the same games, slower at large batches; kept for
            comparisons).

    ``slots[i]`` is the rules-engine state (``core.protocol.GameState``) that slot ``i`` holds,
    brought up to date when read; read it, do not ``apply`` to it (step the ``VectorGame``).
    """

    def __init__(self, game, num_envs: int | None = None, seed: int = 0,
                 options: dict | list | None = None, *, seeds=None, states=None, queue=(),
                 keep_history: bool = False, batched: bool = True, started: bool = False,
                 refill: bool = True):
        if isinstance(game, str):
            self.name, self.variants = game, game_variants(game, options)
        else:
            self.variants = made_variants(game)
            self.name = self.variants[0].name
            if options is not None:
                raise ValueError(f"options go with a game's name, not a made game ({self.name})")
        self.game = self.variants[0]
        self.num_actions = self.game.num_actions
        self.keep_history = check_bool(keep_history, "keep_history", error=ValueError)
        batched = check_bool(batched, "batched", error=ValueError)
        if check_bool(started, "started", error=ValueError) and states is None:
            raise ValueError("started=True goes with states (the games in progress)")
        if states is not None:
            states = self._dealt(states, num_envs, started=started)
            seeds = [s.seed for s in states]
        elif seeds is None:
            num_envs = check_int(num_envs, "num_envs", 1, MAX_NUM_ENVS, error=ValueError)
            seed = check_int(seed, "seed", 0, MAX_SEED - num_envs + 1, error=ValueError)
            seeds = [seed + i for i in range(num_envs)]
        else:
            if not isinstance(seeds, (list, tuple, np.ndarray)) or len(seeds) > MAX_NUM_ENVS:
                raise ValueError(f"seeds must be a list of at most {MAX_NUM_ENVS} seeds, got "
                                 f"{seeds!r}"[:200])
            seeds = [check_int(s, f"seeds[{i}]", 0, MAX_SEED, error=ValueError)
                     for i, s in enumerate(seeds)]
            if not seeds or (num_envs is not None and num_envs != len(seeds)):
                raise ValueError(f"seeds must hold num_envs ({num_envs}) seeds, got "
                                 f"{len(seeds)}")
        self.seeds = seeds
        self.next_seed = max(seeds) + 1
        self.refill = check_bool(refill, "refill", error=ValueError)
        if not self.refill and not (isinstance(queue, (tuple, list)) and not queue):
            raise ValueError("refill=False keeps ended games in their slots: it takes no queue")
        self.queue = iter(queue)
        self._over = np.zeros(len(seeds), dtype=bool)  # refill=False: the slots whose game ended
        # each slot's rules variant (its index in ``variants``): ``i % len(variants)`` until
        # ``keep`` renumbers the slots, each taking its variant along
        self._variant_of = np.arange(len(seeds)) % len(self.variants)
        engine = getattr(self.game, "batch_engine", None) if batched else None
        if engine is not None and len(seeds) < getattr(engine, "min_batch", 1):
            engine = None  # too few games for numpy's per-call cost to pay off
        self.engine = (engine or SlotBatch)(
            states or [self.variant(i).new_state(s) for i, s in enumerate(seeds)])
        # each slot's count of finished hands after the last step: the next step reports the
        # slots whose count grew (one engine read a step, not two)
        self._hands = np.array(self.engine.hands_played())  # (ours: restart writes to it)

    def __len__(self) -> int:
        return len(self.seeds)

    @property
    def num_envs(self) -> int:
        return len(self.seeds)

    @property
    def slots(self) -> "Slots":
        """The state each slot holds (``slots[i]``), brought up to date when read (read them;
        step the ``VectorGame``)."""
        return Slots(self.engine)

    def hands_played(self) -> np.ndarray:
        """``(B,)`` int: how many hands each slot's game has finished (``len(results)``),
        without bringing the states up to date (training reads it every step)."""
        return self.engine.hands_played()

    def variant(self, slot: int):
        """The game (rules options) that slot ``slot`` plays."""
        slot = check_int(slot, "slot", 0, len(self.seeds) - 1, error=ValueError)
        return self.variants[self._variant_of[slot]]

    # --- batched queries ------------------------------------------------------------------

    def current(self) -> np.ndarray:
        """``(B,)`` int: the seat to act in each slot."""
        return self.engine.current()

    def observations(self, seats=None) -> np.ndarray:
        """``(B, D)`` float32: each slot's observation for the seat to act (or ``seats``: one
        seat per slot)."""
        if seats is not None:
            n = len(self.seeds)
            if isinstance(seats, (str, bytes, dict)) or np.ndim(seats) != 1 or len(seats) != n:
                raise ValueError(f"seats must hold one seat per slot ({n}), got {seats!r}"[:200])
            seats = [check_int(s, f"seats[{i}]", 0, self.game.num_players - 1, error=ValueError)
                     for i, s in enumerate(seats)]
        return self.engine.observations(seats)

    def masks(self) -> np.ndarray:
        """``(B, N)`` bool: the legal actions of the seat to act in each slot (the caller's own
        array: changing it changes no game)."""
        return self.engine.masks()

    def states(self) -> np.ndarray:
        """``(B, S)`` float32: each slot's global state (every hand included)."""
        return self.engine.global_states()

    def action_features(self) -> tuple[np.ndarray, np.ndarray]:
        """``(index, features)``: ``index`` the flat legal indices of ``masks()`` as
        ``legal_indices`` gives them (slot ``i``'s action is ``index - i * N``), ``features``
        ``(M, F)`` float32, row ``j`` what that action does (the game's ``action_features`` of
        ``observations()``, ``cardenv.core.action_features``); each slot's rows equal the
        single env's ``action_features()``. ``ValueError`` if the game declares none."""
        function = features_of(self.game)
        index = legal_indices(self.masks())
        rows, actions = np.divmod(index, self.num_actions)
        return index, function(self.observations(), rows, actions)

    # --- fewer slots ----------------------------------------------------------------------

    def keep(self, slots) -> None:
        """Go on with only the slots ``slots`` (distinct slot indices, a list, tuple or 1-D
        integer array, at least one), in that order: slot ``j`` is then the former slot
        ``slots[j]``, with its game, seed (``seeds[j]``), rules variant (``variant(j)``) and
        over flag, and every query and step answers for the kept slots only, as they would
        have answered (e.g. a search agent's rollouts dropping the ones whose hand ended). The
        states of the dropped slots, up to date, are no longer stepped. Only with
        ``refill=False``: with refill a slot's games follow its number (its first seed ``seed
        + i``, its options ``options[i % len(options)]``), which renumbering would break.
        ``ValueError`` naming the problem, nothing changed, for a bad ``slots``.

        The engine keeps the slots without rebuilding their states (``BatchEngine.keep``);
        below the game's engine's ``min_batch`` the kept states go on in a ``SlotBatch``, as a
        ``VectorGame`` of that many would step them."""
        if self.refill:
            raise ValueError("keep goes with refill=False: with refill, slot i's games follow "
                             "its number (seed + i, options[i % len(options)])")
        rows = self._slot_indices(slots)
        self.seeds = [self.seeds[i] for i in rows.tolist()]
        self._variant_of = self._variant_of[rows]
        self._over = self._over[rows]
        self._hands = self._hands[rows]
        self.engine.keep(rows)
        if not isinstance(self.engine, SlotBatch) \
                and rows.size < getattr(self.engine, "min_batch", 1):
            self.engine = SlotBatch([self.engine.state(i) for i in range(rows.size)])

    def _slot_indices(self, slots) -> np.ndarray:
        """``slots`` as ``(m,)`` int64 distinct slot indices, else ``ValueError`` naming the
        problem (in numpy for an array: the rollouts keep thousands of slots)."""
        n = len(self.seeds)
        if isinstance(slots, np.ndarray):
            if slots.ndim != 1 or (slots.size and slots.dtype.kind not in "iu"):
                raise ValueError(f"slots must be a 1-D array of slot indices (ints), got shape "
                                 f"{slots.shape} of {slots.dtype}")
            outside = np.flatnonzero((slots < 0) | (slots >= n))
            k = int(outside[0]) if outside.size else None
        elif isinstance(slots, (list, tuple)):
            k = None
            for j, slot in enumerate(slots):
                if not is_int(slot):
                    raise ValueError(f"slots[{j}] must be a slot index (an int), got {slot!r}"
                                     [:200])
                if k is None and not 0 <= slot < n:
                    k = j
        else:
            raise ValueError(f"slots must be a list, tuple or 1-D array of slot indices, got "
                             f"{slots!r}"[:200])
        if k is not None:  # (checked before the cast: uint64 2**64-1 must not become -1)
            raise ValueError(f"slots[{k}]: slot {slots[k]} is outside 0..{n - 1}")
        rows = np.array(slots, dtype=np.int64)
        if not rows.size:
            raise ValueError("slots must name at least one slot to keep")
        again = np.ones(rows.size, dtype=bool)
        again[np.unique(rows, return_index=True)[1]] = False  # each slot's first place
        if again.any():
            k = int(np.flatnonzero(again)[0])
            raise ValueError(f"slots[{k}]: slot {rows[k]} is named twice")
        return rows

    # --- stepping -------------------------------------------------------------------------

    def step(self, actions) -> Step:
        """Play one action per slot: ``Step(rewards (B, 4) float, ended (B,) bool, hands,
        games)``, ``hands`` the hands that ended (``HandEnd(slot, result)``) and ``games`` the
        records of the games that ended (``Finished``), both by slot. An ended game's slot
        already holds the next game (the next of ``queue``, else a new seed's); with
        ``refill=False`` it stays there, over, and is reported ended at this step only."""
        actions = self._checked(actions)
        before = self._hands
        rewards, ended = self.engine.step(actions)
        if not self.refill:
            rewards[self._over] = 0.0
            ended = ended & ~self._over
            self._over |= ended
        self._hands = np.array(self.engine.hands_played())  # restart resets a refilled slot
        grown = np.flatnonzero(ended | (self._hands != before)).tolist()
        if not grown:
            return Step(rewards, ended, [], [])
        hands, games = [], []
        for i in grown:
            if ended[i]:
                games.append(self._finish(i))
                if len(games[-1].results) > before[i]:  # (a game ended mid-hand reports none)
                    hands.append(HandEnd(i, games[-1].results[-1]))
                if self.refill:
                    self._refill(i)
            else:  # a hand of a game that goes on
                hands.append(HandEnd(i, self.engine.state(i).results[-1]))
        return Step(rewards, ended, hands, games)

    def _refill(self, slot: int) -> None:
        """The next game into ``slot``: the queue's next, else the next unused seed's."""
        state = next(self.queue, None)
        if state is not None:
            self.restart(slot, state.seed, state)
        else:
            self.restart(slot, self.next_seed)
            self.next_seed += 1

    def restart(self, slot: int, seed: int, state=None) -> None:
        """Start a new game seeded ``seed`` in ``slot`` (the game it held is dropped); with
        ``state``, that game as dealt (a state of the slot's game before any move, seeded
        ``seed``, played as it is)."""
        check_int(slot, "slot", 0, len(self.seeds) - 1, error=ValueError)
        seed = check_int(seed, "seed", 0, MAX_SEED, error=ValueError)
        if state is not None:
            [state] = self._dealt([state], slot=slot)
            if state.seed != seed:
                raise ValueError(f"state was dealt from seed {state.seed}, not {seed}")
        self.seeds[slot] = seed
        self._over[slot] = False
        self.engine.replace(slot, self.variant(slot).new_state(seed) if state is None else state)
        self._hands[slot] = 0  # a game as dealt has finished no hand

    def _dealt(self, states, num_envs=None, slot=None, started=False) -> list:
        """``states`` checked as games as dealt of the slots' games (from ``slot``, else 0);
        with ``started``, as games of theirs not over (moves may have been played)."""
        states = list(states)
        if not states or len(states) > MAX_NUM_ENVS or (num_envs is not None
                                                         and num_envs != len(states)):
            raise ValueError(f"states must hold num_envs ({num_envs}) states, at most "
                             f"{MAX_NUM_ENVS}, got {len(states)}")
        for i, state in enumerate(states, slot or 0):
            variant = self.variants[i % len(self.variants)] if slot is None else self.variant(i)
            same = (state.game.name, state.game.options) == (variant.name, variant.options)
            if started and (not same or state.is_over):
                raise ValueError(f"states[{i}] is not a game of slot {i}'s game in progress")
            if not started and (not same or state.history):
                raise ValueError(f"states[{i}] is not a game of slot {i}'s game before any "
                                 f"move (games in progress need started=True)")
        return states

    def _finish(self, slot: int) -> Finished:
        """The record of the game that just ended in ``slot``."""
        state = self.engine.state(slot)
        return Finished(slot, self.seeds[slot], list(state.returns), list(state.results),
                        list(state.history) if self.keep_history else [],
                        bool(state.truncated))

    def _checked(self, actions) -> np.ndarray:
        """``actions`` as ``(B,)`` int64 if every slot's is legal, else ``ValueError`` naming
        the slot and its value (nothing is applied). An action is a Python or numpy int, never
        a bool (``True`` is not action 1), as everywhere else."""
        array = np.asarray(actions)
        n = len(self.seeds)
        if array.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), one per slot, got {array.shape}")
        integer = np.issubdtype(array.dtype, np.integer)
        if not integer or not isinstance(actions, np.ndarray):
            # a list mixing bools with ints makes an int array, one with ints beyond int64 an
            # object array: look at each slot's own value
            for i, action in enumerate(actions):
                if not is_int(action):
                    raise ValueError(f"slot {i}: action must be an int, got {action!r}")
                if not integer and not 0 <= action < self.num_actions:
                    raise ValueError(f"slot {i}: action {action} is outside "
                                     f"0..{self.num_actions - 1}")
            if not integer:
                array = np.array([int(a) for a in actions], dtype=np.int64)
        # the range is checked before the cast: uint64 2**64-1 must not become -1
        out = np.flatnonzero((array < 0) | (array >= self.num_actions))
        if out.size:
            i = int(out[0])
            raise ValueError(f"slot {i}: action {array[i].item()} is outside "
                             f"0..{self.num_actions - 1}")
        array = array.astype(np.int64, copy=False)
        legal = self.engine.legal(array)
        if not self.refill:
            legal |= self._over  # an over slot's action is ignored
        illegal = np.flatnonzero(~legal)
        if illegal.size:
            i, action = int(illegal[0]), int(array[illegal[0]])
            raise ValueError(f"slot {i} (seed {self.seeds[i]}): action {action} "
                             f"({self.variant(i).action_info(action).text}) is illegal for "
                             f"seat {self.engine.state(i).current_player}")
        return array
