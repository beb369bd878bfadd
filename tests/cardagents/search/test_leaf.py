"""The leaf value of depth-limited PIMC (``cardagents.search.leaf``): its data (heuristic hands, the
worth for every seat), its file (a plain ``.npz``, loaded without pickle and evaluated in numpy),
clear errors for wrong files and sizes, deterministic training, and its command line."""

from __future__ import annotations

import numpy as np
import pytest

from cardagents.search.leaf import (FORMAT, Leaf, collect, evaluate, load_leaf, main, seat_columns,
                                    train)
from cardenv.games import make_game


def random_leaf(game="dagong", hidden=(8,), seed=0) -> Leaf:
    rng = np.random.default_rng(seed)
    size = make_game(game).state_size
    widths = [size, *hidden, 4]
    return Leaf(game, [rng.normal(size=(a, b)) for a, b in zip(widths, widths[1:])],
                [rng.normal(size=b) for b in widths[1:]], rng.random(size), 1.7,
                seat_columns(game), "test")


@pytest.fixture(scope="module")
def data():
    return collect("dagong", 12, seed=3, batch=8, keep=0.3)


def test_collect_records_the_hands_worth_for_every_seat(data):
    states, values, seats = data["states"], data["values"], data["seats"]
    assert states.shape == (len(seats), make_game("dagong").state_size) and len(seats) > 50
    # the state's to_play one-hot is the seat that was to act
    assert np.array_equal(states[:, seat_columns("dagong")].argmax(axis=1), seats)
    assert len(np.unique(data["hands"])) == 12
    # a Dagong hand is zero-sum and pays something
    assert np.allclose(values.sum(axis=1), 0) and np.abs(values).max() > 0
    again = collect("dagong", 12, seed=3, batch=8, keep=0.3)
    assert all(np.array_equal(data[k], again[k]) for k in data)


def test_explore_plays_some_steps_at_random(data):
    """``explore``: some steps are random legal actions (other positions, other outcomes),
    still deterministic for a seed."""
    one = collect("dagong", 12, seed=3, batch=8, keep=0.3, explore=0.2)
    two = collect("dagong", 12, seed=3, batch=8, keep=0.3, explore=0.2)
    assert all(np.array_equal(one[k], two[k]) for k in one)
    assert not np.array_equal(one["values"][:50], data["values"][:50])
    assert np.allclose(one["values"].sum(axis=1), 0)


def test_collect_plays_dabangs_first_and_later_hands():
    data = collect("dabang", 6, seed=0, batch=6, keep=0.05)
    game = make_game("dabang")
    first = dict((name, (start, stop)) for name, start, stop, _, _ in
                 game.layout.state_pieces())["first_hand"]
    flags = data["states"][:, first[0]]
    assert (flags == 1).any() and (flags == 0).any()  # first hands and later hands


def test_the_npz_round_trip_gives_identical_values(tmp_path, data):
    leaf = random_leaf()
    path = str(tmp_path / "leaf.npz")
    leaf.save(path)
    again = load_leaf(path, "dagong")
    states = data["states"][:50]
    assert np.array_equal(leaf(states), again(states))
    assert again.command == "test" and again.game == "dagong"
    # the value is the output of the seat to act
    rows = np.arange(len(states))
    assert np.allclose(leaf(states), leaf.seat_values(states)[rows, data["seats"][:50]])


