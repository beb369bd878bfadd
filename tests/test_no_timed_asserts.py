"""No test asserts a speed (issue 34, item 3): a test that fails when the machine is busy is a
defect. Speed is a benchmark's figure (``python -m cardenv.bench``, ``python -m cardagents bench``,
``python -m cardagents bench``), printed beside its reference; a time-limit feature is tested by
what the limit does (an injected clock, work counted).

This guard reads every test module's syntax tree and flags an ordering comparison (``<``,
``<=``, ``>``, ``>=``) in an ``assert``, or in an ``if`` that fails the test, where one side is
a wall-clock reading (``time.perf_counter()``, ``time.monotonic()``, ``time.time()``, ...) or a
name, attribute or key that says it holds one (``elapsed``, ``seconds``, ``*_per_second``,
``us_per_*``, ``*_per_decision``, ``duration``, ``latency``, ``sps``, ...). A generous bound that
tests a timeout's behaviour (a server cutting a slow client, an unreachable address refused)
stays, marked on its line with a comment ``# timeout: <what it tests>``.
"""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

TESTS = pathlib.Path(__file__).resolve().parent

CLOCKS = {"perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time", "time_ns",
          "process_time", "process_time_ns", "thread_time"}
# identifiers that hold a time or a rate (win_rate does not: a rate alone is not flagged)
TIMED = re.compile(r"(^|_)(elapsed|seconds|secs|duration|latency|wall|sps|throughput)($|_)"
                   r"|per_s(ec(ond)?)?$|^(us|ms|ns)_per_|per_decision|_per_second")
# the two marks a kept bound carries: a timeout's behaviour, or a relation between two figures of
# one measurement that holds on any machine (the update alone is part of the whole iteration)
MARKS = ("# timeout:", "# not a speed bound:")
ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _names(node: ast.AST):
    """The identifiers an expression reads: names, attributes and string keys."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            yield sub.id
        elif isinstance(sub, ast.Attribute):
            yield sub.attr
        elif isinstance(sub, ast.Subscript) and isinstance(sub.slice, ast.Constant) \
                and isinstance(sub.slice.value, str):
            yield sub.slice.value


def _reads_clock(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else \
                func.id if isinstance(func, ast.Name) else None
            if name in CLOCKS:
                return True
    return False


def _timed(node: ast.AST) -> bool:
    return _reads_clock(node) or any(TIMED.search(name.lower()) for name in _names(node))


def _zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and not isinstance(node.value, bool)


def _bounds_a_time(compare: ast.Compare) -> bool:
    """An ordering of a timed value against anything but 0 (``rate > 0`` holds on any machine:
    a figure was measured at all)."""
    sides = [compare.left, *compare.comparators]
    for op, a, b in zip(compare.ops, sides, sides[1:]):
        if isinstance(op, ORDER) and (_timed(a) or _timed(b)) and not (_zero(a) or _zero(b)):
            return True
    return False


def _fails(body: list) -> bool:
    """An ``if`` body that fails the test: ``raise`` or ``pytest.fail(...)``."""
    for stmt in body:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Raise):
                return True
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                    and sub.func.attr == "fail":
                return True
    return False


def timed_assertions(source: str, filename: str = "<test>") -> list[str]:
    """``file:line: text`` of each timed ordering comparison that fails a test, unmarked."""
    tree = ast.parse(source, filename)
    lines = source.splitlines()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            checked = node.test
        elif isinstance(node, ast.If) and _fails(node.body):
            checked = node.test
        else:
            continue
        span = lines[node.lineno - 1:(node.end_lineno or node.lineno)]
        if node.lineno > 1 and lines[node.lineno - 2].strip().startswith("#"):
            span.append(lines[node.lineno - 2])  # the comment line just above
        if any(mark in line for line in span for mark in MARKS):
            continue
        if any(_bounds_a_time(compare) for compare in ast.walk(checked)
               if isinstance(compare, ast.Compare)):
            found.append(f"{filename}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return found


# --- the guard itself is tested on rows that must and must not be flagged -----------------------

FLAGGED = [
    "assert result['us_per_decision'] < 1000",
    "assert elapsed / len(masks) < 1e-3",
    "assert elapsed < 0.05 + 0.25",
    "assert time.perf_counter() - start < 10",
    "assert bench.decisions_per_second > 5000",
    "assert stats.samples_per_s >= 1000",
    "assert rate_per_sec > 2",
    "assert 0.2 > took_seconds",
    "assert time.perf_counter() - unlimited > 2 * elapsed",
    "if time.monotonic() - start > 5:\n    pytest.fail('too slow')",
    "if elapsed >= 3:\n    raise AssertionError(elapsed)",
    "assert ok and wall_s < 60",
    "assert before['update_samples_per_s'] > before['samples_per_s'] > 0",
]
KEPT = [
    "assert result['win_rate'] >= 0.8",
    "assert elapsed == recorded",  # not an ordering
    "assert time.monotonic() - start < LATE  # timeout: a silent client is cut within LATE",
    "assert len(masks) < 1000",
    "if time.monotonic() - start > LATE:\n    break",  # a loop's watchdog, not a failure
    "assert (time.perf_counter() - start\n        < 30)  # timeout: refused, no cluster starts",
    "assert bench.pimc_decisions_per_second('dagong', 0.01) > 0",
    "assert results['env_steps_per_s'] > 0 and 0 < stats['seconds']",
    "assert a['update_s'] > a['collect_s']  # not a speed bound: one iteration's parts",
]


@pytest.mark.parametrize("source", FLAGGED)
def test_the_guard_flags_a_timed_assertion(source):
    assert timed_assertions(source), source


@pytest.mark.parametrize("source", KEPT)
def test_the_guard_keeps_what_is_no_speed_bound(source):
    assert not timed_assertions(source), source


def test_no_test_asserts_a_speed():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        found += timed_assertions(path.read_text(encoding="utf-8"),
                                  str(path.relative_to(TESTS.parent)))
    assert not found, ("timed assertions (move the figure to a benchmark; test a time limit "
                       "with an injected clock; mark a generous timeout bound '# timeout: "
                       "...'):\n" + "\n".join(found))
