"""Evaluation chunks as Ray tasks (the ``[dist]`` extra): ``python -m cardagents evaluate
--workers N``, ``python -m cardagents league --workers N`` and ``train.py``'s learning-curve
points with ``workers > 0`` (``AsyncEvaluator``). Evaluation chunks are deterministic (see
``cardagents.evaluation.duplicate``), so Ray's own task retries are safe. Where Ray runs:
``cardagents.cluster``.
"""

from __future__ import annotations

import time

import ray
import torch

from cardagents.cluster import connect
from cardagents.evaluation.duplicate import chunk_seed, combine, deal_chunks, play_pairs


def _play_chunk(game, agent_a, agent_b, seeds, reseed, batch, history=False):
    torch.set_num_threads(1)
    return play_pairs(game, agent_a, agent_b, seeds, reseed, batch, history=history)


def _play_timed(game, agent_a, agent_b, seeds, reseed, batch, history=False):
    start = time.perf_counter()
    part = _play_chunk(game, agent_a, agent_b, seeds, reseed, batch, history)
    return part, time.perf_counter() - start


def play_jobs(game, jobs: list, batch: int, workers: int, address: str | None = None,
              on_done=None, history: bool = False) -> list:
    """``cardagents.evaluation.duplicate.play_pairs`` of each job ``(agent_a, agent_b, seeds,
    reseed)`` of ``game`` (a made ``Game``; it and each distinct agent travel pickled, once), as Ray
    tasks (at most ``workers`` at a time); the parts (``Pairs``) in job order. ``on_done(j, part,
    seconds)`` hears each job as it comes back (``seconds``: its play time in the task), e.g. to
    keep the finished pairings of a league; ``history`` brings the games back too."""
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
    """``cardagents.evaluation.duplicate.play_pairs`` of each chunk of deal seeds of ``game`` (a
    made ``Game``: it travels pickled, once, with the agents), as Ray tasks (at most ``workers`` at
    a time); the parts (``Pairs``) in chunk order. ``progress(games)`` hears the finished games as
    chunks come back; ``history`` brings the games back too (``play_pairs``)."""
    done = 0

    def heard(j, _part, _seconds):
        nonlocal done
        done += 2 * len(chunks[j])
        progress(done)

    return play_jobs(game, [(agent_a, agent_b, chunk, reseed)
                            for chunk, reseed in zip(chunks, reseeds)],
                     batch, workers, address, heard if progress is not None else None, history)


class AsyncEvaluator:
    """Duplicate evaluations (``cardagents.evaluation.duplicate``'s chunks and statistics) as Ray
    tasks that run while the caller goes on: ``train.py``'s learning-curve points with ``workers >
    0``. ``submit`` sends one evaluation (its agents as they are now: the caller passes a copy of
    the learner); ``results`` returns the finished ones in the order they were submitted, each
    exactly what ``cardagents.evaluation.evaluate.duplicate`` returns for the same arguments. Each
    task runs on one CPU with one torch thread."""

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
