"""A PettingZoo AEC environment over any cardenv rules engine.

The engine supplies a *game* (``new_state(seed)``, ``num_actions``, ``num_players``, the layout,
``action_info``) and *states* with ``current_player``, ``is_over``, ``legal_mask()``,
``apply(action)``, ``observation(seat)``, ``global_state()``, ``last_rewards``, ``results`` (one
result per finished hand, with ``to_dict()``) and a text renderer.

``lang`` (``"zh"``, the default, or ``"en"``; see ``cardenv.core.lang``) is the language of
``render()`` and ``describe_action()``: ``"en"`` replaces the games' Chinese terms by English
names. It is not a rules option: observations, masks, seeds and saved states do not depend on it,
and ``action_info(a).text`` keeps the Chinese terms.

When a hand ends, every agent's ``infos`` holds ``{"hand_over": True, "hand_result": {...}}``
for that step (the result as a dict of fixed shape, ``result_info``); otherwise ``infos`` are
empty. Everything
PettingZoo-specific (agents, spaces, rewards bookkeeping, dead steps, rendering modes) is written
here once, for both games.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cardenv.core.action_features import features_of
from cardenv.core.checks import action_id
from cardenv.core.errors import ConfigError
from cardenv.core.lang import check_lang, translate


class CardGameEnv(AECEnv):
    """Four seats ``player_0..player_3`` in play order; Dict observations with an int8 mask.

    Subclasses set ``metadata`` and pass the game and a text renderer to ``__init__``;
    ``lang`` is the language of ``render()`` and ``describe_action()`` (``"zh"`` or ``"en"``).
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "is_parallelizable": False}

    def __init__(self, game, render_text: Callable[[Any], str], render_mode: str | None = None,
                 lang: str = "zh"):
        super().__init__()
        self.lang = check_lang(lang)
        self.game = game
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self._render_text = render_text
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        layout = game.layout
        n = game.num_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=layout.observation_high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.state_space = spaces.Box(low=0.0, high=layout.state_high, dtype=np.float32)
        self._zero_mask = np.zeros(n, dtype=np.int8)
        self.game_state = None

    def _agent(self, agent):
        """``agent`` if it is one of ``possible_agents``, else a ``ValueError`` naming them."""
        if not isinstance(agent, str) or agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}: the agents are "
                             f"{', '.join(self.possible_agents)}")
        return agent

    def observation_space(self, agent):
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._agent(agent)]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new episode from ``seed``; ``options={"state": d}`` resumes the serialized state ``d``
        (``state.to_dict()``) instead. Rules options belong to the constructor."""
        options = dict(options or {})
        saved = options.pop("state", None)
        if options:
            warnings.warn(f"reset() ignores unknown options {sorted(options)}; rules options "
                          "belong to the constructor", stacklevel=2)
        if saved is not None:
            self.game_state = self.game.state_from_dict(saved)
            if self.game_state.game.options != self.game.options:
                raise ConfigError(f"the saved state was played with options "
                                  f"{self.game_state.game.options}, this env has "
                                  f"{self.game.options}")
        else:
            self.game_state = self.game.new_state(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._hand_just_ended = False
        self._hands_reported = len(self.game_state.results)
        if self.game_state.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[0]
        else:
            self.agent_selection = self.possible_agents[self.game_state.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.game_state is None:
            raise RuntimeError("observe() before reset(): call env.reset(seed=...) first")
        state = self.game_state
        seat = self._seat.get(agent) if isinstance(agent, str) else None
        if seat is None:
            self._agent(agent)  # raises, naming the agents
        if agent == self.agent_selection and not state.is_over:
            mask = state.legal_mask().view(np.int8)
        else:
            mask = self._zero_mask.copy()
        # a state may offer the observation of a seat known to be one, unchecked (CardState's
        # seat_observation: the env numbered the seat itself); the contract's is observation
        unchecked = getattr(state, "seat_observation", None)
        observation = state.observation(seat) if unchecked is None else unchecked(seat)
        return {"observation": observation, "action_mask": mask}

    def action_features(self, agent: str | None = None) -> np.ndarray:
        """``(L, F)`` float32: what each legal action of ``agent`` (default: the agent to act)
        does, in the order of ``np.flatnonzero(observe(agent)["action_mask"])`` (``L = 0`` for
        an agent not to act). The game's ``action_features`` of the agent's observation
        (``cardenv.core.action_features``; the columns are the env docstring's feature table):
        a function of the observation alone. ``ValueError`` if the game declares none."""
        function = features_of(self.game)
        if agent is None:
            agent = self.agent_selection
        seen = self.observe(agent)
        legal = np.flatnonzero(seen["action_mask"])
        return function(seen["observation"][None], np.zeros(legal.size, np.int64), legal)

    def describe_action(self, action: int) -> str:
        """Human string of an action id in the env's ``lang``, e.g. ``"bomb 6x9 with 2 jokers"``;
        ``"7喜 7x9"`` is ``"7-joy 7x9"`` with ``lang="en"``."""
        return translate(self.game.action_info(action).text, self.lang)

    def action_info(self, action: int):
        """Structured description of an action id (type, ranks, jokers, suit, text, ...). Its
        ``text`` keeps the games' Chinese terms whatever ``lang`` is; ``describe_action`` is the
        translated one."""
        return self.game.action_info(action)

    def state(self) -> np.ndarray:
        """The global state (every hand included), for centralised critics."""
        return self.game_state.global_state()

    def step(self, action) -> None:
        if self.game_state is None:
            raise RuntimeError("step() before reset(): call env.reset(seed=...) first")
        if not self.agents:
            raise RuntimeError("the game is over and every agent has stepped out: call "
                               "env.reset() for a new one")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        state.apply(action)  # raises IllegalActionError (a ValueError) and changes nothing
        self._cumulative_rewards[agent] = 0
        if len(state.results) != self._hands_reported:  # this action ended a hand
            self._hands_reported = len(state.results)
            self.rewards = {a: state.last_rewards[i] for i, a in enumerate(self.possible_agents)}
            self._accumulate_rewards()
            result = result_info(state.results[-1], len(self.possible_agents))
            self.infos = {a: {"hand_over": True, "hand_result": result} for a in self.agents}
            self._hand_just_ended = True
        elif self._hand_just_ended:
            self.rewards = dict.fromkeys(self.agents, 0)
            self.infos = {a: {} for a in self.agents}
            self._hand_just_ended = False
        if state.is_over:
            if getattr(state, "truncated", False):
                self.truncations = dict.fromkeys(self.agents, True)
            else:
                self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[
                (self._seat[agent] + 1) % len(self.possible_agents)]
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if not renders(self.render_mode, self.metadata["render_modes"]):
            return None
        text = translate(self._render_text(self.game_state), self.lang)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def result_info(result, num_players: int) -> dict:
    """A finished hand's result (``result.to_dict()``) in the fixed shape replay buffers need
    (Tianshou's stacks every info it sees): a field that may be None holds -1 where it is a
    seat or number and "" where it is a word; a list of seats that may be short (Dagong's
    ``places`` and ``winners``) is padded with -1 to one entry per seat. Every other field is
    as ``to_dict()`` gives it."""
    data = result.to_dict()
    for f in dataclasses.fields(result):
        kind, value = str(f.type), data[f.name]
        if value is None:
            data[f.name] = "" if "str" in kind else -1
        elif kind == "list[int]" and len(value) < num_players:
            data[f.name] = list(value) + [-1] * (num_players - len(value))
    return data


def check_render_mode(render_mode, modes: list[str]) -> str | None:
    """``render_mode`` as the env keeps it. One it cannot draw (``"rgb_array"``, which
    ``gymnasium.make`` and SB3's ``make_vec_env`` pass) is warned about, as Gymnasium warns,
    and kept: ``render()`` then warns again and returns None. A non-string is a ``ConfigError``."""
    if render_mode is not None and not isinstance(render_mode, str):
        raise ConfigError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
    if render_mode is not None and render_mode not in modes:
        gymnasium.logger.warn(f"render_mode {render_mode!r} is not one this env draws ({modes}):"
                              f" render() will return None")
    return render_mode


def renders(render_mode, modes: list[str]) -> bool:
    """Whether ``render()`` draws in ``render_mode`` (one of the env's ``modes``); warns, as
    Gymnasium does, where it does not."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode="
                              "'ansi' or 'human' to the constructor")
        return False
    if render_mode not in modes:
        gymnasium.logger.warn(f"render() in render_mode {render_mode!r} draws nothing; pass "
                              f"render_mode='ansi' or 'human' to the constructor")
        return False
    return True


class CheckActionWrapper(wrappers.BaseWrapper):
    """What PettingZoo's ``AssertOutOfBoundsWrapper`` checks -- an action id of the action
    space, or ``None`` for an agent that is done -- with a ``ValueError`` that says what was
    wrong instead of ``AssertionError: action is not in action space``."""

    def step(self, action) -> None:
        agent = self.agent_selection
        done = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        n = self.action_space(agent).n
        if action is None:
            if not done:
                raise ValueError(f"step(None) is for an agent that is done; {agent} is to play: "
                                 f"give an action id in 0..{n - 1} (observation"
                                 f"['action_mask'] marks the legal ones)")
        else:
            action = action_id(action, n)
        super().step(action)


def wrap(env: AECEnv) -> AECEnv:
    """PettingZoo's classic wrappers: an illegal move ends the game with -1 for the offender;
    a value that is not an action id at all is a ``ValueError``."""
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = CheckActionWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)
