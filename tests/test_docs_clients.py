"""docs/clients.md's examples run as written: each Python block after a ``<!-- run: name -->``
marker (found by its marker, not its position)."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "clients.md"
BLOCKS = dict(re.findall(r"<!-- run: (\w+) -->\n```python\n(.*?)```", DOC.read_text("utf-8"),
                         re.S))


def test_the_page_has_its_examples():
    assert set(BLOCKS) >= {"sb3", "parallel"}


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_example_runs(name, capsys):
    if name == "sb3":
        pytest.importorskip("sb3_contrib", reason='the [sb3] extra: pip install -e ".[sb3]"')
    namespace = {}
    exec(compile(BLOCKS[name], f"{DOC.name}:{name}", "exec"), namespace)
    if name == "parallel":
        assert not namespace["env"].agents and len(namespace["rewards"]) == 4
        assert sum(namespace["rewards"].values()) == pytest.approx(0)
    if name == "sb3":
        assert namespace["model"].num_timesteps >= 256
