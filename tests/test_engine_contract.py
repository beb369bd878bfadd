"""The engine contract: both games satisfy ``cardenv.core.protocol``, the registry builds them by
name, a toy third game registered from the tests runs through the agents' batched engine and
duplicate evaluation unchanged, and ``cardagents/`` (and train.py) hold no engine internals; no
file of cardenv/ outside a game's own package, nor the page's app.js, switches on a game's name;
and a game installed as a package (entry points ``cardenv.games``) reaches the command lines."""

import ast
import json
import os
import re
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from cardagents.evaluation.evaluate import duplicate
from cardagents.players.lockstep import play_batched
from cardagents.players.random import RandomAgent
from cardenv.vector import VectorGame
from cardenv import games
from cardenv.core.errors import ConfigError
from cardenv.core.protocol import Game, GameState
from tests.toy_game import ToyGame

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture
def toy():
    games.register("toy", ToyGame)
    yield "toy"
    games.unregister("toy")


@pytest.mark.parametrize("name", ["dagong", "dabang"])
def test_builtin_games_satisfy_the_protocol(name):
    game = games.make_game(name)
    state = game.new_state(3)
    assert isinstance(game, Game) and isinstance(state, GameState)
    assert game.name == name
    states = [game.new_state(s) for s in range(5)]
    masks = game.legal_masks(states)
    assert masks.shape == (5, game.num_actions)
    for s, m in zip(states, masks):
        assert np.array_equal(m, s.legal_mask())
    obs = game.observations(states)
    assert obs.shape == (5, game.observation_size) and obs.dtype == np.float32
    for s, o in zip(states, obs):
        assert np.array_equal(o, s.observation(s.current_player))
    assert game.global_states(states).shape == (5, game.state_size)
    for s in states:
        one, two = game.sides(s)
        assert sorted(one + two) == [0, 1, 2, 3]
        again = game.state_from_dict(s.to_dict())
        assert again.to_dict() == s.to_dict()


DEALS = {  # a custom deal of each game (what state_from_deal takes)
    "dagong": {"hands": [[0, 4, 9, 51], [12, 13, 14], [0, 20, 21], [30, 31, 32]], "dealer": 0,
               "called": 0},
    "dabang": {"deck": list(range(54)) * 4, "first_seat": 1},
}


@pytest.mark.parametrize("name", ["dagong", "dabang"])
def test_replay_gives_the_state_a_deal_and_a_history_lead_to(name):
    """``game.replay(seed, actions, deal=None)``: the deal (``None``: the seed's shuffle) and
    the actions from it, each checked; a saved state is that recipe (issue 22)."""
    game = games.make_game(name, hands=2) if name == "dagong" else \
        games.make_game(name, episode="match", max_hands=2)
    rng = np.random.default_rng(0)
    for deal in (None, DEALS[name]):
        state = game.new_state(6) if deal is None else game.state_from_deal(6, deal)
        while len(state.results) < 1 or len(state.history) % 7:  # into the second hand
            state.apply(int(rng.choice(state.legal_actions())))
        again = game.replay(6, state.history, deal=deal)
        assert again.to_dict() == state.to_dict() and again.to_dict()["deal"] == deal
        assert again.rng.bit_generator.state == state.rng.bit_generator.state
        assert game.state_from_dict(state.to_dict()).to_dict() == state.to_dict()
        wrong = state.history[:3] + [state.history[3] + 1] * 50  # illegal from [3] or soon
        with pytest.raises(ValueError, match=r"^history\[\d+\]: illegal action") as info:
            game.replay(6, wrong, deal=deal)
        assert 3 <= int(re.match(r"history\[(\d+)\]", str(info.value)).group(1)) < 53


def test_registry_errors():
    with pytest.raises(ValueError, match="unknown game 'dagongg'.*did you mean 'dagong'"):
        games.make_game("dagongg")
    with pytest.raises(ConfigError, match="unknown option"):
        games.make_game("dabang", colour="red")
    with pytest.raises(ValueError, match="already registered"):
        games.register("dagong", ToyGame)
    with pytest.raises(ValueError, match="factory"):
        games.register("other", 42)


