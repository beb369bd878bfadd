"""cardagents.ppo.frozen.FrozenPool: the frozen snapshots acting together give, row by row, the
moves and log-probabilities of each snapshot's own PolicyNet (float32), and a game keeps the pool it
was seated with when the pool changes."""

import numpy as np
import pytest
import torch

from cardagents.players.random import RandomAgent
from cardagents.ppo.frozen import FrozenPool
from cardagents.ppo.net import exponential_race, make_net, segment_first_max
from cardagents.training.collector import Collector
from cardagents.training.config import CollectorSettings
from cardenv.vector import VectorGame


def snapshots(game, k, critic="global", head="fixed", obs_size=None):
    nets = []
    for i in range(k):
        torch.manual_seed(100 + i)
        net = make_net(game, (32, 16), critic, head=head, obs_size=obs_size)
        with torch.no_grad():  # peaked policies: a wrong row's logits would show in the moves
            net.policy.weight.mul_(300.0 * (i + 1))
            if head == "features":  # and scores that matter as much as the fixed logits
                net.action_score[2].weight.normal_(0.0, 30.0 * (i + 1))
        nets.append(net)
    return nets


def reference(nets, obs, masks, which, seed):
    """Each row by its snapshot's own PolicyNet (float32), the race drawn as the pool draws
    it: one uniform per legal pair, in row-major order."""
    logps, rows, cols = [], [], []
    for r in range(len(obs)):
        _, c, logp, _ = nets[which[r]].legal_log_probs(torch.as_tensor(obs[r:r + 1]),
                                                       torch.as_tensor(masks[r:r + 1]))
        logps.append(logp.detach())
        rows.append(torch.full((len(c),), r))
        cols.append(c)
    logp, rows, cols = torch.cat(logps), torch.cat(rows), torch.cat(cols)
    score = logp.double() + exponential_race(len(rows), torch.Generator().manual_seed(seed))
    return cols[segment_first_max(rows, score, len(obs))].numpy()


# each kind of network a run may snapshot: the fixed head, the features head, and a trunk that
# reads an earlier layout's observation prefix (a run from an init checkpoint, train.py)
KINDS = {"fixed": {}, "features": {"head": "features"},
         "prefix": {"obs_size": {"dagong": 514, "dabang": 1073}}}


@pytest.mark.parametrize("game", ["dagong", "dabang"])
@pytest.mark.parametrize("kind,seed", [("fixed", s) for s in range(6)]
                         + [(kind, s) for kind in ("features", "prefix") for s in range(3)])
def test_the_pool_plays_each_row_as_its_snapshot(game, seed, kind):
    rng = np.random.default_rng(seed)
    games = VectorGame(game, 24, seed=seed * 1000)
    # some way into the hands: varied masks
    for _ in range(int(rng.integers(0, 40))):
        masks = games.masks()
        games.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    obs, masks = games.observations(), games.masks()
    k = 1 + seed % 5
    options = {key: value[game] if key == "obs_size" else value
               for key, value in KINDS[kind].items()}
    nets = snapshots(game, k, **options)
    which = rng.integers(k, size=len(obs))
    if seed == 0:
        which[:] = k - 1  # one snapshot only, the others idle
    pool = FrozenPool(nets, seed=seed)
    assert len(pool) == k
    got = pool.act_batch(obs, masks, which)
    assert masks[np.arange(len(got)), got].all()
    assert (got == reference(nets, obs, masks, which, seed)).all()


def test_the_pool_ignores_the_learners_autocast_and_checks_its_masks():
    games = VectorGame("dagong", 8, seed=1)
    obs, masks = games.observations(), games.masks()
    nets = snapshots("dagong", 3)
    which = np.arange(8) % 3
    plain = FrozenPool(nets, seed=5).act_batch(obs, masks, which)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        inside = FrozenPool(nets, seed=5).act_batch(obs, masks, which)
    assert (plain == inside).all()
    bad = masks.copy()
    bad[2] = False
    with pytest.raises(ValueError, match="no legal action"):
        FrozenPool(nets, seed=5).act_batch(obs, bad, which)
    with pytest.raises(ValueError, match="at least one snapshot"):
        FrozenPool([], seed=5)


def test_games_keep_the_pool_they_were_seated_with():
    nets = snapshots("dagong", 2, critic="local")
    collector = Collector("dagong", 3, nets[0], lambda: make_net("dagong", (32, 16)),
                          np.random.default_rng(3), torch.Generator().manual_seed(3),
                          {"heuristic": RandomAgent("dagong", 1),
                           "random": RandomAgent("dagong", 2)})
    collector.set_pool([n.state_dict() for n in nets])
    settings = CollectorSettings(game="dagong", num_envs=16, options={},
                                 opponents={"frozen": 0.8, "heuristic": 0.2}, gamma=1.0,
                                 gae_lambda=0.95, score_shaping=0.0, critic="local")
    collector.deal(settings, 0)
    first = collector.frozen
    selfplay = collector.selfplay
    collector.collect(400)  # games end and are seated again, most with the pool
    seated = [i for i in range(16) if selfplay.seating.opponent[i] is first]
    assert seated and set(selfplay.seating.snapshot[seated].tolist()) <= {0, 1}
    assert (selfplay.seating.snapshot[[i for i in range(16) if i not in seated]] == -1).all()
    collector.set_pool([nets[1].state_dict()])  # a new pool: the games running keep the old
    assert [i for i in range(16) if selfplay.seating.opponent[i] is first] == seated
    batch = collector.collect(400)
    assert len(batch.obs) >= 400
    # the games seated since play the new pool's only snapshot
    fresh = [i for i in range(16) if selfplay.seating.opponent[i] is collector.frozen]
    assert fresh and (selfplay.seating.snapshot[fresh] == 0).all()
