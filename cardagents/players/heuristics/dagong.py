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

``act`` decides one position; ``act_batch`` decides a whole batch in numpy over all rows' legal
plays at once (no loop over rows or actions), making exactly ``act``'s decisions row by row and
the same tie-break draws in row order (tests/cardagents/players/heuristics/test_dagong_batch.py).
"""

from __future__ import annotations

import numpy as np

from cardagents.players.base import Agent
from cardenv.dagong import catalogue as cat
from cardenv.dagong.observation import LAYOUT
from cardenv.vector import legal_indices

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
# the batched path's forms: F[r, n] - F[r, m] at r * 81 + n * 9 + m (the same subtractions, done
# once), and the per-action card counts in int8
_F_DROP = (F[:, :, None] - F[:, None, :]).ravel()
_F_DROP_BASE = np.arange(13) * 81
_COVER8 = _COVER.astype(np.int8)
_NAT8 = _NAT.astype(np.int8)
_COVER_BITS = ((_COVER > 0) << np.arange(13)).sum(1)  # the ranks each action names, as bits


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

    def reseed(self, seed: int) -> None:
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
        """A play of the ``legal`` actions (or PASS, when ``following``): going out where a play
        empties the hand, else the best score of the module docstring's rules."""
        plays = legal[legal >= cat.FIRST_PLAY]
        out = plays[_LEN[plays] == int(obs[_CARDS_LEFT][0])]
        if out.size:  # going out ends everything well
            return int(out[np.argmin(_STRENGTH[out])])
        ally, solo_game = self.sides(obs)
        stand = int(obs[_STANDING_SEAT].argmax()) if following else -1
        feeding = following and ally[stand] >= 1.0
        if feeding:  # a known partner's play stands
            plays = _feeding_plays(obs, plays, ally, solo_game)
            if not plays.size:
                return cat.PASS
        cost, points, naturals = _price(obs, plays)
        if not following:
            score = _lead_score(obs, plays, cost, points, ally, solo_game)
        elif feeding:
            score = _feed_score(obs, plays, cost, points, naturals)
        else:
            score = _follow_score(obs, plays, cost, points, ally, solo_game, stand)
        return self._choose(score, plays, following)

    def _choose(self, score: np.ndarray, plays: np.ndarray, following: bool) -> int:
        """The play of the best ``score`` (exact ties broken by a draw), or PASS where
        ``following`` and no play is worth more than nothing."""
        if score.size > 1:
            score = score + 1e-6 * self.rng.random(score.size)
        best = int(np.argmax(score))
        if following and score[best] <= 0.0:
            return cat.PASS
        return int(plays[best])

    # --- the batched path ---------------------------------------------------------------------
    #
    # ``act_batch`` makes exactly the decisions of ``act`` row by row
    # (tests/cardagents/players/heuristics/test_dagong_batch.py checks it on thousands of
    # positions): the legal plays of all rows are one flat list of (row, action) candidates in
    # row-major order, every price and worth of ``_play`` is computed on it with the same float64
    # operations in the same order (a per-row term is gathered per candidate; a term ``_play`` adds
    # only in some rows is selected with ``np.where``), and the tie-break draws are made in one call
    # of the size the per-row loop would draw, in row order (``Generator.random(a + b)`` is
    # ``random(a)`` then ``random(b)``).

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations)
        masks = np.ascontiguousarray(np.asarray(masks).astype(bool, copy=False))
        rows = len(masks)
        legal = legal_indices(masks)  # np.flatnonzero, 8 entries at a time
        row = legal // _N
        act = legal - row * _N
        bounds = np.searchsorted(legal, np.arange(rows + 1) * _N)
        n_legal = np.diff(bounds)
        if (n_legal == 0).any():
            raise ValueError("no legal action in the mask: is it this agent's turn?")
        actions = act[bounds[:-1]]  # the single legal action, where there is only one
        many = n_legal > 1
        solo = many & (masks[:, cat.SOLO_DECLINE] | masks[:, cat.SOLO_DECLARE])
        if solo.any():
            actions[solo] = _solo_decisions(obs[solo], masks[solo])
        play = many & ~solo
        if play.any():
            pick = play[row] & (act >= cat.FIRST_PLAY)
            index = np.cumsum(play) - 1  # row -> its place among the play rows
            every = play.all()  # (a rollout's usual step: no copies of the rows)
            actions[play] = self._play_batch(obs if every else obs[play],
                                             masks[play, cat.PASS], index[row[pick]], act[pick])
        return actions

    def _play_batch(self, obs: np.ndarray, following: np.ndarray, row: np.ndarray,
                    act: np.ndarray) -> np.ndarray:
        """``_play`` on every row: ``following`` whether PASS is legal there, ``row`` / ``act``
        the legal plays (each row has one at least), row-major in ascending action order."""
        actions = np.full(len(obs), cat.PASS, np.int64)
        decided = _going_out_batch(actions, obs[:, _CARDS_LEFT][:, 0].astype(np.int64), row, act)
        ally, solo_game = _sides_batch(obs)
        stand = obs[:, _STANDING_SEAT].argmax(1)
        pass_now, feeding = _partner_standing_batch(obs, following, ally, solo_game, stand,
                                                    decided)
        decided |= pass_now  # (actions there are PASS already)
        keep = ~decided[row] & ~(feeding[row] & _IS_BOMB[act])
        row, act = row[keep], act[keep]
        if not row.size:
            return actions
        scored, starts = _groups(row)  # a feeding row left without a play passes
        cost, points, naturals = _price_batch(obs, row, act)
        leading = ~following
        lead_score = (_lead_scores_batch(obs, ally, solo_game, row, act, cost, points)
                      if leading.any() else 0.0)
        feed_score = (_feed_scores_batch(obs, feeding, naturals, row, act, cost, points)
                      if feeding.any() else 0.0)
        follow_score = (_follow_scores_batch(obs, ally, solo_game, stand, row, act, cost, points)
                        if (following & ~feeding).any() else 0.0)
        score = np.where(leading[row], lead_score,
                         np.where(feeding[row], feed_score, follow_score))
        actions[scored] = self._choose_batch(score, row, act, starts, following[scored])
        return actions

    def _choose_batch(self, score: np.ndarray, row: np.ndarray, act: np.ndarray,
                      starts: np.ndarray, following: np.ndarray) -> np.ndarray:
        """``_choose`` on every scored row (``starts``: where its candidates begin;
        ``following``: per scored row), with the tie-break draws the per-row loop makes, in row
        order."""
        counts = np.diff(np.append(starts, row.size))
        noisy = np.repeat(counts > 1, counts)
        total = int(noisy.sum())
        if total:
            score[noisy] = score[noisy] + 1e-6 * self.rng.random(total)
        best_score = np.maximum.reduceat(score, starts)
        at_best = np.flatnonzero(score == np.repeat(best_score, counts))
        first = at_best[np.r_[True, row[at_best[1:]] != row[at_best[:-1]]]]
        return np.where(following & (best_score <= 0.0), cat.PASS, act[first])


