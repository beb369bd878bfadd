"""Dagong worlds: complete positions that agree with everything one seat has seen
(``DagongGame.sample_worlds(state, seat, n, rng)``), for search over the hidden cards.

What a seat has seen of the current hand is its own cards (and the order it was dealt them),
every action (plays, passes and 硬牌 decisions are all public) and, after each action, its
observation: the cards each play took, hand sizes, the dealer, the call and the calls a later
hand's deal superseded, 明鸡, places. A world is a deal of the cards the seat has not seen to the
other seats, rebuilt by ``DagongGame.state_from_deal`` and the current hand's actions, that gives
the seat the same observation at every step of the hand (and so the same legal mask now).

How the worlds are drawn, exactly uniformly over the consistent deals (each deal of the unseen
cards weighted as a shuffle deals it: a kind whose two unseen copies go to two seats arises in
two ways):

1. ``seen``: the seat's observation after every step of the current hand, its own cards in deal
   order, and the public facts. It is the one place the position is read, by replaying the
   position's own recipe; nothing else leaves that replay, so worlds depend only on what the
   seat saw (``tests/cardenv/dagong/test_worlds.py`` swaps hidden cards and gets the same worlds).
2. The constraints a deal must meet that bound one seat's hidden copies of one kind
   (``_bounds``, ``_voids``): each seat's hand size; the dealer holds one called card (both when
   it plays alone by force) and both copies of each superseded call; the twin of the call is with
   the partner (known once 明鸡 showed it, or to the partner itself; otherwise one of the seats
   that could be: after two seats are out without 绑 they are on opposite sides); and the kinds a
   play shows a seat to have run out of. The card-choice rule (``selection``) takes ``min(left,
   room, need)`` of each kind in its order (jokers small before big, naturals by kind, the called
   kind last), so a kind it took less of than room and need allowed had none left; a 5, 10 or K
   may instead have been kept back as part of a whole 5-10-K set of its suit, a rule on the
   seat's three cards of that suit.
3. Deals meeting those are drawn exactly from a backward table over the kinds (``_Deals``: each
   suit's 5, 10 and K taken together, the number of shuffles completing each partial deal, in
   float64): the twin's holder and the split of the called kind's unit first (only that unit's
   bounds depend on the holder, so the table of the others is shared), in proportion to their
   number of deals, then unit by unit; many deals at once (numpy over the draws).
4. Each drawn deal is tested (rejection, which keeps the draw uniform): every play of another
   seat is chosen again (``vector.select_batch``, the batched ``select_cards``) from the hand the
   seat held then, its hidden cards now plus what it played from that play on, all deals and
   plays in one call (the plays of 5/10/K and 510K first, the others on the deals that passed);
   a deal is kept if every play takes the same cards. That is the whole test of what the seat
   sees: a deal changes the seat's observations only through the cards a play takes, whether a
   play is legal, and who holds the twin. A play is legal: the hand held then has the cards the
   play took, a build of it, and the play it had to beat is public (passes and 硬牌 decisions
   are legal in every deal alike). The twin's holder is one the seat cannot rule out
   (``_partner_candidates``): 明鸡 shows it at the same step (only the holder plays a called
   card), and two seats out are not on one side, as the hand goes on.
5. The first kept deal is rebuilt by ``state_from_deal`` and the hand's actions, each checked
   legal, and must show the seat what it saw at every step (an error if not: a check of the
   test above). The other worlds are copies of it with their own hidden hands, deal, seed and
   twin holder (``_copy_with``); everything else a position holds is public. The tests compare
   every world with the state its recipe replays to; ``python -m cardenv.bench worlds --check
   N`` replays every world sampled at N positions.

A world is a state of a game whose ``hands`` option leaves as many hands to come as the
position's (``more_hands`` is in the observation); a later hand is rebuilt with
``state_from_hands(..., later=True)`` (the dealer's deal order gives the call and the superseded
calls). A world's ``history`` is the current hand's actions and its ``results`` are empty: the
earlier hands are not part of it (their results are public: ``state.results``).

Not weighted: the chance of the call itself given the deal (a first hand's call is a random
single of the dealer's; a later hand's call depends on the order the dealer's cards came), so
"uniform" is over the deals, as the issue asks, not the Bayesian posterior of the dealing process.

For a given ``rng`` the worlds are not those of the sampler before deals were drawn in batches
(one deal, then its replay, at a time); they are drawn from the same distribution.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, SMALL_JOKER
from cardenv.core.worlds import check_sample_args
from cardenv.dagong import catalogue as cat
from cardenv.dagong import counting
from cardenv.dagong.vector import select_batch

# rejection: give up (RuntimeError) after this many drawn deals per world asked for, plus a base
MAX_TRIES_PER_WORLD = 2000
MAX_TRIES_BASE = 10_000
_FACT = [math.factorial(i) for i in range(3)]
DRAW_BATCH = 256  # the most deals drawn and checked together (bounds the memory)


@dataclass
class Seen:
    """What ``seat`` has seen of the current hand (built by ``seen``)."""

    seat: int
    hands_to_come: int  # the ``hands`` option a world's game gets
    later: bool  # the current hand is a later hand (its call follows the dealer's deal order)
    actions: list[int]  # the current hand's actions
    observations: np.ndarray  # (len(actions) + 1, obs) int16: the seat's view after each step
    own_order: list[int]  # the seat's cards in the order it was dealt them
    pool: np.ndarray  # (54,) every card of the hand's deal (not who holds it)
    dealer: int
    called: int
    forced_solo: bool
    superseded: list[int]
    solo: int | None
    partner: int | None  # the partner where the seat knows it
    played: np.ndarray  # (4, 54) cards each seat has played this hand
    cards_left: list[int]
    out: list[int]  # seats out, in order
    plays: list[tuple[int, int, np.ndarray]]  # (seat, action, cards taken) of each play


def seen(state, seat: int) -> Seen:
    """What ``seat`` has seen of the current hand of ``state``: the position's recipe is
    replayed and only the seat's observation after every step of the current hand, its own
    cards and the public facts are kept."""
    game = state.game
    index = game.layout.observation_index[seat]
    ref = game.replay(state.seed, [], state.given_deal)
    start = 0
    for k, action in enumerate(state.history):
        if ref.hand_index == state.hand_index:
            break
        ref.apply_unchecked(action)  # the position's own actions: legal
        start = k + 1
    actions = state.history[start:]
    observations = [ref.buffer[index].copy()]
    plays = []
    for action in actions:
        player = ref.current
        ref.apply_unchecked(action)
        observations.append(ref.buffer[index].copy())
        if action >= cat.FIRST_PLAY:  # the play stands (a play that ends the hand is not here)
            plays.append((player, action, ref.v["standing_cards"].astype(np.int64)))
    v = ref.v
    if state.hand_index == 0 and state.given_deal is not None:
        # a hand dealt by hand: the cards in play are part of the puzzle's set-up
        pool = np.bincount(np.concatenate([np.asarray(h, dtype=np.int64)
                                           for h in state.given_deal["hands"]]),
                           minlength=NUM_KINDS)
    else:
        pool = np.full(NUM_KINDS, 2, dtype=np.int64)
    partner_row = v["partner"][seat]
    known = np.flatnonzero(partner_row)
    solo = np.flatnonzero(v["solo"])
    return Seen(
        seat=seat, hands_to_come=game.options["hands"] - state.hand_index,
        # a later hand, or a hand dealt by hand as one (state_from_hands(..., later=True))
        later=state.hand_index > 0 or "later" in (state.given_deal or {}), actions=list(actions),
        observations=np.array(observations), own_order=list(state.deal_order[seat]),
        pool=pool, dealer=int(np.argmax(v["dealer"])), called=int(np.argmax(v["called"])),
        forced_solo=bool(v["forced_solo"][0]),
        superseded=np.flatnonzero(v["superseded_calls"]).tolist(),
        solo=int(solo[0]) if solo.size else None,
        partner=int(known[0]) if known.size else None,
        played=v["played"].astype(np.int64), cards_left=[int(x) for x in v["cards_left"]],
        out=[int(np.argmax(v["place"][:, i])) for i in range(4) if v["place"][:, i].any()],
        plays=plays)


# --- the per-kind constraints --------------------------------------------------------------


def _point_group(kind: int) -> list[int] | None:
    """The 5, 10 and K of ``kind``'s suit if ``kind`` is one of them (a natural 正510K set)."""
    if kind >= SMALL_JOKER or kind // 4 not in cat.POINT_RANKS:
        return None
    return [4 * r + kind % 4 for r in cat.POINT_RANKS]


