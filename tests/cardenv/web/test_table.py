"""The web page's card table beyond the seat view (``cardenv.web.extras`` and the server): the
Dabang attackers' points against 120 / 160 / 200, the last trick kept until the next lead with
who took it (checked against the engine), the tribute and the burial in words, the rules panel
in the page's language, the other players' moves one at a time (``"advance": false`` then
``/advance``), readable player labels, the shipped agent as the default opponent, the shipped
agents and leagues found from any working folder, and the league JSONs' commands. Every
message these games send goes through ``tests/cardenv/web/test_server.py``'s ``check_message``
(nothing hidden, the extras included)."""

import json
import os
import pathlib
import re
import subprocess
import sys
import urllib.request

import numpy as np
import pytest

from cardenv.core.cards import KIND_POINTS, card_str, parse_cards
from cardenv.web import App
from cardenv.web.extras import Tricks
from tests.cardenv.web.test_server import call, check_message, new_game, session_of
from tests import ROOT

CHECKPOINTS = ROOT / "checkpoints"
CJK = re.compile(r"[\u4e00-\u9fff]")


def points(cards) -> int:
    return sum(int(KIND_POINTS[k]) for k in parse_cards(" ".join(cards))) if cards else 0


def stepwise(app, message, rng, lang="zh", each=lambda message: None):
    """Play a whole game as the page does: the person's random legal moves with ``"advance":
    false``, then each other player's move asked for (``/advance``); every message checked
    (``check_message``) and handed to ``each``. The messages, in order."""
    status, message = call(app, "GET", f"/api/games/{message['id']}?lang={lang}")
    assert status == 200
    seen = [message]
    while not message["over"]:
        check_message(app, message, lang)
        each(message)
        path = f"/api/games/{message['id']}"
        if message["thinking"] is not None:
            assert not message["your_turn"] and message["moves"] == []
            status, answer = call(app, "POST", f"{path}/advance?lang={lang}", {})
            assert answer["version"] == message["version"]  # others' moves: no version
        else:
            moves = [m["id"] for g in message["moves"] for m in g["moves"]]
            status, answer = call(app, "POST", f"{path}/move?lang={lang}",
                                  {"action": int(rng.choice(moves)),
                                   "version": message["version"], "advance": False})
            assert answer["version"] == message["version"] + 1
        assert status == 200, answer
        message = answer
        seen.append(message)
    check_message(app, message, lang)
    each(message)
    return seen


# --- the score, the last trick, the words ----------------------------------------------------

@pytest.mark.parametrize("lang", ["zh", "en"])
def test_dabang_shows_the_attackers_points_against_120_160_200(lang):
    app = App(checkpoint_dir=None)
    message = new_game(app, "dabang", 1, ("heuristic",) * 3, seed=2, advance=False)
    session = session_of(app, message)
    shown = []

    def each(message):
        state, score = session.state, message["score"]
        if state.dealer is None:
            assert score is None
            return
        attackers = 1 - state.dealer % 2
        value = int(state.points[attackers] + state.points[attackers + 2])
        assert score["value"] == value and score["max"] >= value
        assert [(m["at"], m["reached"]) for m in score["marks"]] == [
            (120, value >= 120), (160, value >= 160), (200, value >= 200)]
        facts = dict(score["facts"])
        assert facts["attackers"].startswith(f"team {attackers}: player_{attackers}")
        assert facts["level"] == state.level
        assert str(value) in score["text"]
        if lang == "en":
            assert not CJK.search(json.dumps(score, ensure_ascii=False))
        shown.append(value)

    stepwise(app, message, np.random.default_rng(1), lang, each)
    assert shown and max(shown) > 0


def true_trick_winner(state, action):
    """Dabang: the seat that takes the trick completed by ``action`` in ``state``, from the
    engine itself (the trick played out on a copy that is not let end)."""
    from cardenv.dabang.phases.trick import winning_seat
    copy = state.clone()
    copy.trick.to_play.append(copy.trick.to_play[-1])  # one more to play: the trick stays
    copy.apply(action)
    return winning_seat(copy)


