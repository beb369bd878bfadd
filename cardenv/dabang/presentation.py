"""Dabang's presentation (registered in ``cardenv.games``): what people see in the terminal, the
web page and record replays. Text rendering of a Dabang state: seats with their hands (suit
symbols), levels, trump, the current trick, points and the kitty; also used by the env's
``ansi`` and ``human`` modes.

Hands are shown as players hold them (``hand_groups``): each side suit without its level cards
in rank order, then the trump (trump-suit cards, 2s, level cards, jokers) in trump strength order,
both read from the engine's tables (``strength.SUIT_CLASS``, ``strength.STRENGTH``). Before the
trump is known, the cards that are trump whatever the suit (jokers, level cards, 2s) are apart.
The play winning the trick so far is marked (``phases.trick.winning_seat``).
"""

from __future__ import annotations

import numpy as np

from cardenv.core.cards import NUM_SUITS, SUIT_SYMBOLS, card_str, hand_str, kinds_of
from cardenv.dabang import catalogue as cat
from cardenv.dabang.hand_moves import card_moves, move_cards, open_step, typed_moves
from cardenv.dabang.phase import PHASE_LABELS, Phase, phase_label  # noqa: F401 (presentation)
from cardenv.dabang.phases.trick import winning_seat
from cardenv.dabang.scoring import score_blood
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS, TRUMP
from cardenv.dabang import table as table_extras  # noqa: F401 (presentation: the web extras)

__all__ = ["render_text", "render_view", "seat_view", "move_text", "explain_result",
           "explain_watched", "stopped", "move_label", "phase_label", "card_moves",
           "typed_moves", "move_cards", "open_step", "options", "hand_groups"]
TITLE = "Dabang"
WINNING = "(winning)"  # after the play that takes the trick so far
# the phases in which the dealt kitty's face-up cards are still the news of the hand: after the
# burial they are no longer the kitty (``kitty_revealed`` keeps them for the observation)
KITTY_FACE_UP_PHASES = (Phase.RETURN, Phase.BURY)


def hand_groups(counts, trump: int | None, level: int) -> list[dict]:
    """The cards of ``counts`` grouped as players hold them: ``[{"suit", "trump", "label",
    "cards"}]``, non-empty groups only, the side suits ♦♣♥♠ (level cards and 2s left out) in
    rank order, then the trump in strength order (equal strengths by suit). ``trump`` ``None``
    (not declared yet): the last group holds the cards that are trump whatever the suit."""
    li = level - 3
    if trump is None:
        always = (SUIT_CLASS[:, li] == TRUMP).all(axis=0)
        suit_class = np.where(always, TRUMP, np.arange(len(always)) % NUM_SUITS)
        strength = STRENGTH[:, li].min(axis=0)
    else:
        suit_class, strength = SUIT_CLASS[trump, li], STRENGTH[trump, li]
    kinds = sorted(set(kinds_of(counts)), key=lambda k: (int(strength[k]), k))
    groups = []
    for cls in (*range(NUM_SUITS), TRUMP):
        cards = [card_str(k) for k in kinds for _ in range(int(counts[k]))
                 if suit_class[k] == cls]
        if not cards:
            continue
        if cls != TRUMP:
            label = SUIT_SYMBOLS[cls]
        elif trump is None:
            label = "trump whatever the suit"
        else:
            label = f"trump {SUIT_SYMBOLS[trump]}"
        groups.append({"suit": SUIT_SYMBOLS[cls] if cls != TRUMP else None,
                       "trump": cls == TRUMP, "label": label, "cards": cards})
    return groups


def groups_text(groups: list[dict]) -> str:
    """``hand_groups`` on one line: ``♦: ♦4 ♦J | ♠: ♠9 | trump ♥: ♥3 ♣2 SJ``."""
    return " | ".join(f"{g['label']}: {' '.join(g['cards'])}" for g in groups) or "none"


def _trick_plays(state) -> list[dict]:
    """The trick's plays so far, the one taking it marked ``winning``."""
    winner = winning_seat(state)
    return [{"seat": s, "cards": [card_str(k) for k, c in p.items() for _ in range(c)],
             "winning": s == winner} for s, p, _, _ in state.trick.plays]


def _plays_text(plays: list[dict]) -> str:
    return "; ".join(f"player_{p['seat']}: {' '.join(p['cards'])}"
                     + (f" {WINNING}" if p["winning"] else "") for p in plays)


