"""PPO pieces against small hand-computed cases."""

import numpy as np
import pytest

import torch  # noqa: E402  (the [train] extra; CI installs it)

from cardagents.ppo.agent import PPOAgent
from cardagents.ppo.losses import gae
from cardagents.ppo.losses import ppo_loss  # noqa: E402
from cardagents.ppo.net import PolicyNet  # noqa: E402


def test_gae_hand_computed():
    # rewards [0, 0, 1], values [0.5, 0.2, 0.4], gamma 1, lambda 0.5:
    # deltas 0.6 (t=2), 0.2, -0.3 -> advantages 0.6, 0.2 + 0.5*0.6 = 0.5, -0.3 + 0.5*0.5 = -0.05
    adv, ret = gae([0, 0, 1], [0.5, 0.2, 0.4], gamma=1.0, lam=0.5)
    assert np.allclose(adv, [-0.05, 0.5, 0.6])
    assert np.allclose(ret, [0.45, 0.7, 1.0])


def test_gae_lambda_one_is_the_discounted_return():
    adv, ret = gae([0, 0, 1], [0.5, 0.2, 0.4], gamma=0.9, lam=1.0)
    assert np.allclose(ret, [0.81, 0.9, 1.0])
    assert np.allclose(adv, ret - np.array([0.5, 0.2, 0.4]))


def test_ppo_loss_matches_a_direct_computation():
    torch.manual_seed(0)
    net = PolicyNet(np.ones(4), 3, hidden=(8,))
    obs = torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    masks = torch.tensor([[True, True, False], [True, True, True]])
    actions = torch.tensor([1, 2])
    old_logp = torch.tensor([-0.9, -1.3])
    adv = torch.tensor([1.0, -0.5])
    ret = torch.tensor([0.3, -0.2])
    loss, parts = ppo_loss(net, obs, masks, actions, old_logp, adv, ret,
                           clip=0.2, vf_coef=0.5, ent_coef=0.01)
    with torch.no_grad():
        logits, values = net(obs, masks)
        logp = torch.log_softmax(logits, -1)
        new = logp[torch.arange(2), actions]
        ratio = (new - old_logp).exp()
        clipped = ratio.clamp(0.8, 1.2)
        policy = torch.max(-adv * ratio, -adv * clipped).mean()
        value = 0.5 * ((values - ret) ** 2).mean()
        p = logp.exp()
        entropy = -(p * torch.where(masks, logp, torch.zeros_like(logp))).sum(-1).mean()
    assert parts["policy_loss"] == pytest.approx(policy.item(), rel=1e-5)
    assert parts["value_loss"] == pytest.approx(value.item(), rel=1e-5)
    assert parts["entropy"] == pytest.approx(entropy.item(), rel=1e-5)
    assert loss.item() == pytest.approx((policy + 0.5 * value - 0.01 * entropy).item(), rel=1e-5)
    # the masked action gets no probability
    assert torch.softmax(logits, -1)[0, 2].item() < 1e-12


def test_masked_actions_are_never_chosen():
    torch.manual_seed(1)
    net = PolicyNet(np.ones(5), 6, hidden=(16,))
    obs = torch.rand(200, 5)
    mask = torch.rand(200, 6) < 0.3
    mask[:, 4] = True
    action, logp, value = net.act(obs, mask)
    assert mask[torch.arange(200), action].all() and (logp <= 0).all()
    greedy, _, _ = net.act(obs, mask, greedy=True)
    assert mask[torch.arange(200), greedy].all()


