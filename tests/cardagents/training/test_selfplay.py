"""cardagents.training.selfplay: GAE over many episodes equals the one-episode GAE bit for bit, and
the array bookkeeping gives what a plain per-(slot, seat) list of transitions gives, on random
streams of decisions, rewards and game ends (no torch, no game)."""

import numpy as np
import pytest

from cardagents.ppo.losses import gae
from cardagents.training.selfplay import Batch, Episodes, gae_batch


def test_gae_batch_equals_gae_of_each_episode():
    rng = np.random.default_rng(0)
    for _ in range(50):
        lengths = rng.integers(1, 40, size=rng.integers(1, 12))
        rewards = rng.normal(size=lengths.sum()) * (rng.random(lengths.sum()) < 0.3)
        values = rng.normal(size=lengths.sum()).astype(np.float32).astype(np.float64)
        gamma, lam = rng.choice([1.0, 0.99]), rng.choice([0.95, 1.0, 0.0])
        adv, ret = gae_batch(rewards, values, lengths, gamma, lam)
        start = 0
        for n in lengths:
            a, r = gae(rewards[start:start + n], values[start:start + n], gamma, lam)
            assert np.array_equal(adv[start:start + n], a)
            assert np.array_equal(ret[start:start + n], r)
            start += n


def test_gae_batch_refuses_mismatched_lengths():
    with pytest.raises(ValueError, match="sum"):
        gae_batch(np.zeros(3), np.zeros(3), [2, 2], 1.0, 1.0)
    adv, ret = gae_batch([], [], [], 1.0, 1.0)
    assert adv.shape == ret.shape == (0,)


class Reference:
    """The bookkeeping as train.py first wrote it: a list of transitions per (slot, seat)."""

    def __init__(self, gamma, lam):
        self.open, self.gamma, self.lam = {}, gamma, lam
        self.ready = {k: [] for k in Batch.FIELDS}

    def record(self, slots, seats, obs, masks, actions, logp, values):
        for row, (i, seat) in enumerate(zip(slots, seats)):
            self.open.setdefault((i, seat), []).append(
                [obs[row], masks[row], int(actions[row]), float(logp[row]), float(values[row]),
                 0.0, 0.0])

    def add_rewards(self, rewards, shaped):
        for i in np.flatnonzero(rewards.any(axis=1) | shaped.any(axis=1)):
            for seat in range(4):
                steps = self.open.get((i, seat))
                if steps:
                    steps[-1][5] += rewards[i, seat]
                    steps[-1][6] += shaped[i, seat]

    def close(self, slots):
        totals = []
        for i in slots:
            total = 0.0
            for seat in range(4):
                steps = self.open.pop((i, seat), None)
                if not steps:
                    continue
                total += sum(s[5] for s in steps)
                adv, ret = gae([s[5] + s[6] for s in steps], [s[4] for s in steps],
                               self.gamma, self.lam)
                for s, a, r in zip(steps, adv, ret):
                    for key, value in zip(Batch.FIELDS[:5], s):
                        self.ready[key].append(value)
                    self.ready["adv"].append(a)
                    self.ready["ret"].append(r)
            totals.append(total)
        return totals

    def take(self):
        out = {k: np.array(v) for k, v in self.ready.items()}
        out["logp"] = out["logp"].astype(np.float32)  # log-probabilities stay the policy's
        self.ready = {k: [] for k in Batch.FIELDS}
        return out


