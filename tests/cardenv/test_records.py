"""Game records (cardenv.records) and their replay on the terminal (cardenv.replay): a record
saved and loaded is the same record; it replays exactly through the engine (random and scripted
games of both games, several hands, a whole Dabang match, an unfinished game); every kind of bad
file is a one-line RecordError naming the file and the problem, an illegal action and changed
results included; the replay command steps forwards, back, to a move, through a seat's view,
prints a whole record, and refuses a bad file with exit status 2."""

import json
import subprocess
import sys

import numpy as np
import pytest

from cardenv.games import make_game
from cardenv.records import (FORMAT, VERSION, GameRecord, RecordError, check, dumps, load,
                             record_of, replay, save)
from cardenv.replay import main as replay_main
from cardenv.text import explain, render
from tests import ROOT

PLAYERS = ["heuristic", "checkpoints/dagong_ppo.pt", "human", "random"]


def play(game: str, options: dict, seed: int, policy: str = "random", moves: int | None = None):
    """A game of ``game`` played to the end (or ``moves`` moves): random legal moves, or
    ``"first"`` / ``"last"`` legal move (scripted)."""
    state = make_game(game, **options).new_state(seed)
    rng = np.random.default_rng(seed)
    while not state.is_over and (moves is None or len(state.history) < moves):
        legal = state.legal_actions()
        action = {"random": lambda: int(rng.choice(legal)), "first": lambda: legal[0],
                  "last": lambda: legal[-1]}[policy]()
        state.apply(action)
    return state


GAMES = {  # name: (game, options, seed, policy)
    "dagong random": ("dagong", {}, 3, "random"),
    "dagong 2 hands scripted": ("dagong", {"hands": 2, "allow_solo": False}, 5, "first"),
    "dabang hand random": ("dabang", {}, 4, "random"),
    "dabang later hand scripted": ("dabang", {"dealer": "random", "levels": "random",
                                              "blood": "random", "follow": "live"}, 6, "last"),
    "dabang match random": ("dabang", {"episode": "match"}, 1, "random"),
    "dabang truncated match": ("dabang", {"episode": "match", "max_hands": 2}, 2, "first"),
}


@pytest.fixture(scope="module")
def finished():
    return {name: play(*spec) for name, spec in GAMES.items()}


@pytest.mark.parametrize("name", GAMES)
def test_a_saved_record_loads_back_the_same(tmp_path, finished, name):
    state = finished[name]
    record = record_of(state, PLAYERS, meta={"source": "测试", "pair": [7, "a"]})
    path = tmp_path / "game.json"
    save(record, path)
    again = load(path)
    assert again == record and again.source == str(path)
    text = path.read_text(encoding="utf-8")
    assert "测试" in text  # UTF-8, not \u escapes
    data = json.loads(text)
    assert data["format"] == FORMAT and data["version"] == VERSION == 1
    assert data["game"] == state.game.name and data["seed"] == state.seed
    assert data["options"] == state.game.options_dict()
    assert data["actions"] == state.history and data["players"] == PLAYERS
    assert data["results"] == [r.to_dict() for r in state.results] != []
    assert data["returns"] == list(state.returns)
    assert data["meta"] == {"source": "测试", "pair": [7, "a"]}
    # compact: one line per field, one per hand result, the actions 30 to a line
    lines = text.splitlines()
    assert len(lines) == 14 + len(state.results) + -(-len(state.history) // 30)
    assert GameRecord.from_dict(json.loads(dumps(record))) == record


@pytest.mark.parametrize("name", GAMES)
def test_a_record_replays_exactly_through_the_engine(finished, name):
    state = finished[name]
    record = record_of(state, PLAYERS)
    states = replay(record)
    assert len(states) == len(state.history) + 1
    for k in (0, 1, len(states) // 2, len(states) - 1):
        assert states[k].history == state.history[:k]  # independent copies
    last = states[-1]
    assert last.to_dict() == state.to_dict()  # buffer, generator, results: the same game
    assert [r.to_dict() for r in last.results] == record.results
    assert list(last.returns) == record.returns and last.is_over
    assert check(record).to_dict() == state.to_dict()
    if name == "dabang match random":
        assert len(record.results) == 13 and record.returns == [1, -1, 1, -1]  # whole match
    if name == "dagong 2 hands scripted":
        assert len(record.results) == 2
    if name == "dabang truncated match":
        assert last.truncated and len(record.results) == 2


def test_an_unfinished_game_records_and_replays():
    state = play("dabang", {"episode": "match"}, 9, moves=150)
    record = record_of(state, PLAYERS)
    assert not state.is_over and len(record.actions) == 150
    states = replay(record)
    assert states[-1].to_dict() == state.to_dict() and states[-1].current_player >= 0


def test_record_of_needs_a_name_per_seat():
    with pytest.raises(ValueError, match="players must name the 4 seats"):
        record_of(play("dagong", {}, 1, moves=3), ["a", "b"])


# --- bad files -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def good():
    """A finished Dagong game's record as a dict (seed 3; move 3 is player_0's)."""
    return record_of(play("dagong", {}, 3), PLAYERS).to_dict()


def illegal_at(data, k):
    """An action that is illegal at move k + 1 of ``data``'s game."""
    state = make_game("dagong", **data["options"]).replay(data["seed"], data["actions"][:k])
    return int(np.flatnonzero(~state.legal_mask())[5]), state.current_player


def write(tmp_path, data=None, text=None):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data) if text is None else text, encoding="utf-8")
    return path


