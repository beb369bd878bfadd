"""A training config's opponents beside heuristic, random and frozen: any player spec
(``cardagents.training.opponents``). A checkpoint opponent plays every row as ``PPOAgent``
plays it (greedy, the same moves), checkpoints of one network shape share one pool, a search
opponent acts on the rows' states, each bad spec is one config error before any game is dealt,
and a resumed run keeps its opponents."""

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardagents.players.lockstep import act_grouped  # noqa: E402
from cardagents.ppo.agent import PPOAgent  # noqa: E402
from cardagents.ppo.frozen import FrozenPool  # noqa: E402
from cardagents.ppo.net import make_net  # noqa: E402
from cardagents.training.collector import Collector  # noqa: E402
from cardagents.training.config import CollectorSettings, load_config  # noqa: E402
from cardagents.training.opponents import make_opponents, opponent_problem  # noqa: E402
from cardenv.core.errors import ConfigError  # noqa: E402
from cardenv.games import make_game  # noqa: E402
from cardenv.vector import VectorGame  # noqa: E402
from tests import ROOT  # noqa: E402
from tests.runs import resume_run, smoke_run  # noqa: E402

SHIPPED = {"dagong": os.path.join(ROOT, "checkpoints", "dagong_ppo.pt"),
           "dabang": os.path.join(ROOT, "checkpoints", "dabang_ppo.pt")}


def save(path, game, seed, hidden=(32, 16), head="fixed", obs_size=None, critic="global"):
    """A playing checkpoint of a small random network with peaked logits (a wrong row or a
    wrong network would show in the moves)."""
    torch.manual_seed(seed)
    net = make_net(game, hidden, critic, head=head, obs_size=obs_size)
    with torch.no_grad():
        net.policy.weight.mul_(200.0)
        if head == "features":
            net.action_score[2].weight.normal_(0.0, 20.0)
    torch.save({"game": game, "options": {}, "model": net.state_dict(),
                "net": {"hidden": list(hidden), "critic": critic, "head": head}}, path)
    return str(path)


def positions(game, seed, n=32):
    """Observations and masks of ``n`` games some way into their hands."""
    rng = np.random.default_rng(seed)
    games = VectorGame(game, n, seed=seed * 100)
    for _ in range(int(rng.integers(0, 60))):
        masks = games.masks()
        games.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    return games.observations(), games.masks()


@pytest.mark.parametrize("game", ["dagong", "dabang"])
@pytest.mark.parametrize("seed", range(3))
def test_checkpoint_opponents_play_every_row_as_ppoagent_does(tmp_path, game, seed):
    prefix = {"dagong": 514, "dabang": 1073}[game]
    paths = [save(tmp_path / "a.pt", game, seed), save(tmp_path / "b.pt", game, seed + 10),
             save(tmp_path / "c.pt", game, seed + 20, head="features"),
             save(tmp_path / "d.pt", game, seed + 30, obs_size=prefix)]
    players = make_opponents(paths, game, seed)
    # a and b share a pool (one network shape); the features head and the prefix have their own
    assert players[paths[0]][0] is players[paths[1]][0]
    assert [players[p][1] for p in paths[:2]] == [0, 1]
    assert len({id(players[p][0]) for p in paths}) == 3
    assert all(isinstance(agent, FrozenPool) and agent.greedy for agent, _ in players.values())
    obs, masks = positions(game, seed)
    rng = np.random.default_rng(seed)
    owner = rng.integers(len(paths), size=len(obs))
    agent_of = {i: players[paths[owner[i]]][0] for i in range(len(obs))}
    snapshots = np.array([players[paths[owner[i]]][1] for i in range(len(obs))])
    actions = np.full(len(obs), -1)
    act_grouped(actions, list(range(len(obs))), agent_of, obs, masks, snapshots=snapshots)
    for k, path in enumerate(paths):
        rows = np.flatnonzero(owner == k)
        if len(rows):
            want = PPOAgent.load(path).act_batch(obs[rows], masks[rows])
            assert (actions[rows] == want).all(), path


def test_the_shipped_agents_as_opponents_play_as_evaluate_plays_them():
    for game, path in SHIPPED.items():
        (pool, index), = make_opponents([path], game, 0).values()
        obs, masks = positions(game, 4, n=16)
        assert (pool.act_batch(obs, masks, np.full(16, index))
                == PPOAgent.load(path).act_batch(obs, masks)).all()


def test_a_collector_plays_checkpoint_and_search_opponents(tmp_path):
    path = save(tmp_path / "opp.pt", "dagong", 1, critic="local")
    learner = make_net("dagong", (32, 16), "local")
    collector = Collector("dagong", 3, learner, lambda: make_net("dagong", (32, 16)),
                          np.random.default_rng(3), torch.Generator().manual_seed(3),
                          {"heuristic": None, "random": None})
    search = "pimc:worlds=1,rollout=random"
    settings = CollectorSettings(game="dagong", num_envs=4, options={},
                                 opponents={path: 0.5, search: 0.5}, gamma=1.0,
                                 gae_lambda=0.95, score_shaping=0.0, critic="local")
    collector.deal(settings, 0)
    seen = set()
    called = {"states": 0}
    searcher = collector.players[search][0]
    act_states = searcher.act_states

    def counting(states):
        called["states"] += len(states)
        return act_states(states)

    searcher.act_states = counting
    batch = collector.collect(150)
    assert len(batch.obs) >= 150
    assert batch.logp.dtype == np.float32  # the policy's own log-probabilities, kept as they are
    seen = {kind for kind, _ in collector.results()}
    assert seen == {path, search}
    assert called["states"] > 0
    assert collector.win_rate(path) is not None
    # what a Ray worker reports after each share: the games finished since it last did
    done, results = collector.results_since(0)
    assert results == collector.results() and done == len(results) > 1
    assert collector.results_since(done) == (done, [])
    assert collector.results_since(done - 1) == (done, collector.results()[-1:])


