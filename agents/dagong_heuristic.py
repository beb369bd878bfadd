"""A rule-based Xianning Dagong (咸宁打拱) player: ``DagongHeuristic``.

It reads only the observation (and the public action catalogue / bomb order), never the engine.

Strategy, in short:

- **硬牌**: declare only when a logistic model of the hand (fitted on 15,000 solo hands played
  out by this agent: dealer's first lead, bombs and their length, jokers, 2s, against many ranks,
  lone low cards and loose pairs / triples) gives at least a 60% chance of going out first --
  about 3% of dealers' hands, all with three or four jokers or several bombs; else decline.
- **Every play is priced** by what it costs the hand (``F``, a table of the value of holding n
  naturals of a rank): a control value per card (low cards nearly free, A / 2 / jokers dear), a
  bonus for getting rid of lone low cards, a heavy price for breaking a bomb (4+ naturals of a
  rank) or a natural 正510K set, jokers at a premium, a credit per card shed and per run rank.
  Bombs carry their own spending price, rising with the public bomb order (smallest first).
- **Leading**: the cheapest play wins: long low runs, low pairs / triples, lone low singles --
  no A / 2 / joker / bomb while low cards remain; points led into the opponents cost extra; the
  length an opponent with few cards could go out on is avoided; a known partner with few cards
  gets a low lead of its length. With two plays left, the strong one is led first.
- **Following**: a play is worth the lead, the trick's points (weighted by the chance the
  standing player is an opponent) and stopping an opponent about to go out; it is made when that
  beats its price. So low cards follow freely, high cards for points, a bomb of one rank for
  about 18+ points or to stop an opponent nearly out (a 杂510K, the weakest bomb and itself 25
  points, much sooner). A known partner's play is not overtaken, except (rarely) to add points
  with a play nothing unseen can beat once every opponent has passed on it.
- **Sides**: from ``solo`` (1 v 3), ``partner`` (I am the partner, or 明鸡 happened), or
  deduced: a non-dealer who is not the partner knows the dealer is an opponent and each other
  non-dealer a partner with chance 1/2; the dealer gives each seat 1/3. In 1 v 3 hands points
  are ignored: taking the lead (bombs included) from the other side is what counts.
- **明鸡**: as the hidden partner, plays that show the called card carry a small price (less late
  in the hand), so the ``called=False`` version of a play is preferred and the card is shown when
  the play needs it.

The weights were set by duplicate matches of variants against each other (partners seated
opposite, each deal played twice with the sides swapped). ``seed`` only breaks exact ties.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from cardenv.dagong import catalogue as cat
from cardenv.dagong.observation import LAYOUT

# --- observation slices --------------------------------------------------------------------------

_SLICES = {name: slice(start, stop) for name, start, stop, _, _ in LAYOUT.observation_pieces()}
_HAND = _SLICES["hand"]
_DEALER = _SLICES["dealer"]
_PARTNER = _SLICES["partner"]
_REVEALED = _SLICES["revealed"].start
_SOLO = _SLICES["solo"]
_CARDS_LEFT = _SLICES["cards_left"]
_STANDING_SEAT = _SLICES["standing_seat"]
_TRICK_POINTS = _SLICES["trick_points"].start
_PASSED = _SLICES["passed"]
_PLAYED = _SLICES["played"]

# --- per-action tables ---------------------------------------------------------------------------

_N = cat.NUM_ACTIONS
_LEN = np.zeros(_N, np.int64)
_JOK = np.zeros(_N, np.int64)
_NAT = np.zeros(_N, np.int64)
_KEY = np.full(_N, -1, np.int64)
_IS_BOMB = np.zeros(_N, bool)
_IS_RUN = np.zeros(_N, bool)
_IS_K510 = np.zeros(_N, bool)
_CALLED_PLAY = np.zeros(_N, bool)
_STRENGTH = np.zeros(_N, np.int64)
_COVER = np.zeros((_N, 13), np.int64)  # natural cards per rank the combination names
for _a in cat.ACTIONS[cat.FIRST_PLAY:]:
    _LEN[_a.id], _JOK[_a.id], _NAT[_a.id] = _a.length, _a.jokers, _a.naturals
    _KEY[_a.id] = -1 if _a.key_rank is None else _a.key_rank
    _IS_BOMB[_a.id] = _a.is_bomb
    _IS_RUN[_a.id] = _a.type in (cat.PAIR_RUN, cat.TRIPLE_RUN)
    _IS_K510[_a.id] = _a.type == cat.K510
    _CALLED_PLAY[_a.id] = _a.called
    _STRENGTH[_a.id] = cat.BOMB_STRENGTH[_a.combo]
    if _a.naturals:
        if _a.type == cat.K510:
            for _r in cat.POINT_RANKS:
                _COVER[_a.id, _r] = int(_r != _a.joker_as)
        elif len(_a.ranks) == 1:
            _COVER[_a.id, _a.ranks[0]] = _a.naturals
        else:
            _COVER[_a.id, list(_a.ranks)] = _a.per_rank
_RUN_EXTRA_RANKS = np.where(_IS_RUN, np.array([max(0, len(a.ranks) - 1) for a in cat.ACTIONS]), 0)
# key rank as a 0..1 "height" (510K / 天炸 have none: treated as high)
_HEIGHT = np.where(_KEY < 0, 1.0, _KEY / 12.0)

# --- card values ---------------------------------------------------------------------------------

_R13 = np.arange(13)
_POINTS_PER_RANK = np.zeros(13)
_POINTS_PER_RANK[[cat.RANK_5, cat.RANK_10, cat.RANK_K]] = (5, 10, 10)
# control value of one card, ranks 3..2: low cards are nearly free to play, A / 2 are not
CONTROL = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.4, 2.0, 3.0, 4.5])
# a lone card of a low rank is a liability (hard to get rid of); a lone A or 2 is a controller
LONE = np.array([0.8] * 10 + [0.4, 0.0, 0.0])
JOKER_VALUE = 5.0  # a wildcard: extends bombs, completes anything
TIANZHA_BONUS = 4.0  # keeping all four jokers together
BOMB_BONUS = 6.0  # extra value of 4 naturals of a rank over a triple
BOMB_LENGTH_BONUS = 1.0  # per natural beyond 4
XI_BONUS = {7: 2.0, 8: 4.0}  # 7喜 / 8喜
SET_VALUE = 2.5  # a natural 正510K set
SHED = 0.8  # credit per card played (the goal is to empty the hand)
RUN_BONUS = 0.7  # credit per rank of a run beyond the first
BOMB_EXTRA = 1.0  # spending any bomb
K510_VALUE = 0.0  # a 510K is a bomb too, not three loose cards
BOMB_STRENGTH_COST = 0.02  # per step of the public bomb order: smallest sufficient bomb
POINT_WEIGHT = 0.25  # value per point won (for a trick taken from an opponent)
LEAD_POINT_WEIGHT = 0.08  # price per point led into the opponents
WIN_VALUE = 2.5  # the lead itself, taken with a non-bomb
BOMB_WIN_VALUE = 0.5  # ... with a bomb (a bomb is for points or to stop an opponent)
OWN_POINT_SHARE = 0.1  # my own points in a non-bomb follow, as a share of their value
BOMB_OWN_POINT_SHARE = 0.3  # ... in a bomb
SOLO_RACE_VALUE = 6.0  # 1 v 3: the lead is all that counts
SOLO_BOMB_VALUE = 5.0  # 1 v 3: extra for taking it with a bomb
STOP_VALUE = 6.0  # stopping an opponent who would otherwise lead with few cards left
DANGER = 4.0  # leading the length an opponent with few cards could go out on
FEED_POINTS_SHARE = 1.0  # value of points added to a trick a known partner is taking
FEED = 5.0  # leading the length of a known partner with few cards
TWO_STEP = 3.0  # a strong play that leaves one play in hand
REVEAL_EARLY, REVEAL_LATE = 1.0, 0.3  # price of 明鸡 for the hidden partner


def _hand_value_table() -> np.ndarray:
    """``F[r, n]``: value of holding ``n`` natural cards of rank ``r`` (n = 0..8)."""
    table = np.zeros((13, 9))
    for r in range(13):
        for n in range(1, 9):
            if n < 4:
                table[r, n] = n * CONTROL[r] - (LONE[r] if n == 1 else 0.0)
            else:
                table[r, n] = (3 * CONTROL[r] + BOMB_BONUS + BOMB_LENGTH_BONUS * (n - 4)
                               + XI_BONUS.get(n, 0.0) + 0.05 * r)
    return table


F = _hand_value_table()


def solo_strength(hand, dealer: bool) -> float:
    """Estimated chance that this 27-card hand goes out first alone (硬牌) against three
    players of this heuristic's kind.

    A logistic model fitted on 15,000 hands declared solo and played out by the heuristic: the
    dealer leads first (a large edge); bombs, their length, jokers and 2s help; many distinct
    ranks, lone low cards and loose pairs / triples (plays to get rid of) hurt.
    """
    hand = np.asarray(hand)
    naturals = hand[:52].reshape(13, 4).sum(1)
    bombs = naturals >= 4
    logit = (0.07 + 1.03 * bool(dealer) + 0.25 * bombs.sum()
             + 0.13 * (naturals[bombs] - 4).sum() + 0.83 * (hand[52] + hand[53])
             + 0.18 * naturals[12] - 0.19 * ((naturals[:9] == 1).sum())
             - 0.2 * (naturals > 0).sum() - 0.14 * (naturals == 2).sum()
             - 0.19 * (naturals == 3).sum())
    return float(1.0 / (1.0 + np.exp(-logit)))


SOLO_THRESHOLD = 0.6  # declare 硬牌 (+6 / -6) only when a win is clearly more likely than not


def _run_shape(c2: np.ndarray, j2: np.ndarray, per: int) -> np.ndarray:
    """Whether each row's naturals ``c2`` plus ``j2`` jokers form one run of ``per``-card ranks."""
    total = c2.sum(1) + j2
    nz = c2 > 0
    lo = nz.argmax(1)
    hi = 12 - nz[:, ::-1].argmax(1)
    length = total // per
    return (nz.any(1) & (c2.max(1) <= per) & ~nz[:, 12] & (total % per == 0) & (length >= 2)
            & (length >= hi - lo + 1) & (length <= 12))