@pytest.mark.parametrize("game, options", [("dabang", {}), ("dagong", {"hands": 2}),
                                           ("dabang", {"episode": "match", "max_hands": 2})])
def test_the_last_trick_stays_until_the_next_lead_with_who_took_it(game, options):
    app = App(checkpoint_dir=None)
    message = new_game(app, game, 2, ("heuristic", "random", "heuristic"), seed=4,
                       options=options, advance=False)
    session = session_of(app, message)
    replay = session.game.new_state(session.seed)
    done, pending, checked = [0], [], [0]

    def each(message):
        history = session.state.history
        for action in history[done[0]:]:  # the engine's own account of each trick's end
            if game == "dabang" and _completes(replay, action):
                pending.append(true_trick_winner(replay, action))
            replay.apply(action)
        done[0] = len(history)
        assert len(pending) <= 1  # one move a message: at most one trick ended
        trick, view = message["last_trick"], message["view"]
        if view["leader"] is not None:
            assert trick is None  # a trick under way: the last one is gone
            return
        if trick is None:
            return
        plays = trick["plays"]
        assert plays and plays[0]["cards"] and trick["text"]
        if trick["points"] is not None:
            assert trick["points"] == sum(points(p["cards"]) for p in plays)
        if game == "dagong" and trick["winner"] is not None:
            assert [p["seat"] for p in plays if p["cards"]][-1] == trick["winner"]
            assert plays[-1]["text"] == "pass"
        if pending:  # a Dabang trick just ended: who took it, by the engine
            truth = pending.pop()
            assert trick["winner"] in (truth, None)
            assert trick["team"] in (truth % 2, None)
            assert trick["winner"] is not None or trick["team"] is not None or \
                trick["points"] == 0
            checked[0] += 1

    stepwise(app, message, np.random.default_rng(0), "en", each)
    assert session.tricks.ended is not None
    assert checked[0] >= 20 or game == "dagong"


def _completes(state, action) -> bool:
    """Whether ``action`` completes a Dabang trick (its last player's last step)."""
    if str(state.phase) != "play" or not state.trick.plays or len(state.trick.to_play) != 1:
        return False
    copy = state.clone()
    copy.apply(action)
    return not copy.trick.plays or copy.is_over or len(copy.results) > len(state.results)


def test_the_trick_keeper_follows_the_leader_of_any_view():
    """A trick starts when a view names a leader and ends when it names none; a game without
    an extras module keeps no trick."""
    tricks = Tricks("dagong")
    quiet = {"leader": None, "to_act": 1, "hand_number": 1, "results": []}
    led = {"leader": {"seat": 1}, "to_act": 2, "hand_number": 1, "results": [],
           "standing": {"seat": 1, "trick_points": 15}}
    tricks.see(quiet, led, 3)
    assert tricks.last() is None and tricks.start == 3
    tricks.see(led, dict(quiet, to_act=1), 6)
    assert tricks.last()["moves"] == (3, 6) and tricks.last()["taken"]["winner"] == 1
    assert tricks.last()["taken"]["points"] == 15
    tricks.see(dict(quiet, to_act=1), led, 7)
    assert tricks.last() is None  # the next lead
    toy = Tricks("toy")
    toy.see(quiet, led, 0)
    toy.see(led, quiet, 1)
    assert toy.last() is None


TRIBUTE = {"dealer": 1, "levels": [5, 7], "blood": 3}


