"""Trick play (phase ``play``): a lead of 1..4 identical cards, then each follower's cards built
one group of identical cards per decision (``follow`` gives the steps that can still end in a
legal follow); the strongest eligible play takes the trick, and its player leads the next.

This is the hot path (most of a hand's decisions): each function reads ``state.trick`` once
into a local, and the strength tables are nested lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardenv.core.cards import KIND_POINTS, NUM_KINDS
from cardenv.core.checks import check_bool, check_int, check_seat
from cardenv.core.errors import StateError
from cardenv.dabang import catalogue as cat
from cardenv.dabang.follow import play_steps_one
from cardenv.dabang.phase import Phase, PhaseData, check_keys, int_list, integer
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS, TRUMP

_PLAY = cat.PLAY
_STRENGTH = STRENGTH.tolist()
_SUIT_CLASS = SUIT_CLASS.tolist()
_POINTS = KIND_POINTS.tolist()


@dataclass(slots=True)
class Trick(PhaseData):
    """The trick being played."""

    leader: int = -1
    led_kind: int = -1  # the kind of the lead (-1 before the lead)
    k: int = 0  # cards in the lead: each follower plays k cards, or all it has left
    partial: dict[int, int] = field(default_factory=dict)  # {kind: count} of the follow so far
    # each completed play: [seat, {kind: count}, kind if k identical cards else -1, void in the
    # led suit (a follower's trump can then win)]
    plays: list[list] = field(default_factory=list)
    to_play: list[int] = field(default_factory=list)  # seats still to play, the next first

    def copy(self) -> "Trick":
        return Trick(self.leader, self.led_kind, self.k, dict(self.partial),
                     [[s, dict(p), kind, void] for s, p, kind, void in self.plays],
                     list(self.to_play))

    def to_plain(self) -> dict:
        return {"leader": self.leader, "led_kind": self.led_kind, "k": self.k,
                "partial": [[k, c] for k, c in self.partial.items()],
                "plays": [[s, [[k, c] for k, c in p.items()], kind, void]
                          for s, p, kind, void in self.plays],
                "to_play": list(self.to_play)}

    @classmethod
    def from_plain(cls, data, name: str) -> "Trick":
        """Rebuild from ``to_plain`` output, each field's type and range checked."""
        data = check_keys(cls, data, name)
        plays = data["plays"]
        if not isinstance(plays, list) or len(plays) > 4:
            raise StateError(f"{name}.plays must be a list of at most 4 plays, got {plays!r}")
        for i, play in enumerate(plays):
            if not isinstance(play, list) or len(play) != 4:
                raise StateError(f"{name}.plays[{i}] must be [seat, [[kind, count], ...], "
                                 f"identical kind or -1, void], got {play!r}")
        return cls(integer(-1, 3)(data["leader"], f"{name}.leader"),
                   integer(-1, NUM_KINDS - 1)(data["led_kind"], f"{name}.led_kind"),
                   integer(0, 4)(data["k"], f"{name}.k"),
                   _counts(data["partial"], f"{name}.partial", empty=True),
                   [[check_seat(seat, f"{name}.plays[{i}][0]"),
                     _counts(play, f"{name}.plays[{i}][1]", empty=False),
                     check_int(kind, f"{name}.plays[{i}][2]", -1, NUM_KINDS - 1),
                     check_bool(void, f"{name}.plays[{i}][3]")]
                    for i, (seat, play, kind, void) in enumerate(plays)],
                   int_list(0, 3, max_length=4)(data["to_play"], f"{name}.to_play"))


def _counts(value, name: str, *, empty: bool) -> dict[int, int]:
    """``{kind: count}`` from ``[[kind, count], ...]``: distinct kinds, counts 1..4, at most 4
    cards (a trick's play)."""
    if not isinstance(value, list) or not (value or empty):
        raise StateError(f"{name} must be a list of [kind, count] pairs, got {value!r}")
    counts = {}
    for i, pair in enumerate(value):
        if not isinstance(pair, list) or len(pair) != 2:
            raise StateError(f"{name}[{i}] must be a [kind, count] pair, got {pair!r}")
        kind = check_int(pair[0], f"{name}[{i}][0]", 0, NUM_KINDS - 1)
        if kind in counts:
            raise StateError(f"{name}: kind {kind} appears twice")
        counts[kind] = check_int(pair[1], f"{name}[{i}][1]", 1, 4)
    if sum(counts.values()) > 4:
        raise StateError(f"{name}: a play holds at most 4 cards, got {sum(counts.values())}")
    return counts


