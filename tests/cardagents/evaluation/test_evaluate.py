"""The evaluation statistics on known cases, and the duplicate format."""

import json

import pytest

from cardagents.evaluation.evaluate import duplicate, main, mean_interval, summarize, wilson
from cardagents.players.random import RandomAgent


def test_wilson_interval_known_values():
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.40383, abs=1e-4) and high == pytest.approx(0.59617, abs=1e-4)
    low, high = wilson(100, 100)
    assert high == pytest.approx(1.0) and low == pytest.approx(0.96301, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_mean_interval_known_values():
    mean, low, high = mean_interval([1, 2, 3, 4])
    assert mean == 2.5
    assert low == pytest.approx(2.5 - 1.959964 * 1.290994 / 2, rel=1e-5)
    assert high == pytest.approx(2.5 + 1.959964 * 1.290994 / 2, rel=1e-5)


def test_summarize_counts_wins_ties_losses():
    s = summarize([3, 1, 0, -2], [1, 1, 2, -1], [1, 2, 0, 0, -1, 1, 0, 0])
    assert (s["wins"], s["ties"], s["losses"], s["pairs"]) == (1, 1, 2, 4)
    assert s["win_rate"] == pytest.approx(1.5 / 4)
    assert s["mean_payoff_per_game"] == pytest.approx(3 / 8)


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_an_agent_against_itself_is_even(game):
    agent = RandomAgent(game, 0)
    stats = duplicate(game, agent, agent, 30)
    assert stats["pairs"] == 30 and stats["win_rate_ci95"][0] < 0.5 < stats["win_rate_ci95"][1]


def test_command_line_writes_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    stats = main(["dagong", "random", "random", "--deals", "20", "--out", str(out)])
    assert json.loads(out.read_text())["pairs"] == 20 == stats["pairs"]
    captured = capsys.readouterr()
    assert "win rate" in captured.out
    assert "evaluation: 40/40 games (100%)" in captured.err  # the progress line
    main(["dagong", "random", "random", "--deals", "3", "--quiet"])
    assert "evaluation:" not in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["dagong", "random", "random", "--match"])


def test_game_options_from_the_command_line(capsys):
    stats = main(["dabang", "random", "random", "--deals", "5", "--set", "dealer=random",
                  "--set", "levels=random", "--set", "follow=live"])
    assert stats["options"] == {"dealer": "random", "levels": "random", "follow": "live"}
    with pytest.raises(SystemExit):
        main(["dabang", "random", "random", "--deals", "5", "--set", "follow=sometimes"])
    assert "follow='sometimes' is invalid" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["dagong", "nobody.pt", "random", "--deals", "5"])


def test_report_rebuilds_the_command_and_the_table(tmp_path):
    from cardagents.evaluation.report import command, main as report

    out = tmp_path / "r.json"
    main(["dabang", "random", "random", "--deals", "4", "--match", "--max-hands", "3",
          "--set", "follow=live", "--out", str(out)])
    result = json.loads(out.read_text())
    assert command(result) == ("python -m cardagents evaluate dabang random random --deals 4 "
                               "--match --max-hands 3 --set follow=live")
    text = report([str(out)])
    assert "| dabang | random vs random | match (follow=live) | 4 |" in text


def test_report_refuses_what_is_not_a_result(tmp_path, capsys):
    from cardagents.evaluation.report import main as report

    with pytest.raises(SystemExit):
        report(["--help"])
    assert "cardagents evaluate --out JSON" in capsys.readouterr().out
    cases = [(tmp_path / "missing.json", None, "cannot read"),
             (tmp_path / "junk.json", "not json", "is not JSON"),
             (tmp_path / "other.json", '{"game": "dagong"}', "is not a cardagents evaluate result")]
    for path, text, message in cases:
        if text is not None:
            path.write_text(text)
        with pytest.raises(SystemExit) as e:
            report([str(path)])
        assert message in str(e.value)


