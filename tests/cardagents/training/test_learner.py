"""The learner's settings (issue 20): device, precision and threads resolved with a reason or
refused with a ConfigError naming the field (``cardagents.ppo.compute``), without needing the
hardware (CUDA and the CPU's bf16 instructions are stubbed); bf16 autocast keeps float32 weights,
gradients, optimizer state and checkpoints; learning-rate schedules
(``cardagents.training.schedules``), one per stage, never below their floor; every iteration logs
its learning rate, KL, clip fraction and the seconds of each part."""

import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardagents.ppo import compute  # noqa: E402
from cardagents.ppo.agent import PPOAgent, on_cpu  # noqa: E402
from cardagents.ppo.losses import fit, ppo_loss  # noqa: E402
from cardagents.ppo.net import make_net  # noqa: E402
from cardagents.training import schedules  # noqa: E402
from cardagents.training.config import learning_rate, load_config  # noqa: E402
from cardagents.training.trainer import Trainer  # noqa: E402
from cardenv.core.errors import ConfigError  # noqa: E402
from tests.runs import smoke_run  # noqa: E402


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture
def one_cuda(monkeypatch):
    """As if one CUDA device were there (nothing is run on it)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "Stub GPU")
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)


def cpu_flags(monkeypatch, flags):
    monkeypatch.setattr(compute, "cpu_bf16_flags", lambda: list(flags))


# --- device ------------------------------------------------------------------------------------

def test_auto_device_is_the_cpu_without_cuda(no_cuda):
    device, why = compute.resolve_device("auto")
    assert device == torch.device("cpu") and "no CUDA" in why


def test_auto_device_is_cuda_when_available(one_cuda):
    device, why = compute.resolve_device("auto")
    assert device == torch.device("cuda") and "CUDA is available" in why
    assert compute.resolve_device("cuda:0")[0] == torch.device("cuda:0")


@pytest.mark.parametrize("spec, message", [
    ("cuda", "device 'cuda': CUDA is not available"),
    ("cuda:0", "device 'cuda:0': CUDA is not available"),
    ("gpu", "device must be one of auto, cpu, cuda, cuda:N, got 'gpu'"),
    ("cuda:x", "device must be one of"),
    (0, "device must be one of"),
])
def test_a_device_that_is_not_there_is_a_config_error(no_cuda, spec, message):
    with pytest.raises(ConfigError, match=message):
        compute.resolve_device(spec)


def test_a_cuda_index_past_the_devices_is_a_config_error(one_cuda):
    with pytest.raises(ConfigError, match=r"device 'cuda:1': this machine has 1 CUDA device "):
        compute.resolve_device("cuda:1")


# --- precision ---------------------------------------------------------------------------------

@pytest.mark.parametrize("flags, expected, reason", [
    (["amx_bf16", "avx512_bf16"], "bf16", "AMX_BF16 and AVX512_BF16"),
    (["avx512_bf16"], "bf16", "AVX512_BF16"),
    ([], "fp32", "neither AMX nor AVX512-BF16"),
])
def test_auto_precision_follows_the_cpu(monkeypatch, flags, expected, reason):
    cpu_flags(monkeypatch, flags)
    precision, why = compute.resolve_precision("auto", torch.device("cpu"))
    assert precision == expected and reason in why and why.startswith("precision auto")


def test_auto_precision_on_cuda_asks_the_device(one_cuda, monkeypatch):
    assert compute.resolve_precision("auto", torch.device("cuda"))[0] == "bf16"
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    precision, why = compute.resolve_precision("auto", torch.device("cuda"))
    assert precision == "fp32" and "Stub GPU does not support bf16" in why
    with pytest.raises(ConfigError, match="precision bf16 cannot run on this cuda"):
        compute.resolve_precision("bf16", torch.device("cuda"))


def test_explicit_bf16_without_bf16_instructions_is_a_config_error(monkeypatch):
    cpu_flags(monkeypatch, [])
    with pytest.raises(ConfigError, match="precision bf16 cannot run on this cpu: the CPU has "
                                          "neither AMX nor AVX512-BF16"):
        compute.resolve_precision("bf16", torch.device("cpu"))
    assert compute.resolve_precision("fp32", torch.device("cpu"))[0] == "fp32"
    with pytest.raises(ConfigError, match="precision must be one of auto, fp32, bf16"):
        compute.resolve_precision("fp16", torch.device("cpu"))


# --- threads -----------------------------------------------------------------------------------

def test_auto_threads_are_the_cores_this_process_may_use(monkeypatch):
    monkeypatch.setattr(compute, "available_cores", lambda: 6)
    assert compute.resolve_threads("auto") == (6, "torch_threads auto: the 6 cores this "
                                                   "process may use")
    assert compute.resolve_threads(3)[0] == 3
    for bad in (0, -1, True, 1.5, "two"):
        with pytest.raises(ConfigError, match="torch_threads must be auto or an int >= 1"):
            compute.resolve_threads(bad)


def test_the_threads_context_restores_the_count():
    before = torch.get_num_threads()
    with compute.threads(before + 1):
        assert torch.get_num_threads() == before + 1
    assert torch.get_num_threads() == before


# --- in the config -----------------------------------------------------------------------------

@pytest.mark.parametrize("overrides, message", [
    (["device=cuda"], "config: device 'cuda': CUDA is not available"),
    (["device=tpu"], "config: device must be one of"),
    (["precision=bf16"], "config: precision bf16 cannot run on this cpu"),
    (["precision=half"], "config: precision must be one of auto, fp32, bf16"),
    (["torch_threads=0"], "config: torch_threads must be auto or an int >= 1"),
    (["lr_schedule=step"], "config: lr_schedule must be one of constant, linear, cosine, got "
                           "'step'"),
    (["lr=0.001", "lr_floor=0.01"], "config: lr_floor 0.01 is above the rate lr 0.001"),
    (["lr_floor=-1"], "lr_floor must be null"),
    (["lr_warmup=-5"], "lr_warmup must be an int >= 0"),
    (["stages=[{samples: 100, lr: 0.00001}]", "lr_floor=0.0001"],
     r"stages\[0\]: lr_floor 0.0001 is above the rate lr 1e-05"),
    (["stages=[{samples: 100, lr_schedule: cosin}]"], r"stages\[0\]: lr_schedule must be"),
])
def test_bad_learner_settings_are_config_errors(no_cuda, monkeypatch, overrides, message):
    cpu_flags(monkeypatch, [])
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)


def test_the_defaults_are_auto_and_an_old_anneal_lr_still_reads(no_cuda):
    cfg = load_config(None, [])
    assert (cfg.device, cfg.precision, cfg.torch_threads) == ("auto", "auto", "auto")
    assert cfg.lr_schedule == "linear" and cfg.lr_floor is None
    assert load_config(None, ["anneal_lr=false"]).lr_schedule == "constant"
    assert load_config(None, [], base={"anneal_lr": True}).lr_schedule == "linear"


# --- schedules ---------------------------------------------------------------------------------

@pytest.mark.parametrize("schedule, floor, warmup, done, expected", [
    ("constant", None, 0, 0, 1e-3),
    ("constant", None, 0, 1000, 1e-3),
    ("linear", None, 0, 0, 1e-3),
    ("linear", None, 0, 500, 0.55e-3),  # halfway to the default floor, lr / 10
    ("linear", None, 0, 1000, 1e-4),
    ("linear", None, 0, 5000, 1e-4),  # past the stage's end: the floor, never 0
    ("linear", 0.0, 0, 1000, 0.0),  # a floor of 0 on purpose
    ("cosine", None, 0, 0, 1e-3),
    ("cosine", None, 0, 500, 0.55e-3),
    ("cosine", None, 0, 250, 1e-4 + 0.9e-3 * (1 + math.cos(math.pi / 4)) / 2),
    ("cosine", 2e-4, 0, 1000, 2e-4),
    ("linear", None, 200, 0, 1e-4),  # warm-up from the floor
    ("linear", None, 200, 100, 0.55e-3),
    ("linear", None, 200, 200, 1e-3),  # then the decay over the remaining 800
    ("linear", None, 200, 600, 0.55e-3),
    ("constant", None, 200, 100, 0.55e-3),
])
def test_schedules(schedule, floor, warmup, done, expected):
    assert schedules.rate(schedule, 1e-3, floor, warmup, done, 1000) == pytest.approx(expected)


def test_each_stage_runs_its_own_schedule():
    cfg = load_config(None, [
        "lr=0.001", "stages=[{samples: 1000}, {samples: 3000, lr: 0.0002, lr_schedule: cosine},"
        " {samples: 500, lr_schedule: constant}]"])
    assert learning_rate(cfg, 0) == pytest.approx(1e-3)
    assert learning_rate(cfg, 999) == pytest.approx(1e-4, rel=0.01)
    assert learning_rate(cfg, 1000) == pytest.approx(2e-4)  # the next stage starts at lr
    assert learning_rate(cfg, 2500) == pytest.approx(1.1e-4)  # cosine, halfway
    assert learning_rate(cfg, 4000) == pytest.approx(1e-3)  # constant
    rates = [learning_rate(cfg, s) for s in range(0, 4500, 50)]
    assert min(rates) >= 2e-5 - 1e-12  # never below the lowest floor


# --- bf16 keeps float32 where it matters ---------------------------------------------------------

def minibatch(game="dabang", rows=256, seed=0):
    from cardagents.players.heuristics import heuristic_for
    from cardenv.vector import VectorGame
    games = VectorGame(game, rows, seed=seed)
    obs, masks, states = games.observations(), games.masks(), games.states()
    for _ in range(30):  # into the play
        games.step(heuristic_for(game, seed).act_batch(obs, masks))
        obs, masks, states = games.observations(), games.masks(), games.states()
    rng = np.random.default_rng(seed)
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    return (torch.as_tensor(obs), torch.as_tensor(masks), torch.as_tensor(actions),
            torch.as_tensor(states))


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_bf16_trains_float32_weights_with_a_loss_close_to_fp32(game):
    obs, masks, actions, states = minibatch(game)
    net = make_net(game, [64, 64], "global")
    with torch.no_grad():
        _, logp, values = net.act(obs, masks, greedy=True, state=states)
    adv, ret = torch.randn(len(obs)), torch.randn(len(obs))
    losses = {}
    for precision in ("fp32", "bf16"):
        with compute.autocast(precision):
            loss, parts = ppo_loss(net, obs, masks, actions, logp, adv, ret, clip=0.2,
                                   vf_coef=0.5, ent_coef=0.01, states=states)
        assert loss.dtype == torch.float32
        losses[precision] = parts
    for key in ("policy_loss", "value_loss", "entropy"):
        assert losses["bf16"][key] == pytest.approx(losses["fp32"][key], rel=0.05, abs=0.02)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

    def loss_fn(idx):
        return ppo_loss(net, obs[idx], masks[idx], actions[idx], logp[idx], adv[idx], ret[idx],
                        clip=0.2, vf_coef=0.5, ent_coef=0.01, states=states[idx])

    before = {k: v.clone() for k, v in net.state_dict().items()}
    fit(net, optimizer, len(obs), epochs=1, minibatch=64, generator=torch.Generator(),
        max_grad_norm=0.5, loss_fn=loss_fn, precision="bf16")
    assert all(p.dtype == torch.float32 for p in net.parameters())
    assert all(s[k].dtype == torch.float32 for s in optimizer.state.values()
               for k in ("exp_avg", "exp_avg_sq"))
    assert any(not torch.equal(before[k], v) for k, v in net.state_dict().items())


def test_a_bf16_run_saves_float32_checkpoints_that_load_the_same_in_any_precision(
        tmp_path, monkeypatch):
    # (bf16 autocast runs on any CPU, slowly where it is emulated: allowed here whatever the
    # machine has, so that the test checks the same thing everywhere)
    cpu_flags(monkeypatch, ["avx512_bf16"])
    result = smoke_run(tmp_path, "bf", "precision=bf16", "eval_deals=0")
    saved = torch.load(result["checkpoint"], weights_only=False)
    floats = [v for v in saved["model"].values() if v.is_floating_point()]
    assert floats and all(v.dtype == torch.float32 for v in floats)
    assert all(v.dtype == torch.float32 for s in saved["optimizer"]["state"].values()
               for v in s.values() if torch.is_tensor(v) and v.is_floating_point())
    a = PPOAgent.load(result["checkpoint"], precision="fp32")
    b = PPOAgent.load(result["checkpoint"], precision="bf16")
    assert all(torch.equal(x, y) for x, y in zip(a.net.state_dict().values(),
                                                  b.net.state_dict().values()))
    obs, masks, _, _ = minibatch("dagong", rows=128)
    same = (a.act_batch(obs, masks) == b.act_batch(obs, masks)).mean()
    assert same > 0.9  # the same weights; bf16 may break a few near-ties the other way
    with pytest.raises(ValueError, match="precision must be fp32 or bf16"):
        PPOAgent.load(result["checkpoint"], precision="fp16")


# --- the learner on a device of its own --------------------------------------------------------

def test_a_learner_off_the_cpu_acts_through_a_cpu_copy_synced_after_each_update(tmp_path):
    """What device: cuda changes, checked on the CPU: collection acts with a CPU network of
    its own, which holds the learner's weights after every update, and the checkpoint is on
    the CPU."""
    cfg = load_config("configs/smoke.yaml", [f"run_dir={tmp_path}", "eval_deals=0",
                                                   "imitation_samples=0"])
    trainer = Trainer(cfg)
    learner = trainer.learner
    assert learner.actor is learner.net  # on the CPU they are one network
    learner.actor = learner.make_net()  # as Learner does for a network on another device
    trainer.collector.net = learner.actor
    learner.sync_actor()
    trainer.update(trainer.collect())
    learner, actor = learner.net.state_dict(), learner.actor.state_dict()
    assert all(torch.equal(learner[k], actor[k]) for k in learner)
    assert all(v.device.type == "cpu" for v in on_cpu(
        {"model": learner, "nested": [learner["scale"]]})["model"].values())
    trainer.runlog.close()


# --- what every iteration logs -----------------------------------------------------------------

def test_every_iteration_logs_its_rate_kl_clip_and_where_the_time_went(tmp_path, capsys):
    smoke_run(tmp_path, "t", "eval_deals=0", "curve_every=1", "curve_deals=2",
              "lr_schedule=cosine")
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("learner on cpu, ")  # said first, with the reasons
    assert "precision " in out.splitlines()[0] and "torch_threads auto" in out
    records = [json.loads(line) for line in (tmp_path / "t" / "metrics.jsonl").open()]
    ppo = [r for r in records if r["phase"] == "ppo"]
    assert len(ppo) >= 2
    for r in ppo:
        assert r["lr"] > 0 and r["approx_kl"] >= 0 and 0 <= r["clip_fraction"] <= 1
        assert r["collect_s"] > 0 and r["update_s"] > 0 and r["eval_s"] > 0  # a curve point
        # not a speed bound: the update alone is part of the whole iteration
        assert r["update_samples_per_s"] > r["samples_per_s"] > 0
    assert ppo[0]["lr"] == pytest.approx(3e-4) and ppo[-1]["lr"] < ppo[0]["lr"]
    assert "lr 3.00e-04" in out and "clip " in out and "update " in out
    compute_records = [r for r in records if r["phase"] == "compute"]
    assert compute_records and compute_records[0]["precision"] in ("fp32", "bf16")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    events = EventAccumulator(str(tmp_path / "t" / "tb"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    # TensorBoard names each number as metrics.jsonl does, under its phase (RunLog.log)
    numbers = {f"ppo/{k}" for k, v in ppo[0].items() if k not in ("phase", "samples",
               "imitated", "seconds") and isinstance(v, (int, float))}
    assert {"ppo/collect_s", "ppo/update_s", "ppo/eval_s", "ppo/lr", "ppo/approx_kl",
            "ppo/clip_fraction", "ppo/samples_per_s"} <= numbers == {
        t for t in tags if t.startswith("ppo/")}
    assert any(t.startswith("curve/") for t in tags) and not any(
        t.startswith(("time/", "charts/", "losses/", "eval/")) for t in tags)


@pytest.mark.parametrize("idle_share, cores, machine, expected", [
    (0.5, 2, 2, 2),  # collection held one core of two, the other idle: both are free
    (0.0, 2, 2, 1),  # another process held the other core: one thread
    (0.05, 2, 2, 1),
    (0.40, 2, 2, 2),  # the other core 80% idle counts as free
    (0.75, 8, 8, 7),  # six of eight idle, and collection's own
    (0.95, 4, 16, 4),  # never more than the process's own cores
])
def test_auto_threads_take_the_cores_left_free_while_collecting(idle_share, cores, machine,
                                                                expected):
    """torch_threads auto in one process: the update takes collection's own core and the cores
    the machine left idle while it collected, not those another process kept busy."""
    ticks = iter([(0.0, 0.0), (idle_share * 1000, 1000.0)])
    free = compute.FreeCores(cores, times=lambda: next(ticks), machine_cores=machine)
    free.start()
    assert free.count() == expected


def test_free_cores_fall_back_to_all_where_times_are_unreadable():
    free = compute.FreeCores(3, times=lambda: None)
    free.start()
    assert free.count() == 3
    assert compute.cpu_times() is None or compute.cpu_times()[1] > 0


def test_the_update_threads_are_logged_each_iteration(tmp_path):
    smoke_run(tmp_path, "u", "eval_deals=0", "imitation_samples=0")
    records = [json.loads(line) for line in (tmp_path / "u" / "metrics.jsonl").open()]
    threads = [r["update_threads"] for r in records if r["phase"] == "ppo"]
    assert threads and all(1 <= t <= compute.available_cores() for t in threads)
