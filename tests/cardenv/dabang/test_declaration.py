"""Trump declaration (亮主, 抢亮), brief A2, on scripted decks through the engine.

Every test names the clause it checks. Hand 1 = a fresh match (``dealer=None``, level 3);
hand 2+ = ``dealer=<seat>`` with ``levels``. Suits: ♦ 0, ♣ 1, ♥ 2, ♠ 3.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.dabang import catalogue as cat
from cardenv.dabang.observation import LAYOUT
from tests.cardenv.dabang import scripted as sc
from tests.cardenv.dabang.scripted import C, D, GRAB, H, PASS, S

L = cat.declare_level
LATER = dict(dealer=0, levels=(7, 4))  # hand 2+: dealer 0, team 0 at 7 -> the 7s are level cards


def asks(log):
    return [(d.seat, d.reason, d.deal_pos) for d in log]


# --- hand 1: the big-joker grab (抢亮大王) ------------------------------------------------------

def test_grab_first_stands_trump_is_next_suited_card_jokers_skipped():
    """A2 hand 1: the first BJ grab stands, nobody overrides; trump = suit of the first suited
    card the declarer receives after declaring (SJ skipped); the declarer deals; kitty shown."""
    deck = sc.build_deck(hands=["♦4 ♦4 ♦4 BJ", "BJ SJ ♣9 ♥9", None, "BJ"], first_seat=0)
    st = sc.new_state(deck)
    log = sc.run_declare(st, [(1, GRAB)])
    # seat 1 is asked when its BJ arrives (deck[1]); after the grab nobody is ever asked again,
    # although seats 0 and 3 receive a BJ later (deck[3], deck[12]) and hold one after the deal
    assert asks(log) == [(1, "new card", 2)]
    assert log[0].legal == [PASS, GRAB]
    assert st.deal.decl == GRAB and st.deal.declarer == 1
    assert st.dealer == 1 and st.level == 3
    assert st.trump == C  # ♣9 (seat 1's third card), its second card SJ is skipped
    assert st.v["kitty_revealed"].sum() == 8  # the kitty was shown
    assert st.phase == "bury" and st.current == 1


def test_grab_earlier_bj_holder_who_passed_cannot_override():
    """A2 hand 1: a BJ holder who passed is not asked again once someone grabbed."""
    deck = sc.build_deck(hands=[None, "♦4 BJ ♠7", None, "BJ"], first_seat=0)
    st = sc.new_state(deck)
    log = sc.run_declare(st, [(1, GRAB)])
    assert asks(log) == [(3, "new card", 4), (1, "new card", 6)]
    assert st.dealer == 1 and st.trump == S


def test_grab_when_deal_ends_first_kitty_decides():
    """A2 [D-A2]: the grabber's BJ is its last card: the first suited kitty card decides."""
    deck = sc.build_deck(tail=[None, None, "BJ", None], kitty="SJ BJ BJ BJ ♥9 ♠4")
    st = sc.new_state(deck)
    log = sc.run_declare(st, [(2, GRAB)])
    assert asks(log) == [(2, "new card", 207)]
    assert st.dealer == 2 and st.trump == H


def test_grab_after_deal_kitty_decides():
    """A2 [D-A1] after_deal + [D-A2]: a grab after the deal takes the first suited kitty card,
    not the grabber's next card."""
    deck = sc.build_deck(hands=[None, "BJ ♠4", None, None], kitty="SJ ♦8 ♥9")
    st = sc.new_state(deck, bidding="after_deal")
    sc.run_declare(st, [(1, GRAB)])
    assert st.dealer == 1 and st.trump == D


def test_hand1_decision_points_during_deal():
    """A2 [D-A1] hand 1: (a) a seat is asked when a card lets it grab and it could not before
    (its first BJ, not its second); (c) after the deal every BJ holder in play order from the
    first seat; all pass -> the kitty flips."""
    deck = sc.build_deck(hands=[None, "BJ", None, "BJ BJ"], tail=["BJ", None, None, None],
                         kitty="♦4 ♣5 ♥6 ♠7", first_seat=2)
    st = sc.new_state(deck, first_seat=2)
    log = sc.run_declare(st)
    assert asks(log) == [(3, "new card", 2), (1, "new card", 4), (0, "new card", 207),
                         (3, "after deal", 208), (0, "after deal", 208),
                         (1, "after deal", 208)]
    assert all(d.legal == [PASS, GRAB] for d in log)
    # flips from seat 2: ♦4 (2), ♣5 (3), ♥6 (0), ♠7 (1): ♠7 is highest
    assert st.dealer == 1 and st.trump == S


