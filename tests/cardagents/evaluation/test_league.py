"""The league (cardagents.evaluation.league, cardagents.evaluation.ratings,
cardagents.evaluation.league_report): Bradley-Terry ratings and their bootstrap, a small round robin
whose pairings are exactly cardagents.evaluation.evaluate's duplicate results, the files it writes,
reuse of finished pairings after an interruption or with a player added, the same result over Ray,
and one-line errors for bad input."""

import builtins
import json
import math

import numpy as np
import pytest

from cardagents.evaluation import league, league_report, ratings
from cardagents.evaluation.evaluate import duplicate
from cardagents.specs import make_agent


# --- ratings --------------------------------------------------------------------------------

def test_two_players_rating_gap_is_the_log_odds_of_their_wins_with_the_prior():
    r = ratings.fit(2, [(0, 1)], [76.0], [100])
    expected = ratings.ELO * math.log((76 + 0.5) / (24 + 0.5))  # PRIOR=1: half a pair each
    assert r[0] - r[1] == pytest.approx(expected, rel=1e-6)
    assert r.sum() == pytest.approx(0.0, abs=1e-9)
    # 76% of pairs is about 200 Elo points
    assert 190 < r[0] - r[1] < 210


def test_ratings_order_a_transitive_league_and_stay_finite_when_one_wins_everything():
    # 0 beats 1 and 2 every time, 1 beats 2 in 70 of 100
    r = ratings.fit(3, [(0, 1), (0, 2), (1, 2)], [100, 100, 70], [100, 100, 100])
    assert r[0] > r[1] > r[2] and np.all(np.isfinite(r))
    # a tie is half a win: all ties give equal ratings
    assert np.allclose(ratings.fit(2, [(0, 1)], [5.0], [10]), 0.0)


def test_outcomes_count_a_tie_as_half():
    assert ratings.outcomes([3, 1, 2], [1, 1, 5]).tolist() == [1.0, 0.5, 0.0]


def test_bootstrap_is_deterministic_for_a_seed_and_brackets_the_fit():
    rng = np.random.default_rng(0)
    results = (rng.random((3, 40)) < [[0.8], [0.9], [0.6]]).astype(float)
    pairings = [(0, 1), (0, 2), (1, 2)]
    one = ratings.ratings_with_intervals(3, pairings, results, 200, seed=5)
    two = ratings.ratings_with_intervals(3, pairings, results, 200, seed=5)
    other = ratings.ratings_with_intervals(3, pairings, results, 200, seed=6)
    assert all(np.array_equal(x, y) for x, y in zip(one, two))
    assert not np.array_equal(one[1], other[1])
    point, low, high = one
    assert np.all(low <= point) and np.all(point <= high) and np.all(low < high)
    # the replicates are fitted one by one: the vectorized fit equals separate fits
    draws = ratings.bootstrap(3, pairings, results, 4, seed=5)
    picks = np.random.default_rng(5).integers(0, 40, size=(4, 40))
    for row, pick in zip(draws, picks):
        alone = ratings.fit(3, pairings, results[:, pick].sum(axis=1), [40] * 3)
        assert np.allclose(row, alone, atol=1e-6)


# --- a small league -------------------------------------------------------------------------

def run(tmp_path, *args, name="l.json"):
    out = tmp_path / name
    doc = league.main([*args, "--out", str(out), "--quiet", "--bootstrap", "50"])
    return doc, out


def comparable(doc):
    """A league document without what differs between two runs of it (date, timings)."""
    return {k: v for k, v in doc.items() if k not in ("date", "timings")} | {
        "pairings": [{k: v for k, v in p.items() if k != "seconds"} for p in doc["pairings"]]}


