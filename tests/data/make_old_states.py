"""Writes tests/data/old_states.json: saved states in format /3 (the field formats that saved the
buffer, the results and the generator), made by the code of commit 0fa6db6, the last to write
them. tests/cardenv/core/test_state_old_formats.py checks that the recipe loader still reads them.

Run from a checkout of that commit (this file is not imported by the tests)::

    git archive 0fa6db6 cardenv | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old python tests/data/make_old_states.py tests/data/old_states.json
"""

import json
import sys

import numpy as np

from cardenv.dabang import DabangGame
from cardenv.dabang.game import DECK
from cardenv.dagong import DagongGame


def play(state, steps, seed):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_over:
            break
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
    return state


def until(state, done, seed):
    rng = np.random.default_rng(seed)
    while not done(state):
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
    return state


def main(path):
    out = {"dagong": {}, "dabang": {}}
    game = DagongGame()
    out["dagong"]["start"] = {"state": game.new_state(1).to_dict(), "deal": None}
    out["dagong"]["over"] = {"state": play(game.new_state(2), 10 ** 4, 2).to_dict(),
                             "deal": None}
    later = until(DagongGame(hands=3).new_state(4), lambda s: len(s.results) == 1, 4)
    out["dagong"]["hands3 second hand"] = {"state": play(later, 30, 5).to_dict(), "deal": None}
    hands, dealer, called = ["♠3 ♦4 ♦5 ♥K", "♣6 ♣9 ♣10", "♠3 ♥7 ♥5", "♠8 ♠J ♠Q"], 0, "♠3"
    custom = DagongGame(hands=2, allow_solo=False).state_from_hands(hands, dealer, called, seed=4)
    deal = {"hands": [[int(k) for k in h] for h in custom.deal_order], "dealer": 0,
            "called": int(custom.called)}
    out["dagong"]["custom deal, first hand"] = {"state": play(custom, 3, 6).to_dict(),
                                                "deal": deal}
    seeded = DagongGame().new_state(21)
    full = [np.repeat(np.arange(54), row).tolist() for row in seeded.hands]
    custom = DagongGame().state_from_hands(full, seeded.dealer, seeded.called, seed=3)
    deal = {"hands": full, "dealer": int(seeded.dealer), "called": int(seeded.called)}
    out["dagong"]["custom full deal, mid-hand"] = {"state": play(custom, 40, 7).to_dict(),
                                                   "deal": deal}

    game = DabangGame()
    out["dabang"]["follow"] = {
        "state": until(game.new_state(3), lambda s: s.phase == "play" and s.trick.partial,
                       3).to_dict(), "deal": None}
    match = until(DabangGame(episode="match", max_hands=3).new_state(10),
                  lambda s: len(s.results) == 1, 10)
    out["dabang"]["match second hand"] = {"state": play(match, 40, 11).to_dict(), "deal": None}
    tribute = until(DabangGame(dealer=1, levels=[5, 7], blood=4, tribute_return="dealer_choice")
                    .new_state(20), lambda s: s.phase == "return", 20)
    out["dabang"]["tribute return"] = {"state": tribute.to_dict(), "deal": None}
    deck = [int(k) for k in DECK[::-1]]
    custom = play(DabangGame().new_state(3, deck=deck, first_seat=2), 50, 12)
    out["dabang"]["custom deck, first hand"] = {"state": custom.to_dict(),
                                                "deal": {"deck": deck, "first_seat": 2}}
    rng = np.random.default_rng(8)
    deck = rng.permutation(DECK).tolist()
    custom = until(DabangGame(episode="match", max_hands=2).new_state(5, deck=deck),
                   lambda s: len(s.results) == 1, 13)
    # a later hand of a match dealt by hand: format 3 does not tell its deal (refused)
    out["dabang"]["custom deck, second hand"] = {"state": play(custom, 5, 14).to_dict(),
                                                 "deal": {"deck": deck, "first_seat": None}}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
