"""Self-play collection in Ray actors for ``train.py`` (``workers: N``, ``ray_address``; the
``[dist]`` extra).

``RayCollector``: ``N`` actors (``RolloutWorker``), each running a ``Collector`` --
``num_envs`` games on the batched engine, the opponents (heuristic, random, frozen snapshots of
the learner), its own seeds. Each iteration the learner's weights go out once (``ray.put``),
every actor plays until it holds its share (``ceil(rollout_samples / N)``) of decisions from
finished episodes, and the driver concatenates the shares in worker order and updates. The
PPO semantics are those of one process: complete episodes only, each decision's log-probability
and value from the weights it was played with. With the same seed and worker count, a run is
the same run.

Faults: an actor that dies (its process or its node) is replaced by a new one on fresh seeds
(new deals: nothing it played is repeated) with the current settings and frozen pool, and its
share is asked of the replacement; a share arrives whole or not at all, so no iteration learns
from a partial or duplicated batch. Where Ray runs: ``cardagents.cluster``.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import ray
import torch

from cardagents.cluster import connect
from cardagents.players.heuristics import heuristic_for
from cardagents.players.random import RandomAgent
from cardagents.ppo.net import make_net
from cardagents.training import selfplay
from cardagents.training.collector import Collector
from cardagents.training.config import (PPO_SEED_STRIDE, WORKER_RESTART_STEP,
                                        WORKER_SEED_BLOCK, CollectorSettings)
from cardagents.training.selfplay import Batch

# what a dead actor or node raises at ray.get (ActorDiedError, ActorUnavailableError, ...)
ActorLost = ray.exceptions.RayActorError


def worker_seed(seed: int, index: int, restart: int) -> int:
    """The seed of worker ``index``'s draws (its ``restart``-th incarnation)."""
    return int(np.random.SeedSequence([seed, index, restart]).generate_state(1)[0])


def first_deal(seed: int, index: int, restart: int) -> int:
    """The first deal's seed of worker ``index`` (each worker and each replacement deals from a
    range of its own)."""
    return seed * PPO_SEED_STRIDE + (index + 1) * WORKER_SEED_BLOCK + restart * WORKER_RESTART_STEP


def pack(batch: Batch) -> dict:
    """A batch for the trip to the driver, smaller and exactly the same once unpacked: masks
    bit-packed (8x), observations and global states as float16 where that loses nothing
    (their entries are small counts and flags: 2x)."""
    out = batch.as_dict()
    out["mask"] = np.packbits(out["mask"], axis=1)
    out["num_actions"] = batch.mask.shape[1]
    for key in ("obs", "state"):
        if key in out:
            half = out[key].astype(np.float16)
            if np.array_equal(half.astype(np.float32), out[key]):
                out[key] = half
    return out


def unpack(data: dict) -> Batch:
    n = data.pop("num_actions")
    data["mask"] = np.unpackbits(data["mask"], axis=1, count=n).astype(bool)
    for key in ("obs", "state"):
        if key in data:
            data[key] = data[key].astype(np.float32)
    return Batch(**data)


@ray.remote(num_cpus=1)
class RolloutWorker:
    """One Ray actor's self-play: a ``Collector`` with weights sent by the driver."""

    def __init__(self, settings: CollectorSettings, hidden, seed: int, index: int, restart: int,
                 pool: list, saved: dict | None = None):
        torch.set_num_threads(1)  # one actor per CPU
        game = settings.game
        own = worker_seed(seed, index, restart)
        try:
            heuristic = heuristic_for(game, own)
        except ValueError:  # a game without one: the config's check keeps it out of the mix
            heuristic = None
        rng = np.random.default_rng(own)
        generator = torch.Generator().manual_seed(own)
        first = first_deal(seed, index, restart)
        if saved:  # resuming a run: where this worker stood at the checkpoint
            rng.bit_generator.state = saved["rng"]
            generator.set_state(saved["generator"])
            first = saved["next_seed"]

        def new_net():
            return make_net(game, hidden, settings.critic, head=settings.head,
                            obs_size=settings.observation_size)

        self.collector = Collector(game, seed, new_net(), new_net, rng, generator,
                                   {"heuristic": heuristic, "random": RandomAgent(game, own)})
        self.collector.deal(settings, first)
        self.collector.set_pool(pool)
        self.reported = 0  # finished games already reported

    def collect(self, weights: dict, samples: int) -> tuple[dict, list]:
        """Play ``samples`` decisions with ``weights``: the packed batch and the results of
        the games finished since the last call."""
        self.collector.net.load_state_dict(weights)
        batch = self.collector.collect(samples)
        self.reported, results = self.collector.results_since(self.reported)
        return pack(batch), results

    def set_pool(self, pool: list) -> None:
        self.collector.set_pool(pool)

    def enter(self, settings: CollectorSettings) -> None:
        self.collector.enter(settings)

    def state(self) -> dict:
        return self.collector.state()

    def node(self) -> str:
        """The id of the Ray node this actor runs on."""
        return ray.get_runtime_context().get_node_id()


