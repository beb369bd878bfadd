"""Module boundaries: the rules engines know nothing of PettingZoo, the envs nothing of agents."""

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


def test_nothing_in_cardenv_imports_agents():
    for path in ROOT.rglob("*.py"):
        for module in imported_modules(path):
            assert module.split(".")[0] != "agents", f"{path} imports {module}"


def test_every_module_has_a_docstring():
    for path in [*ROOT.rglob("*.py"), *(ROOT.parent / "agents").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{path} has no module docstring"


def test_only_agents_distributed_imports_ray_and_all_works_without_it(tmp_path):
    """The [dist] extra is optional: no other module imports Ray at the top (evaluate and bench
    ask for it only with --workers / ray), and training and evaluation run with Ray absent."""
    import subprocess
    import sys
    repo = ROOT.parent
    for path in [*ROOT.rglob("*.py"), *(repo / "agents").rglob("*.py"), repo / "train.py"]:
        if path.name == "distributed.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.split(".")[0] == "ray" or n == "agents.distributed"
                           for n in names), f"{path} imports {names} at module level"
    script = (  # Ray made unimportable, as on a machine without the extra
        "import sys; sys.modules['ray'] = None\n"
        "import train\n"
        "from agents import evaluate\n"
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


def agents_imports(path):
    """The ``agents`` modules that ``path`` imports anywhere (inside functions too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "agents"}
        elif isinstance(node, ast.ImportFrom) and node.module == "agents":
            out |= {f"agents.{a.name}" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agents."):
            out.add(node.module)
    return out


def test_the_deal_pair_machinery_sits_below_evaluate_and_distributed():
    """``agents.duplicate`` (play_pairs, chunks, statistics) is what evaluation in one process
    and on Ray share: it imports neither of them, and ``agents.distributed`` does not import
    ``agents.evaluate`` (the command line reaches Ray one way only, inside ``--workers``)."""
    agents = ROOT.parent / "agents"
    duplicate = agents_imports(agents / "duplicate.py")
    assert not duplicate & {"agents.evaluate", "agents.distributed"}, duplicate
    assert "agents.duplicate" in agents_imports(agents / "evaluate.py")
    assert "agents.duplicate" in agents_imports(agents / "distributed.py")
    assert "agents.evaluate" not in agents_imports(agents / "distributed.py")


def test_agents_modules_import_no_cycle():
    """No module of ``agents`` reaches itself through imports (those inside functions too)."""
    agents = ROOT.parent / "agents"
    graph = {f"agents.{p.stem}": agents_imports(p) for p in agents.glob("*.py")
             if p.stem != "__init__"}
    done, path = set(), []

    def visit(module):
        assert module not in path, "import cycle: " + " -> ".join(
            path[path.index(module):] + [module])
        if module in done or module not in graph:
            return
        path.append(module)
        for other in sorted(graph[module]):
            visit(other)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)


def test_no_module_of_agents_imports_the_checkout_scripts():
    """``train.py`` and ``bench_train.py`` sit in a checkout, outside the installed package:
    no module of ``agents`` imports them (inside functions neither), so ``python -m agents.X``
    works wherever the package is installed (tests/agents/test_bench.py runs agents.bench with
    ``train`` made impossible to import)."""
    agents = ROOT.parent / "agents"
    scripts = {p.stem for p in ROOT.parent.glob("*.py")}
    assert {"train", "bench_train"} <= scripts
    for path in agents.glob("*.py"):
        tops = {module.split(".")[0] for module in imported_modules(path)}
        assert not tops & scripts, f"agents/{path.name} imports {sorted(tops & scripts)}"