@pytest.mark.parametrize("make_spec, message", [
    (lambda tmp: str(tmp / "nowhere" / "agent.pt"), r"opponent '.*agent\.pt': no such file"),
    (lambda tmp: "humanist", r"unknown opponent 'humanist'.*an opponent is heuristic"),
    (lambda tmp: "heuristik", r"unknown opponent 'heuristik' \(did you mean 'heuristic'\?\)"),
    (lambda tmp: SHIPPED["dabang"], r"opponent '.*dabang_ppo\.pt': .*plays dabang, not dagong"),
    (lambda tmp: "pimc:worlds=0", r"opponent 'pimc:worlds=0': .*worlds must be an int"),
    (lambda tmp: "pimc:wrolds=3", r"opponent 'pimc:wrolds=3': "),
])
def test_each_bad_opponent_is_one_config_error_before_any_game(tmp_path, make_spec, message):
    spec = make_spec(tmp_path)
    with pytest.raises(ConfigError, match=message) as err:
        load_config(None, ["game=dagong", f"opponents.{spec}=0.5", f"run_dir={tmp_path}"])
    assert "\n" not in str(err.value) and str(err.value).startswith("config: ")


def test_files_that_are_no_usable_checkpoint_are_refused(tmp_path):
    junk = tmp_path / "junk.pt"
    junk.write_text("not a checkpoint")
    assert "is not a cardenv PPO checkpoint" in opponent_problem(str(junk), "dagong")
    # a network reading more of the observation than the game gives (a newer cardenv's)
    torch.manual_seed(0)
    net = make_net("dagong", (8,), "local")
    model = net.state_dict()
    size = make_game("dagong").observation_size
    model["scale"] = torch.ones(size + 5)
    model["trunk.0.weight"] = torch.zeros(8, size + 5)
    newer = tmp_path / "newer.pt"
    torch.save({"game": "dagong", "model": model,
                "net": {"hidden": [8], "critic": "local", "head": "fixed"}}, newer)
    assert "more than dagong's" in opponent_problem(str(newer), "dagong")
    assert opponent_problem(SHIPPED["dagong"], "dagong") is None
    assert opponent_problem("pimc:worlds=2", "dagong") is None
    # a training run's curve opponent is checked the same way
    with pytest.raises(ConfigError, match=r"curve_opponent: opponent '.*newer\.pt'"):
        load_config(None, ["game=dagong", f"curve_opponent={newer}"])
    with pytest.raises(ConfigError, match="curve_opponent cannot be frozen"):
        load_config(None, ["game=dagong", "curve_opponent=frozen"])


def test_the_command_line_takes_specs_with_their_own_equals_signs(tmp_path):
    cfg = load_config(None, ["game=dagong", "opponents.pimc:worlds=2,top_k=2=0.25",
                                   f"opponents.{SHIPPED['dagong']}=0.5"])
    assert cfg.opponents == {"pimc:worlds=2,top_k=2": 0.25, SHIPPED["dagong"]: 0.5}


def test_a_run_against_a_checkpoint_trains_and_resumes_with_its_opponents(tmp_path, capsys):
    path = save(tmp_path / "opp.pt", "dagong", 2, hidden=(64,), critic="local")
    mix = f"opponents={{heuristic: 0.3, '{path}': 0.7}}"
    result = smoke_run(tmp_path, "r", mix, f"curve_opponent={path}", "curve_every=1",
                       "curve_deals=4", "eval_deals=0", "imitation_samples=0")
    out = capsys.readouterr().out
    assert f"win vs {path}" in out and f"curve: PPO vs {path}" in out
    saved = torch.load(tmp_path / "r" / "checkpoint.pt", weights_only=False)
    assert saved["config"]["opponents"] == {"heuristic": 0.3, path: 0.7}
    resumed = resume_run(tmp_path / "r" / "checkpoint.pt",
                         f"total_samples={result['samples'] + 1500}")
    assert resumed["samples"] > result["samples"]
    again = torch.load(tmp_path / "r" / "checkpoint.pt", weights_only=False)
    assert again["config"]["opponents"] == {"heuristic": 0.3, path: 0.7}
    assert again["config"]["curve_opponent"] == path
    import json
    records = [json.loads(line) for line in open(tmp_path / "r" / "metrics.jsonl")]
    assert any(r.get("win_rate_vs_opponent") is not None for r in records
               if r["phase"] == "ppo")
    assert all(r.get("opponent") == path for r in records if r["phase"] == "curve")
