"""The engine contract: what a cardenv game and its states offer, as ``typing.Protocol`` classes.

Everything outside a game's own package (the PettingZoo env, the batched engines, the agents,
training and evaluation) uses only this surface, so a new game plugs in by implementing it and
registering a factory with ``cardenv.games.register``. Dagong and Dabang implement it through
``core.state.CardGame`` / ``CardState``; ``tests/toy_game.py`` implements it from scratch.

Seats are ``0 .. num_players - 1`` in play order; actions are ids ``0 .. num_actions - 1``;
observations and global states are float32 vectors of fixed sizes.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np


@runtime_checkable
class HandResult(Protocol):
    """What a finished hand produced; ``rewards`` is each seat's reward for the hand."""

    rewards: list

    def to_dict(self) -> dict: ...


@runtime_checkable
class GameState(Protocol):
    """One position of an episode (one or more hands)."""

    game: Any  # the Game that made it
    seed: int  # the seed it was dealt from
    history: list[int]  # the actions applied, in order
    results: list  # one HandResult per finished hand
    returns: list  # each seat's total reward so far
    last_rewards: list  # each seat's reward for the last action (non-zero when a hand ended)

    @property
    def current_player(self) -> int:
        """The seat to act, or -1 when the episode is over."""

    @property
    def is_over(self) -> bool: ...

    @property
    def truncated(self) -> bool:
        """Over because an episode limit was reached rather than by the rules."""

    def legal_mask(self) -> np.ndarray:
        """``(num_actions,)`` bool: the legal actions of the seat to act (a new array)."""

    def legal_actions(self) -> list[int]: ...

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` (an int in range) is legal for the seat to act."""

    def apply(self, action: int) -> None:
        """Play ``action`` for the seat to act; ``IllegalActionError`` (state unchanged) if it
        is not legal."""

    def observation(self, seat: int) -> np.ndarray:
        """``(observation_size,)`` float32: what ``seat`` may know."""

    def global_state(self) -> np.ndarray:
        """``(state_size,)`` float32: everything, hidden cards included."""

    def clone(self) -> "GameState": ...

    def to_dict(self) -> dict:
        """The state's recipe as a JSON-compatible dict, at least ``{format, options, seed,
        deal, history, results}`` (``deal``: ``None`` for a seeded game; ``results``: each
        finished hand's ``to_dict()``; ``CardState`` adds ``crc``); ``game.state_from_dict``
        reads it back, and a game record (``cardenv.records``) is this plus players and
        meta."""


@runtime_checkable
class Game(Protocol):
    """A game with fixed options: makes states and answers batched questions about them.

    Optional: ``batch_engine``, a ``BatchEngine`` class that steps many of its states in numpy
    (``cardenv.vector.VectorGame`` uses it when present); ``action_features``, a function
    ``(observations (B, D), rows (M,), actions (M,)) -> (M, F)`` float32 giving what each move
    does from the observation alone, with ``action_feature_pieces`` declaring its ``F``
    columns (``cardenv.core.action_features``). A game without them has neither attribute or
    ``action_features = None``; ``env.action_features`` and ``VectorGame.action_features``
    then raise a ``ValueError`` saying that the game declares none."""

    name: str  # the registry name
    options: dict
    num_players: int
    num_actions: int
    observation_size: int
    state_size: int
    observation_high: np.ndarray  # (observation_size,) largest value of each entry
    state_high: np.ndarray  # (state_size,) largest value of each global-state entry

    def new_state(self, seed: int | None = None) -> GameState: ...

    def replay(self, seed: int, actions, deal: dict | None = None) -> GameState:
        """The state that a deal and the ``actions`` played from it lead to: ``deal=None`` deals
        the shuffle of ``seed``; otherwise ``deal`` is one of the game's custom deals (the
        ``deal`` of a saved state; a game without them raises ``ValueError``).
        ``IllegalActionError`` if an action is illegal (``CardGame`` names the first illegal
        step: ``history[k]: ...``)."""

    def state_from_dict(self, data: dict) -> GameState:
        """The state ``to_dict()`` saved, read back by replaying it; ``StateError`` /
        ``ConfigError`` naming the problem (the first step that does not replay, a field) if
        ``data`` is not a state that play reaches."""

    def action_info(self, action: int) -> Any:
        """A description of an action id with at least ``.text``."""

    def legal_masks(self, states: Sequence[GameState]) -> np.ndarray:
        """``(B, num_actions)`` bool: each state's legal mask, computed in batch where the game
        can (and handed to the states so that ``apply`` need not recompute it)."""

    def observations(self, states: Sequence[GameState], seats=None) -> np.ndarray:
        """``(B, observation_size)`` float32: each state's observation for ``seats[i]`` (default:
        the seat to act)."""

    def global_states(self, states: Sequence[GameState]) -> np.ndarray:
        """``(B, state_size)`` float32."""

    def sides(self, state: GameState) -> tuple[list[int], list[int]]:
        """The two sides of the hand about to be played, as dealt (each a sorted seat list),
        for seating two agents against each other; the hand's true partnerships."""


@runtime_checkable
class BatchEngine(Protocol):
    """Many states of one game stepped together (``cardenv.vector.VectorGame`` drives it).

    A game may name a class of this shape in its optional ``batch_engine`` attribute (made with
    the list of ``B`` states to hold, each maybe of another option variant of the game); without
    one, ``cardenv.vector.SlotBatch`` steps each state by its own ``apply``. An optional class
    attribute ``min_batch`` says below how many games ``SlotBatch`` is faster (VectorGame then
    uses it). Every answer must equal what the states themselves give
    (``tests/cardenv/test_vector.py`` checks both games' engines against ``SlotBatch`` at every
    step).
    """

    def __len__(self) -> int: ...

    def current(self) -> np.ndarray:
        """``(B,)`` int64: the seat to act in each slot."""

    def observations(self, seats=None) -> np.ndarray:
        """``(B, observation_size)`` float32, as ``Game.observations``."""

    def masks(self) -> np.ndarray:
        """``(B, num_actions)`` bool, as ``Game.legal_masks``: a new array each call, the
        caller's to change (``legal`` must not read it)."""

    def global_states(self) -> np.ndarray:
        """``(B, state_size)`` float32."""

    def legal(self, actions: np.ndarray) -> np.ndarray:
        """``(B,)`` bool: whether ``actions[i]`` (in range) is legal in slot ``i``."""

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply one legal action per slot: ``(rewards (B, 4) float, over (B,) bool)``, the
        states' ``last_rewards`` and ``is_over``. An over slot keeps its game until ``replace``
        and is left alone (its action ignored; ``VectorGame(refill=False)`` steps over slots)."""

    def state(self, i: int) -> GameState:
        """Slot ``i``'s state, up to date (to be read, not applied to)."""

    def hands_played(self) -> np.ndarray:
        """``(B,)`` int64: each slot's ``len(results)``, without bringing states up to date."""

    def replace(self, i: int, state: GameState) -> None:
        """Slot ``i`` holds ``state`` (a new game) from now on."""

    def keep(self, rows: np.ndarray) -> None:
        """Hold only the slots ``rows`` (``(m,)`` int64, distinct, in ``0..B-1``, ``m >= 1``;
        the caller checks them, as ``VectorGame.keep`` does), in that order: slot ``j`` is then
        the former slot ``rows[j]``, its game, caches and pending moves with it, and every
        answer after is the one the former slots give (``B`` becomes ``m``). No state object
        is rebuilt for a kept slot. A dropped slot's state is brought up to date and handed
        back (it keeps its content; the engine no longer reads or steps it)."""
