"""``DagongGame.sample_worlds`` (``cardenv.dagong.worlds``): every world gives the viewing seat
the same observation at every step of the current hand and the same legal mask now (checked here
by replays of the test's own, over random and heuristic games, several option sets, every phase
and every seat); worlds do not move when only hidden cards change; they are uniform over the
consistent deals (total-variation distance to exact enumeration on small hands); bad arguments
are refused; ``later=True`` deals rebuild later hands."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from cardagents.players.heuristics import heuristic_for
from cardenv.core.cards import NUM_KINDS
from cardenv.core.errors import StateError
from cardenv.dagong import DagongGame
from tests.sizes import sizes

OPTION_SETS = [dict(), dict(hands=2), dict(hands=3, allow_solo=False), dict(allow_solo=False),
               dict(hands=3)]


def seat_views(game, state, seat):
    """The current hand's actions and ``seat``'s observation after each of its steps, from a
    replay of the state's recipe (the test's own, not the sampler's)."""
    ref = game.replay(state.seed, [], state.given_deal)
    start = 0
    for k, action in enumerate(state.history):
        if ref.hand_index == state.hand_index:
            break
        ref.apply(action)
        start = k + 1
    views = [ref.observation(seat)]
    for action in state.history[start:]:
        ref.apply(action)
        views.append(ref.observation(seat))
    return state.history[start:], views


def assert_consistent(game, state, seat, world, actions, views, recipe=True):
    assert world.history == actions
    rebuilt = world.game.replay(world.seed, [], world.given_deal)
    assert rebuilt.hand_index == 0 and not rebuilt.results
    assert np.array_equal(rebuilt.observation(seat), views[0])
    for t, action in enumerate(actions):
        rebuilt.apply(action)
        assert np.array_equal(rebuilt.observation(seat), views[t + 1]), f"step {t}"
    assert np.array_equal(world.observation(seat), state.observation(seat))
    assert world.current_player == state.current_player and world.phase == state.phase
    if state.current_player == seat:
        assert np.array_equal(world.legal_mask(), state.legal_mask())
    if recipe:  # a world is a state play reaches: its recipe reads back
        assert world.game.state_from_dict(world.to_dict()).crc() == world.crc()
    # the seat's own cards and everything public are as in the position
    assert np.array_equal(world.hands[seat], state.hands[seat])
    assert world.cards_left == state.cards_left
    assert np.array_equal(world.v["played"], state.v["played"])


def positions(options, seed, every, heuristic, views=False):
    """Copies of the positions of one game (random or heuristic play), every ``every`` steps
    from an offset, each with a viewing seat that cycles over the four. With ``views``, each
    also with the current hand's actions and the seat's observation after each of its steps,
    as the game went (what ``seat_views`` replays, without a replay per position)."""
    game = DagongGame(**options)
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    player = heuristic_for("dagong", seed) if heuristic else None
    step = int(rng.integers(every))
    k = start = 0
    seen = [[state.observation(s)] for s in range(4)] if views else None
    while not state.is_over:
        if k == step:
            seat = (seed + k) % 4
            if views:
                yield game, state.clone(), seat, state.history[start:], list(seen[seat])
            else:
                yield game, state.clone(), seat
            step += every
        if player is None:
            action = int(rng.choice(np.flatnonzero(state.legal_mask())))
        else:
            seat = state.current_player
            action = int(player.act_batch(state.observation(seat)[None],
                                          state.legal_mask()[None])[0])
        hand = state.hand_index
        state.apply(action)
        k += 1
        if views and state.hand_index != hand:  # a new hand dealt: its views start here
            start, seen = k, [[] for _ in range(4)]
        if views:
            for s in range(4):
                seen[s].append(state.observation(s))


# the default run's 100 positions come from five games, one per option set
@sizes("count", 100, 2_500)  # 10,000 measured once: see docs/engine.md
def test_every_world_shows_the_seat_what_it_saw(count):
    """[D-B3] [D-B4]: the call, 硬牌 and later hands' call rule are reproduced; every play
    takes the same cards in the world as in the position."""
    checked = 0
    phases = Counter()
    seed = 0
    while checked < count:
        options = OPTION_SETS[seed % len(OPTION_SETS)]
        for game, state, seat, actions, views in positions(
                options, seed, every=11, heuristic=seed % 2 == 1, views=True):
            worlds = game.sample_worlds(state, seat, 2, np.random.default_rng(checked))
            assert len(worlds) == 2
            for k, world in enumerate(worlds):
                assert_consistent(game, state, seat, world, actions, views, recipe=k == 0)
            phases[(str(state.phase), state.hand_index > 0, state.current_player == seat)] += 1
            checked += 1
        seed += 1
    # every phase, later hands and the seat to act and not were met
    assert {p for p, _, _ in phases} == {"solo", "play"}
    assert any(later for _, later, _ in phases) and len({m for _, _, m in phases}) == 2


