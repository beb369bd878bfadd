"""Card encoding and text (core.cards)."""

import pytest

from cardenv.core.cards import BIG_JOKER, SMALL_JOKER, card_str, counts_of, hand_str, parse_cards


@pytest.mark.parametrize("text, kinds", [
    ("♦3", [0]), ("♠3", [3]), ("3S", [3]), ("10H", [7 * 4 + 2]), ("♥10", [30]),
    ("JS", [8 * 4 + 3]), ("♠J", [35]), ("2D", [48]), ("SJ", [SMALL_JOKER]), ("BJ", [BIG_JOKER]),
    ("kh qc", [10 * 4 + 2, 9 * 4 + 1]),
])
def test_parse(text, kinds):
    assert parse_cards(text) == kinds


@pytest.mark.parametrize("bad", ["1S", "S", "XJ", "10X", "♠1"])
def test_parse_rejects_garbage(bad):
    with pytest.raises(ValueError, match="cannot read card"):
        parse_cards(bad)


def test_round_trip_every_kind():
    for k in range(54):
        assert parse_cards(card_str(k)) == [k]


def test_hand_str_sorted_by_rank():
    assert hand_str(counts_of(parse_cards("BJ 2S 3D 3D 10H"))) == "♦3 ♦3 ♥10 ♠2 BJ"
