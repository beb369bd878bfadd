"""Dabang's text views: the hand grouped as players hold it (side suits, then the trump in
strength order, or before the trump is known the cards that are trump whatever the suit), the
play winning the trick so far marked, and the dealt kitty's face-up cards shown only until the
burial is over."""

from types import SimpleNamespace

import numpy as np
import pytest

from cardenv.core.cards import parse_cards
from cardenv.dabang import DabangGame
from cardenv.dabang.phases.trick import Trick, winning_seat
from cardenv.dabang.presentation import WINNING, hand_groups, render_text, render_view, seat_view
from cardenv.dabang.scoring import settle
from cardenv.dabang.strength import TRUMP, suit_row
from cardenv.text import explain
from tests.cardenv.dabang.positions import random_step
from tests.cardenv.dabang.scripted import D, H, S, counts

# (hand, trump, level, expected groups as "label: cards")
GROUPS = [
    # trump ♥, level 5: side suits without their 5s and 2s in rank order; the trump: ♥ cards,
    # then the side 2s (equal: by suit), the trump 2, side level cards, trump level card, SJ, BJ
    ("♠3 ♠5 ♥5 ♦2 ♥2 ♠2 ♥K ♥4 ♦A ♦4 SJ BJ ♣4 ♣4", H, 5,
     ["♦: ♦4 ♦A", "♣: ♣4 ♣4", "♠: ♠3", "trump ♥: ♥4 ♥K ♦2 ♠2 ♥2 ♠5 ♥5 SJ BJ"]),
    # trump ♠, level 10: the 10s are trump, the 3s are plain; a suit all trump is no side group
    ("♠10 ♦10 ♦3 ♠3 ♠A BJ BJ", S, 10, ["♦: ♦3", "trump ♠: ♠3 ♠A ♦10 ♠10 BJ BJ"]),
    # trump ♦, no trump card held
    ("♣3 ♣A ♥J ♥Q", D, 7, ["♣: ♣3 ♣A", "♥: ♥J ♥Q"]),
    # only trump
    ("BJ ♦3 ♦K", D, 3, ["trump ♦: ♦K ♦3 BJ"]),
    # not declared yet: every suit apart, the level cards, 2s and jokers apart (trump whatever
    # the suit): 2s (by suit), level cards (by suit), SJ, BJ
    ("♠3 ♠5 ♥5 ♦2 ♥2 ♥K ♦A SJ BJ ♣4", None, 5,
     ["♦: ♦A", "♣: ♣4", "♥: ♥K", "♠: ♠3", "trump whatever the suit: ♦2 ♥2 ♥5 ♠5 SJ BJ"]),
    ("♦3 ♦3 ♣3", None, 3, ["trump whatever the suit: ♦3 ♦3 ♣3"]),
    ("", H, 5, []),
]


@pytest.mark.parametrize("hand, trump, level, expected", GROUPS)
def test_hand_groups(hand, trump, level, expected):
    groups = hand_groups(counts(hand), trump, level)
    assert [f"{g['label']}: {' '.join(g['cards'])}" for g in groups] == expected
    assert [g["trump"] for g in groups] == [e.startswith("trump") for e in expected]


def play_state(seed=3, steps=0):
    """A game stepped at random until ``steps`` moves into the play phase."""
    state = DabangGame().new_state(seed)
    rng = np.random.default_rng(seed)
    while state.phase != "play":
        random_step(state, rng)
    for _ in range(steps):
        random_step(state, rng)
    return state, rng


def test_groups_hold_the_hand_and_trump_is_the_engines():
    """Along a game, each seat's groups hold exactly its hand; a card is in the trump group
    exactly when the engine's tables make it trump; before the trump is known, the cards in the
    last group are trump whatever the suit becomes."""
    state = DabangGame().new_state(11)
    rng = np.random.default_rng(11)
    seen_before = seen_after = 0
    while not state.is_over:
        for seat in range(4):
            view = seat_view(state, seat)
            cards = [c for g in view["hand_groups"] for c in g["cards"]]
            assert sorted(cards) == sorted(view["hand"])
            for g in view["hand_groups"]:
                kinds = parse_cards(" ".join(g["cards"]))
                if state.trump is None:
                    always = np.all([suit_row(t, state.level)[kinds] == TRUMP for t in range(4)],
                                    axis=0)
                    assert (always == g["trump"]).all()
                    seen_before += 1
                else:
                    trump = suit_row(state.trump, state.level)[kinds] == TRUMP
                    assert (trump == g["trump"]).all()
                    seen_after += 1
        random_step(state, rng)
    assert seen_before and seen_after