# --- one position: the steps of ``_play`` --------------------------------------------------------


def _feeding_plays(obs, plays: np.ndarray, ally, solo_game: bool) -> np.ndarray:
    """With a known partner's play standing, the plays that may add points to its trick: none (a
    PASS: never overtake a known partner) unless every opponent still in has passed on it, and
    then no bomb."""
    cards_left, passed = obs[_CARDS_LEFT], obs[_PASSED]
    if solo_game or FEED_POINTS_SHARE <= 0 or any(
            ally[s] < 1.0 and cards_left[s] > 0 and not passed[s] for s in (1, 2, 3)):
        return plays[:0]
    return plays[~_IS_BOMB[plays]]


def _price(obs, plays: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What each play costs the hand (the module docstring's "every play is priced"), the points
    it holds, and the hand's natural cards per rank."""
    hand = obs[_HAND]
    naturals = hand[:52].reshape(13, 4).sum(1).astype(np.int64)
    jokers = int(hand[52] + hand[53])
    used = _naturals_used(naturals, plays)
    after = naturals - used
    jok = _JOK[plays]
    cost = (F[_R13, naturals] - F[_R13, after]).sum(1) + JOKER_VALUE * jok - SHED * _LEN[plays]
    cost -= RUN_BONUS * _RUN_EXTRA_RANKS[plays]  # a run saves the plays its ranks would take
    if jokers == 4:
        cost += TIANZHA_BONUS * (jok > 0)
    sets, protected = _natural_sets(hand)
    if sets:  # natural 正510K sets broken (the engine keeps protected copies back when it can)
        pr = np.array(cat.POINT_RANKS)
        spare = naturals[pr] - protected
        cost += SET_VALUE * np.maximum(used[:, pr] - spare, 0).max(1)
    cost += _IS_BOMB[plays] * (BOMB_EXTRA + BOMB_STRENGTH_COST * _STRENGTH[plays])
    cost += K510_VALUE * _IS_K510[plays]
    cost += _CALLED_PLAY[plays] * _reveal_price(obs)
    cost -= _two_step_credit(after, jokers - jok, plays)
    return cost, used @ _POINTS_PER_RANK, naturals


def _naturals_used(naturals: np.ndarray, plays: np.ndarray) -> np.ndarray:
    """The natural cards of each rank each play takes from the hand: those it names, as far as
    the hand holds them, up to its count of naturals (lower ranks first); jokers do the rest."""
    umin = np.minimum(_COVER[plays], naturals)
    return np.clip(_NAT[plays, None] - (umin.cumsum(1) - umin), 0, umin)


def _natural_sets(hand) -> tuple[int, np.ndarray]:
    """The natural 正510K sets in the hand (a 5, a 10 and a K of one suit), and the cards of each
    point rank they hold."""
    sets = 0
    prot_rank = np.zeros(3, np.int64)
    for s in range(4):
        k = int(min(hand[4 * r + s] for r in cat.POINT_RANKS))
        sets += k
        prot_rank += k
    return sets, prot_rank


def _reveal_price(obs) -> float:
    """The price of a play that shows the called card: 明鸡 for the hidden partner (less late in
    the hand); else, the dealer's own copy, just enough to keep it back on a tie."""
    if obs[_PARTNER][0] and not obs[_REVEALED]:
        return REVEAL_EARLY if int(obs[_CARDS_LEFT][0]) > 10 else REVEAL_LATE
    return 1e-3


def _two_step_credit(after: np.ndarray, j2: np.ndarray, plays: np.ndarray):
    """Two plays left: the credit of each play that leaves one play in hand (naturals ``after``,
    ``j2`` jokers), preferring to win the lead with the strong one first; 0.0 where none does."""
    rest_one, one_rank, rest_total = _rest_is_one_play(after, j2)
    if not rest_one.any():
        return 0.0
    return _two_step_value(rest_one, one_rank, rest_total, after > 0, plays)


def _rest_is_one_play(after: np.ndarray, j2: np.ndarray):
    """Whether what each play leaves is one play (one rank, or a run of pairs or triples); and
    whether it is one rank, and its card count."""
    rest_total = after.sum(1) + j2
    one_rank = (after > 0).sum(1) <= 1
    rest_one = (rest_total > 0) & (one_rank | _run_shape(after, j2, 2)
                                   | _run_shape(after, j2, 3))
    return rest_one, one_rank, rest_total


def _two_step_value(rest_one, one_rank, rest_total, nz, plays) -> np.ndarray:
    """The two-step credit (shared by ``_play`` and ``_play_batch``): ``TWO_STEP`` times the
    strength of the stronger of the play and the one play it leaves (``nz``: the ranks left)."""
    rest_key = np.where(nz.any(1), nz.argmax(1), 0) / 12.0
    rest_strong = np.where(one_rank & (rest_total >= 4), 1.0,
                           np.where(one_rank, np.where(rest_key >= 11 / 12, 0.7, 0.2), 0.6))
    height = _HEIGHT[plays]
    play_strong = np.where(_IS_BOMB[plays], 1.0,
                           np.where(_IS_RUN[plays], 0.6,
                                    np.where(height >= 11 / 12, 0.7, 0.5 * height)))
    return rest_one * TWO_STEP * np.maximum(rest_strong, play_strong)


def _opponents_near(cards_left, ally) -> list[tuple[int, int]]:
    """(seat, cards left) of each opponent about to go out (1 to 4 cards left)."""
    return [(s, int(cards_left[s])) for s in (1, 2, 3)
            if 0 < cards_left[s] <= 4 and ally[s] < 1.0]


def _lead_score(obs, plays, cost, points, ally, solo_game: bool) -> np.ndarray:
    """Leading: the cheapest play, with the points it leads into the opponents, the length an
    opponent about to go out could go out on avoided, and a known partner's length fed."""
    cards_left = obs[_CARDS_LEFT]
    height = _HEIGHT[plays]
    cost = cost.copy()
    if not solo_game:
        # points led are exposed to whoever wins the trick
        mate_cover = 1.0 - 0.5 * ally[1:].max()
        cost += LEAD_POINT_WEIGHT * points * mate_cover
    for s, n in _opponents_near(cards_left, ally):
        cost += (_LEN[plays] == n) * DANGER * (1.0 - ally[s]) * (1.0 - height)
        if n <= 3:  # their n cards may be a bomb: keep the lead with plays they lack
            cost += (_LEN[plays] < n) * 0.5 * (1.0 - ally[s])
    for s in (1, 2, 3):
        n = int(cards_left[s])
        if ally[s] >= 1.0 and 0 < n <= 4:
            cost -= (_LEN[plays] == n) * (~_IS_BOMB[plays]) * FEED * (1.0 - height)
    return -cost


def _feed_score(obs, plays, cost, points, naturals) -> np.ndarray:
    """Adding points to a known partner's trick: only with a play nothing unseen can beat in kind
    (bombs aside)."""
    played = obs[_PLAYED].reshape(4, 54)[:, :52].sum(0).reshape(13, 4).sum(1)
    unseen = 8 - naturals - played
    above = np.concatenate([np.cumsum(unseen[::-1])[::-1][1:], [0]])  # ranks > r
    safe = (_KEY[plays] >= 0) & (above[np.maximum(_KEY[plays], 0)] <= 0)
    return (POINT_WEIGHT * FEED_POINTS_SHARE * points - cost
            - 10.0 * ((points == 0) | ~safe))


def _follow_score(obs, plays, cost, points, ally, solo_game: bool, stand: int) -> np.ndarray:
    """Following: what a play is worth (the lead, the trick's points by the chance the standing
    player is an opponent, stopping an opponent about to go out) less its price."""
    cards_left = obs[_CARDS_LEFT]
    bomb = _IS_BOMB[plays]
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
    if _opponents_near(cards_left, ally):
        value += 1.0
    return value + score_own - cost


def _groups(sorted_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a non-empty sorted array and where each one's run starts."""
    starts = np.flatnonzero(np.r_[True, sorted_rows[1:] != sorted_rows[:-1]])
    return sorted_rows[starts], starts


# --- the batched path: the steps of ``_play_batch``, each ``_play``'s on every row ---------------


def _going_out_batch(actions: np.ndarray, my_cards: np.ndarray, row: np.ndarray,
                     act: np.ndarray) -> np.ndarray:
    """Going out: in each row with a play of the hand's length, the first play of the smallest
    bomb strength among those, set in ``actions``; returns the rows so decided."""
    decided = np.zeros(len(actions), bool)
    out = np.flatnonzero(_LEN[act] == my_cards[row])
    if out.size:
        key = _STRENGTH[act[out]] * _N + act[out]
        out_rows, starts = _groups(row[out])
        actions[out_rows] = np.minimum.reduceat(key, starts) % _N
        decided[out_rows] = True
    return decided


def _partner_standing_batch(obs, following, ally, solo_game, stand,
                            decided) -> tuple[np.ndarray, np.ndarray]:
    """``_feeding_plays`` on every row not ``decided`` that follows a known partner's play: (the
    rows that pass, the rows that may add points to its trick with a play that is no bomb)."""
    cards_left, passed = obs[:, _CARDS_LEFT], obs[:, _PASSED]
    ally_stand = ally[np.arange(len(obs)), stand]
    partner_standing = following & (ally_stand >= 1.0) & ~decided
    opponent_in = ((ally[:, 1:] < 1.0) & (cards_left[:, 1:] > 0) & (passed[:, 1:] == 0)).any(1)
    pass_now = partner_standing & (solo_game | (FEED_POINTS_SHARE <= 0) | opponent_in)
    return pass_now, partner_standing & ~pass_now


def _price_batch(obs, row, act) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_price`` of every candidate (``row``, ``act``), with the same operations in the same
    order: its price and points, and each row's natural cards per rank (int8)."""
    hand = obs[:, _HAND]
    naturals = (hand[:, 0:52:4] + hand[:, 1:52:4] + hand[:, 2:52:4]
                + hand[:, 3:52:4]).astype(np.int8)
    jokers = (hand[:, 52] + hand[:, 53]).astype(np.int64)
    nat = naturals[row]
    used = _naturals_used_batch(nat, act)
    after = nat - used
    jok = _JOK[act]
    drop = np.take(_F_DROP, (_F_DROP_BASE + 9 * naturals.astype(np.intp))[row] + after)
    cost = drop.sum(1) + JOKER_VALUE * jok - SHED * _LEN[act]
    cost -= RUN_BONUS * _RUN_EXTRA_RANKS[act]
    cost = np.where(jokers[row] == 4, cost + TIANZHA_BONUS * (jok > 0), cost)
    in_set, set_price = _broken_sets_batch(hand, naturals, used, row)
    cost[in_set] += set_price
    cost += _IS_BOMB[act] * (BOMB_EXTRA + BOMB_STRENGTH_COST * _STRENGTH[act])
    cost += K510_VALUE * _IS_K510[act]
    cost += _CALLED_PLAY[act] * _reveal_prices_batch(obs)[row]
    cost = _minus_two_step_batch(cost, naturals, jokers, after, row, act)
    return cost, used @ _POINTS_PER_RANK, naturals


def _naturals_used_batch(nat: np.ndarray, act: np.ndarray) -> np.ndarray:
    """``_naturals_used`` of every candidate (``nat``: its row's naturals), in int8."""
    umin = np.minimum(_COVER8[act], nat)
    return np.minimum(np.maximum(_NAT8[act, None] - (umin.cumsum(1, dtype=np.int8) - umin), 0),
                      umin)


def _broken_sets_batch(hand, naturals, used, row) -> tuple[np.ndarray, np.ndarray]:
    """The natural 正510K sets each candidate breaks: (the candidates in a hand with a set, their
    price); elsewhere nothing is added."""
    pr = list(cat.POINT_RANKS)
    suits = hand[:, np.array(pr)[:, None] * 4 + np.arange(4)]  # (rows, 3 point ranks, 4)
    sets = suits.min(1).astype(np.int64).sum(1)
    in_set = np.flatnonzero(sets[row] > 0)
    spare = (naturals[:, pr] - sets[:, None])[row[in_set]]
    return in_set, SET_VALUE * np.maximum(used[in_set][:, pr] - spare, 0).max(1)


def _reveal_prices_batch(obs) -> np.ndarray:
    """``_reveal_price`` of every row."""
    my_cards = obs[:, _CARDS_LEFT][:, 0].astype(np.int64)
    hidden = (obs[:, _PARTNER][:, 0] != 0) & (obs[:, _REVEALED] == 0)
    return np.where(hidden, np.where(my_cards > 10, REVEAL_EARLY, REVEAL_LATE), 1e-3)


def _minus_two_step_batch(cost, naturals, jokers, after, row, act) -> np.ndarray:
    """``cost`` less ``_two_step_credit``, in the rows where ``_play`` takes it (where some play
    leaves one play), worked out only where it can be nonzero."""
    maybe = _may_leave_one_play_batch(naturals, row, act)
    if not maybe.size:
        return cost
    rest, m_act = after[maybe], act[maybe]
    rest_one, one_rank, rest_total = _rest_is_one_play_batch(rest, jokers[row[maybe]] - _JOK[m_act])
    if not rest_one.any():
        return cost
    two_step = np.zeros(len(row))
    two_step[maybe] = _two_step_value(rest_one, one_rank, rest_total, rest > 0, m_act)
    any_row = np.zeros(len(naturals), bool)
    any_row[row[maybe[rest_one]]] = True
    return np.where(any_row[row], cost - two_step, cost)


def _may_leave_one_play_batch(naturals, row, act) -> np.ndarray:
    """The candidates whose rest may be one play: the ranks the play does not name are one, or
    hold no rank with 4+ naturals and no 2 (which a run of the rest could not take)."""
    bits = (naturals > 0) << np.arange(13)
    hand_bits = bits.sum(1)
    heavy_bits = (bits * ((naturals >= 4) | (np.arange(13) == 12))).sum(1)
    left = hand_bits[row] & ~_COVER_BITS[act]  # ranks the play does not name
    return np.flatnonzero(((left & (left - 1)) == 0) | ((left & heavy_bits[row]) == 0))


def _rest_is_one_play_batch(rest, j2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_rest_is_one_play`` of every candidate, ``_run_shape(rest, j2, 2) | _run_shape(rest,
    j2, 3)`` sharing the per-rank work."""
    rest_total = rest.sum(1) + j2
    nz = rest > 0
    ranks_left = nz.sum(1)
    one_rank = ranks_left <= 1
    span = (12 - nz[:, ::-1].argmax(1)) - nz.argmax(1) + 1
    runnable = (ranks_left > 0) & ~nz[:, 12]
    top = rest.max(1)
    run = np.zeros(len(rest), bool)
    for per in (2, 3):
        n_ranks = rest_total // per
        run |= (runnable & (top <= per) & (rest_total % per == 0) & (n_ranks >= 2)
                & (n_ranks >= span) & (n_ranks <= 12))
    return (rest_total > 0) & (one_rank | run), one_rank, rest_total


def _opponents_near_batch(cards_left, ally) -> np.ndarray:
    """(rows, 3): whether each other seat is an opponent about to go out (1 to 4 cards left)."""
    return (cards_left[:, 1:] > 0) & (cards_left[:, 1:] <= 4) & (ally[:, 1:] < 1.0)


def _lead_scores_batch(obs, ally, solo_game, row, act, cost, points) -> np.ndarray:
    """``_lead_score`` of every candidate (its terms added where ``_play`` adds them)."""
    cards_left = obs[:, _CARDS_LEFT]
    near = _opponents_near_batch(cards_left, ally)
    length, height = _LEN[act], _HEIGHT[act]
    lead = np.where(solo_game, 0.0, 1.0 - 0.5 * ally[:, 1:].max(1))  # mate cover
    c = np.where(solo_game[row], cost, cost + LEAD_POINT_WEIGHT * points * lead[row])
    for s in (1, 2, 3):
        n = cards_left[:, s].astype(np.int64)[row]
        enemy = (1.0 - ally[:, s])[row]
        near_s = near[:, s - 1][row]
        c = np.where(near_s, c + (length == n) * DANGER * enemy * (1.0 - height), c)
        c = np.where(near_s & (n <= 3), c + (length < n) * 0.5 * enemy, c)
    for s in (1, 2, 3):
        n = cards_left[:, s].astype(np.int64)
        mate = ((ally[:, s] >= 1.0) & (n > 0) & (n <= 4))[row]
        c = np.where(mate, c - (length == n[row]) * (~_IS_BOMB[act]) * FEED * (1.0 - height), c)
    return -c


def _feed_scores_batch(obs, feeding, naturals, row, act, cost, points) -> np.ndarray:
    """``_feed_score`` of every candidate (meaningful in the ``feeding`` rows)."""
    fed = np.flatnonzero(feeding)
    played = obs[fed, _PLAYED].reshape(-1, 4, 54)[:, :, :52].sum(1)
    unseen = 8 - naturals[fed].astype(np.int64) - played.reshape(-1, 13, 4).sum(2)
    above = np.zeros((len(obs), 13))
    above[fed, :-1] = np.cumsum(unseen[:, ::-1], 1)[:, ::-1][:, 1:]  # ranks > r
    key = _KEY[act]
    safe = (key >= 0) & (above[row, np.maximum(key, 0)] <= 0)
    return (POINT_WEIGHT * FEED_POINTS_SHARE * points - cost
            - 10.0 * ((points == 0) | ~safe))


def _follow_scores_batch(obs, ally, solo_game, stand, row, act, cost, points) -> np.ndarray:
    """``_follow_score`` of every candidate (the hand's side and 1 v 3 terms chosen per row)."""
    rows = len(obs)
    cards_left = obs[:, _CARDS_LEFT]
    enemy = 1.0 - ally[np.arange(rows), stand]
    bomb = _IS_BOMB[act]
    value = np.where(bomb, BOMB_WIN_VALUE, WIN_VALUE)
    trick = obs[:, _TRICK_POINTS].astype(np.float64)
    points_value = value + (POINT_WEIGHT * enemy * trick)[row]
    own = POINT_WEIGHT * points * np.where(bomb, BOMB_OWN_POINT_SHARE, OWN_POINT_SHARE)
    race_value = value + (SOLO_RACE_VALUE + SOLO_BOMB_VALUE * bomb) * enemy[row]
    solo_c = solo_game[row]
    value = np.where(solo_c, race_value, points_value)
    own = np.where(solo_c, 0.0, own)
    n_stand = cards_left[np.arange(rows), stand].astype(np.int64)
    stop = STOP_VALUE * enemy * (5 - n_stand) / 4.0 * np.where(solo_game, 2.0, 1.0)
    value = np.where((n_stand <= 4)[row], value + stop[row], value)
    near_any = _opponents_near_batch(cards_left, ally).any(1)
    value = np.where(near_any[row], value + 1.0, value)
    return value + own - cost


def _sides_table() -> tuple[np.ndarray, np.ndarray]:
    """``DagongHeuristic.sides`` for every (solo seat or none, dealer, partner or none), as
    looked up by ``_sides_batch``: the per-state function itself, run once per key."""
    ally = np.zeros((5, 4, 5, 4))
    solo_game = np.zeros((5, 4, 5), bool)
    for s in range(5):
        for d in range(4):
            for p in range(5):
                obs = np.zeros(LAYOUT.observation_size)
                if s < 4:
                    obs[_SOLO.start + s] = 1
                obs[_DEALER.start + d] = 1
                if p < 4:
                    obs[_PARTNER.start + p] = 1
                ally[s, d, p], solo_game[s, d, p] = DagongHeuristic.sides(obs)
    return ally, solo_game


_SIDES_ALLY, _SIDES_SOLO = _sides_table()


def _sides_batch(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``DagongHeuristic.sides`` on every row: (rows, 4) ally chances and (rows,) 1 v 3."""
    solo, partner = obs[:, _SOLO], obs[:, _PARTNER]
    s = np.where(solo.max(1) > 0, solo.argmax(1), 4)  # (a float .any() is slow)
    p = np.where(partner.max(1) > 0, partner.argmax(1), 4)
    d = obs[:, _DEALER].argmax(1)
    return _SIDES_ALLY[s, d, p], _SIDES_SOLO[s, d, p]


def _solo_decisions(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``_solo_decision`` on every row (``solo_strength``'s arithmetic, row-wise)."""
    hand = obs[:, _HAND]
    naturals = hand[:, :52].reshape(len(obs), 13, 4).sum(2)
    bombs = naturals >= 4
    dealer = obs[:, _DEALER][:, 0] > 0
    logit = (0.07 + np.where(dealer, 1.03, 0.0) + 0.25 * bombs.sum(1)
             + 0.13 * np.where(bombs, naturals - 4, 0).sum(1) + 0.83 * (hand[:, 52] + hand[:, 53])
             + 0.18 * naturals[:, 12] - 0.19 * ((naturals[:, :9] == 1).sum(1))
             - 0.2 * (naturals > 0).sum(1) - 0.14 * (naturals == 2).sum(1)
             - 0.19 * (naturals == 3).sum(1))
    declare = 1.0 / (1.0 + np.exp(-logit)) >= SOLO_THRESHOLD
    return np.where(declare & masks[:, cat.SOLO_DECLARE], cat.SOLO_DECLARE,
                    np.where(masks[:, cat.SOLO_DECLINE], cat.SOLO_DECLINE, cat.SOLO_DECLARE))