def test_checkpoint_round_trip(tmp_path):
    from cardagents.ppo.net import game_sizes

    _, n, high = game_sizes("dabang")
    net = PolicyNet(high, n, hidden=(32,))
    path = tmp_path / "p.pt"
    torch.save({"game": "dabang", "net": {"hidden": [32]}, "model": net.state_dict()}, path)
    agent = PPOAgent.load(str(path))
    obs = np.random.default_rng(0).random((3, high.size)).astype(np.float32)
    masks = np.zeros((3, n), dtype=np.int8)
    masks[:, [5, 140]] = 1
    assert set(agent.act_batch(obs, masks)) <= {5, 140}
    torch.save({"not": "a checkpoint"}, tmp_path / "bad.pt")
    with pytest.raises(ValueError, match="not a usable cardenv PPO checkpoint: it has no .game."):
        PPOAgent.load(str(tmp_path / "bad.pt"))


def test_ppo_agent_is_always_legal_in_real_games():
    from cardagents.ppo.net import game_sizes
    from cardenv.vector import VectorGame

    for game, options in (("dagong", {}), ("dabang", {"dealer": "random", "levels": "random"})):
        _, n, high = game_sizes(game)
        torch.manual_seed(0)
        agent = PPOAgent(game, PolicyNet(high, n, hidden=(32,)), greedy=False, seed=3)
        games = VectorGame(game, 32, seed=11, options=options)
        for _ in range(150):
            obs, masks = games.observations(), games.masks()
            actions = agent.act_batch(obs, masks)
            assert masks[np.arange(len(actions)), actions].all()
            games.step(actions)


def test_act_samples_the_masked_softmax():
    """PolicyNet.act draws each row's action from the softmax of its legal logits (an
    exponential race over the legal entries only): on 40,000 copies of three rows the
    frequencies match the probabilities of the full masked softmax; greedy takes the most likely
    legal action; the log-probabilities are those of the full masked softmax; a seed repeats
    the draws."""
    from cardagents.ppo.net import MASKED
    torch.manual_seed(3)
    net = PolicyNet(np.ones(6), 50, hidden=(16,))
    obs = torch.rand(3, 6) * 3
    mask = torch.zeros(3, 50, dtype=torch.bool)
    mask[0, [1, 7, 8, 49]] = True
    mask[1, 20] = True
    mask[2, ::3] = True
    copies = 40_000
    big_obs, big_mask = obs.repeat(copies, 1), mask.repeat(copies, 1)
    action, logp, _ = net.act(big_obs, big_mask, generator=torch.Generator().manual_seed(5))
    logits, _ = net(obs, mask)
    full = torch.log_softmax(logits.masked_fill(~mask, MASKED), -1)
    for row in range(3):
        picks = action[row::3]
        assert mask[row, picks].all()
        freq = torch.bincount(picks, minlength=50).double() / copies
        p = full[row].exp().double()
        # within 5 standard errors of each probability
        assert ((freq - p).abs() <= 5 * (p * (1 - p) / copies).sqrt() + 1e-9).all(), row
        assert torch.allclose(logp[row::3], full[row, picks], atol=1e-5)
    again, _, _ = net.act(big_obs, big_mask, generator=torch.Generator().manual_seed(5))
    assert torch.equal(action, again)
    greedy, glogp, _ = net.act(obs, mask, greedy=True)
    assert greedy.tolist() == full.argmax(-1).tolist()
    assert torch.allclose(glogp, full.max(-1).values, atol=1e-5)


