"""Why a Dagong action is illegal, in words: ``refusal(state, action)`` gives the rule it breaks
(``Refusal.rule``, one of :data:`CLAUSES`) and a sentence for a person (``Refusal.text``: English
that keeps the game's Chinese terms; ``core.lang.translate`` makes it English), or ``None`` for a
legal action -- the same shape as ``cardenv.dabang.reasons``.

The reasons are read from the engine's own tables, never a second copy of the rules: whether the
hand can make the play from ``legality.feasible`` (asked again for the same play with or without
the called card, to tell a missing called card from missing ranks), and whether it beats the
standing play from ``catalogue.BEATS`` and ``catalogue.BOMB_STRENGTH``.
``tests/cardenv/dagong/test_reasons.py`` holds the rule given for many random states and actions
to the engine's legality.
"""

from __future__ import annotations

from cardenv.core.cards import NUM_NATURAL, RANK_NAMES, card_str
from cardenv.core.refusals import Refusal, refuse, text_of
from cardenv.dagong import catalogue as cat
from cardenv.dagong import legality
from cardenv.dagong.phase import Phase

#: Each rule a refusal can name -> the clause of docs/rules/dagong.md it comes from.
CLAUSES = {
    "range": "the action space (catalogue: ids 0..2418)",
    "over": "the episode has ended",
    "turn": "section 3, Turns and tricks: players act in turn",
    "solo_phase": "section 3, Going solo (硬牌): decided in turn before the first play [DG-6]",
    "lead": "section 3, Turns and tricks: a leader must play",
    "called": "section 3, 明鸡: each play keeps the called card back or plays it [DG-7]",
    "not_held": "section 2, Combinations: a play is made of cards the player holds [D-B1]",
    "beat": "section 2, Comparison: same type and length, higher; or a higher bomb [D-B2]",
    "other": "not among the legal moves",
}


def why_illegal(state, action: int, seat: int | None = None) -> str | None:
    """The reason ``action`` is illegal in ``state`` (for ``seat``, the seat to act by
    default), or ``None`` if it is legal."""
    return text_of(refusal(state, action, seat))


def refusal(state, action, seat: int | None = None) -> Refusal | None:
    """The rule ``action`` breaks in ``state`` and why (``None`` if legal); see the module."""
    return refuse(state, action, seat, cat.NUM_ACTIONS, _by_rules)


def _by_rules(state, action: int) -> Refusal:
    """The game rule that an action id ``state`` does not allow breaks."""
    info = cat.ACTIONS[action]
    if state.phase == Phase.SOLO:
        return Refusal("solo_phase", f"'{info.text}' is not a move yet: before the first play "
                                     f"each player in turn, from the dealer, declines or "
                                     f"declares 硬牌")
    if action in (cat.SOLO_DECLINE, cat.SOLO_DECLARE):
        return Refusal("solo_phase", "硬牌 is decided before the first play: the play has begun")
    if action == cat.PASS:
        return Refusal("lead", "you lead this trick: play a combination (you may pass only when "
                               "following a play)")
    return _play(state, action, info) or Refusal(
        "other", f"'{info.text}' is not among the legal moves now")


def _play(state, action: int, info) -> Refusal | None:
    hand = state.v["hand"][state.current]
    called = int(state.called)
    feasible = legality.feasible(hand, called)
    if not feasible[action]:
        return _not_held(hand, called, info, feasible)
    if not cat.BEATS[cat.LEAD_ROW if state.standing < 0 else cat.combo_of(state.standing),
                     action]:
        return _no_beat(state, info)
    return None


def _not_held(hand, called: int, info, feasible) -> Refusal:
    text = info.text
    twin = action_twin(info)
    if info.called and not hand[called]:
        return Refusal("called", f"you do not hold the called card {card_str(called)}: choose "
                                 f"'{cat.ACTIONS[twin].text}'")
    if feasible[twin]:
        if info.called:
            return Refusal("called", f"your called card {card_str(called)} is not part of "
                                     f"{cat.ACTIONS[twin].text}: choose "
                                     f"'{cat.ACTIONS[twin].text}'")
        return Refusal("called", f"{text} can only be made with your called card "
                                 f"{card_str(called)}: choose '{cat.ACTIONS[twin].text}' (明鸡 "
                                 f"if you are the partner)")
    return Refusal("not_held", f"your hand cannot make {text}: {_needs(hand, info)}")


def action_twin(info) -> int:
    """The same combination with the called card kept back / played."""
    return info.id + (-cat.NUM_COMBOS if info.called else cat.NUM_COMBOS)


def _needs(hand, info) -> str:
    """What the combination takes and what the hand holds of it."""
    jokers = int(hand[NUM_NATURAL] + hand[NUM_NATURAL + 1])

    def naturals(rank):
        return int(sum(hand[rank * 4 + s] for s in range(4)))
    if info.type == cat.TIANZHA:
        return f"it takes the four jokers; you hold {_jokers(jokers)}"
    if info.type == cat.K510:
        suits = "of one suit" if info.zheng else "not all of one suit"
        slots = [RANK_NAMES[r] for r in info.ranks if r != info.joker_as]
        held = ", ".join(f"{RANK_NAMES[r]}: " + (" ".join(card_str(r * 4 + s) for s in range(4)
                                                          if hand[r * 4 + s]) or "none")
                         for r in info.ranks)
        joker = f" and a joker for the {RANK_NAMES[info.joker_as]}" if info.joker_as is not None \
            else ""
        return f"it takes a {', '.join(slots)} {suits}{joker}; you hold {held}, {_jokers(jokers)}"
    ranks = info.ranks
    each = f"{info.per_rank} natural cards" if info.type in (cat.XI7, cat.XI8, cat.YAOBAI) \
        else f"{info.per_rank} card" + ("" if info.per_rank == 1 else "s")
    if info.jokers == info.length:
        need = _jokers(info.jokers)
    else:
        where = RANK_NAMES[ranks[0]] if len(ranks) == 1 else \
            f"each of {', '.join(RANK_NAMES[r] for r in ranks)}"
        # the jokers in brackets: after a list of ranks ', 2 of them jokers' reads as a rank
        need = f"{each} of {where}" + (f" ({info.jokers} of them jokers)" if info.jokers > 1
                                       else " (1 of them a joker)" if info.jokers else "")
    held = ", ".join(f"{naturals(r)} x {RANK_NAMES[r]}" for r in ranks)
    return f"it takes {need}; you hold {held} and {_jokers(jokers)}"


def _jokers(n: int) -> str:
    return f"{n} joker" + ("" if n == 1 else "s")


def _no_beat(state, info) -> Refusal:
    standing = cat.ACTIONS[state.standing]
    by = f"it does not beat {standing.text} by player_{state.standing_seat}"
    mine = cat.BOMB_STRENGTH[info.combo]
    theirs = cat.BOMB_STRENGTH[standing.combo]
    if theirs:
        what = "not a higher one" if mine else "not a bomb"
        return Refusal("beat", f"{by}: only a higher bomb beats a bomb, and this is {what}")
    if (info.type, info.length) != (standing.type, standing.length):
        cards = f"{standing.length} card" + ("s" if standing.length > 1 else "")
        return Refusal("beat", f"{by}: only the same kind of play of {cards} with a higher "
                               f"rank, or a bomb, beats it")
    return Refusal("beat", f"{by} (not higher)")
