"""Text rendering of a Dagong state: a table of seats with suit symbols, the play to beat,
points and places. Used by the env's ``ansi`` and ``human`` render modes."""

from __future__ import annotations

from cardenv.core.cards import card_str, hand_str
from cardenv.dagong import catalogue as cat

PLACE_NAMES = ("一游", "二游", "三游", "末游")


def render_text(state) -> str:
    hands = state.game.options["hands"]
    if state.partner is None:
        partner = "none (dealer alone)"
    elif state.revealed:
        partner = f"player_{state.partner} (明鸡)"
    else:
        partner = "hidden"
    solo = "" if state.solo is None else f" | 硬牌: player_{state.solo}"
    lines = [
        f"Dagong hand {state.hand_index + 1}/{hands} | phase {state.phase} | dealer "
        f"player_{state.dealer} | called {card_str(state.called)} | partner {partner}{solo}",
        f"{'':2}{'seat':<10}{'role':<6}{'cards':>5}{'points':>7}  {'place':<5} hand",
    ]
    places = {seat: PLACE_NAMES[i] for i, seat in enumerate(state.out)}
    for seat in range(4):
        role = "D" if seat == state.dealer else ""
        if state.solo == seat:
            role += "硬"
        elif seat == state.partner and state.revealed:
            role += "P"
        arrow = "> " if seat == state.current_player else "  "
        lines.append(f"{arrow}{'player_' + str(seat):<10}{role:<6}{state.cards_left[seat]:>5}"
                     f"{state.won[seat]:>7}  {places.get(seat, ''):<5} "
                     f"{hand_str(state.hands[seat])}")
    if state.standing >= 0:
        cards = hand_str(state.v["standing_cards"])
        passed = ", ".join(f"player_{s}" for s in range(4) if state.passed[s]) or "nobody"
        lines.append(f"To beat: {cat.ACTIONS[state.standing].text} [{cards}] by "
                     f"player_{state.standing_seat} | trick points {state.trick_points} | "
                     f"passed: {passed}")
    elif state.phase == "play":
        lines.append(f"player_{state.current} leads.")
    elif state.phase == "solo":
        lines.append(f"player_{state.current} decides on 硬牌.")
    for i, result in enumerate(state.results):
        lines.append(f"Hand {i + 1} result: {result.reason}, winners "
                     f"{', '.join(f'player_{s}' for s in result.winners)}, rewards {result.rewards}")
    return "\n".join(lines)
