"""The texts people read, scanned over many random states of both games in both languages
(issue 21, "moves in words"): the table (every hand and a seat's view), the move list, a move
as others see it, the refusal of random illegal moves, and each finished hand's result, for a
player and for someone watching. None may show a code identifier (``pair_run``, ``None``,
``Phase.PLAY``), a Python list or dict (``[1, 2]``, ``{'a':``), empty brackets, a count that
disagrees with its noun ("1 cards", "1 levels"), or, in English, a Chinese term left untranslated.
The rows of ``SAID`` pin down sentences that once read wrong."""

import re

import numpy as np
import pytest

from cardenv import moves
from cardenv.core.lang import translate
from cardenv.games import make_game
from cardenv.text import explain, move_text, render, why_illegal

CJK = re.compile(r"[\u4e00-\u9fff]")
CARD = re.compile(r"(?:[♦♣♥♠](?:10|[2-9JQKA]))|\b[SB]J\b")
WRONG = {
    "identifier": re.compile(r"\b(?!player_)[a-z]+_[a-z0-9_]+\b|\bPhase\.|\bNone\b|\bnull\b"
                             r"|\bundefined\b"),
    "Python list or dict": re.compile(r"\[-?\d[\d.]*, |\{'|\[\]|\{\}"),
    "empty brackets": re.compile(r"\(\s*\)|\(\s*;|\(\s*,"),
    "one with a plural": re.compile(r"(?<![\d.])1 (cards|levels|points|pairs|triples|jokers|"
                                    r"players|moves|groups)\b"),
    # sentences that once read wrong, kept from coming back
    "points doubled that are not there": re.compile(r"\b0 points x2\b"),
    "the winners named twice": re.compile(r"(player_\d(?: and player_\d)?) won: \1\b"),
    "a level without its noun": re.compile(r"showed \d+ [♦♣♥♠] level(?! card)"),
    "identical level card": re.compile(r"more identical"),
    "a term and its translation side by side": re.compile(r"\b([\w-]+(?: [\w-]+){0,2}) \(\1\)"),
    "the dealer told of itself in the third person": re.compile(r"^the dealer is \w+ing"),
}

GAMES = [("dagong", {"hands": 2}), ("dabang", {"episode": "match", "max_hands": 2}),
         ("dabang", {"dealer": 1, "levels": [5, 7], "blood": 4,
                     "tribute_return": "dealer_choice"})]


def problems(text: str, lang: str) -> list[str]:
    found = [name for name, pattern in WRONG.items()
             if pattern.search(text)]
    if not _cards_listed_agree(text):
        found.append("a count of held cards that disagrees with the cards listed")
    if lang == "en" and CJK.search(text):
        found.append("untranslated Chinese: " + ", ".join(sorted(set(CJK.findall(text)))))
    return found


def texts_of_a_game(name: str, options: dict, seed: int):
    """(what, text) for many texts a person reads in one random game."""
    game = make_game(name, **options)
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    seen = 0
    while not state.is_over:
        seat, legal = state.current_player, state.legal_actions()
        action = int(rng.choice(legal))
        if rng.random() < 0.15:
            seen += 1
            yield "table", render(state)
            yield "seat view", render(state, seat=seat)
            yield "move list", moves.moves_text(game, legal, lambda t: t, phase=state.phase)
            yield "move as seen", move_text(state, action, viewer=(seat + 1) % 4)
            for wrong in rng.choice(game.num_actions, 6):
                reason = why_illegal(state, int(wrong))
                if reason:  # as the seat to act reads it, after the move it typed
                    yield f"refusal of {game.action_info(int(wrong)).text}", \
                        reason.split(" is not a move now: ")[-1]
        before = len(state.results)
        state.apply(action)
        for result in state.results[before:]:
            yield "watched result", explain(state, result, None)
            for s in range(4):
                yield f"result for player_{s}", explain(state, result, s)
    yield "final table", render(state)
    assert seen > 3