def changed(good, **fields):
    data = json.loads(json.dumps(good))
    for key, value in fields.items():
        if value is KeyError:
            del data[key]
        else:
            data[key] = value
    return data


@pytest.mark.parametrize("case,problem", [
    ("not json", "not JSON (Expecting property name enclosed in double quotes at line 1 "
                 "column 2)"),
    ("a list", 'not a cardenv game record (a JSON list, expected an object with "format": '
               '"cardenv-record")'),
    ("no format", 'not a cardenv game record (no "format" field; expected "cardenv-record")'),
    ("other format", "not a cardenv game record (format 'cardenv.dagong.state/7', expected "
                     '"cardenv-record")'),
    ("no version", 'the record has no "version" field'),
    ("version 2", "record version 2 is not supported (this cardenv reads version 1)"),
    ("version text", "\"version\" must be an int, got '1'"),
    ("unknown game", "unknown game 'dagongg' (did you mean 'dagong'?); registered games: "
                     "dagong, dabang"),
    ("bad option value", "bad options: dagong: option hands=0 is invalid; expected an int in "
                         "1..1000"),
    ("unknown option", "bad options: dagong: unknown option 'handz' (did you mean 'hands'?)"),
    ("options not a dict", '"options" must be an object of rules options, got [1]'),
    ("missing fields", "missing fields 'seed', 'actions'"),
    ("unknown field", "unknown field 'notes' (free-form data goes in \"meta\")"),
    ("seed text", "\"seed\" must be an int in 0..2**63-1, got '3'"),
    ("negative seed", '"seed" must be an int in 0..2**63-1, got -1'),
    ("three players", "\"players\" must be a list of 4 names (strings), got ['a', 'b', 'c']"),
    ("actions not a list", "\"actions\" must be a list of action ids, got '2 621'"),
    ("action out of range", "actions[4] (move 5) must be an action id in 0..2418, got 9999"),
    ("action a bool", "actions[0] (move 1) must be an action id in 0..2418, got True"),
    ("results not a list", '"results" must be a list of hand results (objects), got {}'),
    ("returns of 3", '"returns" must be a list of 4 numbers, got [1, 2, 3]'),
    ("meta a list", '"meta" must be an object, got []'),
])
def test_a_bad_file_is_a_one_line_error_naming_it(tmp_path, good, case, problem):
    data = {
        "a list": [good],
        "no format": changed(good, format=KeyError),
        "other format": changed(good, format="cardenv.dagong.state/7"),
        "no version": changed(good, version=KeyError),
        "version 2": changed(good, version=2),
        "version text": changed(good, version="1"),
        "unknown game": changed(good, game="dagongg"),
        "bad option value": changed(good, options={"hands": 0}),
        "unknown option": changed(good, options={"handz": 2}),
        "options not a dict": changed(good, options=[1]),
        "missing fields": changed(good, seed=KeyError, actions=KeyError),
        "unknown field": changed(good, notes="x"),
        "seed text": changed(good, seed="3"),
        "negative seed": changed(good, seed=-1),
        "three players": changed(good, players=["a", "b", "c"]),
        "actions not a list": changed(good, actions="2 621"),
        "action out of range": changed(good, actions=good["actions"][:4] + [9999]),
        "action a bool": changed(good, actions=[True]),
        "results not a list": changed(good, results={}),
        "returns of 3": changed(good, returns=[1, 2, 3]),
        "meta a list": changed(good, meta=[]),
    }.get(case)
    path = write(tmp_path, data, text="{not json" if case == "not json" else None)
    with pytest.raises(RecordError) as info:
        load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: {problem}"), message
    assert "\n" not in message and isinstance(info.value, ValueError)


