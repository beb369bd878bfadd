"""Dabang's world sampler (``DabangGame.sample_worlds``, ``cardenv.dabang.worlds``).

- Consistency, checked here independently of the sampler's own check: every world, rebuilt
  from its recipe, gives the viewing seat the same observation as the real hand at every step,
  the same observation and legal mask now, and the same seat to act; over random and heuristic
  games, option sets, every seat as viewer, positions from the deal to the last trick.
- It reads no hidden card: a world drawn from a position is itself a position with other hidden
  cards and the same information for the seat; the same rng gives the same worlds from both.
- Later hands (a match's, or an episode that starts from one: options ``dealer``, ``blood``):
  the same checks over a table of positions (tribute given or not, returned or not, the viewer
  the dealer, the giver or neither, the kitty shown or drawn, a match's second hand) and over
  many seeds; a world of a later hand is the first hand of a game that starts from its match
  situation (``worlds.WorldSampler.later_game``).
- The distribution: the hidden hands against exact enumeration at small end-of-hand positions
  (first hands: the programme's draws; later hands: whole worlds, with the deal-order weighting
  of the declaration asks, whose count is itself checked against the engine's deal).
- It refuses bad arguments with clear errors.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from cardagents.players.heuristics import heuristic_for
from cardenv.core.errors import StateError
from cardenv.dabang import DabangGame
from cardenv.dabang.phase import Phase
from cardenv.dabang.phases import deal as deal_rules
from cardenv.dabang.follow import play_steps_one
from cardenv.dabang.worlds import SAMPLER
from cardenv.dabang.worlds.common import special_kinds
from cardenv.dabang.worlds.proposal import Proposal
from cardenv.dabang.worlds.view import _NOT_HELD, View
from tests.sizes import sizes

OPTION_SETS = [
    {},
    {"follow": "live"},
    {"bidding": "after_deal"},
    {"episode": "match", "tribute_return": "dealer_choice"},
]


def _hand_start(game, state) -> int:
    """Where the current hand's actions start in the state's history (0 in a first hand)."""
    if not state.results:
        return 0
    replay = game.replay(state.seed, [], state.given_deal)
    for i, action in enumerate(state.history):
        replay.apply(action)
        if len(replay.results) == len(state.results):
            return i + 1
    raise AssertionError("the current hand's start was not found")


def _observations(game, state, seat):
    """The seat's observation before each step of the current hand and after the last."""
    start = _hand_start(game, state)
    replay = game.replay(state.seed, state.history[:start], state.given_deal)
    seen = [replay.observation(seat)]
    for action in state.history[start:]:
        replay.apply(action)
        seen.append(replay.observation(seat))
    return seen


def _check_world(game, state, seat, world, seen):
    """The world agrees with everything ``seat`` has seen of the current hand (rebuilt from its
    recipe; a later hand's world is a state of its own game, ``world.game``)."""
    if state.first_hand:
        assert world.game is game
    else:  # the game that starts from the hand's match situation
        assert world.game.options["dealer"] == state.dealer and not world.results
        assert world.game.options["levels"] == tuple(state.levels)
        assert world.game.options["blood"] == state.blood_due
    rebuilt = world.game.state_from_dict(world.to_dict())
    replay = world.game.replay(rebuilt.seed, [], rebuilt.given_deal)
    hand = len(seen) - 1  # the current hand's actions
    assert np.array_equal(replay.observation(seat), seen[0])
    assert len(world.history) <= hand
    for i, action in enumerate(world.history):
        replay.apply(action)
        assert np.array_equal(replay.observation(seat), seen[i + 1]), f"step {i}"
    assert np.array_equal(replay.observation(seat), seen[-1])
    assert replay.current_player == state.current_player and replay.phase == state.phase
    assert np.array_equal(replay.hands[seat], state.hands[seat])
    if state.current_player == seat:
        assert np.array_equal(replay.legal_mask(), state.legal_mask())
        assert len(world.history) == hand
    elif len(world.history) < hand:  # another seat's follow, unseen, dropped
        assert state.phase is Phase.PLAY and state.trick.partial
    return replay


def test_two_kinds_held_exactly_twice_force_a_better_follow_than_pair_and_singles():
    """[D-A7] A [2,1,1] follow is illegal while another kind of the led suit than its pair's is
    held exactly twice ([2,2] could be built): the sampler's exempt-kind record
    (``worlds.view.View.duty``). Same suits and kinds as the table above; the pair is ♠6."""
    follow = [(15, 2), (19, 1), (23, 1)]
    hand = [0] * 54
    for kind, count in follow:
        hand[kind] = count
    assert _follow_is_legal(hand, follow, 7, 4)
    hand[39] = 2
    assert not _follow_is_legal(hand, follow, 7, 4)