def test_a_league_is_evaluate_duplicate_for_every_pair_and_writes_its_files(tmp_path, capsys):
    doc, out = run(tmp_path, "dagong", "random", "heuristic", "--pairs", "3", "--seed", "4")
    assert doc["complete"] and doc["settings"] == {
        "game": "dagong", "options": {}, "unit": "hand", "seed": 4, "pairs": 3,
        "chunk": 250, "batch": league.BATCH}
    [pairing] = doc["pairings"]
    expected = duplicate("dagong", make_agent("random", "dagong"),
                         make_agent("heuristic", "dagong"), 3, seed=4)
    cell = doc["matrix"]["cells"][0][1]
    assert {k: cell[k] for k in ("pairs", "wins", "ties", "losses", "win_rate")} == \
        {k: expected[k] for k in ("pairs", "wins", "ties", "losses", "win_rate")}
    assert doc["matrix"]["cells"][1][0]["win_rate"] == pytest.approx(1 - expected["win_rate"])
    assert len(pairing["a_scores"]) == 3 and len(pairing["per_game"]) == 6
    on_disk = json.loads(out.read_text())
    assert on_disk["complete"] and on_disk["ratings"] == doc["ratings"]
    md = (tmp_path / "l.md").read_text()
    assert "| rank | player |" in md and "`heuristic`" in md
    assert (tmp_path / "l.png").read_bytes()[:4] == b"\x89PNG"
    printed = capsys.readouterr().out
    assert printed == md  # what is printed is the markdown written
    rows = {r["player"]: r for r in doc["ratings"]["players"]}
    assert rows["heuristic"]["rating"] == -rows["random"]["rating"]  # mean 0
    low, high = rows["heuristic"]["ci95"]
    assert low <= rows["heuristic"]["rating"] <= high


def test_a_rerun_reuses_every_finished_pairing_and_gives_the_same_league(tmp_path,
                                                                       monkeypatch):
    first, _ = run(tmp_path, "dagong", "random", "heuristic", "--pairs", "2")

    def refuse(*args, **kwargs):
        raise AssertionError("a finished pairing was played again")

    monkeypatch.setattr(league, "play_pairs", refuse)
    again, _ = run(tmp_path, "dagong", "random", "heuristic", "--pairs", "2")
    assert comparable(again) == comparable(first)
    assert again["timings"]["reused_pairings"] == 1


def test_an_interrupted_league_keeps_its_finished_pairings_and_finishes_as_a_fresh_one(
        tmp_path, monkeypatch):
    players = ["dagong", "random", "heuristic", "checkpoints/dagong_ppo.pt", "--pairs", "2"]
    fresh, _ = run(tmp_path, *players, name="fresh.json")
    real, calls = league.play_pairs, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(league, "play_pairs", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, *players)
    kept = json.loads((tmp_path / "l.json").read_text())
    assert not kept["complete"] and [(p["a"], p["b"]) for p in kept["pairings"]] == \
        [("random", "heuristic")]
    monkeypatch.setattr(league, "play_pairs", real)
    finished, _ = run(tmp_path, *players)
    assert finished["timings"]["reused_pairings"] == 1
    assert comparable(finished) | {"command": None} == comparable(fresh) | {"command": None}


def test_an_interrupted_pairing_keeps_its_finished_chunks(tmp_path, monkeypatch):
    players = ["dagong", "random", "heuristic", "--pairs", "5", "--chunk", "2"]
    fresh, _ = run(tmp_path, *players, name="fresh.json")
    real, calls = league.play_pairs, []

    def interrupted(game, a, b, seeds, *args, **kwargs):
        calls.append(seeds)
        if len(calls) == 3:  # the third chunk of the one pairing: two are kept
            raise KeyboardInterrupt
        return real(game, a, b, seeds, *args, **kwargs)

    monkeypatch.setattr(league, "play_pairs", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, *players)
    kept = json.loads((tmp_path / "l.json").read_text())
    assert not kept["complete"] and kept["pairings"] == []
    assert [c["start"] for c in kept["chunks"]] == [0, 2]
    calls.clear()
    finished, _ = run(tmp_path, *players)
    assert calls == [[4]]  # only the last chunk is played
    assert finished["timings"]["reused_chunks"] == 2 and "chunks" not in finished
    assert comparable(finished) | {"command": None} == comparable(fresh) | {"command": None}


