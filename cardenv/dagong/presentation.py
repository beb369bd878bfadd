"""Dagong's presentation (registered in ``cardenv.games``): what people see in the terminal, the
web page and record replays. Text rendering of a Dagong state: a table of seats with suit
symbols, the play to beat, points and places; also used by the env's ``ansi`` and ``human``
render modes."""

from __future__ import annotations

from cardenv.core.cards import card_str, hand_str, kinds_of
from cardenv.dagong import catalogue as cat
from cardenv.dagong.hand_moves import card_moves, move_cards, typed_moves  # noqa: F401
from cardenv.dagong import table as table_extras  # noqa: F401 (presentation: the web extras)

__all__ = ["render_text", "render_view", "seat_view", "move_text", "explain_result",
           "explain_watched", "move_label", "phase_label", "card_moves", "typed_moves",
           "move_cards", "open_step", "options"]
TITLE = "Dagong"

PLACE_NAMES = ("一游", "二游", "三游", "末游")


def render_text(state) -> str:
    hands = state.game.options["hands"]
    if state.forced_solo or state.partner is None:  # the seat view's words
        partner = "none (the dealer holds both called cards)"
    elif state.solo is not None:  # one against three: nobody is anyone's partner
        partner = "none (硬牌)"
    elif state.revealed:
        partner = f"player_{state.partner} (明鸡)"
    else:
        partner = "hidden"
    solo = "" if state.solo is None else f" | 硬牌: player_{state.solo}"
    lines = [
        f"Dagong hand {state.hand_index + 1}/{hands} | phase {phase_label(state.phase)} | dealer "
        f"player_{state.dealer} | called {card_str(state.called)} | partner {partner}{solo}",
        f"{'':2}{'seat':<10}{'role':<6}{'cards':>5}{'points':>7}  {'place':<5} hand",
    ]
    places = {seat: PLACE_NAMES[i] for i, seat in enumerate(state.out)}
    for seat in range(4):
        role = "D" if seat == state.dealer else ""
        if state.solo == seat:
            role += "硬"
        elif seat == state.partner and state.revealed and state.solo is None:
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
        lines.append(result_line(i + 1, result))
    return "\n".join(lines)


def _cards(counts) -> list[str]:
    return [card_str(k) for k in kinds_of(counts)]


def seat_view(state, seat: int) -> dict:
    """What ``seat`` may know, as a JSON-ready dict: its own hand (sorted by rank, then suit),
    the other seats' card counts, and what was played in public (the called card and any
    superseded calls, a revealed partner, 硬牌, the play to beat and who passed, points,
    places, results). The partner is named only once revealed, or to the partner itself.
    ``render_view`` prints it; the web page draws it."""
    if state.forced_solo:
        partner, partner_text = None, "none (the dealer holds both called cards)"
    elif state.solo is not None:
        partner, partner_text = None, "none (硬牌)"
    elif state.revealed:
        partner, partner_text = state.partner, f"player_{state.partner} (明鸡)"
    elif state.partner == seat:
        partner, partner_text = seat, "you (hidden: you hold the other called card)"
    else:
        partner, partner_text = None, "hidden"
    places = {s: PLACE_NAMES[i] for i, s in enumerate(state.out)}
    seats = []
    for s in range(4):
        role = "D" if s == state.dealer else ""
        if state.solo == s:
            role += "硬"
        elif s == partner:
            role += "P"
        seats.append({"seat": s, "cards": int(state.cards_left[s]), "points": int(state.won[s]),
                      "place": places.get(s), "role": role})
    standing = None
    if state.standing >= 0:
        standing = {"text": cat.ACTIONS[state.standing].text,
                    "cards": _cards(state.v["standing_cards"]), "seat": int(state.standing_seat),
                    "trick_points": int(state.trick_points),
                    "passed": [s for s in range(4) if state.passed[s]]}
    view = {
        "game": "dagong", "seat": seat, "hand": _cards(state.hands[seat]),
        "hand_number": state.hand_index + 1, "hands": state.game.options["hands"],
        "phase": state.phase, "phase_label": phase_label(state.phase),
        "to_act": state.current_player, "dealer": state.dealer,
        "called": card_str(state.called),
        "superseded_calls": _cards(state.v["superseded_calls"]),
        "partner": partner, "partner_text": partner_text, "solo": state.solo,
        "seats": seats, "standing": standing,
        "results": [result.to_dict() for result in state.results],
    }
    return _for_people(view)


