"""The web page's games and record replays, kept in memory: what each request reads and changes.

A ``GameSession`` is one game played by a person at one seat against three players that act
server-side (``cardenv.player_specs``). Everything it sends to the page goes through
``GameSession.message``, built from only what that seat may know:

- ``view``: ``cardenv.text.seat_view(state, seat)`` as it is (its hand, the others' counts,
  everything public), with the Chinese terms in English under ``lang="en"``;
- ``moves``: the seat's legal moves grouped by type (its legal mask, part of its own
  observation), each with the cards it takes from the seat's own hand;
- ``log``: the moves played so far, each as the seat may know it (``public_entry``): a move of
  another seat shows its cards only where the seat sees them (``cardenv.text.move_text``, the
  terminal's rule): the Dabang dealer's burial shows none, a tribute card given back shows only
  to the dealer and the seat it goes to, and a move built step by step (``cardenv.moves.
  open_step``: a Dabang follow) shows as one play of its cards once whole (the order of its
  steps is not shown);
- ``results``: each finished hand's result in words for the seat (``cardenv.text.explain``);
- ``score``, ``notes``, ``last_trick``: the game's extras (``cardenv.web.extras``), read from
  the seat's view, its own observation and the log as the seat sees it: the score against its
  thresholds, the tribute and the burial in words, the trick ended last (until the next lead).

The players' moves are made on the server, all at once after the person's move, or (with
``advance=False``) one at a time, each asked for by the page (``advance_one``), so that the page
shows who is thinking and each move as it comes.

The deal's seed, the other hands and the kitty are never sent while the game runs: the seed
would give them all away. A finished game can be opened in the viewer (``ReplaySession``), which
shows every hand.

``Store`` keeps sessions by random id, at most ``cap`` of them and none idle longer than ``ttl``
seconds; a request for any other id is answered "unknown or expired". When it is full, a new one
takes the place of the least recently used, unless that one was used in the last ``keep_busy``
seconds: then the new one is refused (503), so that a burst of new games cannot push out the
games people are playing. Each session has a lock, so requests from several tabs never
interleave in one game.
"""

from __future__ import annotations

import collections
import re
import secrets
import threading
import time

import numpy as np

from cardenv import moves as moves_mod
from cardenv import records
from cardenv.core.cards import parse_cards
from cardenv.core.checks import is_int
from cardenv.core.errors import IllegalActionError
from cardenv.player_specs import decide
from cardenv.text import explain, move_label, move_text, seat_view, why_illegal
from cardenv.web import extras

LOG_SHOWN = 400  # log entries a message carries (the most recent); the count says how many more
CJK = re.compile(r"[\u4e00-\u9fff]")