@pytest.mark.parametrize("seed", range(6))
def test_episodes_equal_the_per_seat_lists(seed):
    rng = np.random.default_rng(seed)
    slots, obs_size, actions = int(rng.integers(1, 9)), 5, 7
    gamma, lam = 1.0, float(rng.choice([0.95, 1.0]))
    book, ref = Episodes(slots, obs_size, actions, gamma, lam), Reference(gamma, lam)
    learner = rng.random((slots, 4)) < 0.5
    for step in range(600):
        seats = rng.integers(4, size=slots)
        mine = np.flatnonzero(learner[np.arange(slots), seats])
        if len(mine):
            obs = rng.random((len(mine), obs_size)).astype(np.float32)
            masks = rng.random((len(mine), actions)) < 0.5
            acts = rng.integers(actions, size=len(mine))
            logp = -rng.random(len(mine)).astype(np.float32)  # as the policy gives them
            values = rng.normal(size=len(mine)).astype(np.float32).astype(np.float64)
            for target in (book, ref):
                target.record(mine, seats[mine], obs, masks, acts, logp, values)
        rewards = np.where(rng.random((slots, 4)) < 0.05, rng.normal(size=(slots, 4)), 0.0)
        shaped = np.where(rng.random((slots, 4)) < 0.05, rng.normal(size=(slots, 4)), 0.0)
        book.add_rewards(rewards, shaped)
        ref.add_rewards(rewards, shaped)
        ended = np.flatnonzero(rng.random(slots) < 0.04)
        assert book.close(ended) == ref.close(ended.tolist())
        learner[ended] = rng.random((len(ended), 4)) < 0.5
        if step % 150 == 149:
            got, want = book.take().as_dict(), ref.take()
            for key in Batch.FIELDS:
                assert got[key].dtype == want[key].dtype or len(want[key]) == 0, key
                assert np.array_equal(got[key], want[key].reshape(got[key].shape)), key
    assert book.open_decisions == sum(len(v) for v in ref.open.values())


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_selfplay_collects_complete_learner_episodes(game):
    """A policy that plays uniformly at random, no torch: every row is a legal learner decision
    with what the policy said of it; with values 0 and gamma = lambda = 1 the advantages are
    the returns; the games still running keep their decisions for the next call."""
    from cardagents.players.random import RandomAgent
    from cardagents.training.selfplay import SelfPlay
    from cardenv.vector import VectorGame

    games = VectorGame(game, 6, seed=11)
    chooser = RandomAgent(game, 3)
    calls = []

    def policy(obs, masks):
        calls.append(len(obs))
        actions = chooser.act_batch(obs, masks)
        return actions, np.full(len(obs), -1.0), np.zeros(len(obs))

    play = SelfPlay(games, np.random.default_rng(0), {"random": 1.0},
                    {"random": RandomAgent(game, 4)}, gamma=1.0, lam=1.0)
    batch = play.collect(policy, 300)
    assert len(batch) >= 300 and sum(calls) >= len(batch)
    assert batch.mask[np.arange(len(batch)), batch.action].all()
    assert np.array_equal(batch.adv, batch.ret) and (batch.logp == -1.0).all()
    assert len(play.recent) > 0 and play.win_rate("random") is not None
    assert play.episodes.open_decisions > 0  # the games still running keep their decisions


def test_dabang_shaping_signs_by_side():
    from types import SimpleNamespace

    from cardagents.training.rewards import dabang_score, shaping_for
    assert shaping_for("dabang") is dabang_score
    got = dabang_score(SimpleNamespace(score=200, attackers=1), 0.5)
    assert got.tolist() == [-0.25, 0.25, -0.25, 0.25]


@pytest.mark.parametrize("payoff,expected", [
    ([2, -2, 2, -2], [1.5, -1.5, 1.5, -1.5]),  # a 绑 (x2): the sign alone
    ([-2, 6, -2, -2], [-1.5, 1.5, -1.5, -1.5]),  # 硬牌 won: one against three
    ([-12, 4, 4, 4], [-1.5, 1.5, 1.5, 1.5]),  # 硬牌 lost, doubled by a 摇摆
])
def test_dagong_shaping_rewards_winning_the_hand_whatever_its_multiplier(payoff, expected):
    from types import SimpleNamespace

    from cardagents.training.rewards import dagong_win, shaping_for
    assert shaping_for("dagong") is dagong_win
    assert dagong_win(SimpleNamespace(payoff=payoff), 1.5).tolist() == expected


@pytest.mark.parametrize("game,seed,shaping", [("dagong", 1, 0.0), ("dabang", 4, 0.5),
                                               ("dabang", 9, 0.0)])
