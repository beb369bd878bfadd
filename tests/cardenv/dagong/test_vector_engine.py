"""The batched Dagong engine (cardenv.dagong.vector) equals the reference DagongState.

- ``select_batch`` takes exactly the cards ``selection.select_cards`` takes, on every feasible
  play of positions from random games and of random dense hands (510K choices included).
- ``DagongBatch`` stepped side by side with per-state ``apply`` on hundreds of games of several
  option variants mixed in one batch (ended games replaced by new seeds): masks, observations
  (the seats to act and given seats), global states, rewards and ends equal at every step, and
  the synced state objects (``to_dict``, masks, rewards) equal for sampled slots and every ended
  game, before and after ``replace``; the same with seeded heuristic players choosing the
  actions.
"""

import numpy as np
import pytest

from cardagents.players.heuristics import heuristic_for
from cardenv.dagong import DagongGame, legality
from cardenv.dagong import catalogue as cat
from cardenv.dagong.selection import select_cards
from cardenv.dagong.vector import DagongBatch, select_batch
from tests.sizes import sizes

VARIANTS = [{}, {"hands": 3}, {"allow_solo": False}, {"hands": 2, "xiqian": False,
                                                       "solo_multiplier": 3}]


def _plays_of(hand, called, rng, limit):
    acts = np.flatnonzero(legality.feasible(hand, called)[cat.FIRST_PLAY:]) + cat.FIRST_PLAY
    return rng.choice(acts, size=min(limit, acts.size), replace=False) if acts.size else acts


def _selection_cases(seed):
    rng = np.random.default_rng(seed)
    hands, actions, called = [], [], []

    def add(hand, c, limit):
        for a in _plays_of(hand, c, rng, limit):
            hands.append(hand.copy())
            actions.append(a)
            called.append(c)

    game = DagongGame()
    for game_seed in range(8):
        state = game.new_state(seed * 100 + game_seed)
        while not state.is_over:
            if state.phase == "play":
                add(state.v["hand"][state.current], state.called, 30)
            legal = np.flatnonzero(state.legal_mask())
            state.apply(int(legal[rng.integers(legal.size)]))
    deck = np.repeat(np.arange(54), 2)
    for _ in range(600):  # dense random hands: many 510K suit choices and protected copies
        hand = np.zeros(54, dtype=np.int16)
        np.add.at(hand, rng.choice(deck, int(rng.integers(8, 28)), replace=False), 1)
        c = int(rng.integers(54))
        if rng.random() < 0.5:
            hand[c] = max(hand[c], 1)
        add(hand, c, 40)
    return np.array(hands), np.array(actions), np.array(called)


# (a second seed's cases under -m slow)
@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_select_batch_equals_select_cards(seed):
    hands, actions, called = _selection_cases(seed)
    assert np.isin((actions - cat.FIRST_PLAY) % cat.NUM_COMBOS,
                   np.arange(cat.NUM_COMBOS)[cat.BLOCKS["k510"]]).sum() > 200
    got = select_batch(hands, actions, called)
    for i in range(len(actions)):
        expected = np.bincount(select_cards(hands[i].tolist(), int(actions[i]), int(called[i])),
                               minlength=54)
        assert np.array_equal(got[i], expected), (i, int(actions[i]), int(called[i]))


def _assert_same_state(batch_state, ref):
    assert batch_state.to_dict() == ref.to_dict()
    assert batch_state.is_over == ref.is_over
    assert list(batch_state.last_rewards) == list(ref.last_rewards)
    assert batch_state.current_player == ref.current_player
    if not ref.is_over:
        assert np.array_equal(batch_state.legal_mask(), ref.legal_mask())
        for name in ("passed", "cards_left", "out", "won", "yaobai", "revealed", "standing",
                     "standing_seat", "trick_points", "phase"):
            assert getattr(batch_state, name) == getattr(ref, name), name