@pytest.mark.parametrize("seat", range(4))
@pytest.mark.parametrize("returned", [False, True])
def test_the_tribute_and_the_burial_are_said_in_words(seat, returned):
    """Each seat reads how many cards the tribute took and where they went (their cards only
    for the dealer and the giver, its 上家), the cards given back (option tribute_return), and
    the burial: the dealer is told to bury 8 cards, the others that it buries 8, then that it
    buried 8."""
    options = dict(TRIBUTE, tribute_return="dealer_choice") if returned else TRIBUTE
    app = App(checkpoint_dir=None)
    message = new_game(app, "dabang", seat, ("heuristic",) * 3, seed=5, options=options,
                       advance=False)
    session = session_of(app, message)
    dealer, giver = 1, 0
    said = {"tribute": set(), "back": set(), "bury": set(), "buried": set()}

    def each(message):
        if message["view"]["hand_number"] != 1:
            return
        for note in message["notes"]:
            if note.startswith("Tribute"):
                said["tribute"].add(note)
            elif "back 3 cards of its choice" in note:
                said["back"].add(note)
            elif "bury 8 cards" in note or "buries 8 cards" in note:
                said["bury"].add(note)
            elif "and buried 8" in note:
                said["buried"].add(note)

    stepwise(app, message, np.random.default_rng(seat), "zh", each)
    state = session.game.new_state(session.seed)
    while state.phase == "declare":
        state.apply(session.state.history[len(state.history)])
    paid = " ".join(card_str(k) for k in sorted(state.tribute.cards))
    (tribute,) = [n for n in said["tribute"] if "gave 3 cards" in n]
    giver_name = "you" if seat == giver else f"player_{giver}"
    dealer_name = "you (the dealer)" if seat == dealer else f"the dealer player_{dealer}"
    assert f"Tribute (喝血): {giver_name}, the dealer's 上家, gave 3 cards to {dealer_name}" \
        in tribute
    if seat in (dealer, giver):
        assert tribute.endswith(f": {paid}.")
    else:
        assert "only those two know" in tribute
    assert bool(said["back"]) == returned
    if seat == dealer:
        assert any(n.startswith("You took up the 8 cards of the 底牌: bury 8 cards")
                   for n in said["bury"])
        assert said["buried"] == {"You (the dealer) took up the 8 cards of the 底牌 and buried 8."}
    else:
        assert any(n.startswith(f"The dealer player_{dealer} took up the 8 cards of the 底牌 and "
                                f"buries 8 cards") for n in said["bury"])
        assert said["buried"] == {f"The dealer player_{dealer} took up the 8 cards of the 底牌 "
                                  f"and buried 8."}


def test_dagong_says_the_called_card_and_what_the_seat_knows_of_the_partner():
    app = App(checkpoint_dir=None)
    for seat in range(4):
        message = new_game(app, "dagong", seat, ("heuristic",) * 3, seed=9)
        state = session_of(app, message).state
        (note, *_) = message["notes"]
        called = message["view"]["called"]
        if state.solo is not None:
            assert "硬牌" in note
        elif seat == state.partner:
            assert note.startswith(f"You hold the other {called}: you are the dealer's partner")
        elif seat == state.dealer:
            assert note.startswith(f"You called {called}: whoever holds the other {called}")
        else:
            assert note.startswith(f"The dealer player_{state.dealer} called {called}")


def test_the_rules_panel_of_each_game_in_the_page_language():
    from cardenv.core.lang import TERMS
    for lang in ("zh", "en"):
        info = call(App(checkpoint_dir=None), "GET", f"/api/info?lang={lang}")[1]
        assert set(info["help"]) == {"dagong", "dabang"}
        for game, panel in info["help"].items():
            text = " ".join(panel["lines"])
            assert len(panel["lines"]) >= 6 and "points" in text
            assert bool(CJK.search(text)) == (lang == "zh"), (game, lang)
            assert panel["terms"] and all(TERMS[t] == e for t, e in panel["terms"])
    dabang = " ".join(info["help"]["dabang"]["lines"])
    assert "160" in dabang and "120" in dabang and "200" in dabang and "tribute" in dabang


# --- the others' moves, one at a time --------------------------------------------------------

