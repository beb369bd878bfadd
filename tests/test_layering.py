"""Module boundaries: the rules engines know nothing of PettingZoo, the envs nothing of the
agents, and the rooms of ``cardagents`` import one way."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "cardenv"
# the rules engines and their shared core (the PettingZoo env is cardenv/envs/aec.py)
ENGINE = [*ROOT.glob("dagong/*.py"), *ROOT.glob("dabang/**/*.py"), *ROOT.glob("core/*.py"),
          ROOT / "games.py"]


def imported_modules(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_rules_engine_imports_numpy_only():
    for path in ENGINE:
        for module in imported_modules(path):
            top = module.split(".")[0]
            # json and zlib: a saved state's results and crc (core.state); re: core.lang
            assert top in {"numpy", "cardenv", "__future__", "dataclasses", "itertools", "typing",
                           "difflib", "enum", "math", "importlib", "json", "zlib", "re"}, \
                f"{path.name} imports {module}"
            assert not module.startswith("cardenv.envs"), f"{path.name} imports {module}"


def test_nothing_in_cardenv_imports_cardagents():
    for path in ROOT.rglob("*.py"):
        for module in imported_modules(path):
            assert module.split(".")[0] != "cardagents", f"{path} imports {module}"


PACKAGE = ROOT.parent / "cardagents"
# the rooms of cardagents, in the one direction imports run: a module may import its own room and
# the rooms before it, never one after it (cluster, where Ray runs, imports none of ours)
ROOMS = ["cluster", "players", "ppo", "search", "specs", "evaluation", "training", "bench",
         "__main__"]


def test_every_module_has_a_docstring():
    for path in [*ROOT.rglob("*.py"), *PACKAGE.rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{path} has no module docstring"


def module_name(path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room(module: str) -> str:
    """The room of a ``cardagents`` module: its first name under the package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_only_cluster_and_the_remote_modules_import_ray_and_all_works_without_it(tmp_path):
    """The [dist] extra is optional: only ``cardagents.cluster`` and the ``remote`` modules import
    Ray at the top, nothing imports them at the top (evaluate, league, bench and train.py ask for
    Ray only inside --workers / ray), and training and evaluation run with Ray absent."""
    import subprocess
    import sys
    repo = ROOT.parent
    ray_modules = {"cardagents.cluster", "cardagents.training.remote",
                   "cardagents.evaluation.remote"}
    for path in [*ROOT.rglob("*.py"), *PACKAGE.rglob("*.py"), repo / "train.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path.is_relative_to(PACKAGE) and module_name(path) in ray_modules:
            continue
        for node in tree.body:  # module level (inside functions, --workers asks for Ray)
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.split(".")[0] == "ray" for n in names), f"{path} imports Ray"
            assert not set(names) & ray_modules, f"{path} imports {names} at module level"
    script = (  # Ray made unimportable, as on a machine without the extra
        "import sys; sys.modules['ray'] = None\n"
        "import train\n"
        "from cardagents.evaluation import evaluate\n"
        "evaluate.main(['dagong', 'heuristic', 'random', '--deals', '3', '--quiet'])\n"
        # every phase of a run (imitation, PPO, the final evaluations), each small
        f"train.main(['--config', 'configs/smoke.yaml', 'run_dir={tmp_path}', 'eval_deals=2', "
        "'imitation_samples=500', 'imitation_chunk=500', 'rollout_samples=500', "
        "'total_samples=500'])\n"
        "try:\n"
        "    evaluate.main(['dagong', 'heuristic', 'random', '--workers', '2'])\n"
        "except SystemExit as exc:\n"
        "    print('exit', exc.code)\n"
        "try:\n"
        f"    train.main(['--config', 'configs/smoke.yaml', 'run_dir={tmp_path}', 'workers=2'])\n"
        "except SystemExit as exc:\n"
        "    print('train exit', exc.code)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "win rate" in done.stdout and "exit 2" in done.stdout
    assert '--workers needs Ray: pip install -e ".[dist]"' in done.stderr
    assert "train exit 2" in done.stdout and 'workers=2 needs Ray' in done.stderr


def package_imports(path):
    """The ``cardagents`` modules that ``path`` imports anywhere (inside functions too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "cardagents"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == \
                "cardagents":
            out.add(node.module)
            # "from cardagents.training import selfplay" imports a module too
            out |= {f"{node.module}.{a.name}" for a in node.names
                    if (PACKAGE.parent / f"{node.module}.{a.name}".replace(".", "/")).is_dir()
                    or (PACKAGE.parent / (f"{node.module}.{a.name}".replace(".", "/") + ".py"))
                    .is_file()}
    return out


def graph() -> dict:
    return {module_name(p): package_imports(p) for p in PACKAGE.rglob("*.py")}


def test_the_rooms_of_cardagents_import_one_way():
    """players -> ppo -> search -> specs -> evaluation -> training -> bench: no module imports a
    room after its own (inside functions neither), so each room can be read, tested and
    shipped with the ones before it alone."""
    for module, imported in graph().items():
        here = room(module)
        if here == "__init__":  # its lazy names (strings) reach players, ppo and search
            assert {room(m) for m in imported} <= {"__init__", "players", "ppo"}, imported
            continue
        assert here in ROOMS, f"{module}: a room the layering does not know"
        for other in imported:
            there = room(other)
            assert there != "__init__" or other == "cardagents", f"{module} imports {other}"
            if there == "__init__":
                continue
            assert ROOMS.index(there) <= ROOMS.index(here), \
                f"{module} ({here}) imports {other} ({there}), a room after its own"


def test_the_deal_pair_machinery_sits_below_evaluate_and_remote():
    """``cardagents.evaluation.duplicate`` (play_pairs, chunks, statistics) is what evaluation in
    one process and on Ray share: it imports neither of them, and the Ray side does not import
    ``evaluate`` (the command line reaches Ray one way only, inside ``--workers``)."""
    imports = graph()
    duplicate = imports["cardagents.evaluation.duplicate"]
    assert not duplicate & {"cardagents.evaluation.evaluate", "cardagents.evaluation.remote"}
    assert "cardagents.evaluation.duplicate" in imports["cardagents.evaluation.evaluate"]
    assert "cardagents.evaluation.duplicate" in imports["cardagents.evaluation.remote"]
    assert "cardagents.evaluation.evaluate" not in imports["cardagents.evaluation.remote"]


def assert_no_cycle(imports: dict) -> None:
    done, path = set(), []

    def visit(module):
        assert module not in path, "import cycle: " + " -> ".join(
            path[path.index(module):] + [module])
        if module in done or module not in imports:
            return
        path.append(module)
        for other in sorted(imports[module]):
            visit(other)
        path.pop()
        done.add(module)

    for module in sorted(imports):
        visit(module)


def test_cardenv_modules_import_no_cycle():
    """No module of ``cardenv`` reaches itself through imports (inside functions too; a
    package's ``__init__`` counts as importing nothing)."""
    imports = {}
    for path in ROOT.rglob("*.py"):
        name = module_name(path)
        imports[name] = set() if path.name == "__init__.py" else {
            m for m in imported_modules(path) if m.split(".")[0] == "cardenv" and m != name}
    assert_no_cycle(imports)


def test_cardagents_modules_import_no_cycle():
    """No module of ``cardagents`` reaches itself through imports (those inside functions too;
    a package's ``__init__`` counts as importing nothing: every ``__init__`` but the top one
    is a docstring, and the top one imports lazily)."""
    assert_no_cycle({m: {o for o in i if o != "cardagents"} for m, i in graph().items()})


def test_no_module_of_cardagents_imports_the_checkout_scripts():
    """``train.py`` sits in a checkout, outside the installed package:
    no module of ``cardagents`` imports it (inside functions neither), so ``python -m
    cardagents ...`` works wherever the package is installed
    (tests/cardagents/bench/test_players.py runs the bench with ``train`` made impossible to
    import)."""
    scripts = {p.stem for p in ROOT.parent.glob("*.py")}
    assert "train" in scripts
    for path in PACKAGE.rglob("*.py"):
        tops = {module.split(".")[0] for module in imported_modules(path)}
        assert not tops & scripts, f"{path} imports {sorted(tops & scripts)}"


# the people layer: programs that show games to people reach a game through the registry and
# cardenv.text only (a game's presentation and reasons modules, registered with it)
PEOPLE = [*ROOT.glob("web/**/*.py"), ROOT / "play.py", ROOT / "replay.py", ROOT / "text.py",
          ROOT / "moves.py", ROOT / "records.py"]


def test_the_people_layer_names_no_game_package():
    for path in PEOPLE:
        for module in imported_modules(path):
            assert not module.startswith(("cardenv.dagong", "cardenv.dabang")), \
                f"{path.relative_to(ROOT)} imports {module}"