# A first hand with ``bidding="after_deal"`` found by ``cardenv.bench worlds --check 1500
# --seed 400000`` (episode 400022, heuristic play, 50 steps, seat 0 viewing): seats 2 and 0 were
# asked after the deal and passed, seats 1 and 3 passed over; three seats passed at 扣王, two
# of them holding no big joker; a [2,1,1] follow. Before these facts went into the proposal,
# 1 world in about 500 proposals was consistent and the check gave up.
def _after_deal_position():
    from cardenv.bench import check_policies
    game = DabangGame(bidding="after_deal")
    choose = check_policies("dabang")["heuristic"](400022)
    state = game.new_state(400022)
    for _ in range(50):
        state.apply(choose(state))
    return game, state


def test_the_after_deal_asks_and_koujoker_passes_go_into_the_proposal():
    """[D-A1] after the deal, seats are looked at in turn from the first seat and asked exactly
    when they could grab; A4: a seat asked at 扣王 holds a joker, and buries big ones first."""
    game, state = _after_deal_position()
    view = View(game, state, 0)
    assert (view.has_bj, view.no_bj) == ({0, 2}, {1, 3})
    proposal = Proposal(view)
    assert proposal.hi[1, 53] == proposal.hi[3, 53] == 0  # (column 53: the big joker)
    assert proposal.lo[1, 52] == proposal.lo[3, 52] == 1  # passed at 扣王: a small joker
    assert proposal.lo[2, 53] == 1
    assert any(other >= 0 for entries in view.duty for *_, other in entries)
    views = _observations(game, state, 0)
    worlds = game.sample_worlds(state, 0, 8, np.random.default_rng(400023200116))
    for world in worlds:
        _check_world(game, state, 0, world, views)
    assert SAMPLER.last_tries <= 40, SAMPLER.last_tries


def test_the_givers_koujoker_turn_is_read_with_its_tribute():
    """A4 and [DB-5]: the giver's 扣王 turn comes after its tribute, so what it held then is its
    deal less the tribute (a big joker may have gone as tribute though it buried a small one).
    Found by ``cardenv.bench worlds --check 10000 --seed 400000`` (episode 400331, a match's
    second hand, random play): seat 0 gave the tribute and buried a small joker; seat 3, which
    did not see the tribute, got "no deal is consistent" from a bound on seat 0's dealt big
    jokers that forgot it."""
    from cardenv.bench import check_policies
    game = DabangGame(episode="match", max_hands=2)
    choose = check_policies("dabang")["random"](400331)
    state = game.new_state(400331)
    for _ in range(236):
        state.apply(choose(state))
    view = View(game, state, 3)
    assert view.giver == 0 and view.kou_kinds[0, 52] == 1 and view.tribute_known is None
    views = _observations(game, state, 3)
    for world in game.sample_worlds(state, 3, 4, np.random.default_rng(400332201229)):
        _check_world(game, state, 3, world, views)


def _positions(options, games, seed0, heuristic, per_game):
    """(game, state) at ``per_game`` random steps of each of ``games`` first hands."""
    game = DabangGame(**options)
    rng = np.random.default_rng(seed0)
    agent = heuristic_for("dabang", seed0) if heuristic else None
    for g in range(games):
        state = game.new_state(seed0 * 1000 + g)
        stops = set(rng.integers(0, 260, size=per_game).tolist())
        step = 0
        while not state.is_over and not state.results:
            if step in stops:
                yield game, state.clone()
            if agent is not None:
                obs = game.observations([state])
                action = int(agent.act_batch(obs, state.legal_mask()[None])[0])
            else:
                action = int(rng.choice(state.legal_actions()))
            state.apply(action)
            step += 1


def _check_positions(positions, later: bool = False) -> tuple[int, set]:
    """Three worlds for a seat drawn from each ``(game, state)`` of ``positions``, each checked
    against what the seat saw (``_check_world``); ``(positions checked, phases met)``. With
    ``later`` every position must be of a later hand."""
    checked, phases = 0, set()
    for game, state in positions:
        assert not (later and state.first_hand)
        seat = int(np.random.default_rng(len(state.history)).integers(4))
        seen = _observations(game, state, seat)
        worlds = game.sample_worlds(state, seat, 3, np.random.default_rng(checked))
        assert len(worlds) == 3
        for world in worlds:
            _check_world(game, state, seat, world, seen)
        checked += 1
        phases.add(str(state.phase))
    return checked, phases


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "default")
@pytest.mark.parametrize("heuristic", [False, True], ids=["random", "heuristic"])
@sizes("games", 1, 25)
def test_every_world_shows_the_seat_what_it_saw(options, heuristic, games):
    seed0 = 11 + 7 * OPTION_SETS.index(options) + heuristic
    checked, phases = _check_positions(_positions(options, games, seed0, heuristic, per_game=6))
    assert checked >= 3 * games
    assert "play" in phases


