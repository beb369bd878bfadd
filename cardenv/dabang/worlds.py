"""Dabang's public-information sampler: ``sample_worlds(state, seat, n, rng)`` draws ``n``
complete states that agree with everything ``seat`` has seen (``DabangGame.sample_worlds``).

What it reads: ``seat``'s observation at every step of the hand (recorded by replaying the
state's recipe and keeping only that seat's view and what every seat sees: who is asked, the
deal position, the plays), ``seat``'s own cards in the order they were dealt, when ``seat`` is
the dealer, the kitty it picked up and the cards it buried, and, when it gave or took the
tribute, the tribute and the cards given back. Nothing else of the position.

How: each world is a deck (``state_from_deal``) and a history, proposed from a distribution that
already meets the hard constraints, then *replayed* and kept only if every step is legal and
gives ``seat`` the same observation as the real hand did (and the same legal mask now when
``seat`` is to act). So every world is exactly consistent; the proposal only makes acceptance
likely.

The proposal pins what ``seat`` knows (its own deal slots; the big joker at the slot where a
seat was asked to grab; the kitty where it is shown or flipped), and draws the other hidden
cards with the exact weights of a uniform deal: seat by seat, ``hand now + cards played +
jokers buried by 扣王 - cards taken back`` is what the seat was dealt, and the number of deals
that give a seat the multiset ``D`` is proportional to ``1 / prod(D_k!)``. A dynamic programme
over the 54 kinds (state: the cards given so far to each hidden group) samples the hidden hands
from exactly that distribution, restricted by the voids that play showed (a seat that did not
follow a led suit or trump holds none of it now), by the kinds a 死棒 follow's shape says the
seat did not hold exactly 2, 3 or 4 times, by "no joker" where a seat let its 扣王 turn go by
and "a small joker" where it passed holding no big one (``_kou_bounds``), by "no big joker in
these slots" for the seats that were not asked to grab, and, with ``bidding="after_deal"``, by
"a big joker" / "none" for the seats asked / passed over after the deal
(``_View._after_deal_round``). The rest (the shape duty's other combinations, the grabber's
trump card, the dealer's big jokers before its grab, a 扣王 pass holding either joker) is left
to the replay's rejection; the order of the kitty flips is drawn among those that turn up as
the real flips did (``_flip_orders``).

Distribution: uniform over the consistent (deal, hidden choices) pairs. Hidden choices are the
dealer's burial when ``seat`` did not see it (drawn as a multiset, buried big jokers first, then
small, then the rest) and, for another seat building a follow, the steps it has taken so far
(dropped: the world stands at the start of that seat's follow, which ``seat`` cannot tell from
where it stands). Rejection from a proposal that is uniform over a superset of the consistent
pairs keeps it uniform.

Later hands (of a match, or an episode that starts from one: options ``dealer``, ``blood``):
a world is the first hand of a game with the same options that starts from the hand's match
situation (``dealer``, ``levels``, ``blood`` = the hand's; a match leaves as many hands to come:
``_later_game``), so ``world.game`` is that game and ``world.results`` is empty (the earlier
hands are history, public in ``state.results``). What a later hand adds:

- declarations: where another seat was asked because a card just dealt enabled a declaration
  (a level card raising its count of a suit above the standing rank, the fourth of a joker),
  that slot holds such a card, and no other slot does; each time the deal looked whether a seat
  could beat the standing declaration (the override round after a declaration, the round after
  the deal: ``_declare_checks`` rebuilds them from the public asks) the seat could exactly when
  it was asked. After the deal, the kinds (bounds on a seat's dealt count: at least what it
  showed; a seat passed over at the end holds no more of a level card than the standing rank
  and fewer than four of a joker) go into the programme, and each seat's level cards and jokers
  are put in its slots by a second programme over its slots (``_special_order``: uniform over
  the orders that give the same asks). During the deal, the special cards each seat was dealt
  so far are drawn first, exactly (``_deal_allocations``: per seat the number of orders that
  give its asks, times the ways to put the rest in the slots not dealt yet).
- the tribute: seen by the giver and the dealer (their cards are pinned); for the other two, the
  programme draws it as an extra group, in the tribute's order of kinds (strongest non-point
  first), with the rule that the giver kept no copy of a kind before the tribute was complete;
  a return the seat did not see (option ``tribute_return``) is another extra group, the
  dealer's choice of cards (a hidden choice, like the burial).
- the kitty: shown after a declaration (pinned, in any order) or drawn when nobody declared:
  the drawn cards lie where the world's own generator will draw them (``_kitty_draw``), the
  rest is hidden like the first hand's; while the dealer gives cards back it still lies there
  (a group of its own); 干锅 leaves it untouched.

Distribution in later hands: uniform over the consistent (deal, hidden choices) pairs too. The
programme over the kinds weighs a seat's dealt multiset by all its orders in the seat's slots;
the deal, only by those that give the seat its asks. So each seat's dealt cards are kept with
probability (the share of its level-card and joker placements that give its asks) / (the
largest such share): rejection whose acceptance is the missing weight (``_keep_orders``, with
the hidden hands; ``_arrange_later`` for the dealer's deal), exact; measured against
enumeration in docs/rules/dabang.md. Slow case: a return the seat
did not see adds two extra dimensions to the programme (a second or more per call at the
burial).

Covered: every position of every hand, every phase, every seat as viewer, every option
(``episode``, ``dealer``, ``blood`` incl. ``"random"``, ``levels``, ``follow``, ``bidding``,
``tribute_return``). A redeal in a later hand (a kitty of eight jokers nobody declared on) is not
modelled: its worlds are not found (``StateError``), about once in 10^9 hands.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from cardenv.core.cards import BIG_JOKER, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.core.checks import check_int
from cardenv.core.errors import IllegalActionError, StateError
from cardenv.core.worlds import check_sample_args
from cardenv.dabang import catalogue as cat
from cardenv.dabang import declare
from cardenv.dabang import kitty as kitty_rules
from cardenv.dabang.phase import Phase
from cardenv.dabang.phases import deal as deal_rules
from cardenv.dabang.phases.deal import DEALT
from cardenv.dabang.strength import SUIT_CLASS, level_rank, strength_row

KITTY = 8
JOKERS = (SMALL_JOKER, BIG_JOKER)
MAX_SEED = 2 ** 63 - 1

# The 死棒 duty [D-A7] (follow.py): a follower whose follow lies wholly in the led suit plays a
# shape at least as good as the best it can build with whole groups of identical cards (a [2]
# part from a kind held exactly twice, a [3] part from one held exactly three times, ...).
# So a follow of shape S rules out, for every kind of the led suit, being held (just before
# the follow) exactly these many times. Shapes that only rule out combinations of kinds
# ([2,1,1]: not two kinds held exactly twice; as its pair's kind was held exactly twice, no
# other kind was) are recorded with the kind they exempt.
_NOT_HELD = {(1, 1): {2}, (2, 1): {3}, (1, 1, 1): {2, 3}, (3, 1): {4}, (2, 2): {3, 4},
             (2, 1, 1): {3, 4}, (1, 1, 1, 1): {2, 3, 4}}


def sample_worlds(game, state, seat, n, rng, *, max_tries: int | None = None) -> list:
    """``n`` states that ``seat`` cannot tell from ``state`` (see the module docstring).

    ``max_tries`` bounds the proposals drawn (default ``1000 + 200 * n``); ``StateError`` if
    they run out first."""
    seat, n = check_sample_args(game, state, seat, n, rng)
    if max_tries is not None:
        max_tries = check_int(max_tries, "dabang.sample_worlds: max_tries", 0, 10 ** 9,
                              error=ValueError)
    if n == 0:
        return []
    proposal = _proposal(game, state, seat)
    proposal.drawn = []  # (the same rng gives the same worlds: nothing drawn with another)
    proposal.batch = min(256, max(16, 2 * n))
    worlds = []
    tries = 0
    limit = 1000 + 200 * n if max_tries is None else max_tries
    while len(worlds) < n:
        if tries >= limit:
            raise StateError(f"dabang.sample_worlds: found {len(worlds)} of {n} consistent "
                             f"worlds in {tries} proposals (max_tries={limit})")
        tries += 1
        world = proposal.world(rng)
        if world is not None:
            worlds.append(world)
    sample_worlds.last_tries = tries  # for the speed and acceptance measures
    return worlds


# --- later hands -------------------------------------------------------------------------------

_LATER_GAMES = {}  # options -> the game a later hand's worlds are states of


def _later_game(game, state):
    """The game whose first hand is ``state``'s hand: same options, but starting from its match
    situation (dealer, levels, blood owed); a match leaves as many hands to come."""
    opts = dict(game.options)
    opts.update(dealer=state.dealer, levels=tuple(state.levels), blood=state.blood_due)
    if opts["max_hands"] is not None:
        opts["max_hands"] -= len(state.results)
    key = tuple(sorted(opts.items()))
    if key not in _LATER_GAMES:
        _LATER_GAMES[key] = type(game)(**opts)
    return _LATER_GAMES[key]


def _declare_checks(decisions, start: int, over: bool) -> list[list[tuple[int, int, bool]]]:
    """Per seat, ``(cards dealt, standing rank, asked)`` each time the deal looked whether the
    seat could beat the standing declaration (``phases.deal.run``): a seat asked could, a seat
    passed over could not. Rebuilt from the public asks: after a declaration during the deal the
    other three seats in play order (until one declares), and after the deal round the table
    from the first seat until four seats in a row had nothing to declare or passed."""
    checks = [[] for _ in range(4)]
    floor, pending, pending_pos = 0, [], 0
    after, round_seat, quiet = False, start, 0

    def flush():
        for q in pending:
            checks[q].append((pending_pos, floor, False))
        pending.clear()

    for cur, why, pos, action in decisions:
        if why == "override":
            while pending and pending[0] != cur:
                checks[pending.pop(0)].append((pending_pos, floor, False))
            if pending:
                pending.pop(0)
            checks[cur].append((pending_pos, floor, True))
        else:
            flush()
            if why == "after deal":
                after = True
                while round_seat != cur:
                    checks[round_seat].append((DEALT, floor, False))
                    quiet += 1
                    round_seat = (round_seat + 1) % 4
                checks[cur].append((DEALT, floor, True))
                round_seat = (cur + 1) % 4
        if action is None:
            break
        if action != cat.PASS:
            floor = declare.rank_of(action)
            if after:
                quiet = 0
            else:
                pending, pending_pos = [(cur + i) % 4 for i in (1, 2, 3)], pos
        elif after:
            quiet += 1
    if over:
        flush()
        while quiet < 4:
            checks[round_seat].append((DEALT, floor, False))
            quiet += 1
            round_seat = (round_seat + 1) % 4
    return checks


def _could_declare(counts: np.ndarray, floor: int) -> np.ndarray:
    """Per row of ``counts`` (columns: the four level cards, the small and big joker), whether
    that holding makes a declaration above rank ``floor`` (``declare.legal``)."""
    out = (counts[:, :4] > floor).any(axis=1) if floor < 4 else np.zeros(len(counts), bool)
    if floor < 5:
        out |= counts[:, 4] == 4
    if floor < 6:
        out |= counts[:, 5] == 4
    return out


def _look(counts: np.ndarray, check) -> np.ndarray:
    """Per row of ``counts``, whether it meets a check: ``(pos, floor, asked, None)``: could
    beat rank ``floor`` exactly when asked; ``(pos, column, at_least, True)``: a declaration
    showed that many cards of that column."""
    if check[3]:
        return counts[:, check[1]] >= check[2]
    return _could_declare(counts, check[1]) == check[2]


def _enables(counts: np.ndarray, j: int, floor: int) -> np.ndarray:
    """Per row, whether one more card of special column ``j`` gives a new declaration."""
    new = counts[:, j] + 1
    if j < 4:
        return new > floor
    return (new == 4) & (floor < (5 if j == 4 else 6))


# --- what the seat has seen ---------------------------------------------------------------------

_CACHE: dict = {}  # recipe and seat -> _Proposal: a search asks again at the same position
_CACHE_SIZE = 8


def _proposal(game, state, seat) -> "_Proposal":
    """The proposal for ``seat`` at ``state``, built once per position (its recipe: options,
    seed, given deal, history) and kept for the next few calls."""
    key = (id(game), tuple(sorted(game.options.items())), state.seed, repr(state.given_deal),
           tuple(state.history), seat)
    proposal = _CACHE.pop(key, None)
    if proposal is None:
        proposal = _Proposal(_View(game, state, seat))
    _CACHE[key] = proposal  # (most recent last)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    return proposal


class _View:
    """What ``seat`` knows of the hand: its observation at every step, and the public facts the
    proposal uses, read from a replay of the state's recipe (only public fields and the seat's
    own are read from it)."""

    def __init__(self, game, state, seat):
        self.game, self.seat = game, seat
        self.first = state.first_hand
        history = list(state.history)
        replay = game.replay(state.seed, [], state.given_deal)
        if state.results:  # a later hand of a match: its actions follow the last hand's end
            for i, action in enumerate(history):
                replay.apply(action)
                if len(replay.results) == len(state.results):
                    history = history[i + 1:]
                    break
        self.world_game = game if self.first else _later_game(game, state)
        self.start = replay.start_seat
        self.obs = [replay.observation(seat)]
        self.bury_steps = []  # history indices of the dealer's burial
        self.asked = {}  # seat -> deal position (cards dealt) of its first grab ask
        self.grab_pos = None  # deal position when the grab was made
        self.voids = [set() for _ in range(4)]  # suit classes each seat was seen void in
        # per seat: (suit class, counts no kind of it was held in, cards played before) of
        # each follow that the 死棒 duty let through
        self.duty = [[] for _ in range(4)]
        dead = game.options["follow"] == "dead"
        self.kou = {}  # seat -> [turn opened, times asked, passed, cap at its turn]
        self.kou_seen = False  # a seat was asked for 扣王 (so the turns happened)
        # later hands: each declare decision (seat, why asked, cards dealt, action) and the
        # history indices of the dealer's tribute returns
        self.decisions = []
        self.return_steps = []
        # From the first play on, each step is a public play whose effect on ``seat``'s view
        # (its hand, the plays, the trick's winner and points, cards left, whose turn) follows
        # from the position's public part, the action and ``seat``'s cards: a world that
        # replays those steps legally shows ``seat`` the same views, so only the views before
        # it are compared step by step (the view now is compared in every world).
        self.first_play = None
        last_play_start = len(history)
        for i, action in enumerate(history):
            phase, cur = replay.phase, replay.current
            if phase is Phase.DECLARE:
                self.decisions.append((cur, replay.deal.ask_reason, replay.deal.pos, action))
                if self.first and replay.deal.ask_reason == "new card" and \
                        cur not in self.asked and replay.deal.decl == 0:
                    self.asked[cur] = replay.deal.pos
                if action == cat.GRAB:
                    self.grab_pos = replay.deal.pos
            elif phase is Phase.BURY:
                self.bury_steps.append(i)
            elif phase is Phase.RETURN:
                self.return_steps.append(i)
            elif phase is Phase.PLAY and self.first_play is None:
                self.first_play = i
            elif phase is Phase.KOUJOKER:
                self.kou_seen = True
                rec = self.kou.setdefault(cur, [True, 0, False, replay.kitty.kou_cap])
                rec[1] += 1
                rec[2] = rec[2] or action == cat.PASS
            if phase is Phase.PLAY and not replay.trick.partial:
                last_play_start = i  # a lead, or the first step of a follow
            played_before = replay.v["played"][cur].copy() if phase is Phase.PLAY else None
            led, led_k, left = replay.trick.led_kind, replay.trick.k, replay.cards_left[cur]
            replay.apply(action)
            if phase is Phase.PLAY and led >= 0 and replay.cards_left[cur] < left:
                play = replay.v["played"][cur] - played_before
                cls = SUIT_CLASS[replay.trump][replay.level - 3]
                kinds = np.flatnonzero(play).tolist()
                # a follow holding a card of another suit used up the led suit (the suit duty)
                if any(cls[k] != cls[led] for k in kinds):
                    self.voids[cur].add(int(cls[led]))
                elif dead and int(play.sum()) == led_k:
                    # the 死棒 duty: what the follow's shape says the seat did not hold
                    shape = tuple(sorted((int(play[k]) for k in kinds), reverse=True))
                    held = _NOT_HELD.get(shape)
                    if held:
                        self.duty[cur].append((int(cls[led]), held, played_before, -1))
                    if shape == (2, 1, 1):  # its pair's kind was held exactly twice, so no
                        pair = kinds[[int(play[k]) for k in kinds].index(2)]  # other was
                        self.duty[cur].append((int(cls[led]), {2}, played_before, pair))
            self.obs.append(replay.observation(seat))
        if replay.phase is Phase.DECLARE:
            self.decisions.append((replay.current, replay.deal.ask_reason, replay.deal.pos,
                                   None))  # asked now, not answered yet
            if self.first and replay.deal.ask_reason == "new card" and \
                    replay.current not in self.asked and replay.deal.decl == 0:
                self.asked[replay.current] = replay.deal.pos
        self._after_deal_round(game, replay)
        # another seat's follow in progress is hidden from ``seat``: the world stops before it
        self.keep = len(history)
        if state.phase is Phase.PLAY and state.trick.partial and state.current != seat:
            self.keep = last_play_start
        self.history = history
        if self.first_play is None:
            self.first_play = len(history)
        self.state = state
        self.to_act = state.current == seat
        self.mask = state.legal_mask() if self.to_act else None
        # public facts of the position now
        v = state.v
        self.dealer = state.dealer
        self.trump, self.level = state.trump, state.level
        self.pos = state.deal.pos
        self.cards_left = list(state.cards_left)
        self.played = v["played"].astype(np.int64)
        self.kou_kinds = np.zeros((4, NUM_KINDS), dtype=np.int64)
        self.kou_kinds[:, SMALL_JOKER] = v["koujoker_kinds"][:, 0]
        self.kou_kinds[:, BIG_JOKER] = v["koujoker_kinds"][:, 1]
        self.taken = v["taken_back"].astype(np.int64)
        self.revealed = v["kitty_revealed"].astype(np.int64)
        self.flip_jokers = v["flip_jokers"].tolist()
        self.grabbed = state.deal.decl == cat.GRAB
        self.bury_done = len(state.kitty.buried) == KITTY or state.phase not in (
            Phase.DECLARE, Phase.BURY)
        self.buried_n = len(self.bury_steps)
        # the seat's own cards, in deal order (and the kitty and burial if it is the dealer)
        deck = state.deal.deck
        self.own_slots = [p for p in range(min(self.pos, DEALT)) if (self.start + p) % 4 == seat]
        self.own_cards = [deck[p] for p in self.own_slots]
        self.is_dealer = self.dealer == seat and self.pos >= DEALT and \
            state.phase is not Phase.DECLARE
        # the kitty still lies untouched while the dealer gives back tribute cards
        self.kitty_lying = state.phase is Phase.RETURN
        self.gangguo = bool(state.gangguo)
        self.own_kitty = list(deck[DEALT:]) if self.is_dealer and not self.kitty_lying \
            else None
        self.own_burial = list(state.kitty.buried) if self.is_dealer else None
        self.burial_known = None  # the buried multiset, where every seat knows it
        if not self.is_dealer and self.bury_done and v["kitty_shown"][0] and \
                self.phase_after_bury():
            now = v["kitty_known"][seat].astype(np.int64)
            self.burial_known = now + self.taken.sum(axis=0) - self.kou_kinds.sum(axis=0)
        self._later_hand(state)

    def _after_deal_round(self, game, replay):
        """First hand, option ``bidding="after_deal"``: nobody is asked during the deal; after
        it, the seats are looked at in turn from the first seat until four in a row had nothing
        to declare, and a seat is asked exactly when it could grab (holds a big joker, while
        nobody has grabbed) [D-A1]. So of the seats looked at before the grab (all four when
        nobody grabbed), those asked hold a big joker and those passed over hold none:
        ``self.has_bj`` and ``self.no_bj``."""
        self.has_bj, self.no_bj = set(), set()
        if not self.first or game.options["bidding"] != "after_deal":
            return
        asks = [(cur, action) for cur, why, _, action in self.decisions if why == "after deal"]
        looked = self.start
        for cur, action in asks:
            while looked != cur:
                self.no_bj.add(looked)
                looked = (looked + 1) % 4
            self.has_bj.add(cur)
            looked = (looked + 1) % 4
            if action == cat.GRAB:
                return
        if replay.phase is not Phase.DECLARE:  # the round is over, nobody grabbed
            while len(self.has_bj) + len(self.no_bj) < 4:
                self.no_bj.add(looked)
                looked = (looked + 1) % 4

    def _later_hand(self, state):
        """A later hand's public facts: the kitty shown or drawn, the tribute (its cards where
        ``seat`` gave or took them), and what the declaration asks say of each seat's deal."""
        v, seat = state.v, self.seat
        self.kitty_public = self.grabbed or (not self.first and state.deal.decl != 0)
        self.tribute_n = int(v["tribute"][0])
        self.returned_n = int(v["returned"][0])
        self.blood = state.blood_due
        self.giver = None if self.dealer is None else (self.dealer - 1) % 4
        known = seat in (self.dealer, self.giver) and self.dealer is not None
        self.tribute_known = v["tribute_known"][seat].astype(np.int64) if known else None
        self.returned_known = v["returned_known"][seat].astype(np.int64) if known else None
        self.new_asks = [set() for _ in range(4)]  # deal slots whose card made a seat asked
        self.holds = [[] for _ in range(4)]
        self.floors = []  # (cards dealt, rank) at each declaration
        self.checks = [[] for _ in range(4)]  # (cards dealt, rank to beat, could beat it)
        self.shown = v["declared_cards"].astype(np.int64)
        if self.first:
            return
        self.holds = [[] for _ in range(4)]  # (cards dealt, column, at least) per declaration
        for cur, why, pos, action in self.decisions:
            if why == "new card":
                self.new_asks[cur].add(pos - 1)
            if action is not None and action != cat.PASS:
                self.floors.append((pos, declare.rank_of(action)))
                self.holds[cur].append((pos, *declare.shown(action)))
        self.checks = _declare_checks(self.decisions, self.start,
                                      state.phase is not Phase.DECLARE)

    def phase_after_bury(self) -> bool:
        return self.state.phase in (Phase.KOUJOKER, Phase.TAKEBACK, Phase.PLAY)


