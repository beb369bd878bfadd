"""Helpers of the saved-state fuzz tests (tests/dagong/test_state_fuzz.py and
tests/dabang/test_state_fuzz.py): walking and editing a ``to_dict()`` without touching it."""

from __future__ import annotations

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
