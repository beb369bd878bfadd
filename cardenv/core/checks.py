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


def check_choice(value, name: str, choices, *, error: type[Exception] = StateError):
    if not isinstance(value, (str, type(None))) or value not in choices:
        raise error(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


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


def check_number_list(value, name: str, length: int, *,
                      error: type[Exception] = StateError) -> list:
    if not isinstance(value, (list, tuple)) or len(value) != length:
        raise error(f"{name} must be a list of {length} numbers, got {value!r}")
    return [check_number(x, f"{name}[{i}]", error=error) for i, x in enumerate(value)]


def check_seat(value, name: str, *, optional: bool = False,
               error: type[Exception] = StateError) -> int | None:
    return check_int(value, name, 0, 3, optional=optional, error=error)


def check_array(value, name: str, shape: tuple, low: int = 0, high: int = 32767, *,
                error: type[Exception] = StateError) -> np.ndarray:
    """An int16 array of ``shape`` with every entry in ``low..high``, from nested lists."""
    try:
        array = np.array(value)
    except (TypeError, ValueError) as exc:
        raise error(f"{name} is not an array: {exc}") from None
    if array.shape != tuple(shape):
        raise error(f"{name} must have shape {tuple(shape)}, got {array.shape}")
    if array.size and not (np.issubdtype(array.dtype, np.integer)
                           and not np.issubdtype(array.dtype, np.bool_)):
        raise error(f"{name} must hold ints, got {array.dtype}")
    if array.size and (array.min() < low or array.max() > high):
        raise error(f"{name} has entries outside {low}..{high}")
    return array.astype(np.int16)


PCG64_KEYS = ("bit_generator", "state", "has_uint32", "uinteger")


def check_generator_state(value, name: str, *, error: type[Exception] = StateError) -> dict:
    """A saved ``PCG64`` ``bit_generator.state`` dict, every entry of the right type and range
    (numpy itself accepts floats and raises ``OverflowError`` for some bad values)."""
    if not isinstance(value, dict) or sorted(value, key=str) != sorted(PCG64_KEYS):
        raise error(f"{name} must be a PCG64 generator state with keys {list(PCG64_KEYS)}, "
                    f"got {value!r}")
    if value["bit_generator"] != "PCG64":
        raise error(f"{name}: bit_generator must be 'PCG64', got {value['bit_generator']!r}")
    inner = value["state"]
    if not isinstance(inner, dict) or sorted(inner, key=str) != ["inc", "state"]:
        raise error(f"{name}: state must be a dict with keys 'state' and 'inc', got {inner!r}")
    check_int(inner["state"], f"{name}.state.state", 0, 2 ** 128 - 1, error=error)
    check_int(inner["inc"], f"{name}.state.inc", 0, 2 ** 128 - 1, error=error)
    if inner["inc"] % 2 == 0:
        raise error(f"{name}: state.inc must be odd (PCG64 increments are), got {inner['inc']}")
    check_int(value["has_uint32"], f"{name}.has_uint32", 0, 1, error=error)
    check_int(value["uinteger"], f"{name}.uinteger", 0, 2 ** 32 - 1, error=error)
    return value


def one_hot_index(pieces: dict, name: str, *, optional: bool = False) -> int | None:
    """The index of the 1 in the one-hot buffer piece ``pieces[name]`` (``None`` if all zero
    and ``optional``); ``StateError`` naming the piece otherwise."""
    ones = np.flatnonzero(pieces[name])
    if len(ones) > 1 or (len(ones) == 0 and not optional):
        what = "one-hot or all zero" if optional else "one-hot"
        raise StateError(f"{name} (buffer piece {name!r}) must be {what}, got "
                         f"{pieces[name].tolist()}")
    return int(ones[0]) if len(ones) else None