def test_worlds_repeat_for_the_same_rng_and_vary_with_it():
    game = DagongGame(hands=2)
    (_, state, _), = itertools.islice(positions({"hands": 2}, 7, 40, False), 1, 2)
    a = game.sample_worlds(state, 1, 5, np.random.default_rng(3))
    b = game.sample_worlds(state, 1, 5, np.random.default_rng(3))
    c = game.sample_worlds(state, 1, 5, np.random.default_rng(4))
    assert [w.to_dict() for w in a] == [w.to_dict() for w in b]
    assert [w.to_dict() for w in a] != [w.to_dict() for w in c]
    assert game.sample_worlds(state, 1, 0, np.random.default_rng(3)) == []


_OWN_CACHES = {"_feasible", "_given", "_rng", "_rng_saved", "buffer", "v", "game"}


def assert_same_state(world, replayed):
    """Every field of ``world`` as in the state its recipe replays to (caches aside)."""
    assert world.crc() == replayed.crc()
    assert world.game.options == replayed.game.options
    assert world.rng.bit_generator.state == replayed.rng.bit_generator.state
    fields = set(world.__dict__) | set(replayed.__dict__)
    for name in sorted(fields - _OWN_CACHES):
        a, b = getattr(world, name), getattr(replayed, name)
        assert (np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b), name


@sizes("count", 24, 600)
def test_each_world_is_the_state_its_recipe_replays_to(count):
    """The sampler builds one world by replaying its deal and the others as copies of it with
    their own hidden cards: each must be the very state its recipe (seed, deal, actions)
    replays to, and stay so when both play on to the end of the episode."""
    checked = 0
    seed = 100
    while checked < count:
        options = OPTION_SETS[seed % len(OPTION_SETS)]
        for game, state, seat in positions(options, seed, every=17, heuristic=seed % 2 == 1):
            for world in game.sample_worlds(state, seat, 3, np.random.default_rng(seed)):
                replayed = world.game.replay(world.seed, world.history, world.given_deal)
                assert_same_state(world, replayed)
                rng = np.random.default_rng(checked)
                while not world.is_over:
                    mask = world.legal_mask()
                    assert np.array_equal(mask, replayed.legal_mask())
                    action = int(rng.choice(np.flatnonzero(mask)))
                    world.apply(action)
                    replayed.apply(action)
                assert world.crc() == replayed.crc() and world.returns == replayed.returns
            checked += 1
            if checked == count:  # (the default run's 24: three games, three option sets)
                break
        seed += 1

# --- hidden cards do not move the worlds ---------------------------------------------------


def swapped_twin(game, state, seat, rng):
    """A position with the same public history and the same view for ``seat`` but two unseen
    cards swapped between two other seats' hands (``None`` if the swaps tried change what the
    seat sees)."""
    later = state.hand_index > 0
    hand_game = DagongGame(**{**game.options, "hands": game.options["hands"] - state.hand_index})
    actions, views = seat_views(game, state, seat)
    others = [s for s in range(4) if s != seat and state.cards_left[s] > 0]
    if len(others) < 2:
        return None
    for _ in range(40):
        x, y = rng.choice(others, size=2, replace=False)
        a = int(rng.choice(np.flatnonzero(state.hands[x])))
        b = int(rng.choice(np.flatnonzero(state.hands[y])))
        if a == b:
            continue
        order = [list(cards) for cards in state.deal_order]
        order[x][order[x].index(a)] = b
        order[y][order[y].index(b)] = a
        deal = {"hands": order, "dealer": state.dealer, "called": state.called}
        if later:
            deal["later"] = True
        try:
            twin = hand_game.replay(state.seed, actions, deal)
        except ValueError:
            continue
        replay = hand_game.state_from_deal(state.seed, deal)
        same = np.array_equal(replay.observation(seat), views[0])
        for t, action in enumerate(actions):
            replay.apply(action)
            same = same and np.array_equal(replay.observation(seat), views[t + 1])
        if same:
            return twin if later else hand_game.state_from_dict(twin.to_dict())
    return None


@sizes("count", 15, 300)
def test_hidden_cards_do_not_move_the_worlds(count):
    rng = np.random.default_rng(0)
    tested = 0
    seed = 0
    while tested < count:
        options = OPTION_SETS[seed % len(OPTION_SETS)]
        for game, state, seat in positions(options, seed, every=29, heuristic=seed % 2 == 0):
            twin = swapped_twin(game, state, seat, rng)
            if twin is None:
                continue
            assert not np.array_equal(twin.global_state(), state.global_state())
            twin_game = twin.game
            mine = game.sample_worlds(state, seat, 3, np.random.default_rng(tested))
            theirs = twin_game.sample_worlds(twin, seat, 3, np.random.default_rng(tested))
            assert [w.to_dict() for w in mine] == [w.to_dict() for w in theirs]
            tested += 1
        seed += 1