class WebError(Exception):
    """A request that cannot be served: ``status`` is the HTTP status, the message says why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def translator(lang: str):
    """``text -> text`` in ``lang`` (``"zh"`` keeps the games' Chinese terms)."""
    if lang == "zh":
        return lambda text: text
    try:
        from cardenv.core.lang import translate
    except ImportError:  # pragma: no cover - lang ships with this package
        raise WebError(400, "only lang 'zh' is available in this cardenv") from None
    return lambda text: translate(text, lang)


def languages() -> list[str]:
    """The languages the page can offer."""
    try:
        from cardenv.core.lang import LANGS
    except ImportError:  # pragma: no cover
        return ["zh"]
    return list(LANGS)


def translate_all(value, translate):
    """``value`` (JSON-ready) with every string passed through ``translate``."""
    if isinstance(value, str):
        return translate(value) if CJK.search(value) else value
    if isinstance(value, list):
        return [translate_all(v, translate) for v in value]
    if isinstance(value, dict):
        return {k: translate_all(v, translate) for k, v in value.items()}
    return value


class Store:
    """Sessions by random id, at most ``cap``, each dropped after ``ttl`` idle seconds; when full,
    the least recently used makes room unless it was used in the last ``keep_busy`` seconds
    (``WebError`` 503 then)."""

    def __init__(self, kind: str, cap: int, ttl: float, keep_busy: float = 0.0):
        self.kind, self.cap, self.ttl, self.keep_busy = kind, cap, ttl, keep_busy
        self._items: collections.OrderedDict[str, tuple[float, object]] = \
            collections.OrderedDict()
        self._lock = threading.Lock()

    def check_room(self) -> None:
        """``WebError`` 503 if a new session would be refused now (checked before building one,
        so a refused game costs no agent moves; ``add`` checks again)."""
        with self._lock:
            self._expire()
            self._check_room()

    def _check_room(self) -> None:
        if len(self._items) >= self.cap:
            seen = next(iter(self._items.values()))[0]  # the least recently used
            if time.monotonic() - seen < self.keep_busy:
                raise WebError(503, f"the server holds {self.cap} {self.kind}s, all used in the "
                                    f"last {self.keep_busy / 60:g} minutes: try again later")

    def add(self, item) -> str:
        ident = secrets.token_urlsafe(9)
        with self._lock:
            self._expire()
            self._check_room()
            self._items[ident] = (time.monotonic(), item)
            while len(self._items) > self.cap:
                self._items.popitem(last=False)
        return ident

    def get(self, ident: str):
        with self._lock:
            self._expire()
            if ident not in self._items:
                raise WebError(404, f"unknown or expired {self.kind} id {ident!r}: the server "
                                    f"keeps the {self.cap} most recent {self.kind}s, none idle "
                                    f"for more than {self.ttl / 60:g} minutes (or it was "
                                    f"restarted); start a new one")
            item = self._items.pop(ident)[1]
            self._items[ident] = (time.monotonic(), item)
            return item

    def __len__(self) -> int:
        return len(self._items)

    def _expire(self) -> None:
        now = time.monotonic()
        for ident in [i for i, (seen, _) in self._items.items() if now - seen > self.ttl]:
            del self._items[ident]


# --- playing -------------------------------------------------------------------------------------

def hidden_texts(state, action: int) -> list[str | None]:
    """For each seat, the text it reads for ``action`` (about to be played in ``state``) when it
    may not see the move's cards, else ``None``: the one privacy rule of the terminal,
    ``cardenv.text.move_text`` (the Dabang dealer's burial, hidden from the others; a card
    given back for the tribute, seen by the dealer who gives it and the seat it goes to)."""
    whole = move_text(state, action)
    texts = (move_text(state, action, viewer=v) for v in range(state.game.num_players))
    return [None if text == whole else text for text in texts]


class GameSession:
    """One game: a person at ``seat``, ``players[s]`` (objects with ``act``) at the others.

    ``log`` holds one entry per public move: ``{"seat", "hand", "phase", "type", "actions",
    "cards", "private"}`` (a Dabang follow's steps are one entry; ``phase`` and ``type``: the
    phase it was played in and its first action's type, both public; ``private[s]``: what seat
    ``s`` reads instead of a move whose cards it may not see, else ``None``, from
    ``hidden_texts``); ``public_entry`` makes what a seat may see of it.
    ``version`` counts the person's moves, so that a page answering an old message is told the
    game has moved on. ``labels``: the players as people read them (``names`` are the specs,
    kept in the game record). ``advance``: let the players before the person act at once
    (else the page asks for each move, ``advance_one``)."""

    def __init__(self, game, seat: int, players: list, names: list[str], seed: int,
                 labels: list[str] | None = None, advance: bool = True):
        self.game, self.seat, self.players, self.names = game, seat, players, names
        self.labels = list(labels or names)
        self.seed = seed
        self.state = game.new_state(seed)
        self.log: list[dict] = []
        self.version = 0
        self.saved: str | None = None  # the record file written when the game ended
        self.lock = threading.Lock()
        self.tricks = extras.Tricks(game.name)  # the tricks as the person's seat saw them
        self._view = seat_view(self.state, seat)  # the person's view now
        if advance:
            self.advance()

    # the game loop

    def observation(self, seat: int) -> dict:
        return {"observation": self.state.observation(seat),
                "action_mask": self.state.legal_mask().astype(np.int8)}

    def _apply(self, action: int) -> None:
        state = self.state
        seat, hand, phase = state.current_player, len(state.results) + 1, str(state.phase)
        cards = moves_mod.move_cards(state, action)
        private = hidden_texts(state, action)
        state.apply(action)  # IllegalActionError leaves the state unchanged
        last = self.log[-1] if self.log else None
        if last is not None and last.get("open") and last["seat"] == seat:
            entry = last  # the next step of a move built step by step (a Dabang follow)
        else:
            entry = {"seat": seat, "hand": hand, "phase": phase,
                     "type": self.game.action_info(action).type, "actions": [], "cards": [],
                     "private": private}
            self.log.append(entry)
        entry["actions"].append(int(action))
        entry["cards"].extend(cards)
        entry["open"] = (not state.is_over and state.current_player == seat
                         and bool(moves_mod.open_step(state)))
        before, self._view = self._view, seat_view(state, self.seat)
        self.tricks.see(before, self._view, len(self.log) - 1)

    def advance(self) -> None:
        """Let the players act until it is the person's turn or the game is over."""
        while self.advance_one():
            pass

    def advance_one(self) -> bool:
        """Let the player to act make one whole move: a move built step by step with all its
        steps, and a run of decisions of one seat in one phase away from the tricks (a burial
        of eight cards) whole; ``False`` (nothing done) when it is the person's turn or the game
        is over."""
        state = self.state
        if state.is_over or state.current_player == self.seat:
            return False
        seat, phase = state.current_player, str(state.phase)
        while True:
            trick = self._view.get("leader") is not None
            action = decide(self.players[seat], state, self.observation(seat))
            try:
                self._apply(action)
            except IllegalActionError as exc:
                raise WebError(500, f"player_{seat} ({self.names[seat]}) chose an illegal "
                                    f"action: {exc}") from None
            if self.log[-1]["open"]:
                continue
            if trick or self._view.get("leader") is not None or state.is_over or \
                    state.current_player != seat or str(state.phase) != phase:
                return True

    def _check_turn(self, version) -> None:
        if self.state.is_over:
            raise WebError(409, "the game is over: no more moves (start a new game)")
        if version is not None and version != self.version:
            raise WebError(409, f"not your turn to answer: the game has moved on since the "
                                f"page last saw it (version {version}, now {self.version}); "
                                f"reload it")
        if self.state.current_player != self.seat:  # the others still to move (advance=False)
            raise WebError(409, f"not your turn: player_{self.state.current_player} is to act")

    def play(self, actions: list[int], version=None, translate=lambda t: t,
             advance: bool = True) -> None:
        """Apply the person's ``actions`` (all or none: checked on a copy first), then let the
        players act (with ``advance``; else the page asks for each move). ``WebError`` (state
        unchanged) for an illegal action or a wrong turn, its reason in the page's language
        (``translate``)."""
        self._check_turn(version)
        trial = self.state.clone()
        for action in actions:
            if trial.is_over or trial.current_player != self.seat:
                raise WebError(400, "more moves than this turn takes")
            reason = why_illegal(trial, action)  # the rule it breaks, in words
            if reason:
                raise WebError(400, translate(f"illegal move: "
                                              f"{self.game.action_info(action).text}: {reason}"))
            try:
                trial.apply(action)
            except IllegalActionError as exc:  # pragma: no cover - why_illegal names every one
                raise WebError(400, f"illegal move: {exc}") from None
        for action in actions:
            self._apply(action)
        self.version += 1
        if advance:
            self.advance()

    def move(self, action, version=None, translate=lambda t: t, advance: bool = True) -> None:
        """The person plays action id ``action`` (a refusal in ``translate``'s language)."""
        if not is_int(action):
            raise WebError(400, f"'action' must be an action id (an integer), got {action!r}")
        self._check_turn(version)
        if not 0 <= action < self.game.num_actions:
            raise WebError(400, f"illegal move: {action} is not an action id (0.."
                                f"{self.game.num_actions - 1})")
        self.play([action], version, translate, advance)

    def cards(self, cards, version=None, translate=lambda t: t,
              advance: bool = True) -> list[dict] | None:
        """The person selected ``cards``: played at once when they mean one move; the choices
        (``[{"id", "text", "cards"}]``, nothing played) when they could mean several (Dagong);
        ``WebError`` 400 with the reason when they are not a legal move."""
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise WebError(400, f"'cards' must be a list of card strings such as \"♠10\", got "
                                f"{cards!r}")
        self._check_turn(version)
        try:
            options = moves_mod.card_moves(self.state, cards, translate)
        except ValueError as exc:
            raise WebError(400, f"not played: {exc}") from None
        if len(options) > 1:
            return [self.describe(plan[0], translate) for plan in options]
        self.play(options[0], version, translate, advance)
        return None

    # what the page is sent

    def describe(self, action: int, translate) -> dict:
        return {"id": int(action), "text": translate(self.game.action_info(action).text),
                "cards": moves_mod.move_cards(self.state, action)}

    def public_entry(self, entry: dict, viewer: int, translate) -> dict | None:
        """What ``viewer`` may see of a log entry (``None``: nothing yet, a follow still being
        built by another seat)."""
        game = self.game
        mine = entry["seat"] == viewer
        if entry.get("open") and not mine:
            return None
        private = entry["private"][viewer]
        if private is not None:  # never for ``mine``: a seat sees its own moves
            return {"seat": entry["seat"], "hand": entry["hand"],
                    "text": translate(private), "cards": []}
        texts = [game.action_info(a).text for a in entry["actions"]]
        if len(texts) > 1:  # a Dabang follow: its groups by card, not in the order built
            texts = [t for _, t in sorted(zip(entry["actions"], texts))]
        cards = sorted(entry["cards"], key=_card_order)
        return {"seat": entry["seat"], "hand": entry["hand"],
                "text": translate(" + ".join(texts)), "cards": cards}

    def message(self, lang: str = "zh") -> dict:
        """Everything the page gets about this game: only what the person's seat may know."""
        translate = translator(lang)
        state, seat = self.state, self.seat
        log = [e for e in (self.public_entry(e, seat, translate) for e in self.log) if e]
        your_turn = not state.is_over and state.current_player == seat
        groups = []
        if your_turn:
            for kind, actions in moves_mod.group_moves(self.game, state.legal_actions()).items():
                groups.append({"type": kind, "label": move_label(self.game, kind, lang,
                                                                 str(state.phase)),
                               "moves": [self.describe(a, translate) for a in actions]})
        view = seat_view(state, seat)
        moves = [dict(shown, phase=e["phase"], type=e["type"])  # this hand's, as seen
                 for e in self.log if e["hand"] == view.get("hand_number")
                 and (shown := self.public_entry(e, seat, lambda t: t))]
        extra = extras.for_seat(self.game.name, view, state.observation(seat), moves)
        message = {
            "id": None, "game": self.game.name, "seat": seat, "version": self.version,
            "players": list(self.names), "labels": list(self.labels),
            "options": _plain(_options(self.game)),
            "view": translate_all(view, translate),
            "your_turn": your_turn, "over": bool(state.is_over),
            "thinking": None if state.is_over or your_turn else int(state.current_player),
            "moves": groups, "card_select": any(m["cards"] for g in groups for m in g["moves"]),
            "log": log[-LOG_SHOWN:], "log_total": len(log),
            "results": [{"hand": i + 1, "text": explain(state, r, seat, lang)}
                        for i, r in enumerate(state.results)],
            "returns": [float(r) for r in state.returns] if state.is_over else None,
            "score": translate_all(extra["score"], lambda t: extras.words(t, translate)),
            "notes": [extras.words(note, translate) for note in extra["notes"]],
            "last_trick": self.last_trick(translate),
        }
        return message

    def last_trick(self, translate) -> dict | None:
        """The trick ended last, while the next is not led: ``{"hand", "plays" (its moves as
        the log shows them to the person), "winner", "team", "points", "text", "seat"}``."""
        ended = self.tricks.last()
        if ended is None:
            return None
        first, last = ended["moves"]
        plays = [e for e in (self.public_entry(e, self.seat, translate)
                             for e in self.log[first:last + 1]) if e]
        taken = translate_all(ended["taken"], lambda t: extras.words(t, translate))
        return dict(taken, hand=ended["hand"], plays=plays)

    def record(self):
        """The finished game as a game record (``cardenv.records``)."""
        return records.record_of(self.state, self.names,
                                 meta={"source": "cardenv.web", "seat": self.seat})


def _card_order(card: str):
    (kind,) = parse_cards(card)
    return (kind // 4 if kind < 52 else kind, kind % 4)


def _options(game) -> dict:
    return game.options_dict() if hasattr(game, "options_dict") else dict(game.options)


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    return value


# --- watching a record ---------------------------------------------------------------------------

SNAPSHOT_EVERY = 64  # a replay keeps the state every this many moves and replays the rest


class ReplaySession:
    """A game record replayed through the engine (checked whole first: ``RecordError``), with
    every hand visible: ``step(k)`` is the table after ``k`` moves."""

    def __init__(self, record):
        self.record = record
        records.check(record)  # RecordError: illegal moves, results the engine does not give
        self.game = records.game_of(record)
        state = self.game.new_state(record.seed)
        self.snapshots = [state.clone()]
        self.seats = []  # the seat that made each move
        for k, action in enumerate(record.actions):
            self.seats.append(int(state.current_player))
            state.apply(action)
            if (k + 1) % SNAPSHOT_EVERY == 0:
                self.snapshots.append(state.clone())
        self.final = state
        self.lock = threading.Lock()

    def state_at(self, k: int):
        state = self.snapshots[k // SNAPSHOT_EVERY].clone()
        for action in self.record.actions[(k // SNAPSHOT_EVERY) * SNAPSHOT_EVERY:k]:
            state.apply(action)
        return state

    def summary(self, lang: str = "zh") -> dict:
        """The record's header: game, players, options, seed, the move list."""
        translate = translator(lang)
        record = self.record
        return {
            "id": None, "game": record.game, "players": list(record.players),
            "options": _plain(record.options), "seed": record.seed, "meta": record.meta,
            "source": record.source, "moves": len(record.actions),
            "move_list": [{"seat": s, "text": translate(self.game.action_info(a).text)}
                          for s, a in zip(self.seats, record.actions)],
            "returns": list(record.returns), "finished": bool(self.final.is_over),
        }

    def step(self, k: int, lang: str = "zh") -> dict:
        """The table after ``k`` moves: every seat's view, the move just made, and the results
        of the hands finished by then (each explained for every seat)."""
        n = len(self.record.actions)
        if not 0 <= k <= n:
            raise WebError(400, f"move must be in 0..{n}, got {k}")
        translate = translator(lang)
        state = self.state_at(k)
        last = None
        if k:
            action = self.record.actions[k - 1]
            last = {"seat": self.seats[k - 1],
                    "text": translate(self.game.action_info(action).text)}
        return {
            "k": k, "moves": n, "last": last, "over": bool(state.is_over),
            "to_act": None if state.is_over else int(state.current_player),
            "views": [translate_all(seat_view(state, s), translate)
                      for s in range(self.game.num_players)],
            "results": [{"hand": i + 1,
                         "texts": [explain(state, r, s, lang)
                                   for s in range(self.game.num_players)]}
                        for i, r in enumerate(state.results)],
            "returns": [float(r) for r in state.returns],
        }
