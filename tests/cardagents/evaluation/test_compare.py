"""cardagents.evaluation.compare: agreement by phase and paired payoffs by kind of hand."""

import json

import numpy as np
import pytest

from cardagents.evaluation.compare import compare, main, report
from cardagents.evaluation.evaluate import duplicate
from cardagents.players.base import Agent
from cardagents.specs import make_agent

LATER = {"dealer": "random", "levels": "random", "blood": "random"}  # later hands, some tribute


class Lowest(Agent):
    """The lowest legal action: deterministic, so that it plays a deal the same in any seat."""

    def __init__(self, game):
        self.game = game

    def act_batch(self, observations, masks):
        return np.asarray(masks).argmax(axis=1)


def rows(result, key="agreement"):
    return {(r["phase"], r["hand"]) if key == "agreement" else (r["kind"], r["role"]): r
            for r in result[key]}


def test_an_agent_compared_with_itself_agrees_everywhere_and_ties():
    result = compare("dabang", Lowest("dabang"), Lowest("dabang"), 6, LATER, seed=11)
    assert result["agreement"] and all(r["rate"] == 1.0 for r in result["agreement"])
    for r in result["paired"]:
        assert r["payoff_diff"] == 0.0 and r["a_better"] == 0.5
        assert r.get("points_edge", 0.0) == 0.0
    assert result["duplicate"]["ties"] == 6


@pytest.mark.parametrize("game", ["dabang", "dagong"])
def test_the_heuristic_against_itself_agrees_on_every_decision(game):
    # its tie-breaks are random: the copy asked draws from A's stream, so it still agrees
    a, b = make_agent("heuristic", game, 1), make_agent("heuristic", game, 2)
    result = compare(game, a, b, 4, LATER if game == "dabang" else None, seed=5)
    assert sum(r["decisions"] for r in result["agreement"]) > 100
    assert all(r["agreed"] == r["decisions"] for r in result["agreement"])


def test_random_against_the_heuristic_disagrees_by_phase_and_hand():
    a, b = make_agent("random", "dabang", 1), make_agent("heuristic", "dabang", 2)
    result = compare("dabang", a, b, 12, LATER, seed=7)
    table = rows(result)
    for phase in ("declare", "bury", "play: lead", "play: follow"):
        assert (phase, "no tribute") in table and (phase, "tribute hand") in table
    assert table[("play: lead", "no tribute")]["rate"] < 0.5
    # a follow with one legal card is forced: counted apart, out of the rate
    assert table[("play: follow", "no tribute")]["forced"] > 0
    assert table[("declare", "no tribute")]["forced"] == 0  # passing is always open
    assert all(0 <= r["ci95"][0] <= r["rate"] <= r["ci95"][1] <= 1 for r in table.values())
    paired = rows(result, "paired")
    assert paired[("all hands", "both")]["deals"] == 12
    assert paired[("all hands", "both")]["payoff_diff"] < 0  # random loses
    # later hands: the dealer is dealt, each deal gives one defending and one attacking game
    assert paired[("all hands", "A defends")]["comparisons"] == 12
    assert paired[("all hands", "A attacks")]["comparisons"] == 12
    assert {"tribute hand", "later hand, no tribute"} <= {k for k, _ in paired}


def test_the_role_rows_add_up_to_the_deal_pairs():
    # zero-sum hands: A's two games minus B's two, halved, is A's games minus B-only games
    a, b = make_agent("heuristic", "dabang", 1), make_agent("random", "dabang", 2)
    result = compare("dabang", a, b, 8, LATER, seed=3)
    paired = rows(result, "paired")
    both = paired[("all hands", "both")]
    total = sum(paired[("all hands", role)]["payoff_diff"] for role in ("A defends", "A attacks"))
    assert total == pytest.approx(both["payoff_diff"])
    assert both["payoff_diff"] == pytest.approx(2 * result["duplicate"]["mean_payoff_per_game"])


def test_the_duplicate_games_are_agents_evaluate_s():
    def fresh():
        return make_agent("heuristic", "dabang", 1), make_agent("random", "dabang", 2)

    result = compare("dabang", *fresh(), 5, LATER, seed=9)
    assert result["duplicate"] == duplicate("dabang", *fresh(), 5, LATER, seed=9)


def test_the_same_seed_gives_the_same_figures():
    def run(seed):
        a, b = make_agent("random", "dagong", 1), make_agent("heuristic", "dagong", 2)
        return compare("dagong", a, b, 5, seed=seed)

    first = run(4)
    assert run(4) == first
    table = rows(first)
    answer, coarse = table[("answer", "")], table[("answer: pass or play", "")]
    assert answer["decisions"] == coarse["decisions"] > 0
    assert coarse["agreed"] >= answer["agreed"]  # the same action passes or plays alike
    assert answer["rate"] < 1


def test_matches_are_reported_per_hand_unpaired():
    a, b = make_agent("heuristic", "dabang", 1), make_agent("random", "dabang", 2)
    result = compare("dabang", a, b, 2, {"episode": "match", "max_hands": 3}, seed=1)
    assert "paired" not in result
    hands = rows(result, "unpaired")
    assert hands[("first hand", "both")]["hands"] == 4  # two deals, two games each
    assert hands[("all hands", "both")]["hands"] >= 4


def test_the_command_line_prints_the_tables_and_writes_json(tmp_path, capsys):
    out = tmp_path / "compare.json"
    main(["dabang", "random", "heuristic", "--deals", "2", "--seed", "3", "--quiet",
          "--json", str(out), "--set", "dealer=random", "--set", "blood=random"])
    text = capsys.readouterr().out
    for phase in ("| declare |", "| play: lead |", "| play: follow |", "A defends",
                  "Duplicate: 2 deal pairs"):
        assert phase in text
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["deals"] == 2 and saved["agreement"] and saved["paired"]
    assert report(saved, "title").startswith("title")


@pytest.mark.parametrize("argv, message", [
    (["poker", "random", "random"], "invalid choice: 'poker'"),
    (["dabang", "heuristc", "random"], "unknown agent 'heuristc' (did you mean 'heuristic'?)"),
    (["dabang", "random", "random", "--deals", "0"], "--deals must be >= 1"),
    (["dabang", "random", "random", "--set", "follow=sometimes"], "follow='sometimes'"),
    (["dabang", "random", "random", "--seed", "-1"], "--seed must be in"),
])
def test_bad_input_is_a_one_line_error(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
