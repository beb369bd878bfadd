"""Dagong's table extras for people's programs (the web page reads them through the
presentation's ``table_extras``, ``cardenv.web.extras``): the called card and the
partnership in words, who took a trick, and the rules panel. Read from the seat view alone
(the called card, the partner as the seat may know it, 硬牌, the play to beat)."""

from __future__ import annotations

HELP = [
    "Four players, 27 cards each from two decks. The dealer (庄家) and its hidden partner play "
    "against the other two.",
    "The called card (叫牌): a card of the dealer's hand shown to all; whoever holds the other "
    "copy is the dealer's partner, known to nobody else (the dealer included) until it plays "
    "that card: then it is revealed (明鸡).",
    "硬牌: before the first play a player may declare it and play alone against the other "
    "three; it then wins only by going out first, and the hand ends when someone goes out.",
    "Play: the leader plays any combination; each next player beats it with a higher one of the "
    "same type and length, or with a bomb, or passes. When everyone else has passed since the "
    "last play, that player takes the trick's points and leads.",
    "Combinations: single, pair, 三条, 连对 (pairs in a row), 飞机 (triples in a row); bombs: 4 or "
    "more cards of a rank, 510K (杂510K of mixed suits, 正510K of one suit), 7喜 and 8喜, 摇摆, "
    "天炸 (the four jokers). A joker (癞子) stands for any card.",
    "Points: each 5 is worth 5, each 10 and K 10 (200 in all). The first player out is 一游, "
    "then 二游, 三游; the last left is 末游.",
    "The hand ends at once when 一游 and 二游 are partners (绑: they win), or when three players "
    "are out: then 末游's trick points go to 一游, the points left in its hand to 三游, and the "
    "side with more points wins.",
    "On this page: click cards in your hand, then play them (a move names ranks and jokers; the "
    "game picks the suits), or click a move in the list.",
]


def _who(view: dict, seat: int) -> str:
    return "you" if seat == view["seat"] else f"player_{seat}"


def score(view: dict, observation) -> None:
    """No score bar: the points are each seat's (its row), the sides hidden until 明鸡."""
    return None


def notes(view: dict, observation, moves: list[dict]) -> list[str]:
    """The called card and what the seat knows of the partnership, and the 硬牌 choice."""
    seat, dealer, called = view["seat"], view["dealer"], view["called"]
    partner, text = view["partner"], view["partner_text"]
    if view["solo"] is not None:
        solo = view["solo"]
        forced = " (the dealer holds both called cards)" if text.startswith(
            "none (the dealer holds") else ""
        notes = [f"硬牌: {_who(view, solo)} play{'' if solo == seat else 's'} alone against the "
                 f"other three{forced}, and win{'' if solo == seat else 's'} only by going out "
                 f"first."]
    elif partner == seat and text.startswith("you"):
        notes = [f"You hold the other {called}: you are the dealer's partner, hidden until you "
                 f"play it: then you are revealed (明鸡)."]
    elif partner is not None:
        notes = [f"{_who(view, partner)} played the other {called}: the dealer's partner is "
                 f"revealed (明鸡)."]
    else:
        dealt = "You called" if dealer == seat else f"The dealer player_{dealer} called"
        notes = [f"{dealt} {called}: whoever holds the other {called} is "
                 f"{'your' if dealer == seat else 'its'} partner, hidden until it plays that "
                 f"card: then it is revealed (明鸡)."]
    if view["phase"] == "solo" and view["to_act"] == seat:
        notes.append("硬牌: declare it to play alone against the other three (you then win only "
                     "by going out first), or decline.")
    return notes


def trick_end(before: dict, after: dict, closing: dict) -> dict:
    """Who took the trick: the player of the play to beat, once every other player has passed
    (the trick's points with it); a trick cut short by the end of the hand is left to the
    hand's result."""
    if len(after["results"]) > len(before["results"]):
        return {"winner": None, "team": None, "points": None,
                "text": "The hand ended with this trick (see its result)."}
    standing = before["standing"]
    return {"winner": standing["seat"], "team": None, "points": standing["trick_points"],
            "seat": standing["seat"],
            "text": f"{{player}} took the trick ({standing['trick_points']} points)."}