# --- uniform over the consistent deals ---------------------------------------------------


def _splits(unseen, sizes_):
    """Every way to share the unseen cards (``unseen``: counts by kind) among hands of
    ``sizes_`` cards, kind by kind: ``(parts, shuffles)``, each part a sorted list of kinds and
    ``shuffles`` the number of orders of the unseen cards that deal those parts."""
    kinds = [k for k in range(NUM_KINDS) if unseen[k]]

    def share(i, left, parts, shuffles):
        if i == len(kinds):
            if not any(left):
                yield [sorted(p) for p in parts], shuffles
            return
        k, c = kinds[i], int(unseen[kinds[i]])
        for a in range(min(c, left[0]) + 1):
            for b in range(min(c - a, left[1]) + 1):
                split = (a, b, c - a - b)
                if split[2] > left[2]:
                    continue
                yield from share(i + 1, [x - y for x, y in zip(left, split)],
                                 [p + [k] * y for p, y in zip(parts, split)],
                                 shuffles * math.factorial(c) // math.prod(
                                     math.factorial(y) for y in split))

    yield from share(0, list(sizes_), [[], [], []], 1)


def consistent_deals(game, state, seat):
    """Every deal of the cards ``seat`` has not seen to the other seats (hand sizes as dealt)
    that replays to the same views, with its number of shuffles: the exact distribution."""
    actions, views = seat_views(game, state, seat)
    others = [s for s in range(4) if s != seat]
    played = state.v["played"]
    pool = np.bincount([k for h in state.given_deal["hands"] for k in h], minlength=NUM_KINDS)
    mine = state.hands[seat] + played[seat]
    unseen = pool - mine - played[others].sum(axis=0)
    sizes_ = [state.cards_left[s] for s in others]
    assert sum(sizes_) == unseen.sum()
    out = {}
    for parts, shuffles in _splits(unseen, sizes_):
        key = tuple(tuple(p) for p in parts)
        hands = [None] * 4
        hands[seat] = list(state.deal_order[seat])
        for s, part in zip(others, parts):
            hands[s] = sorted(part + np.repeat(np.arange(NUM_KINDS), played[s]).tolist())
        try:
            world = game.state_from_hands(hands, state.dealer, state.called)
        except ValueError:
            continue
        ok = np.array_equal(world.observation(seat), views[0])
        for t, action in enumerate(actions):
            if not ok:
                break
            try:
                world.apply(action)
            except ValueError:
                ok = False
                break
            ok = np.array_equal(world.observation(seat), views[t + 1])
        if ok:
            out[key] = shuffles
    return out, others


def small_positions(count, hand_sizes, most):
    """``count`` positions with 3 .. ``most`` unseen cards, from small hands (``hand_sizes``:
    the range of cards a seat is dealt) dealt by hand and played a few steps at random."""
    rng = np.random.default_rng(12)
    game = DagongGame(allow_solo=False)
    found = []
    while len(found) < count:
        deck = rng.permutation(np.repeat(np.arange(NUM_KINDS), 2))
        size = int(rng.integers(*hand_sizes))
        hands = [sorted(deck[i * size:(i + 1) * size].tolist()) for i in range(4)]
        dealer = int(rng.integers(4))
        singles = [k for k in set(hands[dealer]) if hands[dealer].count(k) == 1
                   and any(k in h for s, h in enumerate(hands) if s != dealer)]
        if not singles:
            continue
        state = game.state_from_hands(hands, dealer, int(rng.choice(singles)))
        for _ in range(int(rng.integers(2, 10))):
            if state.is_over:
                break
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
        if state.is_over:
            continue
        seat = int(rng.integers(4))
        unseen = sum(state.cards_left[s] for s in range(4) if s != seat)
        if 3 <= unseen <= most:
            found.append((game, state, seat))
    return found


# n worlds per position -> (positions, the cards a seat is dealt, most unseen cards): the
# default run's positions are smaller (30 .. 150 consistent deals), -m slow's larger (16 .. 260)
SMALL_POSITIONS = {1000: (6, (3, 6), 7), 10_000: (6, (5, 8), 8)}