def _for_people(view: dict) -> dict:
    """``view`` with the generic facts that programs draw with no game branch (the web page;
    docs/engine.md, "Showing a game to people"): ``title``, ``status`` (label and value pairs
    for the seat), ``table`` (public facts for a spectator), each seat row's ``facts``,
    ``own`` (the seat's own facts for a spectator), ``leader`` (the play to beat), ``center``
    (the table's middle: texts with a ``{player}`` to name a seat, cards), ``extra`` (labelled
    cards beside the hand) and ``select_hint``."""
    seat, solo, standing = view["seat"], view["solo"], view["standing"]
    hand = f"{view['hand_number']}/{view['hands']}"
    status = [["hand", hand], ["you", f"player_{seat}"], ["dealer", f"player_{view['dealer']}"],
              ["called card", view["called"]], ["partner", view["partner_text"]]]
    table = [f"hand {hand}", f"dealer player_{view['dealer']}", f"called card {view['called']}"]
    if view["superseded_calls"]:
        status.append(["earlier calls", " ".join(view["superseded_calls"])])
    if solo is not None:
        status.append(["硬牌", f"player_{solo}"])
        table.append(f"硬牌 player_{solo}")
    for row in view["seats"]:
        row["facts"] = [f"points {row['points']}"] + ([row["place"]] if row["place"] else [])
    center = []
    if standing:
        passed = ", ".join(f"player_{s}" for s in standing["passed"]) or "nobody"
        center = [{"text": f"To beat: {standing['text']} by {{player}}", "seat": standing["seat"],
                   "kind": "play"},
                  {"cards": standing["cards"], "kind": "play"},
                  {"text": f"trick points {standing['trick_points']}; passed: {passed}",
                   "kind": "hint"}]
    elif view["phase"] == "play":
        center = [{"text": "{player} leads.", "seat": view["to_act"]}]
    elif view["phase"] == "solo":
        center = [{"text": "{player} decides on 硬牌.", "seat": view["to_act"]}]
    view.update({
        "title": TITLE, "status": status, "table": table,
        "own": [f"partner: {view['partner_text']}"],
        "leader": {"seat": standing["seat"], "label": "to beat"} if standing else None,
        "center": center, "extra": [],
        "select_hint": "Click cards, then play them (Dagong moves name ranks and jokers; the "
                       "game picks the suits).",
    })
    return view


def render_view(state, seat: int) -> str:
    """``seat_view`` as text, for a person playing ``seat`` in the terminal or a replay."""
    view = seat_view(state, seat)
    solo = "" if view["solo"] is None else f" | 硬牌: player_{view['solo']}"
    calls = "" if not view["superseded_calls"] else \
        f" (superseded: {' '.join(view['superseded_calls'])})"
    lines = [
        f"Dagong hand {view['hand_number']}/{view['hands']} | you are player_{seat} | dealer "
        f"player_{view['dealer']} | called {view['called']}{calls} | partner "
        f"{view['partner_text']}{solo}",
        f"{'':2}{'seat':<16}{'role':<6}{'cards':>5}{'points':>7}  place",
    ]
    for row in view["seats"]:
        s = row["seat"]
        name = f"player_{s}" + (" (you)" if s == seat else "")
        arrow = "> " if s == view["to_act"] else "  "
        lines.append(f"{arrow}{name:<16}{row['role']:<6}{row['cards']:>5}{row['points']:>7}  "
                     f"{row['place'] or ''}")
    standing = view["standing"]
    if standing:
        passed = ", ".join(f"player_{s}" for s in standing["passed"]) or "nobody"
        lines.append(f"To beat: {standing['text']} [{' '.join(standing['cards'])}] by "
                     f"player_{standing['seat']} | trick points {standing['trick_points']} | "
                     f"passed: {passed}")
    elif view["phase"] == "play":
        lines.append(f"player_{view['to_act']} leads.")
    elif view["phase"] == "solo":
        lines.append(f"player_{view['to_act']} decides on 硬牌.")
    lines.append(f"Your hand ({len(view['hand'])}): {' '.join(view['hand'])}")
    for i, result in enumerate(state.results):
        lines.append(result_line(i + 1, result))
    return "\n".join(lines)


