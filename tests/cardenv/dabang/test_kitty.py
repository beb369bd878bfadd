"""Tribute (喝血, A3), 干锅, the dealer's burial and 扣王 with the take-back (A4), through the
engine on scripted decks.

Unless a row says otherwise: a later hand (``dealer=0``), bidding after the deal, the dealer
declares ♠ with one level card, everyone else passes. Suits: ♦ 0, ♣ 1, ♥ 2, ♠ 3.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.dabang import catalogue as cat
from cardenv.dabang.observation import LAYOUT
from cardenv.dabang.scoring import score_blood
from tests.cardenv.dabang import scripted as sc
from tests.cardenv.dabang.scripted import BJ, PASS, S, SJ

L = cat.declare_level
LEVEL_NAME = {3: "3", 5: "5", 10: "10"}


def later(hands=(None, None, None, None), kitty=None, *, level=3, blood=0, tail=None,
          spread=(1, 2, 3), sink=0, declare=True, seed=0):
    deck = sc.later_hand_deck(level, hands, kitty, tail=tail or (None,) * 4, spread=spread,
                              sink=sink)
    st = sc.new_state(deck, seed=seed, bidding="after_deal", dealer=0, levels=(level, 3),
                      blood=blood)
    log = sc.run_declare(st, [(0, L(S, 1))] if declare else [])
    return st, deck, log


def padding(n, ranks=("4", "6", "7", "8", "9"), suits=(0, 1, 2)):
    """``n`` weak side cards (never ♠, never a point card)."""
    out = [sc.kind(r, s) for r in ranks for s in suits for _ in range(4)]
    return out[:n]


# --- tribute (A3) ------------------------------------------------------------------------------

TRIBUTE = [
    # level, the giver's strong cards (the rest weak side cards), blood, expected tribute
    (3, "BJ SJ ♥3 ♠2 ♦2 ♠A ♠K ♥A", 1, "BJ"),
    (3, "BJ SJ ♥3 ♠2 ♦2 ♠A ♠K ♥A", 3, "BJ SJ ♥3"),                # off-suit level card
    (3, "BJ SJ ♥3 ♠2 ♦2 ♠A ♠K ♥A", 5, "BJ SJ ♥3 ♠2 ♦2"),          # trump 2 > other 2s
    (3, "BJ SJ ♥3 ♠2 ♦2 ♠A ♠K ♥A", 7, "BJ SJ ♥3 ♠2 ♦2 ♠A ♥A"),    # ♠K (10 points) never
    (5, "♠5 ♥5 ♠2 ♠K ♠10 ♠Q ♦A", 3, "♠2 ♠Q ♦A"),                  # level 5: the 5s never
    (10, "♠10 ♦10 ♠2 ♣2 ♠K ♠J ♥A", 3, "♠2 ♣2 ♠J"),                # level 10: the 10s never
]


@pytest.mark.parametrize("level,strong,blood,expected", TRIBUTE)
def test_tribute(level, strong, blood, expected):
    """A3: the dealer's 上家 gives the dealer the N strongest cards of its hand under this
    hand's trump, never a point card (5, 10, K; even the level card at 5 or 10); nothing
    returned [D-A5]; the kitty is shown only after the tribute."""
    giver = sc.cards(strong)
    giver += padding(52 - len(giver))
    st, deck, log = later([f"♠{LEVEL_NAME[level]}", None, None, giver], "♠4 ♠6",
                          level=level, blood=blood, spread=(1, 2), sink=0)
    want = sc.cards(expected)
    assert st.trump == S and st.level == level
    assert sorted(st.tribute.cards) == sorted(want)
    assert all(d.kitty_shown == 0 for d in log)  # never shown before the tribute
    assert st.phase == "bury" and st.v["kitty_revealed"].sum() == 8
    dealt = sc.initial_hands(deck)
    assert np.array_equal(st.hands[3], dealt[3] - sc.counts(want))
    assert np.array_equal(st.hands[0], dealt[0] + sc.counts(want) + sc.counts(deck[208:]))
    assert st.hands.sum(axis=1).tolist() == [60 + blood, 52, 52, 52 - blood]
    assert st.v["tribute"][0] == blood
    for seat in range(4):
        seen = sc.counts(want) if seat in (0, 3) else np.zeros(54, dtype=int)
        assert np.array_equal(st.v["tribute_known"][seat], seen)


def test_no_tribute_in_first_hand():
    """A3: in hand 1 of a match N = 0."""
    st = sc.new_state(sc.build_deck())
    sc.run_declare(st)
    assert st.tribute.cards == [] and st.hands.sum(axis=1).tolist().count(52) == 3


def test_tribute_giver_short_of_non_point_cards_silent_point():
    """Brief silent (A3): the giver holds fewer non-point cards than the blood owed. The
    engine pays what it has. Pins the engine's decision."""
    giver = [sc.kind(r, s) for r in ("5", "10", "K") for s in range(4) for _ in range(4)]
    giver += sc.cards("♦4 ♦4 ♦6 ♦6")
    st, _, _ = later(["♠3", None, None, giver], "♠4 ♠6", blood=6, spread=(1, 2))
    assert sorted(st.tribute.cards) == sorted(sc.cards("♦4 ♦4 ♦6 ♦6"))


