"""README's and docs/api.md's code examples run as written: each Python block after a
``<!-- run: name -->`` marker, found by its name (moving a block breaks no other test)."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
API = README.parent / "docs" / "api.md"


def blocks(path: pathlib.Path = README) -> dict:
    """``{name: code}`` of the marked Python blocks of ``path``."""
    return dict(re.findall(r"<!-- run: ([\w-]+) -->\n```python\n(.*?)```",
                           path.read_text(encoding="utf-8"), re.S))


def test_every_python_block_is_marked():
    for path in (README, API):
        text = path.read_text(encoding="utf-8")
        assert text.count("```python") == len(blocks(path)), path


def test_aec_example_runs(capsys):
    code = blocks()["aec"]
    namespace = {}
    exec(compile(code, "README example", "exec"), namespace)
    env = namespace["env"]
    assert all(env.terminations.values()) or not env.agents
    assert "Dagong hand 1/1" in capsys.readouterr().out


def test_shipped_agent_example_runs(capsys):
    """The snippet that seats a shipped checkpoint in the AEC loop plays a whole hand."""
    import pytest
    pytest.importorskip("torch")
    namespace = {}
    exec(compile(blocks(API)["agent"], "docs/api.md agent example", "exec"), namespace)
    assert not namespace["env"].agents or all(namespace["env"].terminations.values())
    assert "player_0" in capsys.readouterr().out


def test_registry_example_runs():
    namespace = {}
    exec(compile(blocks(API)["registry"], "docs/api.md registry example", "exec"), namespace)
    assert namespace["masks"].shape == (64, 404) and namespace["obs"].shape == (64, 1165)


def test_engine_example_runs():
    import numpy as np

    code = blocks(API)["engine"]
    from cardenv.bench import dagong_positions

    hands, standing, called = dagong_positions(8)
    namespace = {"hands": hands, "standing": standing, "called": called}
    exec(compile(code, "README engine example", "exec"), namespace)
    assert namespace["masks"].shape == (8, 2419)
    assert namespace["again"].to_dict() == namespace["state"].to_dict()
    assert np.array_equal(namespace["puzzle"].hands.sum(1), [3, 1, 2, 3])
    worlds = namespace["worlds"]
    assert len(worlds) == 32 and all(np.array_equal(w.observation(1), namespace["state"]
                                                    .observation(1)) for w in worlds)


def test_ci_runs_readmes_test_command_and_the_slow_runs():
    """CI ends with README's test command, then the slow-marked runs, so that it runs every
    test; README names both. Both print their 15 slowest tests (issue 34), set outside the
    command so that the command stays README's."""
    ci = (README.parent / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-3:] == ['export PYTEST_ADDOPTS="--durations=15"', "python -m pytest -q",
                       "python -m pytest -q -m slow"]
    text = README.read_text()
    assert "python -m pytest -q\n" in text and "python -m pytest -q -m slow" in text


def test_readme_sizes_match_the_layouts():
    from cardenv.dabang import catalogue as dabang_actions
    from cardenv.dabang.observation import LAYOUT as DABANG
    from cardenv.dagong import catalogue as dagong_actions
    from cardenv.dagong.observation import LAYOUT as DAGONG

    text = README.read_text(encoding="utf-8")
    for layout, actions in ((DAGONG, dagong_actions), (DABANG, dabang_actions)):
        assert f"float32 ({layout.observation_size},)" in text
        assert f"int8 ({actions.NUM_ACTIONS},)" in text
        assert f"Discrete({actions.NUM_ACTIONS})" in text


def test_vector_example_runs(capsys):
    block = blocks(API)["vector"]
    namespace = {}
    exec(compile(block, "README vector example", "exec"), namespace)
    assert namespace["games"].num_envs == 256
    assert "games ended" in capsys.readouterr().out