def start(state, leader: int) -> None:
    """Open a trick led by ``leader`` (by the next seat holding cards if it holds none)."""
    cards_left = state.cards_left
    if cards_left[leader] == 0:
        leader = next(s for s in ((leader + i) % 4 for i in range(1, 4)) if cards_left[s])
    t = state.trick
    t.leader, t.led_kind, t.k = leader, -1, 0
    t.partial = {}
    t.plays = []
    t.to_play = [s for s in ((leader + i) % 4 for i in range(4)) if cards_left[s]]
    v = state.v
    v["trick"][:] = 0
    v["leader"][:] = 0
    v["leader"][leader] = 1
    v["led_count"][0] = 0
    state.current = leader


def legal(state) -> list[int]:
    seat, t = state.current, state.trick
    steps = play_steps_one(state.v["hand"][seat].tolist(), t.partial, t.led_kind, t.k,
                           state.trump, state.level, state.game.options["follow"] == "dead",
                           state.cards_left[seat])
    return [_PLAY + step for step in steps]


def apply(state, action: int) -> None:
    seat, t = state.current, state.trick
    kind, count = divmod(action - _PLAY, 4)
    count += 1
    if t.led_kind < 0:
        t.led_kind, t.k = kind, count
        state.v["led_count"][0] = count
        _complete(state, t, seat, {kind: count})
        return
    partial = t.partial
    partial[kind] = count
    selection = state.v["selection"]
    selection[seat, kind] = count
    if sum(partial.values()) == min(t.k, state.cards_left[seat]):
        t.partial = {}
        selection[seat] = 0
        _complete(state, t, seat, partial)


def _complete(state, t: Trick, seat: int, play: dict) -> None:
    v = state.v
    if t.plays:  # a follower's void in the led suit lets its trump win
        # The suit duty makes a follower holding led-suit cards play at least one (all of them
        # when short), so "void" is "the play holds no led-suit card": no look at the hand.
        cls = _SUIT_CLASS[state.trump][state.level - 3]
        led_cls = cls[t.led_kind]
        void = not any(cls[kind] == led_cls for kind in play)
    else:
        void = False
    identical = next(iter(play)) if len(play) == 1 and next(iter(play.values())) == t.k else -1
    hands, played, trick = v["hand"], v["played"], v["trick"]
    for kind, count in play.items():  # (the seat's row of trick is still zero: it plays once)
        hands[seat, kind] -= count
        played[seat, kind] += count
        trick[seat, kind] = count
    cards_left = state.cards_left
    cards_left[seat] -= sum(play.values())
    v["cards_left"][seat] = cards_left[seat]
    t.plays.append([seat, play, identical, void])
    t.to_play.pop(0)
    if t.to_play:
        state.current = t.to_play[0]
    else:
        _end(state, t)


def _end(state, t: Trick) -> None:
    """The trick is complete: its winner takes its points and leads the next one, if any (with
    no cards left, ``to_play`` stays empty: the hand is over)."""
    winner = _winner(state, t)
    points = sum(_POINTS[k] * c for _, play, _, _ in t.plays for k, c in play.items())
    state.points[winner] += points
    state.v["points"][winner] = state.points[winner]
    state.last_trick_team = winner % 2
    if any(state.cards_left):
        start(state, winner)


def winning_seat(state) -> int | None:
    """The seat whose play takes the trick as played so far (``_winner`` on the plays made: the
    taker once the trick is complete); ``None`` before the lead. For the text views."""
    t = state.trick
    return _winner(state, t) if t.plays else None


def _winner(state, t: Trick) -> int:
    """The seat that takes the trick ``t`` (complete, or as played so far)."""
    strength = _STRENGTH[state.trump][state.level - 3]
    cls = _SUIT_CLASS[state.trump][state.level - 3]
    led_cls = cls[t.led_kind]
    best, best_value = 0, -1
    for i, (seat, play, kind, void) in enumerate(t.plays):
        if kind < 0 or not (i == 0 or cls[kind] == led_cls or (void and cls[kind] == TRUMP)):
            continue
        if strength[kind] > best_value:  # strictly: the first of equals keeps the trick
            best, best_value = i, strength[kind]
    return t.plays[best][0]