REASONS = {  # rules section 4: result reason -> what decided the hand
    "score": "the winning side took more of the 200 points",
    "tie": "100 points each: the side holding 末游 (the last place) loses",
    "qing": "清: one side took all 200 points",
    "bang": "绑: one side went out first and second",
    "guangtou": "光头: one side went out first and second (绑) while the other won no points",
    "solo": "the 硬牌 player played one against three",
}
SHORT_REASONS = {"score": "more points", "tie": "100:100, the side of 末游 (the last place) loses",
                 "qing": "清", "bang": "绑", "guangtou": "光头", "solo": "硬牌"}
TRANSFERS = ("score", "tie", "qing")  # hands decided on points: three players out


def _seats(seats, you: int | None = None) -> str:
    """``player_1 and player_3``; ``you and player_3`` for the reader ``you`` (named first)."""
    seats = sorted(seats, key=lambda s: s != you)
    seats = ["you" if s == you else f"player_{s}" for s in seats]
    return " and ".join(seats) if len(seats) < 3 else ", ".join(seats[:-1]) + " and " + seats[-1]


def result_words(result, winners: str | None = None, you: int | None = None,
                 pronoun: str = "you") -> str:
    """What decided the hand and what it pays (rules section 4): the winning side, why, and
    the multiplier with its reasons. ``winners``: how to name the winning side (``"they"``
    after a sentence that named them already; their seats by default); ``you``: the seat of
    the reader, named "you" (or ``pronoun``: "it" for a 硬牌 player named just before)."""
    winners = winners or _seats(result.winners, you)

    def name(seat):
        return pronoun if seat == you else f"player_{seat}"

    if result.reason == "solo":
        solo = result.solo
        forced = " (the dealer held both called cards)" if result.forced_solo else ""
        first = name(result.places[0]) if result.places else "nobody"
        it = name(solo) if solo == you else "it"
        settles = "settle" if it == "you" else "settles"
        what = (f"{name(solo)} played 硬牌, one against three{forced}, and "
                + (f"went out first (一游): {it} win{'' if it == 'you' else 's'}"
                   if solo in result.winners
                   else f"did not go out first ({first} did): the other three win")
                + f"; {it} {settles} x{result.multiplier} with each of them")
    else:
        team = sorted({result.dealer, result.partner} - {None})
        side = _seats(team, you)
        points = sum(result.points[s] for s in result.winners)
        decided = {
            "score": f"{winners} took {points} of the 200 points",
            "tie": f"100 points each, and the side holding 末游 (the last place), "
                   f"{name(result.places[-1])}, loses: {winners} win",
            "qing": f"清: {winners} took all 200 points",
            "bang": f"绑: {winners} went out first and second and win at once, whatever the "
                    f"points",
            "guangtou": f"光头: {winners} went out first and second (绑) and the others won "
                        f"no points",
        }[result.reason]
        what = (f"{decided} (the dealer's side: {side}); each winner gets "
                f"x{result.multiplier} from one loser")
    if result.yaobai_doubled:
        what += f" (x{result.base_multiplier} doubled: a winner played a 摇摆)"
    return what


def result_line(number: int, result) -> str:
    """One line for a finished hand in the renders."""
    return (f"Hand {number} result: {SHORT_REASONS.get(result.reason, result.reason)}, x"
            f"{result.multiplier}, winners {', '.join(f'player_{s}' for s in result.winners)}, "
            f"rewards {rewards_text(result.rewards)}")


def rewards_text(rewards) -> str:
    """Each seat's reward: ``player_0 -1, player_1 +1, ...`` (never a Python list)."""
    return ", ".join(f"player_{s} {r:+g}" for s, r in enumerate(rewards))