def test_a_toy_third_game_runs_through_the_agents_machinery(toy):
    game = games.make_game(toy)
    assert isinstance(game, Game) and isinstance(game.new_state(0), GameState)
    batch = VectorGame(toy, 6, seed=10)
    agent = RandomAgent(toy, 0)
    finished = []
    for _ in range(12):
        finished += batch.step(agent.act_batch(batch.observations(), batch.masks())).games
    assert len(finished) >= 12  # every game lasts four decisions
    for done in finished:
        replayed = game.replay(done.seed, []).clone()
        assert done.seed >= 10 and sum(done.returns) == 0 and len(done.results) == 1
        assert replayed.seed == done.seed
    finished = play_batched(toy, lambda j: [agent] * 4, range(20), batch=7)
    assert [f.seed for f in finished] == list(range(20))
    stats = duplicate(toy, RandomAgent(toy, 1), RandomAgent(toy, 2), deals=200)
    assert stats["pairs"] == 200
    # the toy's deals decide most pairs: swapping the sides cancels the cards, so ties dominate
    assert stats["ties"] > 0 and 0.3 < stats["win_rate"] < 0.7


def test_evaluate_command_line_takes_a_registered_game(toy):
    from cardagents.evaluation.evaluate import main
    stats = main([toy, "random", "random", "--deals", "10"])
    assert stats["game"] == toy and stats["pairs"] == 10


# the rooms of cardagents that know games by name (each game's heuristic player, the rewards
# shaped by a game's score, the kinds of decision and hand that compare tells apart); every other
# module, and the scripts beside the package, is game-agnostic: a folder rule, not a list kept by
# hand, so a new module is held to it from its first line
GAME_AWARE = ["cardagents/players/heuristics/**", "cardagents/training/rewards/**",
              "cardagents/evaluation/hands.py"]
# tables of defaults that name a game as a value (never a branch): the leaf value's data option
# sets, the bench's games with a PettingZoo env, the config's default game, the training bench's
# shipped configs
NAMED_DEFAULTS = {"cardagents/search/leaf.py": "OPTIONS", "cardagents/bench/players.py": "GAMES",
                  "cardagents/training/config.py": "game",
                  "cardagents/bench/training.py": "GAMES"}


def game_aware(path: str) -> bool:
    return any(path.startswith(pattern[:-2]) if pattern.endswith("/**") else path == pattern
               for pattern in GAME_AWARE)


GENERIC = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "cardagents").rglob("*.py")
                 if not game_aware(str(p.relative_to(ROOT)))) + ["train.py"]


def test_the_game_aware_rooms_exist_and_everything_else_is_generic():
    assert all(any(ROOT.glob(pattern.replace("**", "*.py"))) for pattern in GAME_AWARE)
    assert "cardagents/players/heuristics/dabang/player.py" not in GENERIC
    assert {"cardagents/ppo/net.py", "cardagents/search/pimc.py", "cardagents/specs.py",
            "cardagents/evaluation/compare.py", "cardagents/training/selfplay.py"} <= set(GENERIC)


def docstrings(tree) -> set:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


def named_default(tree, path: str) -> set:
    """The string constants of the table ``NAMED_DEFAULTS`` allows in ``path``."""
    name, out = NAMED_DEFAULTS.get(path), set()
    for node in ast.walk(tree):
        target = node.target if isinstance(node, ast.AnnAssign) else \
            node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and target.id == name and node.value is not None:
            out |= {id(n) for n in ast.walk(node.value) if isinstance(n, ast.Constant)}
    return out