# --- checking a saved state --------------------------------------------------------------------

def check(state) -> None:
    """Check ``state.trick``, the trick pieces (``trick``, ``leader``, ``led_count``,
    ``selection``), the points won and ``last_trick_team`` against the hands and the rules of
    play: the seats holding cards in turn from the leader, a lead of identical cards, each
    follow built of steps the follow rules allow; ``StateError`` naming the field. Run after
    the cards are checked against the deck."""
    t, v, phase = state.trick, state.v, state.phase
    if phase not in (Phase.PLAY, Phase.OVER):
        if t != Trick():
            raise StateError(f"trick must be empty before play ({phase} phase), got "
                             f"{t.to_plain()}")
        for name in ("played", "trick", "leader", "led_count", "selection", "points"):
            if v[name].any():
                raise StateError(f"buffer piece {name!r} must be zero before play ({phase} "
                                 f"phase)")
        if state.last_trick_team is not None:
            raise StateError(f"last_trick_team must be None before play, got "
                             f"{state.last_trick_team}")
        return
    cards_left = state.cards_left
    on_table = {seat: play for seat, play, _, _ in t.plays}
    seats = [seat for seat, _, _, _ in t.plays]
    holding = [s for s in ((t.leader + i) % 4 for i in range(4)) if cards_left[s] or s in on_table]
    if t.leader < 0 or len(on_table) != len(seats) or seats + t.to_play != holding or \
            not holding or holding[0] != t.leader:
        raise StateError(f"trick.plays (seats {seats}) and trick.to_play {t.to_play} must be the "
                         f"seats holding cards when the trick began, in turn from trick.leader "
                         f"({t.leader})")
    if phase is Phase.OVER and (t.to_play or any(cards_left)):
        raise StateError(f"phase: the episode is over but the hand is not played out "
                         f"(trick.to_play {t.to_play}, cards left {cards_left})")
    if phase is Phase.PLAY and state.current != t.to_play[0]:
        raise StateError(f"current (buffer piece 'to_play') must be seat {t.to_play[0]}, next "
                         f"to play in the trick (trick.to_play[0]), got seat {state.current}")
    _check_pieces(state, t, on_table)
    _check_plays(state, t)
    _check_points(state, t, on_table)


def _check_pieces(state, t: Trick, on_table: dict) -> None:
    v = state.v
    table = np.zeros((4, NUM_KINDS), dtype=np.int64)
    for seat, play in on_table.items():
        table[seat, list(play)] = list(play.values())
    if not np.array_equal(v["trick"], table) or (v["played"] < table).any():
        raise StateError("buffer piece 'trick' must hold the cards of trick.plays, each also in "
                         "buffer piece 'played'")
    leader = np.zeros(4, dtype=np.int64)
    leader[t.leader] = 1
    if not np.array_equal(v["leader"], leader) or v["led_count"][0] != t.k:
        raise StateError(f"buffer pieces 'leader' and 'led_count' must show trick.leader "
                         f"({t.leader}) and trick.k ({t.k})")
    selection = np.zeros((4, NUM_KINDS), dtype=np.int64)
    if t.partial and state.phase is Phase.PLAY:
        selection[t.to_play[0], list(t.partial)] = list(t.partial.values())
    if t.partial and state.phase is Phase.OVER or not np.array_equal(v["selection"], selection):
        raise StateError(f"buffer piece 'selection' must hold the follow being built by the "
                         f"seat to play (trick.partial {t.partial})")