@pytest.mark.parametrize("agent,message", [
    ("heuristc", "unknown agent 'heuristc' (did you mean 'heuristic'?): an agent is one of "
                 "random, heuristic, pimc (or pimc:key=value,...) or the path of a PPO "
                 "checkpoint"),
    ("NOTAFILE", "is not a cardenv PPO checkpoint (torch cannot read it"),
    ("tests", "tests is a folder, not a PPO checkpoint"),
])
def test_a_bad_agent_is_a_one_line_error(tmp_path, capsys, agent, message):
    pytest.importorskip("torch")
    if agent == "NOTAFILE":
        agent = str(tmp_path / "junk.pt")
        (tmp_path / "junk.pt").write_text("not a checkpoint")
    with pytest.raises(SystemExit):
        main(["dagong", agent, "random", "--deals", "2"])
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_checkpoint_without_torch_is_a_one_line_error(monkeypatch, capsys):
    import sys
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.delitem(sys.modules, "cardagents.ppo.agent", raising=False)
    with pytest.raises(SystemExit):
        main(["dagong", "checkpoints/dagong_ppo.pt", "random", "--deals", "2"])
    assert 'reading a PPO checkpoint needs torch: pip install -e ".[train]"' in \
        capsys.readouterr().err


def test_the_agents_package_exports_every_agent():
    import cardagents
    from cardagents import DabangHeuristic, DagongHeuristic, RandomAgent  # noqa: F401
    assert DagongHeuristic(0).game == "dagong" and DabangHeuristic(0).game == "dabang"
    pytest.importorskip("torch")
    from cardagents import PPOAgent
    assert PPOAgent.load("checkpoints/dagong_ppo.pt").game == "dagong"
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        cardagents.Nope  # noqa: B018


def test_threads_must_be_positive(capsys):
    with pytest.raises(SystemExit):
        main(["dagong", "random", "random", "--threads", "0"])
    assert "--threads must be >= 1" in capsys.readouterr().err


def test_evaluation_plays_a_made_game_with_its_own_options():
    """A made game (its rules options its own) and a name with options are the same
    evaluation; a made game takes no options beside it."""
    from cardenv.games import make_game

    options = {"dealer": "random", "levels": "random"}
    heur, rand = RandomAgent("dabang", 4), RandomAgent("dabang", 5)
    made = duplicate(make_game("dabang", **options), heur, rand, 12, seed=3)
    assert made == duplicate("dabang", heur, rand, 12, options, seed=3)
    assert made != duplicate("dabang", heur, rand, 12, seed=3)  # the options are played
    with pytest.raises(ValueError, match="options go with a game's name"):
        duplicate(make_game("dabang"), heur, rand, 3, options)


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_a_pair_seats_a_on_the_first_side_of_its_deal(game):
    """A's side is the deal's first side (the game's ``sides`` of the state as dealt), and the
    pair's second game is the same deal with the sides swapped."""
    from cardagents.evaluation.duplicate import play_pairs
    from cardenv.games import make_game

    made = make_game(game)
    pairs = play_pairs(made, RandomAgent(game, 1), RandomAgent(game, 2), list(range(40, 52)),
                       reseed=7, batch=5, history=True)
    for pair in pairs.games:
        assert pair.a_side == made.sides(made.new_state(pair.seed))[0]
        assert pair.a_first.seed == pair.b_first.seed == pair.seed
        # the same deal: each game replays from its seed
        for done in (pair.a_first, pair.b_first):
            assert made.replay(done.seed, done.history).returns == done.returns


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_an_evaluation_deals_each_seed_once(game, monkeypatch):
    """Both games of a pair, and every slot's later games, play clones of one deal per seed
    (issue 22): new_state runs once per seed, whatever the batch."""
    from collections import Counter

    from cardagents.evaluation.duplicate import play_pairs
    from cardenv.games import make_game

    made = make_game(game)
    dealt = Counter()
    real = type(made).new_state

    def counted(self, seed=None, **kwargs):
        dealt[seed] += 1
        return real(self, seed, **kwargs)

    monkeypatch.setattr(type(made), "new_state", counted)
    seeds = list(range(20, 33))
    play_pairs(made, RandomAgent(game, 1), RandomAgent(game, 2), seeds, reseed=7, batch=4)
    assert dealt == Counter(seeds)