def test_the_glossary_covers_every_chinese_term_of_the_project():
    """docs/glossary.md explains every Chinese string of the code, the docs and README (a
    term added anywhere must be added there too)."""
    root = README.parent
    cjk = re.compile(r"[\u4e00-\u9fff]+")
    glossary = (root / "docs" / "glossary.md").read_text(encoding="utf-8")
    files = [README, *(root / "cardenv").rglob("*.py"), *(root / "cardagents").rglob("*.py"),
             *(p for p in (root / "docs").rglob("*.md") if p.name != "glossary.md")]
    missing = {term: str(path.relative_to(root)) for path in files
               for term in cjk.findall(path.read_text(encoding="utf-8")) if term not in glossary}
    assert not missing, f"terms missing from docs/glossary.md: {missing}"


def test_the_glossary_gives_the_english_of_every_term_and_lang_en_uses_it():
    """docs/glossary.md's `lang="en"` column is cardenv.core.lang.TERMS, row for row (compounds
    included), and every Chinese string of the code, the docs and README translates with
    lang="en" into text without a Chinese character."""
    from cardenv.core.lang import TERMS, translate

    root = README.parent
    cjk = re.compile(r"[\u4e00-\u9fff]+")
    glossary = (root / "docs" / "glossary.md").read_text(encoding="utf-8")
    english, column = {}, None
    for line in glossary.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") \
            else None
        if cells is None:
            column = None
        elif '`lang="en"`' in cells:
            column = cells.index('`lang="en"`')
        elif column is not None and not set(cells[0]) <= set("-"):
            english[cells[0]] = cells[column]
    assert english == TERMS
    files = [README, *(root / "cardenv").rglob("*.py"), *(root / "cardagents").rglob("*.py"),
             *(root / "docs").rglob("*.md")]
    untranslated = {term: str(path.relative_to(root)) for path in files
                    for term in cjk.findall(path.read_text(encoding="utf-8"))
                    if cjk.search(translate(term, "en"))}
    assert not untranslated, f"terms without an English name in cardenv.core.lang.TERMS: " \
                             f"{untranslated}"


def test_maskable_ppo_example_runs(capsys):
    """README's single-agent example trains MaskablePPO and plays a hand (the [sb3] extra)."""
    import pytest
    pytest.importorskip("sb3_contrib", reason="the [sb3] extra is not installed")
    import torch
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # two threads on a busy 2-core machine are ten times slower
    try:
        block = blocks(API)["maskable"]
        exec(compile(block, "README MaskablePPO example", "exec"), {})
    finally:
        torch.set_num_threads(threads)
    assert "scored" in capsys.readouterr().out


def test_readmes_play_commands_run(tmp_path):
    """Each ``python -m cardenv.play`` line README shows starts its game with the players it
    names (scripted input quits at the first question); ``python -m cardenv.web`` takes its
    arguments."""
    import shlex

    from cardenv import play
    from cardenv.web.__main__ import _parser as web_parser

    text = README.read_text(encoding="utf-8")
    lines = re.findall(r"^python -m (cardenv\.\w+)( [^#\n]*)?", text, re.M)
    assert {module for module, _ in lines} == {"cardenv.play", "cardenv.web"}
    for module, args in lines:
        argv = shlex.split(args or "")
        if module == "cardenv.web":
            web_parser().parse_args(argv)
            continue
        out = []
        code = play.main(argv + ["--seed", "1", "--record", str(tmp_path)],
                         read_line=lambda prompt: "q", write=out.append)
        assert code == 0 and "Stopped." in out, (argv, out[-3:])


def test_readmes_evaluate_command_runs(capsys):
    """The command table's full ``evaluate`` line runs as shown."""
    import shlex

    from cardagents.__main__ import main

    text = README.read_text(encoding="utf-8")
    command = re.search(r"`(evaluate dagong [^`]*)`", text).group(1)
    import pytest
    with pytest.raises(SystemExit) as exit_:
        main(shlex.split(command))
    assert exit_.value.code == 0 and "win rate" in capsys.readouterr().out