def _team(team: int) -> str:
    return f"team {team} (player_{team} and player_{team + 2})"


def _score_words(result) -> str:
    """The attackers' score and how it was made: ``145 (tricks 125, plus the 底牌's 10 points
    x2 for 抠底)``; a 抠底 of a 底牌 without points says so rather than "0 points x2"."""
    tricks = f"{result.score} (tricks {result.trick_points[result.attackers]}"
    if not result.koudi:
        return tricks + ")"
    if not result.kitty_points:
        return tricks + "; 抠底, but the 底牌 held no points to double)"
    return tricks + f", plus the 底牌's {result.kitty_points} points x2 for 抠底)"


def explain_watched(result, options: dict | None = None) -> str:
    """A finished hand's result in words for someone watching every seat (no "you"): which
    team attacked, the score, what the outcome means (``outcome_words``), each team's levels,
    and which team won the match."""
    att, dfd = result.attackers, result.defenders
    lines = [
        f"{_team(att).capitalize()} attacked, {_team(dfd)} defended. The attackers' score: "
        f"{_score_words(result)}.",
        outcome_words(result, options),
        "Levels: " + ", ".join(f"team {t} {result.levels_before[t]} -> {result.levels_after[t]}"
                               for t in (0, 1)),
    ]
    team_rewards = [result.rewards[t] for t in (0, 1)]
    if result.match_winner is not None:
        lines.append(f"The match is over: {_team(result.match_winner)} won "
                     f"({MATCH_ENDS[result.match_end]}).")
    elif any(team_rewards):
        won = 0 if team_rewards[0] > team_rewards[1] else 1
        lines.append(f"{_team(won).capitalize()} won the hand.")
    else:
        gained = [t for t in (0, 1) if result.gained[t]]
        lines.append(f"{_team(gained[0]).capitalize()} went up {_levels(result.gained[gained[0]])}"
                     f"; the match goes on." if gained
                     else "Neither team went up a level; the match goes on.")
    lines.append("Rewards: " + ", ".join(f"player_{s} {r:+g}"
                                         for s, r in enumerate(result.rewards)))
    return "\n".join(lines)


def _no_declaration(state) -> str:
    """The declaration line when nobody declared: with the trump known, where it came from
    (a first hand's 底牌 flips, or a later hand's draw from the 底牌) [D-A3]."""
    if state.trump is None:
        return "none"
    how = "turned up in the 底牌 flips" if state.first_hand else "drawn from the 底牌"
    return f"none (trump {SUIT_SYMBOLS[state.trump]} {how})"


def render_text(state) -> str:
    trump = "?" if state.trump is None else SUIT_SYMBOLS[state.trump]
    dealer = "?" if state.dealer is None else f"player_{state.dealer}"
    decl = _no_declaration(state) if not state.deal.decl else \
        f"{cat.ACTIONS[state.deal.decl].text} by player_{state.deal.declarer}"
    lines = [
        f"Dabang hand {len(state.results) + (0 if state.is_over else 1)} "
        f"| levels team0 {state.levels[0]} : team1 "
        f"{state.levels[1]} | playing level {state.level} | trump {trump} | dealer {dealer} | "
        f"phase {phase_label(state.phase)}",
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
                     f"{groups_text(hand_groups(state.hands[seat], state.trump, state.level))}")
    if state.trick.plays:
        lines.append(f"Trick: {_plays_text(_trick_plays(state))}")
    partial = state.trick.partial
    if partial:
        lines.append("Choosing: " + " ".join(card_str(k) for k, c in partial.items()
                                             for _ in range(c)))
    lines.append(f"Kitty: {hand_str(state.v['kitty'])}")
    for i, r in enumerate(state.results):
        lines.append(result_line(i + 1, r))
    return "\n".join(lines)


SHOWN_NAMES = ("♦ level", "♣ level", "♥ level", "♠ level", "SJ", "BJ")  # declared_cards columns


def _cards(counts) -> list[str]:
    return [card_str(k) for k in kinds_of(counts)]