@pytest.mark.parametrize("seat", range(4))
@sizes("every", 27, 9)
def test_every_seat_as_viewer_over_a_whole_hand(seat, every):
    """Each seat views positions from the deal to the last trick of one heuristic hand: every
    position outside the play and every ``every``-th step."""
    game = DabangGame()
    agent = heuristic_for("dabang", 3)
    state = game.new_state(40 + seat)
    phases, step = set(), 0
    while not state.is_over:
        if step % every == 0 or state.phase is not Phase.PLAY:
            seen = _observations(game, state, seat)
            for world in game.sample_worlds(state, seat, 2, np.random.default_rng(step)):
                _check_world(game, state, seat, world, seen)
            phases.add(str(state.phase))
        action = int(agent.act_batch(game.observations([state]), state.legal_mask()[None])[0])
        state.apply(action)
        step += 1
    assert {"declare", "bury", "play"} <= phases


@sizes("positions", 6, 120)
def test_worlds_do_not_depend_on_hidden_cards(positions):
    """A world is a position with other hidden cards and the same information for the seat:
    the sampler, given it and the same rng, draws the same worlds as from the real position."""
    done = differs = 0  # (late in a hand the hidden cards may be known: the same world)
    for game, state in _positions({}, positions, 5, True, per_game=2):
        seat = len(state.history) % 4
        other = game.sample_worlds(state, seat, 1, np.random.default_rng(99))[0]
        # (where another seat was building a follow, the world stands at its start: the steps
        # taken, unseen by ``seat``, are hidden too)
        differs += not np.array_equal(other.global_state(), state.global_state())
        mine = game.sample_worlds(state, seat, 3, np.random.default_rng(7))
        theirs = game.sample_worlds(other, seat, 3, np.random.default_rng(7))
        for a, b in zip(mine, theirs):
            assert a.to_dict() == b.to_dict()
        done += 1
    assert done >= positions and differs >= done // 2


def test_the_seats_own_cards_come_in_the_order_dealt():
    game = DabangGame()
    state = game.new_state(8)
    rng = np.random.default_rng(8)
    while state.phase is not Phase.PLAY:
        state.apply(int(rng.choice(state.legal_actions())))
    seat = (state.dealer + 1) % 4
    slots = [p for p in range(208) if (state.start_seat + p) % 4 == seat]
    for world in game.sample_worlds(state, seat, 5, np.random.default_rng(1)):
        assert [world.deal.deck[p] for p in slots] == [state.deal.deck[p] for p in slots]


def test_sampling_is_deterministic_for_a_seed_and_n_zero_gives_none():
    game = DabangGame()
    state = game.new_state(2)
    for _ in range(30):
        state.apply(state.legal_actions()[-1])
    a = game.sample_worlds(state, 1, 4, np.random.default_rng(3))
    b = game.sample_worlds(state, 1, 4, np.random.default_rng(3))
    assert [w.to_dict() for w in a] == [w.to_dict() for w in b]
    assert len({w.crc() for w in a}) > 1  # the hidden cards vary between worlds
    assert game.sample_worlds(state, 1, 0, np.random.default_rng(3)) == []


@pytest.mark.parametrize("args, error, words", [
    ((4, 1), ValueError, "seat must be an int in 0..3"),
    ((0, -1), ValueError, "n must be an int"),
    ((0, 1.5), ValueError, "n must be an int"),
])
def test_bad_arguments_are_refused(args, error, words):
    game = DabangGame()
    state = game.new_state(0)
    with pytest.raises(error, match=words):
        game.sample_worlds(state, *args, np.random.default_rng(0))


def test_bad_rng_state_and_finished_episode_are_refused():
    game = DabangGame()
    state = game.new_state(0)
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        game.sample_worlds(state, 0, 1, 7)
    with pytest.raises(TypeError, match="DabangState"):
        game.sample_worlds("state", 0, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="other options"):
        DabangGame(follow="live").sample_worlds(state, 0, 1, np.random.default_rng(0))
    rng = np.random.default_rng(0)
    while not state.is_over:
        state.apply(int(rng.choice(state.legal_actions())))
    with pytest.raises(StateError, match="episode is over"):
        game.sample_worlds(state, 0, 1, np.random.default_rng(0))


def test_running_out_of_tries_is_a_clear_error():
    game = DabangGame()
    state = game.new_state(6)
    rng = np.random.default_rng(6)
    while state.phase is not Phase.PLAY:
        state.apply(int(rng.choice(state.legal_actions())))
    with pytest.raises(StateError, match=r"found 0 of 2 consistent worlds in 0 proposals"):
        game.sample_worlds(state, 0, 2, np.random.default_rng(0), max_tries=0)