# --- 干锅 (A4) -----------------------------------------------------------------------------------

GANGGUO = [
    ("♦4 ♦6 ♣6 ♣7 ♥8 ♥9 ♦J ♠3", True),    # no ♠ but a level card (not counted)
    ("BJ SJ ♥3 ♦2 ♠4 ♠5 ♠A ♣2", True),    # only trump cards
    ("BJ BJ SJ SJ ♦3 ♣3 ♥3 ♦2", True),    # only trump cards, no ♠ at all
    ("♠4 ♦4 ♦6 ♣6 ♣7 ♥8 ♥9 ♦J", False),   # one ♠ card
    ("♠2 ♦4 ♦6 ♣6 ♣7 ♥8 ♥9 ♦J", False),   # ♠2 is a card of the trump suit (only level cards
                                          # are not counted)
    ("♠4 BJ SJ ♥3 ♦2 ♠5 ♠A ♦J", False),   # ♠ cards and one side card
]


@pytest.mark.parametrize("kitty,gangguo", GANGGUO)
def test_gangguo(kitty, gangguo):
    """A4 干锅 (hand 2+, kitty shown): no trump-suit card (level cards not counted) or only
    trump cards -> the kitty is not exchanged and nobody buries jokers (others hold jokers)."""
    st, deck, _ = later(["♠3"], kitty, spread=(1, 2, 3))
    assert st.v["kitty_revealed"].sum() == 8
    assert st.gangguo is gangguo and st.v["gangguo"][0] == int(gangguo)
    if gangguo:
        assert st.phase == "play" and st.current == 0 and st.trick.led_kind < 0
        assert st.kitty.cards == sc.cards(kitty)
        assert st.hands.sum(axis=1).tolist() == [52] * 4
        assert np.array_equal(st.hands, sc.initial_hands(deck))
    else:
        assert st.phase == "bury" and st.current == 0


def test_no_gangguo_when_kitty_hidden():
    """A4: 干锅 only when the kitty was shown (hand 2+, nobody declared: random draw; the kitty
    holds no ♥ except a level card and is all trump, yet the hand goes on to the burial)."""
    st, _, _ = later(kitty="♥3 BJ BJ BJ BJ SJ SJ SJ", declare=False, spread=(1, 2, 3))
    assert st.trump == 2 and st.v["kitty_revealed"].sum() < 8
    assert not st.gangguo and st.phase == "bury"


def test_gangguo_kitty_jokers_count_for_nothing():
    """A4/A6: in a 干锅 hand the kitty's jokers bring no levels and no blood (kitty_jokers 0)."""
    st, _, _ = later(["♠3"], "BJ BJ BJ BJ SJ SJ SJ SJ", spread=())
    assert st.gangguo
    sc.play_out(st)
    r = st.results[-1]
    assert r.gangguo and r.kitty_jokers == (0, 0)
    assert r.blood == score_blood(r.score)
    assert max(r.gained) <= 1 and r.match_end != "four_jokers"


