"""Helpers of the saved-state fuzz tests (tests/dagong/test_state_fuzz.py and
tests/dabang/test_state_fuzz.py): walking and editing a ``to_dict()`` without touching it."""

from __future__ import annotations

import numpy as np

from cardenv.core.errors import ConfigError, StateError

WRONG_TYPES = (None, "x", 1.5, float("inf"), float("nan"), [], {}, True)


def set_at(data, path, value=None, *, remove=False):
    """A copy of ``data`` with the item at ``path`` replaced (or removed); only the containers
    on the path are copied."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = dict(data) if isinstance(data, dict) else list(data)
    if not rest and remove:
        del copy[head]
    else:
        copy[head] = set_at(data[head], rest, value, remove=remove)
    return copy


def get_at(data, path):
    for key in path:
        data = data[key]
    return data


def leaves(value, path=()):
    """``(path, value)`` of every item, containers included, depth first."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from leaves(item, path + (i,))


def swaps(data, path, value: list, rng):
    """Up to two ``(description, mutated dict)`` with two unequal items of ``value`` swapped."""
    for _ in range(2):
        i, j = rng.choice(len(value), size=2, replace=False).tolist()
        if value[i] != value[j]:
            swapped = list(value)
            swapped[i], swapped[j] = value[j], value[i]
            yield f"swap {path}[{i}] <-> [{j}]", set_at(data, path, swapped)


def buffer_mutations(data: dict, layout, rng, entries: int):
    """In every piece of the saved buffer, up to ``entries`` set entries and one random entry
    moved by +1 and -1; then a few entries made out of range or of a wrong type."""
    buffer = data["buffer"]
    for piece in layout.pieces:
        start = layout.offsets[piece.name]
        span = np.arange(start, start + piece.size)
        nonzero = span[np.asarray(buffer[start:start + piece.size]) != 0]
        picks = set(rng.choice(nonzero, min(entries, nonzero.size), replace=False).tolist())
        picks.add(int(rng.choice(span)))
        for i in sorted(picks):
            for x in (buffer[i] + 1, buffer[i] - 1):
                yield f"buffer[{i}] ({piece.name}) = {x} (was {buffer[i]})", \
                    set_at(data, ("buffer", i), x)
    for x in (40000, 10 ** 30, 1.5, None):
        i = int(rng.integers(len(buffer)))
        yield f"buffer[{i}] = {x!r}", set_at(data, ("buffer", i), x)


def try_mutation(state_class, data: dict, play_out, seed: int) -> str | None:
    """``None`` if ``state_class.from_dict(data)`` refuses it with a message (``StateError`` /
    ``ConfigError``) or loads a state that ``play_out(state, seed)`` plays on soundly; else the
    problem, in words."""
    try:
        state = state_class.from_dict(data)
    except (StateError, ConfigError) as exc:
        return None if str(exc) else "refused with an empty message"
    except Exception as exc:  # noqa: BLE001 - any other exception is what the fuzz tests seek
        return f"from_dict raised {type(exc).__name__}: {exc}"
    try:
        play_out(state, seed)
    except Exception as exc:  # noqa: BLE001
        return f"loaded, then {type(exc).__name__}: {exc}"
    return None


def leaf_mutations(data: dict, path: tuple, value, rng, big_ints):
    """The mutations of one item of a saved state: a dict key removed or given each of
    ``WRONG_TYPES``; a bool flipped; an int set to each of ``big_ints`` and moved by one; a float
    moved, negated or made non-finite; ``None`` set to each seat; two list items swapped."""
    if isinstance(get_at(data, path[:-1]), dict):
        yield f"del {path}", set_at(data, path, remove=True)
        for wrong in WRONG_TYPES:
            yield f"{path} = {wrong!r}", set_at(data, path, wrong)
    if isinstance(value, bool):
        yield f"{path} = {not value}", set_at(data, path, not value)
    elif isinstance(value, int):
        for x in (*big_ints, value + 1, value - 1):
            if x != value:
                yield f"{path} = {x}", set_at(data, path, x)
    elif isinstance(value, float):
        for x in (value + 0.5, -value - 1, float("inf"), float("nan")):
            yield f"{path} = {x}", set_at(data, path, x)
    elif value is None:
        for seat in range(4):
            yield f"{path} = {seat}", set_at(data, path, seat)
    elif isinstance(value, list) and len(value) >= 2:
        yield from swaps(data, path, value, rng)