def test_act_refuses_a_diverged_network_and_a_row_without_legal_actions():
    net = PolicyNet(np.ones(4), 3, hidden=(8,))
    mask = torch.tensor([[True, False, True]])
    with torch.no_grad():
        net.policy.weight.fill_(float("nan"))
    with pytest.raises(RuntimeError, match="not finite"):
        net.act(torch.ones(1, 4), mask)
    with pytest.raises(ValueError, match="no legal action"):
        PolicyNet(np.ones(4), 3, hidden=(8,)).act(torch.ones(2, 4), torch.tensor(
            [[True, False, False], [False, False, False]]))


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_a_global_critic_sees_hidden_cards_and_the_policy_does_not(game):
    """critic="global": the value reads the global state (every hand), the policy only the
    observation, so changing what is hidden moves the value and never the action
    distribution of a playing agent."""
    from cardagents.ppo.net import make_net
    from cardenv.vector import VectorGame

    torch.manual_seed(0)
    net = make_net(game, [32, 32], "global")
    games = VectorGame(game, 40, seed=3)
    for _ in range(60):  # into the play
        games.step(games.masks().argmax(axis=1))
    obs = torch.as_tensor(games.observations())
    masks = torch.as_tensor(games.masks())
    states = torch.as_tensor(games.states())
    other = states[torch.randperm(len(states))]  # other games' hidden cards
    logits, value = net(obs, masks, states)
    logits2, value2 = net(obs, masks, other)
    assert torch.equal(logits, logits2) and not torch.allclose(value, value2)
    assert net(obs, masks)[1] is None  # no state, no value: acting never needs one
    agent = PPOAgent(game, net, greedy=False, seed=1)
    assert masks[torch.arange(len(obs)), torch.as_tensor(agent.act_batch(obs, masks))].all()


def test_global_critic_checkpoint_round_trip(tmp_path):
    from cardagents.ppo.net import make_net

    net = make_net("dagong", [16], "global")
    path = tmp_path / "g.pt"
    torch.save({"game": "dagong", "net": {"hidden": [16], "critic": "global"},
                "model": net.state_dict()}, path)
    loaded = PPOAgent.load(str(path))
    assert loaded.net.critic == "global"
    for key, value in net.state_dict().items():
        assert torch.equal(loaded.net.state_dict()[key], value)
    with pytest.raises(ValueError, match="critic must be one of"):
        make_net("dagong", [16], "oracle")


def test_a_checkpoint_of_an_earlier_layout_reads_the_leading_entries(tmp_path):
    """Layouts only grow at their end: a network trained on an earlier, shorter observation
    loads and plays on today's observation by reading its prefix, exactly as on the old one;
    one from a longer (newer) layout is refused."""
    from cardagents.ppo.net import make_net
    from cardenv.vector import VectorGame

    game = VectorGame("dagong", 40, seed=2)
    size = game.game.observation_size
    torch.manual_seed(0)
    old = make_net("dagong", [16], obs_size=size - 7)
    path = tmp_path / "old.pt"
    torch.save({"game": "dagong", "net": {"hidden": [16]}, "model": old.state_dict()}, path)
    agent = PPOAgent.load(str(path))
    assert agent.obs_size == size - 7
    obs, masks = game.observations(), game.masks()
    want = old.act(torch.as_tensor(obs[:, :size - 7]), torch.as_tensor(masks), greedy=True)[0]
    assert agent.act_batch(obs, masks).tolist() == want.tolist()
    newer = make_net("dagong", [16])
    newer.scale = torch.ones(size + 3)
    with pytest.raises(ValueError, match="newer cardenv"):
        PPOAgent("dagong", newer)


@pytest.mark.parametrize("critic,density", [("local", 0.003), ("global", 0.003),
                                             ("global", 0.05)])