@pytest.mark.parametrize("path", GENERIC)
def test_generic_agent_code_holds_no_engine_internals(path):
    """The game-agnostic modules reach games only through cardenv.games and the protocol: no
    import of a game's package, no private attribute, no attribute guessing, no game switch, no
    game named outside a docstring (but the tables of defaults in ``NAMED_DEFAULTS``)."""
    source = (ROOT / path).read_text(encoding="utf-8")
    tree = ast.parse(source)
    allowed = docstrings(tree) | named_default(tree, path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            assert not node.module.startswith(("cardenv.dagong", "cardenv.dabang")), \
                f"{path} imports {node.module}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert not alias.name.startswith(("cardenv.dagong", "cardenv.dabang")), path
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id != "hasattr", f"{path} guesses attributes with hasattr"
        if isinstance(node, ast.Attribute):
            assert node.attr not in ("v", "buffer", "partial", "led_kind", "standing",
                                     "called", "partner"), f"{path} reads .{node.attr}"
        if isinstance(node, ast.Compare):
            names = {c.value for c in [node.left, *node.comparators]
                     if isinstance(c, ast.Constant)}
            assert not names & {"dagong", "dabang"}, f"{path} switches on a game name"
        if isinstance(node, ast.Constant) and node.value in ("dagong", "dabang"):
            assert id(node) in allowed, f"{path}:{node.lineno} names the game {node.value!r}"


def test_importing_an_engine_does_not_load_pettingzoo():
    code = ("import sys, cardenv.dagong, cardenv.dabang, cardenv.games; "
            "print('pettingzoo' in sys.modules, 'gymnasium' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.split()
    assert out == ["False", "False"]


def test_pettingzoo_make_works_after_import_cardenv_in_either_order():
    for code in ("import cardenv, pettingzoo; e = pettingzoo.make('aec', 'cardenv/dagong_v0')",
                 "import pettingzoo, cardenv; e = pettingzoo.make('aec', 'cardenv/dabang_v0')"):
        subprocess.run([sys.executable, "-c", code + "; e.reset(seed=1)"], check=True, cwd=ROOT)


def test_the_ids_register_after_a_library_only_looked_for_gymnasium_or_pettingzoo():
    """``importlib.util.find_spec`` (how TorchRL checks for Gymnasium on import) looks a package
    up without importing it: the import that follows still registers the ids (it did not:
    TorchRL's ``GymEnv("cardenv/Dagong-v0")`` after ``import cardenv`` found no namespace)."""
    code = ("import importlib.util, cardenv; "
            "importlib.util.find_spec('gymnasium'); importlib.util.find_spec('pettingzoo'); "
            "import gymnasium, pettingzoo; gymnasium.make('cardenv/Dagong-v0').reset(seed=1); "
            "pettingzoo.make('aec', 'cardenv/dabang_v0').reset(seed=1)")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_the_engine_doc_example_runs():
    import re
    text = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    namespace = {}
    try:
        exec(compile(code, "docs/engine.md example", "exec"), namespace)
        assert namespace["stats"]["pairs"] == 100 and namespace["games"].num_envs == 8
    finally:
        games.unregister("toy")


@pytest.mark.parametrize("name", ["dagong", "dabang"])
def test_misuse_of_the_envs_gets_clear_errors(name):
    """Not an action id, step(None) for an agent still to play, step before reset or after
    the game: a message that says what to do (PettingZoo's wrappers say only 'action is not
    in action space' or raise KeyError / AttributeError)."""
    import importlib
    module = importlib.import_module(f"cardenv.{name}_v0")
    n = module.env().action_space("player_0").n
    for action, message in [(None, "step(None) is for an agent that is done"),
                            (n, f"action {n} is out of range: ids run 0..{n - 1}"),
                            (-1, "out of range"), (1.5, "an action is an int id"),
                            (True, "an action is an int id")]:
        env = module.env()
        env.reset(seed=0)
        before = env.unwrapped.game_state.to_dict()
        with pytest.raises(ValueError, match=re.escape(message)):
            env.step(action)
        assert env.unwrapped.game_state.to_dict() == before  # nothing changed
    raw = module.raw_env()
    with pytest.raises(RuntimeError, match=re.escape("step() before reset()")):
        raw.step(0)
    with pytest.raises(RuntimeError, match=re.escape("observe() before reset()")):
        raw.observe("player_0")
    raw.reset(seed=1, options=None)
    rng = np.random.default_rng(0)
    while raw.agents:
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        raw.step(int(rng.choice(np.flatnonzero(raw.observe(agent)["action_mask"]))))
    with pytest.raises(RuntimeError, match="the game is over .* call env.reset"):
        raw.step(0)


def test_the_parallel_api_is_refused_with_a_reason():
    import pettingzoo
    import cardenv  # noqa: F401  (registers the envs)
    for env_id in ("cardenv/dagong_v0", "cardenv/dabang_v0"):
        with pytest.raises(ValueError, match="turn-based .* AEC API only"):
            pettingzoo.make("parallel", env_id)
        assert pettingzoo.make("aec", env_id) is not None


def test_people_reach_a_game_through_the_presentation_it_registers(toy):
    """``cardenv.text`` (terminal, web page, replays) draws a game with the presentation and
    reasons modules named in its registry entry; a game registered without them gets a clear
    ``ValueError`` from every text function."""
    import importlib
    import types

    from cardenv import text
    assert games.presentation("dabang") is importlib.import_module("cardenv.dabang.presentation")
    assert games.reasons("dagong") is importlib.import_module("cardenv.dagong.reasons")
    state = games.make_game(toy).new_state(0)
    action = state.legal_actions()[0]
    for call in (lambda: text.render(state), lambda: text.render(state, seat=1),
                 lambda: text.seat_view(state, 0), lambda: text.move_text(state, action, 1),
                 lambda: text.phase_label(toy, "play"), lambda: text.move_label(toy, "play")):
        with pytest.raises(ValueError, match="'toy' is registered without a presentation "
                                             "module.*presentation='module'"):
            call()
    with pytest.raises(ValueError, match="'toy' is registered without a reasons module"):
        text.why_illegal(state, action)
    with pytest.raises(ValueError, match="unknown game 'toyy'"):
        games.presentation("toyy")
    with pytest.raises(ValueError, match="presentation must be a module"):
        games.register("other", ToyGame, presentation=42)
    shown = types.ModuleType("toy_presentation")  # a seat sees only its own card played
    shown.move_text = lambda state, action, viewer: \
        f"play {action}" if viewer in (None, state.current_player) else "plays a card"
    games.register(toy, ToyGame, presentation=shown, replace=True)
    assert text.move_text(state, action) == f"play {action}"
    assert text.move_text(state, action, viewer=state.current_player) == f"play {action}"
    assert text.move_text(state, action, viewer=(state.current_player + 1) % 4) == "plays a card"
    games.register(toy, ToyGame, replace=True)  # replaced without one: none again
    with pytest.raises(ValueError, match="without a presentation module"):
        text.move_text(state, action)


def test_the_terminal_lists_the_registered_games(toy, capsys):
    from cardenv import play
    with pytest.raises(SystemExit):
        play.main(["nosuchgame"])
    assert "'dagong', 'dabang', 'toy'" in capsys.readouterr().err


GAME_PACKAGES = ("cardenv/dagong/", "cardenv/dabang/")
OUTSIDE_GAMES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "cardenv").rglob("*.py")
                       if not p.relative_to(ROOT).as_posix().startswith(GAME_PACKAGES))


