"""Bad inputs get one clear line naming them, never a foreign exception (issue 21, item 2).

One row per case the probe found: the input, the entry point, the expected error class (or, for
a command line, exit status 2 and a single line on standard error without a traceback) and a
fragment of the message. Commands run in process (``main(argv)``) where they can, in a
subprocess where the point is the process itself (a closed pipe, ``python -m``). Nothing here
plays a real evaluation or starts a Ray cluster: the output paths and the Ray address are
checked before any game.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

from cardenv import records, text
from cardenv.core.errors import ConfigError, StateError
from cardenv.moves import parse_move
from cardenv.games import make_game
from cardenv.records import RecordError
from cardenv.vector import VectorGame

ROOT = pathlib.Path(__file__).resolve().parents[1]


# --- files the rows read -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Bad record files, a good record, and a plain file where a folder is expected."""
    folder = tmp_path_factory.mktemp("bad_inputs")
    out = {"dir": folder}
    out["deep"] = folder / "deep.json"
    out["deep"].write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    out["big"] = folder / "big.json"
    with open(out["big"], "wb") as f:  # sparse: no 16 MiB written
        f.truncate(records.MAX_BYTES + 1)
    out["digits"] = folder / "digits.json"
    out["digits"].write_text('{"seed": ' + "1" * 5000 + "}", encoding="utf-8")
    out["file"] = folder / "a_file"
    out["file"].write_text("not a folder", encoding="utf-8")
    state = make_game("dagong").new_state(3)
    rng = np.random.default_rng(0)
    while not state.is_over:
        state.apply(int(rng.choice(state.legal_actions())))
    out["good"] = folder / "good.json"
    records.save(records.record_of(state, ["random"] * 4), out["good"])
    result = {"game": "dagong", "agent_a": "random", "agent_b": "random", "pairs": 1,
              "win_rate": "x", "win_rate_ci95": [0.1, 0.9], "mean_payoff_per_game": 0.0,
              "mean_payoff_ci95": [-1, 1], "wins": 0, "ties": 1, "losses": 0, "seconds": 1.0}
    out["result"] = folder / "result.json"
    out["result"].write_text(json.dumps(result), encoding="utf-8")
    out["run"] = folder / "run"
    out["run"].mkdir()
    (out["run"] / "metrics.jsonl").write_text('{"phase": "curve"}\n', encoding="utf-8")
    return out


# --- library entry points: (case, call, error class, message fragment) -------------------------

def _vector_step(actions):
    games = VectorGame("dagong", 8, seed=0)
    legal = [int(np.flatnonzero(row)[0]) for row in games.masks()]
    games.step(actions(legal))


def _saved(name, **changes):
    """``state_from_dict`` of a saved start position of ``name`` with ``changes``."""
    return make_game(name).state_from_dict({**make_game(name).new_state(0).to_dict(), **changes})


