"""Ray scale-out (cardagents.cluster and the remote modules, the [dist] extra): evaluation split
over Ray tasks gives exactly the single-process result; a Ray rollout worker collects exactly what a
local Collector with the same seeds collects; train.py with workers runs, resumes and is
reproducible; a worker killed mid-iteration is replaced and no batch is partial; and the same on a
simulated two-node cluster."""

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the [dist] extra (installed in CI) brings Ray")
torch = pytest.importorskip("torch")

from cardagents.evaluation import remote as evaluation_remote  # noqa: E402
from cardagents.evaluation.evaluate import CHUNK, duplicate  # noqa: E402
from cardagents.players.heuristics import heuristic_for  # noqa: E402
from cardagents.players.random import RandomAgent  # noqa: E402
from cardagents.ppo.agent import PPOAgent  # noqa: E402
from cardagents.ppo.net import make_net  # noqa: E402
from cardagents.specs import make_agent  # noqa: E402
from cardagents.training import remote as training_remote  # noqa: E402
from cardagents.training.collector import Collector  # noqa: E402
from cardagents.training.config import CollectorSettings, load_config  # noqa: E402
from cardagents.training.trainer import Trainer  # noqa: E402
from cardenv.games import make_game  # noqa: E402
from tests.runs import resume_run, smoke_run  # noqa: E402


def smoke(tmp_path, name, *overrides):
    return load_config("configs/smoke.yaml", [f"run_dir={tmp_path}", f"run_name={name}",
                                                    "eval_deals=0", *overrides])


def small_chunks(monkeypatch, size):
    """Evaluations cut into chunks of ``size`` pairs instead of ``CHUNK`` (250): a test plays
    two chunks in a few deals. Both ways of evaluating take their chunks from here, and Ray's
    tasks play the chunks they are sent."""
    from cardagents.evaluation import duplicate as pairs
    from cardagents.evaluation import evaluate

    def cut(deals, seed):
        return pairs.deal_chunks(deals, seed, size)

    monkeypatch.setattr(evaluate, "deal_chunks", cut)
    monkeypatch.setattr(evaluation_remote, "deal_chunks", cut)


# the default run's case in chunks of 4 pairs, the slow ones in cardagents.evaluation.evaluate's
# CHUNK (the property is the chunking's, not CHUNK's; a pair of these games costs about 0.3 s of
# CPU)
@pytest.mark.parametrize("game,a,b,options,seed,chunk", [
    ("dagong", "sampling-ppo", "heuristic", {}, 0, 4),
    pytest.param("dagong", "heuristic", "random", {}, 0, CHUNK, marks=pytest.mark.slow),
    pytest.param("dagong", "random", "random", {}, 7, CHUNK, marks=pytest.mark.slow),
    pytest.param("dabang", "heuristic", "random", {"dealer": "random", "levels": "random"}, 3,
                 CHUNK, marks=pytest.mark.slow),
    pytest.param("dabang", "sampling-ppo", "heuristic", {"blood": "random", "dealer": "random"},
                 11, CHUNK, marks=pytest.mark.slow),
])
def test_evaluation_over_ray_equals_one_process(local_ray, monkeypatch, game, a, b, options,
                                                seed, chunk):
    if chunk != CHUNK:
        small_chunks(monkeypatch, chunk)
    deals = chunk + (37 if chunk == CHUNK else 2)  # two chunks, the second a partial one

    def agent(spec, salt):
        if spec == "sampling-ppo":  # a stochastic network: its draws restart per chunk too
            return PPOAgent(game, make_net(game, (16,)), greedy=False, seed=salt)
        return make_agent(spec, game, seed + salt)

    first, second = agent(a, 0), agent(b, 1)  # the same agents, used twice
    variant = make_game(game, **options)  # the made game travels to the Ray tasks pickled
    one = duplicate(variant, first, second, deals, seed=seed, batch=64)
    many = duplicate(variant, first, second, deals, seed=seed, batch=64, workers=2)
    assert one == many and one["pairs"] == deals
    # the chunking is what makes it so: the same agent objects give the same again (the random
    # player's draws restart with the chunk, whatever its own seed)
    heur = heuristic_for(game, 5)
    assert duplicate(game, heur, RandomAgent(game, 1), 6, options, seed) == \
        duplicate(game, heur, RandomAgent(game, 2), 6, options, seed)


# each case starts an actor (seconds of imports); the default run checks both critics and both
# games in two
@pytest.mark.parametrize("game,seed,critic", [
    ("dagong", 0, "local"), ("dabang", 2, "global"),
    pytest.param("dagong", 5, "global", marks=pytest.mark.slow)])
