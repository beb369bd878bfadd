"""A progress line for long jobs (evaluation, training phases): ``Progress(total, label)`` is
called with the count done so far and prints ``label: done/total (pct) rate/s, ETA`` to stderr,
rewriting one line on a terminal and writing a line every ``every_pipe`` seconds otherwise, so
that a job never runs silent."""

from __future__ import annotations

import sys
import time


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """Call with the number of units done; the last call (``done == total``) ends the line."""

    def __init__(self, total: int, label: str, unit: str = "", stream=None,
                 every_tty: float = 0.5, every_pipe: float = 10.0):
        self.total, self.label, self.unit = total, label, unit
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every_tty if self.tty else every_pipe
        self.start = time.perf_counter()
        self.shown = -self.every  # the first call prints
        self.finished = False

    def line(self, done: int) -> str:
        elapsed = time.perf_counter() - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else 0.0
        unit = f" {self.unit}" if self.unit else ""
        tail = f"{_clock(elapsed)} elapsed" if done >= self.total else f"ETA {_clock(eta)}"
        return (f"{self.label}: {done:,}/{self.total:,}{unit} ({done / max(self.total, 1):.0%}), "
                f"{rate:,.1f}/s, {tail}")

    def __call__(self, done: int) -> None:
        if self.finished:
            return
        now = time.perf_counter() - self.start
        last = done >= self.total
        if not last and now - self.shown < self.every:
            return
        self.shown = now
        text = self.line(done)
        if self.tty:
            self.stream.write("\r" + text + ("\n" if last else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.finished = last
