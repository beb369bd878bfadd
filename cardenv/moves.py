"""Moves as people name them: the legal moves listed and numbered by type, and what a person
types or selects (a number, a move's text or its beginning, or cards) turned into the action
ids the engine takes. Shared by terminal play (``cardenv.play``) and the web page
(``cardenv.web``).

What cards mean is each game's own: its presentation (``cardenv.games.presentation``) gives
``card_moves`` (cards selected from the hand), ``typed_moves`` (cards typed), ``move_cards``
(the cards a move takes) and ``open_step`` (a move being built step by step); this module
holds what is common and branches on no game."""

from __future__ import annotations

import collections

from cardenv import games
from cardenv.core.cards import card_str, parse_cards
from cardenv.text import move_label, seat_view, why_illegal

LIST_PER_TYPE = 12  # moves shown per type before "more TYPE" is needed


def _presentation(state):
    return games.presentation(state.game.name)


def _normal(text: str) -> str:
    """Lower case, single spaces, and card tokens written as the engine writes them (``4s`` ->
    ``♠4``), so that typed moves compare with action texts."""
    out = []
    for token in text.strip().split():
        try:
            (kind,) = parse_cards(token)
            token = card_str(kind)
        except ValueError:
            pass
        out.append(token)
    return " ".join(out).lower()


def group_moves(game, legal: list[int]) -> "collections.OrderedDict[str, list[int]]":
    """The legal actions grouped by type, in catalogue order."""
    groups: collections.OrderedDict[str, list[int]] = collections.OrderedDict()
    for action in legal:
        groups.setdefault(game.action_info(action).type, []).append(action)
    return groups


def numbered(game, legal: list[int]) -> list[int]:
    """The legal actions in the order they are listed and numbered (by type)."""
    return [a for actions in group_moves(game, legal).values() for a in actions]


def label(game, kind: str, translate=lambda text: text, phase: str | None = None) -> str:
    """The name people read for move type ``kind`` (``cardenv.text.move_label``: ``连对`` for
    ``pair_run``, ``扣王`` for a Dabang joker burial), through ``translate``."""
    return translate(move_label(game, kind, phase=phase))


def is_type(game, kind: str, typed: str, translate=lambda text: text,
            phase: str | None = None) -> bool:
    """Whether ``typed`` names move type ``kind``: its label (in Chinese or English) or its id,
    in any case."""
    typed = " ".join(typed.split()).lower()
    return typed in (kind.lower(), label(game, kind, phase=phase).lower(),
                     label(game, kind, translate, phase).lower())


def moves_text(game, legal: list[int], translate, expand: str | None = None,
               phase: str | None = None) -> str:
    """The numbered list of legal moves (numbers count from 1 in ``numbered`` order), grouped
    by type under its label; long groups are cut to ``LIST_PER_TYPE`` unless named by
    ``expand`` (a type's label or id)."""
    number = {a: i + 1 for i, a in enumerate(numbered(game, legal))}
    lines = [f"Your legal moves ({len(legal)}):"]
    for kind, actions in group_moves(game, legal).items():
        name = label(game, kind, translate, phase)
        whole = expand is not None and is_type(game, kind, expand, translate, phase)
        shown = actions if whole else actions[:LIST_PER_TYPE]
        items = "  ".join(f"[{number[a]}] {translate(game.action_info(a).text)}" for a in shown)
        more = "" if len(shown) == len(actions) else \
            f"  ... {len(actions) - len(shown)} more: type 'more {name}'"
        lines.append(f"  {name}: {items}{more}")
    return "\n".join(lines)


