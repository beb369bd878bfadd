"""Helpers of the saved-state fuzz tests (tests/cardenv/dagong/test_state_fuzz.py and
tests/cardenv/dabang/test_state_fuzz.py).

A saved state is its recipe, ``{format, options, seed, deal, history}`` plus the integrity fields
``results`` and ``crc`` (``cardenv.core.state``). ``recipe_mutations`` changes one thing of a
``to_dict()`` at a time (without touching it): each key removed, given a wrong type or an unknown
sibling; the format; each option; the seed; the custom deal's contents (the games give those);
history steps dropped, inserted, replaced, swapped, truncated, made non-ints; the results and the
crc. ``judge`` says what is wrong with what ``from_dict`` made of one: a refusal must be a
``StateError`` / ``ConfigError`` of one line naming the field changed (or the first illegal step
``history[k]``, checked to be the first step that does not replay, or the result or crc that the
replay contradicts); an accepted recipe must give exactly ``game.replay(seed, history, deal)`` of
the mutated recipe (a position reachable by play) and round-trip through JSON.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from cardenv.core.errors import ConfigError, IllegalActionError, StateError

WRONG_TYPES = (None, "x", 1.5, float("inf"), float("nan"), [], {}, True)
BAD_INTS = (-1, 2 ** 63, 10 ** 30)
KEYS = ("format", "options", "seed", "deal", "history", "results", "crc")
REQUIRED = ("format", "options", "seed", "history")

# what a refusal of a change to each field must name: the field itself, or where replaying the
# changed recipe went wrong (an illegal step, a result or position that differs)
REPLAY_NOTICED = r"history\[\d+\]|results|crc"
NAMES = {
    "format": r"format",
    "options": r"options|deal|" + REPLAY_NOTICED,  # the custom deal may not fit them
    "seed": r"seed|" + REPLAY_NOTICED,
    "deal": r"deal|" + REPLAY_NOTICED,
    "history": r"history|results|crc",
    "results": r"results",
    "crc": r"crc",
    "keys": r"lacks|unknown keys",
}
ILLEGAL_STEP = re.compile(r"history\[(\d+)\]: illegal action")


@dataclass
class Mutation:
    what: str  # the change, in words
    key: str  # the recipe field changed (NAMES)
    data: dict
    expect: str | None = None  # "refuse" / "accept" where only one outcome is right
    first: int | None = None  # the first history step changed (none before it can fail)
    names: str | None = None  # a sharper pattern the refusal must match than NAMES[key]


def set_at(data, path, value=None, *, remove=False):
    """A copy of ``data`` with the item at ``path`` replaced (or removed); only the containers
    on the path are copied."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = dict(data) if isinstance(data, dict) else list(data)
    if not rest and remove:
        del copy[head]
    elif not rest:
        copy[head] = value
    else:
        copy[head] = set_at(data[head], rest, value, remove=remove)
    return copy


# --- the mutations -------------------------------------------------------------------------------

def recipe_mutations(data: dict, state, rng: np.random.Generator, *, other_options: dict,
                     other_format: str, deal_mutations=None, steps: int = 5):
    """The ``Mutation``s of the saved ``data`` of ``state``, deterministic for a given ``rng``:
    ``other_options`` maps an option to other valid values, ``other_format`` is the other
    game's format, ``deal_mutations(deal, rng)`` yields ``(what, deal)`` changes of a custom
    deal, and ``steps`` history positions (besides the first and last) are changed."""
    yield from _key_mutations(data)
    yield from _format_mutations(data, other_format)
    yield from _option_mutations(data, rng, other_options)
    yield from _seed_mutations(data)
    if data.get("deal") is not None and deal_mutations is not None:
        for what, deal in deal_mutations(data["deal"], rng):
            yield Mutation(f"deal: {what}", "deal", set_at(data, ("deal",), deal))
    yield from _history_mutations(data, state, rng, steps)
    yield from _results_mutations(data, rng)
    yield from _crc_mutations(data)


def _key_mutations(data):
    for key in data:
        required = key in REQUIRED
        yield Mutation(f"del {key}", "keys" if required else key,
                       set_at(data, (key,), remove=True),
                       expect="refuse" if required else "accept"
                       if key in ("results", "crc") or data[key] is None else None,
                       names=re.escape(key) if required else None)
        for wrong in WRONG_TYPES:
            lenient = {"options": {}, "history": [], "results": [], "deal": None}
            yield Mutation(f"{key} = {wrong!r}", key, set_at(data, (key,), wrong),
                           expect=None if key in lenient and wrong == lenient[key]
                           and type(wrong) is type(lenient[key]) else "refuse")
    for key, value in [("buffer", [0]), ("standing", -1), ("Seed", data["seed"])]:
        yield Mutation(f"unknown key {key}", "keys", {**data, key: value}, expect="refuse")