def test_hand1_after_deal_only_decision_point_c():
    """A2 [D-A1] bidding="after_deal": no decision during the deal, only (c)."""
    deck = sc.build_deck(hands=["BJ", "BJ", None, None], first_seat=0)
    st = sc.new_state(deck, bidding="after_deal")
    log = sc.run_declare(st)
    assert log and all(d.reason == "after deal" and d.deal_pos == 208 for d in log)
    assert all(d.hand_sizes == [52] * 4 for d in log)
    assert [d.seat for d in log][:2] == [0, 1]


# --- hand 1: nobody grabbed, the kitty flips [D-A3] -----------------------------------------------

FLIPS = [
    # kitty (first cards), first seat, winning flip index, trump suit
    ("♠4 ♥A ♦2 ♣3", 1, 3, C),            # 3 (the level) > 2 > A
    ("♦K ♥A ♠2 ♣A", 0, 2, S),            # 2 > A
    ("♥2 ♠2 ♦A ♣K", 0, 0, H),            # equal 2s: the earlier flip
    ("♥K ♠A ♦A ♣Q", 3, 1, S),            # equal As: the earlier flip
    ("♣4 ♥4 ♠4 ♦4", 2, 0, C),            # all equal
    ("♦4 ♣5 ♥4 ♠4", 0, 1, C),            # 5 > 4 (no trump order: suits not compared)
    ("♠Q SJ ♥3 ♦2", 0, 1, H),            # SJ wins: the next suited kitty card (♥3)
    ("♦9 SJ ♥3 BJ SJ ♣7", 1, 3, C),      # BJ > SJ; next suited after the BJ: SJ skipped, ♣7
    ("♠3 ♦3 SJ SJ ♥6", 0, 2, H),         # SJ > 3; equal SJs: the earlier; then ♥6
]


@pytest.mark.parametrize("kitty,first,winner,trump", FLIPS)
def test_flips(kitty, first, winner, trump):
    """A2 [D-A3] hand 1, nobody grabbed: each seat from the first seat turns a kitty card; order
    BJ > SJ > 3 > 2 > A > ... > 4; ties to the earlier flip; a joker winner takes the next
    suited kitty card's suit; the flipper deals; the kitty stays hidden (no 干锅)."""
    deck = sc.build_deck(kitty=kitty, first_seat=first)
    st = sc.new_state(deck, first_seat=first)
    sc.run_declare(st)  # every BJ holder passes
    assert st.deal.decl == 0 and st.deal.declarer is None
    assert st.dealer == (first + winner) % 4
    assert st.trump == trump
    assert st.v["kitty_revealed"].sum() < 8  # only flipped cards turned up
    assert not st.gangguo and st.phase == "bury" and st.current == st.dealer


def test_flip_joker_winner_wraps_silent_point():
    """Brief silent (A2 [D-A3]): a joker wins and no suited card follows it in the kitty; the
    engine wraps round to the kitty's first suited card. Pins the engine's decision."""
    deck = sc.build_deck(kitty="♦4 ♣4 ♥4 BJ SJ SJ SJ SJ", first_seat=0)
    st = sc.new_state(deck)
    sc.run_declare(st)
    assert st.dealer == 3 and st.trump == D


def observed(st, seat: int, name: str) -> np.ndarray:
    """Piece ``name`` of ``seat``'s observation."""
    start, stop = next((a, b) for n, a, b, _, _ in LAYOUT.observation_pieces() if n == name)
    return st.observation(seat)[start:stop]


FLIP_PASSED = [
    # kitty, first seat, winning flip, trump, small and big jokers turned and passed after the
    # four flips
    ("♠4 ♥A ♦2 ♣3", 1, 3, C, [0, 0]),             # a suited card wins: nothing more turned
    ("♠Q SJ ♥3 ♦2", 0, 1, H, [0, 0]),             # the suited card is among the flips
    ("♦4 ♦8 BJ SJ SJ BJ ♣9 ♦6", 0, 2, C, [1, 1]),   # SJ BJ passed, then ♣9
    ("♦4 SJ ♦6 BJ BJ SJ ♣7 ♥9", 2, 3, C, [1, 1]),   # BJ SJ passed, then ♣7
    ("♦4 ♣4 ♥4 BJ SJ SJ BJ BJ", 0, 3, D, [2, 2]),   # all four passed, wrapping round to ♦4
]