def _random_actions(refs, masks, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def _side_by_side(target, choose, num_envs=48):
    """Play ``target`` games side by side with per-state apply, four variants mixed in one
    batch, the actions from ``choose(refs, masks, rng)``; the rules paths the run took."""
    games = [DagongGame(**VARIANTS[i % len(VARIANTS)]) for i in range(num_envs)]
    seeds = list(range(num_envs))
    next_seed = num_envs
    refs = [g.new_state(s) for g, s in zip(games, seeds)]
    batch = DagongBatch([g.new_state(s) for g, s in zip(games, seeds)])
    rng = np.random.default_rng(7)
    ended = steps = 0
    seen = set()  # the rules paths this run went through (checked at the end)
    while ended < target:
        masks = batch.masks()
        assert np.array_equal(masks, [r.legal_mask() for r in refs])
        assert np.array_equal(batch.current(), [r.current_player for r in refs])
        game0 = games[0]
        assert np.array_equal(batch.observations(), game0.observations(refs))
        seats = rng.integers(0, 4, num_envs)
        assert np.array_equal(batch.observations(seats), game0.observations(refs, seats))
        assert np.array_equal(batch.global_states(), game0.global_states(refs))
        actions = choose(refs, masks, rng)
        batch.masks()[:] = False  # each call hands out the caller's own array
        assert batch.legal(actions).all()
        wrong = (actions + 1) % cat.NUM_ACTIONS
        assert np.array_equal(batch.legal(wrong), masks[np.arange(num_envs), wrong])
        rewards, over = batch.step(actions)
        steps += 1
        for r, a in zip(refs, actions):
            seen.update(_events(r, int(a)))
            r.apply(int(a))
        assert np.array_equal(rewards, [r.last_rewards for r in refs])
        assert np.array_equal(over, [r.is_over for r in refs])
        assert np.array_equal(batch.hands_played(), [len(r.results) for r in refs])
        if steps % 25 == 0:
            for i in rng.choice(num_envs, 4, replace=False):
                _assert_same_state(batch.state(int(i)), refs[i])
        for i in np.flatnonzero(over):
            finished = batch.state(int(i))
            _assert_same_state(finished, refs[i])
            refs[i] = games[i].new_state(next_seed)
            batch.replace(int(i), games[i].new_state(next_seed))
            next_seed += 1
            ended += 1
            _assert_same_state(finished, games[i].replay(seeds[i], finished.history))
            seeds[i] = next_seed - 1
            _assert_same_state(batch.state(int(i)), refs[i])
            seen.update(f"reason:{result.reason}" for result in finished.results)
            seen.update("forced_solo" for result in finished.results if result.forced_solo)
    return seen


@sizes("games", 100, 220)  # (100: the first size to meet a forced solo)
def test_batch_equals_reference_states(games):
    """Random play side by side with per-state apply, four variants mixed in one batch."""
    seen = _side_by_side(games, _random_actions)
    assert {"reveal", "jiefeng_partner", "jiefeng_next", "yaobai", "k510", "solo_declared",
            "forced_solo", "reason:bang", "reason:score", "reason:solo"} <= seen, seen


@sizes("games", 40, 400)
def test_batch_equals_reference_states_in_heuristic_games(games):
    """The same, with seeded heuristic players choosing every action (the positions training
    and evaluation visit, unlike uniformly random play)."""
    agent = heuristic_for("dagong", seed=17)

    def heuristic(refs, masks, rng):
        return agent.act_batch(refs[0].game.observations(refs), masks)

    seen = _side_by_side(games, heuristic)
    assert {"reveal", "reason:score"} <= seen, seen


def _events(ref, action):
    """Names of the rule paths ``action`` takes in ``ref`` (before it is applied)."""
    if ref.phase == "solo":
        return {"solo_declared"} if action == cat.SOLO_DECLARE else set()
    info = cat.ACTIONS[action]
    events = {"yaobai"} if info.type == cat.YAOBAI else {"k510"} if info.type == cat.K510 \
        else set()
    if info.called and ref.current == ref.partner and not ref.revealed:
        events.add("reveal")
    winner = ref.standing_seat
    if action == cat.PASS and winner >= 0 and ref.cards_left[winner] == 0:
        waiting = [s for s in range(4) if s not in (winner, ref.current) and ref.cards_left[s]
                   and not ref.passed[s]]
        if not waiting:
            events.add("jiefeng_partner" if ref.revealed and ref.solo is None
                       else "jiefeng_next")
    return events


def _small_deal(game, rng, seed):
    """A random deal by hand of 3..12 cards a seat (dense 5/10/K and jokers, short hands: many
    players go out and many 510K choices), the dealer holding the called card."""
    deck = np.repeat(np.arange(54), 2)
    while True:
        deck = deck[rng.permutation(deck.size)]
        sizes = rng.integers(3, 13, 4)
        hands = np.split(deck[:sizes.sum()], np.cumsum(sizes)[:-1])
        dealer = int(rng.integers(4))
        dealt = np.bincount(deck[:sizes.sum()], minlength=54)
        twins = [k for k in hands[dealer].tolist() if dealt[k] == 2]  # the call needs its twin
        if twins:
            return game.state_from_hands([h.tolist() for h in hands], dealer, twins[0],
                                         seed=seed)


@sizes("games", 12, 24)
def test_batch_adopts_mid_game_states(games):
    """States handed over mid-hand (any phase), clones and custom deals keep playing
    identically (``games`` custom deals and as many seeds played part-way)."""
    rng = np.random.default_rng(3)
    refs = [_small_deal(DagongGame(**VARIANTS[seed % len(VARIANTS)]), rng, seed)
            for seed in range(games)]
    for seed in range(games):
        state = DagongGame(**VARIANTS[seed % len(VARIANTS)]).new_state(seed)
        for _ in range(int(rng.integers(0, 120))):
            if state.is_over:
                break
            legal = np.flatnonzero(state.legal_mask())
            state.apply(int(legal[rng.integers(legal.size)]))
        if not state.is_over:
            refs.append(state)
    batch = DagongBatch([r.clone() for r in refs])
    while not all(r.is_over for r in refs):
        masks = batch.masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        live = ~np.array([r.is_over for r in refs])
        # an over slot is never stepped (VectorGame replaces it first): go on with a batch of
        # the live games' synced states (adopting states another batch held)
        if not live.all():
            for i in np.flatnonzero(~live):
                _assert_same_state(batch.state(int(i)), refs[i])
            keep = np.flatnonzero(live)
            batch = DagongBatch([batch.state(int(i)) for i in keep])
            refs = [refs[i] for i in keep]
            continue
        batch.step(actions)
        for r, a in zip(refs, actions):
            r.apply(int(a))
        for i in range(len(refs)):
            _assert_same_state(batch.state(i), refs[i])
