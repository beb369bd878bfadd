"""Learning-rate schedules of a training stage: ``constant``, ``linear`` to a floor, or
``cosine`` to a floor, each with an optional linear warm-up.

A stage of ``samples`` PPO samples trains at ``rate(...)`` of the samples it has done so far:

- warm-up (``warmup`` samples, 0 for none): from the floor up to the stage's ``lr``;
- then, over the rest of the stage, ``constant`` stays at ``lr``, ``linear`` falls in a straight
  line to the floor, ``cosine`` falls along half a cosine to the floor.

The floor defaults to a tenth of the stage's ``lr``, not zero: a rate annealed to zero spends the
end of a run on updates that change nothing (the Dabang recipe of before ended its last third
at ``approx_kl 0.0000``).
"""

from __future__ import annotations

import math

from cardenv.core.checks import is_int, is_number
from cardenv.core.errors import ConfigError

SCHEDULES = ("constant", "linear", "cosine")
FLOOR_FRACTION = 0.1  # the default floor, as a fraction of the stage's rate


def floor_of(lr: float, floor: float | None) -> float:
    """The floor a stage decays to: ``floor``, or a tenth of ``lr`` when it is ``None``."""
    return FLOOR_FRACTION * lr if floor is None else float(floor)


def check(schedule, lr, floor, warmup, where: str = "config") -> None:
    """``ConfigError`` naming the field for an unknown schedule, a floor that is not a number in
    ``[0, lr]`` or a warm-up that is not an int >= 0."""
    if schedule not in SCHEDULES:
        raise ConfigError(f"{where}: lr_schedule must be one of {', '.join(SCHEDULES)}, got "
                          f"{schedule!r}")
    if floor is not None:
        if not is_number(floor) or floor < 0:
            raise ConfigError(f"{where}: lr_floor must be null (a tenth of lr) or a finite "
                              f"number >= 0, got {floor!r}")
        if floor > lr:
            raise ConfigError(f"{where}: lr_floor {floor:g} is above the rate lr {lr:g}: the "
                              f"floor is where the rate decays to")
    if not is_int(warmup) or warmup < 0:
        raise ConfigError(f"{where}: lr_warmup must be an int >= 0 (samples), got {warmup!r}")


def rate(schedule: str, lr: float, floor: float | None, warmup: int, done: int,
         samples: int) -> float:
    """The learning rate after ``done`` of a stage's ``samples`` (see the module docstring)."""
    low = floor_of(lr, floor)
    if warmup and done < warmup:
        return low + (lr - low) * done / warmup
    if schedule == "constant":
        return lr
    span = max(samples - warmup, 1)
    progress = min(max((done - warmup) / span, 0.0), 1.0)
    if schedule == "linear":
        return lr + (low - lr) * progress
    return low + (lr - low) * 0.5 * (1 + math.cos(math.pi * progress))
