"""Scale-out on Ray (the ``[dist]`` extra): self-play collection in Ray actors for
``train.py`` (``workers: N``, ``ray_address``) and evaluation chunks as Ray tasks for
``python -m agents.evaluate --workers N`` and ``python -m agents.league --workers N``. The
only module of the project that imports Ray.

Training (``RayCollector``): ``N`` actors (``RolloutWorker``), each running a ``Collector`` --
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
from a partial or duplicated batch. Evaluation chunks are deterministic (see
``agents.duplicate``), so Ray's own task retries are safe.

Where Ray runs: ``address=None`` starts a local instance with at least as many CPUs as workers;
``"auto"`` or ``"host:port"`` joins a cluster started with ``ray start`` (every node needs this
project installed in the same Python environment). A ``host:port`` is first tried with one TCP
connection of at most ``PROBE_SECONDS`` (10 s), because ``ray.init`` waits minutes for an
address where nothing listens: an unreachable address fails at once with ``Unreachable``, one
line naming it.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import time
from collections import deque

import numpy as np
import ray
import torch

from agents.collector import Collector
from agents.duplicate import chunk_seed, combine, deal_chunks, play_pairs
from agents.heuristics import heuristic_for
from agents.ppo import make_net
from agents.random_agent import RandomAgent
from agents import selfplay
from agents.selfplay import Batch

# what a dead actor or node raises at ray.get (ActorDiedError, ActorUnavailableError, ...)
ActorLost = ray.exceptions.RayActorError


PROBE_SECONDS = 10.0  # how long connect waits for a TCP answer at a "host:port" address


class Unreachable(ConnectionError):
    """A Ray address that cannot be joined; the message is one line naming it."""


def address_problem(address: str, timeout: float = PROBE_SECONDS) -> str | None:
    """Why nothing can be joined at ``address`` (``"host:port"`` or ``"ray://host:port"``),
    found with one TCP connection of at most ``timeout`` seconds; ``None`` if something
    listens there, or for ``"auto"`` (Ray looks for the cluster itself and says if none runs)."""
    if address in ("auto", "local"):
        return None
    target = address.split("://", 1)[-1]
    host, sep, port = target.rpartition(":")
    host = host.strip("[]")  # an IPv6 address, [::1]:6379
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return "it is neither 'auto' nor 'host:port'"
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            return None
    except socket.timeout:
        return f"no answer within {timeout:g} s"
    except OSError as exc:
        return f"nothing answers there ({exc.strerror or exc})"


def connect(address: str | None = None, workers: int = 1) -> None:
    """Join the Ray cluster at ``address`` or start a local instance (CPUs for ``workers``
    actors or tasks at least); nothing if Ray is already running in this process.
    ``Unreachable`` (one line) for an address that cannot be joined."""
    if ray.is_initialized():
        return
    if address:
        problem = address_problem(address)
        if problem:
            raise Unreachable(f"cannot join the Ray cluster at {address!r}: {problem}")
        try:
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=True)
        except (ConnectionError, RuntimeError, ValueError) as exc:  # e.g. "auto" and none runs
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise Unreachable(f"cannot join the Ray cluster at {address!r}: {first}") from None
    else:
        # address="local": always a new instance, never a cluster some other process left
        # running (with which num_cpus would be an error)
        ray.init(address="local", num_cpus=max(os.cpu_count() or 1, workers),
                 include_dashboard=False, logging_level=logging.WARNING, log_to_driver=True)


def worker_seed(seed: int, index: int, restart: int) -> int:
    """The seed of worker ``index``'s draws (its ``restart``-th incarnation)."""
    return int(np.random.SeedSequence([seed, index, restart]).generate_state(1)[0])


def first_deal(seed: int, index: int, restart: int) -> int:
    """The first deal's seed of worker ``index`` (each worker and each replacement deals from a
    range of its own)."""
    return seed * 1_000_003 + (index + 1) * 1_000_000_000 + restart * 10_000_000


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

    def __init__(self, settings: dict, hidden, seed: int, index: int, restart: int,
                 pool: list, saved: dict | None = None):
        torch.set_num_threads(1)  # one actor per CPU
        game = settings["game"]
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
            return make_net(game, hidden, settings["critic"], head=settings.get("head", "fixed"),
                            obs_size=settings.get("observation_size"))

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
        done = self.collector.selfplay.games_done
        fresh = min(done - self.reported, len(self.collector.selfplay.recent))
        self.reported = done
        results = list(self.collector.selfplay.recent)[len(self.collector.selfplay.recent)
                                                       - fresh:]
        return pack(batch), results

    def set_pool(self, pool: list) -> None:
        self.collector.set_pool(pool)

    def enter(self, settings: dict) -> None:
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

    def __init__(self, settings: dict, net, hidden, workers: int, seed: int,
                 address: str | None = None, pool: list | None = None,
                 saved: list | None = None, spare_cpus: int = 0):
        connect(address, workers + spare_cpus)
        self.settings, self.net, self.hidden, self.seed = dict(settings), net, hidden, seed
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

    def enter(self, settings: dict) -> None:
        self.settings = dict(settings)
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


