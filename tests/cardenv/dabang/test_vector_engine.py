"""cardenv.dabang.vector.DabangBatch equals the reference engine: a batch and a list of reference
states (``new_state`` + ``apply``) stepped side by side with random legal actions, over option
variants mixed in one batch, ended games replaced by new seeds (and by states taken over in the
middle of a hand, a follow half built), every query compared at every step (40 games per
mid-hand share in the default run, 400 under -m slow); and the same with seeded heuristic
players choosing the actions (40 games, 400 under -m slow)."""

import numpy as np
import pytest

from cardagents.players.heuristics import heuristic_for
from cardenv.dabang.game import DabangGame
from cardenv.dabang.observation import LAYOUT
from cardenv.dabang.phase import Phase
from cardenv.dabang.vector import DabangBatch, ObservationGather
from tests.sizes import sizes

VARIANTS = [
    {},
    {"follow": "live"},
    {"episode": "match", "max_hands": 2},
    {"episode": "match", "max_hands": 3, "follow": "live", "keep_dealer": "same",
     "joker_levels": False},
    {"dealer": "random", "levels": "random", "tribute_return": "dealer_choice"},
    {"dealer": 1, "levels": (5, 9), "blood": 3, "tribute_return": "dealer_choice",
     "follow": "live", "four_joker_win": "big_only"},
    {"bidding": "after_deal", "deal_value": 0.0},
    {"episode": "match", "dealer": 0, "levels": (9, 10)},  # whole matches, ended by the rules
]
GAMES = [DabangGame(**options) for options in VARIANTS]


class SideBySide:
    """A batch and its reference states; ``fresh`` makes the pair a slot starts with."""

    def __init__(self, num_envs: int, seed: int, mid_hand: float, agent=None):
        self.agent = agent  # chooses the actions with act_batch (uniformly random if None)
        self.rng = np.random.default_rng(seed)
        self.next_seed = seed
        self.mid_hand = mid_hand  # share of new games taken over part-way through
        pairs = [self.fresh(i) for i in range(num_envs)]
        self.refs = [ref for ref, _ in pairs]
        self.batch = DabangBatch([mine for _, mine in pairs])
        self.ended = 0
        self.buried_in_numpy = 0  # burial steps the batch took in numpy (_step_bury)

    def fresh(self, slot: int):
        game = GAMES[slot % len(GAMES)]
        ref = game.new_state(self.next_seed)
        self.next_seed += 1
        if self.rng.random() < self.mid_hand:  # somewhere in the hand, half the time mid-follow
            steps, partial = int(self.rng.integers(1, 300)), self.rng.random() < 0.5
            while steps > 0 or (partial and not ref.trick.partial):
                legal = ref.legal_actions()
                ref.apply(legal[self.rng.integers(len(legal))])
                steps -= 1
                if ref.is_over:
                    return self.fresh(slot)
            if self.rng.random() < 0.5:
                return ref, type(ref).from_dict(ref.to_dict())
        return ref, ref.clone()

    def check_queries(self) -> np.ndarray:
        """Every query against the references; the reference masks."""
        batch, refs = self.batch, self.refs
        masks = np.stack([ref.legal_mask() for ref in refs])
        mine = batch.masks()
        assert np.array_equal(mine, masks)
        mine[:] = ~mine  # the caller's own array: legal() does not read it
        assert batch.masks() is not mine and np.array_equal(batch.masks(), masks)
        assert batch.hands_played().tolist() == [len(ref.results) for ref in refs]
        assert batch.current().tolist() == [ref.current_player for ref in refs]
        game = refs[0].game
        assert np.array_equal(batch.observations(), game.observations(refs))
        seats = self.rng.integers(4, size=len(refs))
        assert np.array_equal(batch.observations(seats), game.observations(refs, seats))
        assert np.array_equal(batch.global_states(), game.global_states(refs))
        probe = self.rng.integers(masks.shape[1], size=len(refs))  # mostly illegal actions
        assert np.array_equal(batch.legal(probe), masks[np.arange(len(refs)), probe])
        return masks

    def check_state(self, i: int) -> None:
        mine, ref = self.batch.state(i), self.refs[i]
        assert mine.to_dict() == ref.to_dict()
        assert mine.is_over == ref.is_over and mine.last_rewards == ref.last_rewards
        assert mine.current_player == ref.current_player
        if not ref.is_over:
            assert np.array_equal(mine.legal_mask(), ref.legal_mask())
            assert repr(mine.trick) == repr(ref.trick)  # repr: the order of its dicts too
            assert repr(mine.kitty) == repr(ref.kitty) and mine.cards_left == ref.cards_left

    def step(self) -> None:
        masks = self.check_queries()
        if self.agent is None:
            choice = (self.rng.random(len(masks)) * masks.sum(axis=1)).astype(int)
            actions = np.array([np.flatnonzero(m)[c] for m, c in zip(masks, choice)])
        else:
            actions = self.agent.act_batch(self.refs[0].game.observations(self.refs), masks)
        assert self.batch.legal(actions).all()
        batch = self.batch
        self.buried_in_numpy += int((batch.burying & (batch.buried_n < 7)).sum())
        rewards, over = self.batch.step(actions)
        for ref, action in zip(self.refs, actions.tolist()):
            ref.apply(action)
        assert np.array_equal(rewards, [ref.last_rewards for ref in self.refs])
        assert over.tolist() == [ref.is_over for ref in self.refs]
        for i in self.rng.choice(len(self.refs), size=2, replace=False).tolist():
            self.check_state(i)
        if over.any():  # the ended games stay until replaced
            self.check_queries()
        for i in np.flatnonzero(over).tolist():
            self.check_state(i)
            self.replace(i)

    def replace(self, i: int) -> None:
        """A new game in slot ``i``; the ended state keeps its content."""
        old = self.batch.state(i)
        saved = old.to_dict()
        self.refs[i], mine = self.fresh(i)
        self.batch.replace(i, mine)
        self.check_state(i)
        assert old.to_dict() == saved and old.buffer.base is None
        self.ended += 1