@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_the_other_players_move_one_at_a_time_when_the_page_asks(game):
    """With ``"advance": false`` the answer comes right after the person's move, naming the
    seat that thinks next; each ``/advance`` adds one whole move of that seat; the game is the
    one the default (all at once) plays, move for move."""
    app = App(checkpoint_dir=None)
    rng = np.random.default_rng(3)
    message = new_game(app, game, 2, ("heuristic",) * 3, seed=8, advance=False)
    assert message["log"] == [] and message["your_turn"] == (message["thinking"] is None)
    session, mine, steps = session_of(app, message), [], 0
    while not message["over"]:
        path = f"/api/games/{message['id']}"
        if message["thinking"] is not None:
            before, seat = len(session.log), message["thinking"]
            status, answer = call(app, "POST", f"{path}/move",
                                  {"action": 0, "version": message["version"]})
            assert status == 409 and f"not your turn: player_{seat} is to act" in answer["error"]
            _, message = call(app, "POST", f"{path}/advance", {})
            added = session.log[before:]
            assert added and {e["seat"] for e in added} == {seat}
            # one move; a run of one seat's decisions away from the tricks (a burial) whole
            assert len(added) == 1 or (len({e["phase"] for e in added}) == 1
                                       and added[0]["phase"] != "play")
            steps += 1
        else:
            moves = [m["id"] for g in message["moves"] for m in g["moves"]]
            mine.append(int(rng.choice(moves)))
            _, again = call(app, "POST", f"{path}/advance", {})  # the person's turn: nothing
            assert again["log_total"] == message["log_total"] and again["your_turn"]
            _, message = call(app, "POST", f"{path}/move",
                              {"action": mine[-1], "version": message["version"],
                               "advance": False})
            assert message["log"][-1]["seat"] == 2
    stepped = session_of(app, message).state
    # the same game, every other player's moves made before each answer
    message = new_game(app, game, 2, ("heuristic",) * 3, seed=8)
    for action in mine:
        assert message["your_turn"] and message["thinking"] is None
        _, message = call(app, "POST", f"/api/games/{message['id']}/move",
                          {"action": action, "version": message["version"]})
    assert message["over"] and steps > 10
    assert session_of(app, message).state.history == stepped.history
    status, answer = call(app, "POST", f"/api/games/{message['id']}/move",
                          {"action": 0, "advance": "no"})
    assert status == 400 and "'advance' must be true or false" in answer["error"]


# --- players: labels, defaults, found from anywhere --------------------------------------------

def torch_and_shipped():
    pytest.importorskip("torch", reason="loading a PPO checkpoint needs torch ([train] extra)")
    if not (CHECKPOINTS / "dagong_ppo.pt").exists():
        pytest.skip("checkpoints/dagong_ppo.pt is not in this checkout")


def test_players_are_named_by_readable_labels(tmp_path):
    app = App(checkpoint_dir=None)
    specs = {e["game"]: e for e in call(app, "GET", "/api/info")[1]["search"]}
    opponents = ["random", "heuristic", specs["dagong"]["spec"]] if specs else \
        ["random", "heuristic", "random"]
    message = new_game(app, "dagong", 0, opponents, seed=1)
    assert message["labels"][:3] == ["you", "random", "heuristic"]
    assert message["players"][2] == "heuristic"  # the specs stay, for the game record
    if specs:
        assert message["labels"][3] == "search (PIMC)" and specs["dagong"]["name"] == \
            "search (PIMC)"
    assert app.label("pimc:depth=8,critic=checkpoints/dabang_leaf.npz,time=1") == \
        "search (PIMC)"
    assert app.label("runs/mine/dagong.pt") == "dagong.pt"
    # a record's players, in the viewer
    from tests.cardenv.web.test_server import write_record
    path, _ = write_record(tmp_path)
    data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    data["players"] = ["human", "checkpoints/previous/dagong_ppo.pt", "pimc:time=1", "random"]
    status, header = call(app, "POST", "/api/replays",
                          {"text": json.dumps(data), "filename": "x.json"})
    assert status == 201
    assert header["labels"] == ["human", "dagong_ppo.pt", "search (PIMC)", "random"]


