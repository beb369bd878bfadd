"""Dabang's table extras for people's programs (the web page reads them through the
presentation's ``table_extras``, ``cardenv.web.extras``): the attackers' points against
the score bands 120 / 160 / 200, the tribute and the burial in words, who took a trick, and the
rules panel.

The score is the observation's own pieces (``attack_points``, ``thresholds``, ``points_out``,
``blood_owed``: public ones of the seat's observation, computed by the engine), the bands the
engine's (``cardenv.dabang.counting.THRESHOLDS``); the rest is read from the seat view and the
log as the seat sees it. Nothing here applies a rule to hidden cards.
"""

from __future__ import annotations

import numpy as np

from cardenv.dabang.counting import THRESHOLDS, TOTAL_POINTS
from cardenv.dabang.observation import LAYOUT
from cardenv.dabang.phases.burial import KITTY_SIZE

HELP = [
    "Four players in two teams, partners opposite: player_0 and player_2 are team 0, player_1 "
    "and player_3 team 1. Four decks: 52 cards each, 8 in the 底牌 (the kitty).",
    "Levels: each team climbs from 3; a team that goes up past 10 wins the match. A hand is "
    "played at the dealer team's level: its level cards (混牌), both jokers, every 2 (常主) and "
    "the cards of the trump suit are trump (主牌).",
    "Trump: in later hands it is declared during the deal (亮主) by showing identical level "
    "cards of a suit; more of them override. In a match's first hand a big joker grabs the deal "
    "and the trump (抢亮大王); if nobody grabs, four flipped 底牌 cards decide.",
    "Tribute (喝血): after a hand that earned blood, the new dealer's 上家 gives the dealer that "
    "many of its strongest cards without points.",
    "The 底牌: the dealer takes up its 8 cards and buries 8 cards of its hand. Then each other "
    "player may bury jokers (扣王, a big joker before a small one) and takes back as many of the "
    "底牌's smallest cards.",
    "Play: the leader plays 1 to 4 identical cards (a single, a 棒, a 滚子 or a 四联); the others "
    "play as many, following suit (trump is one suit). Only identical cards of the led suit, or "
    "trump from a player out of that suit, can take the trick; its winner leads the next.",
    "Score: the dealer's team defends; the other team attacks (抓分方) and scores the points it "
    "takes: each 5 is worth 5, each 10 and K 10 (400 in all), plus twice the 底牌's points if it "
    "takes the last trick (抠底).",
    "At 160 or more the attackers take the deal. The defenders go up a level if the attackers "
    "score under 160 and the defenders take the last trick (保底); the attackers go up if they "
    "score 160 or more and take the last trick; jokers in the 底牌 add levels. Each 10 points "
    "under 120 or over 200 is 1 blood for the next hand's tribute.",
    "On this page: select the cards of a whole lead, follow or burial in your hand, then play "
    "them; or click a move in the list.",
]
MARKS = {120: "under 120: blood for the defenders' next deal",
         160: "160: the attackers take the deal",
         200: "over 200: blood for the attackers' next deal"}
SCALE = 240  # the score bar's length in points (the last band, and room above it)


def _pieces(observation) -> dict:
    return {name: view[0] for name, view in LAYOUT.observation_views(
        np.asarray(observation, dtype=np.float32)[None]).items()}


def _seats(view: dict, seats) -> str:
    """``player_1 and player_3 (you)``: seats named as the view's seat reads them."""
    return " and ".join(f"player_{s}" + (" (you)" if s == view["seat"] else "")
                        + (" (dealer)" if s == view["dealer"] else "") for s in seats)


def _who(view: dict, seat: int) -> str:
    return "you" if seat == view["seat"] else f"player_{seat}"


def _dealer(view: dict) -> str:
    """The dealer as the seat reads it: ``you (the dealer)`` or ``the dealer player_1``."""
    return "you (the dealer)" if view["dealer"] == view["seat"] else \
        f"the dealer player_{view['dealer']}"


def score(view: dict, observation) -> dict | None:
    """The attackers' trick points against the bands, once the dealer is known."""
    if view["dealer"] is None:
        return None
    pieces = _pieces(observation)
    points = int(pieces["attack_points"][0])
    attackers = 1 - view["dealer"] % 2
    reached = [bool(r) for r in pieces["thresholds"]]
    marks = [{"at": t, "label": MARKS[t], "reached": r} for t, r in zip(THRESHOLDS, reached)]
    side = "your team" if view["team"] == attackers else "the other team"
    if points >= THRESHOLDS[1]:
        where = "they take the deal, whatever the last trick"
    else:
        where = (f"{THRESHOLDS[1] - points} more take the deal (or 抠底: twice the 底牌's "
                 f"points if they take the last trick)")
    return {
        "title": "Attackers' points", "value": points, "max": max(SCALE, points),
        "marks": marks,
        "facts": [["attackers", f"team {attackers}: {_seats(view, (attackers, attackers + 2))}"],
                  ["defenders", f"team {1 - attackers}: "
                                f"{_seats(view, (1 - attackers, 3 - attackers))}"],
                  ["level", view["level"]], ["trump", view["trump"] or "not yet known"],
                  ["points still out", int(pieces["points_out"][0])]],
        "text": f"The attackers ({side}) have {points} of {TOTAL_POINTS} points: {where}.",
    }


def _this_hand(view: dict, moves: list[dict]) -> list[dict]:
    return [m for m in moves if m["hand"] == view["hand_number"]]


