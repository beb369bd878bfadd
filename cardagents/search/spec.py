"""What a PIMC search may be asked for: its options' defaults and bounds (``DEFAULTS``,
``BOUNDS``, the named budgets), one check of each option's value (``checked``, for a constructor
argument and a spec's text alike) and the spec a player is named by (``parse_spec``:
``pimc`` or ``pimc:worlds=32,rollout=heuristic,top_k=8,...``). No torch, no game.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BOUNDS", "DEFAULTS", "LEAF_BUDGET", "MAX_BATCH", "PRIOR_BUDGET", "checked",
           "parse_spec"]

DEFAULTS = {"worlds": 8, "rollouts": 1, "top_k": 0, "rollout": "heuristic", "time": None,
            "margin": 1.5, "prior": None, "depth": 0, "critic": None}
# the bounds a spec or a constructor argument must fall in
BOUNDS = {"worlds": (1, 4096), "rollouts": (1, 256), "top_k": (0, 1 << 16),
          "depth": (0, 1 << 16)}
# the budget with a PPO prior (see cardagents.search.pimc's docstring): format with path=
PRIOR_BUDGET = "pimc:worlds=16,top_k=2,prior={path}"
# the budget with a leaf value (cardagents.search.leaf): format with path= the game's leaf
# (checkpoints/<game>_leaf.npz); what it costs and wins against the default, and why Dabang's
# better budget is depth 8: docs/results.md, "Search agent (PIMC)"
LEAF_BUDGET = "pimc:depth=16,critic={path}"
MAX_BATCH = 1 << 16  # rollouts in lockstep at most


def checked(key: str, value, name: str | None = None, shown: str | None = None):
    """``value`` of option ``key`` (``worlds``, ``rollouts``, ``top_k``, ``depth``, ``margin``,
    ``time``) as the search uses it, else a ``ValueError`` naming it ``name`` (default
    ``key``) and showing the value as ``shown`` (default its repr: a spec shows its text)."""
    name = key if name is None else name
    shown = repr(value) if shown is None else shown
    number = isinstance(value, (int, float, np.integer)) and not isinstance(value, bool)
    if key in BOUNDS:
        low, high = BOUNDS[key]
        if not number or isinstance(value, float) or not low <= value <= high:
            raise ValueError(f"{name} must be an int in {low}..{high}, got {shown}")
        return int(value)
    if key == "margin":
        if not number or not 0 <= value <= 10:  # (also refuses nan)
            raise ValueError(f"{name} must be a number in [0, 10], got {shown}")
        return float(value)
    if key == "time":
        if not number or not 0 < value <= 3600:  # also refuses nan and inf
            raise ValueError(f"{name} must be seconds in (0, 3600], got {shown}")
        return float(value)
    raise ValueError(f"{name}: not a numeric option of the search")


def _number(value: str):
    """A spec's text as a number where it reads as one (else the text, which ``checked``
    refuses)."""
    if value.isdigit():
        return int(value)
    try:
        return float(value)
    except ValueError:
        return value


def parse_spec(spec: str) -> dict:
    """The options of a spec ``pimc`` or ``pimc:key=value,...`` (the keys of ``DEFAULTS``),
    the defaults filled in; ``ValueError`` naming the problem for anything else."""
    if not isinstance(spec, str) or not (spec == "pimc" or spec.startswith("pimc:")):
        raise ValueError(f"a PIMC spec is 'pimc' or 'pimc:key=value,...', got {spec!r}")
    options = dict(DEFAULTS)
    body = spec[len("pimc:"):] if spec != "pimc" else ""
    for part in body.split(",") if body else []:
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not key or not value.strip():
            raise ValueError(f"{spec}: {part!r} is not key=value")
        if key not in DEFAULTS:
            raise ValueError(f"{spec}: unknown option {key!r} (options: "
                             f"{', '.join(DEFAULTS)})")
        value = value.strip()
        if key in BOUNDS or key in ("margin", "time"):
            # an int option takes digits only ("8", not "8.0" or "+8")
            number = (int(value) if value.isdigit() else value) if key in BOUNDS \
                else _number(value)
            try:
                options[key] = checked(key, number, shown=repr(value))
            except ValueError as exc:
                raise ValueError(f"{spec}: {exc}") from None
        else:
            if value.startswith("pimc"):
                raise ValueError(f"{spec}: the {key} policy cannot itself search")
            options[key] = value
    return options