class DagongHeuristic(Agent):
    """Rule-based Dagong player (see the module docstring); ``seed`` only breaks ties."""

    game = "dagong"
    name = "dagong_heuristic"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    # --- the interface ------------------------------------------------------------------------

    def act(self, observation: dict) -> int:
        obs = np.asarray(observation["observation"])
        mask = np.asarray(observation["action_mask"]).astype(bool, copy=False)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action in the mask: is it this agent's turn?")
        if legal.size == 1:
            return int(legal[0])
        if mask[cat.SOLO_DECLINE] or mask[cat.SOLO_DECLARE]:
            return self._solo_decision(obs, mask)
        return self._play(obs, legal, following=bool(mask[cat.PASS]))

    # --- decisions ----------------------------------------------------------------------------

    def _solo_decision(self, obs, mask) -> int:
        declare = solo_strength(obs[_HAND], obs[_DEALER][0] > 0) >= SOLO_THRESHOLD
        if declare and mask[cat.SOLO_DECLARE]:
            return cat.SOLO_DECLARE
        return cat.SOLO_DECLINE if mask[cat.SOLO_DECLINE] else cat.SOLO_DECLARE

    @staticmethod
    def sides(obs) -> tuple[np.ndarray, bool]:
        """(probability that each relative seat is on my side, whether the hand is 1 v 3)."""
        ally = np.zeros(4)
        ally[0] = 1.0
        solo = obs[_SOLO]
        if solo.any():
            s = int(solo.argmax())
            if s != 0:
                ally[1:] = 1.0
                ally[s] = 0.0
            return ally, True
        dealer = int(obs[_DEALER].argmax())
        partner = obs[_PARTNER]
        if partner.any():
            p = int(partner.argmax())
            if p == 0:  # I am the partner
                ally[dealer] = 1.0
            elif dealer == 0:  # revealed to me, the dealer
                ally[p] = 1.0
            else:  # revealed; I am on the other side
                ally[1:] = 1.0
                ally[dealer] = ally[p] = 0.0
        elif dealer == 0:
            ally[1:] = 1.0 / 3.0
        else:  # the partner is one of the two other non-dealers
            ally[1:] = 0.5
            ally[dealer] = 0.0
        return ally, False

    def _play(self, obs, legal, following: bool) -> int:
        hand = obs[_HAND]
        cards_left = obs[_CARDS_LEFT]
        my_cards = int(cards_left[0])
        plays = legal[legal >= cat.FIRST_PLAY]
        if following:
            stand = int(obs[_STANDING_SEAT].argmax())
        out = plays[_LEN[plays] == my_cards]
        if out.size:  # going out ends everything well
            return int(out[np.argmin(_STRENGTH[out])])
        ally, solo_game = self.sides(obs)
        feeding = False
        if following and ally[stand] >= 1.0:
            # never overtake a known partner -- except to add points to a trick it is taking:
            # every opponent still in has passed on it, and the play is no bomb
            passed = obs[_PASSED]
            if solo_game or FEED_POINTS_SHARE <= 0 or any(
                    ally[s] < 1.0 and cards_left[s] > 0 and not passed[s] for s in (1, 2, 3)):
                return cat.PASS
            plays = plays[~_IS_BOMB[plays]]
            if not plays.size:
                return cat.PASS
            feeding = True

        naturals = hand[:52].reshape(13, 4).sum(1).astype(np.int64)
        jokers = int(hand[52] + hand[53])
        cover = _COVER[plays]
        umin = np.minimum(cover, naturals)
        used = np.clip(_NAT[plays, None] - (umin.cumsum(1) - umin), 0, umin)
        after = naturals - used
        jok = _JOK[plays]
        cost = (F[_R13, naturals] - F[_R13, after]).sum(1) + JOKER_VALUE * jok - SHED * _LEN[plays]
        cost -= RUN_BONUS * _RUN_EXTRA_RANKS[plays]  # a run saves the plays its ranks would take
        if jokers == 4:
            cost += TIANZHA_BONUS * (jok > 0)
        # natural 正510K sets broken (the engine keeps protected copies back when it can)
        sets = 0
        prot_rank = np.zeros(3, np.int64)
        for s in range(4):
            k = int(min(hand[4 * r + s] for r in cat.POINT_RANKS))
            sets += k
            prot_rank += k
        if sets:
            pr = np.array(cat.POINT_RANKS)
            spare = naturals[pr] - prot_rank
            cost += SET_VALUE * np.maximum(used[:, pr] - spare, 0).max(1)
        bomb = _IS_BOMB[plays]
        cost += bomb * (BOMB_EXTRA + BOMB_STRENGTH_COST * _STRENGTH[plays])
        cost += K510_VALUE * _IS_K510[plays]
        points = used @ _POINTS_PER_RANK
        height = _HEIGHT[plays]

        # hidden partner: showing the called card
        if obs[_PARTNER][0] and not obs[_REVEALED]:
            cost += _CALLED_PLAY[plays] * (REVEAL_EARLY if my_cards > 10 else REVEAL_LATE)
        else:  # the dealer's own copy: keep it back on a tie
            cost += _CALLED_PLAY[plays] * 1e-3

        # two plays left: prefer winning the lead with the strong one
        j2 = jokers - jok
        rest_total = after.sum(1) + j2
        nz = after > 0
        one_rank = nz.sum(1) <= 1
        rest_one = (rest_total > 0) & (one_rank | _run_shape(after, j2, 2)
                                       | _run_shape(after, j2, 3))
        if rest_one.any():
            rest_key = np.where(nz.any(1), nz.argmax(1), 0) / 12.0
            rest_strong = np.where(one_rank & (rest_total >= 4), 1.0,
                                   np.where(one_rank, np.where(rest_key >= 11 / 12, 0.7, 0.2),
                                            0.6))
            play_strong = np.where(bomb, 1.0, np.where(_IS_RUN[plays], 0.6,
                                                       np.where(height >= 11 / 12, 0.7,
                                                                0.5 * height)))
            cost -= rest_one * TWO_STEP * np.maximum(rest_strong, play_strong)

        opp_near = [(s, int(cards_left[s])) for s in (1, 2, 3)
                    if 0 < cards_left[s] <= 4 and ally[s] < 1.0]
        if not following:
            if not solo_game:
                # points led are exposed to whoever wins the trick
                mate_cover = 1.0 - 0.5 * ally[1:].max()
                cost += LEAD_POINT_WEIGHT * points * mate_cover
            for s, n in opp_near:
                cost += (_LEN[plays] == n) * DANGER * (1.0 - ally[s]) * (1.0 - height)
                if n <= 3:  # their n cards may be a bomb: keep the lead with plays they lack
                    cost += (_LEN[plays] < n) * 0.5 * (1.0 - ally[s])
            for s in (1, 2, 3):
                n = int(cards_left[s])
                if ally[s] >= 1.0 and 0 < n <= 4:
                    cost -= (_LEN[plays] == n) * (~bomb) * FEED * (1.0 - height)
            score = -cost
        elif feeding:
            # only with a play nothing unseen can beat in kind (bombs aside)
            played = obs[_PLAYED].reshape(4, 54)[:, :52].sum(0).reshape(13, 4).sum(1)
            unseen = 8 - naturals - played
            above = np.concatenate([np.cumsum(unseen[::-1])[::-1][1:], [0]])  # ranks > r
            safe = (_KEY[plays] >= 0) & (above[np.maximum(_KEY[plays], 0)] <= 0)
            score = (POINT_WEIGHT * FEED_POINTS_SHARE * points - cost
                     - 10.0 * ((points == 0) | ~safe))
        else:
            value = np.where(bomb, BOMB_WIN_VALUE, WIN_VALUE)
            enemy = 1.0 - ally[stand]
            if not solo_game:
                trick = float(obs[_TRICK_POINTS])
                value += POINT_WEIGHT * enemy * trick
                # my own points in the play are won too if it stands (a bomb may invite a
                # bigger one, so its own points count for less)
                score_own = POINT_WEIGHT * points * np.where(bomb, BOMB_OWN_POINT_SHARE,
                                                             OWN_POINT_SHARE)
            else:
                value += (SOLO_RACE_VALUE + SOLO_BOMB_VALUE * bomb) * enemy
                score_own = 0.0
            n_stand = int(cards_left[stand])
            if n_stand <= 4:
                stop = STOP_VALUE * enemy * (5 - n_stand) / 4.0
                value += stop * (2.0 if solo_game else 1.0)
            if opp_near:
                value += 1.0
            score = value + score_own - cost
        if score.size > 1:
            score = score + 1e-6 * self.rng.random(score.size)
        best = int(np.argmax(score))
        if following and score[best] <= 0.0:
            return cat.PASS
        return int(plays[best])
