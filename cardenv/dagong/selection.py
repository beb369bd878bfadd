"""Which physical cards a Dagong action takes from a hand.

An action fixes the combination (type, ranks, jokers, 510K suit, whether it plays the called
card); the hand decides the rest. The rule, applied in this order:

1. The called card. ``called=True`` actions play one copy of the called kind, and a second copy
   only when the play cannot be made otherwise (possible only for a dealer holding both); the
   other actions play none (every copy is kept back).
2. Jokers. The action's joker count is taken from the jokers left, small joker before big joker
   (they are interchangeable in play), a second copy of a called joker last.
3. Naturals for runs and other many-rank combinations, when the jokers leave a choice of which
   ranks to take naturals from: keep back first the 5 / 10 / K cards that complete natural 正510K
   sets of the hand ("protected" cards), then the highest ranks -- i.e. take unprotected cards
   lowest rank first, then protected ones lowest rank first.
4. Suits within a rank: unprotected copies before protected ones, then suits in the order
   ♦ ♣ ♥ ♠.
5. 杂510K: among the suit choices that make a mixed 510K, the one that leaves the most complete
   natural 正510K sets, then the most suits holding two of 5/10/K (joker-completable), then the
   lowest suits.

"Protected" copies of kind ``(r, s)`` for ``r`` in 5/10/K: ``min(#5s, #10s, #Ks)`` of suit ``s``.
"""

from __future__ import annotations

import itertools

from cardenv.core.cards import BIG_JOKER, NUM_NATURAL, SMALL_JOKER, kind_of, rank_of
from cardenv.dagong import catalogue as cat

