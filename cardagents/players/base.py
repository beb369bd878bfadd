"""The one agent interface used everywhere (training, evaluation, the envs' users).

An agent plays one game (``game``: a name in ``cardenv.games``' registry). ``act(observation)``
takes
the env's observation dict (``{"observation": float32 vector, "action_mask": int8 vector}``) and
returns a legal action id; ``act_batch(observations, masks)`` does the same for ``(B, D)`` and
``(B, N)`` arrays and returns ``(B,)`` action ids. Agents see only what the observation holds;
they may also read the game's public action descriptions (``make_game(name).action_info``, or
``cardenv.<game>.catalogue.ACTIONS`` for a game-specific player) and decode the observation by
name (``cardagents.players.observation.ObsView``).

A search agent (``cardagents.search.pimc.PIMCAgent``) needs the position itself, not only the acting
seat's view of it: it sets ``needs_state = True`` and implements ``act_states(states)``, one
legal action per rules-engine state (``core.protocol.GameState``, the seat to act being each
state's ``current_player``). ``cardagents.players.lockstep.play_seated`` passes such an agent the
slots' states (to read, never to change) instead of observations and masks; such an agent promises
to read only what the acting seat may know (its sampler of hidden cards does, and a test checks that
its decision does not move when only hidden cards change).
"""

from __future__ import annotations

import numpy as np

from cardenv.games import check_name


class Agent:
    """Base class: subclasses implement ``act_batch`` or ``act`` (each defaults to the other)."""

    game: str = ""
    name: str = "agent"
    needs_state: bool = False  # True: play_seated calls act_states(states), not act_batch

    def act_states(self, states) -> np.ndarray:
        """``(B,)`` actions for the seat to act in each of ``states`` (agents with
        ``needs_state``; the others decide from observations)."""
        raise NotImplementedError(f"{self!r} decides from observations (act_batch), not states")

    def act(self, observation: dict) -> int:
        obs = np.asarray(observation["observation"])[None]
        mask = np.asarray(observation["action_mask"])[None]
        return int(self.act_batch(obs, mask)[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([self.act({"observation": o, "action_mask": m})
                         for o, m in zip(observations, masks)], dtype=np.int64)

    def reseed(self, seed: int) -> None:
        """Restart the agent's random choices from ``seed``. Evaluation does this at each
        chunk of deals, so that a result does not depend on how the deals are split between
        processes. The default is for an agent that draws nothing at random."""

    def __repr__(self):
        return f"{type(self).__name__}({self.game})"


def check_game(game: str) -> str:
    """``game`` if it is a registered game name, else a ``ValueError`` listing them."""
    return check_name(game)
