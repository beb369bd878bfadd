"""Moves as people name them: the legal moves listed and numbered by type, and what a person
types or selects (a number, a move's text or its beginning, or Dabang cards) turned into the
action ids the engine takes. Shared by terminal play (``cardenv.play``) and the web page
(``cardenv.web``)."""

from __future__ import annotations

import collections
import itertools

from cardenv.core.cards import card_str, parse_cards
from cardenv.text import move_label, phase_label, why_illegal

LIST_PER_TYPE = 12  # moves shown per type before "more TYPE" is needed
CARD_PHASES = {"play": "play", "bury": "bury"}  # Dabang phases where cards may be typed


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
    if cards and game.name == "dabang" and state.phase in CARD_PHASES:
        return _card_plan(state, cards, CARD_PHASES[state.phase], translate)
    if len(cards) == 1 and game.name == "dabang" and str(state.phase) in ONE_CARD_PHASES:
        return [_one_card_move(state, cards[0], translate)]
    if cards and game.name == "dabang" and str(state.phase) == "declare":
        raise ValueError(f"no card is played in the {translate(phase_label(game, 'declare'))}: "
                         f"declare with the moves of the list, or pass")
    if cards and game.name == "dagong":
        # the cards of a play, as the web page takes a selection (card_moves: why not, if not)
        options = card_moves(state, cards, translate)
        if len(options) == 1:
            return options[0]
        texts = ", ".join(f"[{legal.index(plan[0]) + 1}] "
                          f"{translate(game.action_info(plan[0]).text)}" for plan in options)
        raise ValueError(f"'{typed}' could be {len(options)} moves: {texts}; type its number")
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


#: Dabang phases whose moves name one card, and the move type that names it: a card typed
#: alone there means that move (``♠8`` in the tribute return: ``return ♠8``).
ONE_CARD_PHASES = {"return": "return", "koujoker": "bury", "takeback": "take"}


def _one_card_move(state, kind: int, translate) -> int:
    """Dabang: the move of this phase that names card ``kind``; ``ValueError`` with the rule
    it breaks when it is not legal."""
    game = state.game
    kind_type = ONE_CARD_PHASES[str(state.phase)]
    named = [a for a in range(game.num_actions)
             if game.action_info(a).type == kind_type and game.action_info(a).kind == kind]
    legal = [a for a in named if state.is_legal(a)]
    if legal:
        return legal[0]
    reason = why_illegal(state, named[0]) if named else "no move names that card now"
    text = translate(game.action_info(named[0]).text) if named else card_str(kind)
    raise ValueError(f"{text} is not legal now: {translate(reason)}")


def _cards_typed(typed: str) -> list[int]:
    try:
        return parse_cards(typed)
    except ValueError:
        return []


def _card_plan(state, cards: list[int], phase: str, translate=lambda text: text) -> list[int]:
    """Dabang: the actions that play (or bury) ``cards``: one per group of identical cards in
    a follow, one per card in a burial; the first order of the groups that is legal step by
    step on a copy of ``state``."""
    game = state.game
    counts = collections.Counter(cards)
    by_text = {game.action_info(a).text: a for a in range(game.num_actions)}
    if phase == "bury":
        steps = [[by_text[f"bury {card_str(k)}"]] * n for k, n in counts.items()]
        orders = [[a for step in steps for a in step]]
    else:
        names = {1: "single", 2: "pair", 3: "triple", 4: "quad"}
        groups = []
        for kind, n in counts.items():
            text = f"{names.get(n, '?')} {card_str(kind)}"
            if text not in by_text:
                raise ValueError(f"cannot play {n} x {card_str(kind)} as one group")
            groups.append(by_text[text])
        orders = [list(p) for p in itertools.islice(itertools.permutations(groups), 120)]
    reason = ""
    for order in orders:
        trial = state.clone()
        try:
            for action in order:
                if trial.current_player != state.current_player:
                    raise ValueError("more cards than this turn takes")
                why = why_illegal(trial, action)
                if why:
                    raise ValueError(f"{game.action_info(action).text}: {why}")
                trial.apply(action)
        except ValueError as exc:
            reason = reason or str(exc)
            continue
        if phase == "play" and not trial.is_over and \
                trial.v["selection"][state.current_player].any():
            reason = reason or (f"{len(cards)} cards do not finish your follow" if len(cards) > 1
                                else "1 card does not finish your follow") + ": add more"
            continue
        return order
    raise ValueError(f"cannot {phase} {' '.join(card_str(k) for k in cards)}: "
                     f"{translate(reason)}")


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