def test_shown_kitty_reaches_every_seat_observation():
    """A4: after the declaration the kitty is shown to everyone. Two deals that differ only in
    which of two cards (♦J / ♣Q) the dealer was dealt and which lay in the (shown) kitty:
    after the dealer picks the kitty up its hand is the same in both, but every other seat saw
    a different kitty, so its observation at its next decision must differ."""
    obs = []
    for dealer_card, kitty_card in (("♦J", "♣Q"), ("♣Q", "♦J")):
        st, _, _ = later(["♠3 " + dealer_card + " ♥K ♠10 ♣5"],
                         "♠4 ♦6 ♣6 ♥7 ♦8 ♣9 ♥8 " + kitty_card, spread=(1, 2, 3))
        assert st.v["kitty_revealed"].sum() == 8 and st.phase == "bury"
        sc.bury(st, "♦6 ♣6 ♥7 ♦8 ♣9 ♥8 ♦J ♣Q")
        sc.finish_kitty(st)
        assert st.phase == "play" and st.current == 0
        sc.play(st, 0, "♥K")  # the dealer's lead, the same in both deals
        assert st.current == 1
        obs.append([st.observation(seat) for seat in (1, 2, 3)])
    for seat in range(3):
        assert not np.array_equal(obs[0][seat], obs[1][seat]), \
            f"seat {seat + 1}'s observation does not show the kitty it saw"


# --- the dealer's burial (A4) ----------------------------------------------------------------

def test_burial_big_joker_before_small_any_card():
    """A4: the dealer takes the 8 kitty cards and buries 8 of its 60, one decision each; any
    card may be buried (point cards, jokers), but no SJ while a BJ remains in hand."""
    st, deck, _ = later(["♠3 BJ BJ SJ ♥K ♠10 ♣5"], "♠4 ♦6 ♣6 ♥7 ♦8 ♣9 ♥J ♦Q",
                        spread=(1, 2, 3))
    assert st.phase == "bury" and st.hands[0].sum() == 60
    held = [k for k in range(54) if st.hands[0, k]]
    assert st.legal_actions() == [cat.bury(k) for k in held if k != SJ]
    sc.bury(st, "BJ")
    assert cat.bury(SJ) not in st.legal_actions()
    sc.bury(st, "BJ")
    assert cat.bury(SJ) in st.legal_actions()
    sc.bury(st, "SJ ♥K ♠10 ♣5 ♦6")
    assert st.phase == "bury"
    sc.bury(st, "♥7")
    assert st.phase != "bury"
    assert sorted(st.kitty.cards) == sorted(sc.cards("BJ BJ SJ ♥K ♠10 ♣5 ♦6 ♥7"))
    assert st.hands[0].sum() == 52


@pytest.mark.parametrize("burial,shown", [
    ("♥4 ♣4 ♦6 ♠6 ♦2 ♥K ♠10 ♣5", False),
    ("BJ ♣4 ♦6 ♠6 ♦2 ♥K ♠10 ♣5", True),
])
def test_burial_disclosed_iff_joker(burial, shown):
    """A4: if the buried set holds a joker it is shown to everyone, otherwise it stays hidden
    from the other players (the dealer knows it)."""
    st, _, _ = later(["♠3 BJ ♥4 ♣4 ♠6 ♦2 ♥K ♠10 ♣5"], "♠4 ♦6 ♣6 ♥7 ♦8 ♣9 ♥J ♦Q",
                     spread=(1, 2, 3))
    sc.bury(st, burial)
    buried = sc.counts(burial)
    assert np.array_equal(st.v["kitty_known"][0], buried)
    for seat in (1, 2, 3):
        assert np.array_equal(st.v["kitty_known"][seat], buried if shown else 0 * buried)


