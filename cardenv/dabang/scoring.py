"""Scoring a Dabang hand (A6): the attackers' score, the outcome, levels, blood, the next dealer
and instant match ends. Pure functions; the engine calls ``score_hand`` once per hand.

Teams: seats {0, 2} are team 0, seats {1, 3} team 1. The dealer's team defends (庄家方); the other
team attacks (抓分方).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from cardenv.core.cards import BIG_JOKER, KIND_POINTS, SMALL_JOKER

MIN_LEVEL, MAX_LEVEL = 3, 10
WIN_SCORE = 160
TOTAL_POINTS = 400  # the point cards of the four decks


@dataclass
class HandResult:
    """What a finished Dabang hand produced.

    Attributes:
        dealer, level, trump: the hand's dealer seat, level (the dealer team's) and trump suit.
        defenders, attackers: team indices (0 = seats 0 and 2, 1 = seats 1 and 3).
        trick_points: points each team won in tricks.
        kitty_points: points in the final kitty; ``koudi`` whether the attackers won the last
            trick (抠底), which adds twice the kitty points to their score.
        score: the attackers' score S.
        outcome: 1 (S < 160, 保底), 2 (S < 160, 抠底), 3 (S >= 160, 保底), 4 (S >= 160, 抠底).
        gangguo: whether the kitty was 干锅.
        kitty_jokers: ``(big, small)`` jokers in the final kitty (0, 0 in a 干锅 hand).
        levels_before, levels_after: both teams' levels.
        gained: levels each team went up.
        blood: blood owed to the next dealer by its 上家 (the next hand's tribute).
        next_dealer: seat that deals the next hand of the match (``None`` if the match ended).
        match_winner: the team that won the match with this hand, else ``None``.
        match_end: why the match ended: ``"pass_10"``, ``"zero"`` (S = 0), ``"400"``,
            ``"four_jokers"``, or ``None``.
        rewards: each seat's reward for the hand (set by the engine from the episode mode).
    """

    dealer: int
    level: int
    trump: int
    defenders: int
    attackers: int
    trick_points: list[int]
    kitty_points: int
    koudi: bool
    score: int
    outcome: int
    gangguo: bool
    kitty_jokers: tuple[int, int]
    levels_before: list[int]
    levels_after: list[int]
    gained: list[int]
    blood: int
    next_dealer: int | None
    match_winner: int | None
    match_end: str | None
    rewards: list[float]

    @property
    def label(self) -> str:
        """How the hand ended: ``"outcome N"``, or the match end when it ended the match."""
        return self.match_end if self.match_end else f"outcome {self.outcome}"

    def to_dict(self) -> dict:
        data = asdict(self)
        data["kitty_jokers"] = list(self.kitty_jokers)
        return data


def score_blood(score: int) -> int:
    """Blood from the score: 1 per 10 below 120, 1 per 10 above 200; the odd 5 is dropped."""
    if score < 120:
        return (120 - score) // 10
    if score > 200:
        return (score - 200) // 10
    return 0


def score_hand(*, dealer: int, level: int, trump: int, levels: list[int], trick_points: list[int],
               kitty: list[int], last_trick_team: int, gangguo: bool, joker_levels: bool,
               keep_dealer: str, four_joker_win: str) -> HandResult:
    """Score a finished hand (A6). ``trick_points`` per team; ``kitty`` the final kitty."""
    kitty_points = int(sum(int(KIND_POINTS[c]) for c in kitty))
    jokers = (0, 0) if gangguo else (kitty.count(BIG_JOKER), kitty.count(SMALL_JOKER))
    return settle(dealer=dealer, level=level, trump=trump, levels=levels,
                  trick_points=trick_points, kitty_points=kitty_points, kitty_jokers=jokers,
                  koudi=last_trick_team == 1 - dealer % 2, gangguo=gangguo,
                  joker_levels=joker_levels, keep_dealer=keep_dealer,
                  four_joker_win=four_joker_win)


def settle(*, dealer: int, level: int, trump: int, levels: list[int], trick_points: list[int],
           kitty_points: int, kitty_jokers: tuple[int, int], koudi: bool, gangguo: bool,
           joker_levels: bool, keep_dealer: str, four_joker_win: str) -> HandResult:
    """The result of a hand from what scoring reads of it: ``kitty_points`` and
    ``kitty_jokers`` (``(big, small)``, zeros for 干锅) of the final kitty, and ``koudi`` (the
    attackers won the last trick)."""
    defenders = dealer % 2
    attackers = 1 - defenders
    score = trick_points[attackers] + (2 * kitty_points if koudi else 0)
    big, small = kitty_jokers
    joker_blood = 2 * big + small
    joker_gain = (2 * big + small) if joker_levels else 0
    outcome = (3 if not koudi else 4) if score >= WIN_SCORE else (1 if not koudi else 2)

    gained = [0, 0]
    blood = score_blood(score)
    levels_after = list(levels)
    match_winner = match_end = None
    if outcome in (1, 4):
        team = defenders if outcome == 1 else attackers
        gain = 1 + joker_gain
        blood += joker_blood
        if team == defenders and levels[team] == MAX_LEVEL:
            match_winner, match_end = team, "pass_10"  # going up as defenders at 10
            gained[team] = 1
        else:
            levels_after[team] = min(levels[team] + gain, MAX_LEVEL)  # 逢10必打
            gained[team] = levels_after[team] - levels[team]
    elif outcome == 3:
        blood += joker_blood

    four = (big == 4) or (small == 4 and four_joker_win == "big_or_small")
    if score == 0:
        match_winner, match_end = defenders, "zero"
    elif score >= 400:
        match_winner, match_end = attackers, "400"
    elif four and outcome in (1, 4):
        match_winner, match_end = (defenders if outcome == 1 else attackers), "four_jokers"

    if match_winner is not None:
        next_dealer = None
    elif outcome in (1, 2):
        next_dealer = (dealer + 2) % 4 if keep_dealer == "partner" else dealer
    else:
        next_dealer = (dealer + 1) % 4
    return HandResult(
        dealer=dealer, level=level, trump=trump, defenders=defenders, attackers=attackers,
        trick_points=list(trick_points), kitty_points=kitty_points, koudi=koudi, score=score,
        outcome=outcome, gangguo=gangguo, kitty_jokers=(big, small), levels_before=list(levels),
        levels_after=levels_after, gained=gained, blood=blood, next_dealer=next_dealer,
        match_winner=match_winner, match_end=match_end, rewards=[0.0] * 4)