def seat_view(state, seat: int) -> dict:
    """What ``seat`` may know, as a JSON-ready dict, read only from the state's public pieces
    and ``seat``'s own rows (as its observation is): its hand (and the follow it is building),
    the other seats' card counts, levels, trump, the declaration and every seat's shown
    declaration cards, the jokers of the kitty flips, the trick (the play winning it so far
    marked ``winning``), points, tribute, 扣王 and the cards taken back, the dealt kitty's cards
    turned face up (until the burial is over: then they are no longer the kitty), and results.
    ``hand`` is sorted by card kind; ``hand_groups`` is the same cards as players hold them.
    ``render_view`` prints it; the web page draws it."""
    v = state.v
    seats = []
    for s in range(4):
        shown = v["declared_cards"][s]
        seats.append({
            "seat": s, "team": s % 2, "cards": int(state.cards_left[s]),
            "points": int(state.points[s]), "role": "D" if s == state.dealer else "",
            "shown": {name: int(n) for name, n in zip(SHOWN_NAMES, shown) if n},
            "koujoker": {"SJ": int(v["koujoker_kinds"][s][0]),
                         "BJ": int(v["koujoker_kinds"][s][1])},
            "taken_back": _cards(v["taken_back"][s]),
        })
    view = {
        "game": "dabang", "seat": seat, "team": seat % 2, "hand": _cards(v["hand"][seat]),
        "hand_groups": hand_groups(v["hand"][seat], state.trump, state.level),
        "selection": _cards(v["selection"][seat]),
        "hand_number": len(state.results) + (0 if state.is_over else 1),
        "phase": str(state.phase.value if hasattr(state.phase, "value") else state.phase),
        "phase_label": phase_label(state.phase),  # what people read (扣王, not koujoker)
        "to_act": state.current_player, "dealer": state.dealer, "levels": list(state.levels),
        "level": state.level, "trump": None if state.trump is None else SUIT_SYMBOLS[state.trump],
        "declaration": None if not state.deal.decl else {
            "text": cat.ACTIONS[state.deal.decl].text, "seat": state.deal.declarer},
        "tribute": len(state.tribute.cards), "gangguo": bool(state.gangguo),
        "flip_jokers": {"SJ": int(v["flip_jokers"][0]), "BJ": int(v["flip_jokers"][1])},
        "seats": seats,
        "trick": _trick_plays(state),
        "kitty_revealed": _cards(v["kitty_revealed"])
        if state.phase in KITTY_FACE_UP_PHASES else [],
        "kitty_known": _cards(v["kitty_known"][seat]),
        "tribute_known": _cards(v["tribute_known"][seat]),
        "returned_known": _cards(v["returned_known"][seat]),
        "results": [result.to_dict() for result in state.results],
    }
    return _for_people(view, _no_declaration(state))