# --- the proposal ---------------------------------------------------------------------------

def _special_kinds(level: int) -> list[int]:
    """The cards a later hand's declarations count: the level card of each suit ♦♣♥♠, then
    the small and the big joker (the columns of ``observation.SHOWN``)."""
    base = level_rank(level) * 4
    return [base, base + 1, base + 2, base + 3, SMALL_JOKER, BIG_JOKER]


def _tribute_order(trump: int, level: int) -> list[int]:
    """The kinds in the order a tribute takes them (``kitty.tribute_cards``: strongest
    non-point first, ties by suit ♠ ♥ ♣ ♦), then the point kinds (never given)."""
    strength = strength_row(trump, level)
    kinds = sorted((k for k in range(NUM_KINDS) if not kitty_rules.is_point(k)),
                   key=lambda k: (-int(strength[k]), -(k % 4) if k < NUM_NATURAL else 0))
    return kinds + [k for k in range(NUM_KINDS) if kitty_rules.is_point(k)]


_LOG_FACT = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, DEALT + KITTY + 1)))])


def _shifted(table, held, strides, top, minus=None):
    """Per state ``x`` of a counts lattice (``held``: the counts of each state), the value of
    ``table`` at ``top - x`` (``top`` a counts vector, or one per state), 0 where that is
    negative; with ``minus``, at ``x - minus`` instead (``top`` unused there)."""
    diff = (held - minus) if minus is not None else (top - held)
    ok = (diff >= 0).all(axis=1)
    out = np.zeros(len(held))
    out[ok] = table[diff[ok] @ strides]
    return out