def _constants(node) -> set:
    """The constants of a comparison operand, inside tuples, lists and sets too."""
    if isinstance(node, ast.Constant):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_constants(e) for e in node.elts))
    return set()


def test_the_guard_covers_the_people_layer():
    for path in ("cardenv/moves.py", "cardenv/text.py", "cardenv/play.py", "cardenv/replay.py",
                 "cardenv/web/server.py", "cardenv/web/sessions.py", "cardenv/games.py",
                 "cardenv/records.py", "cardenv/bench.py", "cardenv/single_agent.py"):
        assert path in OUTSIDE_GAMES


@pytest.mark.parametrize("path", OUTSIDE_GAMES)
def test_no_code_outside_a_game_package_compares_a_game_name(path):
    """Every file of cardenv/ but the games' own packages reaches a game through the registry
    and its contracts (engine, presentation): no ``if game == "dabang"``, no ``name in
    ("dagong", ...)``, no ``match`` on a game name. Naming a game in a table (the registry's
    entries) is fine; switching on it is not."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names = set(games.names()) | {"dagong", "dabang"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            found = set().union(*(_constants(c) for c in [node.left, *node.comparators]))
            assert not found & names, f"{path}:{node.lineno} compares a game's name"
        if isinstance(node, ast.MatchValue):
            assert not _constants(node.value) & names, f"{path}:{node.lineno} matches a name"


def test_the_page_script_has_no_game_branch():
    """app.js draws whatever game the server sends: no game's name appears in it at all (so
    none is compared), and no message field of one game only is read."""
    script = (ROOT / "cardenv" / "web" / "static" / "app.js").read_text(encoding="utf-8")
    code = re.sub(r"(^|\s)//.*", "", script)  # the comments may name the games they draw
    assert "//" not in code.replace("://", "")
    for name in ("dagong", "dabang"):
        assert name not in code.lower(), f"app.js names {name} outside its comments"
    for field in ("standing", "trick", "selection", "kitty_known", "partner_text", "levels"):
        assert not re.search(rf"\.{field}\b", script), f"app.js reads the game field {field}"


def _installed_toy(folder: pathlib.Path) -> dict:
    """A test distribution ``toy_dist`` installed into ``folder`` (its module and its
    ``.dist-info`` with the entry points, as pip writes them): the environment of a process
    that sees it on its path."""
    package = folder / "toy_dist"
    package.mkdir()
    (package / "__init__.py").write_text('"""A game installed as a package."""\n')
    for source, target in (("toy_game.py", "game.py"), ("toy_presentation.py", "presentation.py")):
        (package / target).write_text((ROOT / "tests" / source).read_text(encoding="utf-8"),
                                      encoding="utf-8")
    info = folder / "toy_dist-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-dist\nVersion: 0\n")
    (info / "entry_points.txt").write_text(
        "[cardenv.games]\ntoy = toy_dist.game:ToyGame\n\n"
        "[cardenv.presentations]\ntoy = toy_dist.presentation\n\n"
        "[cardenv.reasons]\ntoy = toy_dist.presentation\n")
    return {**os.environ, "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}"}


def test_an_installed_package_provides_a_game_to_the_command_lines(tmp_path):
    """``python -m cardagents evaluate toy random random`` works from the command line once a
    package that declares the game in the ``cardenv.games`` entry-point group is installed
    (docs/engine.md); so does terminal play, through the presentation it declares."""
    env = _installed_toy(tmp_path)
    out = tmp_path / "stats.json"
    proc = subprocess.run([sys.executable, "-m", "cardagents", "evaluate", "toy", "random",
                           "random", "--deals", "6", "--out", str(out), "--quiet"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(out.read_text())
    assert stats["game"] == "toy" and stats["pairs"] == 6
    proc = subprocess.run([sys.executable, "-m", "cardenv.play", "toy", "--agents",
                           "random,random,random,random", "--delay", "0", "--seed", "4",
                           "--no-record"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Team 0" in proc.stdout and "player_3: play" in proc.stdout
    code = ("import cardenv.games as g, sys; n = g.names(); "
            "print(n, 'toy_dist.game' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                           text=True, check=True).stdout.strip()
    assert shown == "('dagong', 'dabang', 'toy') False"  # listed, not imported


def test_a_game_registered_in_the_program_keeps_its_name_over_an_installed_one(tmp_path):
    env = _installed_toy(tmp_path)
    code = ("from cardenv import games; from tests.toy_game import ToyGame\n"
            "class Mine(ToyGame): pass\n"
            "games.register('toy', Mine)\n"
            "print(type(games.make_game('toy')).__name__, games.names())")
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                           text=True, check=True).stdout.strip()
    assert shown == "Mine ('dagong', 'dabang', 'toy')"


def test_a_malformed_installed_game_is_left_out_saying_why(tmp_path):
    env = _installed_toy(tmp_path)
    points = tmp_path / "toy_dist-0.dist-info" / "entry_points.txt"
    points.write_text(points.read_text().replace("[cardenv.games]\n",
                                                 "[cardenv.games]\nbroken = no_attribute\n"))
    code = ("from cardenv import games\nprint(games.names())\n"
            "try:\n    games.make_game('broken')\nexcept ValueError as e:\n    print(e)")
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                           text=True, check=True).stdout
    assert shown.startswith("('dagong', 'dabang', 'toy')\n")  # the others still load
    assert "unknown game 'broken' (its entry point in group cardenv.games is malformed: " \
           "factory must be callable or 'module:attribute'" in shown
