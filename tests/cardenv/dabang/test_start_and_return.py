"""Options that shape a Dabang episode: tribute_return, random later-hand starts, and the
levels a state reports after a hand."""

import numpy as np

from cardenv.dabang import DabangGame
from cardenv.dabang import catalogue as cat


def run_until(state, phase, rng):
    while not state.is_over and state.phase != phase:
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])


def test_tribute_return_gives_back_as_many_cards_of_the_dealers_choice():
    """[DB-8] option: after tribute the dealer returns N cards one by one; hands stay at 52."""
    rng = np.random.default_rng(0)
    for seed in range(10):
        game = DabangGame(dealer=seed % 4, levels=(5, 7), blood=3, tribute_return="dealer_choice")
        s = game.new_state(seed)
        run_until(s, "return", rng)
        assert s.phase == "return" and s.current == s.dealer and len(s.tribute.cards) == 3
        giver = (s.dealer - 1) % 4
        assert s.cards_left[s.dealer] == 55 and s.cards_left[giver] == 49
        held = np.flatnonzero(s.hands[s.dealer])
        assert s.legal_actions() == [cat.give_back(int(k)) for k in held]
        given = []
        for _ in range(3):
            action = s.legal_actions()[rng.integers(len(s.legal_actions()))]
            given.append(action - cat.RETURN)
            s.apply(action)
        assert s.phase != "return"
        assert s.cards_left[s.dealer] == (60 if s.phase == "bury" else 52)  # kitty or 干锅
        assert s.cards_left[giver] == 52
        counts = np.bincount(given, minlength=54)
        for seat in range(4):
            seen = s.v["returned_known"][seat]
            assert np.array_equal(seen, counts if seat in (giver, s.dealer) else 0 * counts)
        assert s.v["returned"][0] == 3


def test_without_return_the_dealer_keeps_the_tribute():
    """[D-A5] default: nothing is returned."""
    s = DabangGame(dealer=1, levels=(4, 4), blood=2).new_state(3)
    run_until(s, "bury", np.random.default_rng(0))
    assert s.phase == "bury" and s.cards_left[1] == 52 + 2 + 8 and s.cards_left[0] == 50


def test_random_later_hand_starts_vary():
    game = DabangGame(dealer="random", levels="random")
    starts = {(s.dealer, tuple(s.levels)) for s in (game.new_state(i) for i in range(60))}
    assert len({d for d, _ in starts}) == 4 and len({lv for _, lv in starts}) > 20
    for seed in range(20):
        s = game.new_state(seed)
        assert not s.first_hand and s.level == s.levels[s.dealer % 2]
        assert all(3 <= x <= 10 for x in s.levels)


def test_levels_after_a_hand_are_the_new_levels():
    rng = np.random.default_rng(1)
    for seed in range(6):
        s = DabangGame(dealer=0, levels=(6, 8)).new_state(seed)
        run_until(s, "over", rng)
        assert s.levels == s.results[-1].levels_after


def test_shown_kitty_stays_in_every_observation():
    """A4: the kitty shown after declaring stays visible (piece kitty_revealed) after the dealer
    picks it up; kitty_shown only says whether the cards now in the kitty are public."""
    rng = np.random.default_rng(2)
    for seed in range(20):
        s = DabangGame(dealer=2, levels=(4, 4)).new_state(seed)
        run_until(s, "bury", rng)
        if s.deal.decl == 0 or s.gangguo:
            continue
        revealed = s.v["kitty_revealed"].copy()
        assert revealed.sum() == 8 and s.v["kitty_shown"][0] == 0
        for seat in range(4):
            start = next(a for n, a, *_ in s.game.layout.observation_pieces()
                         if n == "kitty_revealed")
            assert np.array_equal(s.observation(seat)[start:start + 54], revealed)


def test_random_blood_follows_the_measured_table_and_is_paid():
    """blood="random" (issue 10, item 3): each episode's first dealer is owed a blood drawn
    from BLOOD_COUNTS (the blood met in later hands of heuristic matches), a function of the
    seed; the tribute pays it; a saved state rebuilds it."""
    import numpy as np

    from cardenv.dabang.game import BLOOD_COUNTS, DabangGame, draw_blood

    draws = np.array([draw_blood(seed) for seed in range(20_000)])
    total = sum(BLOOD_COUNTS.values())
    for blood, count in BLOOD_COUNTS.items():
        expected = count / total
        assert abs((draws == blood).mean() - expected) < 4 * (expected / 20_000) ** 0.5 + 1e-3
    assert set(draws) <= set(BLOOD_COUNTS)
    game = DabangGame(dealer="random", blood="random")
    paid = 0
    for seed in range(60):
        state = game.new_state(seed)
        assert state.blood_due == draw_blood(seed) == game.new_state(seed).blood_due
        rng = np.random.default_rng(seed)
        while state.phase == "declare":  # through the deal: the tribute is paid after it
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
        paid += int(state.v["tribute"][0] > 0)
        assert int(state.v["tribute"][0]) <= state.blood_due
        again = game.state_from_dict(state.to_dict())
        assert again.blood_due == state.blood_due and again.to_dict() == state.to_dict()
    assert paid > 10  # about a third of the episodes start with tribute
