"""The Dagong tensor state and observation layout, declared once (see ``core.layout``).

The rules engine writes these pieces as the game goes; ``state()`` is the whole buffer and a
seat's observation is its gather. The last pieces are what a card player counts (unseen cards,
points still out, where the called card's twin may be), kept by the engine by the rules of
``cardenv.dagong.counting``. Seats in ``seats``-rule pieces are relative: index 0 is the
observing seat, 1 the next player (its 下家), 2 its opposite, 3 the player before it (上家).
Ranks are 3..2 as 0..12; card kinds as in ``core.cards`` (rank * 4 + suit, 52 = SJ, 53 = BJ).
"""

from __future__ import annotations

from cardenv.core.layout import Layout, Piece
from cardenv.dagong.catalogue import PLAY_TYPES


PIECES = [
    Piece("hand", (4, 54), "own", "own hand: copies (0..2) of each card kind", 2),
    Piece("played", (4, 54), "seats", "cards each seat has played this hand, per kind", 2),
    Piece("called", (54,), "public", "one-hot kind of the called card (叫牌)"),
    Piece("dealer", (4,), "seats", "one-hot: the dealer (庄家)"),
    Piece("partner", (4, 4), "own_seats",
          "one-hot: the dealer's hidden partner, where this seat knows it (the partner itself "
          "from the deal -- so a 1 at relative index 0 means 'I am the partner' -- everyone "
          "once it is revealed)"),
    Piece("revealed", (1,), "public", "1 once the partner has played the called card (明鸡)"),
    Piece("solo", (4,), "seats", "one-hot: the player going alone (硬牌, or a dealer who holds "
                                 "both called cards)"),
    Piece("forced_solo", (1,), "public", "1 if the dealer plays alone because it holds both "
                                         "copies of the called card"),
    Piece("solo_phase", (1,), "public", "1 while players are deciding on 硬牌"),
    Piece("cards_left", (4,), "seats", "cards left in each seat's hand (0..27)", 27),
    Piece("standing_cards", (54,), "public", "the play to beat, per kind (zeros when leading)", 2),
    Piece("standing_seat", (4,), "seats", "one-hot: who made the play to beat"),
    Piece("standing_type", (len(PLAY_TYPES),), "public",
          "one-hot type of the play to beat: " + ", ".join(PLAY_TYPES)),
    Piece("standing_rank", (13,), "public", "one-hot key rank of the play to beat (a run's "
                                            "top rank; none for 510K and 天炸)"),
    Piece("standing_length", (1,), "public", "number of cards in the play to beat", 27),
    Piece("passed", (4,), "seats", "1 for each seat that has passed since the play to beat"),
    Piece("trick_points", (1,), "public", "points in the cards played in the current trick", 200),
    Piece("points", (4,), "seats", "points each seat has won in tricks this hand", 200),
    Piece("place", (4, 4), "seats", "one-hot finishing place per seat (一游..末游) once out"),
    Piece("to_play", (4,), "seats", "one-hot: whose turn it is"),
    Piece("yaobai", (4,), "seats", "1 for each seat that has played a 摇摆 this hand"),
    Piece("more_hands", (1,), "public", "1 if another hand follows this one in the episode"),
    # added after the first release: new pieces go at the end so that the old observation
    # stays a prefix of the new one (checkpoints trained on it read that prefix)
    Piece("superseded_calls", (54,), "public",
          "1 for each kind called during a later hand's deal and then superseded because the "
          "dealer came to hold both copies (the dealer showed them)"),
    # What a card player counts (issue 35), appended so that older observations stay a prefix;
    # the engine keeps them (cardenv.dagong.counting). Counts assume the full 108-card deal (a
    # hand dealt by hand with fewer cards counts the undealt ones as unseen)
    Piece("unseen", (4, 54), "own",
          "copies of each card kind this seat has not seen played or in its own hand: 2 minus "
          "its hand minus every card played this hand (they are in the other hands; a card "
          "only shown, the called card or a superseded call, still counts here)", 2),
    Piece("unseen_ranks", (4, 14), "own",
          "unseen natural cards of each rank 3..2 (0..8), then unseen jokers (0..4): the most "
          "of each rank the other three hands hold together, wildcards apart", 8),
    Piece("points_out", (1,), "public",
          "points not yet played this hand: 200 (two decks) minus the points played", 200),
    Piece("hand_points", (4, 1), "own", "points in own hand", 200),
    Piece("twin", (4, 4), "own_seats",
          "1 for each seat that may still hold the called card's twin (the copy the dealer did "
          "not show, held by the hidden partner), as far as this seat can tell: its own row "
          "alone when it holds it, the dealer alone when the dealer holds both, else every "
          "other seat but the dealer still holding cards (a seat out without playing it never "
          "had it); zeros once it is played"),
]

LAYOUT = Layout(PIECES, turn="to_play")
