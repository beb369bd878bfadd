"""cardenv.vector.VectorGame: slot for slot the game that raw_env().reset(seed) plays (property
test over 16 games per game and option set, 300 under -m slow), seeds and replacement, bad
input refused naming the slot with no game changed; ``keep`` (fewer slots, refill=False): the
kept slots against an uncompacted twin, each engine made directly against the single engine,
every per-slot attribute taken, bad slots refused."""

import zlib

import numpy as np
import pytest

from cardenv import dabang_v0, dagong_v0
from cardenv.vector import VectorGame
from tests.sizes import sizes

ENVS = {"dagong": dagong_v0, "dabang": dabang_v0}
CASES = [
    ("dagong", {}),
    ("dagong", {"hands": 3}),
    ("dabang", {}),
    ("dabang", {"follow": "live"}),
    ("dabang", {"episode": "match", "max_hands": 2}),
    ("dabang", {"dealer": "random", "levels": "random", "tribute_return": "dealer_choice"}),
]


def _crc(array) -> int:
    return zlib.crc32(np.ascontiguousarray(array).tobytes())


def _step_record(obs, mask, state, rewards) -> tuple:
    return (_crc(np.asarray(obs, np.float32)), _crc(np.asarray(mask, bool)),
            _crc(np.asarray(state, np.float32)), tuple(float(r) for r in rewards))


def vector_games(game, options, count, num_envs=64, seed=1000):
    """Play ``count`` games with random legal actions; each finished game's seed, actions and
    per-step (observation, mask, global state, rewards) record."""
    games = VectorGame(game, num_envs, seed=seed, options=options, keep_history=True)
    rng = np.random.default_rng(seed)
    running = [[] for _ in range(num_envs)]
    done = {}
    while len(done) < count:
        obs, masks, states = games.observations(), games.masks(), games.states()
        choice = (rng.random(num_envs) * masks.sum(axis=1)).astype(int)
        actions = np.array([np.flatnonzero(m)[c] for m, c in zip(masks, choice)])
        seeds, hands = list(games.seeds), games.hands_played()
        rewards, ended, hand_ends, ended_games = games.step(actions)
        for i in range(num_envs):
            running[i].append(_step_record(obs[i], masks[i], states[i], rewards[i]))
        finished = {f.index: f for f in ended_games}
        assert [f.index for f in ended_games] == np.flatnonzero(ended).tolist()  # by slot
        # the hands that ended: exactly the slots whose count of hands grew (a slot whose game
        # ended holds the next one now: its record counts), by slot, each with its newest
        # result (the game's last one when the game ended)
        results = [finished[i].results if i in finished else games.slots[i].results
                   for i in range(num_envs)]
        assert [i for i, _ in hand_ends] == [i for i in range(num_envs)
                                             if len(results[i]) > hands[i]]
        for i, result in hand_ends:
            assert result == results[i][-1] and len(results[i]) == hands[i] + 1
        for i, record in finished.items():
            assert record.seed == seeds[i] and games.seeds[i] != seeds[i]
            done[record.seed] = (record, running[i])
            running[i] = []
    return done


@sizes("count", 16, 300)
@pytest.mark.parametrize("game, options", CASES, ids=[f"{g}-{o}" for g, o in CASES])
def test_slots_play_exactly_the_env_games(game, options, count):
    done = vector_games(game, options, count)
    assert len(done) >= count
    for seed, (record, steps) in done.items():
        env = ENVS[game].raw_env(**options)
        env.reset(seed=seed)
        names = env.possible_agents
        assert len(record.history) == len(steps)
        for action, expected in zip(record.history, steps):
            agent = env.agent_selection
            assert not (env.terminations[agent] or env.truncations[agent])
            seen = env.observe(agent)
            state = env.state()
            env.step(action)
            got = _step_record(seen["observation"], seen["action_mask"].astype(bool), state,
                               [env.rewards[a] for a in names])
            assert got == expected, f"{game} {options} seed {seed}: step differs"
        assert all(env.terminations[a] or env.truncations[a] for a in names)
        totals = np.sum([step[3] for step in steps], axis=0)
        assert totals.tolist() == pytest.approx(record.returns)
        assert record.truncated == all(env.truncations.values())


