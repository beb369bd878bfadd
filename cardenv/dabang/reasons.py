"""Why a Dabang action is illegal, in words: ``refusal(state, action)`` gives the rule it breaks
(``Refusal.rule``, one of :data:`CLAUSES`) and a sentence for a person (``Refusal.text``: English
that keeps the game's Chinese terms, as every text of the project; ``core.lang.translate`` makes
it English), or ``None`` for a legal action.

The reasons are read from the engine's own rule code, never a second copy of it: the follow
duties from ``follow.play_steps_one`` asked twice (with the 死棒 shape duty and without it: a
step the suit rule alone allows but the engine refuses breaks 死棒), the led suit from
``strength.SUIT_CLASS`` and the duty shape from ``follow.duty_index`` / ``follow.SHAPES``; the
declarations from ``declare.rank_of``, the burial and 扣王 orders and the take-back from
``kitty`` and the phase modules' legal lists. ``tests/cardenv/dabang/test_reasons.py`` holds the
rule given for many random states and actions to the engine's legality.
"""

from __future__ import annotations

from cardenv.core.cards import BIG_JOKER, NUM_NATURAL, SMALL_JOKER, SUIT_SYMBOLS, card_str
from cardenv.core.refusals import Refusal, refuse, text_of
from cardenv.dabang import catalogue as cat
from cardenv.dabang import declare
from cardenv.dabang.follow import SHAPES, duty_index, play_steps_one
from cardenv.dabang.phase import Phase
from cardenv.dabang.phases import RULES
from cardenv.dabang.strength import RANK_2, TRUMP, level_rank, suit_row

#: Each rule a refusal can name -> the clause of docs/rules/dabang.md it comes from.
CLAUSES = {
    "range": "the action space (catalogue: ids 0..403)",
    "over": "the episode has ended",
    "turn": "section 4: players act in turn",
    "phase": "the hand's decision phases (game.py): each phase takes its own moves",
    "not_held": "a player plays, buries, gives or shows only cards it holds",
    "grab": "section 2: the big-joker grab (抢亮大王), first hand only, the first grab stands "
            "[D-A2]",
    "declare_rank": "section 2: a declaration overrides only a strictly higher one [D-A4]",
    "joker_order": "section 3: the burial and 扣王, a big joker before any small joker",
    "koujoker": "section 3: 扣王 buries jokers only [D-A6]",
    "takeback": "section 3: 扣王 takes back the kitty's smallest non-point cards [DB-7]",
    "repeat": "section 4: a follow is built one group of identical cards per kind [DB-9]",
    "count": "section 4: every other player plays exactly k cards (or all it has)",
    "suit": "section 4: follow suit (trump is one suit)",
    "shape": "section 4: 死棒, the follow-shape duty [D-A7]",
    "other": "not among the legal moves",
}

_PHASE_MOVES = {  # the action types each decision phase takes
    Phase.DECLARE: ("pass", "grab", "declare"), Phase.RETURN: ("return",),
    Phase.BURY: ("bury",), Phase.KOUJOKER: ("pass", "bury"), Phase.TAKEBACK: ("take",),
    Phase.PLAY: ("play",),
}
_PHASE_WORDS = {
    Phase.DECLARE: "it is the 亮主: declare trump or pass",
    Phase.RETURN: "you, the dealer, are giving cards back for the 喝血: give back a card",
    Phase.BURY: "you, the dealer, are burying 8 cards into the 底牌: bury a card",
    Phase.KOUJOKER: "it is 扣王: bury a joker into the 底牌, or pass to stop",
    Phase.TAKEBACK: "after 扣王 you take back the 底牌's smallest cards: choose which",
    Phase.PLAY: "the tricks are being played: play cards",
}
SHAPE_WORDS = {(1,): "a single", (2,): "a 棒", (1, 1): "two singles", (3,): "a 滚子",
               (2, 1): "a 棒 and a single", (1, 1, 1): "three singles", (4,): "a 四联",
               (3, 1): "a 滚子 and a single", (2, 2): "two 棒", (2, 1, 1): "a 棒 and two singles",
               (1, 1, 1, 1): "four singles"}
LEAD_WORDS = {1: "a single", 2: "a 棒", 3: "a 滚子", 4: "a 四联"}


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
    phase = state.phase
    if info.type not in _PHASE_MOVES[phase]:
        return Refusal("phase", f"'{info.text}' is not a move now: {_PHASE_WORDS[phase]}")
    check = {Phase.DECLARE: _declare, Phase.RETURN: _return, Phase.BURY: _bury,
             Phase.KOUJOKER: _koujoker, Phase.TAKEBACK: _takeback, Phase.PLAY: _play}[phase]
    return check(state, action, info) or Refusal(
        "other", f"'{info.text}' is not among the legal moves now")


def _hand(state) -> list[int]:
    return state.v["hand"][state.current].tolist()


