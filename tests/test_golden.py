"""The engines still play the golden playthroughs move for move (tests/golden/playthrough.py).

A failure prints the first differing line; after an intended change, regenerate with
``python -m pytest tests/test_golden.py --update-golden`` and review the diff.
"""

import difflib

import pytest

from tests.golden.playthrough import PLAYTHROUGHS, render


@pytest.mark.parametrize("play", PLAYTHROUGHS, ids=lambda p: p.name)
def test_golden_playthrough(play, request):
    text = render(play)
    if request.config.getoption("--update-golden"):
        play.path.write_text(text, encoding="utf-8")
        return
    assert play.path.exists(), f"{play.path} is missing; run with --update-golden"
    expected = play.path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(list(difflib.unified_diff(expected.splitlines(True),
                                                 text.splitlines(True), "golden", "now", n=1))[:40])
        pytest.fail(f"{play.name} differs from its golden playthrough:\n{diff}")


def test_golden_playthroughs_cover_what_they_claim():
    """Each file shows the situation it exists for, so a regeneration cannot lose it."""
    texts = {p.name: p.path.read_text(encoding="utf-8") for p in PLAYTHROUGHS}
    assert texts["dagong_two_hands"].count("\nresult ") == 2
    assert '"declare 硬牌 (go solo)"' in texts["dagong_solo"]
    assert texts["dabang_hand"].count("\nresult ") == 1
    assert texts["dabang_match_3_hands"].count("\nresult ") == 3
    assert "truncated True" in texts["dabang_match_3_hands"]
    assert " return " in texts["dabang_tribute_return"]
    for name in ("dabang_hand", "dabang_live_follow", "dabang_match_3_hands"):
        for phase in (" declare ", " bury ", " play "):
            assert phase in texts[name], (name, phase)
    assert '"follow": "live"' in texts["dabang_live_follow"]
