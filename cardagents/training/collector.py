"""The learner's self-play in one process, as ``train.py`` runs it: its games and opponents
under a stage's settings, the policy that acts for it, and the batches of finished episodes it
collects (``Collector``). ``train.py`` runs one in its own process (``workers: 0``);
``cardagents.training.remote`` runs one in each Ray actor and merges their batches.

Settings (``CollectorSettings``) are a frozen copy of the training config's fields that
collection reads, and the precision the learner acts in (its frozen snapshots act in float32,
together: ``cardagents.ppo.frozen``), so that a remote process needs nothing of ``train.py``;
``cardagents.training.config.collector_settings`` makes them from a (stage's) config
(both live there, torch-free).
"""

from __future__ import annotations

import numpy as np
import torch

from cardagents.ppo.compute import autocast
from cardagents.ppo.frozen import FrozenPool
from cardagents.training.config import CollectorSettings
from cardagents.training.opponents import make_opponents
from cardagents.training.rewards import shaping_for
from cardagents.training.rewards.match_value import match_value_for
from cardagents.training.selfplay import Batch, SelfPlay
from cardenv.vector import VectorGame


class Collector:
    """Self-play of ``net`` (the learner) against the opponents of ``settings``.

    Args:
        game, seed: the game, and the run's seed (the frozen snapshots' sampling seed).
        net: the learner's ``PolicyNet`` (acted with, never trained here).
        make_net: builds an empty network of the same shape (for frozen snapshots).
        rng: numpy generator of the seating and opponent draws.
        generator: torch generator of the learner's sampled actions.
        players: the opponents the caller holds, ``{"heuristic": agent or None, "random":
            agent}``; the others a mix names (checkpoints, search specs) are made when a stage
            first names them (``cardagents.training.opponents.make_opponents``).
    """

    def __init__(self, game: str, seed: int, net, make_net, rng: np.random.Generator,
                 generator: torch.Generator, players: dict):
        self.game, self.seed = game, seed
        self.net, self.make_net = net, make_net
        self.rng, self.generator = rng, generator
        self.held = dict(players)
        self.players: dict = {}  # opponent name -> (agent, snapshot), as make_opponents
        self.frozen: list = []
        self.settings: CollectorSettings | None = None
        self.games = self.selfplay = None

    def deal(self, settings: CollectorSettings, first_seed: int, batched: bool = True) -> None:
        """New games under ``settings`` from seed ``first_seed``, the learner and its
        opponents seated (``batched=False``: each state stepped by its own ``apply``, as
        ``VectorGame`` takes it)."""
        self.settings = settings
        self._meet(settings.opponents)
        self.games = VectorGame(list(settings.games), settings.num_envs, seed=first_seed,
                                batched=batched, refill=not settings.pair_bonus)
        self.selfplay = SelfPlay(
            self.games, self.rng, settings.opponents, self.players, settings.gamma,
            settings.gae_lambda, shaping=shaping_for(settings.game),
            shaping_weight=settings.score_shaping,
            with_states=settings.critic != "local",
            # a critic of its own: its values come from the learner, batch by batch
            values_later=settings.critic != "local",
            match_value=match_value_for(settings.reward, settings.games),
            pair_bonus=settings.pair_bonus)
        self.selfplay.frozen = self.frozen

    def enter(self, settings: CollectorSettings) -> None:
        """Switch to a stage's ``settings``: its opponent mix and shaping from the next game
        seated on; new games if it changes the options or turns deal pairs on or off (the hands in
        progress are dropped)."""
        if settings.options != self.settings.options \
                or bool(settings.pair_bonus) != bool(self.settings.pair_bonus):
            self.deal(settings, self.games.next_seed)  # (deal pairs or not: new games too)
            return
        self.settings = settings
        self._meet(settings.opponents)
        self.selfplay.opponents = dict(settings.opponents)
        self.selfplay.shaping_weight = settings.score_shaping
        self.selfplay.pair_bonus = float(settings.pair_bonus)
        self.selfplay.shaping = shaping_for(settings.game) if settings.score_shaping \
            else None
        reward = settings.reward
        if reward != self.selfplay_reward:
            self.selfplay.set_match_value(match_value_for(reward, settings.games))

    def _meet(self, opponents: dict) -> None:
        """Make the agents of the mix's names met for the first time (the same objects stay
        in ``players``, which the ``SelfPlay`` shares)."""
        new = [name for name in opponents if name != "frozen" and name not in self.players]
        if new:
            self.players.update(make_opponents(new, self.game, self.seed, self.held))

    @property
    def selfplay_reward(self) -> str:
        """The reward the seated games learn from: "hand" or "match"."""
        return "hand" if self.selfplay.match_value is None else "match"

    def set_pool(self, pool: list) -> None:
        """The frozen snapshots (state dicts) the ``frozen`` opponents are drawn from, acting
        together (``cardagents.ppo.frozen``; games in progress keep the pool they were seated
        with)."""
        self.frozen = FrozenPool([self._frozen_net(sd) for sd in pool], self.seed) if pool \
            else []
        if self.selfplay is not None:
            self.selfplay.frozen = self.frozen

    def _frozen_net(self, state_dict):
        net = self.make_net()
        net.load_state_dict(state_dict)
        return net

    def policy(self, obs: np.ndarray, masks: np.ndarray, states: np.ndarray | None = None):
        """The learner's sampled actions, log-probabilities and values (numpy); ``states``
        (global states) feed a global critic (without them its values are ``None``: they come
        later, from the learner; see ``SelfPlay``'s ``values_later``)."""
        # (in collect's autocast region)
        action, logp, value = self.net.act(
            torch.as_tensor(obs), torch.as_tensor(masks), generator=self.generator,
            state=None if states is None else torch.as_tensor(states))
        return (action.numpy(), logp.numpy(),
                None if value is None else value.numpy().astype(np.float64))

    def collect(self, samples: int) -> Batch:
        """Play until ``samples`` learner decisions of finished episodes are ready."""
        # one autocast region over the whole collection, not one per step: autocast keeps
        # the bf16 copies of the weights it casts until the region ends, and the weights do
        # not change while collecting (a region per step cast them anew at every step, which
        # cost more than bf16 saved on batches of 64-128 rows)
        with autocast(self.settings.precision):
            return self.selfplay.collect(self.policy, samples)

    def results(self) -> list:
        """(opponent kind, learner side's reward) of the recent finished games."""
        return list(self.selfplay.recent)

    def results_since(self, done: int) -> tuple[int, list]:
        """The games finished so far, and the results (as ``results``) of those finished since
        ``done`` had: all of them that are still kept (the last 400). A Ray worker reports
        these to the driver after each share."""
        finished, recent = self.selfplay.games_done, self.selfplay.recent
        fresh = min(finished - done, len(recent))
        return finished, list(recent)[len(recent) - fresh:]

    def win_rate(self, kind: str = "heuristic") -> float | None:
        return self.selfplay.win_rate(kind)

    def mean_payoff(self, kind: str = "heuristic") -> float | None:
        return self.selfplay.mean_payoff(kind)

    def state(self) -> dict:
        """Where its draws and deals stand (a Ray worker's part of a checkpoint)."""
        return {"rng": self.rng.bit_generator.state, "generator": self.generator.get_state(),
                "next_seed": self.next_seed}

    def close(self) -> None:
        """Nothing to release in one process (``RayCollector.close`` stops its actors)."""

    @property
    def next_seed(self) -> int:
        return self.games.next_seed