@pytest.mark.parametrize("kitty,first,winner,trump,passed", FLIP_PASSED)
def test_flip_jokers_passed_are_public(kitty, first, winner, trump, passed):
    """A2 [D-A3] / [DB-2]: a joker winning the flips names the suit of the next suited kitty
    card; the jokers turned over after the four flips on the way are public (``flip_jokers``,
    small then big), and the suited card found after the flips joins ``kitty_revealed``."""
    deck = sc.build_deck(kitty=kitty, first_seat=first)
    st = sc.new_state(deck, first_seat=first)
    sc.run_declare(st)
    assert (st.dealer, st.trump) == ((first + winner) % 4, trump)
    assert st.v["flip_jokers"].tolist() == passed
    cards = sc.cards(kitty)
    found = [c for c in cards[4:] if c < 52][:1] if passed != [2, 2] else []
    assert np.array_equal(st.v["kitty_revealed"], sc.counts(cards[:4] + found))
    for seat in range(4):
        assert observed(st, seat, "flip_jokers").tolist() == passed


FLIP_HIDDEN = [
    # kitty, first seat, winning flip, trump: a suited card wins the flips, jokers lie among
    # the four unflipped cards
    ("♠4 ♥A ♦2 ♣3 SJ BJ ♠5 ♠6", 1, 3, C),
    ("♥A ♦2 ♣3 ♠4 BJ BJ SJ ♦9", 0, 2, C),   # 3 > 2 > A (the level is 3)
    ("♦2 ♣A ♠3 ♥4 ♥5 SJ ♣9 BJ", 2, 2, S),
]


@pytest.mark.parametrize("kitty,first,winner,trump", FLIP_HIDDEN)
def test_a_suited_winning_flip_turns_nothing_more(kitty, first, winner, trump):
    """A2 [D-A3]: when a suited card wins the four flips it names the trump at once; the other
    four kitty cards are never turned, so no joker among them is public (``flip_jokers`` stays
    0, 0; the engine once counted them as passed) and only the flips join
    ``kitty_revealed``."""
    deck = sc.build_deck(kitty=kitty, first_seat=first)
    st = sc.new_state(deck, first_seat=first)
    sc.run_declare(st)
    assert (st.dealer, st.trump) == ((first + winner) % 4, trump)
    assert st.v["flip_jokers"].tolist() == [0, 0]
    assert np.array_equal(st.v["kitty_revealed"], sc.counts(sc.cards(kitty)[:4]))
    for seat in range(4):
        assert observed(st, seat, "flip_jokers").tolist() == [0, 0]


SHOWN_TABLE = [
    # seat 0's cards, seat 1's cards, the declarations in order, declared_cards rows of
    # seats 0 and 1 (level ♦♣♥♠, SJ, BJ): overridden declarations stay public
    ("♠7 ♠7", "♥7 ♥7", [(0, L(S, 1)), (0, L(S, 2))],
     [[0, 0, 0, 2, 0, 0], [0] * 6]),                                   # reinforced: the most
    ("♠7", "♥7 ♥7", [(0, L(S, 1)), (1, L(H, 2))],
     [[0, 0, 0, 1, 0, 0], [0, 0, 2, 0, 0, 0]]),                       # overridden by seat 1
    ("♠7 ♥7 ♥7", None, [(0, L(S, 1)), (0, L(H, 2))],
     [[0, 0, 2, 1, 0, 0], [0] * 6]),                                   # overriding oneself
    ("♠7 ♠7 ♠7 ♠7", "SJ SJ SJ SJ", [(0, L(S, 4)), (1, cat.DECLARE_SJ4 + D)],
     [[0, 0, 0, 4, 0, 0], [0, 0, 0, 0, 4, 0]]),                       # four small jokers
    ("SJ SJ SJ SJ ♠7", "BJ BJ BJ BJ", [(0, L(S, 1)), (0, cat.DECLARE_SJ4 + C),
                                       (1, cat.DECLARE_BJ4 + H)],
     [[0, 0, 0, 1, 4, 0], [0, 0, 0, 0, 0, 4]]),
]


