"""Dagong moves as cards of a hand, for people (the presentation's ``card_moves``,
``typed_moves`` and ``move_cards``, reached through ``cardenv.moves``): the cards a person
selects on the page or types in the terminal turned into the actions that play them, and back.

A Dagong action names ranks and jokers, not cards (jokers are wild, ``selection.select_cards``
picks the suits), so an action matches a selection when the cards it takes from the hand have
the selection's number of jokers, count of each rank and number of called-kind cards -- and,
for a 510K, the very same cards (its suits decide 正 or 杂).
"""

from __future__ import annotations

from cardenv.core.cards import card_str, parse_cards
from cardenv.dagong.reasons import why_illegal
from cardenv.dagong.selection import select_cards


def _cards_text(kinds) -> str:
    return " ".join(card_str(k) for k in kinds)


def _count(values) -> dict:
    """How many times each value occurs (a ``collections.Counter``, which the engine's
    packages do not import)."""
    counts: dict = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def _profile(kinds, called: int) -> tuple:
    """What a Dagong action fixes of the cards it plays: the jokers, the count of each natural
    rank and the number of called-kind cards."""
    jokers = sum(1 for k in kinds if k >= 52)
    ranks = _count(k // 4 for k in kinds if k < 52)
    return jokers, ranks, sum(1 for k in kinds if k == called)


def _fits(info, kinds, called: int) -> bool:
    """Could action ``info`` be made of exactly ``kinds`` (ignoring which cards the engine
    would pick)? Jokers are wild; a 正510K's naturals are of its suit, a 杂510K's of two suits
    or more; the called kind is in the play iff the action plays the called card."""
    if info.combo is None or info.length != len(kinds):
        return False
    jokers, ranks, n_called = _profile(kinds, called)
    if jokers != info.jokers or (n_called > 0) != info.called:
        return False
    if any(r not in info.ranks or n > info.per_rank for r, n in ranks.items()):
        return False
    if info.type == "510k":
        naturals = [k for k in kinds if k < 52]
        if info.joker_as is not None and info.joker_as in ranks:
            return False
        suits = {k % 4 for k in naturals}
        return suits == {info.suit} if info.zheng else len(suits) >= 2
    return True


def _plays(state, kinds) -> tuple[list[int], dict[int, list[int]]]:
    """The legal actions whose cards (as the engine takes them from the hand) match ``kinds``,
    and, for every legal action that fits ``kinds`` structurally, the cards it would take."""
    game, seat, called = state.game, state.current_player, int(state.called)
    hand = [int(n) for n in state.hands[seat]]
    want = _profile(kinds, called)
    matches, takes = [], {}
    for action in state.legal_actions():
        info = game.action_info(action)
        if not _fits(info, kinds, called):
            continue
        taken = select_cards(hand, action, called)
        takes[action] = taken
        same = (sorted(taken) == sorted(kinds) if info.type == "510k"
                else _profile(taken, called) == want)
        if same:
            matches.append(action)
    return matches, takes


def actions_for_cards(state, cards) -> list[int]:
    """The legal actions of the seat to act that play exactly ``cards`` (kinds, or card strings
    such as ``"♠10"`` / ``"SJ"``) from its hand; ``[]`` if none (``card_moves`` says why).
    Several actions may match (``♠4 ♥4 SJ BJ``: a bomb of four 4s, or pair runs 3-4 and 4-5):
    the person picks one."""
    if state.game.name != "dagong":
        raise ValueError(f"actions_for_cards is for Dagong; {state.game.name} plays cards "
                         f"through cardenv.moves.card_moves")
    kinds = [k for card in cards for k in (parse_cards(card) if isinstance(card, str)
                                           else [int(card)])]
    if state.is_over or state.phase != "play" or not kinds:
        return []
    held = _count(int(k) for k in kinds)
    hand = state.hands[state.current_player]
    if any(hand[k] < n for k, n in held.items()):
        return []
    return _plays(state, kinds)[0]


def _refusal(state, kinds, translate) -> str:
    """Why no legal Dagong action plays exactly ``kinds`` (the selection is in the hand)."""
    game, called = state.game, int(state.called)
    shown = _cards_text(kinds)
    _, takes = _plays(state, kinds)
    if takes:  # legal combinations of these ranks, but the engine would take other cards
        action, taken = next(iter(takes.items()))
        return (f"{translate(game.action_info(action).text)} would play "
                f"{_cards_text(taken)} from your hand, not {shown} (a Dagong move names ranks "
                f"and jokers; the game picks the cards): select those, or choose the move from "
                f"the list")
    fitting = [a for a in range(game.num_actions) if _fits(game.action_info(a), kinds, called)]
    if not fitting:
        return f"{shown} is not a Dagong combination"
    text = translate(game.action_info(fitting[0]).text)
    reason = why_illegal(state, fitting[0])
    return f"{text} is not legal now" + (f": {translate(reason)}" if reason else "")


def card_moves(state, kinds, translate) -> list[list[int]]:
    """What the cards ``kinds`` (held by the seat to act) mean: one alternative per matching
    action (``actions_for_cards``); ``ValueError`` with the reason if none."""
    if state.phase != "play":
        raise ValueError("no card is played now: choose a move from the list")
    matches = actions_for_cards(state, kinds)
    if not matches:
        raise ValueError(_refusal(state, kinds, translate))
    return [[a] for a in matches]


def typed_moves(state, kinds, translate, select) -> list[list[int]]:
    """Cards typed in the terminal mean what they mean selected on the page: ``select(kinds)``
    (``cardenv.moves.card_moves``, which checks the hand first, then calls ``card_moves``)."""
    return select(kinds)


def move_cards(state, action: int) -> list[str]:
    """The cards (strings) ``action`` would take from the hand of the seat to act: a play's
    cards as the game picks them; ``[]`` for a pass or a 硬牌 decision."""
    if state.game.action_info(action).combo is None:
        return []
    hand = [int(n) for n in state.hands[state.current_player]]
    return [card_str(k) for k in sorted(select_cards(hand, action, int(state.called)))]