@pytest.mark.parametrize("burial,shown", [
    ("♥4 ♣4 ♦6 ♠6 ♦2 ♥K ♠10 ♣5", 0),
    ("BJ ♣4 ♦6 ♠6 ♦2 ♥K ♠10 ♣5", 1),
])
def test_hidden_kitty_burial_flag(burial, shown):
    """A4: the kitty was never shown (nobody declared); a buried joker shows it."""
    st, _, _ = later(["BJ ♥4 ♣4 ♠6 ♦2 ♥K ♠10 ♣5"], "♠4 ♦6 ♣6 ♥7 ♦8 ♣9 ♥J ♦Q",
                     declare=False, spread=(1, 2, 3))
    assert st.phase == "bury" and st.v["kitty_shown"][0] == 0
    sc.bury(st, burial)
    assert st.v["kitty_shown"][0] == shown


# --- 扣王 and the take-back (A4 [D-A6]) ----------------------------------------------------------

KOU_DEALER = "♠3 ♥4 ♣4 ♠6 ♦2 ♥K ♠10 ♣5 ♥5 ♦5 ♥10 ♦K ♣K ♦10"
KOU_JOKERS = [None, "BJ BJ BJ SJ SJ SJ", "SJ", "BJ"]
KOU_KITTY = "♠4 ♦6 ♣6 ♥7 ♦8 ♣9 ♥J ♦Q"
KOU_BURIAL = "♥4 ♣4 ♦6 ♠6 ♦2 ♥K ♠10 ♣5"   # non-point, non-joker: ♥4 ♣4 ♦6 ♠6 ♦2


def kou_state(burial=KOU_BURIAL, dealer=KOU_DEALER, jokers=KOU_JOKERS):
    hands = [dealer] + list(jokers[1:])
    if jokers[0]:
        hands[0] = jokers[0] + " " + dealer
    st, deck, _ = later(hands, KOU_KITTY, spread=())
    sc.bury(st, burial)
    return st, deck


KOU = [
    # jokers seat 1 buries, cards it takes back (smallest first: side before trump, then
    # strength; never a point card)
    (1, "♥4"), (2, "♥4 ♣4"), (3, "♥4 ♣4 ♦6"), (4, "♥4 ♣4 ♦6 ♠6"), (5, "♥4 ♣4 ♦6 ♠6 ♦2"),
]


@pytest.mark.parametrize("k,taken", KOU)
def test_koujoker_take_back(k, taken):
    """A4: after the dealer, each other player in play order may bury jokers (BJ before SJ) and
    takes back as many of the smallest non-point kitty cards; [D-A6] at most as many jokers as
    the kitty holds non-point, non-joker cards (5 here); the kitty is then shown."""
    st, deck = kou_state()
    assert st.phase == "koujoker" and st.current == 1
    log = sc.finish_kitty(st, koujoker={1: k}, takes="♥4")
    seat1 = [d for d in log if d.seat == 1 and d.phase == "koujoker"]
    assert [d.legal for d in seat1][:3] == [[PASS, cat.bury(BJ)]] * min(3, len(seat1))
    assert [d.legal for d in seat1][3:] == [[PASS, cat.bury(SJ)]] * (len(seat1) - 3)
    assert len(seat1) == (k + 1 if k < 5 else 5)  # at the cap it is not asked again
    choices = [d for d in log if d.phase == "takeback"]
    if k == 1:  # ♥4 and ♣4 are equally small: the player chooses
        assert [(d.seat, d.legal) for d in choices] == [(1, [cat.take(sc.card("♣4")),
                                                             cat.take(sc.card("♥4"))])]
    else:
        assert not choices
    jokers = sc.cards("BJ BJ BJ SJ SJ")[:k]
    dealt = sc.initial_hands(deck)
    assert np.array_equal(st.hands[1], dealt[1] - sc.counts(jokers) + sc.counts(taken))
    assert np.array_equal(sc.counts(st.kitty.cards),
                          sc.counts(KOU_BURIAL) + sc.counts(jokers) - sc.counts(taken))
    # the later seats are asked only while the kitty holds non-point, non-joker cards
    asked = {d.seat for d in log if d.phase == "koujoker"}
    assert asked == ({1, 2, 3} if k < 5 else {1})
    assert st.phase == "play" and st.current == 0  # A5: the dealer leads the first trick
    assert st.v["kitty_shown"][0] == 1
    for seat in range(4):
        assert np.array_equal(st.v["kitty_known"][seat], sc.counts(st.kitty.cards))