def test_seeds_are_consecutive_and_replacements_take_the_next_unused():
    games = VectorGame("dagong", 3, seed=7)
    assert games.seeds == [7, 8, 9] and games.num_envs == 3
    rng = np.random.default_rng(0)
    started = {7, 8, 9}
    finished = []
    while len(finished) < 8:
        masks = games.masks()
        finished += games.step([int(rng.choice(np.flatnonzero(m))) for m in masks]).games
        started |= set(games.seeds)
    assert started == set(range(7, max(started) + 1))
    assert sorted(f.seed for f in finished) == sorted(set(f.seed for f in finished))
    assert not hasattr(games, "finished")  # the steps say what ended: nothing to drain


def test_a_list_of_options_alternates_by_slot():
    games = VectorGame("dabang", 4, seed=0, options=[{}, {"dealer": 1, "levels": [4, 6]}])
    assert [g.first_hand for g in games.slots] == [True, False, True, False]


def test_made_games_play_as_their_name_and_options():
    """``VectorGame`` takes the games ``game_variants`` made (a list, or one) in place of the
    name and options: the same games, the same objects in its ``variants``, and no options
    beside them."""
    from cardenv.games import make_game
    from cardenv.vector import game_variants

    options = [{}, {"dealer": 1, "levels": [4, 6]}]
    made = game_variants("dabang", options)
    by_name = VectorGame("dabang", 6, seed=3, options=options)
    for game in (made, tuple(made)):
        by_game = VectorGame(game, 6, seed=3)
        assert by_game.name == "dabang" and by_game.variants == made
        for _ in range(40):
            actions = by_name.masks().argmax(axis=1)
            assert np.array_equal(by_game.observations(), by_name.observations())
            by_game.step(actions)
            by_name.step(actions)
        by_name = VectorGame("dabang", 6, seed=3, options=options)
    one = make_game("dagong", hands=2)
    assert VectorGame(one, 2).variants == [one]
    with pytest.raises(ValueError, match="options go with a game's name"):
        VectorGame(made, 2, options={})
    with pytest.raises(ValueError, match="variants of one game"):
        VectorGame([one, made[0]], 2)
    for bad in ([], [one, "dagong"], {"dagong": one}):
        with pytest.raises(ValueError, match="list of made games"):
            VectorGame(bad, 2)


def _snapshot(games):
    return [g.to_dict() for g in games.slots], list(games.seeds), games.hands_played().tolist()


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_bad_actions_name_the_slot_and_change_nothing(game):
    games = VectorGame(game, 4, seed=3)
    for _ in range(30):  # into the play phase
        games.step(games.masks().argmax(axis=1))
    masks = games.masks()
    good = masks.argmax(axis=1)
    before = _snapshot(games)
    illegal = good.copy()
    illegal[2] = int(np.flatnonzero(~masks[2])[0])
    cases = [
        (good[:3], r"shape \(4,\)"),
        (good.astype(float) + 0.5, "slot 0: action must be an int"),
        (np.array([*good[:3], games.num_actions]), "slot 3: action .* outside"),
        (np.array([-1, *good[1:]]), "slot 0: action -1 is outside"),
        (illegal, "slot 2 .*is illegal for seat"),
    ]
    for actions, message in cases:
        with pytest.raises(ValueError, match=message):
            games.step(actions)
        assert _snapshot(games) == before
    rewards, ended, _, _ = games.step(good)
    assert rewards.shape == (4, 4) and ended.shape == (4,)


