"""Trick play (phase ``play``): a lead of 1..4 identical cards, then each follower's cards built
one group of identical cards per decision (``follow`` gives the steps that can still end in a
legal follow); the strongest eligible play takes the trick, and its player leads the next.

This is the hot path (most of a hand's decisions): each function reads ``state.trick`` once
into a local, and the strength tables are nested lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cardenv.core.cards import KIND_POINTS
from cardenv.dabang import catalogue as cat
from cardenv.dabang import counting
from cardenv.dabang.follow import play_steps_one
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS, TRUMP

_PLAY = cat.PLAY
_STRENGTH = STRENGTH.tolist()
_SUIT_CLASS = SUIT_CLASS.tolist()
_POINTS = KIND_POINTS.tolist()
ROTATION = [[(leader + i) % 4 for i in range(4)] for leader in range(4)]  # seats in turn from each


@dataclass(slots=True)
class Trick:
    """The trick being played."""

    leader: int = -1
    led_kind: int = -1  # the kind of the lead (-1 before the lead)
    k: int = 0  # cards in the lead: each follower plays k cards, or all it has left
    partial: dict[int, int] = field(default_factory=dict)  # {kind: count} of the follow so far
    # each completed play: [seat, {kind: count}, kind if k identical cards else -1, void in the
    # led suit (a follower's trump can then win)]
    plays: list[list] = field(default_factory=list)
    to_play: list[int] = field(default_factory=list)  # seats still to play, the next first
    best: int = -1  # the index in ``plays`` of the play winning so far (-1 before the lead)

    def copy(self) -> "Trick":
        return Trick(self.leader, self.led_kind, self.k, dict(self.partial),
                     [[s, dict(p), kind, void] for s, p, kind, void in self.plays],
                     list(self.to_play), self.best)


def start(state, leader: int) -> None:
    """Open a trick led by ``leader`` (by the next seat holding cards if it holds none)."""
    cards_left = state.cards_left
    if cards_left[leader] == 0:
        leader = next(s for s in ((leader + i) % 4 for i in range(1, 4)) if cards_left[s])
    t = state.trick
    t.leader, t.led_kind, t.k = leader, -1, 0
    t.partial = {}
    t.plays = []
    t.best = -1
    t.to_play = [s for s in ROTATION[leader] if cards_left[s]]
    counting.at_trick_start(state)
    v = state.v
    v["trick"].fill(0)
    v["leader"].fill(0)
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
        void, other = True, False  # (loops, not any() over generators: the hot path)
        for kind in play:
            if cls[kind] == led_cls:
                void = False
            else:
                other = True
        # public: a follow holding a card of another suit (none of the led suit, or fewer than
        # k of it) shows the seat has no more of the led suit: the duty plays min(k, held)
        if other:
            v["voids"][seat, led_cls] = 1
    else:
        void = False
    identical = -1
    if len(play) == 1:
        for kind, count in play.items():
            if count == t.k:
                identical = kind
    hands, played, trick, unseen = v["hand"], v["played"], v["trick"], v["unseen"]
    seen = counting.SEEN_BY_OTHERS[seat]
    points = 0
    for kind, count in play.items():  # (the seat's row of trick is still zero: it plays once)
        hands[seat, kind] -= count
        played[seat, kind] += count
        trick[seat, kind] = count
        unseen[:, kind] -= seen[count]  # the others have now seen them
        points += _POINTS[kind] * count
    v["trick_points"][0] += points
    v["still_to_play"][seat] = 0
    if identical >= 0 and _takes_lead(state, t, identical, void):
        t.best = len(t.plays)
        winner = v["trick_winner"]
        winner.fill(0)
        winner[seat] = 1
    cards_left = state.cards_left
    cards_left[seat] -= sum(play.values())
    v["cards_left"][seat] = cards_left[seat]
    t.plays.append([seat, play, identical, void])
    t.to_play.pop(0)
    if t.to_play:
        state.current = t.to_play[0]
    else:
        _end(state, t)


def _takes_lead(state, t: Trick, kind: int, void: bool) -> bool:
    """Whether a play of k identical ``kind`` cards, about to join ``t.plays``, wins the trick
    so far (as in ``_winner``: the lead, or the led suit or a void seat's trump, strictly
    stronger than the best so far: the first of equals keeps the trick)."""
    if not t.plays:
        return True
    cls = _SUIT_CLASS[state.trump][state.level - 3]
    if not (cls[kind] == cls[t.led_kind] or (void and cls[kind] == TRUMP)):
        return False
    strength = _STRENGTH[state.trump][state.level - 3]
    return strength[kind] > strength[t.plays[t.best][2]]


def _end(state, t: Trick) -> None:
    """The trick is complete: its winner takes its points and leads the next one, if any (with
    no cards left, ``to_play`` stays empty: the hand is over)."""
    # the winner as the plays went (``_takes_lead`` kept ``best``, ``_winner`` of the plays as
    # tests/cardenv/dabang/test_counting.py holds), the points as ``_complete`` added them up
    winner = t.plays[t.best][0]
    points = int(state.v["trick_points"][0])
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