def _cards(kind: int, count: int = 1) -> str:
    return " ".join([card_str(kind)] * count)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _listed(cards: list[str], most: int = 10) -> str:
    return " ".join(cards[:most]) + (f" and {len(cards) - most} more" if len(cards) > most else "")


def _not_held(hand, kind: int, count: int = 1) -> Refusal | None:
    held = hand[kind]
    if held >= count:
        return None
    more = "" if not held else f" (you hold {held})"
    return Refusal("not_held", f"you do not hold {_cards(kind, count)}{more}")


# --- declare, return, bury, 扣王, take back ----------------------------------------------------

def _declare(state, action: int, info) -> Refusal | None:
    hand, deal = _hand(state), state.deal
    standing = deal.decl
    if action == cat.GRAB:
        if not state.first_hand:
            return Refusal("grab", "the 抢亮大王 is for a match's first hand only; later hands "
                                   "declare with 混牌 or four jokers")
        if standing:
            return Refusal("grab", f"player_{deal.declarer} has grabbed the trump already: the "
                                   f"first grab stands")
        return _not_held(hand, BIG_JOKER)
    if state.first_hand:
        return Refusal("grab", "in a match's first hand trump is only grabbed with a big joker "
                               "(抢亮大王); 混牌 and joker declarations come in later hands")
    if info.with_ == "level":
        kind = level_rank(state.level) * 4 + info.suit
        missing = _not_held(hand, kind, info.count)
        if missing:
            return Refusal("not_held", f"{missing.text}: {card_str(kind)} is the 混牌 of "
                                       f"{SUIT_SYMBOLS[info.suit]} at level {state.level}")
    else:
        joker = SMALL_JOKER if info.with_ == "small_jokers" else BIG_JOKER
        missing = _not_held(hand, joker, 4)
        if missing:
            return missing
    if declare.rank_of(action) <= declare.rank_of(standing):
        return Refusal("declare_rank", f"it does not beat the standing declaration "
                                       f"'{cat.ACTIONS[standing].text}' by player_"
                                       f"{deal.declarer}: a declaration must show strictly more "
                                       f"copies of its 混牌 (four small jokers beat any 混牌, four "
                                       f"big jokers beat four small ones)")
    return None


def _return(state, action: int, info) -> Refusal | None:
    return _not_held(_hand(state), info.kind)


def _joker_first(hand, kind: int) -> Refusal | None:
    if kind == SMALL_JOKER and hand[BIG_JOKER]:
        return Refusal("joker_order", "a big joker goes into the 底牌 before any small joker: "
                                      "you still hold BJ")
    return None


def _bury(state, action: int, info) -> Refusal | None:
    hand = _hand(state)
    return _not_held(hand, info.kind) or _joker_first(hand, info.kind)


def _koujoker(state, action: int, info) -> Refusal | None:
    if info.kind < NUM_NATURAL:
        return Refusal("koujoker", f"扣王 buries jokers only, not {card_str(info.kind)}: bury "
                                   f"a joker or pass to stop")
    hand = _hand(state)
    return _not_held(hand, info.kind) or _joker_first(hand, info.kind)


def _takeback(state, action: int, info) -> Refusal | None:
    cards = [card_str(cat.ACTIONS[a].kind) for a in RULES[Phase.TAKEBACK].legal(state)]
    choices = " or ".join([", ".join(cards[:-1]), cards[-1]] if len(cards) > 1 else cards)
    where = "is not in the 底牌" if info.kind not in state.kitty.cards else "is not the smallest"
    return Refusal("takeback", f"{card_str(info.kind)} {where}: you take back the 底牌's "
                               f"smallest non-point cards (side cards before 主牌, then by face "
                               f"rank), here {choices}")


# --- play ------------------------------------------------------------------------------------

def suit_name(kind: int, trump: int, level: int) -> str:
    """The "suit" ``kind`` follows as: its side suit, or 主牌."""
    cls = int(suit_row(trump, level)[kind])
    return "主牌" if cls == TRUMP else SUIT_SYMBOLS[cls]


def trump_note(kind: int, trump: int, level: int) -> str:
    """Why ``kind`` is trump though its suit is not the trump suit (``""`` otherwise)."""
    if kind >= NUM_NATURAL:
        return f"{card_str(kind)} is 主牌"
    if int(suit_row(trump, level)[kind]) != TRUMP or kind % 4 == trump:
        return ""
    what = "of the level rank (a 混牌)" if kind // 4 == level_rank(level) else \
        "a 2 (常主)" if kind // 4 == RANK_2 else ""
    return f"{card_str(kind)} is {what} and counts as 主牌, not as {SUIT_SYMBOLS[kind % 4]}"


