"""Table-driven checks of the Dagong combinations (RULES-BRIEF B2, [D-B1]; 明鸡 B3).

Each row: (clause, hand, standing play or None = leading, called card or None = one the hand
does not hold, action, expected legal?). Hands use ``reference.parse_hand`` ("5S 10H KD SJ BJ",
"9*7" = seven 9s); actions ``reference.parse_action`` ("pair_run 3-4 j1", "510k S j=K",
"+called" = the variant playing the called card). Every row is checked against
``legality.play_mask`` and, to keep the oracle honest, against ``reference.legal_actions``.

The second table lists, for a hand and one combination type, the exact set of legal leads of
that type (for what cannot be named as an action: "K-A-2 is not a run", "four jokers are only
天炸").
"""

from __future__ import annotations

import numpy as np
import pytest

from cardenv.dagong import catalogue as cat
from cardenv.dagong.legality import play_mask

try:
    from . import reference as ref
except ImportError:  # pragma: no cover
    import reference as ref

ROWS = [
    # --- singles ---
    ("B2 single", "7S", None, None, "single 7", True),
    ("B2 single; rank order 2 > A", "2D", "single A", None, "single 2", True),
    ("B2 single; rank order 2 > A", "AD", "single 2", None, "single A", False),
    ("B2 [D-B1] lone joker = single 3", "SJ", None, None, "single 3 j1", True),
    ("B2 [D-B1] lone joker = single 3", "BJ", "single 3", None, "single 3 j1", False),
    ("B2 [D-B1] lone joker = single 3", "4D", "single 3 j1", None, "single 4", True),
    ("B2 [D-B1] lone joker = single 3", "3D", "single 3 j1", None, "single 3", False),
    ("B2 same type and rank does not beat", "7S", "single 7", None, "single 7", False),
    # --- pairs ---
    ("B2 pair", "8S 8H", None, None, "pair 8", True),
    ("B2 pair", "8S 9H", None, None, "pair 8", False),
    ("B2 pair with joker", "8S SJ", None, None, "pair 8 j1", True),
    ("B2 pair with joker", "8S SJ", "pair 7", None, "pair 8 j1", True),
    ("B2 pair with joker compares by rank", "8S SJ", "pair 8", None, "pair 8 j1", False),
    ("B2 pair with joker compares by rank", "8S 8D", "pair 8 j1", None, "pair 8", False),
    ("B2 [D-B1] two jokers = pair of 3s", "SJ BJ", None, None, "pair 3 j2", True),
    ("B2 [D-B1] two jokers = pair of 3s", "SJ BJ", "pair 3", None, "pair 3 j2", False),
    ("B2 [D-B1] two jokers = pair of 3s", "4S 4H", "pair 3 j2", None, "pair 4", True),
    ("B2 nothing else compares", "SJ BJ", "single 2", None, "pair 3 j2", False),
    ("B2 nothing else compares", "9S 9H", "single 3", None, "pair 9", False),
    # --- triples ---
    ("B2 triple", "9S 9H 9D", None, None, "triple 9", True),
    ("B2 triple with joker", "9S 9H SJ", None, None, "triple 9 j1", True),
    ("B2 one natural + two jokers = triple", "9S SJ BJ", None, None, "triple 9 j2", True),
    ("B2 [D-B1] three jokers = triple of 3s", "SJ SJ BJ", None, None, "triple 3 j3", True),
    ("B2 [D-B1] three jokers = triple of 3s", "SJ SJ BJ", "triple 3", None, "triple 3 j3", False),
    ("B2 triple", "10S 10H 10D", "triple 9 j2", None, "triple 10", True),
    ("B2 nothing else compares", "10S 10H 10D", "pair 9", None, "triple 10", False),
    ("B2 triple (other cards stay in hand)", "10S 10H 10D 4S", "triple 9", None, "triple 10", True),
    # --- seed: 3 条 3 + 癞子 = 3333, same as a natural 4-bomb of 3s ---
    ("B2 seed 3,3,3+joker = 3333", "3S 3H 3D SJ", None, None, "bomb 4x3 j1", True),
    ("B2 seed 3,3,3+joker = 3333", "3S 3H 3D SJ", "bomb 4x3", None, "bomb 4x3 j1", False),
    ("B2 seed 3,3,3+joker = 3333", "3S 3H 3D 3C", "bomb 4x3 j1", None, "bomb 4x3", False),
    ("B2 seed 3,3,3+joker = 3333", "4S 4H 4D 4C", "bomb 4x3 j1", None, "bomb 4x4", True),
    # --- seed: pair of 4 + single 3 + joker = 4433 ---
    ("B2 seed 4,4,3+joker = pair run 3-4", "4S 4H 3D SJ", None, None, "pair_run 3-4 j1", True),
    ("B2 runs compare by top rank", "4S 4H 3D SJ", "pair_run 3-4", None, "pair_run 3-4 j1", False),
    ("B2 runs compare by top rank", "4S 4H 5D SJ", "pair_run 3-4", None, "pair_run 4-5 j1", True),
    # --- seed: 4-bomb + joker = 5-bomb ---
    ("B2 seed 4-bomb+joker = 5-bomb", "6S 6H 6D 6C SJ", None, None, "bomb 5x6 j1", True),
    ("B2 seed 4-bomb+joker = 5-bomb", "6S 6H 6D 6C SJ", "bomb 5x5", None, "bomb 5x6 j1", True),
    ("B2 seed 4-bomb+joker = 5-bomb", "6S 6H 6D 6C SJ", "bomb 5x7", None, "bomb 5x6 j1", False),
    # --- seed: one natural + two jokers is only a triple ---
    ("B2 [D-B1] 1 natural+2 jokers not 510K", "KS SJ BJ", None, None, "510k S j=5", False),
    ("B2 [D-B1] 1 natural+2 jokers not 510K", "KS SJ BJ", None, None, "510k za j=5", False),
    ("B2 [D-B1] 1 natural+2 jokers not 510K", "5S SJ BJ", None, None, "510k S j=10", False),
    ("B2 [D-B1] 1 natural+2 jokers = triple", "KS SJ BJ", None, None, "triple K j2", True),
    # --- 510K ---
    ("B2 正510K", "5S 10S KS", None, None, "510k S", True),
    ("B2 正510K is not 杂", "5S 10S KS", None, None, "510k za", False),
    ("B2 杂510K", "5S 10H KS", None, None, "510k za", True),
    ("B2 杂510K is not 正", "5S 10H KS", None, None, "510k S", False),
    ("B2 杂510K is not 正", "5S 10H KS", None, None, "510k H", False),
    ("B2 seed two of 5/10/K + joker, same suit = 正", "5S 10S SJ", None, None, "510k S j=K", True),
    ("B2 seed two of 5/10/K + joker, same suit = 正", "5S 10S SJ", None, None, "510k za j=K",
     False),
    ("B2 seed two of 5/10/K + joker, mixed = 杂", "5S 10H SJ", None, None, "510k za j=K", True),
    ("B2 seed two of 5/10/K + joker, mixed = 杂", "5S 10H SJ", None, None, "510k S j=K", False),
    ("B2 510K joker slot", "5S KS BJ", None, None, "510k S j=10", True),
    ("B2 510K joker slot", "5S KS BJ", None, None, "510k S j=K", False),
    ("B2 510K joker slot", "10D KD SJ", None, None, "510k D j=5", True),
    ("B2 510K needs one each of 5, 10, K", "5S 5H SJ", None, None, "510k za j=10", False),
    ("B2 510K needs one each of 5, 10, K", "5S 5H SJ", None, None, "triple 5 j1", True),
    ("B2 510K needs one each of 5, 10, K", "5S 10S 10H", None, None, "510k S", False),
    ("B2 510K both kinds in one hand", "5S 10H KD 5D 10D", None, None, "510k D", True),
    ("B2 510K both kinds in one hand", "5S 10H KD 5D 10D", None, None, "510k za", True),
    # --- 连对 (pair runs) ---
    ("B2 连对", "3S 3H 4S 4H 5D 5C", None, None, "pair_run 3-5", True),
    ("B2 连对", "3S 3H 4S 4H 5D 5C", None, None, "pair_run 4-5", True),
    ("B2 连对 same length compares", "3S 3H 4S 4H 5D 5C", "pair_run 3-5", None, "pair_run 3-5",
     False),
    ("B2 连对 same length compares", "4S 4H 5S 5H 6D 6C", "pair_run 3-5", None, "pair_run 4-6",
     True),
    ("B2 连对 length must match", "4S 4H 5S 5H 6D 6C", "pair_run 3-4", None, "pair_run 4-6",
     False),
    ("B2 连对 length must match", "3S 3H 4S 4H", "pair_run 3-5 j2", None, "pair_run 3-4", False),
    ("B2 joker fills a whole rank of a run", "5S 5H 7S 7H SJ BJ", None, None, "pair_run 5-7 j2",
     True),
    ("B2 seed 5,5+2 jokers", "5S 5H SJ BJ", None, None, "bomb 4x5 j2", True),
    ("B2 seed 5,5+2 jokers", "5S 5H SJ BJ", None, None, "pair_run 4-5 j2", True),
    ("B2 seed 5,5+2 jokers", "5S 5H SJ BJ", None, None, "pair_run 5-6 j2", True),
    ("B2 seed 5,5+2 jokers", "5S 5H SJ BJ", None, None, "pair_run 3-4 j2", False),
    ("B2 连对 up to A", "QS QH KS KH AS AH", None, None, "pair_run Q-A", True),
    ("B2 连对 no 2", "AS AH 2S 2H SJ BJ", None, None, "pair_run K-A j2", True),
    ("B2 连对 no 2", "2S 2H SJ BJ", None, None, "pair_run K-A j2", False),
    ("B2 连对 no 2", "2S 2H SJ BJ", None, None, "bomb 4x2 j2", True),
    ("B2 连对 12 pairs", "3*2 4*2 5*2 6*2 7*2 8*2 9*2 10*2 J*2 Q*2 K*2 A*2", None, None,
     "pair_run 3-A", True),
    ("B2 连对 same top does not beat", "3S 3H 4S 4H 9D", "pair_run 3-4", None, "pair_run 3-4",
     False),
    # --- 飞机 (triple runs) ---
    ("B2 飞机", "7S 7H 7D 8S 8H 8D", None, None, "triple_run 7-8", True),
    ("B2 飞机 with jokers", "7S 7H SJ 8S 8H BJ", None, None, "triple_run 7-8 j2", True),
    ("B2 飞机 vs 连对 of 6 cards", "7S 7H 7D 8S 8H 8D", "pair_run 3-5", None, "triple_run 7-8",
     False),
    ("B2 飞机 compares by top", "7S 7H 7D 8S 8H 8D", "triple_run 6-7 j1", None, "triple_run 7-8",
     True),
    ("B2 飞机 joker fills a rank", "QS QH QD SJ BJ BJ", None, None, "triple_run Q-K j3", True),
    ("B2 飞机 joker fills a rank", "QS QH QD SJ BJ BJ", None, None, "triple_run J-Q j3", True),
    ("B2 飞机 up to A", "AS AH AD SJ BJ BJ", None, None, "triple_run K-A j3", True),
    ("B2 飞机 needs jokers for missing cards", "7S 7H 7D 8S 8H 9S 9H 9D", None, None,
     "triple_run 7-9 j1", False),
    # --- 摇摆 ---
    ("B2 摇摆", "6*4 7*4", None, None, "yaobai 6-7", True),
    ("B2 摇摆 no joker", "6*4 7S 7H 7D SJ", None, None, "yaobai 6-7", False),
    ("B2 摇摆 exactly 4 each (from 5)", "6*5 7*4", None, None, "yaobai 6-7", True),
    ("B2 摇摆 consecutive", "6*4 8*4", None, None, "yaobai 6-8", False),
    ("B2 摇摆 up to A", "K*4 A*4 2*4", None, None, "yaobai K-A", True),
    # --- n-card bombs, 7喜, 8喜 ---
    ("B2 bomb with 3 jokers", "JS SJ SJ BJ", None, None, "bomb 4xJ j3", True),
    ("B2 bomb with 2 jokers", "JS JH SJ BJ", None, None, "bomb 4xJ j2", True),
    ("B2 7喜", "9*7", None, None, "7xi 9", True),
    ("B2 7喜 has no joker", "9*6 SJ", None, None, "7xi 9", False),
    ("B2 7 with jokers is a bomb", "9*6 SJ", None, None, "bomb 7x9 j1", True),
    ("B2 8喜", "9*8", None, None, "8xi 9", True),
    ("B2 8喜 hand may play 7喜", "9*8", None, None, "7xi 9", True),
    ("B2 8喜 has no joker", "9*7 SJ", None, None, "8xi 9", False),
    ("B2 8 with jokers is a bomb", "9*7 SJ", None, None, "bomb 8x9 j1", True),
    ("B2 bomb up to 12 with jokers", "9*8 SJ SJ BJ BJ", None, None, "bomb 12x9 j4", True),
    ("B2 bomb of 2s", "2*4 BJ", None, None, "bomb 5x2 j1", True),
    # --- 天炸 ---
    ("B2 [D-B1] four jokers = 天炸", "SJ SJ BJ BJ", None, None, "tianzha", True),
    ("B2 [D-B1] jokers alone", "SJ SJ BJ BJ", None, None, "triple 3 j3", True),
    ("B2 5-bomb with 4 jokers", "7S SJ SJ BJ BJ", None, None, "bomb 5x7 j4", True),
    # --- the called card (明鸡, B3): play it inside a combination or keep it back ---
    ("B3 明鸡 single", "7S 7H 8S", None, "7S", "single 7 +called", True),
    ("B3 明鸡 keep back", "7S 7H 8S", None, "7S", "single 7", True),
    ("B3 明鸡 pair must use it", "7S 7H 8S", None, "7S", "pair 7 +called", True),
    ("B3 明鸡 pair must use it", "7S 7H 8S", None, "7S", "pair 7", False),
    ("B3 明鸡 only copy", "7S 8S", None, "7S", "single 7", False),
    ("B3 明鸡 only copy", "7S 8S", None, "7S", "single 7 +called", True),
    ("B3 明鸡 not held", "AH AD", None, "AS", "pair A +called", False),
    ("B3 明鸡 not held", "AH AD", None, "AS", "pair A", True),
    ("B3 明鸡 two copies held", "7S 7S", None, "7S", "pair 7 +called", True),
    ("B3 明鸡 two copies held", "7S 7S", None, "7S", "pair 7", False),
    ("B3 明鸡 called joker", "SJ 5S 5H", None, "SJ", "pair 5 j1 +called", True),
    ("B3 明鸡 called joker", "SJ 5S 5H", None, "SJ", "pair 5 j1", False),
    ("B3 明鸡 called joker", "SJ 5S 5H", None, "SJ", "pair 5", True),
    ("B3 明鸡 called joker", "SJ 5S 5H", None, "SJ", "pair 5 +called", False),
    ("B3 明鸡 called joker", "SJ BJ 5S 5H", None, "SJ", "triple 5 j1", True),
    ("B3 明鸡 called joker", "SJ 5S 5H", None, "SJ", "single 3 j1 +called", True),
    ("B3 明鸡 510K", "5S 5H 10S KS", None, "5S", "510k S +called", True),
    ("B3 明鸡 510K", "5S 5H 10S KS", None, "5S", "510k S", False),
    ("B3 明鸡 510K", "5S 5H 10S KS", None, "5S", "510k za", True),
    ("B3 明鸡 510K", "5S 5H 10S KS", None, "5S", "510k za +called", False),
    ("B3 明鸡 510K", "5S 10S KH KS", None, "KH", "510k za +called", True),
    ("B3 明鸡 510K", "5S 10S KH KS", None, "KH", "510k S", True),
    ("B3 明鸡 510K", "5S 10S KH KS", None, "KH", "510k S +called", False),
    ("B3 明鸡 510K called joker", "5S 10S SJ", None, "SJ", "510k S j=K +called", True),
    ("B3 明鸡 510K called joker", "5S 10S SJ", None, "SJ", "510k S j=K", False),
    ("B3 明鸡 run", "6S 6H 7S 7H", None, "7S", "pair_run 6-7 +called", True),
    ("B3 明鸡 run", "6S 6H 7S 7H", None, "7S", "pair_run 6-7", False),
    ("B3 明鸡 run keep back", "6S 6H 7S 7H 7D", None, "7S", "pair_run 6-7", True),
    ("B3 明鸡 run called joker", "6S 6H 7S SJ", None, "SJ", "pair_run 6-7 j1 +called", True),
    ("B3 明鸡 run called joker", "6S 6H 7S SJ", None, "SJ", "pair_run 6-7 j1", False),
    ("B3 明鸡 bomb", "QS QH QD QC", None, "QD", "bomb 4xQ +called", True),
    ("B3 明鸡 bomb", "QS QH QD QC", None, "QD", "bomb 4xQ", False),
    ("B3 明鸡 bomb keep back", "QS QH QD QC", None, "QD", "triple Q", True),
    ("B3 明鸡 following", "AS AH", "pair K", "AS", "pair A +called", True),
    ("B3 明鸡 following", "AS AH", "pair K", "AS", "pair A", False),
    ("B3 明鸡 天炸", "SJ SJ BJ BJ", None, "BJ", "tianzha +called", True),
    ("B3 明鸡 天炸", "SJ SJ BJ BJ", None, "BJ", "tianzha", False),
    ("B2 pass only when following", "7S", "single 6", None, "single 7", True),
]

