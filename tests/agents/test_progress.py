"""Long jobs show progress: the Progress line, and the evaluation calls that feed it."""

import io

from agents.evaluate import duplicate
from agents.progress import Progress
from agents.random_agent import RandomAgent


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
