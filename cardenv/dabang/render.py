"""Text rendering of a Dabang state: seats with their hands (suit symbols), levels, trump,
the current trick, points and the kitty. Used by the env's ``ansi`` and ``human`` modes."""

from __future__ import annotations

from cardenv.core.cards import SUIT_SYMBOLS, card_str, hand_str
from cardenv.dabang import catalogue as cat


def render_text(state) -> str:
    trump = "?" if state.trump is None else SUIT_SYMBOLS[state.trump]
    dealer = "?" if state.dealer is None else f"player_{state.dealer}"
    decl = "none" if not state.deal.decl else \
        f"{cat.ACTIONS[state.deal.decl].text} by player_{state.deal.declarer}"
    lines = [
        f"Dabang hand {len(state.results) + (0 if state.is_over else 1)} | levels team0 {state.levels[0]} : team1 "
        f"{state.levels[1]} | playing level {state.level} | trump {trump} | dealer {dealer} | "
        f"phase {state.phase}",
        f"declaration: {decl}"
        + (f" | tribute {len(state.tribute.cards)}" if state.tribute.cards else "")
        + (" | 干锅" if state.gangguo else ""),
        f"{'':2}{'seat':<10}{'team':<5}{'cards':>5}{'points':>7}  hand",
    ]
    for seat in range(4):
        arrow = "> " if seat == state.current_player else "  "
        role = "D" if seat == state.dealer else ""
        lines.append(f"{arrow}{'player_' + str(seat):<10}{str(seat % 2) + role:<5}"
                     f"{state.cards_left[seat]:>5}{state.points[seat]:>7}  "
                     f"{hand_str(state.hands[seat])}")
    if state.trick.plays:
        plays = "; ".join(f"player_{s}: " + " ".join(card_str(k) for k, c in p.items()
                                                    for _ in range(c))
                          for s, p, _, _ in state.trick.plays)
        lines.append(f"Trick: {plays}")
    partial = state.trick.partial
    if partial:
        lines.append("Choosing: " + " ".join(card_str(k) for k, c in partial.items()
                                             for _ in range(c)))
    lines.append(f"Kitty: {hand_str(state.v['kitty'])}")
    for i, r in enumerate(state.results):
        lines.append(f"Hand {i + 1}: score {r.score} (outcome {r.outcome}), levels "
                     f"{r.levels_before} -> {r.levels_after}, blood {r.blood}"
                     + (f", match won by team {r.match_winner} ({r.match_end})"
                        if r.match_winner is not None else "") + f", rewards {r.rewards}")
    return "\n".join(lines)
