"""``core.layout``: the gathers by view rule, and derived pieces computed from the observation."""

import numpy as np
import pytest

from cardenv.core.layout import Layout, Piece


def _sum_of_hand(views):
    # a derived "own" piece read from the seat's own stored piece; a derived "seats" piece from
    # a stored "seats" piece (already rotated by the gather)
    views["hand_total"][:, 0] = views["hand"].sum(axis=1)
    views["ahead"][:] = views["score"] > views["score"][:, :1]


PIECES = [
    Piece("hand", (4, 3), "own", "own cards", 9),
    Piece("score", (4,), "seats", "points per seat", 100),
    Piece("hand_total", (1,), "own", "cards in own hand", 27, derived=True),
    Piece("secret", (2,), "hidden", "never seen"),
    Piece("ahead", (4,), "seats", "1 for each seat with more points than the observer",
          derived=True),
    Piece("round", (1,), "public", "round number", 10),
]


def _buffer(layout):
    buf = np.zeros(layout.size, dtype=np.int16)
    v = layout.views(buf)
    v["hand"][:] = np.arange(12).reshape(4, 3)
    v["score"][:] = [5, 9, 1, 7]
    v["secret"][:] = 1
    v["round"][0] = 3
    return buf


def test_derived_pieces_take_no_buffer_room_and_come_in_declaration_order():
    layout = Layout(PIECES, derive=_sum_of_hand)
    assert layout.size == 12 + 4 + 2 + 1  # derived pieces are not stored
    assert [name for name, *_ in layout.observation_pieces()] == [
        "hand", "score", "hand_total", "ahead", "round"]
    assert layout.observation_size == 3 + 4 + 1 + 4 + 1
    assert [name for name, *_ in layout.state_pieces()] == ["hand", "score", "secret", "round"]
    assert layout.observation_high.tolist() == [9] * 3 + [100] * 4 + [27] + [1] * 4 + [10]
    assert "(derived) cards in own hand" in layout.markdown_table()


@pytest.mark.parametrize("seat", range(4))
def test_observe_gathers_the_stored_pieces_and_derives_the_rest(seat):
    layout = Layout(PIECES, derive=_sum_of_hand)
    buf = _buffer(layout)
    obs = layout.observe(buf[None], np.array([seat]))[0]
    rot = [(seat + i) % 4 for i in range(4)]
    score = np.array([5, 9, 1, 7])[rot]
    hand = np.arange(12).reshape(4, 3)[seat]
    expected = np.concatenate([hand, score, [hand.sum()], score > score[0], [3]])
    assert obs.tolist() == expected.tolist()
    # a batch, rows seen by different seats, gives each row its own seat's view
    batch = layout.observe(np.stack([buf, buf]), np.array([seat, (seat + 1) % 4]))
    assert batch[0].tolist() == expected.tolist()
    assert batch[1].tolist() == layout.observe(buf[None], np.array([(seat + 1) % 4]))[0].tolist()


def test_a_layout_without_derived_pieces_is_a_plain_gather():
    layout = Layout([p for p in PIECES if not p.derived])
    buf = _buffer(layout)
    obs = layout.observe(buf[None], np.array([2]))[0]
    assert obs.tolist() == buf[layout.observation_index[2]].tolist()


@pytest.mark.parametrize("pieces, message", [
    (PIECES, "needs a derive function"),
    ([Piece("x", (4, 2), "own_seats", "", derived=True)], "derived pieces are public"),
    ([Piece("x", (3,), "seats", "", derived=True)], "leading axis of 4"),
    ([Piece("x", (2,), "nowhere", "")], "unknown rule"),
])
def test_bad_declarations_are_refused(pieces, message):
    with pytest.raises(ValueError, match=message):
        Layout(pieces, derive=None if pieces is PIECES else _sum_of_hand)


def test_the_seat_state_index_rotates_every_seat_axis():
    layout = Layout(PIECES, derive=_sum_of_hand)
    buf = _buffer(layout)
    index = layout.seat_state_index()
    assert index.shape == (4, layout.size)
    for seat in range(4):
        view = layout.views(buf[index[seat]])
        rotation = (seat + np.arange(4)) % 4
        assert np.array_equal(view["hand"], np.arange(12).reshape(4, 3)[rotation])
        assert np.array_equal(view["score"], np.array([5, 9, 1, 7])[rotation])
        assert view["secret"].tolist() == [1, 1] and view["round"][0] == 3


def test_a_turn_piece_must_be_a_stored_one_hot_of_the_seats():
    with pytest.raises(ValueError, match="turn must name"):
        Layout(PIECES, derive=_sum_of_hand, turn="round")
    with pytest.raises(ValueError, match="declares no turn"):
        Layout(PIECES, derive=_sum_of_hand).turn_span()
    layout = Layout(PIECES, derive=_sum_of_hand, turn="score")
    assert layout.turn_span() == (12, 16)


@pytest.mark.parametrize("name", ["dagong", "dabang"])
def test_a_seat_state_agrees_with_that_seats_observation(name):
    # the global state seen from the seat to act holds that seat's observation: each public or
    # seats piece as observed, each own / own_seats piece as its row 0
    from cardenv.games import make_game
    from cardenv.vector import VectorGame
    layout = make_game(name).layout
    index = layout.seat_state_index()
    obs_span = {p[0]: p[1:4] for p in layout.observation_pieces()}
    rules = {p.name: p.rule for p in layout.stored}
    games = VectorGame(name, 24, seed=11, options=[{}, {"hands": 2}] if name == "dagong" else {})
    rng = np.random.default_rng(4)
    for _ in range(120):
        states, obs, seats = games.states(), games.observations(), games.current()
        turn = slice(*layout.turn_span())
        assert (states[np.arange(len(seats)), turn.start + seats] == 1).all()
        seen = states[np.arange(len(seats))[:, None], index[seats]]
        assert (seen[:, turn] == np.eye(4)[0]).all()  # row 0 is the seat to act
        for piece, start, stop, shape, _ in layout.state_pieces():
            if rules[piece] == "hidden":
                continue
            mine = seen[:, start:stop].reshape(len(seats), *shape)
            o0, o1, _ = obs_span[piece]
            want = obs[:, o0:o1]
            got = mine[:, 0] if rules[piece] in ("own", "own_seats") else mine
            assert np.array_equal(got.reshape(len(seats), -1), want), piece
        legal = games.masks()
        games.step(np.array([rng.choice(np.flatnonzero(row)) for row in legal]))