LIBRARY = [
    ("1 record nested 10**5 deep", lambda f: records.load(f["deep"]), RecordError,
     "nests deeper than 64 levels"),
    ("1 record over the size limit", lambda f: records.load(f["big"]), RecordError,
     "larger than 16,777,216 bytes"),
    ("1 record with a 5000-digit number", lambda f: records.load(f["digits"]), RecordError,
     "digits.json: not a game record"),
    ("6 True in an action list", lambda f: _vector_step(lambda a: [True] + a[1:]), ValueError,
     "slot 0: action must be an int, got True"),
    ("6 np.True_ in slot 2", lambda f: _vector_step(lambda a: a[:2] + [np.True_] + a[3:]),
     ValueError, "slot 2: action must be an int"),
    ("6 2**70 in slot 5", lambda f: _vector_step(lambda a: a[:5] + [2 ** 70] + a[6:]),
     ValueError, f"slot 5: action {2 ** 70} is outside 0..2418"),
    ("6 uint64 2**64-1 in slot 3", lambda f: _vector_step(
        lambda a: np.array(a[:3] + [2 ** 64 - 1] + a[4:], dtype=np.uint64)), ValueError,
     f"slot 3: action {2 ** 64 - 1} is outside"),
    ("6 a bool array", lambda f: _vector_step(lambda a: np.ones(8, dtype=bool)), ValueError,
     "slot 0: action must be an int"),
    ("6 batched='no'", lambda f: VectorGame("dagong", 2, batched="no"), ValueError,
     "batched must be true or false, got 'no'"),
    ("6 keep_history=1", lambda f: VectorGame("dagong", 2, keep_history=1), ValueError,
     "keep_history must be true or false, got 1"),
    ("7 dagong hands=10**30", lambda f: make_game("dagong", hands=10 ** 30), ConfigError,
     "expected an int in 1..1000"),
    ("7 dagong solo_multiplier=101", lambda f: make_game("dagong", solo_multiplier=101),
     ConfigError, "solo_multiplier=101 is invalid; expected an int in 1..100"),
    ("7 dabang max_hands=1001", lambda f: make_game("dabang", episode="match", max_hands=1001),
     ConfigError, "max_hands=1001 is invalid; expected None or an int in 1..1000"),
    ("7 dabang blood=801", lambda f: make_game("dabang", dealer=0, blood=801), ConfigError,
     "blood=801 is invalid; expected an int in 0..800 or 'random'"),
    ("8 a bool is not a count", lambda f: make_game("dagong", hands=True), ConfigError,
     "hands=True is invalid"),
    ("8 nor is np.True_", lambda f: make_game("dagong", hands=np.True_), ConfigError,
     "hands=np.True_ is invalid"),
    ("8 nor an int a bool", lambda f: make_game("dagong", allow_solo=1), ConfigError,
     "allow_solo=1 is invalid"),
    ("8 VectorGame num_envs=True", lambda f: VectorGame("dagong", True), ValueError,
     "num_envs must be an int"),
    # the probe's second pass (issue 21): each row a case that failed
    ("a number too large for a float", lambda f: make_game("dabang", deal_value=10 ** 400),
     ConfigError, "deal_value=1000"),
    ("observation of seat 4", lambda f: make_game("dagong").new_state(0).observation(4),
     ValueError, "seat must be an int in 0..3, got 4"),
    ("observation of seat True", lambda f: make_game("dabang").new_state(0).observation(True),
     ValueError, "seat must be an int in 0..3, got True"),
    ("text.render seat 5", lambda f: text.render(make_game("dabang").new_state(0), seat=5),
     ValueError, "seat must be an int in 0..3"),
    ("text.seat_view seat '0'", lambda f: text.seat_view(make_game("dagong").new_state(0), "0"),
     ValueError, "seat must be an int in 0..3, got '0'"),
    ("text.move_text 10**30", lambda f: text.move_text(make_game("dagong").new_state(0),
                                                         10 ** 30),
     ValueError, "action must be an int in 0..2418"),
    ("text.explain a junk result", lambda f: text.explain(make_game("dagong").new_state(0),
                                                          {"x": 1}, 0),
     StateError, "result is not one of this state's hand results"),
    ("parse_move None", lambda f: parse_move(make_game("dagong").new_state(0), None, str),
     ValueError, "a move is typed as text, got None"),
    ("parse_move 5000 digits", lambda f: parse_move(make_game("dagong").new_state(0),
                                                    "9" * 5000, str),
     ValueError, "is not in the list"),
    ("VectorGame num_envs=10**12", lambda f: VectorGame("dagong", 10 ** 12), ValueError,
     "num_envs must be an int in 1..65536"),
    ("VectorGame seed past the last seed", lambda f: VectorGame("dagong", 2, seed=2 ** 63 - 1),
     ValueError, "seed must be an int in 0..9223372036854775806"),
    ("VectorGame seeds=5", lambda f: VectorGame("dagong", seeds=5), ValueError,
     "seeds must be a list"),
    ("34.6 VectorGame(game=None)", lambda f: VectorGame(None, 2), ValueError,
     "game must be a registered game's name (dagong, dabang"),
    ("34.6 VectorGame(game=a module)", lambda f: VectorGame(np, 2), ValueError,
     "a made game (make_game(name)) or a list of made games, got <module 'numpy'"),
    ("34.6 VectorGame(game=a state)", lambda f: VectorGame(make_game("dagong").new_state(0), 2),
     ValueError, "game must be a registered game's name"),
    ("VectorGame options with an int key", lambda f: VectorGame("dagong", 2, options={1: 2}),
     ValueError, "option names (strings) as keys"),
    ("VectorGame observations of seat 5", lambda f: VectorGame("dagong", 2).observations([5, 5]),
     ValueError, "seats[0] must be an int in 0..3, got 5"),
    ("VectorGame variant(5)", lambda f: VectorGame("dagong", 2).variant(5), ValueError,
     "slot must be an int in 0..1, got 5"),
    # saved states are recipes, replayed when read (issue 22)
    ("dagong saved state with an edited seed", lambda f: _saved("dagong", seed=1),
     StateError, "its recipe replays to another position"),
    ("dabang saved state with an edited seed", lambda f: _saved("dabang", seed=1),
     StateError, "its recipe replays to another position"),
    ("dagong saved state with 10**5 steps", lambda f: _saved("dagong", history=[0] * 10 ** 5),
     StateError, "history[0]: illegal action 0 (pass) for player_"),
    ("dabang saved state with a step 404", lambda f: _saved("dabang", history=[404]),
     StateError, "history[0] must be an int in 0..403, got 404"),
    ("dabang saved state with a deal 'x'", lambda f: _saved("dabang", deal="x"), StateError,
     "deal must be null (a seeded game) or a dict, got 'x'"),
    ("dagong saved state with seed 10**30", lambda f: _saved("dagong", seed=10 ** 30),
     StateError, "seed must be an int in 0..9223372036854775807"),
    ("dagong saved state of a list", lambda f: make_game("dagong").state_from_dict([1]),
     StateError, "expected a dict, got list"),
    ("records.load(None)", lambda f: records.load(None), RecordError,
     "a record is read from a file path, got None"),
    ("records.load a NUL in the name", lambda f: records.load("a\0b.json"), RecordError,
     "no such file"),
    ("records.load verify='no'", lambda f: records.load(f["good"], verify="no"), RecordError,
     "verify must be true or false, got 'no'"),
]