def _check_plays(state, t: Trick) -> None:
    """The lead, each follow and the follow being built, against the rules."""
    hands = state.v["hand"]
    if not t.plays:
        if t.led_kind != -1 or t.k or t.partial:
            raise StateError(f"trick: nothing is led yet (trick.plays empty), so trick.led_kind "
                             f"must be -1, trick.k 0 and trick.partial empty, got {t.led_kind}, "
                             f"{t.k}, {t.partial}")
        return
    led, k = t.led_kind, t.k
    seat, lead, kind, void = t.plays[0]
    if led < 0 or not k or lead != {led: k} or kind != led or void:
        raise StateError(f"trick.plays[0] must be the lead: [{t.leader}, [[trick.led_kind "
                         f"({led}), trick.k ({k})]], {led}, false], got {t.to_plain()['plays'][0]}")
    cls = _SUIT_CLASS[state.trump][state.level - 3]
    for i, (seat, play, kind, void) in enumerate(t.plays[1:], 1):
        then = hands[seat].tolist()
        for j, c in play.items():
            then[j] += c
        size = state.cards_left[seat] + sum(play.values())
        if sum(play.values()) != min(k, size):
            raise StateError(f"trick.plays[{i}]: seat {seat} must play {min(k, size)} cards "
                             f"(trick.k, or all it had), got {sum(play.values())}")
        _check_steps(state, then, play, size, f"trick.plays[{i}]")
        identical = next(iter(play)) if len(play) == 1 and play[next(iter(play))] == k else -1
        was_void = not any(h for h, c in zip(then, cls) if h and c == cls[led])
        if kind != identical or void != was_void:
            raise StateError(f"trick.plays[{i}] must end with {identical} (the kind of k "
                             f"identical cards, else -1) and {str(was_void).lower()} (the seat "
                             f"held no card of the led suit), got {kind} and {void}")
    if t.partial:
        seat = t.to_play[0]
        size = state.cards_left[seat]
        if sum(t.partial.values()) >= min(k, size):
            raise StateError(f"trick.partial {t.partial} is a whole follow; a complete follow "
                             f"goes into trick.plays")
        _check_steps(state, hands[seat].tolist(), t.partial, size, "trick.partial")


def _check_steps(state, hand: list, play: dict, size: int, name: str) -> None:
    """Each group of ``play`` (in its order) is a step the follow rules allow."""
    t, chosen = state.trick, {}
    dead = state.game.options["follow"] == "dead"
    for kind, count in play.items():
        steps = play_steps_one(hand, chosen, t.led_kind, t.k, state.trump, state.level, dead,
                               size)
        if 4 * kind + count - 1 not in steps:
            raise StateError(f"{name}: {count} x kind {kind} breaks the follow rules after "
                             f"{chosen} (trick.led_kind {t.led_kind}, trick.k {t.k})")
        chosen[kind] = count


def _check_points(state, t: Trick, on_table: dict) -> None:
    """The points won against the cards of the completed tricks; ``last_trick_team`` against
    the trick's leader (or, once over, its winner)."""
    v, points, team = state.v, state.points, state.last_trick_team
    taken = v["played"] - (v["trick"] if state.phase is Phase.PLAY else 0)
    total = int(KIND_POINTS @ taken.sum(axis=0))
    if sum(points) != total or any(p % 5 for p in points):
        raise StateError(f"points (buffer piece 'points') {points} must add up to the {total} "
                         f"points of the completed tricks (buffer piece 'played' less the "
                         f"current trick)")
    if not taken.any():  # the first trick: the dealer leads it
        if team is not None or t.leader != state.dealer:
            raise StateError(f"the first trick is led by the dealer (seat {state.dealer}: "
                             f"trick.leader {t.leader}) and no trick is won before it "
                             f"(last_trick_team {team})")
        return
    if team is None:
        raise StateError("last_trick_team must name the team that won the last trick")
    if state.phase is Phase.OVER:
        winner = _winner(state, t)
        if team != winner % 2:
            raise StateError(f"last_trick_team must be {winner % 2}: seat {winner} won the last "
                             f"trick, got {team}")
        return
    cards_left = state.cards_left

    def next_holder(seat):
        return next((s for s in ((seat + i) % 4 for i in (1, 2, 3))
                     if cards_left[s] or s in on_table), None)

    if not any(s % 2 == team and (s == t.leader or (not cards_left[s] and s not in on_table
                                                      and next_holder(s) == t.leader))
               for s in range(4)):
        raise StateError(f"last_trick_team {team}: the winner of the last trick leads this one "
                         f"(or, out of cards, the next seat holding cards), but trick.leader is "
                         f"seat {t.leader}")
