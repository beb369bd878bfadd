"""End of a Dagong hand: point transfers, the winner, the multiplier and the payoffs (B3-B4).

Pure functions of the finished hand; the engine calls ``settle`` once per hand.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from cardenv.core.cards import NUM_NATURAL
from cardenv.dagong.catalogue import POINT_RANKS

TOTAL_POINTS = 200


@dataclass
class HandResult:
    """What a finished hand produced.

    Attributes:
        dealer, partner: seats (``partner`` is ``None`` when the dealer held both called cards).
        called: the called card kind.
        solo: the seat playing one against three (硬牌 or forced), else ``None``.
        forced_solo: ``True`` when the dealer went alone because it held both called cards.
        places: seats in finishing order; the seat still holding cards is last when three are
            out (末游). A hand that ends on 绑 or on the solo player's place lists fewer.
        trick_points: points each seat won in tricks.
        points: points after the end-of-hand transfers (末游's won points to 一游, the points
            left in 末游's hand to 三游); equal to ``trick_points`` when the hand ended early.
        winners: the winning seats.
        base_multiplier: the multiplier of the result (1, 2 or 4; solo_multiplier for 硬牌).
        multiplier: the multiplier paid: ``base_multiplier``, doubled if ``yaobai_doubled``.
        reason: ``"score"`` (more points), ``"tie"`` (100:100, the side holding 末游 loses),
            ``"qing"`` (清, all 200), ``"bang"`` (绑), ``"guangtou"`` (光头), ``"solo"``.
        yaobai_doubled: a winner played a 摇摆, so the multiplier doubled.
        payoff: each seat's win/loss for the result (zero-sum).
        xiqian: each seat's 喜钱 balance for what it was dealt (zero-sum).
        rewards: ``payoff + xiqian``, the hand's reward per seat.
    """

    dealer: int
    partner: int | None
    called: int
    solo: int | None
    forced_solo: bool
    places: list[int]
    trick_points: list[int]
    points: list[int]
    winners: list[int]
    base_multiplier: int
    multiplier: int
    reason: str
    yaobai_doubled: bool
    payoff: list[int]
    xiqian: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    rewards: list[int] = field(default_factory=lambda: [0, 0, 0, 0])

    @property
    def label(self) -> str:
        """One word for how the hand ended (its ``reason``)."""
        return self.reason

    def to_dict(self) -> dict:
        return asdict(self)


def xiqian_units(hand) -> int:
    """喜钱 units for a dealt hand: 8喜 = 2 per rank, 7喜 = 1, 天炸 = 1, four natural 510K sets
    = 1."""
    # plain ints first: indexing a numpy row card by card costs more than the whole count
    counts = hand.tolist() if hasattr(hand, "tolist") else [int(x) for x in hand]
    # natural cards per rank: kind_of(r, s) = 4 * r + s, so zip over one iterator four times
    # yields each rank's four suits
    kinds = [iter(counts[:NUM_NATURAL])] * 4
    natural = [a + b + c + d for a, b, c, d in zip(*kinds)]
    units = sum(2 if n == 8 else 1 if n == 7 else 0 for n in natural)
    if counts[NUM_NATURAL] + counts[NUM_NATURAL + 1] == 4:
        units += 1
    if min(natural[r] for r in POINT_RANKS) >= 4:
        units += 1
    return units


def xiqian_balance(dealt_hands) -> list[int]:
    """Each seat receives its units from each of the three others (zero-sum)."""
    units = [xiqian_units(h) for h in dealt_hands]
    total = sum(units)
    return [3 * u - (total - u) for u in units]


def settle(*, dealer: int, partner: int | None, called: int, solo: int | None, forced_solo: bool,
           places: list[int], trick_points: list[int], last_hand_points: int,
           yaobai_seats: set[int], dealt_hands, solo_multiplier: int, xiqian: bool,
           total_points: int = TOTAL_POINTS) -> HandResult:
    """Score a finished hand.

    Args:
        places: seats in the order they went out (2, 3 or -- for a solo hand -- 1 of them).
        trick_points: points won per seat, the last trick included.
        last_hand_points: points still in the hand of the seat left holding cards, when three
            are out (used for the transfer to 三游).
        yaobai_seats: seats that played a 摇摆 this hand.
        total_points: points in the deal (200 for a full deal; less in a custom position).
    """
    points = list(trick_points)
    if solo is not None:
        solo_won = places[0] == solo
        winners = [solo] if solo_won else [s for s in range(4) if s != solo]
        multiplier = solo_multiplier
        reason = "solo"
    else:
        team = {dealer, partner}
        other = set(range(4)) - team
        if len(places) == 2 and (set(places) == team or set(places) == other):
            winners = sorted(places)
            losers_points = sum(points[s] for s in range(4) if s not in winners)
            multiplier, reason = (4, "guangtou") if losers_points == 0 else (2, "bang")
        else:
            first, third, last = places[0], places[2], places[3]
            points[first] += points[last]
            points[last] = 0
            points[third] += last_hand_points
            team_points = sum(points[s] for s in team)
            if team_points * 2 != total_points:
                winners = sorted(team if team_points * 2 > total_points else other)
                reason = "score"
            else:
                winners = sorted(other if last in team else team)
                reason = "tie"
            multiplier = 1
            if sum(points[s] for s in winners) == total_points:
                multiplier, reason = 2, "qing"
    doubled = bool(yaobai_seats & set(winners))
    unit = multiplier * (2 if doubled else 1)
    if solo is None:  # 2 v 2: each winner receives the multiplier from one loser
        payoff = [unit if s in winners else -unit for s in range(4)]
    else:  # 1 v 3: the solo player settles with each of the three
        sign = 1 if solo in winners else -1
        payoff = [3 * sign * unit if s == solo else -sign * unit for s in range(4)]
    balance = xiqian_balance(dealt_hands) if xiqian else [0, 0, 0, 0]
    return HandResult(
        dealer=dealer, partner=partner, called=called, solo=solo, forced_solo=forced_solo,
        places=list(places), trick_points=list(trick_points), points=points,
        winners=winners, base_multiplier=multiplier, multiplier=unit, reason=reason,
        yaobai_doubled=doubled,
        payoff=payoff, xiqian=balance, rewards=[p + x for p, x in zip(payoff, balance)])
