"""The toy game's presentation and reasons (``tests/toy_game.py``): what ``cardenv.text``,
``cardenv.moves``, the terminal and the web page need to show a game to people, written from
scratch against the contract of docs/engine.md ("Showing a game to people"). Registered with
``cardenv.games.register("toy", ToyGame, presentation="tests.toy_presentation",
reasons="tests.toy_presentation")``.

Cards are the numbers 0..9, shown as such; every move is public.
"""

from __future__ import annotations

TITLE = "Two cards"


def _played(state) -> dict[int, int]:
    return {seat: card for seat, card in enumerate(state.played)}


def seat_view(state, seat: int) -> dict:
    """What ``seat`` may know: its own cards, the cards played (public), whose turn; and the
    generic facts the web page draws."""
    played = _played(state)
    seats = [{"seat": s, "cards": len(state.hands[s]), "role": "",
              "facts": [f"team {s % 2}"] + ([f"played {played[s]}"] if s in played else [])}
             for s in range(4)]
    to_act = state.current_player
    center = [{"text": "{player}: ", "seat": s, "cards": [str(c)], "kind": "play"}
              for s, c in played.items()]
    if not state.is_over:
        center.append({"text": "{player} plays.", "seat": to_act})
    sums = [sum(played.get(s, 0) for s in (t, t + 2)) for t in (0, 1)]
    return {
        "game": "toy", "seat": seat, "hand": [str(c) for c in state.hands[seat]],
        "hand_number": 1, "phase": state.phase, "phase_label": state.phase, "to_act": to_act,
        "seats": seats, "results": [r.to_dict() for r in state.results],
        "title": TITLE, "status": [["you", f"player_{seat} (team {seat % 2})"],
                                   ["sums", f"team 0 {sums[0]}, team 1 {sums[1]}"]],
        "table": [f"sums {sums[0]} : {sums[1]}"], "own": [], "leader": None,
        "center": center, "extra": [], "select_hint": "Click a card, then play it.",
    }


def render_view(state, seat: int) -> str:
    view = seat_view(state, seat)
    lines = [f"Two cards | you are player_{seat} (team {seat % 2}) | {view['table'][0]}"]
    lines += [f"{'> ' if row['seat'] == view['to_act'] else '  '}player_{row['seat']}: "
              + ", ".join(row["facts"]) for row in view["seats"]]
    lines.append(f"Your hand: {' '.join(view['hand']) or 'none'}")
    return "\n".join(lines)


def render_text(state) -> str:
    lines = [f"Two cards | played {' '.join(map(str, state.played)) or 'nothing'}"]
    lines += [f"{'> ' if s == state.current_player else '  '}player_{s}: "
              f"{' '.join(map(str, hand))}" for s, hand in enumerate(state.hands)]
    return "\n".join(lines)


def move_text(state, action: int, viewer: int | None = None) -> str:
    return f"play {action}"  # every card is played face up


def explain_result(result, seat: int, options: dict | None = None) -> str:
    team = seat % 2
    said = "won" if result.rewards[seat] > 0 else "lost" if result.rewards[seat] < 0 else "tied"
    return (f"Your team {said}: {result.sums[team]} against {result.sums[1 - team]}. "
            f"Your reward: {result.rewards[seat]:+g}")


def explain_watched(result, options: dict | None = None) -> str:
    return (f"Team 0 {result.sums[0]}, team 1 {result.sums[1]}. Rewards: "
            + ", ".join(f"player_{s} {r:+g}" for s, r in enumerate(result.rewards)))


def stopped(text: str, hands: int) -> str:
    return text  # one hand, never cut short


def move_label(kind: str, phase: str | None = None) -> str:
    return {"play": "play a card"}.get(kind, kind)


def phase_label(phase) -> str:
    return str(phase)


def open_step(state) -> None:
    return None  # every move is one action


def move_cards(state, action: int) -> list[str]:
    return []  # toy cards are no cards of the 54-card deck: the page offers the list only


def card_moves(state, kinds, translate) -> list[list[int]]:
    raise ValueError("toy cards are chosen from the list of moves")


def typed_moves(state, kinds, translate, select):
    return None  # toy moves are typed as their text ("play 3") or number


def options() -> dict:
    return {}  # the toy game takes no option


def why_illegal(state, action: int, seat: int | None = None) -> str | None:
    """The reasons module's one function: why ``action`` is illegal (``None``: it is legal)."""
    if state.is_over:
        return "the game is over"
    if seat is not None and seat != state.current_player:
        return f"it is player_{state.current_player}'s turn"
    if action not in state.hands[state.current_player]:
        return f"you do not hold card {action}"
    return None