def _format_mutations(data, other_format):
    fmt = data["format"]
    base, version = fmt.rsplit("/", 1)
    for wrong in (other_format, f"{base}/1", f"{base}/2", f"{base}/3",
                  f"{base}/{int(version) + 1}", fmt.upper(), ""):
        yield Mutation(f"format = {wrong!r}", "format", set_at(data, ("format",), wrong),
                       expect="refuse")


def _option_mutations(data, rng, other_options):
    options = data["options"]
    yield Mutation("an unknown option", "options", set_at(data, ("options", "colour"), "red"),
                   expect="refuse")
    yield Mutation("options with an int key", "options", {**data, "options": {1: 2}},
                   expect="refuse")
    for name in options:
        yield Mutation(f"del options.{name}", "options",
                       set_at(data, ("options", name), remove=True))
        for i in rng.choice(len(WRONG_TYPES), 2, replace=False):
            wrong = WRONG_TYPES[i]
            yield Mutation(f"options.{name} = {wrong!r}", "options",
                           set_at(data, ("options", name), wrong))
        for value in other_options.get(name, ()):
            if value != options[name]:
                yield Mutation(f"options.{name} = {value!r}", "options",
                               set_at(data, ("options", name), value))


def _seed_mutations(data):
    seed = data["seed"]
    seeded = data.get("deal") is None
    for x in {seed + 1, seed - 1, seed ^ 1, 0} - {seed, -1}:
        # an edited seed deals other cards: a seeded game's recipe no longer holds (issue 22)
        yield Mutation(f"seed = {x}", "seed", set_at(data, ("seed",), x),
                       expect="refuse" if seeded else None)
    for x in BAD_INTS:
        yield Mutation(f"seed = {x}", "seed", set_at(data, ("seed",), x), expect="refuse",
                       names="seed")


def _history_mutations(data, state, rng, steps):
    history, n = data["history"], state.game.num_actions
    bare = {k: v for k, v in data.items() if k not in ("results", "crc")}

    def step(what, new, first, expect=None, names=None, recipe=data):
        return Mutation(f"history: {what}", "history", set_at(recipe, ("history",), new),
                        expect=expect, first=first, names=names)

    legal = state.legal_actions() if not state.is_over else []
    if legal:
        extra = legal[int(rng.integers(len(legal)))]
        yield step(f"a legal step {extra} appended", history + [extra], len(history))
        yield step(f"a legal step {extra} appended (no results, crc)", history + [extra],
                   len(history), expect="accept", recipe=bare)
    yield step("a random step appended", history + [int(rng.integers(n))], len(history))
    yield step("10**4 steps appended", history + [history[-1] if history else 0] * 10 ** 4,
               len(history), expect="refuse")
    if not history:
        return
    picks = {0, len(history) - 1, *rng.choice(len(history), min(steps, len(history))).tolist()}
    for k in sorted(picks):
        a = history[k]
        yield step(f"[{k}] dropped", history[:k] + history[k + 1:], k)
        yield step(f"[{k}] dropped (no results, crc)", history[:k] + history[k + 1:], k,
                   recipe=bare)
        yield step(f"[{k}] repeated", history[:k] + [a] + history[k:], k + 1)
        r = int(rng.integers(n))
        yield step(f"{r} inserted at [{k}]", history[:k] + [r] + history[k:], k)
        for b in {(a + 1) % n, int(rng.integers(n))} - {a}:
            yield step(f"[{k}] = {b} (was {a})", history[:k] + [b] + history[k + 1:], k)
        if k + 1 < len(history) and history[k + 1] != a:
            yield step(f"[{k}] <-> [{k + 1}]",
                       history[:k] + [history[k + 1], a] + history[k + 2:], k)
        yield step(f"truncated to [:{k}]", history[:k], None)
        yield step(f"truncated to [:{k}] (no results, crc)", history[:k], None, expect="accept",
                   recipe=bare)
        for wrong in (-1, n, 10 ** 30, 1.5, float("nan"), None, True, "3", [a]):
            yield step(f"[{k}] = {wrong!r}", history[:k] + [wrong] + history[k + 1:], k,
                       expect="refuse", names=re.escape(f"history[{k}]"))