_POINT_RANKS = cat.POINT_RANKS
# per combination: whether it takes naturals of a 5/10/K rank (rule 3's protected cards matter)
_PROTECTS = [any(r in _POINT_RANKS for r in combo.ranks) for combo in cat.COMBOS]
_RANK_KINDS = [tuple(range(4 * r, 4 * r + 4)) for r in range(NUM_NATURAL // 4)]  # suits in order


def protected_copies(hand) -> list[int]:
    """Per kind, how many copies belong to complete natural 正510K sets of ``hand``."""
    protected = [0] * len(hand)
    for s in range(4):
        kinds = [kind_of(r, s) for r in _POINT_RANKS]
        sets = min(hand[k] for k in kinds)
        for k in kinds:
            protected[k] = sets
    return protected


def k510_score(hand) -> tuple[int, int]:
    """(complete natural 正510K sets, suits holding exactly two of 5/10/K)."""
    complete = near = 0
    for s in range(4):
        counts = [hand[kind_of(r, s)] for r in _POINT_RANKS]
        complete += min(counts)
        near += sum(c > min(counts) for c in counts) == 2
    return complete, near


def _take_naturals(avail, protected, ranks, per_rank_cap, total, taken, last_resort=None):
    """Greedy by (protected, rank, suit): see rules 3 and 4 of the module docstring.

    ``last_resort`` is a kind whose copies are taken only after every other candidate.
    """
    candidates = []
    for r in ranks:
        for k in range(4 * r, 4 * r + 4):
            if k == last_resort:
                candidates += [(2, k)] * avail[k]
            elif avail[k]:
                free = max(0, avail[k] - (protected[k] if protected else 0))
                candidates += [(0, k)] * free + [(1, k)] * (avail[k] - free)
    candidates.sort()
    per_rank = dict.fromkeys(ranks, 0)
    for k in taken:
        if k < NUM_NATURAL and k // 4 in per_rank:
            per_rank[k // 4] += 1
    need = total
    for _, k in candidates:
        if need == 0:
            break
        if per_rank[k // 4] < per_rank_cap:
            per_rank[k // 4] += 1
            taken.append(k)
            need -= 1
    if need:
        raise ValueError("hand cannot supply the naturals this action needs")


def _take_one_rank(avail, rank, per_rank_cap, total, taken, last_resort=None):
    """``_take_naturals`` for one rank with nothing protected (singles, pairs, triples, bombs
    of most ranks: the bulk of the plays), without building the candidate list: the suits in
    order, the ``last_resort`` kind's copies last. Same cards, same errors (tests/cardenv/dagong/
    test_selection.py compares both)."""
    room = per_rank_cap
    for k in taken:  # (at most the called card and jokers)
        if k < NUM_NATURAL and k // 4 == rank:
            room -= 1
    need = total
    kinds = _RANK_KINDS[rank]
    if last_resort is not None and 4 * rank <= last_resort < 4 * rank + 4:
        kinds = [k for k in kinds if k != last_resort] + [last_resort]
    for k in kinds:
        use = min(avail[k], need, room)
        if use:
            taken += [k] * use
            need -= use
            room -= use
    if need:
        raise ValueError("hand cannot supply the naturals this action needs")


def _take_jokers(avail, count, taken, last_resort=None):
    order = (SMALL_JOKER, BIG_JOKER) if last_resort != SMALL_JOKER else (BIG_JOKER, SMALL_JOKER)
    for k in order:
        use = min(avail[k], count)
        taken += [k] * use
        count -= use
    if count:
        raise ValueError("hand lacks the jokers this action needs")


def _select_k510(hand, avail, combo, taken) -> list[int]:
    slots = [r for r in _POINT_RANKS if r != combo.joker_as]
    fixed = {rank_of(k): k for k in taken if k < NUM_NATURAL}  # the called card, if any
    choices = []
    for r in slots:
        if r in fixed:
            choices.append([fixed[r]])
        elif combo.zheng:
            choices.append([kind_of(r, combo.suit)] if avail[kind_of(r, combo.suit)] else [])
        else:
            choices.append([kind_of(r, s) for s in range(4) if avail[kind_of(r, s)]])
    best = None
    for pick in itertools.product(*choices):
        suits = {k % 4 for k in pick}
        if not combo.zheng and len(suits) < 2:
            continue
        rest = list(hand)
        for k in pick:
            rest[k] -= 1
        score = k510_score(rest)
        key = (-score[0], -score[1], [k % 4 for k in pick])
        if best is None or key < best[0]:
            best = (key, pick)
    if best is None:
        raise ValueError("hand cannot build this 510K")
    new = [k for k in best[1] if k not in fixed.values()]
    return taken + new


def select_cards(hand, action: int, called: int) -> list[int]:
    """The card kinds ``action`` plays from ``hand`` (a length-54 count sequence).

    Raises ``ValueError`` if the hand cannot make the play (callers check the mask first).
    """
    info = cat.ACTIONS[action]
    if info.combo is None:
        return []
    combo = cat.COMBOS[info.combo]
    avail = list(hand)
    taken: list[int] = []
    if info.called:
        if avail[called] == 0:
            raise ValueError("hand does not hold the called card")
        taken.append(called)
        avail[called] -= 1
    else:
        avail[called] = 0

    # ``taken`` holds at most the called card so far: a joker or a natural
    called_joker = bool(taken) and called >= NUM_NATURAL
    jokers_needed = combo.jokers - called_joker
    if jokers_needed < 0:
        raise ValueError("the called joker cannot be part of this action")
    if jokers_needed:
        _take_jokers(avail, jokers_needed, taken, last_resort=called)

    if combo.type == cat.K510:
        return _select_k510(hand, avail, combo, taken)
    naturals = combo.length - combo.jokers
    if naturals:
        protect = _PROTECTS[info.combo]
        need = naturals - (bool(info.called) and not called_joker)
        if len(combo.ranks) == 1 and not protect:
            _take_one_rank(avail, combo.ranks[0], combo.per_rank, need, taken,
                           last_resort=called)
        else:
            _take_naturals(avail, protected_copies(hand) if protect else None, combo.ranks,
                           combo.per_rank, need, taken, last_resort=called)
    return taken