@pytest.mark.parametrize("case, call, error, fragment", LIBRARY, ids=[r[0] for r in LIBRARY])
def test_library_entry_points_refuse_with_one_line(files, case, call, error, fragment):
    with pytest.raises(error) as info:
        call(files)
    message = str(info.value)
    assert type(info.value) is not RecursionError and fragment in message, message
    assert "\n" not in message


@pytest.mark.parametrize("action", [True, np.True_, None, "1", 1.0, np.float64(0),
                                    np.array([0]), -1, 10 ** 30])
def test_is_legal_is_false_for_what_is_no_action(action):
    """A predicate: no exception, and ``True`` is not action 1 (Dabang's said it was)."""
    for name in ("dagong", "dabang"):
        assert make_game(name).new_state(0).is_legal(action) is False


def test_a_recorded_true_is_not_the_engine_s_1():
    """A Dabang record whose result says ``"defenders": true`` where the engine gives 1
    replayed as if it matched (``True == 1``)."""
    state = make_game("dabang").new_state(2)
    rng = np.random.default_rng(1)
    while not state.is_over:
        state.apply(int(rng.choice(state.legal_actions())))
    data = json.loads(records.dumps(records.record_of(state, ["random"] * 4)))
    assert data["results"][0]["defenders"] == 1
    data["results"][0]["defenders"] = True
    with pytest.raises(RecordError, match=r"\['defenders'\] is True in the record but 1"):
        records.check(records.GameRecord.from_dict(data))