def test_bad_construction_is_refused():
    with pytest.raises(ValueError, match="unknown game 'poker'"):
        VectorGame("poker", 2)
    with pytest.raises(ValueError, match="num_envs must be an int"):
        VectorGame("dagong", 0)
    with pytest.raises(ValueError, match="options must be a dict"):
        VectorGame("dagong", 2, options=[])
    with pytest.raises(ValueError, match="seeds must hold"):
        VectorGame("dagong", 3, seeds=[1, 2])
    with pytest.raises(ValueError, match="unknown option"):
        VectorGame("dabang", 2, options={"hands": 2})


MIXED = {
    "dagong": [{}, {"hands": 3}, {"allow_solo": False, "xiqian": False}, {"hands": 2,
                                                                         "solo_multiplier": 3}],
    "dabang": [{}, {"follow": "live"}, {"episode": "match", "max_hands": 2},
               {"dealer": "random", "levels": "random", "tribute_return": "dealer_choice",
                "blood": "random"}],
}


@pytest.mark.parametrize("game", ["dagong", "dabang"])
@sizes("games", 48, 400)
def test_the_batched_engine_equals_per_state_apply_with_variants_mixed(game, games):
    """Whatever engine the game brings (Game.batch_engine), VectorGame gives what stepping each
    state by its own apply gives: every query at every step, the finished records, and each
    slot's whole state (to_dict) along the way."""
    options, envs = MIXED[game], 48
    fast = VectorGame(game, envs, seed=500, options=options, keep_history=True)
    slow = VectorGame(game, envs, seed=500, options=options, keep_history=True, batched=False)
    rng = np.random.default_rng(0)
    step, finished = 0, ([], [])
    while len(finished[1]) < games:  # about games / 4 per variant (48: a slot's first game
        # ends and the next is dealt in its place before most of the others end)
        masks = slow.masks()
        assert np.array_equal(fast.masks(), masks)
        assert np.array_equal(fast.current(), slow.current())
        assert np.array_equal(fast.observations(), slow.observations())
        seats = rng.integers(4, size=envs)
        assert np.array_equal(fast.observations(seats), slow.observations(seats))
        assert np.array_equal(fast.states(), slow.states())
        assert np.array_equal(fast.hands_played(), slow.hands_played())
        choice = (rng.random(envs) * masks.sum(axis=1)).astype(int)
        actions = np.array([np.flatnonzero(m)[c] for m, c in zip(masks, choice)])
        got, want = fast.step(actions), slow.step(actions)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        assert got.hands == want.hands
        finished[0].extend(got.games)
        finished[1].extend(want.games)
        step += 1
        if step % 25 == 0 or got[1].any():
            for i in range(0, envs, 7) if step % 25 == 0 else np.flatnonzero(got[1]):
                assert fast.slots[i].to_dict() == slow.slots[i].to_dict(), f"slot {i}"
    assert [vars(f) for f in finished[0]] == [vars(f) for f in finished[1]]
    assert [s.to_dict() for s in fast.slots] == [s.to_dict() for s in slow.slots]


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_small_batches_step_state_by_state_large_ones_in_numpy(game):
    """One small-batch rule for every game: VectorGame uses the game's batched engine from its
    ``min_batch`` games on (the protocol's optional attribute), SlotBatch below it."""
    from cardenv.games import make_game
    from cardenv.vector import SlotBatch

    engine = make_game(game).batch_engine
    assert isinstance(VectorGame(game, engine.min_batch - 1).engine, SlotBatch)
    assert isinstance(VectorGame(game, engine.min_batch).engine, engine)
    assert isinstance(VectorGame(game, 64, batched=False).engine, SlotBatch)


