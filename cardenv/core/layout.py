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

A piece may also be *derived* (``derived=True``): what a card player counts from what it sees
(unseen cards, the trick's winner so far, ...). A derived piece is not kept in the buffer: the
layout's ``derive`` function computes it from the rest of the observation each time one is read
(``Layout.observe``), so it is a function of the seat's view by construction (it cannot leak)
and the single and batched engines give it alike. Its ``rule`` says what it describes
(``public``; ``seats``, indexed by relative seat; ``own``, from the observer's own knowledge)
and its shape is the shape the observer sees. Derived pieces are in observations only, never in
the global state (``state()``).
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
    derived: bool = False  # computed from the observation when read (see the module docstring)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class Layout:
    """Offsets of the declared pieces, views into a buffer, and per-seat observation gathers.

    ``derive(views)``, needed when a piece is derived, fills the derived pieces of a batch of
    observations: ``views`` maps every observation piece's name to a ``(B, *shape)`` float32
    view of it, the stored pieces already filled, the derived ones zero. ``turn`` names the
    stored ``seats`` piece of shape (4,) that one-hot marks the seat to act, which a critic
    reading the state from that seat needs (``turn_span``, ``seat_state_index``)."""

    def __init__(self, pieces: list[Piece], derive=None, turn: str | None = None):
        self.pieces = pieces
        self.turn = turn
        self.stored = [p for p in pieces if not p.derived]
        self.derived = [p for p in pieces if p.derived]
        self.derive = derive
        if self.derived and derive is None:
            raise ValueError("a layout with derived pieces needs a derive function")
        self.offsets: dict[str, int] = {}
        offset = 0
        for p in pieces:
            if p.rule not in RULES:
                raise ValueError(f"piece {p.name}: unknown rule {p.rule!r}")
            if p.derived:
                if p.rule not in ("public", "seats", "own"):
                    raise ValueError(f"derived piece {p.name}: rule {p.rule} (derived pieces "
                                     f"are public, seats or own)")
                if p.rule == "seats" and p.shape[0] != NUM_SEATS:
                    raise ValueError(f"piece {p.name}: rule seats needs a leading axis of 4")
                continue
            if p.rule in ("seats", "own", "own_seats") and p.shape[0] != NUM_SEATS:
                raise ValueError(f"piece {p.name}: rule {p.rule} needs a leading axis of 4")
            self.offsets[p.name] = offset
            offset += p.size
        self.size = offset
        self._spans = [(p.name, self.offsets[p.name], self.offsets[p.name] + p.size, p.shape)
                       for p in self.stored]
        # the observation: each seat's gather of the stored pieces, then the derived ones
        # computed from it, in declaration order
        rows = self.observation_pieces()
        self._obs_spans = [(name, start, stop, shape) for name, start, stop, shape, _ in rows]
        self.observation_size = rows[-1][2] if rows else 0
        derived = {p.name for p in self.derived}
        columns = [np.arange(start, stop) for name, start, stop, _, _ in rows
                   if name not in derived]
        self.stored_columns = np.concatenate(columns) if columns else np.zeros(0, np.int64)
        self._stored_prefix = bool(np.array_equal(self.stored_columns,
                                                  np.arange(self.stored_columns.size)))
        self.observation_index = np.stack([self._gather(seat) for seat in range(NUM_SEATS)])
        if turn is not None:
            piece = next((p for p in self.stored if p.name == turn), None)
            if piece is None or piece.rule != "seats" or piece.shape != (NUM_SEATS,):
                raise ValueError(f"turn must name a stored piece of rule seats and shape (4,), "
                                 f"got {turn!r}")
        self.state_high = np.concatenate(
            [np.full(p.size, p.high, dtype=np.float32) for p in self.stored])
        self.observation_high = np.concatenate(
            [np.full(int(np.prod(shape)), p.high, dtype=np.float32)
             for p, (_, _, _, shape, _) in zip([p for p in pieces if p.rule != "hidden"], rows)])

    def views(self, buffer: np.ndarray) -> dict[str, np.ndarray]:
        """Named views (no copies) of a flat buffer of size ``self.size`` (stored pieces)."""
        return {name: buffer[start:stop].reshape(shape) for name, start, stop, shape in self._spans}

    def observation_views(self, observations: np.ndarray) -> dict[str, np.ndarray]:
        """Named ``(B, *shape)`` views (no copies) of a ``(B, observation_size)`` array."""
        b = observations.shape[0]
        return {name: observations[:, start:stop].reshape(b, *shape)
                for name, start, stop, shape in self._obs_spans}

    def observe(self, buffers: np.ndarray, seats: np.ndarray, gathered=None) -> np.ndarray:
        """``(B, observation_size)`` float32 observations of ``(B, size)`` buffers, row ``i``
        seen by seat ``seats[i]``: the stored pieces gathered, then the derived ones computed.
        ``gathered``, if given, is the ``(B, len(stored_columns))`` gather already made (a
        batched engine's faster one)."""
        if gathered is None:
            gathered = np.empty((buffers.shape[0], self.stored_columns.size), dtype=np.float32)
            for seat, index in enumerate(self.observation_index):
                rows = np.flatnonzero(seats == seat)
                if rows.size:
                    gathered[rows] = buffers[rows][:, index]
        return self.complete(gathered)

    def complete(self, gathered: np.ndarray) -> np.ndarray:
        """The whole observations from the gathers of their stored pieces (``(B, n)``, ``n`` =
        ``len(stored_columns)``): the derived pieces computed and put in their places."""
        if not self.derived:
            return gathered
        out = np.zeros((gathered.shape[0], self.observation_size), dtype=np.float32)
        if self._stored_prefix:
            out[:, :gathered.shape[1]] = gathered
        else:
            out[:, self.stored_columns] = gathered
        self.derive(self.observation_views(out))
        return out

    def _gather(self, seat: int) -> np.ndarray:
        parts = []
        for p in self.stored:
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

    def turn_span(self) -> tuple[int, int]:
        """Where the ``turn`` piece (the one-hot of the seat to act) lies in the global state."""
        if self.turn is None:
            raise ValueError("this layout declares no turn piece")
        start = self.offsets[self.turn]
        return start, start + NUM_SEATS

    def seat_state_index(self) -> np.ndarray:
        """``(4, size)`` int64: row ``s`` gathers the global state as seat ``s`` would hold it
        if it saw everything: every piece kept (nothing is hidden from a critic), with each
        seat axis rotated so that row 0 is seat ``s`` -- ``seats`` and ``own`` pieces by their
        leading axis, ``own_seats`` by both -- as its observation rotates them. ``public`` and
        ``hidden`` pieces stay as they are. A critic reading this view values "the seat to
        act" the same way from every seat, instead of learning each absolute seat apart."""
        rows = []
        for seat in range(NUM_SEATS):
            rotation = (seat + np.arange(NUM_SEATS)) % NUM_SEATS
            parts = []
            for p in self.stored:
                idx = np.arange(self.offsets[p.name], self.offsets[p.name] + p.size) \
                    .reshape(p.shape)
                if p.rule in ("seats", "own"):
                    idx = idx[rotation]
                elif p.rule == "own_seats":
                    idx = idx[rotation][:, rotation]
                parts.append(idx.ravel())
            rows.append(np.concatenate(parts))
        return np.stack(rows)

    def observation_pieces(self) -> list[tuple[str, int, int, tuple[int, ...], str]]:
        """``(name, start, stop, shape as seen, doc)`` of each piece in an observation."""
        rows, start = [], 0
        for p in self.pieces:
            if p.rule == "hidden":
                continue
            shape = p.shape[1:] if p.rule in ("own", "own_seats") and not p.derived else p.shape
            size = int(np.prod(shape))
            doc = "(derived) " + p.doc if p.derived else p.doc
            rows.append((p.name, start, start + size, shape, doc))
            start += size
        return rows

    def state_pieces(self) -> list[tuple[str, int, int, tuple[int, ...], str]]:
        """``(name, start, stop, shape, doc)`` of each piece in the global state (the stored
        pieces: derived ones are in observations only)."""
        return [(p.name, self.offsets[p.name], self.offsets[p.name] + p.size, p.shape, p.doc)
                for p in self.stored]

    def markdown_table(self, which: str = "observation") -> str:
        rows = self.observation_pieces() if which == "observation" else self.state_pieces()
        high = {p.name: p.high for p in self.pieces}
        lines = ["| Index | Piece | Shape | Max | Description |", "|---|---|---|---|---|"]
        for name, start, stop, shape, doc in rows:
            shape_text = "x".join(map(str, shape))
            lines.append(f"| {start}..{stop - 1} | `{name}` | {shape_text} | {high[name]:g} "
                         f"| {doc} |")
        return "\n".join(lines)
