"""Dabang moves as cards, for people (the presentation's ``card_moves``, ``typed_moves``,
``move_cards`` and ``open_step``, reached through ``cardenv.moves``): a whole lead, follow or
burial selected on the page or typed in the terminal is planned as the actions that make it
step by step (one per group of identical cards in a follow, one per card in a burial), checked
on a copy of the state; in the tribute return, 扣王 and take-back one card means the move that
names it.
"""

from __future__ import annotations

import itertools

from cardenv.core.cards import card_str, kinds_of
from cardenv.dabang.phase import phase_label
from cardenv.dabang.reasons import why_illegal

CARD_PHASES = {"play": "play", "bury": "bury"}  # phases where a whole turn is given as cards
#: Phases whose moves name one card, and the move type that names it: a card typed alone
#: there means that move (``♠8`` in the tribute return: ``return ♠8``).
ONE_CARD_PHASES = {"return": "return", "koujoker": "bury", "takeback": "take"}
GROUPS = {1: "single", 2: "pair", 3: "triple", 4: "quad"}


def open_step(state) -> list[str] | None:
    """The cards of the follow the seat to act is building step by step (its selection so
    far), or ``None`` when no follow is partly chosen."""
    if state.is_over:
        return None
    chosen = state.v["selection"][state.current_player]
    return [card_str(k) for k in kinds_of(chosen)] if chosen.any() else None


def plan(state, cards: list[int], phase: str, translate=lambda text: text) -> list[int]:
    """The actions that play (or bury) ``cards``: the first order of the groups that is legal
    step by step on a copy of ``state`` (``ValueError`` with the reason if none is)."""
    game = state.game
    counts: dict[int, int] = {}
    for kind in cards:
        counts[kind] = counts.get(kind, 0) + 1
    by_text = {game.action_info(a).text: a for a in range(game.num_actions)}
    if phase == "bury":
        steps = [[by_text[f"bury {card_str(k)}"]] * n for k, n in counts.items()]
        orders = [[a for step in steps for a in step]]
    else:
        groups = []
        for kind, n in counts.items():
            text = f"{GROUPS.get(n, '?')} {card_str(kind)}"
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
        if phase == "play" and open_step(trial):
            reason = reason or (f"{len(cards)} cards do not finish your follow" if len(cards) > 1
                                else "1 card does not finish your follow") + ": add more"
            continue
        return order
    raise ValueError(f"cannot {phase} {' '.join(card_str(k) for k in cards)}: "
                     f"{translate(reason)}")


def _one_card_move(state, kind: int, translate) -> int:
    """The move of this phase that names card ``kind``; ``ValueError`` with the rule it breaks
    when it is not legal."""
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


def typed_moves(state, kinds, translate, select) -> list[list[int]] | None:
    """What cards typed in the terminal mean (``None``: no move of this phase is typed as
    cards, so the text is read otherwise): a whole follow or burial, or the one-card move of
    the tribute return, 扣王 and take-back; no card is played in the declarations."""
    phase = str(state.phase)
    if phase in CARD_PHASES:
        return [plan(state, kinds, CARD_PHASES[phase], translate)]
    if len(kinds) == 1 and phase in ONE_CARD_PHASES:
        return [[_one_card_move(state, kinds[0], translate)]]
    if phase == "declare":
        raise ValueError(f"no card is played in the {translate(phase_label('declare'))}: "
                         f"declare with the moves of the list, or pass")
    return None


def card_moves(state, kinds, translate) -> list[list[int]]:
    """What the cards ``kinds`` (held by the seat to act) mean: a whole lead, follow or burial
    planned step by step, or the one action that buries (扣王) or gives back a selected card;
    ``ValueError`` with the reason otherwise."""
    game, phase = state.game, str(state.phase)
    if phase in CARD_PHASES:
        return [plan(state, kinds, CARD_PHASES[phase], translate)]
    singles = [a for a in state.legal_actions()
               if getattr(game.action_info(a), "kind", None) == kinds[0]]
    if len(kinds) == 1 and singles:
        return [singles[:1]]
    raise ValueError(f"{' '.join(card_str(k) for k in kinds)} cannot be played now "
                     f"({translate(phase_label(phase))}): choose a move from the list")


def move_cards(state, action: int) -> list[str]:
    """The cards (strings) ``action`` would take from the hand of the seat to act: a play's,
    a burial's or a give-back's; ``[]`` for moves without cards (a take-back names a kitty
    card, not a hand card)."""
    info = state.game.action_info(action)
    kind = getattr(info, "kind", None)
    if kind is None or info.type == "take":
        return []
    return [card_str(kind)] * max(1, int(getattr(info, "count", 1) or 1))