def test_koujoker_chain_cap_shrinks():
    """A4 [D-A6]: each seat's cap is counted from the kitty as it finds it; seats in play order
    after the dealer, each taking the then-smallest cards."""
    st, deck = kou_state()
    log = sc.finish_kitty(st, koujoker={1: 2, 2: 1, 3: 1})
    assert [d.seat for d in log if d.phase == "koujoker"] == [1, 1, 1, 2, 3]
    dealt = sc.initial_hands(deck)
    assert np.array_equal(st.hands[2], dealt[2] - sc.counts("SJ") + sc.counts("♦6"))
    assert np.array_equal(st.hands[3], dealt[3] - sc.counts("BJ") + sc.counts("♠6"))
    assert sorted(st.kitty.cards) == sorted(sc.cards("♦2 ♥K ♠10 ♣5 BJ BJ SJ BJ"))


KOU_PUBLIC = [
    # jokers each seat buries ({seat: k}); small and big jokers buried, cards taken back, by
    # seat 1, 2, 3 (seat 1 holds BJ BJ BJ SJ SJ SJ, seat 2 SJ, seat 3 BJ; BJ before SJ)
    ({1: 1}, [(0, 1, "♥4"), (0, 0, ""), (0, 0, "")]),
    ({1: 4}, [(1, 3, "♥4 ♣4 ♦6 ♠6"), (0, 0, ""), (0, 0, "")]),
    ({1: 2, 2: 1, 3: 1}, [(0, 2, "♥4 ♣4"), (1, 0, "♦6"), (0, 1, "♠6")]),
]


@pytest.mark.parametrize("kou,expected", KOU_PUBLIC)
def test_koujoker_kinds_and_take_backs_are_public(kou, expected):
    """A4 / [DB-7]: what 扣王 shows everyone, seat by seat: the small and big jokers buried
    (``koujoker_kinds``; ``koujoker`` counts them together) and the cards taken back from the
    shown kitty (``taken_back``), in every seat's observation, relative to the observer."""
    st, _ = kou_state()
    sc.finish_kitty(st, koujoker=kou, takes="♥4")
    kinds = np.zeros((4, 2), dtype=int)
    taken = np.zeros((4, 54), dtype=int)
    for seat, (small, big, cards) in enumerate(expected, start=1):
        kinds[seat] = small, big
        taken[seat] = sc.counts(cards)
    assert np.array_equal(st.v["koujoker_kinds"], kinds)
    assert np.array_equal(st.v["taken_back"], taken)
    assert np.array_equal(st.v["koujoker"], kinds.sum(axis=1))
    views = LAYOUT.observation_pieces()
    where = {name: (start, stop) for name, start, stop, _, _ in views}
    for observer in range(4):
        obs = st.observation(observer)
        order = [(observer + i) % 4 for i in range(4)]
        start, stop = where["koujoker_kinds"]
        assert np.array_equal(obs[start:stop], kinds[order].ravel())
        start, stop = where["taken_back"]
        assert np.array_equal(obs[start:stop], taken[order].ravel())


@pytest.mark.parametrize("choice", ["♣4", "♥4"])
def test_takeback_player_chooses_among_equal_ranks(choice):
    """A4: cards of equal rank in different suits: the player chooses."""
    st, deck = kou_state()
    sc.finish_kitty(st, koujoker={1: 1}, takes=choice)
    assert st.hands[1, sc.card(choice)] == sc.initial_hands(deck)[1, sc.card(choice)] + 1


def test_takeback_trump_ties_off_suit_level_cards():
    """A4: off-suit level cards are equal in strength: the player chooses between ♦3 and ♣3."""
    st, _ = kou_state(burial="♦3 ♣3 ♥K ♠10 ♣5 ♦5 ♦K ♣K")
    log = sc.finish_kitty(st, koujoker={1: 1}, takes="♣3")
    choice = [d for d in log if d.phase == "takeback"]
    assert choice and choice[0].legal == [cat.take(sc.card("♦3")), cat.take(sc.card("♣3"))]
    assert [d.seat for d in log if d.phase == "koujoker"] == [1, 1, 2, 3]


