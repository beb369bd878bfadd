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
