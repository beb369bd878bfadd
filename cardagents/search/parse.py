"""A PIMC search from text: the spec a player is named by (``parse_spec``: ``pimc``,
``pimc:worlds=32,rollout=heuristic,top_k=8,...`` or a named budget with options over it,
``pimc:fast,rollout=...``; the options' defaults are ``DEFAULTS``, the named budgets ``BUDGETS``)
and the one place such text becomes the objects ``cardagents.search.pimc.PIMCAgent`` takes
(``make_search``: the rollout policy, the prior, the leaf value and the ``Budget``;
``rollout_policy``, ``prior_policy`` and ``leaf_value`` each make one). No torch and no
game until a search is made (a PPO checkpoint read).
"""

from __future__ import annotations

import os

from cardagents.search.budget import BOUNDS, MARGIN, Budget, checked

__all__ = ["BUDGETS", "DEFAULTS", "LEAF_BUDGET", "leaf_value", "make_search",
           "parse_spec", "prior_policy", "rollout_policy"]

# a spec's options and their defaults: the budget's (cardagents.search.budget) and the parts'
_BUDGET = Budget()
DEFAULTS = {"worlds": _BUDGET.worlds, "rollouts": _BUDGET.rollouts, "top_k": _BUDGET.top_k,
            "rollout": "heuristic", "time": _BUDGET.time_limit, "margin": MARGIN,
            "prior": None, "depth": _BUDGET.depth, "critic": None}
# The named budgets: what a search spends, by name, the same in both games ("default" is the
# bare "pimc"). A spec names one first and may set options over it: "pimc:fast",
# "pimc:strong,rollout=checkpoints/dabang_ppo.pt,prior=checkpoints/dabang_ppo.pt". What each
# costs a decision in each game, one at a time and in an evaluation's batch, and what it wins:
# docs/results.md, "Search budgets" (python -m cardagents bench search). top_k takes effect
# where the prior or the rollout policy gives probabilities (a PPO checkpoint); with heuristic
# rollouts and no prior every legal action is a candidate.
BUDGETS = {"fast": {"worlds": 4, "top_k": 2},
           "default": {"worlds": _BUDGET.worlds, "top_k": _BUDGET.top_k},
           "strong": {"worlds": 16, "top_k": 3}}
# the budget with a leaf value (cardagents.search.leaf): format with path= the game's leaf
# (checkpoints/<game>_leaf.npz); what it costs and wins against the default, and why Dabang's
# better budget is depth 8: docs/results.md, "Search agent (PIMC)"
LEAF_BUDGET = "pimc:depth=16,critic={path}"


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
    """The options of a spec ``pimc``, ``pimc:key=value,...`` (the keys of ``DEFAULTS``) or
    ``pimc:NAME[,key=value,...]`` (a budget of ``BUDGETS``, then options over it), the defaults
    filled in; ``ValueError`` naming the problem for anything else."""
    if not isinstance(spec, str) or not (spec == "pimc" or spec.startswith("pimc:")):
        raise ValueError(f"a PIMC spec is 'pimc' or 'pimc:key=value,...', got {spec!r}")
    options = dict(DEFAULTS)
    body = spec[len("pimc:"):] if spec != "pimc" else ""
    parts = body.split(",") if body else []
    if parts and "=" not in parts[0] and parts[0].strip() not in DEFAULTS:
        # a named budget, then options over it
        name = parts.pop(0).strip()
        if name not in BUDGETS:
            raise ValueError(f"{spec}: unknown budget {name!r} (budgets: {', '.join(BUDGETS)}; "
                             f"or options key=value)")
        options.update(BUDGETS[name])
    for part in parts:
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


def rollout_policy(spec: str, game: str):
    """The rollout policy ``spec`` names: ``heuristic``, ``random`` or a PPO checkpoint path
    (greedy); ``ValueError`` for anything else."""
    from cardagents.ppo.loading import policy_agent

    if spec.startswith("pimc"):
        raise ValueError("the rollout policy cannot itself search")
    policy = policy_agent(spec, game) if spec in ("random", "heuristic") or \
        os.path.isfile(spec) else None
    if policy is None:
        raise ValueError(f"unknown rollout policy {spec!r}: heuristic, random or the path of a "
                         f"PPO checkpoint")
    return policy


def prior_policy(path, game: str):
    """The prior ``path`` names: the policy of the PPO checkpoint there (its
    ``action_probabilities``); ``ValueError`` for anything else."""
    from cardagents.ppo.loading import checkpoint_agent

    if not isinstance(path, str) or not os.path.isfile(path):
        raise ValueError(f"prior must be the path of a PPO checkpoint, got {path!r}")
    return checkpoint_agent(path, game)


def leaf_value(critic, game: str):
    """The leaf value ``critic`` names for ``game``'s depth-limited rollouts: a path ending in
    ``.npz`` is a leaf value fitted to heuristic rollouts (``cardagents.search.leaf``, numpy
    only), any other path a PPO checkpoint with a global critic (``leaf.global_critic``);
    ``ValueError`` for anything else."""
    if not isinstance(critic, str) or not os.path.isfile(critic):
        raise ValueError(f"critic must be the path of a leaf value (.npz, python -m cardagents "
                         f"leaf train) or of a PPO checkpoint with a global critic, got "
                         f"{critic!r}")
    from cardagents.search.leaf import global_critic, load_leaf

    if critic.endswith(".npz"):
        return load_leaf(critic, game)
    from cardagents.ppo.loading import checkpoint_agent
    return global_critic(checkpoint_agent(critic, game))


def make_search(spec: str, game: str, seed: int = 0):
    """The ``PIMCAgent`` a spec ``pimc`` / ``pimc:key=value,...`` describes for ``game``: its
    options (``parse_spec``) made into the objects the agent takes (the rollout policy, the
    prior, the leaf value, the ``Budget``), ``seed`` its seed; ``ValueError`` naming the
    problem. The agent's ``spec`` is the text."""
    from cardagents.players.base import check_game
    from cardagents.search.pimc import PIMCAgent, sampler_of
    from cardenv.games import make_game

    options = parse_spec(spec)
    sampler_of(make_game(check_game(game)))  # before any checkpoint is read
    budget = Budget(options["worlds"], options["rollouts"], options["top_k"], options["depth"],
                    options["time"])
    rollout = rollout_policy(options["rollout"], game)
    prior = None if options["prior"] is None else prior_policy(options["prior"], game)
    critic = options["critic"]
    if budget.depth and critic is None:
        raise ValueError("depth-limited rollouts (depth > 0) need critic=<a leaf value .npz "
                         "(python -m cardagents leaf train) or a PPO checkpoint with a global "
                         "critic> for the leaf values")
    if critic is not None and not budget.depth:
        raise ValueError("critic values depth-limited rollouts: it needs depth > 0")
    leaf = None if critic is None else leaf_value(critic, game)
    agent = PIMCAgent(game, rollout, budget, prior=prior, leaf=leaf, margin=options["margin"],
                      seed=seed)
    agent.spec = spec
    return agent