def test_the_checked_positions_meet_every_kind_of_constraint():
    """The consistency checks above meet each constraint the proposal builds in: the grab and
    the flips, voids, the 死棒 duty, 扣王 and take-backs, the dealer as viewer, a burial the
    seat did not see, and another seat's follow in progress (left out of the world)."""
    seen = set()
    sources = [(False, 6, 12, 1), (True, 8, 6, 0)]  # (heuristic, games, per game, seat offset)
    for heuristic, games, per_game, offset in sources:
        for game, state in _positions({}, games, 3, heuristic, per_game):
            seat = (state.current + offset) % 4
            view = View(game, state, seat)
            found = {"grab" if view.grabbed else "flips", str(state.phase)}
            found |= {name for name, present in [
                ("void", any(view.voids)), ("duty", any(view.duty)), ("koujoker", view.kou_seen),
                ("takeback", state.v["taken_back"].sum() > 0), ("dealer", view.is_dealer),
                ("hidden burial", not view.is_dealer and view.burial_known is None
                 and state.phase is not Phase.DECLARE),
                ("follow left out", view.keep < len(state.history))] if present}
            if found - seen:
                views = _observations(game, state, seat)
                for world in game.sample_worlds(state, seat, 2, np.random.default_rng(1)):
                    _check_world(game, state, seat, world, views)
                seen |= found
    assert {"grab", "flips", "void", "duty", "koujoker", "takeback", "dealer", "hidden burial",
            "follow left out", "declare", "bury", "play"} <= seen, seen


def _follow_is_legal(hand, follow, led, k):
    """Whether the follow ``[(kind, count), ...]`` can be built step by step from ``hand``."""
    partial = {}
    for kind, count in follow:
        if 4 * kind + count - 1 not in play_steps_one(hand, partial, led, k, 0, 3, True):
            return False
        partial[kind] = count
    return True


# [D-A7] the 死棒 duty, read backwards by the sampler (worlds.view._NOT_HELD): a follow wholly in
# the led suit of this shape is illegal while the follower holds a kind of that suit exactly
# this many times (besides the cards the follow uses), and legal without it. Spades are a side
# suit under trump ♦ at level 3; the lead is the ♠4 (kind 7), the follow uses ♠6, ♠7, ♠8, ♠9
# (kinds 15, 19, 23, 27), the extra kind is ♠Q (kind 39).
@pytest.mark.parametrize("shape, held", [
    (shape, count) for shape, counts in sorted(_NOT_HELD.items()) for count in sorted(counts)])
def test_the_dead_follow_duty_rules_out_what_the_sampler_says(shape, held):
    k = sum(shape)
    follow = list(zip((15, 19, 23, 27), shape))
    base = [0] * 54
    for kind, count in follow:
        base[kind] = count  # each part a whole group: the duty is the follow's own shape
    hand = base.copy()
    hand[39] = held
    assert not _follow_is_legal(hand, follow, 7, k)
    single = base.copy()
    single[39] = 1  # one more spade, held once: it forces no better shape
    assert _follow_is_legal(single, follow, 7, k)


def _late_position(seed, left):
    game = DabangGame()
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    while not (state.phase is Phase.PLAY and max(state.cards_left) <= left
               and state.trick.led_kind < 0):
        state.apply(int(rng.choice(state.legal_actions())))
    return game, state


def _exact_hands(proposal):
    """Every way to share the unseen cards among the hidden groups, with its probability under
    the programme's weights, enumerated kind by kind (small end-of-hand positions only)."""
    groups, kinds = len(proposal.caps), [k for k in range(54) if proposal.pool[k] or
                                          proposal.pick]
    found = {}

    def share(i, used, picks, shares, weight):
        if i == len(kinds):
            if used == list(proposal.caps) and picks == int(proposal.pick):
                found[tuple(shares)] = found.get(tuple(shares), 0.0) + weight
            return
        k = kinds[i]
        for head, w in proposal.table[k]:
            a = list(head[:groups - 1]) + [int(proposal.pool[k]) - sum(head[:groups - 1])]
            pick = head[-1] if proposal.pick else 0
            now = [u + x for u, x in zip(used, a)]
            if all(x <= c for x, c in zip(now, proposal.caps)) and picks + pick <= 1:
                share(i + 1, now, picks + pick,
                      shares + ([(k, tuple(a))] if proposal.pool[k] else []), weight * w)

    share(0, [0] * groups, 0, [], 1.0)
    total = sum(found.values())
    return {key: w / total for key, w in found.items()}


def test_the_hidden_hands_are_drawn_exactly_from_the_programmes_weights():
    """Total-variation distance between 4,000 draws of the hidden hands and the exact
    enumeration of a small end-of-hand position (3 cards a seat): no more than sampling noise
    (about 0.02 here; measured 0.016 .. 0.053 over five positions, each at its noise level)."""
    game, state = _late_position(2, 3)
    proposal = Proposal(View(game, state, state.current))
    exact = _exact_hands(proposal)
    assert 5 <= len(exact) <= 200
    rng, draws = np.random.default_rng(0), 4000
    counts = {}
    for _ in range(draws):
        hands, _ = proposal._hands(rng)
        key = tuple((k, tuple(int(h[k]) for h in hands)) for k in range(54) if proposal.pool[k])
        counts[key] = counts.get(key, 0) + 1
    assert set(counts) <= set(exact)
    tv = 0.5 * sum(abs(counts.get(key, 0) / draws - p) for key, p in exact.items())
    assert tv < 0.05, tv


