"""Dagong's batched engine: many games stepped together, the play phase as numpy over all of them.

``DagongBatch(states)`` holds ``B`` Dagong states (any option variants) and answers the batched
engine contract (``current`` / ``observations`` / ``masks`` / ``global_states`` / ``legal`` /
``step`` / ``state`` / ``replace``). It must equal stepping each state by its own ``apply``
(``tests/cardenv/dagong/test_vector_engine.py`` proves it on hundreds of games).

Design (struct of arrays):

- The states' tensor buffers are the rows of one ``(B, L)`` int16 array (each adopted state's
  ``buffer`` and views point into its row), so observations and global states are one gather,
  and the reference code of the rare phases writes straight into the batch.
- What the play phase needs beyond the buffer (seat to act, the standing play's id and seat,
  trick points, roles, the order players went out, each seat's cached feasible plays, rewards,
  the actions not yet in the state's ``history``) lives in ``(B,)`` / ``(B, 4)`` arrays.
  Passes, points won, cards left, 摇摆 seats and the revealed flag are read from the buffer
  itself (the reference keeps them equal).
- ``step`` applies every play-phase action at once: passes and trick ends (接风 leader choice),
  plays (the cards taken by ``select_batch``, the batched twin of ``selection.select_cards``),
  going out, 明鸡, 摇摆 seats, trick points, the counting pieces (``_count_play``, the numpy
  twin of the single engine's updates by the rules of ``counting``). Rows in the 硬牌 phase,
  and rows whose play decides the hand (settlement, the next deal from the state's rng), run
  the reference ``DagongState`` code one game at a time: the object's Python fields are synced
  from the arrays first and read back after.
- Masks: each (slot, seat)'s feasible plays (``legality.feasible`` on the batch's hands) are
  cached bit-packed until that seat's hand changes, so a step recomputes only the seats that
  played since their last turn; a mask is the cached row and the packed ``catalogue.BEATS`` row
  of the standing play, and-ed and unpacked.
- ``state(i)`` syncs the object lazily (only if the arrays moved on since: its public fields
  written, the pending actions appended to ``history``, then ``state.position_changed()``), so
  a caller sees exactly what per-state ``apply`` would have produced. The rare steps go through
  the state's public API: ``apply_unchecked`` (硬牌 decisions) and ``end_hand``.
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import BIG_JOKER, KIND_POINTS, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.core.batch_rows import kept_first, take_rows
from cardenv.dagong import catalogue as cat
from cardenv.dagong import counting, legality
from cardenv.dagong.observation import LAYOUT
from cardenv.dagong.phase import Phase

N = cat.NUM_ACTIONS
_PHASE_CODE = {phase: code for code, phase in enumerate(Phase)}  # state.phase as a small int
_SOLO, _PLAY, _OVER = (_PHASE_CODE[p] for p in (Phase.SOLO, Phase.PLAY, Phase.OVER))

# --- per-action tables (index: action id) ----------------------------------------------------


def _action_tables() -> dict:
    """What the batched step reads of ``catalogue.ACTIONS``, as arrays over the action ids (so
    a batch of actions looks each field up with one fancy index)."""
    t = {name: np.zeros(N, dtype=np.int64) for name in (
        "type", "key_rank", "length", "called", "jokers", "naturals", "per_rank", "protect",
        "k510", "zheng_suit", "joker_slot", "yaobai")}
    t["ranks"] = np.zeros((N, 13), dtype=bool)
    t["key_rank"][:] = -1
    for a in cat.ACTIONS[cat.FIRST_PLAY:]:
        i = a.id
        t["type"][i] = cat.PLAY_TYPES.index(a.type)
        t["key_rank"][i] = -1 if a.key_rank is None else a.key_rank
        t["length"][i] = a.length
        t["called"][i] = a.called
        t["jokers"][i] = a.jokers
        t["naturals"][i] = a.naturals
        t["per_rank"][i] = a.per_rank
        t["ranks"][i, list(a.ranks)] = True
        t["protect"][i] = any(r in cat.POINT_RANKS for r in a.ranks)
        t["k510"][i] = a.type == cat.K510
        t["zheng_suit"][i] = a.suit if a.zheng else -1
        t["joker_slot"][i] = -1 if a.joker_as is None else cat.POINT_RANKS.index(a.joker_as)
        t["yaobai"][i] = a.type == cat.YAOBAI
    return t


_T = _action_tables()
_IS_CALLED = _T["called"].astype(bool)
_IS_K510 = _T["k510"].astype(bool)
_IS_YAOBAI = _T["yaobai"].astype(bool)
_PROTECT = _T["protect"].astype(bool)
_ONE_RANK = _T["ranks"].sum(axis=1) == 1
_IS_POINT_RANK = np.isin(np.arange(13), cat.POINT_RANKS)
_BEATS_ROW = np.full(N, cat.LEAD_ROW, dtype=np.int64)
_BEATS_ROW[cat.FIRST_PLAY:] = np.arange(N - cat.FIRST_PLAY) % cat.NUM_COMBOS
_KIND_POINTS = KIND_POINTS.astype(np.int64)
_BEATS_PACKED = np.packbits(cat.BEATS, axis=1)
_PACKED = _BEATS_PACKED.shape[1]  # bytes of a packed (N,) row
_SOLO_PACKED = np.packbits(np.isin(np.arange(N), [cat.SOLO_DECLINE, cat.SOLO_DECLARE]))
_SEATS = np.arange(4)

# 510K: the kinds of each slot (5, 10, K) by suit, and every suit choice (s5, s10, sK) in
# lexicographic order -- the order of select_cards' last tie-break.
_K510_KINDS = np.array([[r * 4 + s for s in range(4)] for r in cat.POINT_RANKS])  # (3, 4)
_CAND = np.array(np.meshgrid(range(4), range(4), range(4), indexing="ij")).reshape(3, -1).T
_CAND_ONEHOT = np.zeros((len(_CAND), 3, 4), dtype=np.int64)  # (64, slot, suit)
for _c, (_a, _b, _d) in enumerate(_CAND):
    _CAND_ONEHOT[_c, 0, _a] = _CAND_ONEHOT[_c, 1, _b] = _CAND_ONEHOT[_c, 2, _d] = 1


def _suit_score_table():
    """_SUIT_SCORE[c5, c10, cK] = 5 * complete + near for one suit (k510_score's two terms,
    ordered lexicographically: near <= 4 in a hand)."""
    table = np.zeros((3, 3, 3), dtype=np.int64)
    for c in np.ndindex(3, 3, 3):
        low = min(c)
        table[c] = 5 * low + int(sum(x > low for x in c) == 2)
    return table


_SUIT_SCORE = _suit_score_table()


# --- batched card selection ------------------------------------------------------------------


def select_batch(hands: np.ndarray, actions: np.ndarray, called: np.ndarray) -> np.ndarray:
    """``(b, 54)`` int64 counts of the cards each play takes: row ``i`` equals
    ``selection.select_cards(hands[i], actions[i], called[i])`` as counts (the same rules:
    called card, jokers small first, naturals unprotected-lowest first, 510K by the score).

    ``hands`` ``(b, 54)``; ``actions`` ``(b,)`` play ids (no pass); every play must be legal."""
    b = hands.shape[0]
    rows = np.arange(b)
    hands = hands.astype(np.int64)
    avail = hands.copy()
    taken = np.zeros((b, NUM_KINDS), dtype=np.int64)
    is_called = _IS_CALLED[actions]
    # 1. the called card: one copy played by a called action, every copy kept back otherwise
    avail[rows, called] = np.where(is_called, avail[rows, called] - 1, 0)
    taken[rows, called] += is_called
    called_joker = called >= NUM_NATURAL
    # 2. jokers: small before big, a (second) called joker last
    need = _T["jokers"][actions] - (is_called & called_joker)
    first = np.where(called == SMALL_JOKER, BIG_JOKER, SMALL_JOKER)
    second = SMALL_JOKER + BIG_JOKER - first
    for kind in (first, second):
        use = np.minimum(avail[rows, kind], need)
        taken[rows, kind] += use
        need = need - use
    k510 = _IS_K510[actions]
    if k510.any():
        idx = np.flatnonzero(k510)
        taken[idx] += _select_k510(hands[idx], avail[idx], actions[idx], called[idx],
                                   is_called[idx])
    with_naturals = ~k510 & (_T["naturals"][actions] > 0)
    single = _ONE_RANK[actions]
    idx = np.flatnonzero(with_naturals & single)
    if idx.size:
        kinds, take = _take_one_rank(hands[idx], avail[idx], actions[idx], called[idx],
                                     is_called[idx] & ~called_joker[idx])
        taken[idx[:, None], kinds] += take
    idx = np.flatnonzero(with_naturals & ~single)
    if idx.size:
        taken[idx, :NUM_NATURAL] += _take_naturals(
            hands[idx], avail[idx], taken[idx], actions[idx], called[idx],
            is_called[idx] & ~called_joker[idx])
    return taken


def _take_one_rank(hands, avail, actions, called, called_natural):
    """The naturals of single-rank plays (singles ... bombs, where the cap per rank never
    binds): the rank's copies in candidate order -- unprotected by suit, protected by suit,
    the called kind -- and the first ``need`` of them. Returns the kinds ``(b, 4)`` and the
    copies taken of each."""
    b = hands.shape[0]
    rank = _T["key_rank"][actions]
    kinds = rank[:, None] * 4 + _SEATS  # the rank's four kinds (suits 0..3)
    rows = np.arange(b)[:, None]
    copies = avail[rows, kinds]
    suits_sets = hands[:, _K510_KINDS].min(axis=1)  # complete natural 正510K sets per suit
    prot = np.where(_IS_POINT_RANK[rank][:, None], suits_sets, 0)
    last = kinds == called[:, None]
    free = np.maximum(copies - prot, 0)
    order = np.concatenate([np.where(last, 0, free), np.where(last, 0, copies - free),
                            np.where(last, copies, 0)], axis=1)  # (b, 12)
    need = _T["naturals"][actions] - called_natural
    before = np.cumsum(order, axis=1) - order
    take = np.clip(need[:, None] - before, 0, order)
    return kinds, take[:, 0:4] + take[:, 4:8] + take[:, 8:12]


def _protected(hands: np.ndarray) -> np.ndarray:
    """``(b, 52)``: selection.protected_copies -- per 5/10/K kind, the complete natural 正510K
    sets of its suit."""
    b = hands.shape[0]
    sets = hands[:, _K510_KINDS].min(axis=1)  # (b, 4 suits)
    out = np.zeros((b, NUM_NATURAL), dtype=np.int64)
    out[:, _K510_KINDS.ravel()] = np.tile(sets, 3)
    return out


def _take_naturals(hands, avail, taken, actions, called, called_natural):
    """The naturals of non-510K plays (rules 3-4): a greedy over candidates ordered by (class,
    kind) -- class 0 unprotected copies, 1 protected, 2 the called kind -- with a cap per rank,
    done class by class as clipped cumulative sums over ranks, then over suits in a rank."""
    b = hands.shape[0]
    rows = np.arange(b)
    need = _T["naturals"][actions] - called_natural
    cap = _T["per_rank"][actions][:, None]
    in_ranks = np.repeat(_T["ranks"][actions], 4, axis=1)  # (b, 52)
    nat_avail = avail[:, :NUM_NATURAL] * in_ranks
    prot = _protected(hands) * _PROTECT[actions][:, None]
    is_last = np.zeros((b, NUM_NATURAL), dtype=bool)
    natural = called < NUM_NATURAL
    is_last[rows[natural], called[natural]] = True
    free = np.maximum(nat_avail - prot, 0)
    classes = (np.where(is_last, 0, free), np.where(is_last, 0, nat_avail - free),
               np.where(is_last, nat_avail, 0))
    per_rank = taken[:, :NUM_NATURAL].reshape(b, 13, 4).sum(axis=2) * _T["ranks"][actions]
    out = np.zeros((b, NUM_NATURAL), dtype=np.int64)
    for counts in classes:
        counts = counts.reshape(b, 13, 4)
        x = np.minimum(counts.sum(axis=2), cap - per_rank)
        before = np.cumsum(x, axis=1) - x
        t_rank = np.clip(need[:, None] - before, 0, x)
        within = np.cumsum(counts, axis=2) - counts
        out += np.clip(t_rank[:, :, None] - within, 0, counts).reshape(b, NUM_NATURAL)
        per_rank += t_rank
        need = need - t_rank.sum(axis=1)
    return out


def _k510_tables():
    """Per action: which suit choices the combination allows whatever the hand (``(N, 64)``:
    正510K: every natural of its suit; 杂510K: not all naturals of one suit; a joker's slot
    is not chosen, so it keeps suit 0 as a placeholder) and which slots take a natural
    (``(N, 3)``)."""
    allowed = np.zeros((N, len(_CAND)), dtype=bool)
    real = np.ones((N, 3), dtype=bool)
    for a in cat.ACTIONS[cat.FIRST_PLAY:]:
        if a.type != cat.K510:
            continue
        slots = [i for i, r in enumerate(cat.POINT_RANKS) if r != a.joker_as]
        real[a.id] = [i in slots for i in range(3)]
        for c, suits in enumerate(_CAND.tolist()):
            natural = {suits[i] for i in slots}
            placeholder = all(suits[i] == 0 for i in range(3) if i not in slots)
            fits = natural == {a.suit} if a.zheng else len(natural) > 1
            allowed[a.id, c] = placeholder and fits
    return allowed, real


_K510_ALLOWED, _K510_REAL = _k510_tables()


def _select_k510(hands, avail, actions, called, is_called):
    """The naturals of 510K plays (rule 5): every suit choice (s5, s10, sK) scored at once;
    the best score wins, ties to the lexicographically lowest suits (argmax takes the first)."""
    b = hands.shape[0]
    real = _K510_REAL[actions]  # (b, 3)
    # the called card, when played, fills its own slot
    fixed = np.where(is_called & (called < NUM_NATURAL), legality.SLOT[called], -1)
    ok = avail[:, _K510_KINDS] > 0  # (b, slot, suit): may this slot take this suit?
    ok |= ~real[:, :, None]  # a joker's slot: any (the placeholder is in _K510_ALLOWED)
    has_fixed = np.flatnonzero(fixed >= 0)
    ok[has_fixed, fixed[has_fixed]] = _SEATS == called[has_fixed, None] % 4
    valid = _K510_ALLOWED[actions] & ok[:, 0, _CAND[:, 0]] & ok[:, 1, _CAND[:, 1]] \
        & ok[:, 2, _CAND[:, 2]]  # (b, 64)
    rest = hands[:, _K510_KINDS][:, None, :, :] - \
        _CAND_ONEHOT[None] * real[:, None, :, None]  # (b, 64, 3, 4)
    rest = np.maximum(rest, 0)  # invalid picks may go below zero; they are masked anyway
    score = _SUIT_SCORE[rest[:, :, 0, :], rest[:, :, 1, :], rest[:, :, 2, :]].sum(axis=2)
    pick = _CAND[np.argmax(np.where(valid, score, -1), axis=1)]  # (b, 3)
    take = real & (np.arange(3) != fixed[:, None])  # the called card is taken already
    r, slot = np.nonzero(take)
    out = np.zeros((b, NUM_KINDS), dtype=np.int64)
    out[r, _K510_KINDS[slot, pick[r, slot]]] = 1
    return out


# --- the batched engine ----------------------------------------------------------------------

_OFF = LAYOUT.offsets
_HAND, _PLAYED, _CARDS_LEFT = _OFF["hand"], _OFF["played"], _OFF["cards_left"]
_STANDING_CARDS, _STANDING_SEAT = _OFF["standing_cards"], _OFF["standing_seat"]
_STANDING_TYPE, _STANDING_RANK = _OFF["standing_type"], _OFF["standing_rank"]
_STANDING_LENGTH, _PASSED, _TRICK_POINTS = (_OFF["standing_length"], _OFF["passed"],
                                            _OFF["trick_points"])
_POINTS, _PLACE, _TO_PLAY, _YAOBAI = _OFF["points"], _OFF["place"], _OFF["to_play"], _OFF["yaobai"]
_REVEALED, _PARTNER = _OFF["revealed"], _OFF["partner"]
_FORCED_SOLO = _OFF["forced_solo"]
_UNSEEN, _UNSEEN_RANKS, _POINTS_OUT = _OFF["unseen"], _OFF["unseen_ranks"], _OFF["points_out"]
_HAND_POINTS, _TWIN = _OFF["hand_points"], _OFF["twin"]
# the trick's pieces, standing_cards .. trick_points, are contiguous: one slice clears them
assert _STANDING_CARDS < _STANDING_SEAT < _STANDING_TYPE < _STANDING_RANK < _STANDING_LENGTH \
    < _PASSED < _TRICK_POINTS < _POINTS == _TRICK_POINTS + 1
_AFTER = np.arange(1, 5)
# play-phase actions per game not yet appended to its state's history (they are at the latest
# when the hand ends, through the reference code): at most a hand's, each play taking a card or
# more of the 108 and at most three passes following it
_HISTORY = 4 * 2 * NUM_KINDS


class DagongBatch:
    """``B`` Dagong games stepped together (see the module docstring); the batched engine of
    ``DagongGame`` (``DagongGame.batch_engine``). Made directly, it steps the play phase in
    numpy whatever its size (the tests do so on a few games); ``VectorGame`` makes it only from
    ``min_batch`` games on."""

    # below 32 games per-state apply is faster (measured: 14k vs 5k decisions/s at 1 game, even
    # at 32), so VectorGame steps smaller batches state by state (SlotBatch)
    min_batch = 32

    def __init__(self, states: list):
        b = len(states)
        self.buffer = np.zeros((b, LAYOUT.size), dtype=np.int16)
        self.states = list(states)
        self.phase = np.zeros(b, dtype=np.int8)
        self.cur = np.zeros(b, dtype=np.int64)
        self.standing = np.full(b, -1, dtype=np.int64)
        self.standing_seat = np.full(b, -1, dtype=np.int64)
        self.trick_points = np.zeros(b, dtype=np.int64)
        self.called = np.zeros(b, dtype=np.int64)
        self.dealer = np.zeros(b, dtype=np.int64)
        self.partner = np.full(b, -1, dtype=np.int64)
        self.solo = np.full(b, -1, dtype=np.int64)
        self.out = np.zeros((b, 4), dtype=np.int64)  # seats in the order they went out
        self.n_out = np.zeros(b, dtype=np.int64)
        # each (slot, seat)'s feasible plays, valid until that seat's hand changes; bit-packed:
        # gathering and and-ing packed rows is ~20x faster than on (B, N) bools
        self.feas = np.zeros((b, 4, _PACKED), dtype=np.uint8)
        self.feas_ok = np.zeros((b, 4), dtype=bool)
        self.rewards = np.zeros((b, 4))
        self.results_n = np.zeros(b, dtype=np.int64)  # len(results): hands finished
        self.history = np.zeros((b, _HISTORY), dtype=np.int16)  # play actions not yet synced
        self.history_n = np.zeros(b, dtype=np.int64)
        # dirty[i]: the arrays moved on since state i's Python fields were last synced
        self.dirty = np.zeros(b, dtype=bool)
        self._packed = None
        self._views = [None] * b
        self._view_buffer()
        for i, state in enumerate(self.states):
            self._adopt(i, state)

    # the (B, ...) arrays of the slots besides the buffer, its views, the states and the
    # caches: ``keep`` takes their rows (a test checks that every per-slot attribute is here
    # or handled there, so that a new one cannot be missed)
    _PER_SLOT = ("phase", "cur", "standing", "standing_seat", "trick_points", "called",
                 "dealer", "partner", "solo", "out", "n_out", "feas", "feas_ok", "rewards",
                 "results_n", "history", "history_n", "dirty")

    def _view_buffer(self) -> None:
        """The (B, 4, 54) views of the hands, played cards and counting pieces in the buffer:
        (row, seat) fancy indexing."""
        b = self.buffer.shape[0]
        self.hands = self.buffer[:, _HAND:_HAND + 4 * NUM_KINDS].reshape(b, 4, NUM_KINDS)
        self.played = self.buffer[:, _PLAYED:_PLAYED + 4 * NUM_KINDS].reshape(b, 4, NUM_KINDS)
        self.unseen = self.buffer[:, _UNSEEN:_UNSEEN + 4 * NUM_KINDS].reshape(b, 4, NUM_KINDS)
        self.unseen_ranks = self.buffer[:, _UNSEEN_RANKS:_UNSEEN_RANKS + 4 * counting.NUM_GROUPS] \
            .reshape(b, 4, counting.NUM_GROUPS)

    def __len__(self) -> int:
        return len(self.states)

    def keep(self, rows: np.ndarray) -> None:
        """Hold only slots ``rows`` (distinct, checked by the caller), in that order
        (``core.protocol.BatchEngine.keep``). The buffer's rows are permuted in place, kept
        slots first and dropped ones after, so that every state, kept or dropped, takes the
        row views its new position already has (new views cost ~9 us a row: more than the
        whole keep, which measured 3.5 ms for 768 of 1,024 slots under load, the 256 dropped
        states synced included, against 19 ms for a VectorGame rebuilt of the 768 states); the
        engine then reads only the kept prefix, and the dropped states own the rows past it."""
        rows = np.asarray(rows, dtype=np.int64)
        order = kept_first(rows, len(self.states), self.dirty, self._sync)
        self.buffer[:] = self.buffer[order]
        self.states = [self.states[i] for i in order.tolist()]
        for state, views in zip(self.states, self._views):
            state.buffer, state.v = views
        m = rows.size
        del self.states[m:], self._views[m:]
        self.buffer = self.buffer[:m]
        self._view_buffer()
        take_rows(self, self._PER_SLOT, rows)
        if self._packed is not None:  # the masks are the kept slots' still
            self._packed = self._packed[rows]

    # --- objects <-> arrays ----------------------------------------------------------------

    def _adopt(self, i: int, state) -> None:
        """Slot ``i`` takes ``state``: its buffer becomes row ``i`` of the batch."""
        self.states[i] = state
        self.buffer[i] = state.buffer
        if self._views[i] is None:  # the row's named views serve every state the slot holds
            self._views[i] = (self.buffer[i], LAYOUT.views(self.buffer[i]))
        state.buffer, state.v = self._views[i]
        self.history_n[i] = 0
        self._load(i)

    def _load(self, i: int) -> None:
        """The arrays of slot ``i`` from its object (after the reference code moved it)."""
        s = self.states[i]
        self.phase[i] = _PHASE_CODE[s.phase]
        self.cur[i] = s.current
        self.standing[i] = s.standing
        self.standing_seat[i] = s.standing_seat
        self.trick_points[i] = s.trick_points
        self.called[i] = s.called
        self.dealer[i] = s.dealer
        self.partner[i] = -1 if s.partner is None else s.partner
        self.solo[i] = -1 if s.solo is None else s.solo
        self.out[i] = 0
        self.out[i, :len(s.out)] = s.out
        self.n_out[i] = len(s.out)
        self.feas_ok[i] = False  # the hands may have changed: computed again for who acts
        self.rewards[i] = s.last_rewards
        self.results_n[i] = len(s.results)
        self.dirty[i] = False

    def _sync(self, i: int) -> None:
        """State ``i``'s Python fields from the arrays, where the play phase moved them."""
        if not self.dirty[i]:
            return
        s = self.states[i]
        row = self.buffer[i]
        s.current = int(self.cur[i])
        s.standing = int(self.standing[i])
        s.standing_seat = int(self.standing_seat[i])
        s.trick_points = int(self.trick_points[i])
        s.revealed = bool(row[_REVEALED])
        s.passed = [bool(x) for x in row[_PASSED:_PASSED + 4]]
        s.cards_left = row[_CARDS_LEFT:_CARDS_LEFT + 4].tolist()
        s.won = row[_POINTS:_POINTS + 4].tolist()
        s.yaobai = set(np.flatnonzero(row[_YAOBAI:_YAOBAI + 4]).tolist())
        s.out = self.out[i, :self.n_out[i]].tolist()
        s.last_rewards = [0, 0, 0, 0]  # the vector path never ends a hand
        s.history.extend(self.history[i, :self.history_n[i]].tolist())
        s.position_changed()
        self.history_n[i] = 0
        self.dirty[i] = False

    def state(self, i: int):
        """Slot ``i``'s state object, up to date."""
        self._sync(i)
        return self.states[i]

    def hands_played(self) -> np.ndarray:
        """``(B,)`` int: the hands each slot's game has finished (no state is synced)."""
        return self.results_n.copy()

    def replace(self, i: int, state) -> None:
        """Slot ``i`` now holds ``state``; the state it held keeps its content in a buffer of
        its own: the one ``state`` brings, with its views (as Dabang's batch swaps them, so
        that no views are built)."""
        old = self.states[i]
        self._sync(i)
        if old is not state:
            own, views = state.buffer, state.v
            content = own.copy()
            own[:] = self.buffer[i]
            old.buffer, old.v = own, views
            state.buffer = content  # copied into the row by _adopt
        self._adopt(i, state)
        self._packed = None

    # --- queries ---------------------------------------------------------------------------

    def current(self) -> np.ndarray:
        """``(B,)`` int64: the seat to act in each slot (-1 once its game is over)."""
        return np.where(self.phase == _OVER, -1, self.cur)

    def observations(self, seats=None) -> np.ndarray:
        """``(B, D)`` float32 observations of ``seats`` (default: the seats to act; seat 0 in
        an ended game), as ``DagongGame.observations`` of the states."""
        if seats is None:
            seats = np.where(self.phase == _OVER, 0, self.cur)
        seats = np.asarray(seats, dtype=np.int64)
        out = np.empty((len(self.states), LAYOUT.stored_columns.size), dtype=np.float32)
        # per seat: its rows, then its columns -- two plain takes beat one 2-D fancy gather
        for seat, index in enumerate(LAYOUT.observation_index):
            rows = np.flatnonzero(seats == seat)
            if rows.size:
                out[rows] = self.buffer.take(rows, axis=0).take(index, axis=1)
        return LAYOUT.complete(out)  # the derived pieces (core.layout)

    def global_states(self) -> np.ndarray:
        """``(B, S)`` float32: every slot's whole buffer."""
        return self.buffer.astype(np.float32)

    def masks(self) -> np.ndarray:
        """``(B, N)`` bool legal masks: a new array each call (the caller's own; ``legal``
        reads the engine's packed copy)."""
        return np.unpackbits(self._packed_masks(), axis=1, count=N).view(bool)

    def legal(self, actions: np.ndarray) -> np.ndarray:
        """``(B,)`` bool: is ``actions[i]`` (in 0..N-1) legal in slot ``i``."""
        actions = np.asarray(actions, dtype=np.int64)
        byte = self._packed_masks()[np.arange(len(self.states)), actions >> 3]
        return (byte >> (7 - (actions & 7))) & 1 == 1  # packbits is big-endian in a byte

    def _packed_masks(self) -> np.ndarray:
        """``(B, ceil(N / 8))`` uint8: the legal masks bit-packed, cached until the next
        change (gathering and and-ing packed rows is ~20x faster than (B, N) bools)."""
        if self._packed is None:
            self._packed = self._compute_packed()
        return self._packed

    def _compute_packed(self) -> np.ndarray:
        play = np.flatnonzero(self.phase == _PLAY)
        seats = self.cur[play]
        stale = ~self.feas_ok[play, seats]
        if stale.any():
            rows, who = play[stale], seats[stale]
            self.feas[rows, who] = np.packbits(
                legality.feasible(self.hands[rows, who], self.called[rows]), axis=1)
            self.feas_ok[rows, who] = True
        standing = self.standing[play]
        beats = np.where(standing < 0, cat.LEAD_ROW, _BEATS_ROW[standing])
        packed = self.feas.reshape(-1, _PACKED).take(play * 4 + seats, axis=0)
        packed &= _BEATS_PACKED.take(beats, axis=0)
        if play.size == len(self.states):
            return packed
        out = np.zeros((len(self.states), _PACKED), dtype=np.uint8)  # over: nothing legal
        out[play] = packed
        out[self.phase == _SOLO] = _SOLO_PACKED
        return out

    # --- stepping --------------------------------------------------------------------------

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply one legal action per live slot: ``(rewards (B, 4), over (B,))``, each slot's
        ``last_rewards`` and ``is_over`` after it. Ended slots are left alone (until
        ``replace``)."""
        actions = np.asarray(actions, dtype=np.int64)
        self._packed = None
        live = np.flatnonzero(self.phase != _OVER)
        self.rewards[live] = 0
        play = live[self.phase[live] == _PLAY]
        solo = live[self.phase[live] == _SOLO]  # before any hand ends into a new 硬牌 phase
        acts = actions[play]
        at = self.history_n[play]
        self.history[play, at] = acts
        self.history_n[play] = at + 1
        seats = self.cur[play]
        passing = acts == cat.PASS
        self._pass(play[passing], seats[passing])
        ending = self._play_cards(play[~passing], seats[~passing], acts[~passing])
        self.dirty[play] = True
        # the rare steps, game by game through the reference code
        for i in ending.tolist():
            self._sync(i)
            self.states[i].end_hand()
            self._load(i)
        for i in solo.tolist():
            self._sync(i)
            self.states[i].apply_unchecked(int(actions[i]))  # legal() checked it
            self._load(i)
        return self.rewards.copy(), self.phase == _OVER

    def _set_current(self, rows, seats) -> None:
        self.buffer[rows, _TO_PLAY + self.cur[rows]] = 0
        self.cur[rows] = seats
        self.buffer[rows, _TO_PLAY + seats] = 1

    def _next_active(self, rows, seats) -> np.ndarray:
        """The next seat after ``seats`` (in play order) still holding cards."""
        order = (seats[:, None] + _AFTER) % 4
        holding = self.buffer[rows[:, None], _CARDS_LEFT + order] > 0
        return order[np.arange(rows.size), np.argmax(holding, axis=1)]

    def _pass(self, rows, seats) -> None:
        buf = self.buffer
        buf[rows, _PASSED + seats] = 1
        waiting = (buf[rows, _CARDS_LEFT:_CARDS_LEFT + 4] > 0) \
            & (buf[rows, _PASSED:_PASSED + 4] == 0) \
            & (_SEATS != self.standing_seat[rows][:, None])
        over = ~waiting.any(axis=1)
        go_on = rows[~over]
        self._set_current(go_on, self._next_active(go_on, seats[~over]))
        self._end_trick(rows[over])

    def _award_trick(self, rows) -> None:
        winner = self.standing_seat[rows]
        self.buffer[rows, _POINTS + winner] += self.trick_points[rows].astype(np.int16)
        self.trick_points[rows] = 0
        self.standing[rows] = -1
        self.standing_seat[rows] = -1
        self.buffer[rows, _STANDING_CARDS:_POINTS] = 0

    def _end_trick(self, rows) -> None:
        winner = self.standing_seat[rows]
        self._award_trick(rows)
        holds = self.buffer[rows, _CARDS_LEFT + winner] > 0
        # 接风: to the known partner once revealed (not in 硬牌), else the next player with cards
        known = (self.buffer[rows, _REVEALED] > 0) & (self.solo[rows] < 0)
        dealer, partner = self.dealer[rows], self.partner[rows]
        dealer_side = (winner == dealer) | (winner == partner)
        # the winner's teammate: the other of {dealer, partner}, or of the two others (the
        # four seats sum to 6)
        mate = np.where(dealer_side, dealer + partner - winner, 6 - dealer - partner - winner)
        leader = np.where(holds, winner, np.where(known, mate, self._next_active(rows, winner)))
        self._set_current(rows, leader)

    def _play_cards(self, rows, seats, actions) -> np.ndarray:
        """Apply plays; returns the rows whose play decided the hand (left for ``end_hand``)."""
        buf = self.buffer
        hands = self.hands[rows, seats]
        cards = select_batch(hands, actions, self.called[rows])
        cards16 = cards.astype(np.int16)
        self.hands[rows, seats] = hands - cards16
        self.played[rows, seats] += cards16
        self.feas_ok[rows, seats] = False
        self.standing[rows] = actions
        self.standing_seat[rows] = seats
        points = cards @ _KIND_POINTS
        self.trick_points[rows] += points
        buf[rows, _STANDING_CARDS:_POINTS] = 0  # also clears passed
        buf[rows, _STANDING_CARDS:_STANDING_CARDS + NUM_KINDS] = cards16
        buf[rows, _STANDING_SEAT + seats] = 1
        buf[rows, _STANDING_TYPE + _T["type"][actions]] = 1
        key = _T["key_rank"][actions]
        ranked = key >= 0
        buf[rows[ranked], _STANDING_RANK + key[ranked]] = 1
        length = _T["length"][actions]
        buf[rows, _STANDING_LENGTH] = length
        buf[rows, _TRICK_POINTS] = self.trick_points[rows]
        swing = _IS_YAOBAI[actions]
        buf[rows[swing], _YAOBAI + seats[swing]] = 1
        # 明鸡: the partner plays the called card
        reveal = _IS_CALLED[actions] & (seats == self.partner[rows]) & (buf[rows, _REVEALED] == 0)
        shown = rows[reveal]
        buf[shown, _REVEALED] = 1
        buf[shown, _PARTNER:_PARTNER + 16] = 0
        buf[shown[:, None], _PARTNER + _SEATS * 4 + self.partner[shown][:, None]] = 1
        buf[rows, _CARDS_LEFT + seats] -= length.astype(np.int16)
        gone = buf[rows, _CARDS_LEFT + seats] == 0
        out_rows, out_seats = rows[gone], seats[gone]
        place = self.n_out[out_rows]
        buf[out_rows, _PLACE + out_seats * 4 + place] = 1
        self.out[out_rows, place] = out_seats
        self.n_out[out_rows] += 1
        self._count_play(rows, seats, cards16, points, gone)
        decided = np.zeros(rows.size, dtype=bool)
        decided[gone] = self._decided(out_rows)
        self._set_current(rows[~decided], self._next_active(rows[~decided], seats[~decided]))
        return rows[decided]

    def _count_play(self, rows, seats, cards, points, gone) -> None:
        """The counting pieces after plays (``cardenv.dagong.counting``; ``DagongState.
        _apply_play``'s updates): the other seats have now seen the ``cards`` (``(b, 54)``
        int16), ``points`` left the hands, and the twin is counted again where it may have
        moved (a play of the called kind, or the player ``gone`` out)."""
        self.unseen[rows] -= cards[:, None, :]
        self.unseen[rows, seats] += cards
        groups = counting.unseen_ranks(cards)
        self.unseen_ranks[rows] -= groups[:, None, :]
        self.unseen_ranks[rows, seats] += groups
        buf = self.buffer
        points = points.astype(np.int16)
        buf[rows, _POINTS_OUT] -= points
        buf[rows, _HAND_POINTS + seats] -= points
        called = self.called[rows]
        moved = rows[gone | (cards[np.arange(rows.size), called] > 0)]
        if moved.size:
            called = self.called[moved]
            twin = counting.twin(self.hands[moved, :, called], self.played[moved, :, called],
                                 self.dealer[moved], buf[moved, _FORCED_SOLO] > 0,
                                 buf[moved, _CARDS_LEFT:_CARDS_LEFT + 4])
            buf[moved, _TWIN:_TWIN + 16] = twin.reshape(moved.size, 16)

    def _decided(self, rows) -> np.ndarray:
        """DagongState._hand_is_decided for rows where someone just went out."""
        n = self.n_out[rows]
        first, second = self.out[rows, 0], self.out[rows, 1]
        dealer, partner = self.dealer[rows], self.partner[rows]
        same = ((first == dealer) | (first == partner)) == ((second == dealer) |
                                                             (second == partner))
        return (self.solo[rows] >= 0) | (n == 3) | ((n == 2) & same)