def _for_people(view: dict, no_declaration: str) -> dict:
    """``view`` with the generic facts that programs draw with no game branch (the web page;
    docs/engine.md, "Showing a game to people"): ``title``, ``status`` (label and value pairs
    for the seat), ``table`` (public facts for a spectator), each seat row's ``facts``,
    ``own``, ``leader`` (the play winning the trick), ``center`` (the table's middle: texts
    with a ``{player}`` to name a seat, cards), ``extra`` (labelled cards beside the hand) and
    ``select_hint``. The words are the terminal's (``render_view``)."""
    seat, team, levels = view["seat"], view["team"], view["levels"]
    trump = view["trump"] or "?"
    dealer = "?" if view["dealer"] is None else f"player_{view['dealer']}"
    decl = view["declaration"]
    status = [["hand", view["hand_number"]], ["you", f"player_{seat} (team {team})"],
              ["levels", f"yours {levels[team]}, theirs {levels[1 - team]}"],
              ["playing level", view["level"]], ["trump", trump], ["dealer", dealer],
              ["phase", view["phase_label"]],
              ["declaration", f"{decl['text']} by player_{decl['seat']}" if decl
               else no_declaration]]
    table = [f"hand {view['hand_number']}", f"levels {levels[0]} : {levels[1]}",
             f"level {view['level']}", f"trump {trump}", f"dealer {dealer}",
             f"phase {view['phase_label']}"]
    if decl:
        table.append(f"declared: {decl['text']} by player_{decl['seat']}")
    if view["tribute"]:
        status.append(["tribute", view["tribute"]])
    if view["gangguo"]:
        status.append(["干锅", "yes"])
    flips = view["flip_jokers"]
    if any(flips.values()):
        status.append(["jokers in the kitty flips", f"{flips['SJ']} SJ, {flips['BJ']} BJ"])
    for row in view["seats"]:
        row["facts"] = [f"team {row['team']}", f"points {row['points']}"]
        if row["shown"]:
            row["facts"].append("showed " + ", ".join(_shown(what, n)
                                                      for what, n in row["shown"].items()))
        if any(row["koujoker"].values()):
            row["facts"].append(f"扣王 {row['koujoker']['SJ']} SJ {row['koujoker']['BJ']} BJ")
        if row["taken_back"]:
            row["facts"].append("took back " + " ".join(row["taken_back"]))
    center = []
    if view["trick"]:
        center.append({"text": "Trick:"})
        center += [{"text": "{player}: ", "seat": p["seat"], "cards": p["cards"], "kind": "play",
                    "winning": p["winning"], "badge": "winning" if p["winning"] else None}
                   for p in view["trick"]]
    elif view["phase"] == "play":
        center.append({"text": "{player} leads.", "seat": view["to_act"]})
    elif view["to_act"] is not None and view["to_act"] >= 0:
        center.append({"text": f"{{player}}: {view['phase_label']}", "seat": view["to_act"]})
    if view["kitty_revealed"]:
        center.append({"text": "Kitty cards turned face up: ", "cards": view["kitty_revealed"],
                       "kind": "play"})
    winning = [p["seat"] for p in view["trick"] if p["winning"]]
    extra = [[label, view[key]] for key, label in (
        ("selection", "Your follow so far"), ("kitty_known", "Kitty (known to you)"),
        ("tribute_known", "Tribute you saw"), ("returned_known", "Given back for the tribute"))
        if view[key]]
    view.update({
        "title": TITLE, "status": status, "table": table, "own": [],
        "leader": {"seat": winning[0], "label": "winning"} if winning else None,
        "center": center, "extra": extra,
        "select_hint": "Click the cards of a whole lead, follow or burial, then play them.",
    })
    return view


def _shown(what: str, n: int) -> str:
    """A count of declaration cards shown: ``2 ♦ level cards``, ``4 SJ``."""
    return f"{n} {what} card" + ("" if n == 1 else "s") if what.endswith(" level") else \
        f"{n} {what}"


def render_view(state, seat: int) -> str:
    """``seat_view`` as text, for a person playing ``seat`` in the terminal or a replay."""
    view = seat_view(state, seat)
    team = view["team"]
    trump = view["trump"] or "?"
    dealer = "?" if view["dealer"] is None else f"player_{view['dealer']}"
    decl = view["declaration"]
    decl_text = _no_declaration(state) if not decl else f"{decl['text']} by player_{decl['seat']}"
    lines = [
        f"Dabang hand {view['hand_number']} | you are player_{seat} (team {team}) | levels: "
        f"yours {view['levels'][team]}, theirs {view['levels'][1 - team]} | playing level "
        f"{view['level']} | trump {trump} | dealer {dealer} | phase {view['phase_label']}",
        f"declaration: {decl_text}"
        + (f" | tribute {view['tribute']}" if view["tribute"] else "")
        + (" | 干锅" if view["gangguo"] else ""),
        f"{'':2}{'seat':<16}{'team':<5}{'cards':>5}{'points':>7}  shown / 扣王 / taken back",
    ]
    for row in view["seats"]:
        s = row["seat"]
        arrow = "> " if s == view["to_act"] else "  "
        name = f"player_{s}" + (" (you)" if s == seat else "")
        public = []
        if row["shown"]:
            public.append("showed " + ", ".join(_shown(what, n)
                                                for what, n in row["shown"].items()))
        if any(row["koujoker"].values()):
            public.append(f"扣王 {row['koujoker']['SJ']} SJ {row['koujoker']['BJ']} BJ")
        if row["taken_back"]:
            public.append("took back " + " ".join(row["taken_back"]))
        lines.append(f"{arrow}{name:<16}{str(row['team']) + row['role']:<5}{row['cards']:>5}"
                     f"{row['points']:>7}  {'; '.join(public)}")
    flips = view["flip_jokers"]
    if any(flips.values()):
        lines.append(f"Jokers turned over in the kitty flips: {flips['SJ']} SJ, {flips['BJ']} BJ")
    if view["trick"]:
        lines.append(f"Trick: {_plays_text(view['trick'])}")
    for key, label in (("kitty_revealed", "Kitty cards turned face up"),
                       ("kitty_known", "Kitty (known to you)"),
                       ("tribute_known", "Tribute you saw"),
                       ("returned_known", "Given back for the tribute")):
        if view[key]:
            lines.append(f"{label}: {' '.join(view[key])}")
    lines.append(f"Your hand ({len(view['hand'])}):" + ("".join(
        f"\n  {g['label']}: {' '.join(g['cards'])}" for g in view["hand_groups"]) or " none"))
    if view["selection"]:
        lines.append(f"Your follow so far: {' '.join(view['selection'])}")
    for i, r in enumerate(state.results):
        lines.append(result_line(i + 1, r))
    return "\n".join(lines)


