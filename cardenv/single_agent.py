"""One learner seat as a single-agent Gymnasium env, the other three seats played inside it.

``SingleAgentEnv(game, seat=0, opponents=("random", "random", "random"))`` is a
``gymnasium.Env`` for any registered game (``"dagong"``, ``"dabang"``): each ``step`` plays the
learner's action, then the opponents' moves until the learner is to act again (or the episode
ends). After ``import cardenv``, ``gymnasium.make("cardenv/Dagong-v0", ...)`` and
``gymnasium.make("cardenv/Dabang-v0", ...)`` build it (``"cardenv:cardenv/Dagong-v0"`` imports
cardenv itself). With sb3-contrib's MaskablePPO (``pip install -e ".[sb3]"``)::

    import gymnasium
    import cardenv  # noqa: F401  (registers the ids)
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("cardenv/Dagong-v0", seat=0, opponents="heuristic")
    model = MaskablePPO("MlpPolicy", env, n_steps=256, seed=0).learn(2_000)
    obs, info = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks())

### Arguments

``SingleAgentEnv(game, seat=0, opponents=("random",) * 3, render_mode=None, lang="zh",
illegal_action="raise", **options)``

* ``game``: a registered game name; ``options`` are its rules options, given to
  ``cardenv.games.make_game`` (which raises ``ConfigError``, a ``ValueError``, for a bad one).
  Through ``gymnasium.make`` the id fixes ``game``.
* ``seat``: the learner's seat, ``0 .. 3``, or ``"random"``: drawn from the env's ``np_random``
  at every ``reset`` (``info["seat"]`` and ``env.seat`` say which).
* ``opponents``: the players of the other seats, through ``cardenv.player_specs.load_player``:
  ``"random"``, ``"heuristic"``, a checkpoint path (``"checkpoints/dagong_ppo.pt"``) or an object
  with ``act(observation_dict) -> int`` (the AEC env's dict: ``"observation"`` float32,
  ``"action_mask"`` int8). One spec plays all three seats; a sequence of three gives the other
  seats in seat order, skipping the learner's (seat 0 learning: seats 1, 2, 3; seat 2: 0, 1, 3).
  A spec is loaded once and shared by the seats that name it. A bad spec or count, or a bad
  ``seat``, is a ``ValueError`` saying what was expected.
* ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"``
  (printed at every reset and step): the learner seat's view, ``cardenv.text.render(state,
  seat=env.seat)``, in ``lang`` (``"zh"`` or ``"en"``, see ``cardenv.core.lang``).
* ``illegal_action``: ``"raise"`` (default): an illegal action raises ``IllegalActionError`` (a
  ``ValueError``) naming the action and the number of legal ones, and changes nothing;
  ``"lose"``: the episode ends there (``terminated``) with reward -1 for the learner, PettingZoo's
  convention (the AEC ``env()``'s), and ``info["illegal_action"] = True``. ``"lose"`` is for
  code that steps unmasked actions, such as ``gymnasium.utils.env_checker.check_env``. A value
  that is not an action id at all (out of range, not an int) is a ``ValueError`` in both modes.

### Spaces, masks and info

``observation_space`` is the seat's observation, ``Box(0, game.observation_high)`` float32 (the
``"observation"`` of the AEC env; its layout is in the game's env docs); ``action_space`` is
``Discrete(game.num_actions)``. ``action_masks()`` is the learner's legal mask as a bool array
(all False once the episode is over): the method sb3-contrib's ``MaskablePPO`` calls, reached
through ``gymnasium.make``'s wrappers by ``env.get_wrapper_attr("action_masks")``. The same mask
is ``info["action_mask"]`` of every ``reset`` and ``step``, with ``info["seat"]``; ``reset``'s
info adds ``"deal_seed"`` (the state's seed: ``game.new_state(deal_seed)`` deals the same game),
and a step during which hands ended adds ``"hand_results"`` (their ``to_dict()`` in the fixed
shape of ``cardenv.envs.aec.result_info``: -1 or "" for None, seat lists padded with -1; in
order).

### Rewards and episode end

A step's reward is the learner seat's reward accumulated since its previous decision: the sum of
``state.last_rewards[seat]`` after its own action and after every opponent move that followed
(the first step's reward also holds whatever came before the learner's first decision). So the
rewards of an episode sum to ``state.returns[seat]``. The rewards are the games' hand payoffs
(non-zero on the move that ends a hand), see the AEC envs' docs.

``terminated`` is ``state.is_over and not state.truncated`` (the rules ended the episode);
``truncated`` is ``state.truncated`` (Dabang's ``max_hands`` in match episodes). A ``step``
after the end, or before ``reset``, raises ``RuntimeError``.

If a deal ends before the learner ever acts (not seen in random play of either game, Dabang
matches included, but a game or an option may allow it), ``reset`` deals again from a seed
drawn from ``np_random`` (``info["redeals"]`` counts them; after ``MAX_REDEALS`` in a row it
raises ``RuntimeError``), so that ``reset`` always returns a position where the learner is to
act.

### Attributes

``game`` (the rules engine), ``game_state`` (the episode's state, to read, not to apply to),
``seat`` (the learner's seat this episode), ``opponents`` (the players, in seat order skipping
the learner's), ``players`` (seat -> player this episode); ``describe_action(a)`` is an action's
text in ``lang``.

### Seeding

``reset(seed=s)`` deals ``game.new_state(s)`` (the AEC env's ``reset(seed=s)`` deal), seeds
``np_random`` (the random seat, redeals, and the deals of later unseeded resets) and reseeds
every opponent that has ``reseed(seed)`` from ``s``, so the same seed and actions give the same
observations, rewards and infos. ``reset()`` without a seed continues from the last seeded one.

### Version History

* v0: initial release (cardenv 0.1.0)
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
from gymnasium import spaces

from cardenv.core.checks import action_id, check_int
from cardenv.core.errors import ConfigError, IllegalActionError
from cardenv.core.lang import check_lang, translate
from cardenv.core.state import MAX_SEED
from cardenv.envs.aec import check_render_mode, renders, result_info
from cardenv.games import make_game
from cardenv.player_specs import decide, load_player, player_name
from cardenv.text import render

__all__ = ["SingleAgentEnv", "ILLEGAL_ACTION_MODES", "MAX_REDEALS"]

ILLEGAL_ACTION_MODES = ("raise", "lose")
ILLEGAL_REWARD = -1.0  # the learner's reward for an illegal action under illegal_action="lose"
MAX_REDEALS = 100  # deals in a row that end before the learner acts before reset gives up
_DEAL_SEEDS = 2**31  # unseeded resets and redeals draw deal seeds in 0 .. _DEAL_SEEDS - 1


def _opponent_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th distinct opponent after ``reset(seed=seed)``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


class SingleAgentEnv(gymnasium.Env):
    """One learner seat of a four-player card game, the other seats played by ``opponents``;
    see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, game: str, seat: int | str = 0, opponents=("random", "random", "random"),
                 render_mode: str | None = None, lang: str = "zh",
                 illegal_action: str = "raise", **options):
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ConfigError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got "
                              f"{illegal_action!r}")
        self.lang = check_lang(lang)
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.illegal_action = illegal_action
        self.game = make_game(game, **options)
        num_players = self.game.num_players
        if seat != "random" and (isinstance(seat, (bool, np.bool_))
                                 or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < num_players):
            raise ValueError(f"seat must be a seat 0..{num_players - 1} or 'random', got "
                             f"{seat!r}")
        self.seat_spec = seat if seat == "random" else int(seat)
        self.opponents = self._load_opponents(opponents)
        self.observation_space = spaces.Box(low=0.0, high=self.game.observation_high,
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.seat: int | None = None if seat == "random" else int(seat)
        self.players: dict = {}  # seat -> opponent player, for the current episode
        self.game_state = None
        self._pending = 0.0  # learner reward from moves before its first decision
        self._done = False

    def _load_opponents(self, opponents) -> list:
        """The ``num_players - 1`` opponent players, in seat order skipping the learner's."""
        count = self.game.num_players - 1
        if isinstance(opponents, str) or hasattr(opponents, "act"):
            specs = [opponents] * count
        else:
            try:
                specs = list(opponents)
            except TypeError:
                specs = None
            if specs is None or len(specs) != count:
                got = f"{len(specs)} of them" if specs is not None else repr(opponents)
                raise ValueError(f"opponents: give one player for all {count} other seats, or a "
                                 f"sequence of {count} in seat order skipping the learner's "
                                 f"seat (each 'random', 'heuristic', a checkpoint path or an "
                                 f"object with act()); got {got}")
        loaded: dict = {}  # spec string -> player, so that a spec is loaded once
        players = []
        for index, spec in enumerate(specs):
            key = spec if isinstance(spec, str) else id(spec)
            if key not in loaded:
                try:
                    loaded[key] = load_player(spec, self.game.name, seed=len(loaded))
                except ValueError as exc:
                    raise ValueError(f"opponents[{index}] ({spec!r}): {exc}") from None
            players.append(loaded[key])
        return players

    # --- episode ----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new deal (``game.new_state(seed)`` when seeded), the opponents' moves played
        until the learner is to act; returns ``(observation, info)``."""
        check_int(seed, "seed", 0, MAX_SEED, optional=True, error=ValueError)
        super().reset(seed=None if seed is None else int(seed))
        if options:
            warnings.warn(f"reset() ignores options {sorted(options)}; rules options belong to "
                          "the constructor", stacklevel=2)
        num_players = self.game.num_players
        if self.seat_spec == "random":
            self.seat = int(self.np_random.integers(num_players))
        others = [s for s in range(num_players) if s != self.seat]
        self.players = dict(zip(others, self.opponents))
        if seed is not None:
            distinct = list({id(p): p for p in self.opponents}.values())
            for index, player in enumerate(distinct):
                if hasattr(player, "reseed"):
                    player.reseed(_opponent_seed(seed, index))
        deal_seed = seed if seed is not None else self._draw_seed()
        for redeals in range(MAX_REDEALS + 1):
            state = self.game.new_state(deal_seed)
            self.game_state = state
            pending = self._play_opponents()
            if not state.is_over:
                break
            deal_seed = self._draw_seed()
        else:
            raise RuntimeError(f"{MAX_REDEALS + 1} deals in a row ended before seat {self.seat} "
                               f"could act")
        self._pending = pending
        self._done = False
        info = self._info()
        info["deal_seed"] = state.seed
        if redeals:
            info["redeals"] = redeals
        if self.render_mode == "human":
            self.render()
        return state.observation(self.seat), info

    def step(self, action):
        """The learner plays ``action``, then the opponents until its next turn or the end:
        ``(observation, reward, terminated, truncated, info)``."""
        if self.game_state is None:
            raise RuntimeError("step() before reset(): call env.reset(seed=...) first")
        if self._done:
            raise RuntimeError("step() after the episode ended (terminated or truncated): call "
                               "env.reset() for a new one")
        action = self._action_id(action)
        state = self.game_state
        if not state.is_legal(action):
            if self.illegal_action == "raise":
                legal = int(state.legal_mask().sum())
                raise IllegalActionError(
                    f"action {action} ({self.describe_action(action)}) is not legal for seat "
                    f"{self.seat}, which has {legal} legal action{'s' * (legal != 1)}: "
                    f"action_masks() (or info['action_mask']) marks them")
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            return state.observation(self.seat), ILLEGAL_REWARD, True, False, info
        hands_before = len(state.results)
        state.apply(action)
        reward = self._pending + float(state.last_rewards[self.seat])
        self._pending = 0.0
        reward += self._play_opponents()
        self._done = state.is_over
        truncated = bool(state.truncated)
        terminated = bool(state.is_over) and not truncated
        info = self._info()
        if len(state.results) > hands_before:
            info["hand_results"] = [result_info(r, self.game.num_players)
                                    for r in state.results[hands_before:]]
        if self.render_mode == "human":
            self.render()
        return state.observation(self.seat), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """``(num_actions,)`` bool: the learner's legal actions (all False once the episode is
        over); sb3-contrib's ``MaskablePPO`` reads it."""
        if self.game_state is None:
            raise RuntimeError("action_masks() before reset(): call env.reset(seed=...) first")
        if self._done or self.game_state.is_over:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self.game_state.legal_mask()

    def _play_opponents(self) -> float:
        """Opponents' moves until the learner is to act or the game is over; the learner's
        reward over them."""
        state = self.game_state
        reward = 0.0
        while not state.is_over and state.current_player != self.seat:
            seat = state.current_player
            player = self.players[seat]
            observation = {"observation": state.observation(seat),
                           "action_mask": state.legal_mask().view(np.int8)}
            action = decide(player, state, observation)
            if not (isinstance(action, (int, np.integer)) and 0 <= action < self.game.num_actions
                    and state.is_legal(int(action))):
                raise ValueError(f"opponent {player_name(player)} at seat {seat} chose "
                                 f"{action!r}, not a legal action id")
            state.apply(int(action))
            reward += float(state.last_rewards[self.seat])
        return reward

    def _action_id(self, action) -> int:
        """``action`` as an int id, or a ``ValueError`` saying why it is none."""
        return action_id(action, self.game.num_actions)

    def _draw_seed(self) -> int:
        return int(self.np_random.integers(_DEAL_SEEDS))

    def _info(self) -> dict:
        return {"seat": self.seat, "action_mask": self.action_masks()}

    # --- text -------------------------------------------------------------------------------

    def describe_action(self, action: int) -> str:
        """Human string of an action id in the env's ``lang``."""
        return translate(self.game.action_info(action).text, self.lang)

    def render(self) -> str | None:
        """The learner seat's view of the table (its hand, counts of the others, the public
        play), printed (``"human"``) or returned (``"ansi"``)."""
        if not renders(self.render_mode, self.metadata["render_modes"]):
            return None
        if self.game_state is None:
            raise RuntimeError("render() before reset(): call env.reset(seed=...) first")
        text = render(self.game_state, seat=self.seat, lang=self.lang)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
