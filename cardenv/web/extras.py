"""What the page shows of a game beyond its presentation's seat view: the score against its
thresholds, the last trick (kept until the next lead), what happened in words (tribute and
burial, how many cards, which went where) and a short rules panel.

A game offers them as the ``table_extras`` module of its registered presentation
(``cardenv.games.presentation(name).table_extras``, e.g. ``cardenv.dabang.table``), so the
page names no game; a game without one (a game installed as a package, the tests' toy game)
gets none, and the page draws it as before. A game's table_extras module offers:

- ``HELP``: the rules panel, a list of lines (English with the game's Chinese terms, as the
  terminal writes them);
- ``score(view, observation)``: ``None`` or ``{"title", "value", "max", "marks": [{"at",
  "label", "reached"}], "facts": [[label, value]], "text"}``;
- ``notes(view, observation, moves)``: sentences about the hand for the seat;
- ``trick_end(before, after, closing)``: who took a trick that just ended, ``{"winner": seat or
  None, "team": team or None, "points": n or None, "text": sentence}``.

Every one of them reads only what the person's seat may know: ``view`` is its seat view
(``cardenv.text.seat_view``), ``observation`` its own observation (whose layout says which
pieces are public), ``moves`` the log of the hand as the seat sees it
(``GameSession.public_entry``, with each move's phase and type, both public). ``Tricks``
follows the tricks from the seat's views alone: a trick starts when the view's ``leader`` (the
play to beat) appears and ends when it goes, so it works for any game whose view names a
leader.
"""

from __future__ import annotations

import re

from cardenv import games
from cardenv.core.lang import TERMS


def module(game: str):
    """The table extras of ``game`` (its name): its presentation's ``table_extras`` module, or
    ``None``."""
    try:
        presentation = games.presentation(game)
    except ValueError:  # a game registered without a presentation
        return None
    return getattr(presentation, "table_extras", None)


# "Tribute (tribute)": a term followed by its own name once translated
_SAID_TWICE = re.compile(r"\b((?:[\w'-]+ ){0,3}[\w'-]+) \((\1)\)", re.IGNORECASE)


def words(text: str, translate) -> str:
    """``text`` (an extra's sentence) in the page's language: translated, a term followed by
    its own English name said once, the first letter a capital."""
    text = _SAID_TWICE.sub(r"\1", translate(text))
    return text[:1].upper() + text[1:]


def help_panel(game: str, translate) -> dict | None:
    """The rules panel of ``game`` in the page's language (``translate``), with the Chinese
    terms it names and their English names (``{"lines", "terms": [[term, english]]}``)."""
    extra = module(game)
    if extra is None:
        return None
    text = "\n".join(extra.HELP)
    terms, seen = [], text
    for term in sorted(TERMS, key=len, reverse=True):  # longest first: 7喜 before 喜
        if term in seen and " " not in term and any("\u4e00" <= ch <= "\u9fff" for ch in term):
            terms.append([term, TERMS[term]])
            seen = seen.replace(term, "")
    return {"lines": [words(line, translate) for line in extra.HELP], "terms": sorted(terms)}


class Tricks:
    """The tricks of one game as the person's seat saw them, from its views before and after
    each move: ``see`` is called once per move, ``last`` is the trick ended last (the indices
    of its moves in the game's log, and who took it), while no trick is under way."""

    def __init__(self, game: str):
        self.extra = module(game)
        self.start: int | None = None  # log index of the current trick's lead
        self.ended: dict | None = None  # {"moves": (first, last), "hand", "taken"}
        self.under_way = False

    def see(self, before: dict, after: dict, index: int) -> None:
        """The move at log index ``index`` took the seat's view from ``before`` to ``after``."""
        if self.extra is None:
            return
        led, leads = before.get("leader") is not None, after.get("leader") is not None
        if not led and leads:
            self.start = index
        elif led and not leads and self.start is not None:
            closing = {"seat": before["to_act"]}
            self.ended = {"moves": (self.start, index), "hand": before["hand_number"],
                          "taken": self.extra.trick_end(before, after, closing)}
            self.start = None
        self.under_way = leads

    def last(self) -> dict | None:
        """The trick ended last, while the next has not been led (``None`` otherwise)."""
        return None if self.under_way else self.ended


def for_seat(game: str, view: dict, observation, moves: list[dict]) -> dict:
    """The extras of the seat's message: ``{"score", "notes"}`` (``None`` and ``[]`` for a game
    without an extras module)."""
    extra = module(game)
    if extra is None:
        return {"score": None, "notes": []}
    return {"score": extra.score(view, observation),
            "notes": extra.notes(view, observation, moves)}