def test_takeback_side_before_trump():
    """A4: side cards before trump: the side ♥A is taken before the trump-suit ♠4 and the
    off-suit level card ♦3 (both readings of 'smallest' agree here)."""
    st, _ = kou_state(burial="♠4 ♥A ♦3 ♠A ♦2 ♥K ♠10 ♣5",
                      dealer=KOU_DEALER + " ♥A ♠A")
    sc.finish_kitty(st, koujoker={1: 1})
    assert sorted(st.kitty.cards) == sorted(sc.cards("♠4 ♦3 ♠A ♦2 ♥K ♠10 ♣5 BJ"))


def test_takeback_trump_by_face_rank_seed():
    """Seed 底牌 5 (the authority where the brief differs): 最小牌的判定方法为先看是否是主牌，
    然后看点数，最后看花色 -- trump or not, then 点数 (the face rank), then suit. Among the
    trump cards ♠4 (trump suit), ♦3 (off-suit level card), ♠A, ♦2 the face-rank-smallest is ♦3.
    The brief (A4) says "then lower strength", under which ♠4 would be taken (strength 21 < 42).
    See the report: the two texts disagree; this test follows the seed."""
    st, _ = kou_state(burial="♠4 ♥A ♦3 ♠A ♦2 ♥K ♠10 ♣5",
                      dealer=KOU_DEALER + " ♥A ♠A")
    sc.finish_kitty(st, koujoker={1: 2})
    assert sorted(st.kitty.cards) == sorted(sc.cards("♠4 ♠A ♦2 ♥K ♠10 ♣5 BJ BJ"))


@pytest.mark.parametrize("burial,dealer_jokers,allowed", [
    ("♥K ♠10 ♣5 ♥5 ♦5 ♥10 ♦K ♣K", None, False),          # all point cards
    ("BJ SJ ♥K ♠10 ♣5 ♥5 ♦5 ♥10", "BJ SJ", False),        # point cards and jokers
    ("BJ SJ ♥K ♠10 ♣5 ♥5 ♦5 ♥4", "BJ SJ", True),          # one non-point card: cap 1
])
def test_koujoker_forbidden_after_point_burial(burial, dealer_jokers, allowed):
    """A4 (seed 底牌 6, 8): nobody may bury jokers if the dealer buried only point cards, or
    only point cards and jokers."""
    jokers = [dealer_jokers, "BJ BJ SJ", "BJ SJ", "SJ"] if dealer_jokers else KOU_JOKERS
    st, _ = kou_state(burial=burial, jokers=jokers)
    if not allowed:
        assert st.phase == "play"
    else:
        assert st.phase == "koujoker" and st.current == 1
        log = sc.finish_kitty(st, koujoker={1: 1, 2: 1, 3: 1})
        assert [d.seat for d in log if d.phase == "koujoker"] == [1]  # cap 1, then 0
        assert sc.card("♥4") not in st.kitty.cards


def test_no_koujoker_in_gangguo():
    """A4: in a 干锅 hand nobody buries jokers (seats 1..3 hold jokers)."""
    st, _, _ = later(["♠3"], "♦4 ♦6 ♣6 ♣7 ♥8 ♥9 ♦J ♠3", spread=(1, 2, 3))
    assert st.gangguo and st.phase == "play"
    assert st.v["koujoker"].sum() == 0


def test_takeback_same_face_trump_player_chooses_seed():
    """Seed 底牌 5: 如果点数相同，花色不同，可由用户自己决定要哪张牌 -- ♠3 (trump-suit level card)
    and ♦3 (off-suit level card) have the same face rank: the player chooses. (The brief's
    "lower strength" makes ♦3 strictly smaller: see the report.)"""
    st, _ = kou_state(burial="♠3 ♦3 ♥K ♠10 ♣5 ♦5 ♦K ♣K")
    log = sc.finish_kitty(st, koujoker={1: 1}, takes="♠3")
    choice = [d for d in log if d.phase == "takeback"]
    assert choice and choice[0].legal == [cat.take(sc.card("♦3")), cat.take(sc.card("♠3"))]