@pytest.mark.parametrize("cards0,cards1,script,rows", SHOWN_TABLE)
def test_overridden_declarations_stay_public(cards0, cards1, script, rows):
    """A2 [D-A4] / [DB-3]: every declaration shows its cards to everyone, so ``declared_cards``
    keeps, per seat, the most level cards of each suit and the jokers it has shown, overridden
    declarations included, beside the standing one (``declarer`` / ``declaration``)."""
    st = _override_state(cards0, cards1)
    sc.run_declare(st, script)
    assert st.v["declared_cards"].tolist() == rows + [[0] * 6, [0] * 6]
    seat, action = script[-1]
    assert st.deal.declarer == seat and st.deal.decl == action
    for observer in range(4):
        order = [(observer + i) % 4 for i in range(4)]
        expected = np.asarray(rows + [[0] * 6, [0] * 6])[order].ravel()
        assert np.array_equal(observed(st, observer, "declared_cards"), expected)


def test_hand1_never_gangguo():
    """A2/A4: hand 1 never has 干锅 (grab: kitty shown; trump ♥ from ♥3 of the kitty, no other
    ♥ in it -> would be 干锅 in a later hand)."""
    deck = sc.build_deck(hands=[None, None, "BJ", None],
                         kitty="♥3 ♦4 ♦6 ♣6 ♣7 ♦8 ♣8 ♣9", tail=[None, None, "BJ", None])
    st = sc.new_state(deck, bidding="after_deal")
    sc.run_declare(st, [(2, GRAB)])
    assert st.trump == H and st.v["kitty_revealed"].sum() == 8
    assert not st.gangguo and st.phase == "bury"


def test_hand1_all_joker_kitty_redeals():
    """A2 (hand 1, flips) with a kitty of 8 jokers: no suit can be found -> redeal."""
    deck = sc.build_deck(kitty="SJ SJ SJ SJ BJ BJ BJ BJ")
    st = sc.new_state(deck, seed=5)
    sc.run_declare(st)
    assert st.deal.deck != deck
    assert st.trump is not None and st.dealer is not None and st.level == 3
    assert st.phase == "bury"


# --- hand 2+: declarations with the level card, overrides [D-A4] --------------------------------

def _override_state(seat0, seat1, **options):
    deck = sc.later_hand_deck(7, hands=[seat0, seat1, None, None])
    return sc.new_state(deck, bidding="after_deal", **{**LATER, **options})


OVERRIDES = [
    # seat 0 holds n0 ♠7 and declares with all of them; seat 1 holds n1 ♥7:
    # the ♥ declarations seat 1 may make
    (1, 1, []), (2, 2, []), (3, 3, []), (4, 4, []), (2, 1, []), (4, 3, []),
    (1, 2, [2]), (2, 3, [3]), (1, 3, [2, 3]), (3, 4, [4]), (2, 4, [3, 4]), (1, 4, [2, 3, 4]),
]


@pytest.mark.parametrize("n0,n1,allowed", OVERRIDES)
def test_level_overrides(n0, n1, allowed):
    """A2 [D-A4]: only strictly more identical level cards override (2>1, 3>2/1, 4>3/2/1);
    equal counts never override."""
    st = _override_state("♠7 " * n0, "♥7 " * n1)
    script = [(0, L(S, n0))]
    if allowed:
        script.append((1, L(H, max(allowed))))
    log = sc.run_declare(st, script)
    seat1 = [d for d in log if d.seat == 1]
    assert st.dealer == 0  # hand 2+: declaring never changes the dealer
    if allowed:
        assert seat1[0].legal == [PASS] + [L(H, n) for n in allowed]
        assert st.trump == H and st.deal.declarer == 1 and st.deal.decl == L(H, max(allowed))
    else:
        assert not seat1  # nothing to declare: seat 1 is never asked
        assert st.trump == S and st.deal.declarer == 0 and st.deal.decl == L(S, n0)