def _count(moves, phase: str, kind: str, seat: int | None = None) -> int:
    return sum(1 for m in moves if m["phase"] == phase and m["type"] == kind
               and (seat is None or m["seat"] == seat))


def _tribute(view: dict, pieces: dict, moves: list[dict]) -> list[str]:
    dealer, paid = view["dealer"], view["tribute"]
    if dealer is None:
        return []
    giver = (dealer - 1) % 4  # the dealer's 上家 pays (rules section 3)
    owed = int(pieces["blood_owed"][0])
    if not paid:
        if owed and view["phase"] == "declare":
            return [f"Tribute (喝血): {_dealer(view)} {'are' if dealer == view['seat'] else 'is'} "
                    f"owed {owed} blood: after the deal the dealer's 上家, {_who(view, giver)}, "
                    f"gives up to {owed} of {'your' if giver == view['seat'] else 'its'} "
                    f"strongest cards without points to the dealer."]
        return []
    seen = view["tribute_known"]
    notes = [f"Tribute (喝血): {_who(view, giver)}, the dealer's 上家, gave {paid} card"
             f"{'s' if paid != 1 else ''} to {_dealer(view)}"
             + (f": {' '.join(seen)}." if seen else " (which ones, only those two know).")]
    back = _count(moves, "return", "return")
    if back or view["phase"] == "return":
        returned = view["returned_known"]
        doing = view["phase"] == "return"
        notes.append(f"The dealer {'gives' if doing else 'gave'} back {paid} card"
                     f"{'s' if paid != 1 else ''} of its choice to {_who(view, giver)}"
                     + (f" ({back} so far)" if doing else "")
                     + (f": {' '.join(returned)}." if returned else "."))
    return notes


def _burial(view: dict, moves: list[dict]) -> list[str]:
    dealer, phase = view["dealer"], view["phase"]
    if view["gangguo"]:
        return ["干锅: the 底牌 stays as it lies this hand: the dealer does not take it up, and "
                "nobody buries jokers into it."]
    buried = _count(moves, "bury", "bury", dealer)
    notes = []
    if phase == "bury":
        so_far = f" ({buried} buried, {KITTY_SIZE - buried} to go)" if buried else ""
        if dealer == view["seat"]:
            notes.append(f"You took up the {KITTY_SIZE} cards of the 底牌: bury {KITTY_SIZE} "
                         f"cards of your hand{so_far}. Select them, then play them.")
        else:
            notes.append(f"The dealer player_{dealer} took up the {KITTY_SIZE} cards of the 底牌 "
                         f"and buries {KITTY_SIZE} cards{so_far}.")
    elif buried:
        notes.append(f"{_dealer(view)} took up the {KITTY_SIZE} cards of the 底牌 and buried "
                     f"{buried}.")
    for row in view["seats"]:
        jokers = row["koujoker"]["SJ"] + row["koujoker"]["BJ"]
        if jokers or row["taken_back"]:
            back = " ".join(row["taken_back"])
            notes.append(f"扣王: {_who(view, row['seat'])} buried {jokers} joker"
                         f"{'s' if jokers != 1 else ''} into the 底牌"
                         + (f" and took back {back}." if back else "."))
    if phase in ("koujoker", "takeback") and view["to_act"] is not None:
        if view["to_act"] == view["seat"]:
            notes.append("扣王: you may bury jokers into the 底牌 (a big joker before a small "
                         "one), then take back as many of its smallest cards; or stop.")
        else:
            notes.append(f"扣王: player_{view['to_act']} may bury jokers into the 底牌 and take "
                         f"back as many of its smallest cards.")
    return notes


def notes(view: dict, observation, moves: list[dict]) -> list[str]:
    """The tribute and the burial of this hand in words: how many cards, which went where (as
    far as the seat may know)."""
    hand = _this_hand(view, moves)
    return _tribute(view, _pieces(observation), hand) + _burial(view, hand)


def trick_end(before: dict, after: dict, closing: dict) -> dict:
    """Who took the trick that just ended: the seat whose points rose, or the seat that leads
    next while every seat still holds cards (a winner leads); at a hand's end the team, from the
    hand's result. ``None`` where the views do not tell (a trick without points taken by a seat
    left with no cards)."""
    if len(after["results"]) > len(before["results"]):  # the hand's last trick
        result = after["results"][-1]
        had = [sum(r["points"] for r in before["seats"] if r["team"] == t) for t in (0, 1)]
        gained = [result["trick_points"][t] - had[t] for t in (0, 1)]
        team = result["attackers"] if result["koudi"] else result["defenders"]
        side = "the attackers: 抠底" if result["koudi"] else "the defenders: 保底"
        points = sum(gained)
        return {"winner": None, "team": team, "points": points,
                "text": f"Team {team} ({side}) took the hand's last trick ({points} points)."}
    rose = [a["seat"] for a, b in zip(after["seats"], before["seats"])
            if a["points"] > b["points"]]
    points = sum(a["points"] - b["points"] for a, b in zip(after["seats"], before["seats"]))
    if len(rose) == 1:
        winner = rose[0]
    elif all(row["cards"] for row in after["seats"]):
        winner = after["to_act"]
    else:
        return {"winner": None, "team": None, "points": points,
                "text": f"The trick is over ({points} points); {{player}} leads the next.",
                "seat": after["to_act"]}
    return {"winner": winner, "team": winner % 2, "points": points, "seat": winner,
            "text": f"{{player}} took the trick ({points} points)."}