def test_a_ray_worker_collects_what_a_local_collector_collects(local_ray, game, seed, critic):
    settings = CollectorSettings(game=game, num_envs=8, options={}, critic=critic, gamma=1.0,
                                 gae_lambda=0.95, score_shaping=0.5 if game == "dabang" else 0.0,
                                 opponents={"heuristic": 0.5, "random": 0.25, "frozen": 0.25})
    net = make_net(game, (16,), critic)
    pool = [{k: v + 0.01 for k, v in net.state_dict().items()}]
    weights = {k: v.clone() for k, v in net.state_dict().items()}
    own = training_remote.worker_seed(seed, 1, 0)
    local = Collector(game, seed, net, lambda: make_net(game, (16,), critic),
                      np.random.default_rng(own), torch.Generator().manual_seed(own),
                      {"heuristic": heuristic_for(game, own), "random": RandomAgent(game, own)})
    local.set_pool(pool)
    local.deal(settings, training_remote.first_deal(seed, 1, 0))
    worker = training_remote.RolloutWorker.remote(settings, (16,), seed, 1, 0, pool)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as a worker does: the same float sums in the same order
    try:
        expected_batches = [local.collect(200) for _ in range(2)]
    finally:
        torch.set_num_threads(threads)
    for expected in expected_batches:  # open episodes carry over between calls alike
        packed, results = ray.get(worker.collect.remote(weights, 200))
        got = training_remote.unpack(packed)
        for field in ("obs", "mask", "action", "logp", "value", "adv", "ret", "state",
                      "reward", "lengths"):  # (a global critic's values come later)
            a, b = getattr(expected, field), getattr(got, field)
            assert (a is None and b is None) or np.array_equal(a, b), field
    assert len(results) > 0 and all(kind in ("heuristic", "random", "frozen")
                                    for kind, _ in results)


# the Ray runs' size: two iterations of 500 samples, no imitation (it runs in the driver, Ray or
# not); most of such a run is its actors' start-up
SMALL = ("imitation_samples=0", "rollout_samples=500", "total_samples=1000")
# a run with two workers, its curve points (every iteration) and final evaluations on Ray
WITH_WORKERS = ("eval_deals=1", "workers=2", "critic=global", "curve_every=1", "curve_deals=1",
                *SMALL)


@pytest.fixture(scope="module")
def run_with_workers(local_ray, tmp_path_factory):
    """One run of ``WITH_WORKERS`` (run "a"), for the two tests that look at such a run: its
    result and the records of its metrics.jsonl."""
    run_dir = tmp_path_factory.mktemp("workers")
    result = smoke_run(run_dir, "a", *WITH_WORKERS)
    with (run_dir / "a" / "metrics.jsonl").open() as f:
        records = [json.loads(line) for line in f]
    return run_dir / "a", result, records


def test_training_with_workers_runs_resumes_and_is_reproducible(run_with_workers, tmp_path,
                                                                capsys):
    folder, first, _ = run_with_workers
    again = smoke_run(tmp_path, "b", *WITH_WORKERS)
    assert first["samples"] == again["samples"] >= 1000 and first["iterations"] == 2
    a = torch.load(folder / "final.pt", weights_only=False)
    b = torch.load(tmp_path / "b" / "final.pt", weights_only=False)
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    assert len(a["workers"]) == 2 and all("next_seed" in w for w in a["workers"])
    # the workers' deals are their own: none repeats another's
    assert len({w["next_seed"] for w in a["workers"]}) == 2
    # the second run goes on (the first stays as it was, for the test below), its evaluations
    # checked already
    resumed = resume_run(tmp_path / "b" / "checkpoint.pt",
                         f"total_samples={again['samples'] + 500}", "curve_every=0",
                         "eval_deals=0")
    assert resumed["samples"] >= again["samples"] + 500