@sizes("n", 1000, 10_000)
def test_worlds_are_uniform_over_the_consistent_deals(n):
    """Total-variation distance of ``n`` worlds to the exact distribution (enumerated), per
    small position, against the distances ``n`` exact draws give (400 multinomial draws): within
    their 99.5th percentile, and near their median on average."""
    figures = []
    noise_rng = np.random.default_rng(0)
    for game, state, seat in small_positions(*SMALL_POSITIONS[n]):
        exact, others = consistent_deals(game, state, seat)
        keys = list(exact)
        p = np.array([exact[k] for k in keys], dtype=float)
        p /= p.sum()
        worlds = game.sample_worlds(state, seat, n, np.random.default_rng(1))
        seen = Counter()
        for w in worlds:
            key = tuple(tuple(np.repeat(np.arange(NUM_KINDS), w.hands[s]).tolist())
                        for s in others)
            assert key in exact  # every world is a consistent deal
            seen[key] += 1
        tv = 0.5 * np.abs(np.array([seen[k] for k in keys]) / n - p).sum()
        noise = 0.5 * np.abs(noise_rng.multinomial(n, p, size=400) / n - p).sum(axis=1)
        figures.append((len(keys), round(float(tv), 4), round(float(np.median(noise)), 4)))
        assert tv <= np.quantile(noise, 0.995), figures[-1]
    assert any(deals > 1 for deals, _, _ in figures)
    ratio = sum(tv for _, tv, _ in figures) / sum(m for _, _, m in figures)
    assert ratio < 1.3, figures
    print(f"n={n}: (deals, TV, median TV of exact draws):", figures)


# --- later hands and bad input --------------------------------------------------------------


def test_a_later_deal_shows_its_superseded_calls():
    """[D-B3]: the call is the dealer's first card; each kind it came to hold twice moves the
    call on, shown; a dealer ending with both copies plays alone."""
    game = DagongGame(allow_solo=False)
    rest = [k for k in range(NUM_KINDS) for _ in range(2) if k not in (7, 40)]
    rest = np.random.default_rng(5).permutation(rest).tolist()
    dealer_cards = [7, 7, 40] + rest[:24]
    others = rest[24:] + [40]
    hands = [dealer_cards, others[:27], others[27:54], others[54:81]]
    state = game.state_from_hands(hands, 0, 40, later=True)
    assert state.called == 40 and state.v["superseded_calls"][7] == 1
    assert state.given_deal["later"] is True
    assert game.state_from_dict(state.to_dict()).crc() == state.crc()
    with pytest.raises(ValueError, match="later-hand rule gives"):
        game.state_from_hands(hands, 0, 7, later=True)
    with pytest.raises(ValueError, match="'later': true"):
        game.state_from_deal(0, {**state.given_deal, "later": False})


@pytest.mark.parametrize("args, error, words", [
    ((4, 1), ValueError, "seat must be an int in 0..3"),
    ((0, -1), ValueError, "n must be an int"),
    ((0, 10 ** 9), ValueError, "n must be an int"),
])
def test_bad_arguments_are_refused(args, error, words):
    game = DagongGame()
    with pytest.raises(error, match=words):
        game.sample_worlds(game.new_state(0), *args, np.random.default_rng(0))


def test_bad_rng_and_finished_state_are_refused():
    game = DagongGame()
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        game.sample_worlds(game.new_state(0), 0, 1, 42)
    state = game.new_state(0)
    rng = np.random.default_rng(0)
    while not state.is_over:
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    with pytest.raises(StateError, match="episode is over"):
        game.sample_worlds(state, 0, 1, rng)


def special_deals():
    """Hands dealt by hand that random games rarely reach: a first hand whose dealer holds both
    called cards (forced solo), a later hand with a superseded call, a later hand whose dealer
    ends with both copies of the call (forced solo)."""
    rest = np.random.default_rng(8).permutation(
        [k for k in range(NUM_KINDS) for _ in range(2) if k not in (7, 40)]).tolist()
    first = [[7, 7] + rest[:25], rest[25:52], rest[52:79], rest[79:] + [40, 40]]
    superseded = [[7, 7, 40] + rest[:24], rest[24:51], rest[51:78], rest[78:] + [40]]
    forced = [[40] + rest[:25] + [40], rest[25:52], rest[52:79], rest[79:] + [7, 7]]
    return [(first, 0, 7, False), (superseded, 0, 40, True), (forced, 0, 40, True)]


@pytest.mark.parametrize("case", range(3))
def test_forced_solo_and_superseded_calls_are_kept(case):
    """[D-B3]: the call, its supersessions and a forced solo are what every world shows."""
    hands, dealer, called, later = special_deals()[case]
    game = DagongGame(hands=2)
    rng = np.random.default_rng(case)
    for steps in (0, 9, 30):
        state = game.state_from_hands(hands, dealer, called, later=later)
        assert state.forced_solo == (case != 1)
        for _ in range(steps):
            if state.is_over or state.results:
                break
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
        if state.is_over or state.results:
            continue
        for seat in range(4):
            actions, views = seat_views(game, state, seat)
            for world in game.sample_worlds(state, seat, 3, np.random.default_rng(seat)):
                assert_consistent(game, state, seat, world, actions, views)
                assert world.forced_solo == state.forced_solo