@sizes("games", 40, 400)
@pytest.mark.parametrize("mid_hand", [0.0, 0.5])
def test_batch_plays_exactly_the_reference_games(mid_hand, games):
    run = SideBySide(num_envs=48, seed=7000 + int(mid_hand * 10), mid_hand=mid_hand)
    while run.ended < games:
        run.step()
    assert Phase.PLAY in {ref.phase for ref in run.refs}
    assert run.buried_in_numpy > 100  # (and each buried card checked as the states are read)


@sizes("games", 40, 400)
def test_batch_plays_exactly_the_reference_games_of_heuristic_players(games):
    """The same, with a seeded heuristic choosing every action: the positions training and
    evaluation visit (long follows, buried points, tributes), unlike uniformly random play."""
    run = SideBySide(num_envs=48, seed=7100, mid_hand=0.0, agent=heuristic_for("dabang", seed=23))
    while run.ended < games:
        run.step()


@sizes("games", 12, 30)
def test_small_batches(games):
    """A few games, made directly: in numpy all the same (one or two play rows; VectorGame
    would step them state by state, below ``min_batch``: tests/cardenv/test_vector.py)."""
    run = SideBySide(num_envs=3, seed=321, mid_hand=0.3)
    assert len(run.batch) < DabangBatch.min_batch
    while run.ended < games:
        run.step()


def test_mid_follow_takeover_and_lazy_sync():
    """States taken over in the middle of a hand (half of them with a follow half built), every
    state read back at every step: reading a state (which writes the arrays back into it) does
    not disturb the batch."""
    run = SideBySide(num_envs=16, seed=99, mid_hand=1.0)
    assert any(ref.phase == Phase.PLAY and ref.trick.partial for ref in run.refs)
    for _ in range(200):
        for i in range(len(run.refs)):
            run.check_state(i)
        run.step()


def test_observation_gather_equals_the_layout_index():
    rng = np.random.default_rng(5)
    buffers = rng.integers(0, 100, size=(300, LAYOUT.size)).astype(np.int16)
    seats = rng.integers(4, size=300)
    expected = np.stack([b[LAYOUT.observation_index[s]] for b, s in zip(buffers, seats)])
    got = ObservationGather(LAYOUT)(buffers, seats)
    assert got.dtype == np.float32 and np.array_equal(got, expected)


def test_game_names_its_batch_engine():
    assert DabangGame.batch_engine is DabangBatch