def test_the_loss_on_legal_actions_equals_the_full_masked_softmax(critic, density):
    """ppo_loss evaluates the policy head at the legal actions only; its loss, parts and
    gradients are those of the full masked softmax (the formula it replaced)."""
    from cardagents.ppo.net import MASKED
    gen = torch.Generator().manual_seed(3)
    n, actions_n = 256, 700
    net = PolicyNet(np.full(30, 2.0), actions_n, hidden=(32, 32),
                    state_high=None if critic == "local" else np.full(40, 3.0))
    obs = torch.rand(n, 30, generator=gen) * 2
    state = torch.rand(n, 40, generator=gen) * 3 if critic == "global" else None
    masks = torch.rand(n, actions_n, generator=gen) < density  # sparse: the legal-only head
    masks[torch.arange(n), torch.randint(actions_n, (n,), generator=gen)] = True
    masks[0, :200] = True  # a row with many legal actions
    probs = masks.float() / masks.sum(1, keepdim=True)
    actions = torch.multinomial(probs, 1, generator=gen).squeeze(1)
    old_logp = -torch.rand(n, generator=gen) * 3
    adv, ret = torch.randn(n, generator=gen), torch.randn(n, generator=gen)

    def dense():  # the full head, masked, as before
        features = net.trunk(obs * net.scale)
        logits = net.policy(features).masked_fill(~masks, MASKED)
        values = net.value(net.critic_trunk(state * net.state_scale) if state is not None
                           else features).squeeze(-1)
        logp_all = torch.log_softmax(logits, -1)
        logp = logp_all.gather(-1, actions[:, None]).squeeze(-1)
        entropy = -(logp_all.exp() * torch.where(masks, logp_all, torch.zeros_like(logp_all))
                    ).sum(-1).mean()
        ratio = (logp - old_logp).exp()
        policy = torch.max(-adv * ratio, -adv * ratio.clamp(0.8, 1.2)).mean()
        return policy + 0.5 * 0.5 * ((values - ret) ** 2).mean() - 0.01 * entropy, entropy

    expected, entropy = dense()
    expected.backward()
    want = {k: p.grad.clone() for k, p in net.named_parameters()}
    net.zero_grad()
    loss, parts = ppo_loss(net, obs, masks, actions, old_logp, adv, ret, clip=0.2,
                           vf_coef=0.5, ent_coef=0.01, states=state)
    loss.backward()
    assert loss.item() == pytest.approx(expected.item(), rel=1e-5, abs=1e-6)
    assert parts["entropy"] == pytest.approx(entropy.item(), rel=1e-5)
    for k, p in net.named_parameters():
        assert torch.allclose(p.grad, want[k], rtol=1e-4, atol=1e-7), k
    with pytest.raises(ValueError, match="not legal"):
        bad = actions.clone()
        bad[1] = int((~masks[1]).nonzero()[0])
        ppo_loss(net, obs, masks, bad, old_logp, adv, ret, clip=0.2, vf_coef=0.5,
                 ent_coef=0.01, states=state)


def _played_batch(game: str, n: int = 48, steps: int = 40):
    """Observations and masks of ``n`` games of ``game`` after ``steps`` random moves."""
    from cardenv.vector import VectorGame

    games = VectorGame(game, n, seed=5)
    rng = np.random.default_rng(5)
    for _ in range(steps):
        masks = games.masks()
        games.step(np.array([rng.choice(np.flatnonzero(row)) for row in masks]))
    return torch.as_tensor(games.observations()), torch.as_tensor(games.masks())


@pytest.mark.parametrize("game", ["dabang", "dagong"])
def test_a_features_head_scores_what_each_legal_action_does(game):
    """head "features" (issue 35): each legal pair's logit is the fixed head's plus a score of
    the game's action features; the legal-only log-probabilities equal the full masked
    softmax, and the score changes the policy only through the features (rows with equal
    observations and masks get equal logits, features that differ change them)."""
    from cardagents.ppo.net import make_net
    from cardenv.games import make_game

    torch.manual_seed(1)
    net = make_net(game, [32], head="features")
    torch.nn.init.normal_(net.action_score[2].weight, std=1.0)  # a score that matters
    obs, mask = _played_batch(game)
    logits, _ = net(obs, mask)
    rows, cols, logp, _ = net.legal_log_probs(obs, mask)
    assert torch.allclose(torch.log_softmax(logits, -1)[rows, cols], logp, atol=1e-5)
    fixed = net.policy(net._trunk(obs)).float()
    score = logits[rows, cols] - fixed[rows, cols]
    table = make_game(game).action_features(obs.numpy(), rows.numpy(), cols.numpy())
    context = torch.tanh(net.context(net._trunk(obs)))[rows]
    want = net.action_score(torch.cat([context, torch.from_numpy(table)], 1)).squeeze(-1)
    assert torch.allclose(score, want, atol=1e-5) and score.abs().max() > 0.01
    action, _, _ = net.act(obs, mask, greedy=True)
    assert mask[torch.arange(len(obs)), action].all()
    # a fresh features head starts close to the fixed head it extends
    fresh = make_net(game, [32], head="features")
    gap = fresh(obs, mask)[0][rows, cols] - fresh.policy(fresh._trunk(obs)).float()[rows, cols]
    assert gap.abs().max() < 0.1