def test_a_player_added_plays_only_its_pairings_and_other_settings_reuse_nothing(
        tmp_path, monkeypatch):
    run(tmp_path, "dagong", "random", "heuristic", "--pairs", "2")
    played = []
    real = league.play_pairs
    monkeypatch.setattr(league, "play_pairs",
                        lambda game, a, b, *rest, **kw: played.append((a, b)) or
                        real(game, a, b, *rest, **kw))
    doc, _ = run(tmp_path, "dagong", "random", "heuristic", "checkpoints/dagong_ppo.pt",
                 "--pairs", "2")
    assert len(played) == 2 and doc["timings"]["reused_pairings"] == 1
    played.clear()
    run(tmp_path, "dagong", "random", "heuristic", "--pairs", "2", "--seed", "1")
    assert len(played) == 1  # another seed: other deals, nothing reused
    played.clear()
    run(tmp_path, "dagong", "random", "heuristic", "--pairs", "2", "--seed", "1", "--fresh")
    assert len(played) == 1


def test_an_out_file_that_is_not_a_league_is_never_overwritten(tmp_path, capsys):
    precious = tmp_path / "notes.json"
    precious.write_text('{"mine": 1}')
    with pytest.raises(SystemExit):
        league.main(["dagong", "random", "heuristic", "--out", str(precious)])
    assert "is not a league's JSON; it is not overwritten" in capsys.readouterr().err
    assert precious.read_text() == '{"mine": 1}'


def test_more_or_fewer_pairs_keep_the_chunks_with_the_same_deals(tmp_path, monkeypatch):
    common = ["dagong", "random", "heuristic", "--chunk", "2"]
    fresh, _ = run(tmp_path, *common, "--pairs", "5", name="fresh.json")
    run(tmp_path, *common, "--pairs", "3")  # chunks [0, 1] and [2]
    played = []
    real = league.play_pairs
    monkeypatch.setattr(league, "play_pairs", lambda game, a, b, seeds, *rest, **kw:
                        played.append(seeds) or real(game, a, b, seeds, *rest, **kw))
    grown, _ = run(tmp_path, *common, "--pairs", "5")
    assert played == [[2, 3], [4]]  # [2] is not the chunk [2, 3]: played again
    assert grown["timings"]["reused_chunks"] == 1
    assert comparable(grown) | {"command": None} == comparable(fresh) | {"command": None}
    played.clear()
    shrunk, _ = run(tmp_path, *common, "--pairs", "4")
    assert played == [] and shrunk["timings"]["reused_chunks"] == 2
    assert shrunk["pairings"][0]["a_scores"] == fresh["pairings"][0]["a_scores"][:4]


def test_the_default_players_are_random_heuristic_both_ppo_and_the_fast_pimc_budget():
    players = league.default_players("dabang")
    assert players[:2] == ["random", "heuristic"] and players[4:] == ["pimc:fast"]
    assert [p.replace("\\", "/").split("checkpoints/")[-1] for p in players[2:4]] == \
        ["dabang_ppo.pt", "previous/dabang_ppo.pt"]


def test_a_dabang_match_league(tmp_path):
    doc, _ = run(tmp_path, "dabang", "random", "heuristic", "--match", "--max-hands", "2",
                 "--pairs", "1")
    assert doc["settings"]["unit"] == "match"
    assert doc["settings"]["options"] == {"episode": "match", "max_hands": 2}
    assert "whole matches" in league_report.title(doc)
    expected = duplicate("dabang", make_agent("random", "dabang"),
                         make_agent("heuristic", "dabang"), 1,
                         {"episode": "match", "max_hands": 2})
    assert doc["matrix"]["cells"][0][1]["win_rate"] == expected["win_rate"]


def test_a_dabang_league_of_later_hands_with_rules_options(tmp_path):
    doc, _ = run(tmp_path, "dabang", "random", "heuristic", "--pairs", "2", "--set",
                 "blood=random", "--set", "dealer=random", "--set", "levels=random")
    assert doc["settings"]["options"] == {"blood": "random", "dealer": "random",
                                          "levels": "random"}
    assert "(blood=random, dealer=random, levels=random)" in league_report.title(doc)
    expected = duplicate("dabang", make_agent("random", "dabang"),
                         make_agent("heuristic", "dabang"), 2,
                         {"blood": "random", "dealer": "random", "levels": "random"})
    pairing = doc["pairings"][0]
    assert np.mean(pairing["per_game"]) == pytest.approx(expected["mean_payoff_per_game"])


