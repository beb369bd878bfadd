"""The toy third game (``tests/toy_game.py``) shown to people through its presentation
(``tests/toy_presentation.py``) alone: played in the terminal (``cardenv.play``), through the web
page's API (``cardenv.web``), and saved as a game record that ``cardenv.records`` checks and
``cardenv.replay`` steps through. No people-layer module knows the game: it registers its
presentation and reasons beside its engine, as docs/engine.md says."""

import io
import json

import pytest

from cardenv import games, play, records, replay, text
from cardenv.web import App
from tests.toy_game import ToyGame


@pytest.fixture
def toy():
    games.register("toy", ToyGame, presentation="tests.toy_presentation",
                   reasons="tests.toy_presentation")
    yield "toy"
    games.unregister("toy")


def test_the_toy_game_is_played_in_the_terminal_and_its_record_replays(toy, tmp_path):
    typed, written = iter(["?", "moves", "play 9", "2"]), []
    code = play.main(["toy", "--seat", "1", "--opponents", "random", "--seed", "3",
                      "--record", str(tmp_path)], read_line=lambda prompt: next(typed),
                     write=written.append)
    out = "\n".join(written)
    assert code == 0
    assert "Two cards | you are player_1 (team 1)" in out  # the presentation's seat view
    assert "play a card: [1] play" in out  # its move label, the moves numbered
    assert "Not played: play 9 is not legal now: you do not hold card 9" in out  # its reasons
    assert "You play: play" in out and "Your team" in out  # the result in words, for the seat
    (path,) = tmp_path.glob("toy-3-*.json")
    record = records.load(path)  # checked by replay through the engine
    assert record.game == "toy" and len(record.actions) == 4 and record.seed == 3
    state = records.replay(record)[-1]
    assert state.is_over and list(state.returns) == list(record.returns)
    out = io.StringIO()
    assert replay.main([str(path), "--print", "--seat", "0"], out=out) == 0
    shown = out.getvalue()
    assert "move 4/4: player_3 (random): play" in shown and "Two cards | you are player_0" in shown
    assert "hand 1: Your team" in shown and "returns: player_0" in shown


def test_the_toy_game_is_played_through_the_web_api(toy):
    app = App(checkpoint_dir=None)

    def call(method, path, body=None):
        status, _, data = app.handle(method, path, json.dumps(body or {}).encode())
        return status, json.loads(data)

    status, info = call("GET", "/api/info")
    assert status == 200 and "toy" in info["games"] and info["options"]["toy"] == []
    status, message = call("POST", "/api/games", {"game": "toy", "seat": 2, "seed": 5,
                                                  "opponents": ["random"] * 3})
    assert status == 201, message
    view = message["view"]
    assert view["title"] == "Two cards" and message["your_turn"] and len(view["hand"]) == 2
    assert [g["label"] for g in message["moves"]] == ["play a card"]
    assert all(m["cards"] == [] for g in message["moves"] for m in g["moves"])
    assert len(message["log"]) == 2  # seats 0 and 1 played before seat 2, face up
    status, refused = call("POST", f"/api/games/{message['id']}/move",
                           {"action": next(c for c in range(10) if str(c) not in view["hand"]),
                            "version": message["version"]})
    assert status == 400 and "you do not hold card" in refused["error"]
    move = message["moves"][0]["moves"][0]
    status, after = call("POST", f"/api/games/{message['id']}/move",
                         {"action": move["id"], "version": message["version"]})
    assert status == 200 and after["over"] and len(after["log"]) == 4
    assert after["results"][0]["text"].startswith("Your team")
    status, header = call("POST", f"/api/games/{message['id']}/replay")
    assert status == 201 and header["moves"] == 4 and header["game"] == "toy"
    status, step = call("GET", f"/api/replays/{header['id']}/4")
    assert status == 200 and step["over"] and [v["seat"] for v in step["views"]] == [0, 1, 2, 3]


def test_the_toy_game_has_no_cards_to_select_and_no_options(toy):
    from cardenv import moves
    state = games.make_game(toy).new_state(0)
    assert moves.open_step(state) is None and moves.move_cards(state, 0) == []
    assert text.option_specs(toy) == []
    with pytest.raises(ValueError, match="you do not hold ♠3"):
        moves.card_moves(state, ["♠3"])
    with pytest.raises(ValueError, match="chosen from the list"):  # its own rule, once held
        games.presentation(toy).card_moves(state, [0], str)


def test_the_toy_game_in_the_terminals_random_mode(toy, capsys):
    """Without --seat or --agents: one random game shown with every hand, more tallied."""
    assert play.main(["toy", "--games", "5", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Two cards | played nothing") and "\nplayer_3: play" in out
    assert "5 random games in" in out and "hands ended by: over 5" in out
