"""The consistency measurement of the world samplers (``core.worlds.check_consistency``, run by
``python -m cardenv.bench worlds --check N``): on both games every sampled world checks out;
a world that does not (a corrupted one) is reported with what rebuilds it; positions a
sampler does not cover are counted as skipped, not failed."""

from __future__ import annotations

import numpy as np
import pytest

from cardenv import bench
from cardenv.core.worlds import (Consistency, Failure, check_consistency, random_policy, seat_views,
                                 world_problem)
from cardenv.core.errors import StateError
from cardenv.games import make_game
from tests.sizes import sizes


def variants(name):
    return [make_game(name, **options) for options in bench.CHECK_OPTIONS[name]]


@pytest.mark.parametrize("name", ["dagong", "dabang"])
@sizes("count", 12, 400)
def test_every_sampled_world_checks_out(name, count):
    policies = bench.check_policies(name)
    assert set(policies) == {"random", "heuristic"}  # the cardagents package is installed here
    report = check_consistency(variants(name), count, worlds=2, seed=3, policies=policies)
    assert report.failures == []
    assert report.positions + report.skipped == count and report.positions > 0
    assert report.worlds == 2 * report.positions and report.percent == 100.0
    assert "play" in report.phases


def some_position(name="dagong", seed=4, steps=23):
    game = make_game(name)
    state = game.new_state(seed)
    choose = random_policy(seed)
    for _ in range(steps):
        state.apply(choose(state))
    return game, state


def corrupted(world, seat):
    """``world`` with two cards swapped between ``seat``'s hand as dealt and another seat's:
    the seat sees another hand."""
    hands = [list(h) for h in world.given_deal["hands"]]
    other = (seat + 1) % 4
    mine = next(k for k in hands[seat] if k not in hands[other])
    theirs = next(k for k in hands[other] if k not in hands[seat])
    hands[seat][hands[seat].index(mine)] = theirs
    hands[other][hands[other].index(theirs)] = mine
    return world.game.state_from_deal(world.seed, {**world.given_deal, "hands": hands})


def test_a_corrupted_world_is_inconsistent():
    game, state = some_position()
    seat = 2
    views = seat_views(state, seat)
    world, = game.sample_worlds(state, seat, 1, np.random.default_rng(0))
    assert world_problem(state, seat, world, views) is None
    assert world_problem(state, seat, corrupted(world, seat), views) \
        == "observation differs at the start of the hand"
    edited = world.clone()  # the buffer edited: not the state its recipe replays to
    edited.v["points"][0] += 5
    assert world_problem(state, seat, edited, views) \
        == "the world is not the state its recipe replays to"
    lost = world.game.replay(world.seed, world.history[:-1], world.given_deal)
    assert world_problem(state, seat, lost, views) == "observation differs now"


def test_failures_and_skips_are_reported_with_a_reproducer(monkeypatch):
    game = make_game("dagong")
    sample = game.sample_worlds
    calls = []

    def broken(state, seat, n, rng):
        calls.append(state.current_player)
        if len(calls) % 3 == 0:
            raise NotImplementedError("not covered")
        worlds = sample(state, seat, n, rng)
        return [corrupted(worlds[0], seat)] + worlds[1:]

    monkeypatch.setattr(game, "sample_worlds", broken)
    seen = []
    report = check_consistency([game], 9, worlds=2, seed=11,
                               progress=lambda r: seen.append(r.positions + r.skipped))
    assert (report.positions, report.skipped, report.worlds) == (6, 3, 12)
    assert seen == list(range(1, 10))  # called after each position
    assert report.consistent == 6 and report.percent == 50.0
    assert len(report.failures) == 6 and {f.world for f in report.failures} == {0}
    failure = report.failures[0]
    assert failure.seed == 11 and failure.policy == "random" and failure.game == "dagong"
    # the reproducer rebuilds the position and the failing world
    state = game.new_state(failure.seed)
    choose = random_policy(failure.seed)
    for _ in range(failure.step):
        state.apply(choose(state))
    worlds = sample(state, failure.seat, 2, np.random.default_rng(failure.rng))
    assert world_problem(state, failure.seat, corrupted(worlds[0], failure.seat),
                         seat_views(state, failure.seat)) == failure.problem
    text = failure.reproducer()
    assert f"seed=11 policy=random step={failure.step} seat={failure.seat}" in text


def test_a_sampler_that_gives_up_is_a_reported_failure(monkeypatch):
    """A sampler out of proposals (StateError) at a position is a failure with a reproducer
    (world -1), and the check goes on to the other positions."""
    game = make_game("dagong")
    sample = game.sample_worlds
    calls = []

    def tired(state, seat, n, rng):
        calls.append(1)
        if len(calls) == 2:
            raise StateError("dagong.sample_worlds: found 1 of 2 consistent worlds")
        return sample(state, seat, n, rng)

    monkeypatch.setattr(game, "sample_worlds", tired)
    report = check_consistency([game], 4, worlds=2, seed=5)
    assert (report.positions, report.skipped, report.worlds, report.consistent) == (4, 0, 6, 6)
    [failure] = report.failures
    assert failure.world == -1 and failure.problem.startswith("no worlds: ")


def test_the_bench_prints_the_check_and_fails_on_an_inconsistent_world(capsys, monkeypatch):
    bench.main(["worlds", "--check", "6", "--only", "dagong"])
    out = capsys.readouterr().out
    assert "dagong consistent worlds" in out and "100.000% (12 of 12 worlds) at 6 positions" in out

    def failing(games, positions, **kwargs):
        report = Consistency(games[0].name, positions=1, worlds=1)
        report.failures.append(Failure("dagong", {}, 1, "random", 2, 3, 4, 0, "made up"))
        return report
    monkeypatch.setattr(bench, "check_consistency", failing)
    with pytest.raises(SystemExit) as exit_:
        bench.main(["worlds", "--check", "1", "--only", "dagong"])
    assert exit_.value.code == 1
    assert "FAILED dagong options={} seed=1 policy=random step=2 seat=3 rng=4 world=0: made " \
        "up" in capsys.readouterr().out


@pytest.mark.parametrize("args, words", [
    (["dagong", "--check", "5"], "--check goes with the worlds benchmark"),
    (["worlds", "--check", "0"], "--check must be in 1..10000000"),
    (["worlds", "--check", "5", "--per-position", "0"], "--per-position must be in 1..1000"),
])
def test_bad_check_arguments_are_refused(args, words, capsys):
    with pytest.raises(SystemExit):
        bench.main(args)
    assert words in capsys.readouterr().err