def test_a_features_checkpoint_round_trips_and_old_checkpoints_keep_the_fixed_head(tmp_path):
    from cardagents.ppo.net import make_net

    torch.manual_seed(2)
    net = make_net("dabang", [16], "global", head="features")
    path = tmp_path / "f.pt"
    torch.save({"game": "dabang", "net": {"hidden": [16], "critic": "global",
                                          "head": "features"}, "model": net.state_dict()}, path)
    agent = PPOAgent.load(str(path))
    assert agent.net.head == "features"
    obs, mask = _played_batch("dabang", 16, 30)
    want = net.act(obs, mask, greedy=True)[0]
    assert agent.act_batch(obs.numpy(), mask.numpy()).tolist() == want.tolist()
    # a checkpoint without "head" (before issue 35) is a fixed head
    torch.save({"game": "dabang", "net": {"hidden": [16], "critic": "global"},
                "model": make_net("dabang", [16], "global").state_dict()}, path)
    assert PPOAgent.load(str(path)).net.head == "fixed"
    # a features checkpoint whose weights are a fixed head's, or a bad head name, is refused
    torch.save({"game": "dabang", "net": {"hidden": [16], "critic": "global",
                                          "head": "features"},
                "model": make_net("dabang", [16], "global").state_dict()}, path)
    with pytest.raises(ValueError, match="do not match"):
        PPOAgent.load(str(path))
    torch.save({"game": "dabang", "net": {"hidden": [16], "head": "oracle"},
                "model": make_net("dabang", [16]).state_dict()}, path)
    with pytest.raises(ValueError, match="its head is 'oracle'"):
        PPOAgent.load(str(path))
    with pytest.raises(ValueError, match="head must be one of"):
        make_net("dabang", [16], head="oracle")


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_a_relative_critic_values_the_seat_to_act_the_same_from_every_seat(game, tmp_path):
    # the same position with every seat renumbered (the state as seat k would hold it, turn
    # included) has the same value for its seat to act; a global critic's value moves
    from cardagents.ppo.net import make_net
    from cardenv.games import make_game
    from cardenv.vector import VectorGame
    torch.manual_seed(0)
    games = VectorGame(game, 8, seed=2)
    rng = np.random.default_rng(1)
    for _ in range(30):
        games.step(np.array([rng.choice(np.flatnonzero(row)) for row in games.masks()]))
    states = games.states()
    index = make_game(game).layout.seat_state_index()
    relative, absolute = make_net(game, [32], "relative"), make_net(game, [32], "global")
    with torch.no_grad():
        for k in (1, 2, 3):
            renumbered = torch.as_tensor(states[:, index[k]])
            same = torch.as_tensor(states)
            assert torch.allclose(relative.values(same), relative.values(renumbered), atol=1e-6)
            assert not torch.allclose(absolute.values(same), absolute.values(renumbered))
    # saved and loaded: the rotation is made again from the game, not stored
    path = tmp_path / "r.pt"
    torch.save({"game": game, "net": {"hidden": [32], "critic": "relative"},
                "model": relative.state_dict()}, path)
    assert "state_index" not in relative.state_dict()
    loaded = PPOAgent.load(str(path)).net
    assert loaded.critic == "relative"
    with torch.no_grad():
        assert torch.equal(loaded.values(torch.as_tensor(states)),
                           relative.values(torch.as_tensor(states)))


def test_a_relative_critic_reads_the_whole_state():
    from cardagents.ppo.net import make_net
    with pytest.raises(ValueError, match="relative critic reads the whole global state"):
        make_net("dagong", [16], "relative", state_size=688)
