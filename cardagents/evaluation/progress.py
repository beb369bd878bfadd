"""A progress line for long jobs (evaluation, training phases): ``Progress(total, label)`` is
called with the count done so far and prints ``label: done/total (pct) rate/s, ETA`` to stderr,
rewriting one line on a terminal and writing a line every ``every_pipe`` seconds otherwise, so
that a job never runs silent.

A job of several phases (``train.py``: imitation, the start's evaluation, PPO, the final
evaluations) keeps a ``RunClock``: the work each phase has to do, the time each kind of work
has taken so far, and so the time left for the whole run, which every phase's line shows
(``run ~m:ss left``): a run on a slow machine says so in its first minute, not at its last
phase."""

from __future__ import annotations

import sys
import time


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


# Seconds per unit of each kind of work relative to an imitated decision, for the phases a run
# has not started yet (the started ones are timed): rough figures of the Quick start's run
# (docs/results.md), right within a factor of about two on other settings and machines; the
# estimate leans on them only until each kind of work has run a little.
PRIOR_COST = {"imitation": 1.0, "ppo": 2.5, "evaluation": 40.0}


class RunClock:
    """The time left for a run of phases, each ``(name, kind, units)`` in order (``kind`` a key
    of ``costs``: imitation in decisions, ppo in samples, evaluation in games).

    ``update(name, done)`` records that phase ``name`` has done ``done`` of its units (the
    clock of a phase runs from its first update, or ``start(name)``); ``left()`` is the
    seconds to go for all phases: a phase's remaining units at the rate its kind has run at
    so far in this run, or, for a kind not yet timed, at its ``costs`` share scaled by the
    run's own speed on the kinds timed so far; ``None`` until something has been timed.
    ``clock`` is injectable (tests)."""

    def __init__(self, phases, clock=time.perf_counter, costs=None):
        self.costs = dict(PRIOR_COST if costs is None else costs)
        self.phases = [(str(name), kind, int(units)) for name, kind, units in phases]
        for name, kind, units in self.phases:
            if kind not in self.costs or units < 0:
                raise ValueError(f"run phase {name!r}: kind must be one of "
                                 f"{sorted(self.costs)} and units >= 0, got {kind!r}, {units}")
        self.clock = clock
        self.done = {name: 0 for name, _, _ in self.phases}
        self.began: dict[str, float] = {}
        self.seconds = {name: 0.0 for name, _, _ in self.phases}

    def start(self, name: str) -> None:
        if name not in self.done:
            raise KeyError(f"no run phase {name!r}")
        self.began.setdefault(name, self.clock())

    def update(self, name: str, done: int) -> None:
        self.start(name)
        self.done[name] = int(done)
        self.seconds[name] = self.clock() - self.began[name]

    def left(self) -> float | None:
        timed_units: dict[str, int] = {}
        timed_seconds: dict[str, float] = {}
        for name, kind, _ in self.phases:
            if self.done[name] > 0 and self.seconds[name] > 0:
                timed_units[kind] = timed_units.get(kind, 0) + self.done[name]
                timed_seconds[kind] = timed_seconds.get(kind, 0.0) + self.seconds[name]
        if not timed_units:
            return None
        # the run's seconds per unit of cost, from the kinds it has timed
        scale = sum(timed_seconds.values()) / sum(self.costs[k] * n
                                                  for k, n in timed_units.items())
        left = 0.0
        for name, kind, units in self.phases:
            rest = max(units - self.done[name], 0)
            per_unit = timed_seconds[kind] / timed_units[kind] if kind in timed_units \
                else self.costs[kind] * scale
            left += rest * per_unit
        return left

    def text(self) -> str:
        """``run ~m:ss left`` (``run: time left not known yet`` before anything was timed)."""
        left = self.left()
        return "run: time left not known yet" if left is None else f"run ~{_clock(left)} left"


class Progress:
    """Call with the number of units done; the last call (``done == total``) ends the line.
    With ``run`` (a ``RunClock``) and ``phase``, each call also updates that phase of the run
    and the line ends with the whole run's time left."""

    def __init__(self, total: int, label: str, unit: str = "", stream=None,
                 every_tty: float = 0.5, every_pipe: float = 10.0, run: RunClock | None = None,
                 phase: str | None = None):
        if (run is None) != (phase is None):
            raise ValueError("Progress: run and phase go together")
        self.run, self.phase = run, phase
        self.total, self.label, self.unit = total, label, unit
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every_tty if self.tty else every_pipe
        self.start = time.perf_counter()
        self.shown = -self.every  # the first call prints
        self.finished = False

    def line(self, done: int) -> str:
        elapsed = time.perf_counter() - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else 0.0
        unit = f" {self.unit}" if self.unit else ""
        tail = f"{_clock(elapsed)} elapsed" if done >= self.total else f"ETA {_clock(eta)}"
        run = f" | {self.run.text()}" if self.run is not None else ""
        return (f"{self.label}: {done:,}/{self.total:,}{unit} ({done / max(self.total, 1):.0%}), "
                f"{rate:,.1f}/s, {tail}{run}")

    def __call__(self, done: int) -> None:
        if self.finished:
            return
        if self.run is not None:
            self.run.update(self.phase, done)
        now = time.perf_counter() - self.start
        last = done >= self.total
        if not last and now - self.shown < self.every:
            return
        self.shown = now
        text = self.line(done)
        if self.tty:
            self.stream.write("\r" + text + ("\n" if last else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.finished = last