def test_a_worker_killed_mid_iteration_is_replaced_and_no_batch_is_partial(local_ray,
                                                                           tmp_path, capsys):
    cfg = smoke(tmp_path, "fault", "workers=2", "imitation_samples=0", "rollout_samples=300",
                "total_samples=900")  # three iterations, the worker killed in the second
    trainer = Trainer(cfg)
    collector = trainer.collector
    sizes, killed = [], []
    collect = collector.collect

    def counted(samples):
        batch = collect(samples)
        sizes.append(len(batch))
        return batch

    def kill_once(col):
        if len(sizes) == 1 and not killed:  # the second iteration, its work just sent
            killed.append(ray.get(col.actors[0].node.remote()))
            ray.kill(col.actors[0], no_restart=True)

    collector.collect, collector.after_dispatch = counted, kill_once
    result = trainer.train()
    assert killed and collector.restarts == 1
    assert "rollout worker 0 lost; replaced" in capsys.readouterr().out
    share = -(-cfg.rollout_samples // 2)
    assert len(sizes) == result["iterations"] == 3 and all(n >= 2 * share for n in sizes)
    assert result["samples"] == sum(sizes) >= 900


@pytest.mark.slow  # starting a second node costs more than the rest of this file's fast run
def test_a_two_node_cluster_trains_and_evaluates_as_one_machine(own_ray, tmp_path,
                                                                monkeypatch):
    """Training places one rollout worker per node and runs; evaluation across two nodes
    equals one process. (The default run checks the same on one node: the tests above.)"""
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    try:
        ray.init(address=cluster.address, logging_level="warning")
        cluster.wait_for_nodes()
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        trainer = Trainer(smoke(tmp_path, "cluster", "workers=2", "imitation_samples=0",
                                      "rollout_samples=500", "total_samples=500"))
        nodes = {ray.get(actor.node.remote()) for actor in trainer.collector.actors}
        assert len(nodes) == 2  # one actor per node: each asks for a whole CPU
        assert trainer.train()["samples"] >= 500
        a, b = make_agent("heuristic", "dagong", 0), make_agent("random", "dagong", 1)
        small_chunks(monkeypatch, 4)  # two chunks at once: a task on each node's one CPU
        assert duplicate("dagong", a, b, 6, workers=2) == duplicate("dagong", a, b, 6)
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_packing_a_batch_for_the_driver_loses_nothing():
    rng = np.random.default_rng(0)
    n = 50
    batch = training_remote.Batch(
        obs=rng.integers(0, 9, (n, 30)).astype(np.float32), mask=rng.random((n, 77)) < 0.2,
        action=rng.integers(0, 77, n), logp=-rng.random(n), value=rng.random(n),
        adv=rng.random(n), ret=rng.random(n), state=rng.random((n, 11)).astype(np.float32))
    packed = training_remote.pack(batch)
    assert packed["obs"].dtype == np.float16  # small counts travel as float16
    assert packed["state"].dtype == np.float32  # fractions do not
    assert packed["mask"].nbytes < batch.mask.nbytes / 7
    back = training_remote.unpack(packed)
    for field in ("obs", "mask", "action", "logp", "value", "adv", "ret", "state"):
        a, b = getattr(batch, field), getattr(back, field)
        assert a.dtype == b.dtype and np.array_equal(a, b), field


def test_curve_evaluations_on_ray_equal_duplicate_and_training_goes_on(run_with_workers,
                                                                       monkeypatch):
    """AsyncEvaluator (train.py's curve points with workers): each evaluation returns exactly
    what duplicate returns, oldest first, once; a run with workers and curve_every logs every
    curve point at the samples whose weights it played, without waiting for it, and its final
    evaluations run as Ray tasks."""
    small_chunks(monkeypatch, 4)  # the first evaluation in two chunks, the second in one
    heur = heuristic_for("dagong", 0)
    agent = RandomAgent("dagong", 3)
    evaluator = evaluation_remote.AsyncEvaluator()
    evaluator.submit("first", make_game("dagong"), agent, heur, 6, seed=5)
    evaluator.submit("second", make_game("dagong"), heur, agent, 3, seed=9)
    got = evaluator.results(wait=True)
    assert [tag for tag, _ in got] == ["first", "second"] and evaluator.results() == []
    assert got[0][1] == duplicate("dagong", agent, heur, 6, {}, seed=5)
    assert got[1][1] == duplicate("dagong", heur, agent, 3, {}, seed=9)
    _, result, records = run_with_workers
    # the final evaluations went to Ray too, and give what one process gives
    precision = next(r for r in records if r["phase"] == "compute")["precision"]
    agent = PPOAgent.load(result["checkpoint"], precision=precision)
    want = duplicate("dagong", agent, heuristic_for("dagong", 1), 1, {}, seed=10_000_001)
    assert {k: v for k, v in result["evaluation"].items() if k != "options"} == want
    curves = [r for r in records if r["phase"] == "curve"]
    ppo = [r for r in records if r["phase"] == "ppo"]
    # one point where PPO starts and one after each iteration, each at its own samples
    assert sorted(r["at_samples"] for r in curves) == [0] + [r["samples"] for r in ppo]
    assert all(r["at_samples"] <= r["samples"] for r in curves)