def parse_move(state, typed: str, translate) -> list[int]:
    """The action(s) ``typed`` means in ``state``; ``ValueError`` with the reason otherwise.
    One action, except a Dabang follow or burial typed as cards (several, checked whole on a
    copy of the state, in the order typed or any order of its groups)."""
    game = state.game
    if not isinstance(typed, str):
        raise ValueError(f"a move is typed as text, got {typed!r}")
    legal = numbered(game, state.legal_actions())
    typed = typed.strip()
    if typed.isascii() and typed.isdigit():  # not '²' (a digit to isdigit, not to int)
        if len(typed) > 6:
            raise ValueError(f"{typed[:12]}... is not in the list: choose 1..{len(legal)}")
        n = int(typed)
        if not 1 <= n <= len(legal):
            raise ValueError(f"{n} is not in the list: choose 1..{len(legal)}")
        return [legal[n - 1]]
    want = _normal(typed)
    texts = {a: _normal(game.action_info(a).text) for a in legal}
    texts_en = {a: _normal(translate(game.action_info(a).text)) for a in legal}
    exact = [a for a in legal if want in (texts[a], texts_en[a])]
    if exact:
        return exact[:1]
    cards = _cards_typed(typed)
    if cards:  # the game's reading of typed cards; None: they name no move here
        options = _presentation(state).typed_moves(
            state, cards, translate, lambda kinds: card_moves(state, kinds, translate))
        if options is not None and len(options) == 1:
            return options[0]
        if options:
            texts = ", ".join(f"[{legal.index(plan[0]) + 1}] "
                              f"{translate(game.action_info(plan[0]).text)}"
                              for plan in options)
            raise ValueError(f"'{typed}' could be {len(options)} moves: {texts}; type its "
                             f"number")
    starts = [a for a in legal if texts[a].startswith(want) or texts_en[a].startswith(want)]
    if len(starts) == 1:
        return starts
    if starts:
        options = ", ".join(translate(game.action_info(a).text) for a in starts[:8])
        raise ValueError(f"'{typed}' could be {len(starts)} moves: {options}"
                         + (", ..." if len(starts) > 8 else "") + "; type more of it or a number")
    named = [a for a in range(game.num_actions)
             if want in (_normal(game.action_info(a).text),
                         _normal(translate(game.action_info(a).text)))]
    if named:  # a move of the game, not legal here: say why
        reason = why_illegal(state, named[0])
        raise ValueError(f"{translate(game.action_info(named[0]).text)} is not legal now: "
                         f"{translate(reason)}")
    raise ValueError(f"'{typed}' is not a legal move here; type a number from the list, a move "
                     f"such as '{translate(game.action_info(legal[-1]).text)}', or 'moves'")


def _cards_typed(typed: str) -> list[int]:
    try:
        return parse_cards(typed)
    except ValueError:
        return []


# --- cards selected on a page (cardenv.web) ------------------------------------------------------

def _kinds(cards) -> list[int]:
    """Card kinds from card strings (``"♠10"``, ``"10S"``, ``"SJ"``) or kinds (ints)."""
    kinds = []
    for card in cards:
        if isinstance(card, str):
            kinds.extend(parse_cards(card))
        elif isinstance(card, int) and not isinstance(card, bool) and 0 <= card < 54:
            kinds.append(card)
        else:
            raise ValueError(f"cannot read card {card!r}: expected e.g. '♠10', 'SJ' or a kind "
                             f"0..53")
    return kinds


def card_moves(state, cards, translate=lambda text: text) -> list[list[int]]:
    """What selecting ``cards`` (card strings or kinds) from the hand of the seat to act means:
    a list of alternatives, each a list of actions to apply in order; ``ValueError`` with the
    reason if the cards are not a legal move. The game's presentation decides (its
    ``card_moves``): Dagong gives one alternative per matching action (the person picks when
    there are several); Dabang one, a whole lead, follow or burial planned step by step (as
    ``parse_move`` plans typed cards), or the one action that buries (扣王) or gives back a
    single selected card."""
    if state.is_over:
        raise ValueError("the game is over")
    kinds = _kinds(cards)
    if not kinds:
        raise ValueError("no card selected: click cards in your hand, or choose a move from "
                         "the list")
    hand = collections.Counter(seat_view(state, state.current_player)["hand"])  # card texts
    missing = [card_str(k) for k, n in collections.Counter(kinds).items()
               if hand[card_str(k)] < n]
    if missing:
        raise ValueError(f"you do not hold {' '.join(missing)}"
                         + (" that many times" if all(hand[c] for c in missing) else ""))
    return _presentation(state).card_moves(state, kinds, translate)


def move_cards(state, action: int) -> list[str]:
    """The cards (strings) ``action`` would take from the hand of the seat to act, for the page
    to show beside the move and to highlight (the presentation's ``move_cards``: a Dagong
    play's cards as the game picks them, a Dabang play's, burial's or give-back's); ``[]`` for
    moves without cards."""
    return list(_presentation(state).move_cards(state, action))


def open_step(state) -> list[str] | None:
    """The cards of a move that the seat to act is building step by step (a Dabang follow,
    one group of cards at a time), or ``None`` when no move is partly made (the presentation's
    ``open_step``)."""
    return _presentation(state).open_step(state)