# (clause, hand, called or None, type, the exact set of legal leads of that type)
TYPE_ROWS = [
    ("B2 [D-B1] lone joker", "SJ", None, None, {"single 3 j1"}),
    ("B2 [D-B1] two jokers", "SJ BJ", None, None, {"single 3 j1", "pair 3 j2"}),
    ("B2 [D-B1] three jokers", "SJ SJ BJ", None, None,
     {"single 3 j1", "pair 3 j2", "triple 3 j3"}),
    ("B2 [D-B1] four jokers alone are only 天炸", "SJ SJ BJ BJ", None, None,
     {"single 3 j1", "pair 3 j2", "triple 3 j3", "tianzha"}),
    ("B2 seed 5,5+2 jokers", "5S 5H SJ BJ", None, "pair_run", {"pair_run 4-5 j2",
                                                               "pair_run 5-6 j2"}),
    ("B2 seed 5,5+2 jokers", "5S 5H SJ BJ", None, "bomb", {"bomb 4x5 j2"}),
    ("B2 seed 3,3,3+joker", "3S 3H 3D SJ", None, "bomb", {"bomb 4x3 j1"}),
    ("B2 seed 3,3,3+joker", "3S 3H 3D SJ", None, "pair_run", set()),
    ("B2 seed 4,4,3+joker", "4S 4H 3D SJ", None, "pair_run", {"pair_run 3-4 j1"}),
    ("B2 seed 4-bomb+joker", "6S 6H 6D 6C SJ", None, "bomb",
     {"bomb 4x6", "bomb 4x6 j1", "bomb 5x6 j1"}),
    ("B2 seed 1 natural+2 jokers", "KS SJ BJ", None, "510k", set()),
    ("B2 seed 1 natural+2 jokers", "KS SJ BJ", None, "triple", {"triple K j2"}),
    ("B2 runs never hold a 2 (K-A-2)", "KS KH AS AH 2S 2H", None, "pair_run", {"pair_run K-A"}),
    ("B2 runs never wrap (A-2-3)", "AS AH 2S 2H 3S 3H", None, "pair_run", set()),
    ("B2 飞机 never holds a 2", "K*3 A*3 2*3", None, "triple_run", {"triple_run K-A"}),
    ("B2 摇摆 never holds a 2", "A*4 2*4", None, "yaobai", set()),
    ("B2 摇摆 never holds a 2", "K*4 A*4 2*4", None, "yaobai", {"yaobai K-A"}),
    ("B2 7喜: no 7-card natural bomb", "9*7", None, "bomb", {"bomb 4x9", "bomb 5x9", "bomb 6x9"}),
    ("B2 7喜", "9*7", None, "7xi", {"7xi 9"}),
    ("B2 510K joker slots", "5S 10S SJ", None, "510k", {"510k S j=K"}),
    ("B2 510K joker slots", "5S 10H KD SJ", None, "510k",
     {"510k za", "510k za j=5", "510k za j=10", "510k za j=K"}),
    ("B2 510K 正 and 杂", "5S 10S KS KH SJ", None, "510k",
     {"510k S", "510k za", "510k S j=5", "510k S j=10", "510k S j=K", "510k za j=5",
      "510k za j=10"}),
    ("B2 joker fills a whole rank", "5S 5H 7S 7H SJ BJ", None, "pair_run",
     {"pair_run 4-5 j2", "pair_run 5-6 j2", "pair_run 6-7 j2", "pair_run 7-8 j2",
      "pair_run 5-7 j2"}),
]


