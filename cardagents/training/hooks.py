"""Periodic work of a training run (Sample Factory's runner registers its reports, saves and
evaluations the same way): ``Periodic(every, callback)`` runs ``callback()`` after every
``every``-th iteration (never with ``every`` 0), and ``run_due(hooks, iteration)`` runs those
due after an iteration, in the order they were registered. The ``Trainer`` registers its
learning-curve points, frozen snapshots and checkpoints as hooks instead of writing them into
its loop.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

__all__ = ["Periodic", "run_due"]


class Periodic(NamedTuple):
    """``callback()`` after every ``every``-th iteration (0: never)."""

    every: int
    callback: Callable[[], None]

    def due(self, iteration: int) -> bool:
        return bool(self.every) and iteration % self.every == 0


def run_due(hooks, iteration: int) -> None:
    """Run the hooks of ``hooks`` due after iteration ``iteration``, in order."""
    for hook in hooks:
        if hook.due(iteration):
            hook.callback()