JOKER_OVERRIDES = [
    # seat 0's declaration (cards, action), seat 1's cards, seat 1's possible declarations
    ("♠7", L(S, 1), "SJ SJ SJ SJ", [cat.DECLARE_SJ4 + s for s in range(4)]),
    ("♠7 ♠7 ♠7 ♠7", L(S, 4), "SJ SJ SJ SJ", [cat.DECLARE_SJ4 + s for s in range(4)]),
    ("♠7 ♠7 ♠7 ♠7", L(S, 4), "BJ BJ BJ BJ", [cat.DECLARE_BJ4 + s for s in range(4)]),
    ("SJ SJ SJ SJ", cat.DECLARE_SJ4 + C, "BJ BJ BJ BJ", [cat.DECLARE_BJ4 + s for s in range(4)]),
    ("BJ BJ BJ BJ", cat.DECLARE_BJ4 + C, "SJ SJ SJ SJ", []),
    ("SJ SJ SJ SJ", cat.DECLARE_SJ4 + D, "♥7 ♥7 ♥7 ♥7", []),
    ("BJ BJ BJ BJ", cat.DECLARE_BJ4 + D, "♥7 ♥7 ♥7 ♥7", []),
]


@pytest.mark.parametrize("cards0,decl0,cards1,allowed", JOKER_OVERRIDES)
def test_joker_overrides(cards0, decl0, cards1, allowed):
    """A2 [D-A4]: 4 SJ / 4 BJ name any suit (never no-trump) and beat every level declaration;
    4 BJ beat 4 SJ; nothing beats 4 BJ; level cards never beat 4 jokers."""
    st = _override_state(cards0, cards1)
    script = [(0, decl0)] + ([(1, allowed[0])] if allowed else [])  # seat 1 names ♦
    log = sc.run_declare(st, script)
    seat1 = [d for d in log if d.seat == 1]
    if allowed:
        assert seat1[0].legal == [PASS] + allowed
        assert {cat.ACTIONS[a].suit for a in allowed} == {0, 1, 2, 3}
        assert st.deal.declarer == 1 and st.trump == D
    else:
        assert not seat1
        assert st.deal.declarer == 0 and st.deal.decl == decl0


def test_joker_declaration_at_standing_zero_names_any_suit():
    """A2: 4 SJ declare any of the four suits; no no-trump declaration exists."""
    st = _override_state(None, "SJ SJ SJ SJ ♥7")
    log = sc.run_declare(st, [(1, cat.DECLARE_SJ4 + S)])
    first = [d for d in log if d.seat == 1][0]
    assert set(cat.DECLARE_SJ4 + s for s in range(4)) <= set(first.legal)
    assert L(H, 1) in first.legal
    assert st.trump == S and st.deal.declarer == 1


def test_reinforce_own_declaration():
    """A2: a player may reinforce its own declaration (1 ♠ then 2 ♠); the reinforced
    declaration then resists an equal count."""
    st = _override_state("♠7 ♠7", "♥7 ♥7")
    log = sc.run_declare(st, [(0, L(S, 1)), (1, PASS), (0, L(S, 2))])
    assert [(d.seat, d.action) for d in log][:3] == [(0, L(S, 1)), (1, PASS), (0, L(S, 2))]
    assert st.deal.decl == L(S, 2) and st.deal.declarer == 0 and st.trump == S
    assert [d for d in log if d.seat == 1][-1].legal == [PASS, L(H, 2)]  # before the reinforce


def test_override_oneself_with_another_suit():
    """A2 / seed 亮主 4 (自己和其他人都可以反): the standing declarer overrides itself."""
    st = _override_state("♠7 ♥7 ♥7", None)
    sc.run_declare(st, [(0, L(S, 1)), (0, L(H, 2))])
    assert st.deal.decl == L(H, 2) and st.deal.declarer == 0 and st.trump == H


def test_after_deal_rounds_repeat_while_anyone_declares():
    """A2 [D-A1] (c): after the deal, seats with a legal declaration in play order from the
    dealer, round again while anyone declares."""
    st = _override_state("♠7 ♠7 ♠7", "♥7 ♥7 ♥7 ♥7")
    log = sc.run_declare(st, [(0, L(S, 1)), (1, L(H, 2)), (0, L(S, 3)), (1, L(H, 4))])
    assert [d.seat for d in log] == [0, 1, 0, 1]
    assert st.deal.decl == L(H, 4) and st.trump == H


def test_level_card_is_the_dealer_teams_level():
    """A2: hand 2+ declarations use the dealer team's level card (dealer 1, team 1 at 4)."""
    deck = sc.later_hand_deck(4, hands=[None, "♠7 ♠7 ♥4", None, None], first_seat=1)
    st = sc.new_state(deck, bidding="after_deal", dealer=1, levels=(7, 4))
    assert st.level == 4
    log = sc.run_declare(st, [(1, L(H, 1))])
    assert log[0].seat == 1 and log[0].legal == [PASS, L(H, 1)]
    assert st.trump == H and st.dealer == 1


