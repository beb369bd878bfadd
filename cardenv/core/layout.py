"""A game's tensor state declared once as named pieces over one flat array.

The rules engine keeps everything a neural network may see in one flat integer buffer; each
piece is a named view into it. A seat's observation is a fixed gather of that buffer, built from
each piece's *view rule*, so the observation layout and its documentation follow from the
declaration and cannot drift apart:

- ``public``: seen as it is by every seat.
- ``seats``: the leading axis is indexed by absolute seat; a seat sees it rotated so that row 0
  is itself, row 1 the next player, and so on.
- ``own``: the leading axis is indexed by seat; a seat sees only its own row (its hand, what it
  alone knows).
- ``own_seats``: shape ``(4, 4)``, row = the seat that knows, column = the seat known about; a seat
  sees its own row, rotated.
- ``hidden``: in the global state only (never in an observation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NUM_SEATS = 4
RULES = ("public", "seats", "own", "own_seats", "hidden")


@dataclass(frozen=True)
class Piece:
    name: str
    shape: tuple[int, ...]
    rule: str
    doc: str
    high: float = 1.0  # largest value an entry can take (all entries are >= 0)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class Layout:
    """Offsets of the declared pieces, views into a buffer, and per-seat observation gathers."""

    def __init__(self, pieces: list[Piece]):
        self.pieces = pieces
        self.offsets: dict[str, int] = {}
        offset = 0
        for p in pieces:
            if p.rule not in RULES:
                raise ValueError(f"piece {p.name}: unknown rule {p.rule!r}")
            if p.rule in ("seats", "own", "own_seats") and p.shape[0] != NUM_SEATS:
                raise ValueError(f"piece {p.name}: rule {p.rule} needs a leading axis of 4")
            self.offsets[p.name] = offset
            offset += p.size
        self.size = offset
        self._spans = [(p.name, self.offsets[p.name], self.offsets[p.name] + p.size, p.shape)
                       for p in pieces]
        self.observation_index = np.stack([self._gather(seat) for seat in range(NUM_SEATS)])
        self.observation_size = self.observation_index.shape[1]
        self.state_high = np.concatenate(
            [np.full(p.size, p.high, dtype=np.float32) for p in pieces])
        self.observation_high = self.state_high[self.observation_index[0]]

    def views(self, buffer: np.ndarray) -> dict[str, np.ndarray]:
        """Named views (no copies) of a flat buffer of size ``self.size``."""
        return {name: buffer[start:stop].reshape(shape) for name, start, stop, shape in self._spans}

    def _gather(self, seat: int) -> np.ndarray:
        parts = []
        for p in self.pieces:
            idx = np.arange(self.offsets[p.name], self.offsets[p.name] + p.size).reshape(p.shape)
            rotation = (seat + np.arange(NUM_SEATS)) % NUM_SEATS
            if p.rule == "public":
                parts.append(idx.ravel())
            elif p.rule == "seats":
                parts.append(idx[rotation].ravel())
            elif p.rule == "own":
                parts.append(idx[seat].ravel())
            elif p.rule == "own_seats":
                parts.append(idx[seat][rotation].ravel())
        return np.concatenate(parts)

    def observation_pieces(self) -> list[tuple[str, int, int, tuple[int, ...], str]]:
        """``(name, start, stop, shape as seen, doc)`` of each piece in an observation."""
        rows, start = [], 0
        for p in self.pieces:
            if p.rule == "hidden":
                continue
            shape = p.shape[1:] if p.rule in ("own", "own_seats") else p.shape
            size = int(np.prod(shape))
            rows.append((p.name, start, start + size, shape, p.doc))
            start += size
        return rows

    def state_pieces(self) -> list[tuple[str, int, int, tuple[int, ...], str]]:
        """``(name, start, stop, shape, doc)`` of each piece in the global state."""
        return [(p.name, self.offsets[p.name], self.offsets[p.name] + p.size, p.shape, p.doc)
                for p in self.pieces]

    def markdown_table(self, which: str = "observation") -> str:
        rows = self.observation_pieces() if which == "observation" else self.state_pieces()
        high = {p.name: p.high for p in self.pieces}
        lines = ["| Index | Piece | Shape | Max | Description |", "|---|---|---|---|---|"]
        for name, start, stop, shape, doc in rows:
            shape_text = "x".join(map(str, shape))
            lines.append(f"| {start}..{stop - 1} | `{name}` | {shape_text} | {high[name]:g} "
                         f"| {doc} |")
        return "\n".join(lines)