def test_values_later_complete_to_the_batch_of_values_at_once(game, seed, shaping):
    """values_later (a global critic's values computed by the learner over the whole batch)
    against values given with each decision, on the same games and draws: the same decisions,
    and once the batch is completed with the critic's values, the same values, advantages and
    returns (up to float rounding: the critic runs on other batch sizes)."""
    torch = pytest.importorskip("torch")
    from cardagents.players.heuristics import heuristic_for
    from cardagents.players.random import RandomAgent
    from cardagents.ppo.net import make_net
    from cardagents.training.rewards import shaping_for
    from cardagents.training.selfplay import SelfPlay
    from cardenv.vector import VectorGame

    net = make_net(game, (32,), "global")
    batches = []
    for later in (False, True):
        generator = torch.Generator().manual_seed(seed)

        def policy(obs, masks, states=None):
            action, logp, value = net.act(torch.as_tensor(obs), torch.as_tensor(masks),
                                          generator=generator,
                                          state=None if states is None else
                                          torch.as_tensor(states))
            return (action.numpy(), logp.numpy().astype(np.float64),
                    None if value is None else value.numpy().astype(np.float64))

        play = SelfPlay(VectorGame(game, 8, seed=seed), np.random.default_rng(seed),
                        {"heuristic": 0.7, "random": 0.3},
                        {"heuristic": heuristic_for(game, seed),
                         "random": RandomAgent(game, seed)},
                        gamma=1.0, lam=0.95, shaping=shaping_for(game),
                        shaping_weight=shaping, with_states=True, values_later=later)
        batches.append([play.collect(policy, 400) for _ in range(2)])
    for direct, pending in zip(*batches):
        assert pending.value is None and pending.adv is None and pending.lengths.sum() == \
            len(pending)
        for field in ("obs", "mask", "action", "logp", "state"):
            assert np.array_equal(getattr(direct, field), getattr(pending, field)), field
        values = net.values(torch.as_tensor(pending.state)).numpy()
        done = pending.with_values(values, 1.0, 0.95)
        for field in ("value", "adv", "ret"):
            assert np.allclose(getattr(direct, field), getattr(done, field), atol=1e-5), field
        merged = Batch.concat([pending, pending], 1, 1, 1)
        assert np.array_equal(merged.lengths, np.concatenate([pending.lengths] * 2))


@pytest.mark.parametrize("game,seed", [("dagong", 2), ("dagong", 7), ("dabang", 3)])
def test_deal_pairs_reward_each_pair_as_the_duplicate_evaluation_counts_it(game, seed):
    """pair_bonus: twin slots hold the same deal with the learner on the two sides and the same
    opponent; a pair closes when both games are over, each learner seat's last decision in
    both carrying pair_bonus * sign(the learner's summed rewards over the two games); then
    both slots take the next deal, paired again."""
    from cardagents.players.heuristics import heuristic_for
    from cardagents.players.random import RandomAgent
    from cardagents.players.lockstep import partnership
    from cardagents.training.selfplay import SelfPlay
    from cardenv.vector import VectorGame

    games = VectorGame(game, 6, seed=seed, refill=False)
    chooser = RandomAgent(game, seed)

    def policy(obs, masks):
        return chooser.act_batch(obs, masks), np.zeros(len(obs)), np.zeros(len(obs))

    play = SelfPlay(games, np.random.default_rng(seed), {"heuristic": 0.5, "random": 0.5},
                    {"heuristic": heuristic_for(game, seed), "random": RandomAgent(game, 1)},
                    gamma=1.0, lam=1.0, pair_bonus=100.0)
    book, seating = play.episodes, play.seating

    def check_paired():
        for k in range(len(games) // 2):
            a, b = 2 * k, 2 * k + 1
            assert games.seeds[a] == games.seeds[b]
            assert seating.opponent[a] is seating.opponent[b] and play.kind[a] == play.kind[b]
            sides = [sorted(side) for side in partnership(games.slots[a])]
            got = sorted([sorted(np.flatnonzero(seating.learner[s]).tolist()) for s in (a, b)])
            assert got == sorted(sides)

    check_paired()
    closed, original = [], book.close

    def close(slots):
        slots = np.asarray(slots)
        assert len(slots) % 2 == 0 and (slots[0::2] % 2 == 0).all()
        assert (slots[1::2] == slots[0::2] + 1).all()
        live = book.owner[:book.size]
        for a in slots[0::2].tolist():
            seats = {s: np.flatnonzero(seating.learner[s]) for s in (a, a + 1)}
            ids = {(s, seat): live == book.episode[s, seat] for s in seats for seat in seats[s]}
            score = sum(book.reward[:book.size][m].sum() for m in ids.values())
            bonus = 100.0 * np.sign(score)
            for (s, seat), m in ids.items():
                if m.any():  # the bonus, on the seat's last decision, and nothing else
                    shaped = book.shaped[:book.size][m]
                    assert shaped[-1] == bonus and not shaped[:-1].any()
            closed.append(score)
        return original(slots)

    book.close = close
    batch = play.collect(policy, 1500)
    assert len(batch) >= 1500 and len(closed) >= 3
    assert play.games_done == 2 * len(closed)
    check_paired()  # the slots refilled with the next deals, paired again
