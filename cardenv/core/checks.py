"""The value checks every part of cardenv shares: options, seeds, actions and saved states.

One integer test (``is_int``: Python or numpy integers, never ``bool``), one finite-number test,
and ``check_*`` helpers that return the cleaned value or raise the caller's error class with a
message naming the field, so that a saved state or an option is refused with the field's name
instead of failing later with a foreign exception.
"""

from __future__ import annotations

import math

import numpy as np

from cardenv.core.errors import StateError


def is_int(value) -> bool:
    """A Python or numpy integer, and not a bool."""
    if type(value) is int:  # the common case first: this runs on every action applied
        return True
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def action_id(action, n: int) -> int:
    """``action`` as an int id in ``0..n-1``, or a ``ValueError`` saying why it is none. Python
    and numpy integers are ids, and so is an integer array of one element (shape ``()`` as
    ``Discrete.contains`` accepts it and a trained SB3 model's ``predict()`` returns it, or
    ``(1,)``); a bool, a float or anything else is not."""
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)) and action.dtype.kind in "iu":
        action = action.reshape(()).item()
    if not is_int(action):
        raise ValueError(f"an action is an int id in 0..{n - 1}, got {action!r} "
                         f"({type(action).__name__})")
    if not 0 <= action < n:
        raise ValueError(f"action {action} is out of range: ids run 0..{n - 1}")
    return int(action)


def is_number(value) -> bool:
    """A finite int or float (numpy's included), and not a bool; an int too large for a float
    (``10**400``) is not one: every number read here is used as a float."""
    if not (is_int(value) or isinstance(value, (float, np.floating))) \
            or isinstance(value, (bool, np.bool_)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # math.isfinite(10**400)
        return False


def check_int(value, name: str, low: int | None = None, high: int | None = None, *,
              optional: bool = False, error: type[Exception] = StateError) -> int | None:
    """``value`` as an int in ``low..high`` (inclusive; ``None`` if ``optional``)."""
    if optional and value is None:
        return None
    if not is_int(value) or (low is not None and value < low) or \
            (high is not None and value > high):
        span = f" in {low if low is not None else '-inf'}..{high if high is not None else 'inf'}"
        span = "" if low is None and high is None else span
        none = " or None" if optional else ""
        raise error(f"{name} must be an int{span}{none}, got {value!r}")
    return int(value)


def check_bool(value, name: str, *, error: type[Exception] = StateError) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise error(f"{name} must be true or false, got {value!r}")
    return bool(value)


def check_number(value, name: str, low: float | None = None, *,
                 error: type[Exception] = StateError) -> float:
    """A finite number >= ``low`` (ints stay ints)."""
    if not is_number(value) or (low is not None and value < low):
        bound = f" >= {low}" if low is not None else ""
        raise error(f"{name} must be a finite number{bound}, got {value!r}")
    return value.item() if isinstance(value, np.generic) else value


def check_int_list(value, name: str, length: int | None = None, low: int | None = None,
                   high: int | None = None, *, error: type[Exception] = StateError) -> list[int]:
    """A list of ints in ``low..high``, of ``length`` items if given."""
    if not isinstance(value, (list, tuple)) or (length is not None and len(value) != length):
        what = f"a list of {length} ints" if length is not None else "a list of ints"
        raise error(f"{name} must be {what}, got {value!r}")
    # plain ints in range, the common case, at C speed (a saved match holds ~10^4 actions);
    # otherwise item by item, to name the first bad one
    if all(type(x) is int for x in value) and (not value or (
            (low is None or min(value) >= low) and (high is None or max(value) <= high))):
        return list(value)
    return [check_int(x, f"{name}[{i}]", low, high, error=error) for i, x in enumerate(value)]


def check_seat(value, name: str, *, optional: bool = False,
               error: type[Exception] = StateError) -> int | None:
    return check_int(value, name, 0, 3, optional=optional, error=error)