def test_without_matplotlib_the_league_is_written_without_its_chart(tmp_path, monkeypatch,
                                                                    capsys):
    real = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    doc, out = run(tmp_path, "dagong", "random", "heuristic", "--pairs", "1")
    assert doc["complete"] and out.exists() and (tmp_path / "l.md").exists()
    assert not (tmp_path / "l.png").exists()
    assert 'no chart: it needs matplotlib (pip install -e ".[plot]")' in capsys.readouterr().err


def test_redraw_computes_the_tables_again_from_the_json_alone(tmp_path, monkeypatch):
    doc, out = run(tmp_path, "dagong", "random", "heuristic", "--pairs", "1")
    md = (tmp_path / "l.md").read_text()
    (tmp_path / "l.md").unlink()
    monkeypatch.setattr(league, "play_pairs", None)  # nothing is played
    written = json.loads(out.read_text())
    league.main(["--redraw", str(out)])
    assert (tmp_path / "l.md").read_text() == md
    assert json.loads(out.read_text()) == written  # the same tables computed again


@pytest.mark.parametrize("args,message", [
    (["dagong", "random", "nosuch"], "unknown agent 'nosuch'"),
    (["dagong", "heuristc", "random"], "did you mean 'heuristic'"),
    (["dagong", "random"], "a league needs at least two players, got 1"),
    (["dagong", "random", "random"], "each player once: random named twice"),
    (["dagong", "random", "heuristic", "--pairs", "0"], "--pairs must be >= 1"),
    (["dagong", "random", "heuristic", "--bootstrap", "3"], "--bootstrap must be in 10.."),
    (["dagong", "random", "heuristic", "--chunk", "0"], "--chunk must be >= 1"),
    (["dagong", "random", "heuristic", "--seed", "-1"], "--seed must be in 0.."),
    (["dagong", "random", "heuristic", "--workers", "-1"], "--workers must be in 0.."),
    (["dagong", "random", "heuristic", "--address", "auto"], "--address needs --workers"),
    (["dagong", "random", "heuristic", "--set", "nosuch=1"], "nosuch"),
    (["dagong", "random", "heuristic", "--out", "/nonexistent/l.json"], "--out"),
    (["dagong", "random", "heuristic", "--out", "l.txt"], "name a .json file"),
    (["dagong", "random", "heuristic", "--match"], "--match: dagong has no whole-match"),
    (["dagong", "random", "checkpoints/dabang_ppo.pt"], "plays dabang, not dagong"),
    ([], "name a game"),
    (["--redraw", "README.md"], "not a league's JSON"),
])
def test_bad_input_is_one_line_and_exit_status_2(tmp_path, capsys, args, message):
    with pytest.raises(SystemExit) as stop:
        league.main(args + ([] if "--out" in args or "--redraw" in args
                            else ["--out", str(tmp_path / "l.json")]))
    said = capsys.readouterr().err.strip() or str(stop.value.code)
    assert stop.value.code in (2, said) and message in said and "\n" not in said
    assert not (tmp_path / "l.json").exists()


def test_over_ray_the_league_is_the_one_process_league(local_ray, tmp_path):
    # 3 pairs in chunks of 2: each pairing spans two tasks of unequal size, so the merge of
    # chunks and of pairings is what is compared
    args = ["dagong", "random", "heuristic", "checkpoints/dagong_ppo.pt", "--pairs", "3",
            "--chunk", "2"]
    local, _ = run(tmp_path, *args, name="local.json")
    spread, _ = run(tmp_path, *args, "--workers", "2", name="ray.json")
    assert comparable(spread) | {"command": None} == comparable(local) | {"command": None}
    assert spread["timings"]["workers"] == 2


def test_the_chart_draws_an_interval_whose_bound_is_a_rounding_error_past_the_rating(tmp_path):
    pytest.importorskip("matplotlib")
    from cardagents.evaluation import league_report
    doc = {"settings": {"game": "dagong", "unit": "hand", "options": {}, "seed": 0, "pairs": 2},
           "ratings": {"players": [
               {"player": "random", "rating": -186.392, "ci95": [-198.9, -186.392 - 4e-10]},
               {"player": "heuristic", "rating": 93.196, "ci95": [0.0, 198.9]}]}}
    path = tmp_path / "chart.png"
    assert league_report.chart(doc, str(path)) is None and path.stat().st_size > 0