OUTCOMES = {  # the table of rules section 5: outcome -> (S >= 160, 抠底)
    1: "the attackers scored under 160 and the defenders won the last trick (保底)",
    2: "the attackers scored under 160 but won the last trick (抠底)",
    3: "the attackers scored 160 or more; the defenders won the last trick (保底)",
    4: "the attackers scored 160 or more and won the last trick (抠底)",
}
MATCH_ENDS = {
    "pass_10": "the defenders went up from level 10: they pass 10 and win the match",
    "zero": "the attackers scored 0: the defenders win the match at once",
    "400": "the attackers scored 400 or more: they win the match at once",
    "four_jokers": "four jokers of a kind lay in the 底牌 and a team went up (outcome 1 or 4): "
                   "it wins the match at once",
}


def _levels(n: int) -> str:
    return f"{n} level" + ("" if n == 1 else "s")


def outcome_words(result, options: dict | None = None) -> str:
    """What the hand's outcome means (rules section 5): who keeps or takes the deal, who goes
    up and by how many levels and why, and the blood owed (a match end: ``MATCH_ENDS``)."""
    options = options or {}
    keep = result.outcome in (1, 2)
    up = result.defenders if result.outcome == 1 else \
        result.attackers if result.outcome == 4 else None
    deal = f"the {'defenders keep' if keep else 'attackers take'} the deal"
    if result.next_dealer is not None:
        deal += f" (player_{result.next_dealer} deals next)"
    if up is None:
        climb = "nobody goes up" + (": 抠底 spoils the defenders' going up" if keep
                                    else ": the attackers go up only with 抠底")
    elif result.match_end == "pass_10":
        climb = f"the defenders (team {up}) go up from level 10"
    else:
        gained = result.gained[up]
        big, small = result.kitty_jokers
        why = [f"1, plus {gained - 1} for the jokers in the 底牌 (2 per BJ, 1 per SJ)"] \
            if gained > 1 else []
        if result.levels_after[up] == 10 and result.levels_before[up] + 1 + \
                (2 * big + small if options.get("joker_levels", True) else 0) > 10:
            why.append("stopping at 10 (逢10必打)")
        climb = (f"the {'defenders' if keep else 'attackers'} (team {up}) go up "
                 f"{_levels(gained)}, to level {result.levels_after[up]}"
                 + (f": {'; '.join(why)}" if why else ""))
    line = f"Outcome {result.outcome}: {OUTCOMES[result.outcome]}, so {deal} and {climb}."
    if result.blood and result.match_winner is None:  # no next hand after the match ends
        from_score = score_blood(result.score)
        line += (f" Blood {result.blood} for the next hand ({from_score} from the score: 1 per "
                 f"10 points under 120 or over 200"
                 + (f"; {result.blood - from_score} from the jokers in the 底牌"
                    if result.blood > from_score else "")
                 + "): the next dealer's 上家 pays it as 喝血.")
    return line


def result_line(number: int, result) -> str:
    """One line for a finished hand in the renders: the score and what its outcome did."""
    up = [t for t in (0, 1) if result.gained[t]]
    moved = ", ".join(f"team {t} up {_levels(result.gained[t])}" for t in up) or "nobody up"
    levels = ", ".join(f"team {t} {result.levels_before[t]} -> {result.levels_after[t]}"
                       for t in (0, 1))
    return (f"Hand {number}: the attackers (team {result.attackers}) scored {result.score}: "
            f"outcome {result.outcome} ({'保底' if not result.koudi else '抠底'}, "
            f"{'under 160' if result.score < 160 else '160 or more'}: "
            f"{'the defenders keep' if result.outcome in (1, 2) else 'the attackers take'} the "
            f"deal, {moved}), kitty points {result.kitty_points}, levels {levels}, blood "
            f"{result.blood}"
            + (f", match won by team {result.match_winner} ({MATCH_ENDS[result.match_end]})"
               if result.match_winner is not None else "")
            + ", rewards " + ", ".join(f"player_{s} {r:+g}" for s, r in enumerate(result.rewards)))