def test_unknown_agents_seats_and_request_bodies():
    from cardenv import dagong_v0
    from cardenv.web.server import App

    env = dagong_v0.env()
    env.reset(seed=0)
    for agent in ("nobody", None, 5):
        with pytest.raises(ValueError, match="unknown agent .*: the agents are player_0"):
            env.unwrapped.observe(agent)
        with pytest.raises(ValueError, match="unknown agent"):
            env.unwrapped.observation_space(agent)
    state = make_game("dabang").new_state(0)
    with pytest.raises(ValueError, match="seat must be an int in 0..3 or None, got 9"):
        text.why_illegal(state, 0, seat=9)
    with pytest.raises(ConfigError, match="lang must be one of"):
        text.why_illegal(state, state.legal_actions()[0], lang="xx")
    app = App(checkpoints=[], checkpoint_dir="checkpoints", records_dir="records", max_games=2,
              save_records=False)
    for body in (b"[" * 100_000 + b"]" * 100_000, b'{"seed": ' + b"9" * 5000 + b"}"):
        status, _, answer = app.handle("POST", "/api/games", body)
        assert status == 400 and b"not a usable JSON object" in answer, answer


def test_single_agent_reset_checks_the_seed_itself():
    pytest.importorskip("gymnasium")
    from cardenv.single_agent import SingleAgentEnv

    env = SingleAgentEnv("dagong")
    for seed, fragment in [(-1, "got -1"), (1.5, "got 1.5"), (True, "got True")]:
        with pytest.raises(ValueError, match="seed must be an int in 0..") as info:
            env.reset(seed=seed)
        assert fragment in str(info.value) and type(info.value) is ValueError
    assert env.reset(seed=np.uint64(3))[1]["deal_seed"] == 3


def test_checkpoint_entries_are_checked_before_the_network_is_built(tmp_path):
    """Hidden sizes of 10**12 asked torch for petabytes; int tensors loaded silently; a seed
    of 2**64 was torch's 'Overflow when unpacking long long'."""
    torch = pytest.importorskip("torch")
    ppo = pytest.importorskip("cardagents.ppo.agent")
    real = torch.load(ROOT / "checkpoints" / "dagong_ppo.pt", weights_only=True)
    for name, data, fragment in [
            ("huge", {**real, "net": {**real["net"], "hidden": [10 ** 12]}}, "hidden sizes"),
            ("ints", {**real, "model": {k: v.long() for k, v in real["model"].items()}},
             "holds int64, not floating-point"),
    ]:
        path = tmp_path / f"{name}.pt"
        torch.save(data, path)
        with pytest.raises(ppo.CheckpointError, match=fragment):
            ppo.PPOAgent.load(str(path))
    for kw, fragment in [({"seed": 2 ** 64}, "seed must be an int"),
                         ({"greedy": "no"}, "greedy must be true or false")]:
        with pytest.raises(ValueError, match=fragment):
            ppo.PPOAgent.load(str(ROOT / "checkpoints" / "dagong_ppo.pt"), **kw)