def _cards_text(kinds) -> str:
    return " ".join(card_str(k) for k in kinds)


def _dagong_profile(kinds, called: int) -> tuple:
    """What a Dagong action fixes of the cards it plays: the jokers, the count of each natural
    rank and the number of called-kind cards."""
    jokers = sum(1 for k in kinds if k >= 52)
    ranks = collections.Counter(k // 4 for k in kinds if k < 52)
    return jokers, ranks, sum(1 for k in kinds if k == called)


def _dagong_fits(info, kinds, called: int) -> bool:
    """Could action ``info`` be made of exactly ``kinds`` (ignoring which cards the engine
    would pick)? Jokers are wild; a 正510K's naturals are of its suit, a 杂510K's of two suits
    or more; the called kind is in the play iff the action plays the called card."""
    if info.combo is None or info.length != len(kinds):
        return False
    jokers, ranks, n_called = _dagong_profile(kinds, called)
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


def _dagong_plays(state, kinds) -> tuple[list[int], dict[int, list[int]]]:
    """The legal actions whose cards (as the engine takes them from the hand) match ``kinds``,
    and, for every legal action that fits ``kinds`` structurally, the cards it would take."""
    from cardenv.dagong.selection import select_cards

    game, seat, called = state.game, state.current_player, int(state.called)
    hand = [int(n) for n in state.hands[seat]]
    want = _dagong_profile(kinds, called)
    is_510k = {a: game.action_info(a).type == "510k" for a in state.legal_actions()}
    matches, takes = [], {}
    for action in state.legal_actions():
        info = game.action_info(action)
        if not _dagong_fits(info, kinds, called):
            continue
        taken = select_cards(hand, action, called)
        takes[action] = taken
        same = (sorted(taken) == sorted(kinds) if is_510k[action]
                else _dagong_profile(taken, called) == want)
        if same:
            matches.append(action)
    return matches, takes


def actions_for_cards(state, cards) -> list[int]:
    """Dagong: the legal actions of the seat to act that play exactly ``cards`` (card strings
    such as ``"♠10"`` / ``"SJ"``, or kinds) from its hand; ``[]`` if none (``card_moves`` says
    why). Dagong actions name ranks, not cards (jokers are wild, ``selection.select_cards``
    picks the suits), so an action matches when the cards it takes from this hand have the
    selection's number of jokers, count of each rank and number of called-kind cards -- and,
    for a 510K, the very same cards (its suits decide 正 or 杂). Several actions may match
    (``♠4 ♥4 SJ BJ``: a bomb of four 4s, or pair runs 3-4 and 4-5): the person picks one."""
    if state.game.name != "dagong":
        raise ValueError(f"actions_for_cards is for Dagong; {state.game.name} plays cards "
                         f"through card_moves")
    kinds = _kinds(cards)
    if state.is_over or state.phase != "play" or not kinds:
        return []
    held = collections.Counter(int(k) for k in kinds)
    hand = state.hands[state.current_player]
    if any(hand[k] < n for k, n in held.items()):
        return []
    return _dagong_plays(state, kinds)[0]


def _dagong_refusal(state, kinds, translate) -> str:
    """Why no legal Dagong action plays exactly ``kinds`` (the selection is in the hand)."""
    game, called = state.game, int(state.called)
    shown = _cards_text(kinds)
    _, takes = _dagong_plays(state, kinds)
    if takes:  # legal combinations of these ranks, but the engine would take other cards
        action, taken = next(iter(takes.items()))
        return (f"{translate(game.action_info(action).text)} would play "
                f"{_cards_text(taken)} from your hand, not {shown} (a Dagong move names ranks "
                f"and jokers; the game picks the cards): select those, or choose the move from "
                f"the list")
    fitting = [a for a in range(game.num_actions) if _dagong_fits(game.action_info(a), kinds,
                                                                     called)]
    if not fitting:
        return f"{shown} is not a Dagong combination"
    text = translate(game.action_info(fitting[0]).text)
    reason = why_illegal(state, fitting[0])
    return f"{text} is not legal now" + (f": {translate(reason)}" if reason else "")


def card_moves(state, cards, translate=lambda text: text) -> list[list[int]]:
    """What selecting ``cards`` (card strings or kinds) from the hand of the seat to act means:
    a list of alternatives, each a list of actions to apply in order; ``ValueError`` with the
    reason if the cards are not a legal move. Dagong: one alternative per matching action
    (``actions_for_cards``; the person picks when there are several). Dabang: one alternative,
    a whole lead, follow or burial planned step by step (as ``parse_move`` plans typed cards),
    or the one action that buries (扣王) or gives back a single selected card."""
    if state.is_over:
        raise ValueError("the game is over")
    kinds = _kinds(cards)
    if not kinds:
        raise ValueError("no card selected: click cards in your hand, or choose a move from "
                         "the list")
    game, seat = state.game, state.current_player
    shown = _cards_text(kinds)
    hand = _hand_counts(state, seat)
    missing = [k for k, n in collections.Counter(kinds).items() if hand[k] < n]
    if missing:
        raise ValueError(f"you do not hold {_cards_text(missing)}"
                         + (" that many times" if all(hand[k] for k in missing) else ""))
    if game.name == "dagong":
        if state.phase != "play":
            raise ValueError("no card is played now: choose a move from the list")
        matches = actions_for_cards(state, kinds)
        if not matches:
            raise ValueError(_dagong_refusal(state, kinds, translate))
        return [[a] for a in matches]
    if game.name == "dabang":
        phase = str(state.phase)
        if phase in CARD_PHASES:
            return [_card_plan(state, kinds, CARD_PHASES[phase], translate)]
        singles = [a for a in state.legal_actions()
                   if getattr(game.action_info(a), "kind", None) == kinds[0]]
        if len(kinds) == 1 and singles:
            return [singles[:1]]
        raise ValueError(f"{shown} cannot be played now ({translate(phase_label(game, phase))}): "
                         f"choose a move from the list")
    raise ValueError(f"no card selection for game {game.name!r}: choose a move from the list")


def _hand_counts(state, seat: int) -> list[int]:
    """The copy count of each kind in ``seat``'s hand (Dagong ``hands``, Dabang ``v['hand']``)."""
    hands = state.v["hand"] if state.game.name == "dabang" else state.hands
    return [int(n) for n in hands[seat]]


def move_cards(state, action: int) -> list[str]:
    """The cards (strings) ``action`` would take from the hand of the seat to act, for the page
    to show beside the move and to highlight: a Dagong play's cards as the game picks them, a
    Dabang play's, burial's or give-back's; ``[]`` for moves without cards."""
    game = state.game
    info = game.action_info(action)
    if game.name == "dagong":
        if info.combo is None:
            return []
        from cardenv.dagong.selection import select_cards
        hand = [int(n) for n in state.hands[state.current_player]]
        return [card_str(k) for k in sorted(select_cards(hand, action, int(state.called)))]
    kind = getattr(info, "kind", None)
    if kind is None or info.type == "take":  # a take-back names a kitty card, not a hand card
        return []
    return [card_str(kind)] * max(1, int(getattr(info, "count", 1) or 1))