def _changed(value, rng):
    """A different value of the same kind as ``value`` (``None`` if there is none)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if value is None:
        return 0
    if isinstance(value, list) and value:
        i = int(rng.integers(len(value)))
        return set_at(value, (i,), _changed(value[i], rng))
    return None


def _results_mutations(data, rng):
    results = data.get("results")
    if not isinstance(results, list):
        return

    def res(what, new):
        return Mutation(f"results: {what}", "results", set_at(data, ("results",), new),
                        expect="refuse" if new != results else None)

    if not results:
        yield res("a result added", [{"dealer": 0}])
        return
    yield res("the last dropped", results[:-1])
    yield res("the last repeated", results + results[-1:])
    yield res("reversed", results[::-1])
    i = int(rng.integers(len(results)))
    for wrong in (None, "x", [], 1.5):
        yield res(f"[{i}] = {wrong!r}", set_at(results, (i,), wrong))
    yield res(f"[{i}] with an unknown key", set_at(results, (i, "colour"), "red"))
    for key, value in results[i].items():
        yield res(f"del [{i}].{key}", set_at(results, (i, key), remove=True))
        changed = _changed(value, rng)
        if changed is not None:
            yield res(f"[{i}].{key} = {changed!r}", set_at(results, (i, key), changed))
        wrong = WRONG_TYPES[int(rng.integers(len(WRONG_TYPES)))]
        yield res(f"[{i}].{key} = {wrong!r}", set_at(results, (i, key), wrong))


def _crc_mutations(data):
    if "crc" not in data:
        return
    crc = data["crc"]
    for x in (crc + 1, crc - 1, crc ^ (1 << 31), 2 ** 40, -1, str(crc), float(crc)):
        yield Mutation(f"crc = {x!r}", "crc", set_at(data, ("crc",), x), expect="refuse")


# --- the verdict ---------------------------------------------------------------------------------

def judge(state_class, game_class, m: Mutation, rng=None) -> str | None:
    """``None`` if ``state_class.from_dict(m.data)`` does what it must (see the module), else
    the problem in words."""
    try:
        state = state_class.from_dict(m.data)
    except (StateError, ConfigError) as exc:
        return _judge_refusal(str(exc), game_class, m)
    except Exception as exc:  # noqa: BLE001 - any other exception is what the fuzz tests seek
        return f"from_dict raised {type(exc).__name__}: {exc}"
    if m.expect == "refuse":
        return "accepted, but this change must be refused"
    try:
        return _judge_accepted(state, state_class, game_class, m.data, rng)
    except Exception as exc:  # noqa: BLE001
        return f"accepted, then {type(exc).__name__}: {exc}"


def _judge_refusal(message: str, game_class, m: Mutation) -> str | None:
    if m.expect == "accept":
        return f"refused, but this change must be accepted: {message}"
    if not message or "\n" in message:
        return f"refused without a one-line message: {message!r}"
    pattern = m.names or NAMES[m.key]
    if not re.search(pattern, message):
        return f"refused without naming {pattern!r}: {message}"
    found = ILLEGAL_STEP.search(message)
    if found is None:
        return None
    k = int(found.group(1))
    if m.first is not None and k < m.first:
        return f"names history[{k}], before the first step changed ({m.first}): {message}"
    # history[k] must be the first step that does not replay
    data = m.data
    game = game_class(**data["options"])
    state = game.replay(data["seed"], data["history"][:k], data.get("deal"))
    try:
        state.apply(data["history"][k])
    except IllegalActionError:
        return None
    return f"names history[{k}], a step that replays: {message}"


def _judge_accepted(state, state_class, game_class, data: dict, rng) -> str | None:
    game = game_class(**data["options"])
    expected = game.replay(data["seed"], data["history"], data.get("deal"))
    saved = state.to_dict()
    if saved != expected.to_dict():
        return "accepted, but not the position that its recipe's replay gives"
    if state.rng.bit_generator.state != expected.rng.bit_generator.state:
        return "accepted, but its generator is not the replay's"
    if saved["seed"] != data["seed"] or saved["history"] != list(data["history"]):
        return "accepted, but it saves another recipe"
    again = state_class.from_dict(json.loads(json.dumps(saved)))
    if again.to_dict() != saved:
        return "accepted, but to_dict -> from_dict does not round-trip"
    if rng is not None:  # and it plays on
        for _ in range(20):
            if state.is_over:
                break
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    return None


# --- a history step that breaks a rule -----------------------------------------------------------

def breaking_action(state, refusal, rule: str) -> int | None:
    """The first action id that ``refusal`` (a game's ``reasons.refusal``) says breaks ``rule``
    in ``state``, or ``None``."""
    mask = state.legal_mask() if not state.is_over else None
    for a in range(state.game.num_actions):
        if mask is not None and mask[a]:
            continue
        found = refusal(state, a)
        if found is not None and found.rule == rule:
            return a
    return None


def rule_breaking_step(state_class, data: dict, refusal, rule: str, start: int):
    """``(k, before, action, mutated)``: ``data``'s recipe with ``history[k]`` (the first step
    from ``start`` on where one can break ``rule``; ``len(history)``: appended) made an action
    that breaks ``rule`` in the position ``before`` it; ``None`` if no step from ``start`` on
    can break it. The integrity fields are dropped (the step must be refused on its own)."""
    history = data["history"]
    game = state_class.from_dict(data).game
    state = game.replay(data["seed"], history[:start], data.get("deal"))
    for k in range(start, len(history) + 1):
        action = breaking_action(state, refusal, rule)
        if action is not None:
            mutated = {key: v for key, v in data.items() if key not in ("results", "crc")}
            mutated["history"] = history[:k] + [action] + history[k + 1:]
            return k, state, action, mutated
        if k < len(history):
            state.apply(history[k])
    return None
