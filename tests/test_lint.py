"""``ruff check .`` passes on the whole tree (pyflakes and pycodestyle at line length 100, as
configured in pyproject.toml's ``[tool.ruff]``); ``.ci/run`` runs it too. ruff comes with the
``test`` extra; where it is not installed this test is skipped and says so."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _ruff() -> list[str] | None:
    """The command that runs ruff: the ``ruff`` module of this Python, else one on PATH."""
    try:
        import ruff  # noqa: F401  (only whether it is installed)
    except ImportError:
        exe = shutil.which("ruff")
        return [exe] if exe else None
    return [sys.executable, "-m", "ruff"]


def test_ruff_check_passes():
    command = _ruff()
    if command is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' installs it)")
    done = subprocess.run([*command, "check", "--no-cache", "."], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"ruff check . failed:\n{done.stdout}{done.stderr}"


def test_ci_lints_before_the_tests():
    """``ruff check .`` runs in .ci/run before the two pytest lines (which stay its last two)."""
    lines = (REPO / ".ci" / "run").read_text().strip().splitlines()
    assert "ruff check ." in lines
    assert lines.index("ruff check .") < lines.index("python -m pytest -q")
