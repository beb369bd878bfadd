"""The web page's league page (``/league``, ``cardenv.web.leagues``): it lists the league tables
that ``python -m cardagents league`` writes, sends one for the page to draw, refuses files that are
not finished leagues with a clear 4xx, and its script names no game."""

import json
import re
import shutil

import pytest

from cardenv.web import App
from cardenv.web.__main__ import main as web_main
from tests import ROOT


@pytest.fixture(scope="module")
def league_json(tmp_path_factory):
    from cardagents.evaluation import league
    folder = tmp_path_factory.mktemp("leagues")
    league.main(["dagong", "random", "heuristic", "--pairs", "2", "--quiet", "--bootstrap", "20",
                 "--out", str(folder / "league_small.json")])
    return folder / "league_small.json"


def call(app, method, path):
    status, kind, body = app.handle(method, path)
    return status, kind, body


def api(app, path, method="GET"):
    status, kind, body = call(app, method, path)
    assert kind.startswith("application/json")
    return status, json.loads(body)


def test_the_league_page_and_its_script_are_served():
    app = App(checkpoint_dir=None)
    status, kind, body = call(app, "GET", "/league")
    assert status == 200 and kind.startswith("text/html")
    assert b'<script src="/static/league.js">' in body
    status, kind, _ = call(app, "GET", "/static/league.js")
    assert status == 200 and "javascript" in kind
    _, _, index = call(app, "GET", "/")
    assert b'href="/league"' in index  # the play page links to it


def test_the_leagues_of_a_folder_are_listed_and_sent(tmp_path, league_json):
    shutil.copy(league_json, tmp_path / "league_one.json")
    (tmp_path / "other.json").write_text("{}")  # not league*.json: not listed
    app = App(checkpoint_dir=None, league_dir=str(tmp_path))
    status, listing = api(app, "/api/leagues")
    assert status == 200 and listing["folder"] == str(tmp_path)
    [entry] = listing["leagues"]
    assert entry["name"] == "league_one.json" and entry["title"].startswith("dagong league")
    status, shown = api(app, "/api/leagues/league_one.json")
    doc = json.loads(league_json.read_text())
    assert status == 200 and shown["ratings"] == doc["ratings"]
    assert shown["matrix"] == doc["matrix"] and shown["title"] == doc["title"]
    assert "pairings" not in shown  # the per-deal scores stay in the file


def test_a_league_named_by_path_is_offered_besides_the_folder(tmp_path, league_json):
    app = App(checkpoint_dir=None, league_dir=str(tmp_path / "none"),
              league_files=[str(league_json)])
    _, listing = api(app, "/api/leagues")
    assert [e["name"] for e in listing["leagues"]] == [str(league_json)]
    status, shown = api(app, "/api/leagues/" + str(league_json).replace("/", "%2F"))
    assert status == 200 and shown["name"] == str(league_json)


@pytest.mark.parametrize("text,problem", [
    ("not json", "not JSON"),
    ('{"format": "something else"}', "not a league"),
    ('{"format": "cardenv-league/1", "complete": false, '
     '"command": "python -m cardagents league x"}',
     "the league is not finished (run its command again to finish it: python -m cardagents league"),
    ('{"format": "cardenv-league/1", "complete": true}', "not a league (no matrix, ratings)"),
])
def test_a_file_that_is_not_a_finished_league_is_listed_with_why_and_refused(tmp_path, text,
                                                                             problem):
    (tmp_path / "league_bad.json").write_text(text)
    app = App(checkpoint_dir=None, league_dir=str(tmp_path))
    _, listing = api(app, "/api/leagues")
    assert problem in listing["leagues"][0]["problem"]
    status, answer = api(app, "/api/leagues/league_bad.json")
    assert status == 400 and problem in answer["error"]


def test_unknown_leagues_and_other_methods_are_refused(tmp_path):
    app = App(checkpoint_dir=None, league_dir=str(tmp_path))
    assert api(app, "/api/leagues") == (200, {"folder": str(tmp_path), "leagues": []})
    status, answer = api(app, "/api/leagues/league_x.json")
    assert status == 404 and "no league 'league_x.json' (leagues: none)" in answer["error"]
    status, _ = api(app, "/api/leagues", method="POST")
    assert status == 405


def test_the_command_line_refuses_a_league_file_that_does_not_exist(capsys):
    with pytest.raises(SystemExit) as stop:
        web_main(["--league", "no/such/league.json", "--no-save"])
    assert stop.value.code == 2
    assert "--league 'no/such/league.json': no such file" in capsys.readouterr().err


def test_the_league_script_names_no_game():
    script = (ROOT / "cardenv" / "web" / "static" / "league.js").read_text(encoding="utf-8")
    code = re.sub(r"(^|\s)//.*", "", script)
    for name in ("dagong", "dabang"):
        assert name not in code.lower()


def test_the_shipped_leagues_name_the_command_of_today():
    """The League tab shows each league's ``command``: today's ``python -m cardagents league``
    (not the old ``python -m agents.league``); an unfinished league's command writes to its own
    file, so that running it again finishes that league (its "not finished" message says so)."""
    import shlex
    found = sorted([*ROOT.glob("docs/results/league*.json"),
                    *ROOT.glob("checkpoints/in_progress/league*.json")])
    assert found
    for path in found:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not str(doc.get("format", "")).startswith("cardenv-league/"):
            continue
        command = shlex.split(doc["command"])
        assert command[:4] == ["python", "-m", "cardagents", "league"], path
        assert not any(word.startswith("agents.") for word in command), path
        if not doc.get("complete"):
            assert command[command.index("--out") + 1] == path.relative_to(ROOT).as_posix()