@pytest.mark.parametrize("name, options", GAMES, ids=lambda v: str(v)[:30])
@pytest.mark.parametrize("seed", range(2))
def test_texts_read_well(name, options, seed):
    bad = []
    for what, text in texts_of_a_game(name, options, seed):
        for lang in ("zh", "en"):
            shown = text if lang == "zh" else translate(text, "en")
            for problem in problems(shown, lang):
                bad.append(f"{what} ({lang}): {problem}:\n{shown}")
    assert not bad, "\n\n".join(bad[:5])


@pytest.mark.parametrize("text, lang", [
    ("Hand 1 result: 绑, x2, winners player_0, player_3, rewards [2, -2, -2, 2]", "zh"),
    ("levels [3, 3] -> [4, 3], blood 1", "zh"),
    ("match won by team 1 (pass_10)", "zh"),
    ("cannot play ♣3: 1 cards do not finish your follow: add more", "zh"),
    ("The attackers' score: 375 (tricks 375, plus the kitty's 0 points x2 for kitty dig)", "en"),
    ("phase Phase.PLAY, dealer None", "zh"),
    ("player_1 and player_2 won: player_1 and player_2 took 135 of the 200 points", "zh"),
    ("player_0 won: player_0 played 硬牌, one against three, and went out first", "zh"),
    ("player_0  0D  52  0  showed 2 ♦ level", "zh"),
    ("a declaration must show strictly more identical level card", "en"),
    ("you must follow the led suit, ♥: you hold 3 ♥ cards (♥7 ♥J), and ♣3 is not ♥", "zh"),
    ("illegal move: 7喜 7x9: your hand cannot make 7喜 7x9", "en"),
    ("'quad ♦K' is not a move now: the dealer is giving cards back for the tribute (tribute): "
     "give back a card", "en"),
    ("'single ♠7' is not a move now: it is the trump declaration (trump declaration): declare "
     "trump or pass", "en"),
])
def test_the_scan_catches_what_once_read_wrong(text, lang):
    """Each row a sentence the game once printed (before issue 21's probe): the scan flags it."""
    assert problems(text, lang), text


def _cards_listed_agree(text: str) -> bool:
    """'you hold N ♥ cards (...)': N is the number of cards listed, counting those chosen
    already and the 'and K more' of a cut list."""
    for held, listed in re.findall(r"you hold (\d+) \S+ cards? \(([^)]*)\)", text):
        cards = CARD.findall(listed)
        more = re.search(r"and (\d+) more", listed)
        if len(cards) + (int(more.group(1)) if more else 0) != int(held):
            return False
    return True


@pytest.mark.parametrize("seed", range(6))
def test_a_follow_refusal_counts_the_cards_it_lists(seed):
    """A Dabang follow refused for the suit duty names as many led-suit cards as it counts,
    those chosen already in the follow included (once '3 ♥ cards (♥7 ♥J)')."""
    game = make_game("dabang")
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    checked = 0
    while not state.is_over:
        if state.phase == "play" and state.trick.partial:
            for action in range(game.num_actions):
                reason = why_illegal(state, action)
                if reason and "you hold" in reason and " cards (" in reason:
                    assert _cards_listed_agree(reason), reason
                    checked += 1
        state.apply(int(rng.choice(state.legal_actions())))
    assert checked


def test_the_scan_sees_a_count_that_disagrees():
    assert not _cards_listed_agree("you hold 3 ♥ cards (♥7 ♥J), and ♣3 is not ♥")
    assert _cards_listed_agree("you hold 3 ♥ cards (♥7 ♥J; ♥A chosen already), and ♣3 is not ♥")
    assert _cards_listed_agree("you hold 12 ♦ cards (♦4 ♦5 ♦6 ♦9 ♦10 ♦10 ♦10 ♦J ♦Q ♦Q and 2 "
                               "more), and ♥10 is not ♦")