class RayCollector:
    """``Collector``'s interface over ``workers`` Ray actors (see the module docstring).

    ``after_dispatch(self)``, if set, is called once an iteration's work is sent (a test kills
    an actor there). ``spare_cpus``: CPUs a local instance keeps beside the actors (for
    ``AsyncEvaluator``'s tasks, which would otherwise wait for the actors to end)."""

    def __init__(self, settings: CollectorSettings, net, hidden, workers: int, seed: int,
                 address: str | None = None, pool: list | None = None,
                 saved: list | None = None, spare_cpus: int = 0):
        connect(address, workers + spare_cpus)
        self.settings, self.net, self.hidden, self.seed = settings, net, hidden, seed
        self.pool = list(pool or [])
        self.restarts = 0  # actors replaced so far
        self.recent: deque = deque(maxlen=400)
        self.after_dispatch = None
        if saved is not None and len(saved) != workers:
            saved = None  # another worker count: fresh seeds
        self.actors = [self._spawn(k, saved[k] if saved else None) for k in range(workers)]

    def _spawn(self, index: int, saved: dict | None = None):
        return RolloutWorker.remote(self.settings, self.hidden, self.seed, index,
                                    self.restarts, self.pool, saved)

    def _replace(self, index: int) -> None:
        self.restarts += 1
        try:
            ray.kill(self.actors[index])
        except Exception:  # noqa: BLE001 -- it is gone already
            pass
        print(f"rollout worker {index} lost; replaced (replacement {self.restarts})",
              flush=True)
        self.actors[index] = self._spawn(index)

    def _all(self, call, after=None) -> list:
        """``call(actor)`` on every actor (a remote method), their results in actor order; a
        lost actor is replaced (built with the current settings and pool) and asked again.
        ``after(self)`` runs once everything is sent."""
        pending = {call(actor): k for k, actor in enumerate(self.actors)}
        if after is not None:
            after(self)
        out = [None] * len(self.actors)
        while pending:
            [ref], _ = ray.wait(list(pending), num_returns=1)
            k = pending.pop(ref)
            try:
                out[k] = ray.get(ref)
            except ActorLost:
                self._replace(k)
                pending[call(self.actors[k])] = k
        return out

    def collect(self, samples: int) -> Batch:
        weights = ray.put({k: v.detach().cpu() for k, v in self.net.state_dict().items()})
        share = math.ceil(samples / len(self.actors))
        # a share arrives whole or not at all: a lost actor's share is asked of its replacement
        parts = self._all(lambda actor: actor.collect.remote(weights, share),
                          after=self.after_dispatch)
        for _, results in parts:
            self.recent.extend(results)
        batches = [unpack(packed) for packed, _ in parts]
        return Batch.concat(batches, batches[0].obs.shape[1], batches[0].mask.shape[1],
                            0 if batches[0].state is None else batches[0].state.shape[1])

    def set_pool(self, pool: list) -> None:
        self.pool = list(pool)
        ref = ray.put(self.pool)
        self._all(lambda actor: actor.set_pool.remote(ref))

    def enter(self, settings: CollectorSettings) -> None:
        self.settings = settings
        self._all(lambda actor: actor.enter.remote(self.settings))

    def state(self) -> list:
        """Each worker's draws and next deal, for a checkpoint."""
        return self._all(lambda actor: actor.state.remote())

    @property
    def next_seed(self) -> int:
        return max(s["next_seed"] for s in self.state())

    def close(self) -> None:
        """Stop the actors (their CPUs go back to the cluster)."""
        for actor in self.actors:
            ray.kill(actor)
        self.actors = []

    def win_rate(self, kind: str = "heuristic") -> float | None:
        return selfplay.win_rate(self.recent, kind)

    def mean_payoff(self, kind: str = "heuristic") -> float | None:
        return selfplay.mean_payoff(self.recent, kind)