def _kitty_draw(seed: int) -> list[int]:
    """The order a later hand's kitty draw looks at the kitty cards when nobody declared
    (``phases.deal.reveal``): the first draw of the world's generator, as the engine makes it
    (a world's game draws nothing before it: its levels, dealer and blood are options)."""
    return np.random.default_rng(seed).permutation(KITTY).tolist()


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    return [c for c in itertools.product(range(total + 1), repeat=parts) if sum(c) == total]


class _Proposal:
    """Draws candidate worlds for a ``_View`` and keeps those that replay to the same view."""

    def __init__(self, view: _View):
        self.view = view
        self.drawn = []  # hidden hands drawn ahead (``_hands``); emptied at each call
        self.batch = 16
        self.seat_slots = [[p for p in range(DEALT) if (view.start + p) % 4 == s]
                           for s in range(4)]
        self.dealing = view.pos < DEALT or view.dealer is None or \
            view.state.phase is Phase.DECLARE
        self.special = None if view.first else _special_kinds(view.level)
        self._orders = {}  # (seat, slots) -> _forward_slots
        self._shares = {}  # (seat, slots) -> _order_share
        self._raw = {}  # (seat, slots) -> _raw_share
        self._joint = None  # during a later hand's deal: _deal_allocations
        self._flips = None  # the first hand's flip orders that fit (``_flip_orders``)
        self._bj_rules()
        if not self.dealing:
            self._groups()

    # the big-joker slots: pinned where a seat was asked to grab, forbidden before that
    def _bj_rules(self):
        v = self.view
        limit = v.grab_pos if v.grab_pos is not None else v.pos
        if v.game.options["bidding"] == "after_deal":
            limit = 0  # no ask during the deal: the replay checks the after-deal asks
        self.pinned_bj = {}  # seat -> slot holding its first big joker
        self.forbid_below = {}  # seat -> slots before this position hold no big joker
        for s in range(4 if v.first else 0):  # (a later hand has no grab)
            if s == v.seat:
                continue
            if s in v.asked:
                self.pinned_bj[s] = v.asked[s] - 1
                self.forbid_below[s] = v.asked[s] - 1
            else:
                self.forbid_below[s] = DEALT if s in v.no_bj else limit

    # --- during the deal: a uniform deal with the big-joker rules, no programme needed -------
    def _deal_phase_deck(self, rng) -> list[int]:
        v = self.view
        deck = [-1] * (DEALT + KITTY)
        pool = np.full(NUM_KINDS, 4, dtype=np.int64)
        for p, c in zip(v.own_slots, v.own_cards):
            deck[p] = c
            pool[c] -= 1
        for s, p in self.pinned_bj.items():
            deck[p] = BIG_JOKER
            pool[BIG_JOKER] -= 1
        free = [p for p in range(DEALT + KITTY) if deck[p] < 0]
        allowed = [p for p in free if not (p < v.pos and p < DEALT and
                                           p < self.forbid_below.get((v.start + p) % 4, 0))]
        bj = int(pool[BIG_JOKER])
        if bj > len(allowed):
            return None
        for p in rng.choice(allowed, size=bj, replace=False).tolist() if bj else []:
            deck[p] = BIG_JOKER
        pool[BIG_JOKER] = 0
        rest = np.repeat(np.arange(NUM_KINDS), pool)
        rng.shuffle(rest)
        slots = [p for p in free if deck[p] < 0]
        for p, c in zip(slots, rest.tolist()):
            deck[p] = c
        return deck

    # --- during a later hand's deal: the level cards and jokers first -------------------------
    def _later_deal_deck(self, rng) -> list[int] | None:
        """A deck for a later hand still being dealt (or declared on): the special cards (level
        cards, jokers) each other seat was dealt so far are drawn first, exactly in proportion
        to the number of deals whose asks match (``_deal_allocations``), and put where the asks
        say (``_special_order``); the rest of the unseen cards are shuffled into the free
        slots, the special ones only into the slots not dealt yet."""
        v = self.view
        if self._joint is None:
            self._joint = self._deal_allocations()
        seats, slot_lists, tables, held, strides, rest_w, unseen = self._joint
        v1, v2, v3, w12 = tables
        # the third seat's count, then the first two's together, then the first's
        g = self._pick(rng, v3 * self._joint_g)
        t = self._pick(rng, w12 * _shifted(rest_w, held, strides, unseen - held[g]))
        a = self._pick(rng, v1 * _shifted(v2, held, strides, held[t]))
        chosen = [held[a], held[t] - held[a], held[g]]
        deck = [-1] * (DEALT + KITTY)
        pool = np.full(NUM_KINDS, 4, dtype=np.int64)
        for p, c in zip(v.own_slots, v.own_cards):
            deck[p] = c
            pool[c] -= 1
        spec = self.special
        for s, slots, counts in zip(seats, slot_lists, chosen):
            order = self._special_order(s, slots, counts, rng)
            if order is None:
                return None
            for p, j in zip(slots, order):
                if j >= 0:
                    deck[p] = spec[j]
        rest = np.repeat(spec, unseen - held[t] - held[g]).tolist()
        rng.shuffle(rest)
        undealt = list(range(v.pos, DEALT + KITTY))
        for p, c in zip(rng.choice(undealt, size=len(rest), replace=False).tolist(), rest):
            deck[p] = c
        pool[spec] = 0
        others = np.repeat(np.arange(NUM_KINDS), pool)
        rng.shuffle(others)
        it = iter(others.tolist())
        return [c if c >= 0 else next(it) for c in deck]

    @staticmethod
    def _pick(rng, weights) -> int:
        cum = np.cumsum(weights)
        return min(int(np.searchsorted(cum, rng.random() * cum[-1], side="right")),
                   len(cum) - 1)

    def _deal_allocations(self):
        """The tables to share the unseen special cards among the other seats' dealt slots and
        the slots not dealt yet, in proportion to the number of deals: per seat the number of
        orders that ask it as it was asked (the slot programme's final table, over its counts),
        and the ways to put the rest in the slots not dealt yet."""
        v = self.view
        unseen = self._unseen_special()
        seats = [s for s in range(4) if s != v.seat]
        slot_lists, ways = [], []
        for s in seats:
            slots = [p for p in self.seat_slots[s] if p < v.pos]
            slot_lists.append(slots)
            key = (s, tuple(slots))
            if key not in self._orders:
                self._orders[key] = self._forward_slots(s, slots, unseen)
            _, held, strides, _, final, _ = self._orders[key]
            ways.append(final)
        undealt = DEALT + KITTY - v.pos
        placed = held.sum(axis=1)
        log_rest = _LOG_FACT[undealt] - _LOG_FACT[held].sum(axis=1) - \
            _LOG_FACT[np.maximum(undealt - placed, 0)]
        rest_w = np.where(placed <= undealt, np.exp(log_rest - log_rest.max()), 0.0)
        v1, v2, v3 = ways
        w12 = np.zeros(len(held))
        for a in np.flatnonzero(v1).tolist():
            w12 += v1[a] * _shifted(v2, held, strides, held, minus=held[a])
        # per count of the third seat: the weight of everything else
        self._joint_g = np.zeros(len(held))
        for g in np.flatnonzero(v3).tolist():
            self._joint_g[g] = (w12 * _shifted(rest_w, held, strides, unseen - held[g])).sum()
        if not (v3 * self._joint_g).any():
            raise StateError("dabang.sample_worlds: no deal is consistent with what the seat "
                             "has seen (internal error)")
        return seats, slot_lists, (v1, v2, v3, w12), held, strides, rest_w, unseen

    # --- after the reveal: the hidden hands by a programme over the kinds ---------------------
    def _groups(self):
        v = self.view
        seat, dealer = v.seat, v.dealer
        cls = SUIT_CLASS[v.trump][v.level - 3]
        self.cls = cls
        self.others = [s for s in range(4) if s not in (seat, dealer)]
        zero = np.zeros(NUM_KINDS, dtype=np.int64)
        # the tribute and its return: known to the giver and the dealer, drawn for the others
        tribute = v.tribute_known if v.tribute_known is not None else zero
        returned = v.returned_known if v.returned_known is not None else zero
        self.tribute, self.returned = tribute, returned
        # groups that share the unseen cards: each other non-dealer's hand now, then (seat not
        # the dealer) the dealer's hand now and its hidden burial, and the kitty's hidden part
        # while it lies untouched; then the extra groups, cards counted in those already: a
        # tribute and a return ``seat`` did not see
        self.group_kind = [("hand", s) for s in self.others]
        if not v.is_dealer:
            self.group_kind.append(("dealer", dealer))
            if v.burial_known is None and not v.kitty_lying:
                self.group_kind.append(("burial", dealer))
        self.kitty_known = np.bincount(v.own_kitty, minlength=NUM_KINDS) \
            if v.own_kitty is not None else self._public_kitty()
        kitty_hidden = KITTY - int(self.kitty_known.sum())
        if v.kitty_lying and kitty_hidden:
            self.group_kind.append(("kitty", None))
        sizes = {"burial": v.buried_n, "kitty": kitty_hidden}
        # the largest group last: its count follows from the others', so the programme's
        # state is smallest that way
        self.group_kind.sort(key=lambda g: sizes[g[0]] if g[0] in sizes else v.cards_left[g[1]])
        self.parts = len(self.group_kind)
        if v.tribute_n and v.tribute_known is None:
            self.group_kind.append(("tribute", v.giver))
        if v.returned_n and v.returned_known is None:
            self.group_kind.append(("returned", v.giver))
        sizes.update(tribute=v.tribute_n, returned=v.returned_n)
        self.caps = [sizes[kind] if kind in sizes else v.cards_left[s]
                     for kind, s in self.group_kind]
        # what each seat was certainly dealt beyond its hand now
        self.fixed = {s: v.played[s] + v.kou_kinds[s] - v.taken[s] for s in self.others}
        if v.giver in self.fixed:
            self.fixed[v.giver] = self.fixed[v.giver] + tribute - returned
        no_jokers = set()
        for s in self._kou_turns_over():
            opened, asked, passed, cap = v.kou.get(s, [True, 0, False, None])
            buried = int(v.kou_kinds[s].sum())
            if not asked:
                cap = self._kou_cap(s)
            if not passed and cap is not None and buried < cap:
                no_jokers.add(s)  # it stopped burying jokers with room left: it held no more
        self.no_jokers = no_jokers
        # the dealer's 60 (its deal and the kitty) = played + burial + hand now - tribute
        # + returned
        pool = np.full(NUM_KINDS, 4, dtype=np.int64)
        for c in v.own_cards:
            pool[c] -= 1
        if v.is_dealer:
            pool -= self.kitty_known
        else:
            pool -= v.played[dealer]
            if v.burial_known is not None:
                pool -= v.burial_known
            if v.kitty_lying:
                pool -= self.kitty_known
            if seat == v.giver:
                pool += tribute - returned
        for s in self.others:
            pool -= self.fixed[s]
        self.pool = pool
        if (pool < 0).any() or pool.sum() != sum(self.caps[:self.parts]):
            raise StateError("dabang.sample_worlds: the position's public cards do not add up "
                             "(internal error)")
        self.dealer_fixed = None if v.is_dealer else (
            v.played[dealer] + (v.burial_known if v.burial_known is not None else 0)
            - (0 if v.kitty_lying else self.kitty_known) - self._pin_vector(dealer)
            - tribute + returned)
        self._bounds()
        # A grabber's trump is the suit of the first suited card it is dealt after grabbing: when
        # the seat did not grab, the programme chooses that card (any natural of the trump suit
        # in the dealer's deal) and the dealer's arrangement puts it in place. Exact only when
        # the dealer had more deal slots after the grab than there are jokers (it then surely
        # got a suited card before the kitty could decide); else the replay checks the trump.
        self.pick = False
        if not v.is_dealer and v.grabbed and v.grab_pos is not None and v.grab_pos < DEALT:
            after = [p for p in self.seat_slots[dealer] if p >= v.grab_pos]
            self.pick = len(after) > 2 * 4  # the eight jokers
        # The dealer's big jokers outside its grab slot lie in the slots it was not asked in:
        # weighed and placed like another seat's when the whole kitty is known, as after a grab
        # (otherwise the kitty's hidden part shares the jokers, and the replay checks them).
        self.dealer_slots = None
        if v.first and not v.is_dealer and int(self.kitty_known.sum()) == KITTY:
            free = [p for p in self.seat_slots[dealer] if p != self.pinned_bj.get(dealer)]
            low = self.forbid_below.get(dealer, 0)
            self.dealer_slots = (len(free), sum(1 for p in free if p >= low))
        self._programme()

    def _bounds(self):
        """Later hands: bounds on each seat's dealt count of a kind, and the tribute's order.

        A seat dealt at least the level cards and jokers it showed in declarations; a seat
        passed over when the deal ended could not beat the standing declaration (no more level
        cards of a suit than its rank, fewer than four of a joker). The tribute is the giver's
        strongest non-point cards: it kept none stronger than the weakest it gave."""
        v = self.view
        self.lo = np.zeros((4, NUM_KINDS), dtype=np.int64)
        self.hi = np.full((4, NUM_KINDS), 4, dtype=np.int64)
        self.order = list(range(NUM_KINDS))
        self.trank = None
        for s in v.has_bj - {v.seat}:  # asked after the deal: it could grab
            self.lo[s, BIG_JOKER] = 1
        for s in v.no_bj - {v.seat}:
            self.hi[s, BIG_JOKER] = 0
        self._kou_bounds()
        if v.first:
            return
        self.special = _special_kinds(v.level)
        for s in range(4):
            self.lo[s, self.special] = v.shown[s]
            for pos, floor, asked in v.checks[s]:
                if pos == DEALT and not asked:
                    if floor < 4:
                        self.hi[s, self.special[:4]] = np.minimum(
                            self.hi[s, self.special[:4]], floor)
                    if floor < 5:
                        self.hi[s, SMALL_JOKER] = min(self.hi[s, SMALL_JOKER], 3)
                    if floor < 6:
                        self.hi[s, BIG_JOKER] = min(self.hi[s, BIG_JOKER], 3)
        # the counts of special cards an order of the seat's deal can give it (its asks)
        unseen = self._unseen_special()
        for s in range(4):
            if s == v.seat:
                continue
            slots = self.seat_slots[s]
            key = (s, tuple(slots))
            if key not in self._orders:
                self._orders[key] = self._forward_slots(s, slots, unseen)
            held, final = self._orders[key][1], self._orders[key][4]
            fits = held[final > 0]
            if len(fits):
                self.lo[s, self.special] = np.maximum(self.lo[s, self.special], fits.min(axis=0))
                self.hi[s, self.special] = np.minimum(self.hi[s, self.special], fits.max(axis=0))
        if v.tribute_n:
            order = _tribute_order(v.trump, v.level)
            self.trank = {k: i for i, k in enumerate(order)}
            if v.tribute_known is None:
                self.order = order  # the programme fills the tribute strongest first
            self.t_last = max(self.trank[k] for k in np.flatnonzero(self.tribute).tolist()) \
                if v.tribute_known is not None else None

    def _kou_bounds(self):
        """What each seat's 扣王 turn says of its dealt jokers. A seat buries its big jokers
        before any small one (``burial.legal_koujoker``): one that buried a small joker held
        no more big jokers than it buried. A seat asked holds a joker, so one that passed still
        held one: a small one, when it held no big one. What it held at its turn is its deal
        less the tribute it gave plus the cards given back: for the giver, only where ``seat``
        saw them (else left to the replay)."""
        v = self.view
        for s, (_, asked, passed, _) in v.kou.items():
            if s in (v.seat, v.dealer):
                continue
            shift = np.zeros(NUM_KINDS, dtype=np.int64)  # dealt - held at its turn
            if s == v.giver and v.tribute_n:
                if v.tribute_known is None:
                    continue
                shift = v.tribute_known - v.returned_known
            buried = v.kou_kinds[s] + shift
            if v.kou_kinds[s, SMALL_JOKER]:
                self.hi[s, BIG_JOKER] = min(self.hi[s, BIG_JOKER], buried[BIG_JOKER])
            if asked and passed and self.hi[s, BIG_JOKER] <= buried[BIG_JOKER]:
                self.lo[s, SMALL_JOKER] = max(self.lo[s, SMALL_JOKER],
                                              buried[SMALL_JOKER] + 1)

    def _kou_turns_over(self) -> list[int]:
        """The seats whose 扣王 turn is over, where every seat knows the turns took place."""
        v = self.view
        state = v.state
        if v.gangguo:  # the kitty was never taken up: nothing buried, no 扣王
            return []
        if v.is_dealer or v.burial_known is not None:
            buried = v.own_burial if v.is_dealer else self._flat(v.burial_known)
            allowed = kitty_rules.koujoker_allowed(buried) if v.bury_done else False
        else:
            allowed = v.kou_seen
        if not allowed:
            return []
        order = [(v.dealer + i) % 4 for i in (1, 2, 3)]
        if state.phase in (Phase.KOUJOKER, Phase.TAKEBACK):
            order = order[:order.index(state.kitty.kou_seats[0])]
        elif state.phase is not Phase.PLAY:
            return []
        return [s for s in order if s != v.seat]

    def _kou_cap(self, s) -> int:
        """The 扣王 cap at seat ``s``'s turn (at least 1 while the burial is unseen: 扣王 is
        allowed only after a burial holding a non-point card)."""
        v = self.view
        if v.burial_known is None and not v.is_dealer:
            return 1
        pile = np.array(v.burial_known if not v.is_dealer else
                        np.bincount(v.own_burial, minlength=NUM_KINDS))
        for t in ((v.dealer + i) % 4 for i in (1, 2, 3)):
            if t == s:
                break
            pile = pile + v.kou_kinds[t] - v.taken[t]
        return kitty_rules.koujoker_cap(self._flat(pile))

    def _pin_vector(self, s) -> np.ndarray:
        pin = np.zeros(NUM_KINDS, dtype=np.int64)
        if s in self.pinned_bj:
            pin[BIG_JOKER] = 1
        return pin

    def _public_kitty(self) -> np.ndarray:
        """The kitty cards every seat saw: all of it after a grab, the flips otherwise."""
        v = self.view
        counts = v.revealed.copy()
        counts[SMALL_JOKER] += v.flip_jokers[0]
        counts[BIG_JOKER] += v.flip_jokers[1]
        return counts

    def _weight(self, k: int, alloc: tuple, pick: int = 0) -> tuple[float, bool]:
        """The weight of giving the unseen copies of kind ``k`` to the groups as ``alloc`` says
        (and, with ``pick``, the trump-naming card), and whether it needs the hidden tribute
        to be complete once ``k`` is given (the giver kept a copy of ``k``)."""
        v, cls = self.view, self.cls
        got = dict(zip(self.group_kind, alloc))
        t = got.get(("tribute", v.giver), 0)
        r = got.get(("returned", v.giver), 0)
        if t and kitty_rules.is_point(k):
            return 0.0, False  # the tribute is non-point cards
        w, full = 1.0, False
        dealer_count = None
        if ("dealer", v.dealer) in got:
            dealer_count = int(self.dealer_fixed[k]) + got["dealer", v.dealer] - t + r \
                + got.get(("burial", v.dealer), 0)
        for (kind, s), a in zip(self.group_kind, alloc):
            if kind in ("hand", "dealer") and any(
                    cls[k] == c and k != other and a + int(v.played[s][k] - before[k]) in held
                    for c, held, before, other in v.duty[s]):
                return 0.0, False
            if kind == "hand":
                if a and (cls[k] in v.voids[s] or (k >= NUM_NATURAL and s in self.no_jokers)):
                    return 0.0, False
                dealt = int(self.fixed[s][k]) + a + (t - r if s == v.giver else 0)
                if not self.lo[s, k] <= dealt <= self.hi[s, k]:
                    return 0.0, False
                if s == v.giver and self.trank is not None and not kitty_rules.is_point(k) \
                        and dealt - t - int(self.tribute[k]) > 0:
                    # the giver kept a copy of k: the tribute took none weaker, and it was full
                    if v.tribute_n < v.blood:
                        return 0.0, False
                    if v.tribute_known is None:
                        full = True
                    elif self.trank[k] < self.t_last:
                        return 0.0, False
                free = dealt - (1 if k == BIG_JOKER and s in self.pinned_bj else 0)
                if free < 0:
                    return 0.0, False
                w /= math.factorial(free)
                if k == BIG_JOKER and free:
                    slots = 52 - (1 if s in self.pinned_bj else 0)
                    allowed = sum(1 for p in self.seat_slots[s]
                                  if p >= self.forbid_below.get(s, 0)
                                  and p != self.pinned_bj.get(s))
                    w *= math.comb(allowed, free) / math.comb(slots, free)
            elif kind == "dealer":
                if a and cls[k] in v.voids[s]:
                    return 0.0, False
            elif kind == "burial":  # a complete hidden burial buried no joker (it would show)
                if a and k >= NUM_NATURAL and v.bury_done:
                    return 0.0, False
            elif kind == "kitty":  # the kitty's hidden part, lying untouched
                w /= math.factorial(a)
        if dealer_count is not None:
            dealer_count -= pick  # the trump-naming card has its own slot
            if dealer_count < 0 or dealer_count < self.lo[v.dealer, k]:
                return 0.0, False
            # (the count holds the kitty's hidden part too unless all of it is known)
            if (v.kitty_lying or int(self.kitty_known.sum()) == KITTY) and \
                    dealer_count > self.hi[v.dealer, k]:
                return 0.0, False
            w /= math.factorial(dealer_count)
            if k == BIG_JOKER and dealer_count and self.dealer_slots is not None:
                slots, allowed = self.dealer_slots
                w *= math.comb(allowed, dealer_count) / math.comb(slots, dealer_count)
        return w, full

    def _programme(self):
        """The forward tables of the programme over the kinds (in ``self.order``). Its state:
        the cards given so far to each sharing group but the last (whose count follows from the
        pool), to each extra group, and, with ``self.pick``, whether the dealer's trump-naming
        card has been chosen yet."""
        caps, pool, parts = self.caps, self.pool, self.parts
        picks = (0, 1) if self.pick else (0,)
        extra = [range(min(4, c) + 1) for c in caps[parts:]]
        self.table, self.fulls = [], []  # per kind in order: [(head, weight)], [needs full]
        for k in self.order:
            keep, fulls = [], []
            for a in _compositions(int(pool[k]), parts):
                if any(x > c for x, c in zip(a, caps)):
                    continue
                for e in itertools.product(*extra):
                    for p in picks:
                        if p and not (k < NUM_NATURAL and k % 4 == self.view.trump):
                            continue
                        w, full = self._weight(k, a + e, p)
                        if w > 0:
                            keep.append((a[:-1] + e + ((p,) if self.pick else ()), w))
                            fulls.append(full)
            if not keep:
                raise StateError("dabang.sample_worlds: no deal is consistent with what the "
                                 "seat has seen (internal error)")
            self.table.append(keep)
            self.fulls.append(fulls)
        dims = list(caps[:parts - 1]) + list(caps[parts:]) + ([1] if self.pick else [])
        self.dims = dims
        # the hidden tribute's dimension (its groups come first among the extras)
        self.t_dim = parts - 1 if ("tribute", self.view.giver) in self.group_kind[parts:] \
            else None
        shape = tuple(c + 1 for c in dims)
        index_sum = np.zeros(shape, dtype=np.int64)
        for d, c in enumerate(caps[:parts - 1]):
            index_sum = index_sum + np.arange(c + 1).reshape(
                [-1 if i == d else 1 for i in range(len(shape))])
        f = np.zeros(shape)
        f[(0,) * len(shape)] = 1.0
        self.forward = [f]
        cumulative = 0
        for i, k in enumerate(self.order):
            cumulative += int(pool[k])
            new = np.zeros(shape)
            for (head, w), full in zip(self.table[i], self.fulls[i]):
                src = [slice(0, c + 1 - x) for c, x in zip(dims, head)]
                dst = [slice(x, c + 1) for c, x in zip(dims, head)]
                if full:  # only into states where the tribute is complete
                    j, cap = self.t_dim, dims[self.t_dim]
                    src[j], dst[j] = slice(cap - head[j], cap - head[j] + 1), slice(cap, cap + 1)
                new[tuple(dst)] += w * f[tuple(src)]
            last = cumulative - index_sum
            new[(last < 0) | (last > caps[parts - 1])] = 0.0
            total = new.sum()
            if total <= 0:
                raise StateError("dabang.sample_worlds: no deal is consistent with what the "
                                 "seat has seen (internal error)")
            f = new / total
            self.forward.append(f)
        if f[tuple(dims)] <= 0:
            raise StateError("dabang.sample_worlds: no deal is consistent with what the seat "
                             "has seen (internal error)")

    def _hands(self, rng) -> tuple[list[np.ndarray], int | None]:
        """One draw of each group's cards (count vectors) and of the dealer's trump-naming
        card (``None`` without ``self.pick``), exactly from the programme. Drawn ``self.batch``
        at a time (``_draw_hands``, vectorized over the draws), kept for the next calls."""
        if not self.drawn:
            self.drawn = self._draw_hands(rng, self.batch)
            if not self.view.first and 4 * len(self.drawn) < self.batch:
                self.batch = min(4 * self.batch, 1024)  # (few kept: draw more at a time)
            if not self.drawn:  # (a later hand's batch, none kept: ``_keep_orders``)
                return None
        return self.drawn.pop()

    def _draw_hands(self, rng, m: int) -> list[tuple[list[np.ndarray], int | None]]:
        caps, pool, parts = self.caps, self.pool, self.parts
        if not hasattr(self, "heads"):  # the tables as arrays, for a vectorized draw
            self.heads = [np.array([h for h, _ in t], dtype=np.int64).reshape(len(t), -1)
                          for t in self.table]
            self.weights = [np.array([w for _, w in t]) for t in self.table]
            self.full_rows = [np.array(f, dtype=bool) for f in self.fulls]
        dims = np.array(self.dims, dtype=np.int64)
        u = np.tile(dims, (m, 1))
        width = len(dims)
        out = np.zeros((m, len(caps), NUM_KINDS), dtype=np.int64)
        picked = np.full(m, -1)
        for i in range(len(self.order) - 1, -1, -1):
            k = self.order[i]
            heads = self.heads[i]
            if len(heads) == 1:  # one way only (e.g. no unseen copy): no draw
                head = np.tile(heads[0], (m, 1))
            else:
                prev = u[:, None, :] - heads[None, :, :]
                ok = (prev >= 0).all(axis=2)
                if self.t_dim is not None:
                    ok &= ~(self.full_rows[i][None, :] &
                            (u[:, self.t_dim] != dims[self.t_dim])[:, None])
                p = np.zeros(ok.shape)
                rows, cols = np.nonzero(ok)
                p[rows, cols] = self.forward[i][tuple(prev[rows, cols].T)] * \
                    self.weights[i][cols]
                cum = np.cumsum(p, axis=1)
                r = rng.random(m) * cum[:, -1]
                j = np.minimum((cum <= r[:, None]).sum(axis=1), len(heads) - 1)
                head = heads[j]
            if width:
                out[:, :parts - 1, k] = head[:, :parts - 1]
                out[:, parts:, k] = head[:, parts - 1:parts - 1 + len(caps) - parts]
            out[:, parts - 1, k] = int(pool[k]) - head[:, :parts - 1].sum(axis=1)
            if self.pick:
                picked[head[:, -1] > 0] = k
            u = u - head
        keep = np.ones(m, dtype=bool) if self.view.first else self._keep_orders(out, rng)
        return [(list(out[w]), None if picked[w] < 0 else int(picked[w]))
                for w in range(m - 1, -1, -1) if keep[w]]

    def _keep_orders(self, out: np.ndarray, rng) -> np.ndarray:
        """Per draw of a later hand's groups (``out``: draws x groups x kinds), whether it is
        kept: with probability the product over the other non-dealer seats of ``share / top``
        for the level cards and jokers the draw deals the seat (``_order_share``: the weight
        the programme over the kinds leaves out). The dealer's is weighed in
        ``_arrange_later``, once its deal is known."""
        spec = self.special
        col = {group: i for i, group in enumerate(self.group_kind)}
        accept = np.ones(len(out))
        for i, (kind, s) in enumerate(self.group_kind):
            if kind != "hand":
                continue
            dealt = self.fixed[s][spec] + out[:, i, spec]
            if ("tribute", s) in col:
                dealt = dealt + out[:, col["tribute", s], spec]
            if ("returned", s) in col:
                dealt = dealt - out[:, col["returned", s], spec]
            share, top = self._order_share(s, self.seat_slots[s])
            held, strides = self._orders[s, tuple(self.seat_slots[s])][1:3]
            ok = (dealt >= 0).all(axis=1) & (dealt <= held[-1]).all(axis=1)
            weight = np.zeros(len(out))
            weight[ok] = share[dealt[ok] @ strides] / top
            accept *= weight
        return rng.random(len(out)) < accept

    # --- building the deck ------------------------------------------------------------------
    def _arrange(self, deck, s, cards: np.ndarray, rng) -> bool:
        """Put ``cards`` (counts) in seat ``s``'s deal slots not yet filled: free big jokers in
        the allowed slots, the rest shuffled. False if they do not fit the rules."""
        slots = [p for p in self.seat_slots[s] if deck[p] < 0]
        bj = int(cards[BIG_JOKER])
        allowed = [p for p in slots if p >= self.forbid_below.get(s, 0)]
        if bj > len(allowed):
            return False
        cards = cards.copy()
        if bj:
            for p in rng.choice(allowed, size=bj, replace=False).tolist():
                deck[p] = BIG_JOKER
            cards[BIG_JOKER] = 0
        rest = np.repeat(np.arange(NUM_KINDS), cards)
        rng.shuffle(rest)
        slots = [p for p in slots if deck[p] < 0]
        if len(slots) != len(rest):
            return False
        for p, c in zip(slots, rest.tolist()):
            deck[p] = c
        return True

    def _kitty_order(self, rng, known: np.ndarray, hidden: list[int],
                     seed: int) -> list[int] | None:
        """The dealt kitty's order: the public part where the flips, the grab or the draw put
        it, the hidden part in the other places at random."""
        v = self.view
        if v.kitty_public:
            cards = np.repeat(np.arange(NUM_KINDS), known).tolist() + hidden
            rng.shuffle(cards)
            return cards
        if not v.first:  # the draw: the world's seed decides the order it looks at the kitty
            drawn = np.repeat(np.arange(NUM_KINDS), v.revealed).tolist()
            jokers = [c for c in drawn if c >= NUM_NATURAL]
            suited = [c for c in drawn if c < NUM_NATURAL]
            if len(suited) != 1:
                return None
            rng.shuffle(jokers)
            cards = [-1] * KITTY
            for i, c in zip(_kitty_draw(seed), jokers + suited):
                cards[i] = c
            rest = list(hidden)
            rng.shuffle(rest)
            it = iter(rest)
            return [c if c >= 0 else next(it) for c in cards]
        passed = [SMALL_JOKER] * v.flip_jokers[0] + [BIG_JOKER] * v.flip_jokers[1]
        rng.shuffle(passed)
        if self._flips is None:
            self._flips = self._flip_orders(passed)
        if not self._flips:
            return None
        flipped, found = self._flips[rng.integers(len(self._flips))]
        rest = list(hidden)
        rng.shuffle(rest)
        return flipped + passed + found + rest

    def _flip_orders(self, passed) -> list[tuple[list[int], list[int]]]:
        """The orders of the cards the first hand's flips showed (the four flips, then the
        suited card found after them, if any) that the flips turn up as they did
        (``phases.deal.flip``: the same dealer, trump, cards shown and jokers passed; the
        earliest of equal flips wins). The kitty draws one uniformly: what rejection by the
        replay would leave of a uniform order, without the replays (ties among the flips made
        most proposals fail there). Whether an order fits does not depend on the hidden kitty
        cards after them (here naturals): the flips never reach one in a world that fits, and
        where ``flip`` counts the jokers among them (a natural won the flips: every card after
        the flips is "passed") the replay checks that count for every order alike."""
        v = self.view
        revealed = np.repeat(np.arange(NUM_KINDS), v.revealed).tolist()
        fill = [0] * (KITTY - len(revealed) - len(passed))  # (a natural: a reach shows it)
        out = []
        for order in sorted(set(itertools.permutations(revealed))):
            flipped, found = list(order[:4]), list(order[4:])
            got = deal_rules.flip(flipped + passed + found + fill, v.start)
            if got is not None and got[0] == v.dealer and got[1] == v.trump and \
                    sorted(got[2]) == revealed and \
                    deal_rules.flip_jokers(got[3]) == list(v.flip_jokers):
                out.append((flipped, found))
        return out

    def world(self, rng):
        v = self.view
        seed = int(rng.integers(MAX_SEED))
        if self.dealing:
            deck = self._deal_phase_deck(rng) if v.first else self._later_deal_deck(rng)
            history = v.history[:v.keep]
        else:
            built = self._post_deal_deck(rng, seed)
            if built is None:
                return None
            deck, history = built
        if deck is None:
            return None
        return self._replayed(seed, deck, history)

    def _post_deal_deck(self, rng, seed):
        v = self.view
        drawn = self._hands(rng)
        if drawn is None:
            return None
        hands, picked = drawn
        zero = np.zeros(NUM_KINDS, dtype=np.int64)
        g = {kind: cards for (kind, s), cards in zip(self.group_kind, hands)}
        hidden_t, hidden_r = g.get("tribute", zero), g.get("returned", zero)
        deck = [-1] * (DEALT + KITTY)
        for p, c in zip(v.own_slots, v.own_cards):
            deck[p] = c
        for s, p in self.pinned_bj.items():
            deck[p] = BIG_JOKER
        arrange = self._arrange if v.first else self._arrange_kept
        for (kind, s), cards in zip(self.group_kind, hands):
            if kind == "hand":
                dealt = self.fixed[s] + cards - self._pin_vector(s)
                if s == v.giver:
                    dealt = dealt + hidden_t - hidden_r
                if (dealt < 0).any() or not arrange(deck, s, dealt, rng):
                    return None
        history = list(v.history[:v.keep])
        public = self._public_kitty()
        if v.is_dealer:
            hidden = self._flat(g["kitty"] if "kitty" in g else self.kitty_known - public)
            kitty = self._kitty_order(rng, public, hidden, seed)
        else:
            dealer = v.dealer
            if v.kitty_lying:  # its deal (with the tribute, less the return) is its hand now
                hidden = self._flat(g["kitty"]) if "kitty" in g else []
                dealt = self.dealer_fixed + g["dealer"] - hidden_t + hidden_r
            else:
                burial = v.burial_known if v.burial_known is not None else g["burial"]
                sixty = (v.played[dealer] + burial + g["dealer"] - self.tribute + self.returned
                         - hidden_t + hidden_r)  # its deal and the kitty
                free = sixty - self.kitty_known - self._pin_vector(dealer)
                if (free < 0).any():
                    return None
                hidden_n = KITTY - int(self.kitty_known.sum())
                copies = self._flat(free)
                chosen = rng.choice(len(copies), size=hidden_n, replace=False) \
                    if hidden_n else []
                hidden = [copies[i] for i in chosen]
                dealt = free - np.bincount(hidden, minlength=NUM_KINDS).astype(np.int64)
                order = ([BIG_JOKER] * int(burial[BIG_JOKER]) + [SMALL_JOKER] *
                         int(burial[SMALL_JOKER]) + self._flat(burial[:NUM_NATURAL]))
                for i, c in zip(v.bury_steps, order):
                    history[i] = cat.BURY + c
            kitty = self._kitty_order(rng, self.kitty_known, hidden, seed)
            if kitty is None or (dealt < 0).any():
                return None
            if v.first:
                if not self._arrange_dealer(deck, dealer, dealt, rng, picked):
                    return None
            elif not self._arrange_later(deck, dealer, dealt, rng):
                return None
        if hidden_r.any():  # a return ``seat`` did not see: its cards, by kind
            for i, c in zip(v.return_steps, self._flat(hidden_r)):
                history[i] = cat.RETURN + c
        if kitty is None:
            return None
        deck[DEALT:] = kitty
        return deck, history

    # --- later hands: where the level cards and jokers lie in a seat's deal ------------------
    def _arrange_kept(self, deck, s, cards, rng) -> bool:
        """Put ``cards`` in seat ``s``'s deal slots (``_place``): a seat whose deal-order weight
        the draw was kept by (``_keep_orders``)."""
        return self._place(deck, s, self.seat_slots[s], cards, rng)

    def _arrange_later(self, deck, s, cards, rng) -> bool:
        """Put ``cards`` (counts) in seat ``s``'s deal slots (``_place``), after keeping them
        with probability ``_order_share`` / its largest value (rejection): the programme over
        the kinds weighs a dealt multiset by all its orders, the deal by those that give the
        seat's asks, so the share of fitting orders is the weight it left out."""
        slots = self.seat_slots[s]
        share, top = self._order_share(s, slots)
        u = cards[self.special]
        held, strides = self._orders[s, tuple(slots)][1:3]
        if (u < 0).any() or (u > held[-1]).any():
            return False
        if rng.random() * top >= share[int(u @ strides)]:
            return False
        return self._place(deck, s, slots, cards, rng)

    def _raw_share(self, s, slots) -> np.ndarray:
        """Per count of special cards (a state of the slot programme), the share of that count's
        orders in ``slots`` that give seat ``s`` its asks: the programme's count over the
        number of ways to choose slots for those cards (0 where none fits)."""
        key = (s, tuple(slots))
        if key not in self._raw:
            if key not in self._orders:
                self._orders[key] = self._forward_slots(s, slots, self._unseen_special())
            held, final = self._orders[key][1], self._orders[key][4]
            n = len(slots)
            placed = held.sum(axis=1)
            fits = (final > 0) & (placed <= n)
            log_all = _LOG_FACT[n] - _LOG_FACT[held].sum(axis=1) - \
                _LOG_FACT[np.maximum(n - placed, 0)]
            share = np.zeros(len(final))
            share[fits] = np.exp(np.log(final[fits]) - log_all[fits])
            self._raw[key] = share
        return self._raw[key]

    def _order_share(self, s, slots) -> tuple[np.ndarray, float]:
        """The deal-order share per count of special cards (``_raw_share``) and its largest
        value: keeping a draw with probability ``share / top`` gives it the deal's weight."""
        key = (s, tuple(slots))
        if key not in self._shares:
            share = self._raw_share(s, slots)
            self._shares[key] = share, float(share.max()) if share.any() else 1.0
        return self._shares[key]

    def _place(self, deck, s, slots, cards, rng) -> bool:
        """Put ``cards`` in ``slots`` of seat ``s``: the level cards and jokers where the deal
        asked the seat exactly where it did (``_special_order``), the rest shuffled. False if
        no order fits."""
        if (cards < 0).any() or int(cards.sum()) != len(slots):
            return False
        spec = self.special
        counts = cards[spec]
        order = self._special_order(s, slots, counts, rng)
        if order is None:
            return False
        rest = cards.copy()
        rest[spec] = 0
        rest = np.repeat(np.arange(NUM_KINDS), rest)
        rng.shuffle(rest)
        it = iter(rest.tolist())
        for p, j in zip(slots, order):
            deck[p] = spec[j] if j >= 0 else next(it)
        return True

    def _special_order(self, s, slots, counts, rng) -> list[int] | None:
        """Which of ``slots`` hold which special card (a column of ``_special_kinds``; -1 for
        another card), uniformly among the orders that ask seat ``s`` exactly as the real deal
        did: a card dealt to it enables a new declaration at the slots where it was asked and at
        no other, and at each look (``view.checks``) it could beat the standing declaration
        exactly when it was asked. Drawn backwards from ``counts`` through the forward tables of
        a programme over the slots whose state is the special cards dealt so far (one per seat
        and slots, up to every unseen copy: ``None`` if no order fits)."""
        key = (s, tuple(slots))
        tables = self._orders.get(key)
        if tables is None:
            tables = self._orders[key] = self._forward_slots(s, slots, self._unseen_special())
        layers, held, strides, rules, final, enables = tables
        if (counts > held[-1]).any():
            return None
        u = int(counts @ strides)
        if final[u] <= 0:
            return None
        out = [-1] * len(slots)
        steps = strides.tolist()
        for i in range(len(slots) - 1, -1, -1):
            if u == 0:  # every special card placed: the slots before hold other cards
                break
            asked, floor = rules[i]
            layer = layers[i]
            options, weights = [], []
            if asked is not True:
                options.append(-1)
                weights.append(float(layer[u]))
            row = held[u].tolist()
            for j in range(6):
                if row[j] == 0:
                    continue
                prev = u - steps[j]
                if asked is not None and bool(enables[floor][prev, j]) != asked:
                    continue
                options.append(j)
                weights.append(float(layer[prev]))
            r = rng.random() * sum(weights)
            pick = next(o for o, w in zip(options[::-1], weights[::-1]) if w > 0)
            for option, weight in zip(options, weights):
                if r < weight:
                    pick = option
                    break
                r -= weight
            out[i] = pick
            if pick >= 0:
                u -= steps[pick]
        return out

    def _unseen_special(self) -> np.ndarray:
        own = np.bincount(self.view.own_cards, minlength=NUM_KINDS)
        return (4 - own[self.special]).astype(np.int64)

    def _forward_slots(self, s, slots, counts):
        """The slot programme's forward tables for seat ``s``'s ``slots`` and at most
        ``counts`` special cards: per slot the number of valid orders of the slots before it
        ending in each state, and (``final``) the number of valid orders of all the slots that
        deal the seat each count of special cards; with the rules per slot and, per standing
        rank, whether one more card of each column enables a declaration in each state."""
        v = self.view
        radix = counts + 1
        strides = np.concatenate([[1], np.cumprod(radix)[:-1]]).astype(np.int64)
        size = int(np.prod(radix))
        held = (np.arange(size)[:, None] // strides) % radix  # special cards per state
        during = v.game.options["bidding"] == "during_deal"
        # the looks, and the declarations the seat made (it held what it showed)
        checks = sorted([(pos, floor, asked, None) for pos, floor, asked in v.checks[s]] +
                        [(pos, column, count, True) for pos, column, count in v.holds[s]],
                        key=lambda check: check[0])
        rules = []  # per slot: (asked there: True/False, or None if unconstrained; floor)
        for p in slots:
            floor = 0
            for pos, rank in v.floors:
                if pos <= p:
                    floor = rank
            rules.append((p in v.new_asks[s], floor) if during and p < v.pos else (None, floor))
        enables = {floor: np.stack([_enables(held, j, floor) for j in range(6)], axis=1)
                   for floor in {floor for _, floor in rules}}
        room = held < counts  # one more card of each column fits
        f = np.zeros(size)
        f[0] = 1.0
        layers = []
        c = 0
        for i, p in enumerate(slots):
            while c < len(checks) and checks[c][0] <= p:
                f = f * _look(held, checks[c])
                c += 1
            layers.append(f)
            asked, floor = rules[i]
            new = np.zeros(size) if asked is True else f.copy()
            ok_all = room if asked is None else room & (enables[floor] == asked)
            live = f > 0
            for j in range(6):
                if not counts[j]:
                    continue
                src = np.flatnonzero(ok_all[:, j] & live)
                new[src + strides[j]] += f[src]
            f = new
        for check in checks[c:]:
            if check[0] <= v.pos:  # (the looks still to come say nothing yet)
                f = f * _look(held, check)
        return layers, held, strides, rules, f, enables

    def _arrange_dealer(self, deck, s, cards, rng, picked=None) -> bool:
        """The dealer's deal slots, shuffled; its free big jokers must be where it could hold
        them unasked (else the proposal is dropped: rejection). With ``picked`` (see
        ``self.pick``), that card goes to the first slot after the grab that holds no joker:
        the jokers are placed first, uniformly, and the proposal is kept with probability
        ``(slots - 8) / naturals`` so that each deal keeps its uniform weight."""
        slots = [p for p in self.seat_slots[s] if deck[p] < 0]
        if int(cards.sum()) != len(slots):
            return False
        low = self.forbid_below.get(s, 0)
        if picked is not None:
            jokers = [SMALL_JOKER] * int(cards[SMALL_JOKER]) + [BIG_JOKER] * int(cards[BIG_JOKER])
            naturals = len(slots) - len(jokers)
            if rng.random() * naturals >= len(slots) - 8:
                return False
            cards = cards.copy()
            cards[SMALL_JOKER] = cards[BIG_JOKER] = 0
            bj = jokers.count(BIG_JOKER)
            allowed = [p for p in slots if p >= low]
            if bj > len(allowed):
                return False
            for p in rng.choice(allowed, size=bj, replace=False).tolist():
                deck[p] = BIG_JOKER  # (weighed for in the programme: ``dealer_slots``)
            left = [p for p in slots if deck[p] < 0]
            small = len(jokers) - bj
            for p in rng.choice(left, size=small, replace=False).tolist() if small else []:
                deck[p] = SMALL_JOKER
            first = next((p for p in slots if p >= self.view.grab_pos and deck[p] < 0), None)
            if first is None or cards[picked] <= 0:
                return False
            deck[first] = picked
            cards[picked] -= 1
            slots = [p for p in slots if deck[p] < 0]
        elif self.dealer_slots is not None and cards[BIG_JOKER]:  # (weighed for in the programme)
            allowed = [p for p in slots if p >= low]
            bj = int(cards[BIG_JOKER])
            if bj > len(allowed):
                return False
            for p in rng.choice(allowed, size=bj, replace=False).tolist():
                deck[p] = BIG_JOKER
            cards = cards.copy()
            cards[BIG_JOKER] = 0
            slots = [p for p in slots if deck[p] < 0]
        rest = np.repeat(np.arange(NUM_KINDS), cards)
        rng.shuffle(rest)
        for p, c in zip(slots, rest.tolist()):
            deck[p] = c
        return not any(deck[p] == BIG_JOKER and p < low for p in self.seat_slots[s]
                       if p != self.pinned_bj.get(s))

    @staticmethod
    def _flat(counts) -> list[int]:
        return np.repeat(np.arange(len(counts)), np.asarray(counts)).tolist()

    def _replayed(self, seed, deck, history):
        """The world, if it replays to exactly what the seat saw; else ``None``."""
        v = self.view
        seat, obs = v.seat, v.obs
        try:
            world = v.world_game.new_state(seed, deck=deck, first_seat=v.start)
        except ValueError:
            return None
        if not np.array_equal(world.observation(seat), obs[0]):
            return None
        for i, action in enumerate(history):
            try:
                world.apply(action)
            except IllegalActionError:
                return None
            if i < v.first_play and not np.array_equal(world.observation(seat), obs[i + 1]):
                return None
        if not np.array_equal(world.observation(seat), obs[-1]):
            return None
        if v.to_act and not np.array_equal(world.legal_mask(), v.mask):
            return None
        return world