# --- later hands -------------------------------------------------------------------------------

LATER_SETS = [
    {"dealer": 0, "blood": 3},
    {"dealer": "random", "blood": "random", "levels": "random"},
    {"dealer": 2, "blood": 6, "bidding": "after_deal", "follow": "live", "levels": (7, 4)},
    {"episode": "match"},
]


def _play(game, state, agent, rng):
    if agent is not None:
        state.apply(int(agent.act_batch(game.observations([state]), state.legal_mask()[None])[0]))
    else:
        state.apply(int(rng.choice(state.legal_actions())))


def _later_positions(options, games, seed0, heuristic, per_game):
    """(game, state) at ``per_game`` random steps of the first later hand of each of ``games``
    episodes: the episode's own hand when it starts from one (option ``dealer``), else a
    match's second hand."""
    game = DabangGame(**options)
    rng = np.random.default_rng(seed0)
    agent = heuristic_for("dabang", seed0) if heuristic else None
    for g in range(games):
        state = game.new_state(seed0 * 1000 + g)
        while state.first_hand and not state.is_over:
            _play(game, state, agent, rng)
        stops = set(rng.integers(0, 260, size=per_game).tolist())
        step, hand = 0, len(state.results)
        while not state.is_over and len(state.results) == hand:
            if step in stops:
                yield game, state.clone()
            _play(game, state, agent, rng)
            step += 1


@pytest.mark.parametrize("options", LATER_SETS, ids=lambda o: ",".join(o))
@pytest.mark.parametrize("heuristic", [False, True], ids=["random", "heuristic"])
@sizes("games", 1, 25)
def test_later_hands_every_world_shows_the_seat_what_it_saw(options, heuristic, games):
    seed0 = 61 + 7 * LATER_SETS.index(options) + heuristic
    positions = _later_positions(options, games, seed0, heuristic, per_game=5)
    checked, phases = _check_positions(positions, later=True)
    assert checked >= 2 * games and "play" in phases


def _role_seat(state, role: str) -> int:
    return {"dealer": state.dealer, "giver": (state.dealer - 1) % 4,
            "next": (state.dealer + 1) % 4, "partner": (state.dealer + 2) % 4}[role]


def _facts(view, state) -> set[str]:
    return {fact for fact, present in [
        ("tribute hidden", view.tribute_n and view.tribute_known is None),
        ("tribute seen", view.tribute_n and view.tribute_known is not None),
        ("no tribute", not view.tribute_n),
        ("returned hidden", view.returned_n and view.returned_known is None),
        ("returned seen", view.returned_n and view.returned_known is not None),
        ("kitty drawn", not view.kitty_public), ("kitty shown", view.kitty_public),
        ("kitty lying", view.kitty_lying), ("gangguo", view.gangguo),
        ("checks", any(view.checks)), ("match", bool(state.results))] if present}


# [DB-5] tribute (喝血): the dealer's 上家 gives the blood owed, its strongest non-point cards,
# seen by the two of them; with tribute_return="dealer_choice" the dealer gives as many back.
# [DB-2] later hands: level-card and joker declarations; nobody declared: the kitty draw.
# Each row: options, how the hand is played (the heuristic; random; "pass": nobody declares,
# so the kitty is drawn), the seed, the viewer, where it stops (phase, actions into it), and
# what the row must meet there.
_TABLE = [
    ("no tribute, viewer the dealer's next", {"dealer": 0}, "heuristic", 1, "next",
     Phase.PLAY, 20, {"no tribute", "kitty shown", "checks"}),
    ("tribute seen by the dealer", {"dealer": 1, "blood": 4}, "random", 0, "dealer",
     Phase.PLAY, 30, {"tribute seen"}),
    ("tribute seen by the giver", {"dealer": 1, "blood": 4}, "random", 2, "giver",
     Phase.PLAY, 60, {"tribute seen"}),
    ("tribute unseen, viewer the dealer's partner", {"dealer": 1, "blood": 4}, "random", 3,
     "partner", Phase.PLAY, 40, {"tribute hidden"}),
    ("tribute unseen, at the burial", {"dealer": 3, "blood": 2}, "heuristic", 2, "next",
     Phase.BURY, 3, {"tribute hidden"}),
    ("tribute unseen, 干锅", {"dealer": 1, "blood": 4}, "random", 4, "next", Phase.PLAY, 30,
     {"tribute hidden", "gangguo"}),
    ("kitty drawn, tribute unseen", {"dealer": 2, "blood": 3}, "pass", 1, "next", Phase.PLAY,
     30, {"kitty drawn", "tribute hidden"}),
    ("kitty drawn, viewer the dealer", {"dealer": 2, "blood": 3}, "pass", 3, "dealer",
     Phase.PLAY, 50, {"kitty drawn", "tribute seen"}),
    ("returning, viewer the dealer, kitty lying", {"dealer": 3, "blood": 3,
                                                  "tribute_return": "dealer_choice"},
     "random", 0, "dealer", Phase.RETURN, 1, {"tribute seen", "kitty lying"}),
    ("returning, kitty drawn and lying, viewer the giver", {
        "dealer": 1, "blood": 2, "tribute_return": "dealer_choice"}, "pass", 1, "giver",
     Phase.RETURN, 0, {"tribute seen", "kitty lying", "kitty drawn"}),
    ("returned, seen by the giver", {"dealer": 3, "blood": 3, "tribute_return": "dealer_choice"},
     "random", 1, "giver", Phase.PLAY, 40, {"returned seen"}),
    ("returned unseen, late", {"dealer": 3, "blood": 3, "tribute_return": "dealer_choice"},
     "random", 2, "partner", Phase.PLAY, 170, {"returned hidden", "tribute hidden"}),
    ("match, second hand, viewer the dealer", {"episode": "match"}, "random", 0, "dealer",
     Phase.PLAY, 20, {"match", "tribute seen"}),
    ("match, second hand, viewer the giver", {"episode": "match"}, "heuristic", 1, "giver",
     Phase.PLAY, 20, {"match", "tribute seen"}),
    ("match, second hand, at the declarations", {"episode": "match"}, "heuristic", 2,
     "partner", Phase.DECLARE, 2, {"match"}),
]


