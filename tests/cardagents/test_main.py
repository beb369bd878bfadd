"""``python -m cardagents COMMAND``: every command runs its module's own command line, the
commands are listed, an unknown one is a one-line error, and every command the docs name is one
of them."""

import ast
import importlib
import pathlib
import re
import subprocess
import sys

import pytest

from cardagents.__main__ import COMMANDS, main

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_is_a_module_with_a_command_line(command):
    module = importlib.util.find_spec(COMMANDS[command][0])
    assert module is not None, command
    if module.submodule_search_locations:  # a package runs its __main__
        module = importlib.util.find_spec(COMMANDS[command][0] + ".__main__")
    tree = ast.parse(pathlib.Path(module.origin).read_text(encoding="utf-8"))
    assert any(isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)
               for node in tree.body), f"{command}: no __main__ block"


def test_the_commands_are_listed_and_an_unknown_one_is_refused(capsys):
    main([])
    out = capsys.readouterr().out
    assert all(f"  {name} " in out for name in COMMANDS)
    with pytest.raises(SystemExit) as info:
        main(["evaluat"])
    assert info.value.code == 2
    assert "unknown command 'evaluat'" in capsys.readouterr().err


def test_a_command_runs_its_module_as_main(tmp_path):
    out = tmp_path / "r.json"
    done = subprocess.run([sys.executable, "-m", "cardagents", "evaluate", "dagong", "random",
                           "random", "--deals", "2", "--quiet", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    table = subprocess.run([sys.executable, "-m", "cardagents", "report", str(out)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert table.returncode == 0, table.stderr
    assert "python -m cardagents evaluate dagong random random --deals 2" in table.stdout
    bad = subprocess.run([sys.executable, "-m", "cardagents", "evaluate", "nogame"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "python -m cardagents evaluate: error:" in bad.stderr


def test_every_command_the_docs_name_exists():
    files = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "cardagents").rglob(
        "*.py"), *(ROOT / "cardenv").rglob("*.py"), *(ROOT / "configs").glob("*.yaml")]
    named = {(m.group(1), str(path.relative_to(ROOT))) for path in files
             for m in re.finditer(r"python -m cardagents\s+([a-z_]+)",
                                  path.read_text(encoding="utf-8"))}
    assert named, "the docs name no command"
    unknown = {pair for pair in named if pair[0] not in COMMANDS}
    assert not unknown, unknown
