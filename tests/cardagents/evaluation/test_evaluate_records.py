"""``python -m cardagents evaluate --records DIR``: one game record per game played (both games of
every deal pair, whole matches with --match), each loading and replaying through the engine to
the results the evaluation counted; the evaluation itself is the same with and without records,
in one process and over Ray."""

import json
import re

import pytest

from cardagents.evaluation.evaluate import main, summarize
from cardenv.games import make_game
from cardenv.records import load


def evaluate(tmp_path, name, argv, records=True):
    out = tmp_path / f"{name}.json"
    extra = ["--records", str(tmp_path / name)] if records else []
    main([*argv, "--quiet", "--out", str(out), *extra])
    return json.loads(out.read_text())


@pytest.mark.parametrize("argv,options", [
    (["dagong", "heuristic", "random", "--deals", "4", "--seed", "11"], {}),
    (["dabang", "random", "heuristic", "--deals", "3", "--match", "--max-hands", "4",
      "--set", "follow=live"], {"episode": "match", "max_hands": 4, "follow": "live"}),
])
def test_every_game_is_recorded_and_replays_to_what_was_counted(tmp_path, argv, options):
    game, spec_a, spec_b, deals = argv[0], argv[1], argv[2], int(argv[4])
    seed = int(argv[6]) if "--seed" in argv else 0
    stats = evaluate(tmp_path, "records", argv)
    files = sorted(p.name for p in (tmp_path / "records").iterdir())
    assert files == sorted(f"{game}-{s:06d}-{o}first.json" for s in range(seed, seed + deals)
                           for o in "ab")
    maker = make_game(game, **options)
    a_scores, b_scores, per_game = [], [], []
    for s in range(seed, seed + deals):
        first_side = maker.sides(maker.new_state(s))[0]
        pair = []
        for order in "ab":
            record = load(tmp_path / "records" / f"{game}-{s:06d}-{order}first.json")  # replays
            assert record.game == game and record.seed == s
            assert record.options == maker.options_dict()
            a_seats = record.meta["a_seats"]
            assert (a_seats == first_side) == (order == "a")
            assert record.players == [spec_a if x in a_seats else spec_b for x in range(4)]
            assert record.meta["deal"] == s and record.meta["game_of_pair"] == "ab".index(order) + 1
            assert record.meta["agent_a"] == spec_a and record.meta["agent_b"] == spec_b
            assert record.meta["evaluation"] == {"seed": seed, "deals": deals}
            if game == "dabang":  # a whole match: won (+1/-1) or cut at --max-hands (0)
                assert 1 <= len(record.results) <= 4
                assert record.meta["truncated"] == (record.returns[0] == 0)
            a = sum(record.returns[x] for x in a_seats)
            pair.append((a, sum(record.returns) - a))
        a_scores.append(pair[0][0] + pair[1][0])
        b_scores.append(pair[0][1] + pair[1][1])
        per_game += [pair[0][0], pair[1][0]]
    counted = {k: v for k, v in stats.items() if k in summarize([], [], [])}
    assert summarize(a_scores, b_scores, per_game) == counted and stats["pairs"] == deals


def test_records_change_nothing_in_the_evaluation(tmp_path, capsys):
    argv = ["dabang", "heuristic", "random", "--deals", "3", "--set", "dealer=random"]
    without = evaluate(tmp_path, "plain", argv, records=False)
    plain = capsys.readouterr()
    with_records = evaluate(tmp_path, "recorded", argv)
    recorded = capsys.readouterr()
    for stats in (without, with_records):
        assert stats.pop("seconds") >= 0
    assert without == with_records
    seconds = re.compile(r"\d+ s\n")
    assert seconds.sub("", plain.out) == seconds.sub("", recorded.out)
    assert plain.err == "  written to " + str(tmp_path / "plain.json") + "\n"
    assert recorded.err.endswith(f"  6 game records in {tmp_path / 'recorded'}\n")
    assert not (tmp_path / "plain").exists() and len(list((tmp_path / "recorded").iterdir())) == 6


def test_records_must_go_to_a_folder(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit):
        main(["dagong", "random", "random", "--deals", "1", "--records", str(tmp_path / "file")])
    assert "--records " + str(tmp_path / "file") + ": not a folder" in capsys.readouterr().err


def test_records_over_ray_are_the_records_of_one_process(local_ray, tmp_path):
    argv = ["dagong", "heuristic", "random", "--deals", "3", "--seed", "5"]
    one = evaluate(tmp_path, "one", argv)
    many = evaluate(tmp_path, "many", [*argv, "--workers", "1"])  # joins the running instance
    assert {k: v for k, v in one.items() if k != "seconds"} == \
        {k: v for k, v in many.items() if k != "seconds"}
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "many").iterdir()) and len(names) == 6
    for name in names:
        a, b = load(tmp_path / "one" / name), load(tmp_path / "many" / name)
        assert a.meta.pop("date") and b.meta.pop("date")  # when each evaluation ran
        assert a == b
