"""The Dabang tensor state and observation layout, declared once (see ``core.layout``).

The pieces from ``voids`` on are what a card player counts (issue 35), kept by the engine
(``cardenv.dabang.counting`` has their rules).

Seats in ``seats``-rule pieces are relative: 0 = the observer, 1 = its 下家 (next player, an
opponent), 2 = its partner, 3 = its 上家 (previous player, an opponent). Card kinds as in
``core.cards`` (rank * 4 + suit, ranks 3..2 = 0..12, suits ♦♣♥♠ = 0..3, 52 = SJ, 53 = BJ).
"""

from __future__ import annotations

from cardenv.core.layout import Layout, Piece
from cardenv.dabang.phase import DECISIONS

PHASES = tuple(phase.value for phase in DECISIONS)  # the decision phases, in one-hot order
DECLARATIONS = ("grab", "level_1", "level_2", "level_3", "level_4", "small_jokers", "big_jokers")
# the columns of ``declared_cards``: the level card of each suit, the small and the big joker
# The blood_owed entry's largest value: tribute is paid in cards, at most the giver's whole
# hand (52 cards after the deal), so a blood owed above it pays the same tribute; the option
# `blood` accepts more (cardenv.dabang.game.MAX_BLOOD), which the entry shows as this.
BLOOD_SHOWN = 60
CLASSES = ("diamonds", "clubs", "hearts", "spades", "trump")  # suit classes (strength.TRUMP = 4)
SHOWN = ("level_diamonds", "level_clubs", "level_hearts", "level_spades", "small_jokers",
         "big_jokers")