def _play_chunk(game, agent_a, agent_b, seeds, reseed, batch, history=False):
    torch.set_num_threads(1)
    return play_pairs(game, agent_a, agent_b, seeds, reseed, batch, history=history)


def _play_timed(game, agent_a, agent_b, seeds, reseed, batch, history=False):
    start = time.perf_counter()
    part = _play_chunk(game, agent_a, agent_b, seeds, reseed, batch, history)
    return part, time.perf_counter() - start


def play_jobs(game, jobs: list, batch: int, workers: int, address: str | None = None,
              on_done=None, history: bool = False) -> list:
    """``agents.duplicate.play_pairs`` of each job ``(agent_a, agent_b, seeds, reseed)`` of
    ``game`` (a made ``Game``; it and each distinct agent travel pickled, once), as Ray tasks
    (at most ``workers`` at a time); the parts (``Pairs``) in job order. ``on_done(j, part,
    seconds)`` hears each job as it comes back (``seconds``: its play time in the task), e.g.
    to keep the finished pairings of a league; ``history`` brings the games back too."""
    connect(address, workers)
    task = ray.remote(num_cpus=1)(_play_timed)
    game_ref = ray.put(game)
    refs: dict = {}

    def ref(agent):
        if id(agent) not in refs:
            refs[id(agent)] = ray.put(agent)
        return refs[id(agent)]

    parts: list = [None] * len(jobs)
    todo = list(range(len(jobs)))
    pending: dict = {}
    while todo or pending:
        while todo and len(pending) < workers:
            j = todo.pop(0)
            agent_a, agent_b, seeds, reseed = jobs[j]
            pending[task.remote(game_ref, ref(agent_a), ref(agent_b), seeds, reseed, batch,
                                history)] = j
        [done], _ = ray.wait(list(pending), num_returns=1)
        j = pending.pop(done)
        parts[j], seconds = ray.get(done)
        if on_done is not None:
            on_done(j, parts[j], seconds)
    return parts


def play_chunks(game, agent_a, agent_b, chunks: list, reseeds: list, batch: int, workers: int,
                address: str | None = None, progress=None, history: bool = False) -> list:
    """``agents.duplicate.play_pairs`` of each chunk of deal seeds of ``game`` (a made
    ``Game``: it travels pickled, once, with the agents), as Ray tasks (at most
    ``workers`` at a time); the parts (``Pairs``) in chunk order. ``progress(games)`` hears the
    finished games as chunks come back; ``history`` brings the games back too (``play_pairs``)."""
    done = 0

    def heard(j, _part, _seconds):
        nonlocal done
        done += 2 * len(chunks[j])
        progress(done)

    return play_jobs(game, [(agent_a, agent_b, chunk, reseed)
                            for chunk, reseed in zip(chunks, reseeds)],
                     batch, workers, address, heard if progress is not None else None, history)


class AsyncEvaluator:
    """Duplicate evaluations (``agents.duplicate``'s chunks and statistics) as Ray tasks that
    run while the caller goes on: ``train.py``'s learning-curve points with ``workers > 0``.
    ``submit`` sends one evaluation (its agents as they are now: the caller passes a copy of the
    learner); ``results`` returns the finished ones in the order they were submitted, each
    exactly what ``agents.evaluate.duplicate`` returns for the same arguments. Each task runs on
    one CPU with one torch thread."""

    def __init__(self, address: str | None = None, workers: int = 1):
        connect(address, workers)
        self.pending: list = []  # (tag, chunk refs), in submission order

    def submit(self, tag, game, agent_a, agent_b, deals: int, seed: int,
               batch: int = 256) -> None:
        """Send the evaluation of ``deals`` pairs of ``game`` (a made ``Game``) from seed
        ``seed``, known by ``tag`` in ``results``."""
        task = ray.remote(num_cpus=1)(_play_chunk)
        game_ref = ray.put(game)
        a_ref = ray.put(agent_a)
        b_ref = a_ref if agent_b is agent_a else ray.put(agent_b)
        starts, chunks = deal_chunks(deals, seed)
        refs = [task.remote(game_ref, a_ref, b_ref, chunk, chunk_seed(seed, start), batch)
                for start, chunk in zip(starts, chunks)]
        self.pending.append((tag, refs))

    def results(self, wait: bool = False) -> list:
        """``[(tag, statistics)]`` of the evaluations finished so far (all of them, waiting
        for them, with ``wait``), oldest first; an evaluation is returned once."""
        out = []
        while self.pending:
            tag, refs = self.pending[0]
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=None if wait else 0)
            if len(ready) < len(refs):
                break
            out.append((tag, combine(ray.get(refs))))
            self.pending.pop(0)
        return out