def _voids(seen_: Seen):
    """What the plays show of each seat's hidden hand (necessary conditions of the card-choice
    rule, ``selection``): ``(void, rules)``, ``void`` ``(4, 54)`` bool, the kinds a seat holds
    no more of, and ``rules[seat]``, ``(kind, later)`` pairs: the seat holds no more of
    ``kind`` (a 5, 10 or K) unless it held the whole 5-10-K set of that suit then (``later``:
    the cards it has played since, that play included)."""
    void = np.zeros((4, NUM_KINDS), dtype=bool)
    rules: list[list] = [[] for _ in range(4)]
    later = np.zeros((4, NUM_KINDS), dtype=np.int64)
    for seat, action, cards in reversed(seen_.plays):
        later[seat] += cards
        for kind in _play_voids(cat.ACTIONS[action], cards, seen_.called):
            if _point_group(kind) is None:
                void[seat, kind] = True
            else:
                rules[seat].append((kind, later[seat].copy()))
    return void, rules


def _play_voids(info, cards, called: int) -> list[int]:
    """The kinds that ``selection.select_cards`` took fewer of than it could (the greedy takes
    ``min(available, room, need)`` of each kind in its order, so taking less than ``min(room,
    need)`` means none was left), jokers first, then the naturals in kind order. Exact where no
    5/10/K is protected; a protected copy comes after every unprotected one, so a 5/10/K listed
    here was used up or protected (the seat held the whole 5-10-K set of its suit: see
    ``_voids``). Nothing for 510K (checked when drawn)."""
    combo = cat.COMBOS[info.combo]
    taken = [int(x) for x in cards]
    if info.called:
        taken[called] -= 1  # the called copy is taken first, outside the orders below
    out = []
    first, second = (BIG_JOKER, SMALL_JOKER) if called == SMALL_JOKER else \
        (SMALL_JOKER, BIG_JOKER)
    need = combo.jokers - (1 if info.called and called >= SMALL_JOKER else 0)
    for kind in (first, second):
        if kind == called and not info.called:
            continue  # every copy of the called kind is kept back
        if taken[kind] < need:
            out.append(kind)
        need -= taken[kind]
    if combo.type == cat.K510:
        return out
    per_rank = dict.fromkeys(combo.ranks, 0)
    if info.called and called < SMALL_JOKER and called // 4 in per_rank:
        per_rank[called // 4] += 1
    need = combo.length - combo.jokers - sum(per_rank.values())
    order = sorted(k for r in combo.ranks for k in range(4 * r, 4 * r + 4) if k != called)
    if info.called and called < SMALL_JOKER and called // 4 in per_rank:
        order.append(called)  # a second copy of the called card comes last
    for kind in order:
        if need == 0:
            break
        room = combo.per_rank - per_rank[kind // 4]
        if room <= 0:
            continue
        if taken[kind] < min(room, need):
            out.append(kind)
        per_rank[kind // 4] += taken[kind]
        need -= taken[kind]
    return out


def _bounds(seen_: Seen, partner: int | None, others: list[int], void):
    """``(lo, hi, unseen)``: ``lo``/``hi`` ``(3, 54)`` bounds on each other seat's hidden
    copies of each kind, with the twin of the call with ``partner`` (``None``: the dealer holds
    both); ``unseen`` ``(54,)`` the cards the seat has not seen."""
    played, called, dealer = seen_.played, seen_.called, seen_.dealer
    unseen = seen_.pool - _own_dealt(seen_) - played[others].sum(axis=0)
    hi = np.tile(unseen, (3, 1))
    lo = np.zeros_like(hi)
    for i, s in enumerate(others):
        hi[i, void[s]] = 0

        def fix(kind: int, count: int) -> None:
            lo[i, kind] = max(lo[i, kind], count)
            hi[i, kind] = min(hi[i, kind], count)

        if s == dealer:
            fix(called, (2 if seen_.forced_solo else 1) - played[s, called])
            for kind in seen_.superseded:
                fix(kind, 2 - played[s, kind])
        elif s == partner:
            fix(called, 1 - played[s, called])
        else:
            fix(called, 0)
    return lo, hi, unseen


def _own_dealt(seen_: Seen) -> np.ndarray:
    return np.bincount(np.asarray(seen_.own_order, dtype=np.int64), minlength=NUM_KINDS)


def _partner_candidates(seen_: Seen) -> list[int | None]:
    """The seats that may hold the twin of the call, as the seat sees it."""
    if seen_.forced_solo:
        return [None]
    if seen_.partner is not None:
        return [seen_.partner]
    seat, dealer = seen_.seat, seen_.dealer
    if seat != dealer and _own_dealt(seen_)[seen_.called]:
        return [seat]  # cannot happen: the partner sees itself; kept for safety
    out = seen_.out
    candidates = []
    for p in range(4):
        if p in (seat, dealer):
            continue
        if seen_.solo is None and len(out) >= 2:
            team = {dealer, p}
            if (out[0] in team) == (out[1] in team):  # two out together would be 绑: over
                continue
        candidates.append(p)
    return candidates


def _units() -> list[list[int]]:
    """The kinds in the order the deal table takes them: each suit's 5, 10 and K together (the
    protection rules tie them), every other kind alone."""
    groups = [[4 * r + suit for r in cat.POINT_RANKS] for suit in range(4)]
    grouped = {k for g in groups for k in g}
    return groups + [[k] for k in range(NUM_KINDS) if k not in grouped]


_UNITS = _units()


class _Deals:
    """Exact draws of the hidden hands of the three other seats: a backward table over the
    units of kinds (``_UNITS``) of the number of shuffles completing a partial deal, under
    per-kind bounds and, per seat and suit, the 5/10/K rules of ``_voids``. The holder of the
    call's twin is drawn with the deal: only the bounds of the called kind depend on it, so its
    unit comes first, the table of the units after it is shared, and a draw picks the holder
    and the first unit's split together.

    ``candidates``: ``(partner, lo, hi)`` per possible holder (``None``: the dealer holds
    both), ``lo``/``hi`` as ``_bounds`` gives them."""

    def __init__(self, candidates, unseen, caps, rules, called: int):
        self.caps = caps
        ca, cb = caps[0], caps[1]
        self.partners = [partner for partner, _, _ in candidates]
        first = next(kinds for kinds in _UNITS if called in kinds)
        self.first = [k for k in first if unseen[k]]
        _, lo, hi = candidates[0]
        units, options = [], []
        for unit in _UNITS:
            kinds = [k for k in unit if unseen[k]]
            if kinds and unit is not first:
                units.append(kinds)
                options.append(self._options(kinds, lo, hi, unseen, rules))
        table = np.zeros((len(units) + 1, ca + 1, cb + 1))
        table[-1, 0, 0] = 1.0
        for j in range(len(units) - 1, -1, -1):
            nxt, cur = table[j + 1], table[j]
            xa_all, xb_all, w_all, _ = options[j]
            # the options of one unit that give the two first seats the same counts weigh
            # together: one shifted add per (xa, xb)
            grid = np.zeros((xa_all.max() + 1, xb_all.max() + 1))
            np.add.at(grid, (xa_all, xb_all), w_all)
            for xa, xb in zip(*np.nonzero(grid[:ca + 1, :cb + 1])):
                cur[xa:, xb:] += grid[xa, xb] * nxt[:ca + 1 - xa, :cb + 1 - xb]
        self.units, self.options, self.table = units, options, table
        # the first unit's splits of every holder, each weighed with its completions
        holder, xa, xb, weight, splits = [], [], [], [], []
        for c, (_, lo, hi) in enumerate(candidates):
            if self.first:
                o_xa, o_xb, o_w, o_splits = self._options(self.first, lo, hi, unseen, rules)
            else:
                o_xa, o_xb, o_w = np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1)
                o_splits = np.zeros((1, 3, 0), dtype=np.int64)
            fits = (o_xa <= ca) & (o_xb <= cb)
            done = table[0][np.where(fits, ca - o_xa, 0), np.where(fits, cb - o_xb, 0)]
            holder.append(np.full(len(o_w), c))
            xa.append(o_xa)
            xb.append(o_xb)
            weight.append(np.where(fits, o_w * done, 0.0))
            splits.append(o_splits)
        self.holder, self.xa, self.xb = (np.concatenate(x) for x in (holder, xa, xb))
        self.splits = np.concatenate(splits)
        self.cumulative = np.cumsum(np.concatenate(weight))
        # the third seat's count follows; a total over the caps is impossible (weight 0)
        self.weight = float(self.cumulative[-1]) if sum(caps) == int(unseen.sum()) else 0.0

    @staticmethod
    def _options(kinds, lo, hi, unseen, rules):
        """Every split of the unit's unseen copies among the three seats within the bounds and
        rules: ``(xa, xb, weight, splits (m, 3, len(kinds)))``, weight the shuffles of it (the
        splits in ``itertools.product`` order of the kinds' splits)."""
        per_kind = []
        for k in kinds:
            splits, weights = _SPLITS[int(unseen[k])]
            ok = ((splits >= lo[:, k]) & (splits <= hi[:, k])).all(axis=1)
            per_kind.append((splits[ok], weights[ok]))
        if len(per_kind) == 1:
            (splits, weights), = per_kind
            splits = splits[:, :, None]
        else:
            picks = np.indices([len(w) for _, w in per_kind]).reshape(len(per_kind), -1)
            splits = np.stack([sp[pk] for (sp, _), pk in zip(per_kind, picks)], axis=2)
            weights = np.prod([w[pk] for (_, w), pk in zip(per_kind, picks)], axis=0)
        if any(kind in kinds for seat_rules in rules for kind, _ in seat_rules):
            keep = [_rules_hold(kinds, split, rules) for split in splits]
            splits, weights = splits[keep], weights[keep]
        return (splits[:, 0, :].sum(axis=1), splits[:, 1, :].sum(axis=1),
                np.asarray(weights, dtype=float), splits)

    def draw_many(self, rng: np.random.Generator, m: int) -> tuple[np.ndarray, np.ndarray]:
        """``m`` independent draws: ``(hidden (m, 3, 54) counts, holder (m,))``, ``holder``
        indexing ``partners``. The first unit and the holder in proportion to their weights,
        then unit by unit each draw's split in proportion to its shuffles times the
        completions of what is left (the next row of the table)."""
        out = np.zeros((m, 3, NUM_KINDS), dtype=np.int64)
        pick = _categorical(rng, self.cumulative, m)
        out[:, :, self.first] = self.splits[pick]
        ra, rb = self.caps[0] - self.xa[pick], self.caps[1] - self.xb[pick]
        holder = self.holder[pick]
        for j, kinds in enumerate(self.units):
            xa, xb, w, splits = self.options[j]
            if len(w) == 1:
                pick = np.zeros(m, dtype=np.int64)
            else:
                da, db = ra[:, None] - xa, rb[:, None] - xb  # (m, options): what is left
                ok = (da >= 0) & (db >= 0)
                weights = np.where(ok, w * self.table[j + 1][np.where(ok, da, 0),
                                                             np.where(ok, db, 0)], 0.0)
                pick = _categorical(rng, np.cumsum(weights, axis=1), m)
            out[:, :, kinds] = splits[pick]
            ra -= xa[pick]
            rb -= xb[pick]
        return out, holder


def _categorical(rng: np.random.Generator, cumulative: np.ndarray, m: int) -> np.ndarray:
    """``m`` draws of an index in proportion to the weights whose cumulative sums are
    ``cumulative`` (``(k,)`` for all draws, or ``(m, k)``, one row per draw)."""
    total = cumulative[..., -1]
    r = rng.random(m) * total
    if cumulative.ndim == 1:
        pick = np.searchsorted(cumulative, r, side="right")
    else:
        pick = (cumulative <= r[:, None]).sum(axis=1)
    return np.minimum(pick, cumulative.shape[-1] - 1)


def _splits(u: int) -> tuple[np.ndarray, np.ndarray]:
    """Every split ``(a, b, c)`` of ``u`` copies of a kind among three seats, ``(s, 3)``, and
    its number of shuffles (the multinomial coefficient)."""
    splits = [(a, b, u - a - b) for a in range(u + 1) for b in range(u + 1 - a)]
    weights = [_FACT[u] / (_FACT[a] * _FACT[b] * _FACT[c]) for a, b, c in splits]
    return np.array(splits, dtype=np.int64).reshape(-1, 3), np.array(weights)


_SPLITS = [_splits(u) for u in range(3)]


def _rules_hold(kinds, split, rules) -> bool:
    """Whether each seat's share of a 5-10-K unit meets its rules (``rules[i]``: ``(kind,
    later)``, see ``_voids``); kinds of the unit not unseen count as held 0 now."""
    position = {k: j for j, k in enumerate(kinds)}
    for i, seat_rules in enumerate(rules):
        for kind, later in seat_rules:
            if kind not in position:
                continue
            if split[i, position[kind]] == 0:
                continue
            group = _point_group(kind)
            held = [(split[i, position[g]] if g in position else 0) + later[g] for g in group]
            if min(held) < 1:
                return False
    return True


def _later_order(dealt: list[int], called: int, superseded: list[int], forced: bool) -> list[int]:
    """An order of a later hand's dealer's cards that the later-hand rule turns into these
    calls: each superseded call twice, then the call, the rest, and the call's twin last when
    the dealer ends holding both (forced solo)."""
    rest = list(dealt)
    order = []
    for kind in superseded:
        order += [kind, kind]
        rest.remove(kind)
        rest.remove(kind)
    rest.remove(called)
    if forced:
        rest.remove(called)
        return order + [called] + rest + [called]
    return order + [called] + rest


def sample_worlds(game, state, seat, n, rng) -> list:
    """``n`` states of the current hand that agree with everything ``seat`` has seen in
    ``state``, drawn uniformly over the consistent deals with ``rng`` (see the module
    docstring). Errors: ``core.worlds.check_sample_args``; ``RuntimeError`` if the draws keep
    failing the check (not seen in testing)."""
    seat, n = check_sample_args(game, state, seat, n, rng)
    if n == 0:
        return []
    view = seen(state, seat)
    return _draw(game, view, n, rng)


class _PlayChecks:
    """Every play the other seats made this hand, as arrays for one vectorized test of many
    drawn deals: the cards ``selection`` takes for the action from the hand the seat held then
    (its hidden cards now plus what it played from that play on) must be the cards the play
    took. That hand holds those cards, a build of the action, so the action was feasible for
    it, and legal (the play it had to beat is public)."""

    def __init__(self, view: Seen, others: list[int]):
        later = np.zeros((4, NUM_KINDS), dtype=np.int64)
        index, actions, laters, taken = [], [], [], []
        for seat, action, cards in reversed(view.plays):
            later[seat] += cards
            if seat == view.seat:
                continue  # its own hand is the real one
            index.append(others.index(seat))
            actions.append(action)
            laters.append(later[seat].copy())
            taken.append(np.asarray(cards, dtype=np.int64))
        self.size = len(actions)
        self.called = view.called
        self.index = np.array(index, dtype=np.int64)
        self.actions = np.array(actions, dtype=np.int64)
        self.later = np.array(laters, dtype=np.int64).reshape(-1, NUM_KINDS)
        self.taken = np.array(taken, dtype=np.int64).reshape(-1, NUM_KINDS)
        self.ambiguous = np.array([_ambiguous(a) for a in actions], dtype=bool)

    def passed(self, hidden: np.ndarray) -> np.ndarray:
        """``(m,)`` bool: which of ``m`` drawn deals (``hidden`` ``(m, 3, 54)``) take the same
        cards in every play. The plays of 5/10/K and 510K, which the table leaves open, are
        tested first; the others (settled by the table) only on the deals that passed."""
        ok = self._same(hidden, self.ambiguous)
        rows = np.flatnonzero(ok)
        if rows.size:
            ok[rows] = self._same(hidden[rows], ~self.ambiguous)
        return ok

    def _same(self, hidden: np.ndarray, plays: np.ndarray) -> np.ndarray:
        m, p = hidden.shape[0], int(plays.sum())
        if p == 0:
            return np.ones(m, dtype=bool)
        hands = (hidden[:, self.index[plays], :] + self.later[plays][None]).reshape(
            m * p, NUM_KINDS)
        cards = select_batch(hands, np.tile(self.actions[plays], m),
                             np.full(m * p, self.called, dtype=np.int64))
        return (cards.reshape(m, p, NUM_KINDS) == self.taken[plays][None]).all(axis=(1, 2))


def _ambiguous(action: int) -> bool:
    """Whether the table's constraints leave open which cards ``action`` took (a play of
    5/10/K, whose copies a whole 5-10-K set protects, or a 510K)."""
    combo = cat.COMBOS[cat.ACTIONS[action].combo]
    return combo.type == cat.K510 or any(r in cat.POINT_RANKS for r in combo.ranks)


def _draw(game, view: Seen, n: int, rng: np.random.Generator) -> list:
    others = [s for s in range(4) if s != view.seat]
    caps = [view.cards_left[s] for s in others]
    void, rules = _voids(view)
    rules = [rules[s] for s in others]
    candidates = []
    for partner in _partner_candidates(view):
        lo, hi, unseen = _bounds(view, partner, others, void)
        candidates.append((partner, lo, hi))
    deals = _Deals(candidates, unseen, caps, rules, view.called) if candidates else None
    if deals is None or deals.weight == 0:
        raise RuntimeError("no deal of the unseen cards agrees with what the seat has seen")
    world_game = game if view.hands_to_come == game.options["hands"] else \
        type(game)(**{**game.options, "hands": view.hands_to_come})
    checks = _PlayChecks(view, others)
    kept: list[tuple[int | None, np.ndarray, int]] = []  # (partner, hidden hands, seed)
    tries = 0
    limit = MAX_TRIES_BASE + MAX_TRIES_PER_WORLD * n
    # the share of drawn deals that pass, as measured so far; at first a guess: all when the
    # checks that can fail are the ones the table settles (no 5/10/K or 510K play)
    rate = 0.5 if checks.ambiguous.any() else 1.0
    while len(kept) < n:
        missing = n - len(kept)
        m = min(DRAW_BATCH, max(missing, int(np.ceil(1.25 * missing / max(rate, 0.01)))))
        if tries + m > limit:
            raise RuntimeError(f"dagong.sample_worlds: {tries} deals drawn and too few "
                               f"agreed with the seat's observations ({len(kept)} of {n})")
        hidden, holder = deals.draw_many(rng, m)
        seeds = rng.integers(2 ** 63 - 1, size=m)
        ok = checks.passed(hidden)
        tries += m
        passed = np.flatnonzero(ok)
        kept += [(deals.partners[holder[i]], hidden[i], int(seeds[i]))
                 for i in passed[:missing]]
        rate = max(float(ok.mean()), 0.5 * rate)
    return _worlds(world_game, view, others, kept)


def _worlds(world_game, view: Seen, others, kept) -> list:
    """The worlds of the kept deals. The first is rebuilt from its deal and the hand's actions
    (each checked legal) and must show the seat what it saw at every step; the others are
    copies of it with their own hidden hands, seed and partner: nothing else of a position
    depends on the hidden cards once every play takes the same cards (``_PlayChecks``),
    ``tests/cardenv/dagong/test_worlds.py`` compares them with replays."""
    index = world_game.layout.observation_index[view.seat]
    _, hidden, seed = kept[0]
    first = _start(world_game, view, others, hidden, seed)
    if not np.array_equal(first.buffer[index], view.observations[0]):
        raise RuntimeError(_MISMATCH.format(step=0))
    for t, action in enumerate(view.actions):
        first.apply(action)
        if not np.array_equal(first.buffer[index], view.observations[t + 1]):
            raise RuntimeError(_MISMATCH.format(step=t + 1))
    out = [first]
    for partner, hidden, seed in kept[1:]:
        out.append(_copy_with(first, view, others, partner, hidden, seed))
    return out


_MISMATCH = ("dagong.sample_worlds: a deal that passed the play checks shows the seat another "
             "observation after step {step} of the hand (a bug: please report it)")


def _copy_with(template, view: Seen, others, partner, hidden, seed):
    """``template`` with other hidden hands (and the deal, partner and seed that go with them):
    the state ``_start`` and the hand's actions would rebuild from that deal."""
    world = template.clone()
    deal = _deal(view, others, hidden)
    world.seed = seed
    world.rng = np.random.default_rng(seed)
    world.given_deal = deal
    world.deal_order = [list(cards) for cards in deal["hands"]]
    dealt = template.dealt.copy()  # the seat's own row is the same in every world
    dealt[others] = hidden + view.played[others]
    world.dealt = dealt
    world.partner = partner
    v = world.v
    v["hand"][others] = hidden
    if not world.revealed:  # revealed: everyone sees the partner, the same in every world
        v["partner"][:] = 0
        if partner is not None:
            v["partner"][partner, partner] = 1
    counting.refresh(world)  # the other seats' counts follow their new hands
    world._feasible = [None] * 4
    world._given = None
    return world


def _deal(view: Seen, others, hidden) -> dict:
    """The deal of these hidden hands: every seat's cards in deal order (the seat's own as it
    was dealt them, the dealer's of a later hand in an order that gives the same calls)."""
    hands: list[list[int]] = [[] for _ in range(4)]
    hands[view.seat] = list(view.own_order)
    for i, s in enumerate(others):
        dealt = hidden[i] + view.played[s]
        cards = np.repeat(np.arange(NUM_KINDS), dealt).tolist()
        if view.later and s == view.dealer:
            cards = _later_order(cards, view.called, view.superseded, view.forced_solo)
        hands[s] = cards
    deal = {"hands": hands, "dealer": view.dealer, "called": view.called}
    if view.later:
        deal["later"] = True
    return deal


def _start(world_game, view: Seen, others, hidden, seed):
    """The world of these hidden hands as dealt, before the hand's first action."""
    return world_game.state_from_deal(seed, _deal(view, others, hidden))