def _result_lines(result) -> list[str]:
    """The lines every reader of a finished hand gets: winners and places, then the points
    (after the end-of-hand transfers where there were any)."""
    places = ", ".join(f"{PLACE_NAMES[i]} player_{s}" for i, s in enumerate(result.places))
    if result.reason in TRANSFERS:
        points = ("Points after the end-of-hand transfers (the trick points of 末游 (the last "
                  "place) go to 一游, the points left in its hand to 三游): ")
    else:
        points = (f"Points won in tricks (no end-of-hand transfer after "
                  f"{'硬牌' if result.reason == 'solo' else '绑'}): ")
    return [f"Winners: {', '.join(f'player_{s}' for s in result.winners)} | places: "
            f"{places or '-'}",
            points + ", ".join(f"player_{s} {p}" for s, p in enumerate(result.points))]


def explain_result(result, seat: int, options: dict | None = None) -> str:
    """A finished hand's result in words, for ``seat``'s player: who won and why
    (``result_words``), the places, the points, the multiplier and the reward."""
    won = seat in result.winners
    return "\n".join([
        f"You {'won' if won else 'lost'}: {result_words(result, you=seat)}.",
        *_result_lines(result),
        f"Your reward: {result.rewards[seat]:+g} (win/loss {result.payoff[seat]:+g}, "
        f"喜钱 {result.xiqian[seat]:+g})",
    ])


def _watched_words(result) -> str:
    """``result_words`` after '<the winners> won: ', naming nobody twice: 'they took ...', and
    a 硬牌 player who won 'it'."""
    if result.reason == "solo":
        won = result.solo in result.winners
        return result_words(result, you=result.solo if won else None, pronoun="it")
    return result_words(result, None if result.reason == "tie" else "they")


def explain_watched(result, options: dict | None = None) -> str:
    """A finished hand's result in words for someone watching every seat (no "you"): who won
    and why, the places, points and each seat's reward."""
    return "\n".join([
        f"{_seats(result.winners)} won: "
        f"{_watched_words(result)}.",
        *_result_lines(result),
        "Rewards: " + rewards_text(result.rewards),
    ])


def move_text(state, action: int, viewer: int | None = None) -> str:
    """The text of ``action`` about to be played in ``state``, as ``viewer`` sees it: every
    Dagong move is public."""
    return cat.ACTIONS[action].text


#: Move types (``action_info(a).type``) -> the name people read: the game's term where it has
#: one, else plain words (``lang="en"`` translates the terms, ``core.lang.TERMS``).
MOVE_LABELS = {
    "pass": "pass", "solo_decline": "decline 硬牌", "solo_declare": "declare 硬牌",
    cat.SINGLE: "single", cat.PAIR: "pair", cat.TRIPLE: "三条", cat.PAIR_RUN: "连对",
    cat.TRIPLE_RUN: "飞机", cat.BOMB: "bomb", cat.K510: "510K", cat.TIANZHA: "天炸",
    cat.XI7: "7喜", cat.XI8: "8喜", cat.YAOBAI: "摇摆",
}


def move_label(kind: str, phase: str | None = None) -> str:
    """The name of move type ``kind`` (``MOVE_LABELS``; the id itself if it has none)."""
    return MOVE_LABELS.get(kind, kind)


#: Phases (``state.phase``) -> the name people read in the renders' headers (programs keep
#: the id).
PHASE_LABELS = {"solo": "硬牌 decision", "play": "play", "over": "over"}


def phase_label(phase) -> str:
    """The name of phase ``phase`` (``PHASE_LABELS``; the id if it has none)."""
    return PHASE_LABELS.get(str(phase), str(phase))


def open_step(state) -> None:
    """No Dagong move is built step by step: every move is one action."""
    return None


def options() -> dict:
    """The rules options people may set (``cardenv.dagong.game.OPTIONS``: ``core.options``
    specs), for the web page's setup form."""
    from cardenv.dagong.game import OPTIONS
    return OPTIONS