PIECES = [
    Piece("hand", (4, 54), "own", "own hand: copies (0..4) of each card kind", 4),
    Piece("selection", (4, 54), "own",
          "cards chosen so far in the follow being built (still counted in `hand`)", 4),
    Piece("kitty_known", (4, 54), "own",
          "kitty cards this seat knows to lie in the kitty now (the dealer after burying; "
          "everyone once the kitty is shown; flipped or drawn cards)", 4),
    Piece("tribute_known", (4, 54), "own",
          "tribute cards this seat saw change hands (the giver and the dealer only)", 4),
    Piece("returned_known", (4, 54), "own",
          "cards the dealer gave back for the tribute (option tribute_return; the giver and "
          "the dealer only)", 4),
    Piece("played", (4, 54), "seats", "cards each seat has played this hand", 4),
    Piece("trick", (4, 54), "seats", "cards each seat has played in the current trick", 4),
    Piece("levels", (4,), "seats", "each seat's team level (3..10)", 10),
    Piece("dealer", (4,), "seats", "one-hot: the dealer (zeros until known in a first hand)"),
    Piece("trump", (4,), "public", "one-hot trump suit ♦♣♥♠ (zeros until decided)"),
    Piece("level", (8,), "public", "one-hot level of the hand: 3..10 (the level card's rank)"),
    Piece("first_hand", (1,), "public", "1 in a match's first hand (big-joker grab rules)"),
    Piece("declarer", (4,), "seats", "one-hot: who made the standing declaration"),
    Piece("declaration", (len(DECLARATIONS),), "public",
          "one-hot standing declaration: " + ", ".join(DECLARATIONS)),
    Piece("declared_suit", (4,), "public", "one-hot suit of the standing declaration"),
    Piece("phase", (len(PHASES),), "public", "one-hot phase: " + ", ".join(PHASES)),
    Piece("to_play", (4,), "seats", "one-hot: whose decision it is"),
    Piece("leader", (4,), "seats", "one-hot: who led the current trick"),
    Piece("led_count", (1,), "public", "cards in the current lead (0 before the lead)", 4),
    Piece("points", (4,), "seats", "points each seat has won in tricks this hand", 400),
    Piece("cards_left", (4,), "seats", "cards in each seat's hand", 120),
    Piece("tribute", (1,), "public", "cards paid in tribute (喝血) this hand", 60),
    Piece("returned", (1,), "public", "cards the dealer has given back so far", 60),
    Piece("kitty_revealed", (54,), "public",
          "cards of the dealt kitty turned face up this hand: the whole kitty when it is shown "
          "after declaring, the flipped or drawn cards otherwise (kept after the dealer takes "
          "them)", 4),
    Piece("kitty_shown", (1,), "public",
          "1 while the cards lying in the kitty are known to everyone"),
    Piece("gangguo", (1,), "public", "1 if the kitty is 干锅 this hand"),
    Piece("koujoker", (4,), "seats", "jokers each seat has buried by 扣王 this hand", 8),
    Piece("kitty", (54,), "hidden", "the kitty's actual content (global state only)", 4),
    # Appended after every older piece (the hidden one included), so that the observation of an
    # older layout is a prefix of this one.
    Piece("declared_cards", (4, len(SHOWN)), "seats",
          "cards each seat has shown in declarations this hand, overridden ones included: the "
          "most level cards of each suit ♦♣♥♠ shown at once, then small jokers, big jokers "
          "(4 for a joker declaration, 1 for the first hand's big-joker grab)", 4),
    Piece("flip_jokers", (2,), "public",
          "small and big jokers turned over and passed, after the first hand's four kitty "
          "flips, while looking for the suited card that names the trump (a joker won the "
          "flips)", 4),
    Piece("koujoker_kinds", (4, 2), "seats",
          "small and big jokers each seat has buried by 扣王 this hand", 4),
    Piece("taken_back", (4, 54), "seats",
          "cards each seat has taken back from the shown kitty after 扣王 this hand", 4),
    # What a card player counts (issue 35), appended so that older observations stay a prefix;
    # the engine keeps them (cardenv.dabang.counting)
    Piece("voids", (4, len(CLASSES)), "seats",
          "1 where public play shows a seat void in a suit (columns ♦♣♥♠ side suits, then "
          "trump): it followed a lead of that suit with a card of another suit, none of the "
          "led suit or fewer than the lead's k, so it held no more of it (the suit duty plays "
          "min(k, held), brief A5)"),
    Piece("blood_owed", (1,), "public",
          "blood (喝血) the dealer is owed this hand, known from the deal's start (the tribute "
          f"it brings is paid after the deal), shown up to {BLOOD_SHOWN}: a hand pays at most "
          "its giver's cards, so more owed pays the same", BLOOD_SHOWN),
    Piece("tribute_hand", (1,), "public", "1 when the dealer is owed blood this hand"),
    Piece("defenders_take_last", (1,), "public",
          "1 in a hand whose dealer is owed tribute and keeps it (option tribute_return "
          "'none'): the dealer holds more cards than anyone and plays the last tricks alone, "
          "so the defenders win the last trick (保底) [DB-8]"),
    Piece("unseen", (4, 54), "own",
          "copies of each kind this seat has not seen: 4 minus its hand, everything played "
          "and the kitty cards it knows (they are in the other hands or the kitty)", 4),
    Piece("kitty_points", (4, 1), "own",
          "points in the kitty cards this seat knows to lie in the kitty, as the cards count "
          "(not doubled: the attackers score twice this if they win the last trick, brief "
          "A6)", 200),
    Piece("trick_winner", (4,), "seats",
          "one-hot: the seat whose play wins the current trick as played so far (brief A5; zeros "
          "before the lead)"),
    Piece("trick_points", (1,), "public",
          "points in the plays completed in the current trick", 160),
    Piece("still_to_play", (4,), "seats",
          "1 for each seat yet to complete its play in the current trick (the one to act "
          "included; zeros outside play)"),
    Piece("attack_points", (1,), "public",
          "points the attackers (the non-dealer team) have won in tricks this hand", 400),
    Piece("thresholds", (3,), "public",
          "1 for each of the attackers' score bands 120, 160 (taking the deal), 200 that "
          "their trick points have reached (brief A6)"),
    Piece("points_out", (1,), "public",
          "points not yet won in a trick: in the hands, on the table or in the kitty", 400),
]

LAYOUT = Layout(PIECES, turn="to_play")