def test_train_resume_of_a_partial_checkpoint_is_one_line(tmp_path, capsys):
    """A checkpoint with a config and nothing else was a KeyError traceback out of Trainer."""
    torch = pytest.importorskip("torch")
    import yaml

    config = yaml.safe_load((ROOT / "configs" / "smoke.yaml").read_text(encoding="utf-8"))
    torch.save({"config": config}, tmp_path / "partial.pt")
    with pytest.raises(SystemExit) as info:
        _main("train")(["--resume", str(tmp_path / "partial.pt"), f"run_dir={tmp_path}"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "Traceback" not in err, err
    assert "cannot resume: not a complete training checkpoint (KeyError: 'model')" in err


def test_numpy_scalars_read_as_the_python_values_they_stand_for():
    """Item 8: np.bool_ is a bool, np.int64 an int, in make_game, env(), VectorGame."""
    from cardenv import dagong_v0

    game = make_game("dagong", allow_solo=np.False_, hands=np.int64(2))
    assert game.options["allow_solo"] is False and type(game.options["hands"]) is int
    env = dagong_v0.env(allow_solo=np.False_, xiqian=np.True_)
    assert env.unwrapped.game.options["allow_solo"] is False
    games = VectorGame("dagong", np.int64(2), seed=np.int64(0),
                       options={"allow_solo": np.False_}, batched=np.False_,
                       keep_history=np.True_)
    assert games.game.options["allow_solo"] is False and games.keep_history is True
    assert make_game("dabang", joker_levels=np.False_).options["joker_levels"] is False


# --- command lines: (case, main's module, argv, message fragment) ------------------------------

def _main(module: str):
    if module == "train":
        sys.path.insert(0, str(ROOT))
        import train
        return train.main
    import importlib
    return importlib.import_module(module).main


CLI = [
    ("2 train override hidden=[64,", "train", ["hidden=[64,"],
     "override 'hidden=[64,': '[64,' is not a YAML value"),
    ("2 train override with an unclosed string", "train", ['lr="a'], "is not a YAML value"),
    ("2 train override with a python tag", "train", ["hidden=!!python/object:os.system"],
     "could not determine a constructor"),
    ("2 train override without a key", "train", ["=5"], "override '=5' must look like key=value"),
    ("2 train override options.=3", "train", ["options.=3"], "needs a name"),
    ("2 train options.x over a non-mapping", "train", ["options=5", "options.hands=2"],
     "options is not a mapping"),
    ("2 train run_dir of the wrong type", "train", ["run_dir=5"], "run_dir must be a folder"),
    ("3 train run folder under a file", "train", ["run_dir={file}/runs"],
     "cannot create the folder"),
    ("3 evaluate --out in a missing folder", "cardagents.evaluation.evaluate",
     ["dagong", "heuristic", "random", "--deals", "1", "--out", "/nonexistent/dir/x.json"],
     "--out /nonexistent/dir/x.json: the folder /nonexistent/dir does not exist"),
    ("3 evaluate --out a folder", "cardagents.evaluation.evaluate",
     ["dagong", "heuristic", "random", "--deals", "1", "--out", "{dir}"], "a folder, not a file"),
    ("3 evaluate --records a file", "cardagents.evaluation.evaluate",
     ["dagong", "heuristic", "random", "--deals", "1", "--records", "{file}"],
     ": not a folder"),
    ("evaluate --seed -1", "cardagents.evaluation.evaluate",
     ["dagong", "heuristic", "random", "--seed", "-1"],
     "--seed must be in 0..4294967295, got -1"),
    ("3 play --record a file", "cardenv.play",
     ["dagong", "--agents", "random,random,random,random", "--record", "{file}"],
     "--record {file}: not a folder"),
    ("9 play random mode, unknown option", "cardenv.play", ["dagong", "--set", "hnads=2"],
     "unknown option 'hnads' (did you mean 'hands'?)"),
    ("9 play random mode, bad value", "cardenv.play", ["dagong", "--set", "hands=0"],
     "option hands=0 is invalid"),
    ("9 play --seed out of range", "cardenv.play", ["dagong", "--seed", "-1", "--games", "0"],
     "--seed must be in 0..4294967295"),
    ("1 replay a record nested 10**5 deep", "cardenv.replay", ["{deep}"],
     "nests deeper than 64 levels"),
    ("3 curves --out a folder", "cardagents.training.curves", ["{dir}", "--out", "{dir}"],
     "a folder, not a file"),
    # the probe's second pass (issue 21)
    ("play --delay -1", "cardenv.play", ["dagong", "--agents", "random,random,random,random",
                                         "--delay", "-1"], "--delay must be a number of seconds"),
    ("play --delay nan", "cardenv.play", ["dagong", "--agents", "random,random,random,random",
                                          "--delay", "nan"], "got nan"),
    ("play --games 10**30", "cardenv.play", ["dagong", "--games", str(10 ** 30)],
     "--games must be in 0..1,000,000"),
    ("play --set deal_value=10**400", "cardenv.play",
     ["dabang", "--set", "deal_value=1" + "0" * 400], "option deal_value=1000"),
    ("play --record ''", "cardenv.play", ["dagong", "--agents", "random,random,random,random",
                                          "--record", ""], "the folder name is empty"),
    ("replay a NUL in the name", "cardenv.replay", ["a\0b"], "no such file"),
    ("web --max-games 10**30", "cardenv.web.__main__", ["--max-games", str(10 ** 30)],
     "--max-games must be in 1..10000"),
    ("web --max-connections 10**30", "cardenv.web.__main__",
     ["--max-connections", str(10 ** 30)], "--max-connections must be in 1..1024"),
    ("web --timeout 1e300", "cardenv.web.__main__", ["--timeout", "1e300"],
     "--timeout must be a number of seconds in (0, 3600]"),
    ("web --records a file", "cardenv.web.__main__", ["--records", "{file}"],
     "not a folder"),
    ("web --checkpoints a file", "cardenv.web.__main__", ["--checkpoints", "{file}"],
     "not a folder"),
    ("web --checkpoint with a NUL", "cardenv.web.__main__", ["--checkpoint", "a\0b"],
     "no NUL character"),
    ("bench --seconds nan", "cardenv.bench", ["dagong", "--seconds", "nan"],
     "--seconds must be in (0, 86400], got nan"),
    ("cardagents bench --envs 10**12", "cardagents.bench.players",
     ["dagong", "--envs", str(10 ** 12)],
     "--envs must be in 1..65536"),
    ("cardagents bench --threads 10**9", "cardagents.bench.players",
     ["dagong", "--threads", str(10 ** 9)],
     "--threads must be in 1..1024"),
    ("cardagents bench --seconds inf", "cardagents.bench.players",
     ["dagong", "--seconds", "inf"], "got inf"),
    ("evaluate --deals 10**30", "cardagents.evaluation.evaluate",
     ["dagong", "random", "random", "--deals", str(10 ** 30)],
     "--deals must be >= 1 (at most 100,000,000)"),
    ("evaluate --threads 10**9", "cardagents.evaluation.evaluate",
     ["dagong", "random", "random", "--threads", str(10 ** 9)],
     "--threads must be >= 1 (at most 1024)"),
    ("evaluate --out ''", "cardagents.evaluation.evaluate",
     ["dagong", "random", "random", "--out", ""],
     "the file name is empty"),
    ("evaluate --records with a NUL", "cardagents.evaluation.evaluate",
     ["dagong", "random", "random", "--records", "a\0b"], "no NUL character"),
    ("report a field of the wrong type", "cardagents.evaluation.report", ["{result}"],
     "is not a cardagents evaluate result (win_rate is 'x')"),
    ("report a file without end", "cardagents.evaluation.report", ["/dev/zero"],
     "larger than 1,048,576 bytes"),
    ("curves a file without end", "cardagents.training.curves",
     ["/dev/zero", "--out", "{dir}/c.png"],
     "not a metrics log (larger than 268,435,456 bytes)"),
    ("curves a curve record without samples", "cardagents.training.curves",
     ["{run}", "--out", "{dir}/c.png"],
     "phase 'curve': no 'samples'"),
    ("train an opponent checkpoint that is not there", "train",
     ["opponents.{dir}/none.pt=0.5"], "none.pt': no such file"),
    ("train an opponent checkpoint of the other game", "train",
     ["opponents.checkpoints/dabang_ppo.pt=0.5"], "plays dabang, not dagong"),
    ("train an opponent file that is no checkpoint", "train",
     ["opponents.{file}=0.5"], "is not a cardenv PPO checkpoint"),
    ("train a search opponent that does not parse", "train",
     ["opponents.pimc:worlds=0=0.5"], "worlds must be an int"),
    ("train curve_opponent frozen", "train", ["curve_opponent=frozen"], "cannot be frozen"),
    ("exploit TARGET frozen", "cardagents.training.exploit", ["dagong", "frozen"],
     "cannot be a target"),
    ("exploit TARGET missing", "cardagents.training.exploit", ["dagong", "{dir}/none.pt"],
     "no such file"),
    ("exploit TARGET of the other game", "cardagents.training.exploit",
     ["dagong", "checkpoints/dabang_ppo.pt"], "plays dabang, not dagong"),
    ("exploit --start target of random", "cardagents.training.exploit",
     ["dagong", "random", "--start", "target"], "random is no PPO checkpoint"),
    ("exploit --samples 0", "cardagents.training.exploit", ["dagong", "random", "--samples", "0"],
     "--samples must be >= 1"),
    ("exploit --deals 0", "cardagents.training.exploit", ["dagong", "random", "--deals", "0"],
     "--deals must be in"),
    ("exploit --eval-seed in training's deals", "cardagents.training.exploit",
     ["dagong", "random", "--eval-seed", "1000003", "--out", "{dir}/ex"],
     "overlap the PPO games of training"),
    ("exploit --out under a file", "cardagents.training.exploit",
     ["dagong", "random", "--out", "{file}/ex"], "--out {file}/ex"),
    ("exploit a bad override", "cardagents.training.exploit",
     ["dagong", "random", "num_envs=-3", "--out", "{dir}/ex"], "num_envs must be"),
    ("exploit --config with stages", "cardagents.training.exploit",
     ["dagong", "random", "--config", "configs/dagong.yaml", "--out", "{dir}/ex"],
     "a config with stages is refused"),
    ("train a bool opponent weight", "train", ["opponents.heuristic=true"],
     "opponent weight heuristic must be a finite number >= 0, got True"),
    ("train gamma=10**400", "train", ["gamma=1" + "0" * 400], "gamma must be a finite number"),
    ("train hidden=[10**12]", "train", [f"hidden=[{10 ** 12}]"],
     "hidden must be a list of ints (1..16 of them, each 1..16384)"),
    ("train num_envs=10**12", "train", [f"num_envs={10 ** 12}"],
     "num_envs must be an int >= 1 (at most 65,536)"),
    ("train torch_threads=10**9", "train", [f"torch_threads={10 ** 9}"],
     "torch_threads must be auto or an int >= 1 (at most 1024)"),
    ("train anneal_lr=5", "train", ["anneal_lr=5"], "anneal_lr (now lr_schedule) must be true"),
    ("train --config nested 10**5 deep", "train", ["--config", "{deep}"], "nests too deep"),
]


def _no_work(*args, **kwargs):
    raise AssertionError("a game was dealt or stepped before the command refused its input")


@pytest.mark.parametrize("case, module, argv, fragment", CLI, ids=[r[0] for r in CLI])
def test_command_lines_exit_2_with_one_line(files, capsys, monkeypatch, case, module, argv,
                                            fragment):
    names = {k: str(v) for k, v in files.items()}
    argv = [a.format(**names) for a in argv]
    fragment = fragment.format(**names)
    if module == "train":
        pytest.importorskip("torch")
        argv = ["--config", str(ROOT / "configs" / "smoke.yaml"), *argv]
    main = _main(module)
    capsys.readouterr()
    # refused before any work: no game is dealt or stepped (work counted, not timed)
    for game in (make_game("dagong"), make_game("dabang")):
        monkeypatch.setattr(type(game), "new_state", _no_work)
    monkeypatch.setattr(VectorGame, "step", _no_work)
    with pytest.raises(SystemExit) as info:
        status = main(argv)
        raise SystemExit(status)  # replay returns its status
    err, code = capsys.readouterr().err, info.value.code
    if isinstance(code, str):  # sys.exit("message"): cli.run writes it, exit status 2
        err, code = err + " ".join(code.split()) + "\n", 2
    assert code == 2, err
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_evaluate_unreachable_ray_address_fails_within_30_s(capsys):
    """Item 5: nothing listens on port 1; the address is refused at once, no cluster starts."""
    pytest.importorskip("ray")
    from cardagents.evaluation.evaluate import main

    start = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        main(["dagong", "heuristic", "random", "--deals", "1", "--quiet", "--workers", "2",
              "--address", "127.0.0.1:1"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1, err
    assert "cannot join the Ray cluster at '127.0.0.1:1'" in err
    assert time.perf_counter() - start < 30  # timeout: refused at once, not after minutes
    import ray
    assert not ray.is_initialized()


def test_train_unreachable_ray_address_fails_within_30_s(capsys, tmp_path):
    pytest.importorskip("ray")
    pytest.importorskip("torch")
    main = _main("train")
    start = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        main(["--config", str(ROOT / "configs" / "smoke.yaml"), "workers=1",
              "ray_address=127.0.0.1:1", f"run_dir={tmp_path}"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1, err
    assert "ray_address: cannot join the Ray cluster at '127.0.0.1:1'" in err
    assert time.perf_counter() - start < 30  # timeout: refused at once, not after minutes


# --- processes: python -m ... -------------------------------------------------------------------

def _python(*argv, **kwargs):
    return subprocess.Popen([sys.executable, *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.mark.parametrize("argv", [
    ["-m", "cardenv.replay", "{good}", "--print"],
    ["-m", "cardenv.play", "dagong", "--games", "0", "--seed", "1"],
    ["-m", "cardagents", "evaluate", "dagong", "random", "random", "--deals", "1", "--quiet"],
], ids=["replay --print", "play random mode", "evaluate"])
def test_a_closed_pipe_ends_quietly(files, argv):
    """Item 4: ``... | head`` -- the reader leaves before the output is written."""
    process = _python(*[a.format(**{k: str(v) for k, v in files.items()}) for a in argv])
    process.stdout.close()  # the reader is gone before the first line
    err = process.stderr.read()
    status = process.wait(timeout=120)
    assert status == 141 and err == "", (status, err)


def test_python_m_reports_bad_input_on_one_line(files):
    """The same through ``python -m`` (the ``cli.run`` wrapper): a bad record, an unknown
    option in the random mode (which would otherwise play 200 games)."""
    for argv, fragment in [(["-m", "cardenv.replay", str(files["deep"])], "nests deeper"),
                           (["-m", "cardenv.play", "dagong", "--set", "hnads=2"], "'hnads'")]:
        process = _python(*argv)
        out, err = process.communicate(timeout=60)
        assert process.returncode == 2 and fragment in err, err
        assert err.count("\n") == 1 and "Traceback" not in err and out == ""


def test_play_draws_and_prints_a_seed_that_replays_the_game():
    """Item 9: without --seed, a random deal whose seed is printed; --seed N plays it again."""
    from cardenv.play import main

    def watch(*extra):
        lines = []
        assert main(["dagong", "--agents", "random,random,random,random", "--delay", "0",
                     "--no-record", *extra], write=lines.append) == 0
        return lines

    first = watch()
    seed = int(first[0].split()[1])
    assert first[0] == f"seed {seed} (replay with --seed {seed})"
    assert watch("--seed", str(seed)) == first[1:]
    assert int(watch()[0].split()[1]) != seed  # a fresh draw (1 chance in 4e9 to repeat)


def test_checkpoint_loading_is_one_line(files):
    """Item 10 (done before): a file that is not a checkpoint is a CheckpointError."""
    ppo = pytest.importorskip("cardagents.ppo.agent")
    with pytest.raises(ppo.CheckpointError) as info:
        ppo.PPOAgent.load(str(files["deep"]))
    assert "\n" not in str(info.value)