def _play(state, action: int, info) -> Refusal | None:
    t, seat = state.trick, state.current
    hand, kind, count = _hand(state), info.kind, info.count
    trump, level = state.trump, state.level
    if kind in t.partial:
        return Refusal("repeat", f"you chose {_cards(kind, t.partial[kind])} already in this "
                                 f"follow: each kind goes in once, as one group")
    missing = _not_held(hand, kind, count)
    if missing or t.led_kind < 0:
        return missing
    size = state.cards_left[seat]
    k = min(t.k, size)
    remaining = k - sum(t.partial.values())
    if count > remaining:
        left = f"you play {_n(k, 'card')}" if remaining == k else \
            f"your follow is {_n(k, 'card')}, {remaining} more to choose"
        return Refusal("count", f"{LEAD_WORDS[t.k]} was led: {left}, not {count}")
    step = 4 * kind + count - 1
    live = play_steps_one(hand, t.partial, t.led_kind, t.k, trump, level, False, size)
    if step not in live:
        return _suit_duty(state, hand, kind, count, k)
    dead = play_steps_one(hand, t.partial, t.led_kind, t.k, trump, level, True, size)
    if step not in dead:
        return _shape_duty(state, hand, kind, count, k)
    return None


def _led_suit(state, hand) -> tuple[int, list[int]]:
    """The led suit class and the kinds of it in ``hand``."""
    row = suit_row(state.trump, state.level)
    led = int(row[state.trick.led_kind])
    return led, [j for j, h in enumerate(hand) if h and int(row[j]) == led]


def _suit_duty(state, hand, kind: int, count: int, k: int) -> Refusal:
    trump, level, t = state.trump, state.level, state.trick
    led, kinds = _led_suit(state, hand)
    name = suit_name(t.led_kind, trump, level)
    held = sum(hand[j] for j in kinds)
    mine = _listed([card_str(j) for j in kinds for _ in range(hand[j] - t.partial.get(j, 0))])
    chosen = [card_str(j) for j in kinds for _ in range(t.partial.get(j, 0))]
    # ``held`` counts the led-suit cards chosen in this follow too: say which, so that the
    # count and the cards listed agree
    chosen = f"; {' '.join(chosen)} chosen already" if chosen else ""
    in_suit = int(suit_row(trump, level)[kind]) == led
    cards = _cards(kind, count)
    if not mine:  # void in the led suit, or all of it chosen: the rest is free, but each
        # kind goes in once, so a kind split in two cannot complete the follow
        free = f"you hold no {name} card" if held == 0 else f"your {name} cards are all in"
        return Refusal("suit", f"{free}, so any cards complete the {_n(k, 'card')}, but after "
                               f"{cards} yours cannot: each kind goes in once, as one group "
                               f"(choose its copies together)")
    if not in_suit:
        note = trump_note(kind, trump, level)
        note = f" ({note})" if note else ""
        if held >= k:
            return Refusal("suit", f"you must follow the led suit, {name}: you hold "
                                   f"{_n(held, name + ' card')} ({mine}{chosen}), and {cards} "
                                   f"is not {name}{note}")
        return Refusal("suit", f"you hold only {_n(held, name + ' card')}, fewer than the {k} to "
                               f"play: all of them go in first ({mine} still to play{chosen}), "
                               f"then others; {cards} leaves no room for them{note}")
    if held < k:
        return Refusal("suit", f"you hold only {_n(held, name + ' card')}, fewer than the {k} "
                               f"to play, so all of them go in: play all {hand[kind]} of "
                               f"{card_str(kind)}, not {count}")
    return Refusal("suit", f"you must play {_n(k, name + ' card')}: after {cards} your other "
                           f"{name} cards ({mine}) cannot complete the follow")


def duty_shape(state, hand) -> tuple[int, ...]:
    """The 死棒 duty shape of the seat to act: the best shape of ``SHAPES[k]`` its led-suit
    cards make without breaking a group (``follow.duty_index``)."""
    _, kinds = _led_suit(state, hand)
    counts = [hand[j] for j in kinds]
    k = min(state.trick.k, state.cards_left[state.current])
    return SHAPES[k][int(duty_index(k, counts.count(2), counts.count(3), counts.count(4)))]


def _shape_duty(state, hand, kind: int, count: int, k: int) -> Refusal:
    trump, level, t = state.trump, state.level, state.trick
    shape = duty_shape(state, hand)
    _, kinds = _led_suit(state, hand)
    name = suit_name(t.led_kind, trump, level)
    parts = [p for p in shape if p > 1]
    example = ""
    if parts:
        groups = [_cards(j, hand[j]) for j in kinds if hand[j] == parts[0]]
        example = f" (your {', '.join(groups[:3])})" if groups else ""
    so_far = "" if not t.partial else " after " + " ".join(
        _cards(j, c) for j, c in t.partial.items())
    # a group split from its copies says so ('♦8 alone (you hold 3)' beside 'your ♦8 ♦8 ♦8')
    split = f" alone (you hold {hand[kind]})" if count < hand[kind] else ""
    return Refusal("shape", f"死棒: {LEAD_WORDS[t.k]} was led and your {name} cards make "
                            f"{SHAPE_WORDS[shape]}{example}: follow with that shape or a "
                            f"better one; {_cards(kind, count)}{split}{so_far} cannot make one")