def test_bad_files_and_sizes_are_clear_errors(tmp_path, data):
    leaf = random_leaf()
    good = str(tmp_path / "leaf.npz")
    leaf.save(good)
    text = tmp_path / "text.npz"
    text.write_text("not a zip")
    other = str(tmp_path / "other.npz")
    np.savez(other, format=np.array("something else"))
    pickled = str(tmp_path / "pickled.npz")
    np.savez(pickled, format=np.array([{"a": 1}], dtype=object))
    broken = dict(np.load(good))
    broken["w1"] = broken["w1"][:3]
    broken_path = str(tmp_path / "broken.npz")
    np.savez(broken_path, **broken)
    for path, message in [(str(tmp_path / "missing.npz"), "is not a leaf value file"),
                          (str(text), "is not a leaf value file"),
                          (other, "is not a leaf value file"),
                          (pickled, "is not a leaf value file"),
                          (broken_path, "layer 1's weights do not fit together")]:
        with pytest.raises(ValueError, match=message):
            Leaf.load(path)
    with pytest.raises(ValueError, match="values dagong states, not dabang"):
        load_leaf(good, "dabang")
    size = make_game("dagong").state_size
    with pytest.raises(ValueError, match=rf"reads \(k, {size}\) global states, got shape \(3, 5\)"):
        leaf(np.zeros((3, 5)))
    # a leaf of an earlier layout (pieces appended since) reads the prefix of today's states
    short = random_leaf()
    short.scale = short.scale[:10]
    short.weights[0] = short.weights[0][:10]
    short.state_size = 10
    short.columns = np.arange(4)
    short.save(str(tmp_path / "short.npz"))
    old = load_leaf(str(tmp_path / "short.npz"), "dagong")
    states = np.random.default_rng(1).random((3, size))
    assert np.allclose(old.seat_values(states), old.seat_values(states[:, :10]))
    # one of a later layout (more entries than today's state) is refused
    long = random_leaf()
    long.scale = np.concatenate([long.scale, np.ones(5)])
    long.weights[0] = np.concatenate([long.weights[0], np.zeros((5, 8))])
    long.state_size = size + 5
    long.save(str(tmp_path / "long.npz"))
    with pytest.raises(ValueError, match=f"reads {size + 5} state entries; dagong's global "
                                         f"state has {size}"):
        load_leaf(str(tmp_path / "long.npz"), "dagong")


def test_training_is_deterministic_for_a_seed(data):
    pytest.importorskip("torch")
    one = train(data, "dagong", hidden=(16,), epochs=2, batch=32, seed=4)
    two = train(data, "dagong", hidden=(16,), epochs=2, batch=32, seed=4)
    other = train(data, "dagong", hidden=(16,), epochs=2, batch=32, seed=5)
    assert all(np.array_equal(a, b) for a, b in zip(one.weights, two.weights))
    assert np.array_equal(one(data["states"]), two(data["states"]))
    assert not np.array_equal(one(data["states"]), other(data["states"]))
    # with validation hands, the epoch that fits them best
    valid = collect("dagong", 4, seed=9, batch=4, keep=0.3)
    lines = []
    best = train(data, "dagong", hidden=(16,), epochs=3, batch=32, seed=4, valid=valid,
                 progress=lines.append)
    mses = [float(line.rsplit("MSE ", 1)[1]) for line in lines]
    assert len(mses) == 3
    assert evaluate(valid, best)["leaf"]["mse"] == pytest.approx(min(mses), abs=1e-4)
    stats = evaluate(data, one, random_leaf())
    assert stats["positions"] == len(data["seats"]) and -1 <= stats["leaf"]["corr"] <= 1
    assert stats["critic"]["mse"] > 0


def test_the_command_line_trains_and_evaluates(tmp_path, capsys):
    pytest.importorskip("torch")
    out = str(tmp_path / "leaf.npz")
    stats = main(["train", "dagong", "--hands", "8", "--out", out, "--epochs", "1",
                  "--hidden", "8", "--batch", "8", "--eval-hands", "4", "--valid-hands", "4",
                  "--critic", "checkpoints/dagong_ppo.pt"])
    assert set(stats) >= {"leaf", "critic"}
    assert "PPO global critic  correlation" in capsys.readouterr().out
    leaf = load_leaf(out, "dagong")
    assert leaf.command.startswith("python -m cardagents leaf train dagong --hands 8")
    assert str(np.load(out)["format"]) == FORMAT
    stats = main(["eval", "dagong", out, "--hands", "4", "--batch", "4"])
    assert "leaf" in stats and "critic" not in stats