def test_a_missing_file_or_a_folder_is_named(tmp_path):
    with pytest.raises(RecordError, match=r"nowhere\.json: no such file$"):
        load(tmp_path / "nowhere.json")
    with pytest.raises(RecordError, match="is a folder, not a game record file"):
        load(tmp_path)
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError, match="the file is not UTF-8 text"):
        load(tmp_path / "binary.json")


def test_an_illegal_action_names_the_move_the_action_and_the_seat(tmp_path, good):
    bad, seat = illegal_at(good, 2)
    data = changed(good, actions=good["actions"][:2] + [bad] + good["actions"][3:])
    path = write(tmp_path, data)
    text = make_game("dagong").action_info(bad).text
    message = (f"{path}: move 3 (actions[2]): action {bad} ({text}) is illegal for "
               f"player_{seat} ({PLAYERS[seat]})")
    with pytest.raises(RecordError) as info:
        load(path)
    assert str(info.value) == message
    record = load(path, verify=False)  # read without replaying: replay finds it
    with pytest.raises(RecordError) as info:
        replay(record)
    assert str(info.value) == message


def test_moves_after_the_end_are_refused(tmp_path, good):
    n = len(good["actions"])
    path = write(tmp_path, changed(good, actions=good["actions"] + [0, 0]))
    with pytest.raises(RecordError) as info:
        load(path)
    assert str(info.value) == (f"{path}: move {n + 1} (actions[{n}]): action 0 comes after "
                               f"the end of the game ({n} moves); the record has 2 moves too "
                               f"many")


def test_changed_results_and_returns_do_not_replay(tmp_path, good):
    result = dict(good["results"][0])
    rewards = result["rewards"]
    result["rewards"] = [rewards[1], rewards[0], *rewards[2:]] if rewards[0] != rewards[1] \
        else [r + 1 for r in rewards]
    path = write(tmp_path, changed(good, results=[result]))
    with pytest.raises(RecordError) as info:
        load(path)
    assert str(info.value) == (f"{path}: the record does not replay: results[0]['rewards'] is "
                               f"{result['rewards']} in the record but {rewards} on replay")

    path = write(tmp_path, changed(good, results=[]))
    with pytest.raises(RecordError, match=r"the record does not replay: it has 0 hand "
                                          r"result\(s\) but its actions finish 1 hand\(s\)$"):
        load(path)

    returns = [r * 2 for r in good["returns"]]
    path = write(tmp_path, changed(good, returns=returns))
    with pytest.raises(RecordError) as info:
        load(path)
    assert str(info.value) == (f"{path}: the record does not replay: returns are {returns} in "
                               f"the record but {good['returns']} on replay")

    # a cut action list: the hand does not finish, and the results say it did
    path = write(tmp_path, changed(good, actions=good["actions"][:-1]))
    with pytest.raises(RecordError, match="it has 1 hand result.* finish 0 hand"):
        load(path)


def test_a_record_built_in_memory_says_so_in_its_errors(good):
    record = GameRecord.from_dict(changed(good, returns=[0, 0, 0, 0]))
    assert record.source is None
    with pytest.raises(RecordError, match=r"^game record: the record does not replay"):
        check(record)


# --- python -m cardenv.replay ------------------------------------------------------------------

@pytest.fixture(scope="module")
def saved(tmp_path_factory, finished):
    path = tmp_path_factory.mktemp("records") / "dagong.json"
    save(record_of(finished["dagong random"], PLAYERS), path)
    return path


def run_replay(capsys, argv, commands=""):
    import io
    status = replay_main([str(a) for a in argv], stdin=io.StringIO(commands))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def headers(out):
    return [line for line in out.splitlines() if line.startswith("move ")]


