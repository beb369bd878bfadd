"""Long jobs show progress: the Progress line, and the evaluation calls that feed it."""

import io

import pytest

from cardagents.evaluation.evaluate import duplicate
from cardagents.evaluation.progress import Progress, RunClock
from cardagents.players.random import RandomAgent


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_rewrites_one_line_on_a_terminal_and_ends_it():
    out = Terminal()
    progress = Progress(4, "work", "games", stream=out, every_tty=0)
    for done in range(5):
        progress(done)
    text = out.getvalue()
    assert text.count("\r") == 5 and text.endswith("\n") and text.count("\n") == 1
    assert "work: 4/4 games (100%)" in text and "elapsed" in text.splitlines()[-1]
    progress(4)  # nothing after the end
    assert out.getvalue() == text


def test_progress_writes_lines_to_a_pipe_sparingly():
    out = io.StringIO()
    progress = Progress(1000, "work", stream=out, every_pipe=3600)
    for done in range(1001):
        progress(done)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2  # the first call and the end
    assert lines[0].startswith("work: 0/1,000") and "ETA" in lines[0]
    assert lines[1].startswith("work: 1,000/1,000 (100%)")


def test_duplicate_reports_every_game_once_in_order():
    seen = []
    stats = duplicate("dagong", RandomAgent("dagong", 1), RandomAgent("dagong", 2), 12,
                      batch=5, progress=seen.append)
    assert stats["pairs"] == 12
    assert seen == sorted(seen) and seen[-1] == 24 and len(set(seen)) == len(seen)
    quiet = duplicate("dagong", RandomAgent("dagong", 1), RandomAgent("dagong", 2), 12, batch=5)
    assert quiet == stats  # progress changes nothing


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_run_clock_times_each_kind_and_scales_the_ones_not_run_yet():
    clock = Clock()
    run = RunClock([("imitation", "imitation", 1000), ("start", "evaluation", 10),
                    ("ppo", "ppo", 2000), ("end", "evaluation", 20)], clock=clock,
                   costs={"imitation": 1.0, "ppo": 3.0, "evaluation": 50.0})
    assert run.left() is None and run.text() == "run: time left not known yet"
    run.start("imitation")
    clock.now = 10.0
    run.update("imitation", 500)  # 0.02 s a decision: the run's scale is 0.02 s a cost unit
    # 500 decisions more at their own rate, the others at cost x 0.02 s
    assert run.left() == pytest.approx(500 * 0.02 + 30 * 50 * 0.02 + 2000 * 3 * 0.02)
    clock.now = 20.0
    run.update("imitation", 1000)
    run.start("start")
    clock.now = 30.0
    run.update("start", 10)  # 1 s a game, not the prior's 1.0 s (50 x 0.02): timed now
    # ppo scaled by both kinds timed: (20 + 10) s over (1000 x 1 + 10 x 50) cost units
    assert run.left() == pytest.approx(20 * 1.0 + 2000 * 3 * 30 / 1500)
    assert run.text() == f"run ~{run.left() // 60:.0f}:{round(run.left()) % 60:02d} left"
    run.start("ppo")
    clock.now = 130.0
    run.update("ppo", 1000)  # 0.1 s a sample
    assert run.left() == pytest.approx(1000 * 0.1 + 20 * 1.0)


def test_run_clock_refuses_a_phase_it_does_not_know():
    with pytest.raises(ValueError, match="kind must be one of"):
        RunClock([("x", "sleep", 3)])
    with pytest.raises(KeyError, match="no run phase 'x'"):
        RunClock([("y", "ppo", 3)]).update("x", 1)
    with pytest.raises(ValueError, match="run and phase go together"):
        Progress(3, "work", run=RunClock([]))


def test_a_progress_line_shows_the_whole_run_time_left():
    clock, out = Clock(), io.StringIO()
    run = RunClock([("a", "evaluation", 4), ("b", "evaluation", 4)], clock=clock)
    progress = Progress(4, "eval a", "games", stream=out, every_pipe=0, run=run, phase="a")
    progress(0)
    clock.now = 2.0
    progress(2)  # (Progress's own ETA is on the wall clock; the run's on the injected one)
    lines = out.getvalue().splitlines()
    assert lines[0].endswith("| run: time left not known yet")
    assert lines[1].endswith("| run ~0:06 left")  # 2 games of a, 4 of b at 1 s a game