def test_games_as_dealt_play_as_their_seeds():
    """VectorGame(made game, states=...) and restart(slot, seed, state) play the states given
    (a caller deals a seed once and plays clones); a state played, of another game or of
    another seed is refused."""
    from cardenv.games import make_game

    game = make_game("dabang", dealer="random")
    dealt = [game.new_state(s) for s in (7, 8, 9)]
    by_state = VectorGame(game, states=[d.clone() for d in dealt], keep_history=True)
    by_seed = VectorGame("dabang", seeds=[7, 8, 9], options={"dealer": "random"},
                         keep_history=True)
    assert by_state.seeds == [7, 8, 9]
    by_state.restart(1, 8, dealt[1].clone())
    by_seed.restart(1, 8)
    rng = np.random.default_rng(0)
    finished = ([], [])
    while len(finished[0]) < 6:
        masks = by_seed.masks()
        assert np.array_equal(masks, by_state.masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        finished[0].extend(by_seed.step(actions).games)
        finished[1].extend(by_state.step(actions).games)
    assert [(f.seed, f.history, f.returns) for f in finished[0]] == \
        [(f.seed, f.history, f.returns) for f in finished[1]]
    played = dealt[0].clone()
    played.apply(played.legal_actions()[0])
    for bad, message in ((played, "before any move"), (make_game("dagong").new_state(7),
                                                       "before any move")):
        with pytest.raises(ValueError, match=message):
            VectorGame(game, states=[bad])
    with pytest.raises(ValueError, match="not 9"):
        by_state.restart(0, 9, dealt[0].clone())
    with pytest.raises(ValueError, match="options go with a game's name"):
        VectorGame(game, 2, options={})


def games_in_progress(game, rng, moves: int) -> list:
    """Games of seeds 0..39, each up to ``moves`` random moves in (``rng``), those not over."""
    states = []
    for seed in range(40):
        state = game.new_state(seed)
        for _ in range(int(rng.integers(0, moves))):
            if state.is_over:
                break
            state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_over:
            states.append(state)
    return states


@pytest.mark.parametrize("name, batched", [("dagong", True), ("dabang", True),
                                             ("dagong", False)])
def test_games_in_progress_play_on_with_started(name, batched):
    """started=True: slots take games in progress (a search agent's rollouts) and play them on
    move for move as the states themselves would, both engines; without the flag, or given a
    game that is over, VectorGame refuses them."""
    from cardenv.games import make_game

    game = make_game(name)
    rng = np.random.default_rng(1)
    states = games_in_progress(game, rng, 60)
    twins = [s.clone() for s in states]
    games = VectorGame(game, states=states, started=True, batched=batched)
    assert games.seeds == [s.seed for s in twins]
    ended = np.zeros(len(twins), dtype=bool)
    while not ended.all():
        masks = games.masks()
        live = np.flatnonzero(~ended)
        assert np.array_equal(masks[live], game.legal_masks([twins[i] for i in live]))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        rewards, over, _, _ = games.step(actions)
        for i in live.tolist():
            twins[i].apply(int(actions[i]))
            assert list(rewards[i]) == list(twins[i].last_rewards)
            assert over[i] == twins[i].is_over
        ended |= over
    with pytest.raises(ValueError, match="started=True"):
        VectorGame(game, states=[states_in_progress(game)])
    with pytest.raises(ValueError, match="in progress"):
        VectorGame(game, states=[twins[0]], started=True)  # over
    with pytest.raises(ValueError, match="goes with states"):
        VectorGame(game, 2, started=True)


# (SlotBatch steps any game's states alike: Dabang's run through it is under -m slow)
@pytest.mark.parametrize("name, batched", [("dagong", True), ("dabang", True), ("dagong", False),
                                           pytest.param("dabang", False, marks=pytest.mark.slow)])
def test_refill_false_keeps_an_ended_game_over_in_its_slot(name, batched):
    """refill=False (a search agent's rollouts): the live slots play on as the states
    themselves would; an ended game is recorded once, stays in its slot over (seat -1, nothing
    legal, its action ignored, zero rewards, ended reported at its last step only) and no new
    game is dealt; with a queue, or a refill that is not a bool, VectorGame refuses."""
    from cardenv.games import make_game

    game = make_game(name)
    rng = np.random.default_rng(2)
    states = games_in_progress(game, rng, 80)
    twins = [s.clone() for s in states]
    games = VectorGame(game, states=states, started=True, batched=batched, refill=False)
    assert (type(games.engine) is game.batch_engine) == batched  # both engines are checked
    seeds, next_seed = list(games.seeds), games.next_seed
    ended = np.zeros(len(twins), dtype=bool)
    recorded = 0
    while not ended.all():
        masks, obs, current = games.masks(), games.observations(), games.current()
        live = np.flatnonzero(~ended)
        assert np.array_equal(masks[live], game.legal_masks([twins[i] for i in live]))
        assert np.array_equal(obs[live], game.observations([twins[i] for i in live]))
        assert not masks[ended].any() and (current[ended] == -1).all()
        actions = masks.argmax(axis=1)  # 0 in an over slot: ignored
        counts = [len(t.results) for t in twins]
        rewards, over, hands, new = games.step(actions)
        for i in live.tolist():
            twins[i].apply(int(actions[i]))
            assert list(rewards[i]) == list(twins[i].last_rewards)
            assert over[i] == twins[i].is_over
        assert not over[ended].any() and not rewards[ended].any()
        assert [f.index for f in new] == np.flatnonzero(over).tolist()
        for f in new:
            assert f.seed == twins[f.index].seed and f.returns == list(twins[f.index].returns)
        # a hand ends where the twin's results grew (an over slot's never do), with its result
        assert [i for i, _ in hands] == [i for i, t in enumerate(twins)
                                         if len(t.results) > counts[i]]
        assert all(result == twins[i].results[-1] for i, result in hands)
        recorded += len(new)
        ended |= over
    assert recorded == len(twins)
    assert games.seeds == seeds and games.next_seed == next_seed  # nothing new dealt
    for i, twin in enumerate(twins):
        assert games.slots[i].is_over and games.slots[i].history == twin.history
    with pytest.raises(ValueError, match="no queue"):
        VectorGame(game, states=[game.new_state(1)], queue=[game.new_state(2)], refill=False)
    with pytest.raises(ValueError, match="refill"):
        VectorGame(game, 2, refill=0)


def states_in_progress(game):
    state = game.new_state(3)
    state.apply(state.legal_actions()[0])
    return state


def test_ended_games_take_the_queue_in_order_then_new_seeds():
    """``queue``: a slot whose game ends takes the next game as dealt from the queue (read
    lazily), and deals a new seed only once the queue is used up."""
    from cardenv.games import make_game

    game = make_game("dagong")
    taken = []

    def queued():
        for seed in (100, 101, 102):
            taken.append(seed)
            yield game.new_state(seed)

    games = VectorGame(game, states=[game.new_state(s) for s in (1, 2)], queue=queued())
    assert taken == [] and games.next_seed == 3  # nothing read before a game ends
    rng = np.random.default_rng(0)
    seeds = []
    while len(seeds) < 6:
        masks = games.masks()
        seeds += [f.seed for f in games.step(np.array([rng.choice(np.flatnonzero(m))
                                                       for m in masks])).games]
    assert sorted(seeds[:2]) == [1, 2]
    started = [s for s in seeds[2:] if s >= 100]
    assert started == sorted(started)  # the queue in order
    assert taken == [100, 101, 102] and games.next_seed > 3  # then new seeds: 3, 4, ...
    assert set(seeds) <= {1, 2, 100, 101, 102, 3, 4, 5}


# --- keep: fewer slots, without rebuilding their states -----------------------------------------

KEEP_CASES = {
    "dagong": [{}],
    # first hands, later hands (random situations) and match episodes (a hand ends, the game
    # goes on)
    "dabang": [{}, {"dealer": "random", "levels": "random", "blood": "random"},
               {"episode": "match", "max_hands": 2}],
}


def _random_legal(masks, rng) -> np.ndarray:
    """A uniformly random legal action per row; 0 where nothing is legal (an over slot)."""
    counts = masks.sum(axis=1)
    choice = (rng.random(len(masks)) * counts).astype(int)
    return np.array([np.flatnonzero(m)[c] if n else 0 for m, c, n in zip(masks, choice, counts)])


def _subset(rng, n: int, low: int) -> np.ndarray:
    """Between ``low`` and ``n - 1`` of ``n`` slots (at least one), in a random order."""
    size = int(rng.integers(max(1, min(low, n - 1)), n)) if n > 1 else 1
    return rng.permutation(n)[:size]


@pytest.mark.parametrize("name", ["dagong", "dabang"])
@sizes("runs", 2, 24)
def test_keep_answers_as_the_kept_slots_of_a_twin(name, runs):
    """``VectorGame.keep`` (refill=False): random legal play on 48 slots, with random subsets
    in random orders kept at random steps (the first one large enough to stay on the game's
    batched engine, later ones down to SlotBatch); after every step the kept slots answer as
    the same slots of an uncompacted twin stepped with the same actions: observations (also
    of given seats), masks, global states, seats to act, action features, hands played,
    rewards, ends, hand results and finished records (renumbered), seeds and variants; their
    states equal the twin's at every keep and at the end."""
    from cardenv.games import make_game

    options, envs = KEEP_CASES[name], 48
    minimum = make_game(name).batch_engine.min_batch
    engines = set()
    for run in range(runs):
        seed = 100 * run
        games = VectorGame(name, envs, seed=seed, options=options, refill=False)
        twin = VectorGame(name, envs, seed=seed, options=options, refill=False)
        rng = np.random.default_rng(run)
        slots = np.arange(envs)  # the twin's slot each kept slot is
        keeps = 0

        def keep(slots, keeps):
            """Keep a random subset; the twin's slots the kept ones are."""
            rows = _subset(rng, len(slots), minimum if not keeps else 1)
            dropped = [(games.engine.states[j], slots[j]) for j in range(len(slots))
                       if j not in set(rows.tolist())]  # (not brought up to date)
            games.keep(rows if rng.random() < 0.5 else rows.tolist())
            for state, i in dropped:  # handed back up to date
                assert state.to_dict() == twin.slots[int(i)].to_dict()
            slots = slots[rows]
            engines.add(type(games.engine).__name__)
            assert games.seeds == [twin.seeds[i] for i in slots]
            assert [games.variant(j).options for j in range(len(slots))] == \
                [twin.variant(int(i)).options for i in slots]
            for j, i in enumerate(slots.tolist()):
                assert games.slots[j].to_dict() == twin.slots[i].to_dict()
            return slots

        while (games.current() >= 0).any():
            masks = twin.masks()
            assert np.array_equal(games.masks(), masks[slots])
            assert np.array_equal(games.current(), twin.current()[slots])
            assert np.array_equal(games.observations(), twin.observations()[slots])
            seats = rng.integers(4, size=envs)
            assert np.array_equal(games.observations(seats[slots]),
                                  twin.observations(seats)[slots])
            assert np.array_equal(games.states(), twin.states()[slots])
            assert np.array_equal(games.hands_played(), twin.hands_played()[slots])
            index, features = games.action_features()
            want_index, want_features = _features_of(twin, slots)
            assert np.array_equal(index, want_index)
            assert np.array_equal(features, want_features)
            actions = _random_legal(masks, rng)
            if rng.random() < 0.02 and len(slots) > 1:  # (the engine's masks are cached now)
                slots, keeps = keep(slots, keeps), keeps + 1
            got, want = games.step(actions[slots]), twin.step(actions)
            assert np.array_equal(got.rewards, want.rewards[slots])
            assert np.array_equal(got.ended, want.ended[slots])
            back = {int(t): j for j, t in enumerate(slots)}
            assert got.hands == sorted((back[i], r) for i, r in want.hands if i in back)
            theirs = sorted((back[f.index], f.seed, f.returns, f.results, f.truncated)
                            for f in want.games if f.index in back)
            assert [(f.index, f.seed, f.returns, f.results, f.truncated)
                    for f in got.games] == theirs
            if rng.random() < 0.02 and len(slots) > 1:
                slots, keeps = keep(slots, keeps), keeps + 1
        assert [s.to_dict() for s in games.slots] == [twin.slots[i].to_dict() for i in slots]
    assert engines == {make_game(name).batch_engine.__name__, "SlotBatch"}  # both kept


def _features_of(games, slots):
    """``games.action_features()`` of the slots ``slots`` only, in that order, renumbered."""
    index, features = games.action_features()
    rows, actions = np.divmod(index, games.num_actions)
    pick = [np.flatnonzero(rows == slot) for slot in slots]
    return (np.concatenate([actions[p] + j * games.num_actions for j, p in enumerate(pick)]),
            features[np.concatenate(pick)])


ENGINES = [("dagong", "batch"), ("dabang", "batch"), ("dagong", "slots"), ("dabang", "slots")]


def _engine(name: str, kind: str, states):
    """The game's batched engine (made directly: numpy whatever the size) or SlotBatch."""
    from cardenv.games import make_game
    from cardenv.vector import SlotBatch

    return (make_game(name).batch_engine if kind == "batch" else SlotBatch)(states)


def _started(name, count: int, rng, moves: int = 150) -> list:
    """``count`` games of the name's keep variants, each up to ``moves`` random moves in."""
    from cardenv.vector import game_variants

    variants = game_variants(name, KEEP_CASES[name])
    states = []
    while len(states) < count:
        state = variants[len(states) % len(variants)].new_state(len(states))
        for _ in range(int(rng.integers(0, moves))):
            if state.is_over:
                break
            state.apply(int(rng.choice(state.legal_actions())))
        states.append(state)
    return states


@pytest.mark.parametrize("name, kind", ENGINES)
@sizes("runs", 3, 30)
def test_an_engine_keeps_slots_as_the_single_engine_plays_them(name, kind, runs):
    """``BatchEngine.keep`` made directly on 16 games in progress (the batched engines in numpy
    at any size): random play, random subsets kept in random orders, some while the engine's
    masks are cached; every query and step of the kept slots equals the states' own (the
    single engine, ``apply``); a dropped slot's state is handed back up to date and stays so
    (the engine no longer writes to it)."""
    for run in range(runs):
        rng = np.random.default_rng(run)
        refs = _started(name, 16, rng)
        engine = _engine(name, kind, [r.clone() for r in refs])
        game = refs[0].game
        dropped = []  # (state handed back, its to_dict then)
        while True:
            over = np.array([r.is_over for r in refs])
            masks = engine.masks()
            assert np.array_equal(masks[~over], game.legal_masks([r for r in refs
                                                                  if not r.is_over]))
            assert engine.current().tolist() == [r.current_player for r in refs]
            assert np.array_equal(engine.observations(), game.observations(refs))
            seats = rng.integers(4, size=len(refs))
            assert np.array_equal(engine.observations(seats), game.observations(refs, seats))
            assert np.array_equal(engine.global_states(), game.global_states(refs))
            assert engine.hands_played().tolist() == [len(r.results) for r in refs]
            if rng.random() < 0.05 or over.all():
                if len(refs) == 1:  # (an engine holds one slot at least)
                    assert engine.state(0).to_dict() == refs[0].to_dict()
                    break
                rows = _subset(rng, len(refs), 1)
                gone = [i for i in range(len(refs)) if i not in set(rows.tolist())]
                states = [engine.states[i] for i in gone]  # (not brought up to date)
                engine.keep(rows)
                assert len(engine) == rows.size
                for state, i in zip(states, gone):
                    assert state.to_dict() == refs[i].to_dict()
                    assert list(state.last_rewards) == list(refs[i].last_rewards)
                    dropped.append((state, state.to_dict()))
                refs = [refs[i] for i in rows.tolist()]
                continue
            actions = _random_legal(masks, rng)
            rewards, ended = engine.step(actions)
            for i, ref in enumerate(refs):
                if not over[i]:
                    ref.apply(int(actions[i]))
                    assert list(rewards[i]) == list(ref.last_rewards)
            assert ended.tolist() == [r.is_over for r in refs]
            for i in rng.choice(len(refs), size=min(2, len(refs)), replace=False).tolist():
                assert engine.state(i).to_dict() == refs[i].to_dict()
            assert all(state.to_dict() == saved for state, saved in dropped)


@pytest.mark.parametrize("name, kind", ENGINES)
def test_keep_takes_every_per_slot_attribute(name, kind):
    """After ``keep``, no attribute of the engine is left with the former number of slots: each
    per-slot array, list and cache (a missed one would pair a slot with another's data) holds
    the kept slots only, and the engine answers as one made of the kept states."""
    rng = np.random.default_rng(4)
    states = _started(name, 7, rng, moves=120)  # 7: no other dimension of the engines
    engine = _engine(name, kind, [s.clone() for s in states])
    engine.masks()  # the caches filled
    engine.observations()
    sized = {key for key, value in vars(engine).items()
             if isinstance(value, (np.ndarray, list)) and len(value) == 7}
    assert "states" in sized and (kind == "slots" or len(sized) > 20)
    rows = np.array([5, 0, 3])
    engine.keep(rows)
    left = {key: len(value) for key, value in vars(engine).items()
            if isinstance(value, (np.ndarray, list)) and key in sized}
    assert left == dict.fromkeys(sized, 3)
    fresh = _engine(name, kind, [states[i].clone() for i in rows.tolist()])
    assert np.array_equal(engine.masks(), fresh.masks())
    assert np.array_equal(engine.observations(), fresh.observations())
    assert np.array_equal(engine.global_states(), fresh.global_states())
    assert np.array_equal(engine.current(), fresh.current())


@pytest.mark.parametrize("name", ["dagong", "dabang"])
def test_bad_keeps_name_the_problem_and_change_nothing(name):
    games = VectorGame(name, 40, seed=3, refill=False)
    for _ in range(30):
        games.step(games.masks().argmax(axis=1))
    variants = [games.variant(i).options for i in range(40)]
    before = _snapshot(games), games.masks(), games.observations(), variants
    cases = [
        ([0, 40], r"slots\[1\]: slot 40 is outside 0..39"),
        (np.array([2, 2**64 - 1], dtype=np.uint64), r"slots\[1\]: slot 18446744073709551615 "
                                                     "is outside"),
        ((1, 2**70), r"slots\[1\]: slot 1180591620717411303424 is outside"),
        ([-1], r"slots\[0\]: slot -1 is outside"),
        (np.array([3, 1, 3]), r"slots\[2\]: slot 3 is named twice"),
        ([], "at least one slot"),
        (np.array([[0, 1]]), "1-D array"),
        (np.array([0.0, 1.0]), "1-D array of slot indices"),
        (np.array([True, False]), "1-D array of slot indices"),
        ([0, 1.0], r"slots\[1\] must be a slot index \(an int\), got 1.0"),
        ([True], r"slots\[0\] must be a slot index"),
        (3, "list, tuple or 1-D array"),
        ("01", "list, tuple or 1-D array"),
        ({0, 1}, "list, tuple or 1-D array"),
    ]
    for slots, message in cases:
        with pytest.raises(ValueError, match=message):
            games.keep(slots)
        variants = [games.variant(i).options for i in range(40)]
        after = _snapshot(games), games.masks(), games.observations(), variants
        assert after[0] == before[0] and after[3] == before[3]
        assert np.array_equal(after[1], before[1]) and np.array_equal(after[2], before[2])
    with pytest.raises(ValueError, match="keep goes with refill=False"):
        VectorGame(name, 4, seed=3).keep([0, 1])