def test_the_replay_steps_forwards_back_to_a_move_and_through_a_seats_view(capsys, saved):
    record = load(saved)
    states = replay(record)
    n = len(record.actions)
    game = states[0].game
    status, out, err = run_replay(capsys, [saved], "\nn\nb\ng 5\ns 2\na\ne\nn\n?\nx\nq\nn\n")
    assert status == 0 and err == ""
    seat0 = states[0].current_player
    first = f"player_{states[0].current_player} ({PLAYERS[seat0]})"

    def move(k):
        seat = states[k - 1].current_player
        return (f"move {k}/{n}: player_{seat} ({PLAYERS[seat]}): "
                f"{game.action_info(record.actions[k - 1]).text}")

    assert headers(out) == [
        f"move 0/{n}: the deal (seed 3), {first} to act",
        move(1), move(2), move(1), move(5),
        f"{move(5)}  [player_2 (human)'s view]",
        move(5), move(n)]  # q ends it: the n after it is not read
    screens = out.split("\nmove ")
    assert render(states[5], seat=2) in screens[5] and render(states[5]) in screens[6]
    assert render(states[0]) in screens[0] and render(states[n]) in screens[7]
    assert f"(the end: move {n}/{n}; b: back" in out  # n at the end stays there
    assert "commands: Enter or n: next move" in out  # ?
    assert "(unknown command 'x';" in out
    end = out[out.index("end of the record"):]
    # the result in words as a watcher reads it (no JSON: issue 21 "moves in words")
    assert f"hand 1: {explain(states[n], states[n].results[0], None)}" in end
    assert "{" not in end and "hand result(s)" not in end
    assert "returns: " + ", ".join(f"player_{s} ({PLAYERS[s]}) {r:+g}"
                                   for s, r in enumerate(record.returns)) in end


def test_the_replay_refuses_bad_commands_and_stops_at_the_ends(capsys, saved):
    n = len(load(saved).actions)
    status, out, _ = run_replay(capsys, [saved, "--step", "1", "--seat", "3"],
                                f"b\nb\ng {n + 1}\ng x\ns 4\n")
    assert status == 0
    assert headers(out)[0].startswith(f"move 1/{n}: ") and headers(out)[0].endswith(
        "[player_3 (random)'s view]")
    assert headers(out)[1].startswith(f"move 0/{n}: the deal")
    assert "(already at the deal, move 0)" in out
    assert f"(g needs a move number in 0..{n}, e.g. g {n})" in out
    assert out.count("(g needs a move number") == 2
    assert "(s needs a seat number in 0..3, e.g. s 3)" in out
    assert len(headers(out)) == 2  # stdin ended: the replay ends


def test_the_replay_prints_a_whole_record(capsys, saved):
    record = load(saved)
    states = replay(record)
    n = len(record.actions)
    status, out, _ = run_replay(capsys, [saved, "--print"])
    assert status == 0 and len(headers(out)) == n + 1
    assert out.rstrip().endswith("returns: " + ", ".join(
        f"player_{s} ({PLAYERS[s]}) {r:+g}" for s, r in enumerate(record.returns)))
    status, out, _ = run_replay(capsys, [saved, "--print", "--step", str(n - 2), "--seat", "1"])
    assert [h.split(":")[0] for h in headers(out)] == [f"move {k}/{n}" for k in
                                                       (n - 2, n - 1, n)]
    assert render(states[n - 1], seat=1) in out


def test_the_replay_in_english(capsys, tmp_path):
    state = play("dagong", {}, 3)  # player_3 goes solo (硬牌) at move 1
    record = record_of(state, PLAYERS)
    assert "硬牌" in make_game("dagong").action_info(record.actions[0]).text
    path = tmp_path / "game.json"
    save(record, path)
    status, out, _ = run_replay(capsys, [path, "--step", "1", "--lang", "en"], "q\n")
    assert status == 0 and "硬" not in out and "declare solo" in headers(out)[0]
    assert render(replay(record)[1], lang="en") in out