def test_render_view_prints_the_groups():
    state, _ = play_state()
    view = seat_view(state, 0)
    text = render_view(state, 0)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Your hand ("))
    shown = lines[at + 1:at + 1 + len(view["hand_groups"])]
    assert shown == [f"  {g['label']}: {' '.join(g['cards'])}" for g in view["hand_groups"]]
    assert shown[-1].startswith(f"  trump {view['trump']}: ")
    assert " | trump " in render_text(state)  # the whole table: one line per seat


def trick_state(trump, level, plays):
    """Enough of a state for ``winning_seat``: the trick's plays as ``(seat, cards, void)``."""
    trick = Trick()
    k = len(parse_cards(plays[0][1]))
    for seat, text, void in plays:
        play = {}
        for kind in parse_cards(text):
            play[kind] = play.get(kind, 0) + 1
        identical = next(iter(play)) if len(play) == 1 and play[next(iter(play))] == k else -1
        trick.plays.append([seat, play, identical, void])
    trick.leader, trick.led_kind, trick.k = plays[0][0], trick.plays[0][2], k
    return SimpleNamespace(trick=trick, trump=trump, level=level)


# (trump, level, plays as (seat, cards, void in the led suit), the seat winning so far)
WINNERS = [
    (H, 5, [(0, "♠K", False)], 0),
    (H, 5, [(0, "♠K", False), (1, "♠A", False)], 1),
    (H, 5, [(0, "♠K", False), (1, "♠A", False), (2, "♠3", False)], 1),
    (H, 5, [(2, "♠K", False), (3, "♥3", True)], 3),  # void: a trump takes it
    (H, 5, [(2, "♠K", False), (3, "♦A", True)], 2),  # void, no trump: cannot win
    (H, 5, [(0, "♦2", False), (1, "♠2", False)], 0),  # equal strength: the first keeps it
    (H, 5, [(0, "♦2", False), (1, "♥2", False)], 1),  # the trump suit's 2 is stronger
    (H, 5, [(0, "♠5", False), (1, "SJ", False), (2, "♥5", False)], 1),
    (H, 5, [(3, "♠9 ♠9", False), (0, "♠A ♠K", False)], 3),  # not a pair: cannot win
    (H, 5, [(3, "♠9 ♠9", False), (0, "♥3 ♥3", True), (1, "♥4 ♥4", True)], 1),
    (S, 10, [(1, "♦4 ♦4 ♦4", False), (2, "♠3 ♠3 ♠3", True), (3, "♦A ♦A ♦A", False)], 2),
]


@pytest.mark.parametrize("trump, level, plays, expected", WINNERS)
def test_winning_seat(trump, level, plays, expected):
    assert winning_seat(trick_state(trump, level, plays)) == expected


def test_no_winner_before_the_lead():
    assert winning_seat(SimpleNamespace(trick=Trick(), trump=H, level=5)) is None


def test_the_marked_play_takes_the_trick():
    """Along a hand, each seat's view marks one play of the trick in progress and
    ``render_view`` prints the mark after it; the next trick is led by the seat marked before the
    last play or by the last player; the last trick's marked seat is of the team that took it."""
    state, rng = play_state(5)
    tricks = 0
    while not state.is_over:
        marked = None
        if state.trick.plays:
            for seat in range(4):
                trick = seat_view(state, seat)["trick"]
                assert [p["winning"] for p in trick].count(True) == 1
                marked = next(p for p in trick if p["winning"])
                line = next(x for x in render_view(state, seat).splitlines()
                            if x.startswith("Trick: "))
                assert f"player_{marked['seat']}: {' '.join(marked['cards'])} {WINNING}" in line
                assert line.count(WINNING) == 1
        seat, plays = state.current_player, len(state.trick.plays)
        random_step(state, rng)
        if marked is not None and not state.is_over and len(state.trick.plays) < plays:
            assert state.trick.leader in (marked["seat"], seat)
            tricks += 1
    assert tricks > 5
    last = [p for p in seat_view(state, 0)["trick"] if p["winning"]]
    assert len(last) == 1 and last[0]["seat"] % 2 == state.last_trick_team


def test_kitty_face_up_only_until_the_burial_is_over():
    """A first hand where the kitty is turned up: its cards show while the dealer buries, and
    no longer once the burial is over (the kitty is other cards then)."""
    shown = {}
    for seed in range(40):
        state = DabangGame().new_state(seed)
        rng = np.random.default_rng(seed)
        while not state.is_over and state.phase != "play":
            revealed = bool(state.v["kitty_revealed"].any())
            view = seat_view(state, (state.current_player + 1) % 4)
            text = render_view(state, (state.current_player + 1) % 4)
            on = bool(view["kitty_revealed"])
            assert on == ("Kitty cards turned face up" in text)
            assert on == (revealed and state.phase in ("return", "bury"))
            shown[str(state.phase)] = shown.get(str(state.phase), False) or on
            random_step(state, rng)
        if state.phase == "play":
            assert not seat_view(state, 0)["kitty_revealed"]
        if shown.get("bury"):
            break
    assert shown.get("bury")


def settled(trick_points, rewards, koudi=False, dealer=0, levels=(3, 3)):
    result = settle(dealer=dealer, level=levels[dealer % 2], trump=H, levels=list(levels),
                    trick_points=list(trick_points), kitty_points=400 - sum(trick_points),
                    kitty_jokers=(0, 0), koudi=koudi, gangguo=False, joker_levels=True,
                    keep_dealer="partner", four_joker_win="big_or_small")
    result.rewards = list(rewards)
    return result


# (result, a line the watcher's text holds): which team won, named with its players
WATCHED = [
    (settled([200, 140], [1, -1, 1, -1]), "Team 0 (player_0 and player_2) won the hand."),
    (settled([100, 300], [-.5, .5, -.5, .5]), "Team 1 (player_1 and player_3) won the hand."),
    (settled([400, 0], [0, 0, 0, 0]),
     "The match is over: team 0 (player_0 and player_2) won (the attackers scored 0: the "
     "defenders win the match at once)."),
    (settled([100, 260], [0, 0, 0, 0], dealer=1),  # the defenders kept the attackers under 160
     "Team 1 (player_1 and player_3) went up 1 level; the match goes on."),
    (settled([300, 100], [0, 0, 0, 0], dealer=1),  # 160 or more, the kitty kept: nobody goes up
     "Neither team went up a level; the match goes on."),
]


@pytest.mark.parametrize("result, line", WATCHED)
def test_explain_for_a_watcher_names_the_winners(result, line):
    state = DabangGame().new_state(0)
    text = explain(state, result, None, "en")
    assert line in text.splitlines() and "you" not in text.lower()
    assert explain(state, result, 0, "en") != text  # a seat's player is still told as "you"


def test_no_declaration_says_where_the_trump_came_from():
    """Nobody declared: the trump came from the 底牌 (a first hand's flips, a later hand's
    draw), said beside 'declaration: none' rather than leaving the trump unexplained."""
    from cardenv.text import render
    state = DabangGame(episode="match", max_hands=2).new_state(0)
    rng = np.random.default_rng(0)
    said = set()
    while not state.is_over:
        legal = state.legal_actions()
        line = render(state, seat=0).split("\n")[1]
        if state.trump is not None and not state.deal.decl:
            assert line.startswith("declaration: none (trump "), line
            said.add("flips" if "底牌 flips" in line else "drawn")
        state.apply(legal[0] if str(state.phase) == "declare" else int(rng.choice(legal)))
    assert said == {"flips", "drawn"}