def stopped(text: str, hands: int) -> str:
    """``text`` (a result's words) for the last hand of a match cut short (option
    ``max_hands``): the match does not go on, and no hand follows, whatever the outcome said of
    the next deal."""
    return (text.replace("; the match goes on.", ".")
            + f"\nThe match stops here, after {hands} hand{'' if hands == 1 else 's'} (the most "
              f"this game plays): no next hand is dealt, and no team wins the match.")


def explain_result(result, seat: int, options: dict | None = None) -> str:
    """A finished hand's result in words, for ``seat``'s player (team ``seat % 2``): the
    attackers' score and how it was made, what the outcome means (``outcome_words``), the
    levels and the reward. ``options``: the game's (``joker_levels``)."""
    team = seat % 2
    side = "attacked (the team without the deal)" if team == result.attackers else \
        "defended (the dealer's team)"
    lines = [
        f"Your team (team {team}) {side}. The attackers' score: {_score_words(result)}.",
        outcome_words(result, options),
        f"Levels: yours {result.levels_before[team]} -> {result.levels_after[team]}, theirs "
        f"{result.levels_before[1 - team]} -> {result.levels_after[1 - team]}"
        + (" | 干锅: the 底牌 was not exchanged and its jokers count for nothing"
           if result.gangguo else ""),
    ]
    if result.match_winner is not None:
        lines.append(f"The match is over: {'your' if result.match_winner == team else 'their'}"
                     f" team won ({MATCH_ENDS[result.match_end]}).")
    lines.append(f"Your reward: {result.rewards[seat]:+g}")
    return "\n".join(lines)


def move_text(state, action: int, viewer: int | None = None) -> str:
    """The text of ``action`` about to be played in ``state``, as ``viewer`` sees it (``None``:
    a spectator of every hand). Private moves show as what others see: the dealer's burial
    (which card is the dealer's secret) and the card the dealer gives back for the tribute
    (known to the dealer and the giver, its 上家)."""
    info = cat.ACTIONS[action]
    actor = state.current_player
    if viewer is None or viewer == actor:
        return info.text
    if info.type == "bury" and state.phase == "bury":
        return PRIVATE_MOVES["bury"]
    if info.type == "return" and viewer != (actor - 1) % 4:
        return PRIVATE_MOVES["return"]
    return info.text


#: What the seats that may not see a private move's card read instead (the terminal and the
#: web page's log alike).
PRIVATE_MOVES = {"bury": "buries a card in the 底牌", "return": "gives a card back for the 喝血"}


#: Move types (``action_info(a).type``) -> the name people read: the game's term where it has
#: one, else plain words (``lang="en"`` translates the terms, ``core.lang.TERMS``); a phase
#: may name a type its own way (a joker buried in the 扣王 phase).
MOVE_LABELS = {
    "pass": "pass", "grab": "抢亮大王", "declare": "亮主", "return": "give back (喝血)",
    "bury": "bury into the 底牌", "take": "take back", "play": "play",
}
PHASE_MOVE_LABELS = {("koujoker", "bury"): "扣王", ("koujoker", "pass"): "stop (扣王)"}


def move_label(kind: str, phase: str | None = None) -> str:
    """The name of move type ``kind`` in ``phase`` (``PHASE_MOVE_LABELS``, ``MOVE_LABELS``;
    the id itself if it has none)."""
    return PHASE_MOVE_LABELS.get((str(phase), kind)) or MOVE_LABELS.get(kind, kind)


#: Decision phases (``state.phase``) -> the name people read in the renders' headers (the
#: seat view and programs keep the id).
def options() -> dict:
    """The rules options people may set (``cardenv.dabang.game.OPTIONS``: ``core.options``
    specs), for the web page's setup form."""
    from cardenv.dabang.game import OPTIONS
    return OPTIONS
