"""docs/results/dabang_match_hands.py: the per-kind-of-hand breakdown of Dabang match records
that docs/results.md quotes."""

import importlib.util
import json
import pathlib

import pytest

from cardagents.evaluation.evaluate import main as evaluate

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load_script():
    spec = importlib.util.spec_from_file_location("dabang_match_hands",
                                                  ROOT / "docs/results/dabang_match_hands.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def result(dealer, gained, blood, winner=None):
    return {"dealer": dealer, "gained": gained, "blood": blood, "match_winner": winner}


def test_hands_are_classified_by_the_blood_the_hand_before_owed():
    script = load_script()
    # A sits on team 0 (seats 0 and 2); the second hand follows a result that owed 3 blood, the
    # third follows one that owed none
    record = {"meta": {"a_seats": [0, 2]}, "results": [
        result(dealer=1, gained=[2, 0], blood=3),      # first hand, A attacks
        result(dealer=0, gained=[1, 0], blood=0),      # tribute hand, A defends
        result(dealer=2, gained=[0, 2], blood=1, winner=1),  # later hand without tribute
    ]}
    stats, winners = script.tally([record])
    assert stats[("first hand", "A attacks")] == [1, 2, 0]
    assert stats[("tribute hand", "A defends")] == [1, 1, 0]
    assert stats[("later hand, no tribute", "A defends")] == [1, 0, 2]
    assert stats[("all hands", "both")] == [3, 3, 2]
    assert winners == {"B": 1}


def test_the_script_reads_evaluate_match_records(tmp_path):
    script = load_script()
    evaluate(["dabang", "heuristic", "random", "--deals", "2", "--match", "--max-hands", "3",
              "--records", str(tmp_path), "--quiet"])
    records = [json.loads(p.read_text()) for p in sorted(tmp_path.iterdir())]
    text = script.main([str(tmp_path)])
    hands = sum(len(r["results"]) for r in records)
    assert text.startswith("4 matches:")
    assert f"| all hands | both | {hands:,} |" in text
    assert "| first hand | both | 4 |" in text
    (tmp_path / "x.json").write_text(json.dumps({"game": "dagong", "options": {}}))
    with pytest.raises(SystemExit, match="not a Dabang record of cardagents.evaluation.evaluate"):
        script.main([str(tmp_path)])


def test_later_hand_records_are_grouped_by_the_blood_owed(tmp_path):
    from cardenv.dabang.game import draw_blood

    script = load_script()
    evaluate(["dabang", "heuristic", "random", "--deals", "6", "--set", "dealer=random",
              "--set", "levels=random", "--set", "blood=random", "--records", str(tmp_path),
              "--quiet"])
    owed = sum(1 for seed in range(6) if draw_blood(seed))
    text = script.main([str(tmp_path)])
    rows = {line.split(" | ")[0].strip("| "): line for line in text.splitlines()[2:]}
    assert sum(int(line.split(" | ")[1]) for line in rows.values()) == 6
    if owed:
        assert f"| blood owed | {owed} |" in rows["blood owed"]
    if owed < 6:
        assert f"| no blood owed | {6 - owed} |" in rows["no blood owed"]