def _label(row):
    return f"{row[0]}: {row[1]} / {row[2] or 'lead'} / {row[-2]}"


@pytest.mark.parametrize("row", ROWS, ids=[_label(r) for r in ROWS])
def test_play_mask(row):
    clause, hand, standing, called, action, expected = row
    counts, standing_id, called_kind, action_id = ref.table_case(hand, standing, called, action)
    mask = play_mask(np.array(counts), standing_id, called_kind)
    assert mask.shape == (cat.NUM_ACTIONS,)
    assert bool(mask[action_id]) == expected, \
        f"{clause}: {hand} on {standing or 'lead'}: {cat.ACTIONS[action_id].text} should be " \
        f"{'legal' if expected else 'illegal'}"
    assert bool(mask[cat.PASS]) == (standing is not None)


@pytest.mark.parametrize("row", ROWS, ids=[_label(r) for r in ROWS])
def test_reference_agrees(row):
    clause, hand, standing, called, action, expected = row
    counts, standing_id, called_kind, action_id = ref.table_case(hand, standing, called, action)
    assert (action_id in ref.legal_actions(counts, standing_id, called_kind)) == expected


def _type_label(row):
    return f"{row[0]}: {row[1]} / {row[3] or 'all'}"


def _of_type(ids, kind):
    return {a for a in ids if kind is None or cat.ACTIONS[a].type == kind}


@pytest.mark.parametrize("row", TYPE_ROWS, ids=[_type_label(r) for r in TYPE_ROWS])
def test_exact_leads_of_type(row):
    clause, hand, called, kind, expected = row
    counts, _, called_kind, _ = ref.table_case(hand, None, called, "single 3")
    expected_ids = {ref.parse_action(d) for d in expected}
    mask = play_mask(np.array(counts), -1, called_kind)
    got = _of_type(set(np.flatnonzero(mask).tolist()), kind)
    assert got == expected_ids, (
        f"{clause}: {hand}: missing {[cat.ACTIONS[a].text for a in expected_ids - got]}, "
        f"extra {[cat.ACTIONS[a].text for a in got - expected_ids]}")
    assert _of_type(ref.legal_actions(counts, -1, called_kind), kind) == expected_ids