def test_checkpoints_are_labelled_and_the_shipped_agent_is_the_default_opponent():
    torch_and_shipped()
    app = App(checkpoint_dir=str(CHECKPOINTS))
    info = call(app, "GET", "/api/info")[1]
    labels = {c["label"]: c for c in info["checkpoints"]}
    assert labels["dagong_ppo.pt"]["game"] == "dagong"
    if (CHECKPOINTS / "previous" / "dagong_ppo.pt").exists():
        assert labels["previous/dagong_ppo.pt"]["game"] == "dagong"
    assert info["defaults"] == {"dagong": str(CHECKPOINTS / "dagong_ppo.pt"),
                                "dabang": str(CHECKPOINTS / "dabang_ppo.pt")}
    status, message = call(app, "POST", "/api/games", {"game": "dagong", "seat": 1, "seed": 2})
    assert status == 201 and message["players"] == [
        info["defaults"]["dagong"], "human", info["defaults"]["dagong"],
        info["defaults"]["dagong"]]
    assert message["labels"] == ["dagong_ppo.pt", "you", "dagong_ppo.pt", "dagong_ppo.pt"]
    assert call(App(checkpoint_dir=None), "GET", "/api/info")[1]["defaults"] == {
        "dagong": "heuristic", "dabang": "heuristic"}


def test_shipped_folders_are_found_from_any_working_folder(tmp_path, monkeypatch):
    from cardenv.web import paths
    monkeypatch.chdir(tmp_path)
    assert paths.shipped("checkpoints") == str(ROOT / "checkpoints")
    assert paths.shipped("docs/results") == str(ROOT / "docs" / "results")
    assert paths.shipped("no/such/folder") == "no/such/folder"
    (tmp_path / "checkpoints").mkdir()  # the working folder's own comes first
    assert paths.shipped("checkpoints") == "checkpoints"


def serve(args, cwd):
    """``python -m cardenv.web --port 0 ARGS`` run in ``cwd`` (this checkout's cardenv): its
    address, the process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-m", "cardenv.web", "--port", "0", "--no-save",
                                *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=cwd, env=env)
    line = process.stdout.readline()
    url = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not url:
        process.kill()
        raise AssertionError(line + process.stderr.read())
    return url.group(0), process


def stop(process) -> str:
    process.terminate()
    process.wait(timeout=30)
    err = process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    return err


def get(url):
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.load(response)


def test_the_page_offers_the_shipped_agents_and_leagues_from_any_folder(tmp_path):
    url, process = serve([], tmp_path)
    try:
        info, leagues = get(url + "api/info"), get(url + "api/leagues")
    finally:
        err = stop(process)
    assert leagues["folder"] == str(ROOT / "docs" / "results")
    assert "league_dagong.json" in {entry["name"] for entry in leagues["leagues"]}
    try:
        import torch  # noqa: F401
    except ImportError:
        return
    assert {"dagong_ppo.pt", "dabang_ppo.pt"} <= {c["label"] for c in info["checkpoints"]}
    assert info["defaults"]["dabang"] == str(ROOT / "checkpoints" / "dabang_ppo.pt")
    assert "no checkpoint found" not in err


def test_a_page_without_any_checkpoint_says_so_on_stderr(tmp_path):
    url, process = serve(["--checkpoints", str(tmp_path)], tmp_path)
    try:
        assert get(url + "api/info")["checkpoints"] == []
    finally:
        err = stop(process)
    lines = [line for line in err.splitlines() if "no checkpoint found" in line]
    assert lines == [f"warning: no checkpoint found in {tmp_path}: the page offers random, "
                     f"heuristic and the search player only (--checkpoints DIR names the "
                     f"folder)"]


# --- the docs -----------------------------------------------------------------------------------

def test_docs_web_tables_end_before_the_next_paragraph_and_show_the_screenshots():
    text = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|"):
            assert line.rstrip().endswith("|"), f"docs/web.md:{i + 1} runs on: {line[-60:]}"
            follows = lines[i + 1] if i + 1 < len(lines) else ""
            assert follows.startswith("|") or not follows.strip(), f"docs/web.md:{i + 2}"
    for name in re.findall(r"\]\((web_[a-z_]+\.png)\)", text):
        assert (ROOT / "docs" / name).is_file(), name
    assert {"web_dabang_table.png", "web_thinking.png", "web_help.png"} <= set(
        re.findall(r"\]\((web_[a-z_]+\.png)\)", text))