def _reach(options, play, seed, phase, steps):
    game = DabangGame(**options)
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    agent = heuristic_for("dabang", seed) if play == "heuristic" else None
    while state.first_hand:
        _play(game, state, agent, rng)
    into = None
    while True:
        if state.phase is phase:
            into = 0 if into is None else into + 1
        if into is not None and into >= steps and state.phase is phase:
            return game, state
        if play == "pass" and state.phase is Phase.DECLARE:
            state.apply(0)  # cat.PASS
        else:
            _play(game, state, agent, rng)
        assert not state.is_over


@pytest.mark.parametrize("row", _TABLE, ids=[row[0] for row in _TABLE])
def test_later_hand_positions(row):
    name, options, play, seed, role, phase, steps, expect = row
    game, state = _reach(options, play, seed, phase, steps)
    seat = _role_seat(state, role)
    view = View(game, state, seat)
    assert expect <= _facts(view, state), _facts(view, state)
    seen = _observations(game, state, seat)
    worlds = game.sample_worlds(state, seat, 4, np.random.default_rng(seed))
    for world in worlds:
        _check_world(game, state, seat, world, seen)
    assert len({world.crc() for world in worlds}) > 1  # the hidden cards vary


@sizes("positions", 4, 60)
def test_later_hand_worlds_do_not_depend_on_hidden_cards(positions):
    """As for first hands: a world of a later hand, given to the sampler with the same rng,
    gives the same worlds as the real position (its game is the world's own)."""
    done = differs = 0
    sources = [({"dealer": "random", "blood": "random", "levels": "random"}, 8),
               ({"episode": "match"}, 9)]
    for options, seed0 in sources:
        for game, state in _later_positions(options, positions // 2, seed0, True, 2):
            seat = len(state.history) % 4
            other = game.sample_worlds(state, seat, 1, np.random.default_rng(99))[0]
            differs += not np.array_equal(other.hands, state.hands)
            mine = game.sample_worlds(state, seat, 2, np.random.default_rng(7))
            theirs = other.game.sample_worlds(other, seat, 2, np.random.default_rng(7))
            for a, b in zip(mine, theirs):
                assert a.to_dict() == b.to_dict()
            done += 1
    assert done >= positions and differs >= done // 2


# --- later hands: the distribution, against exact enumeration ----------------------------------
# After a later hand's deal a seat's dealt cards are weighed by the number of their deal orders
# that give the seat its declaration asks (worlds.arrange._arrange_later). The exact
# distribution over the other seats' hands at a small end-of-hand position is enumerated here:
# a deck is one order of each seat's 52 dealt cards, so an assignment of the unseen cards to the
# hands weighs prod over seats of N(c) (52 - |c|)! / prod(non-special counts!), where N(c) is the
# number of ways the seat's c level cards and jokers lie in its slots with its asks (counted by
# the slot programme, itself checked against the engine below), times 1 if a world with those
# hands replays to what the seat saw (the play's constraints).

def _later_end(options, seed, heuristic, most=10):
    """A later hand played to the first trick start where the dealer's three opponents hold at
    most ``most`` cards together (each at least one): ``(game, state)``, the dealer to view."""
    game = DabangGame(**options)
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    agent = heuristic_for("dabang", seed) if heuristic else None
    while not state.is_over:
        if state.phase is Phase.PLAY and state.trick.led_kind < 0 and not state.first_hand:
            others = [state.cards_left[s] for s in range(4) if s != state.dealer]
            if sum(others) <= most and min(others) > 0:
                return game, state
        _play(game, state, agent, rng)
    raise AssertionError("no such position")


def _shares(pool, caps):
    """Every way to share the unseen cards (``pool``, counts) among hands of ``caps`` cards."""
    kinds = [k for k in range(54) if pool[k]]
    out = []

    def share(i, used, hands):
        if i == len(kinds):
            if used == list(caps):
                out.append([h.copy() for h in hands])
            return
        k = kinds[i]
        for a in itertools.product(range(int(pool[k]) + 1), repeat=len(caps)):
            now = [u + x for u, x in zip(used, a)]
            if sum(a) == pool[k] and all(x <= c for x, c in zip(now, caps)):
                for h, x in zip(hands, a):
                    h[k] = x
                share(i + 1, now, hands)
        for h in hands:
            h[k] = 0

    share(0, [0] * len(caps), [np.zeros(54, dtype=np.int64) for _ in caps])
    return out


def _exact_later(game, state, seat):
    """``(proposal, keys, exact, programme)``: the other seats' hands (a key per assignment,
    in the proposal's group order) with their exact probabilities, and with the probabilities
    of the programme's weights alone (every order of a dealt multiset counted, as before the
    deal-order weighting)."""
    proposal = Proposal(View(game, state, seat))
    assert all(kind == "hand" for kind, _ in proposal.group_kind)
    spec, rng = proposal.special, np.random.default_rng(0)
    # (the replay check alone, without the sampler's deal-order rejection)
    proposal._arrange_later = lambda deck, s, cards, rng: proposal._place(
        deck, s, proposal.seat_slots[s], cards, rng)
    tables = {s: proposal._forward_slots(s, proposal.seat_slots[s], proposal._unseen_special())
              for _, s in proposal.group_kind}
    keys, exact, programme = [], [], []
    for hands in _shares(proposal.pool, proposal.caps):
        log_exact = log_programme = 0.0
        for (_, s), hand in zip(proposal.group_kind, hands):
            dealt = proposal.fixed[s] + hand
            _, held, strides, _, final, _ = tables[s]
            c = dealt[spec]
            orders = final[int(c @ strides)] if (c <= held[-1]).all() else 0.0
            if orders <= 0:
                break
            log_exact += math.log(orders) + math.lgamma(53 - c.sum()) - sum(
                math.lgamma(x + 1) for x in np.delete(dealt, spec))
            log_programme += math.lgamma(53) - sum(math.lgamma(x + 1) for x in dealt)
        else:
            proposal.drawn = [(hands, None)]
            if proposal.world(rng) is not None:
                keys.append(tuple(tuple(h.tolist()) for h in hands))
                exact.append(log_exact)
                programme.append(log_programme)

    def normed(logs):
        w = np.exp(np.array(logs) - max(logs))
        return w / w.sum()

    return proposal, keys, normed(exact), normed(programme)


def _tv(worlds, proposal, keys, probs) -> float:
    seen = {}
    for world in worlds:
        key = tuple(tuple(np.asarray(world.hands[s]).tolist()) for _, s in proposal.group_kind)
        seen[key] = seen.get(key, 0) + 1 / len(worlds)
    assert set(seen) <= set(keys)
    return 0.5 * sum(abs(seen.get(key, 0.0) - p) for key, p in zip(keys, probs))


# (options, seed, played by the heuristic, draws); the first in the default run, where 500 draws
# give a bound of 0.169 against the sampler's 0.109 and the programme's 0.213 (measured)
_LATER_ENDS = [
    ({"dealer": 0, "blood": 3}, 23, False, 500),
    ({"dealer": 0, "blood": 3}, 23, False, 4000),
    ({"dealer": 0, "blood": 3}, 23, True, 4000),
    ({"dealer": 0, "blood": 3}, 30, False, 4000),
    ({"dealer": 0, "blood": 3}, 21, True, 4000),
    ({"dealer": 1, "blood": 0, "levels": (9, 5)}, 27, True, 4000),
    ({"dealer": 1, "blood": 0, "levels": (9, 5)}, 20, True, 4000),
]


@pytest.mark.parametrize("options, seed, heuristic, draws", [
    pytest.param(*row, marks=[pytest.mark.slow] if i else [],
                 id=f"{'heuristic' if row[2] else 'random'}-{row[1]}-{row[3]}")
    for i, row in enumerate(_LATER_ENDS)])
def test_later_hand_worlds_match_exact_enumeration(options, seed, heuristic, draws):
    """Total-variation distance between the other seats' hands in ``draws`` worlds and the
    exact enumeration, at small end-of-hand positions of later hands with level cards or jokers
    still hidden: within sampling noise (twice the mean TV of as many draws from the exact
    distribution, plus 0.005), where the programme's weights alone (every order of a dealt
    multiset counted) are further off than that (0.10 .. 0.21 here)."""
    game, state = _later_end(options, seed, heuristic)
    proposal, keys, exact, programme = _exact_later(game, state, state.dealer)
    assert (proposal.pool[proposal.special] > 0).any() and len(keys) >= 5
    rng = np.random.default_rng(2)
    noise = np.mean([0.5 * np.abs(np.bincount(rng.choice(len(keys), draws, p=exact),
                                              minlength=len(keys)) / draws - exact).sum()
                     for _ in range(20)])
    bound = 2 * noise + 0.005
    assert 0.5 * np.abs(programme - exact).sum() > bound  # (the check can tell them apart)
    worlds = game.sample_worlds(state, state.dealer, draws, np.random.default_rng(1))
    tv = _tv(worlds, proposal, keys, exact)
    assert tv < bound, (tv, noise)


@pytest.mark.parametrize("seed", [1, 10, pytest.param(2, marks=pytest.mark.slow),
                                  pytest.param(3, marks=pytest.mark.slow),
                                  pytest.param(7, marks=pytest.mark.slow)])
def test_the_slot_programme_counts_the_deal_orders_the_engine_accepts(seed):
    """[DB-2] A seat is asked when a card dealt to it enables a declaration it could not make
    before, and the deal looks whether it can beat the standing one: of the orders of a seat's
    two level cards or jokers in its 52 slots (its other cards in place), the engine's deal
    gives the same asks and answers to exactly as many as the slot programme counts."""
    dealer = seed % 4
    game = DabangGame(dealer=dealer, blood=0, levels=(5, 9))
    rng = np.random.default_rng(seed)
    deck = rng.permutation(np.repeat(np.arange(54), 4)).tolist()
    spec = special_kinds(game.new_state(0).level)
    s = 1 + seed % 3
    mine = [q for q in range(208) if (q + dealer) % 4 == s]
    spare = [q for q in range(208) if (q + dealer) % 4 == (s + 1) % 4 and deck[q] not in spec]
    keep = [q for q in mine if deck[q] in spec][:2]
    for q in mine:  # two special cards for seat s: swap its others with another seat's cards
        if deck[q] in spec and q not in keep:
            r = spare.pop()
            deck[q], deck[r] = deck[r], deck[q]
    state = game.new_state(seed, deck=deck, first_seat=dealer)
    while state.phase is Phase.DECLARE:  # the declarations, at random
        state.apply(int(rng.choice(state.legal_actions())))
    actions = list(state.history)

    def asks(cards):
        world = game.new_state(seed, deck=cards, first_seat=dealer)
        seen = []
        for action in actions:
            seen.append((world.current, world.deal.ask_reason, world.deal.pos))
            if action not in world.legal_actions():
                return None
            world.apply(action)
        return seen + [(world.phase, world.current, world.deal.pos)]

    real = asks(deck)
    cols = [spec.index(deck[q]) for q in mine if deck[q] in spec]
    assert len(cols) == 2
    rest = [deck[q] for q in mine if deck[q] not in spec]
    same = 0
    for where in itertools.permutations(range(52), 2):
        if cols[0] == cols[1] and where[0] > where[1]:
            continue  # (two copies of one card: one order)
        cards, it = list(deck), iter(rest)
        put = dict(zip(where, cols))
        for i, q in enumerate(mine):
            cards[q] = spec[put[i]] if i in put else next(it)
        same += asks(cards) == real
    proposal = Proposal(View(game, state, (s + 2) % 4))
    _, held, strides, _, final, _ = proposal._forward_slots(s, mine, proposal._unseen_special())
    assert same == final[int(np.bincount(cols, minlength=6) @ strides)] >= 1


def test_the_flips_are_ordered_uniformly_among_the_orders_that_fit():
    """[D-A3] Nobody grabbed: the four flipped kitty cards decide the dealer and the trump, the
    earliest of equal flips winning. The worlds put the flips in every order of theirs that the
    engine's flip turns up as it did, and in each about equally often (here three tied flips,
    two orders fit)."""
    game = DabangGame()
    agent = heuristic_for("dabang", 1)
    state = game.new_state(1)
    while state.phase is not Phase.PLAY:
        _play(game, state, agent, None)
    assert state.deal.decl == 0  # (no grab)

    def seen_as(result):  # what every seat sees of the flips
        dealer, trump, shown, passed = result
        return dealer, trump, sorted(shown), deal_rules.flip_jokers(passed)

    real = list(state.deal.deck[208:])
    want = seen_as(deal_rules.flip(real, state.start_seat))
    fits = {order for order in itertools.permutations(real[:4])
            if seen_as(deal_rules.flip(list(order) + real[4:], state.start_seat)) == want}
    assert len(fits) == 2
    seat = (state.dealer + 1) % 4
    worlds = game.sample_worlds(state, seat, 200, np.random.default_rng(0))
    seen = [tuple(world.deal.deck[208:212]) for world in worlds]
    assert set(seen) == fits
    assert all(0.38 < seen.count(order) / len(seen) < 0.62 for order in fits)