def test_later_hand_decision_points_during_deal():
    """A2 [D-A1] hand 2+, bidding during_deal: (a) a new declaration after receiving a card
    (each extra level card); (b) right after a declaration, each other seat that could override
    it, in play order, before the next card; (c) after the deal."""
    deck = sc.later_hand_deck(
        7, hands=["♦7 ♦7", "♠4 ♠4 ♥7", None, "♣7 ♣7"],
        kitty="♠7 ♠7 ♠7 ♠7 ♥7 ♥7 ♥7 ♦4",
        tail=["SJ BJ", "SJ BJ", "♦7 ♦7 ♣7 ♣7 SJ BJ", "SJ BJ"], spread=())
    st = sc.new_state(deck, **LATER)
    log = sc.run_declare(st, [(1, L(H, 1)), (3, PASS), (0, L(D, 2))])
    assert asks(log)[:7] == [
        (0, "new card", 1), (3, "new card", 4), (0, "new card", 5), (3, "new card", 8),
        (1, "new card", 10), (3, "override", 10), (0, "override", 10)]
    assert log[0].legal == [PASS, L(D, 1)]
    assert log[2].legal == [PASS, L(D, 1), L(D, 2)]
    # after 2 ♦ nobody can beat it (seat 2's late 2 ♦7 and 2 ♣7 only equal it): no more asks,
    # during the deal or after it
    assert len(log) == 7
    assert st.deal.decl == L(D, 2) and st.deal.declarer == 0 and st.trump == D


def test_later_hand_c_asks_seats_that_passed_during_deal():
    """A2 [D-A1] (c): a seat that passed during the deal is asked again after it, in play
    order from the dealer."""
    deck = sc.later_hand_deck(7, hands=[None, "♥7 ♥7 ♣7", "♠7 ♠7", "♣7 ♣7 ♣7"],
                              kitty="♦7 ♦7 ♦7 ♦7 ♥7 ♥7 ♠7 ♠7",
                              tail=["SJ BJ", "SJ BJ", "SJ BJ", "SJ BJ"], spread=())
    st = sc.new_state(deck, **LATER)
    log = sc.run_declare(st)
    after = [(d.seat, d.reason) for d in log if d.reason == "after deal"]
    assert [s for s, _ in after] == [1, 2, 3]  # seat 0 holds no level card
    assert st.deal.decl == 0


def test_nobody_declares_random_kitty_draw():
    """A2 hand 2+, nobody declared: kitty cards drawn at random until a suited one; the kitty
    stays hidden (so no 干锅)."""
    seen = set()
    for seed in range(24):
        deck = sc.build_deck(kitty="SJ BJ ♥4 SJ BJ ♣4 SJ SJ")
        st = sc.new_state(deck, seed=seed, **LATER)
        sc.run_declare(st)
        assert st.trump in (H, C) and st.deal.decl == 0
        assert st.v["kitty_revealed"].sum() < 8 and not st.gangguo and st.phase == "bury"
        seen.add(st.trump)
    assert seen == {H, C}


def test_nobody_declares_only_jokers_but_one():
    """A2/A4 hand 2+: the draw skips jokers until the one suited card (♥7, a level card; the
    kitty stays hidden, so no 干锅 although it holds no ♥ other than a level card)."""
    for seed in range(6):
        deck = sc.build_deck(kitty="SJ BJ SJ ♥7 BJ SJ BJ SJ")
        st = sc.new_state(deck, seed=seed, **LATER)
        sc.run_declare(st)
        assert st.trump == H and not st.gangguo


def test_later_hand_all_joker_kitty_redeals():
    """A2 hand 2+: nobody declared and all 8 kitty cards are jokers -> redeal (same dealer)."""
    deck = sc.build_deck(kitty="SJ SJ SJ SJ BJ BJ BJ BJ")
    st = sc.new_state(deck, seed=3, **LATER)
    sc.run_declare(st)
    assert st.deal.deck != deck
    assert st.dealer == 0 and st.level == 7 and st.trump is not None
    assert st.phase in ("bury", "play")