def test_a_bad_file_exits_2_with_the_message_and_no_traceback(capsys, tmp_path, good):
    bad, seat = illegal_at(good, 2)
    path = write(tmp_path, changed(good, actions=good["actions"][:2] + [bad]))
    status, out, err = run_replay(capsys, [path])
    assert status == 2 and out == ""
    assert err == f"cardenv.replay: {path}: move 3 (actions[2]): action {bad} " \
                  f"({make_game('dagong').action_info(bad).text}) is illegal for " \
                  f"player_{seat} ({PLAYERS[seat]})\n"
    done = subprocess.run([sys.executable, "-m", "cardenv.replay", str(tmp_path / "no.json")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"cardenv.replay: {tmp_path / 'no.json'}: no such file\n"
    path = write(tmp_path, good)
    with pytest.raises(SystemExit) as info:  # a bad argument: argparse's usage error
        run_replay(capsys, [path, "--seat", "7"])
    assert info.value.code == 2 and "--seat must be in 0..3, got 7" in capsys.readouterr().err


def test_the_documented_record_and_example_work(tmp_path, monkeypatch):
    """docs/records.md: its example record loads and replays; its code runs as written; its
    error table quotes the messages the code writes."""
    import re

    text = (ROOT / "docs" / "records.md").read_text(
        encoding="utf-8")
    path = tmp_path / "example.json"
    path.write_text(re.findall(r"```json\n(.*?)```", text, re.S)[0], encoding="utf-8")
    record = load(path)
    assert record.returns == [2, 2, -6, 2] and len(record.actions) == 35
    assert dumps(record) == path.read_text(encoding="utf-8")  # the layout save writes
    data = record.to_dict()
    data["actions"][2] = 4
    with pytest.raises(RecordError) as info:
        check(GameRecord.from_dict(data))
    assert f"`{str(info.value).removeprefix('game record: ')}`" in text
    monkeypatch.chdir(tmp_path)
    namespace = {"state": play("dabang", {}, 8)}
    exec(compile(re.findall(r"```python\n(.*?)```", text, re.S)[0], "docs/records.md", "exec"),
         namespace)
    assert namespace["record"].meta == {"source": "me"} and len(namespace["states"]) == \
        len(namespace["state"].history) + 1


def _dealt_by_hand(name: str):
    """A game dealt by hand, played on at random for a while (a later hand too, for Dagong)."""
    if name == "dagong":
        game = make_game("dagong", hands=2)
        deck = np.random.default_rng(11).permutation(np.repeat(np.arange(54), 2)).tolist()
        hands = [deck[i::4] for i in range(4)]
        called = next(k for k in hands[2] if k < 52 and hands[2].count(k) == 1)
        state = game.state_from_hands(hands, 2, called, seed=5)
    else:
        game = make_game("dabang", episode="match")
        deck = np.random.default_rng(12).permutation(np.repeat(np.arange(54), 4)).tolist()
        state = game.new_state(5, deck=deck, first_seat=3)
    rng = np.random.default_rng(1)
    while not state.is_over and len(state.results) < 1 + (name == "dagong"):
        state.apply(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("name", ["dagong", "dabang"])
def test_a_record_is_the_saved_state_plus_players_and_meta(tmp_path, name):
    """Records and saved states share one shape and one loader (issue 22): the record's game
    fields are ``state.to_dict()``'s, and a custom deal travels in ``deal``."""
    state = _dealt_by_hand(name)
    record = record_of(state, PLAYERS, meta={"puzzle": 1})
    saved = state.to_dict()
    assert (record.options, record.seed, record.deal, record.actions, record.results) == \
        (saved["options"], saved["seed"], saved["deal"], saved["history"], saved["results"])
    assert record.deal is not None  # dealt by hand
    save(record, tmp_path / "r.json")
    again = load(tmp_path / "r.json")
    assert again.deal == saved["deal"]
    assert replay(again)[-1].to_dict() == saved
    # a seeded game's record has no deal field: its files are as they were
    seeded = record_of(play(name, {}, 3, moves=20), PLAYERS)
    assert seeded.deal is None and "deal" not in seeded.to_dict()


@pytest.mark.parametrize("name", ["dagong", "dabang"])
def test_a_record_with_a_bad_deal_is_refused(tmp_path, name):
    record = record_of(_dealt_by_hand(name), PLAYERS)
    data = record.to_dict()
    key = "hands" if name == "dagong" else "deck"
    bad = json.loads(json.dumps(data))
    if name == "dagong":
        bad["deal"]["hands"][0] = bad["deal"]["hands"][0] + [bad["deal"]["hands"][1][0]] * 2
    else:
        bad["deal"]["deck"][0] = (bad["deal"]["deck"][0] + 1) % 54
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(RecordError, match="bad deal: .*"):
        load(tmp_path / "bad.json")
    bad["deal"] = [1, 2]
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(RecordError, match="\"deal\" must be an object"):
        load(tmp_path / "bad.json")
    del data["deal"]  # the seeded deal is another game: its first moves are illegal or differ
    (tmp_path / "seeded.json").write_text(json.dumps(data))
    with pytest.raises(RecordError, match="illegal|does not replay"):
        load(tmp_path / "seeded.json")
    assert key in record.deal
