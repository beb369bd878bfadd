"""Module boundaries: the rules engines know nothing of PettingZoo, the envs nothing of agents."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "cardenv"
ENGINE = [*ROOT.glob("dagong/*.py"), *ROOT.glob("dabang/**/*.py"), *(ROOT / "core" / n for n in
          ("cards.py", "errors.py", "layout.py", "options.py", "state.py", "checks.py",
           "protocol.py")), ROOT / "games.py"]


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
            assert top in {"numpy", "cardenv", "__future__", "dataclasses", "itertools",
                           "typing", "difflib", "enum", "math", "importlib"}, \
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
