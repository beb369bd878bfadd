# noqa: D212, D415
"""
# Huludao Dabang (葫芦岛打棒)

| Creation           | `cardenv.dabang_v0.env()` or `pettingzoo.make("aec", "cardenv/dabang_v0")` |
|--------------------|------------------------------------------------------------------------------|
| Actions            | Discrete                                                                     |
| Parallel API       | No                                                                           |
| Agents             | `agents = ['player_0', 'player_1', 'player_2', 'player_3']` (play order)     |
| Teams              | player_0 + player_2, player_1 + player_3                                     |
| Action Shape       | Discrete(404)                                                                |
| Action Values      | [0, 403]                                                                     |
| Observation Shape  | `observation`: (1165,) float32, `action_mask`: (404,) int8                   |
| State Shape        | (2194,) float32                                                             |

A 4-deck trick-taking "upgrade" game: trump is declared during the deal, the dealer's 上家 pays
tribute (喝血), the dealer buries a new kitty and the others may bury jokers into it (扣王);
leads are 1..4 identical cards, followers must follow suit and, under the 死棒 rule, shape. The
attackers need 160 of the 400 points; winning the last trick doubles the kitty's points. Teams
climb from level 3; the first to pass 10 wins the match. The rules, every decision taken where
the sources are silent, and every option: `docs/rules/dabang.md`.

### Arguments

``env(render_mode=None, lang="zh", **options)`` / ``raw_env(...)`` with the rules options of
``cardenv.dabang.DabangGame``: ``episode="hand"`` (or ``"match"``), ``max_hands=None`` (match
episodes), ``levels=(3, 3)``, ``dealer=None``, ``blood=0`` (start from a match state),
``bidding="during_deal"``, ``follow="dead"``, ``joker_levels=True``, ``keep_dealer="partner"``,
``four_joker_win="big_or_small"``, ``deal_value=0.5``, ``tribute_return="none"``. ``dealer``,
``levels`` and ``blood`` also take ``"random"`` (a later hand from a random match state each
episode). An
unknown option or a bad value raises ``ConfigError`` (a ``ValueError``).

``lang`` is the language of ``render()`` and ``describe_action()``: ``"zh"`` (default) keeps the
game's Chinese terms (``| 干锅``), ``"en"`` gives their English names (``| dry pot``; the
table is ``cardenv.core.lang.TERMS`` and docs/glossary.md). It is not a rules option:
observations, masks, seeds and saved states are the same in both languages, and
``action_info(a).text`` keeps the Chinese terms. Another value raises ``ConfigError``.

### Observation Space

A dict: ``observation`` (what the seat may know, below) and ``action_mask``. Seats in the table
are relative to the observer: 0 = itself, 1 = the next player (an opponent), 2 = its partner,
3 = the previous player (an opponent). The pieces from ``voids`` on are what a card player
counts: cards not yet seen, voids shown by play, the trick's winner so far, the score against
the thresholds, the tribute and the last-trick rule (sure winners are no piece: the action
feature ``top`` gives each lead's). Card kinds: ``rank * 4 + suit`` for ranks 3..2 = 0..12 and
suits ♦♣♥♠ = 0..3; 52 = small joker, 53 = big joker.

| Index | Piece | Shape | Max | Description |
|---|---|---|---|---|
| 0..53 | `hand` | 54 | 4 | own hand: copies (0..4) of each card kind |
| 54..107 | `selection` | 54 | 4 | cards chosen so far in the follow being built (still counted in `hand`) |
| 108..161 | `kitty_known` | 54 | 4 | kitty cards this seat knows to lie in the kitty now (the dealer after burying; everyone once the kitty is shown; flipped or drawn cards) |
| 162..215 | `tribute_known` | 54 | 4 | tribute cards this seat saw change hands (the giver and the dealer only) |
| 216..269 | `returned_known` | 54 | 4 | cards the dealer gave back for the tribute (option tribute_return; the giver and the dealer only) |
| 270..485 | `played` | 4x54 | 4 | cards each seat has played this hand |
| 486..701 | `trick` | 4x54 | 4 | cards each seat has played in the current trick |
| 702..705 | `levels` | 4 | 10 | each seat's team level (3..10) |
| 706..709 | `dealer` | 4 | 1 | one-hot: the dealer (zeros until known in a first hand) |
| 710..713 | `trump` | 4 | 1 | one-hot trump suit ♦♣♥♠ (zeros until decided) |
| 714..721 | `level` | 8 | 1 | one-hot level of the hand: 3..10 (the level card's rank) |
| 722..722 | `first_hand` | 1 | 1 | 1 in a match's first hand (big-joker grab rules) |
| 723..726 | `declarer` | 4 | 1 | one-hot: who made the standing declaration |
| 727..733 | `declaration` | 7 | 1 | one-hot standing declaration: grab, level_1, level_2, level_3, level_4, small_jokers, big_jokers |
| 734..737 | `declared_suit` | 4 | 1 | one-hot suit of the standing declaration |
| 738..743 | `phase` | 6 | 1 | one-hot phase: declare, return, bury, koujoker, takeback, play |
| 744..747 | `to_play` | 4 | 1 | one-hot: whose decision it is |
| 748..751 | `leader` | 4 | 1 | one-hot: who led the current trick |
| 752..752 | `led_count` | 1 | 4 | cards in the current lead (0 before the lead) |
| 753..756 | `points` | 4 | 400 | points each seat has won in tricks this hand |
| 757..760 | `cards_left` | 4 | 120 | cards in each seat's hand |
| 761..761 | `tribute` | 1 | 60 | cards paid in tribute (喝血) this hand |
| 762..762 | `returned` | 1 | 60 | cards the dealer has given back so far |
| 763..816 | `kitty_revealed` | 54 | 4 | cards of the dealt kitty turned face up this hand: the whole kitty when it is shown after declaring, the flipped or drawn cards otherwise (kept after the dealer takes them) |
| 817..817 | `kitty_shown` | 1 | 1 | 1 while the cards lying in the kitty are known to everyone |
| 818..818 | `gangguo` | 1 | 1 | 1 if the kitty is 干锅 this hand |
| 819..822 | `koujoker` | 4 | 8 | jokers each seat has buried by 扣王 this hand |
| 823..846 | `declared_cards` | 4x6 | 4 | cards each seat has shown in declarations this hand, overridden ones included: the most level cards of each suit ♦♣♥♠ shown at once, then small jokers, big jokers (4 for a joker declaration, 1 for the first hand's big-joker grab) |
| 847..848 | `flip_jokers` | 2 | 4 | small and big jokers turned over and passed, after the first hand's four kitty flips, while looking for the suited card that names the trump (a joker won the flips) |
| 849..856 | `koujoker_kinds` | 4x2 | 4 | small and big jokers each seat has buried by 扣王 this hand |
| 857..1072 | `taken_back` | 4x54 | 4 | cards each seat has taken back from the shown kitty after 扣王 this hand |
| 1073..1092 | `voids` | 4x5 | 1 | 1 where public play shows a seat void in a suit (columns ♦♣♥♠ side suits, then trump): it followed a lead of that suit with a card of another suit, none of the led suit or fewer than the lead's k, so it held no more of it (the suit duty plays min(k, held), brief A5) |
| 1093..1093 | `blood_owed` | 1 | 60 | blood (喝血) the dealer is owed this hand, known from the deal's start (the tribute it brings is paid after the deal), shown up to 60: a hand pays at most its giver's cards, so more owed pays the same |
| 1094..1094 | `tribute_hand` | 1 | 1 | 1 when the dealer is owed blood this hand |
| 1095..1095 | `defenders_take_last` | 1 | 1 | 1 in a hand whose dealer is owed tribute and keeps it (option tribute_return 'none'): the dealer holds more cards than anyone and plays the last tricks alone, so the defenders win the last trick (保底) [DB-8] |
| 1096..1149 | `unseen` | 54 | 4 | copies of each kind this seat has not seen: 4 minus its hand, everything played and the kitty cards it knows (they are in the other hands or the kitty) |
| 1150..1150 | `kitty_points` | 1 | 200 | points in the kitty cards this seat knows to lie in the kitty, as the cards count (not doubled: the attackers score twice this if they win the last trick, brief A6) |
| 1151..1154 | `trick_winner` | 4 | 1 | one-hot: the seat whose play wins the current trick as played so far (brief A5; zeros before the lead) |
| 1155..1155 | `trick_points` | 1 | 160 | points in the plays completed in the current trick |
| 1156..1159 | `still_to_play` | 4 | 1 | 1 for each seat yet to complete its play in the current trick (the one to act included; zeros outside play) |
| 1160..1160 | `attack_points` | 1 | 400 | points the attackers (the non-dealer team) have won in tricks this hand |
| 1161..1163 | `thresholds` | 3 | 1 | 1 for each of the attackers' score bands 120, 160 (taking the deal), 200 that their trick points have reached (brief A6) |
| 1164..1164 | `points_out` | 1 | 400 | points not yet won in a trick: in the hands, on the table or in the kitty |

Nothing hidden is in it: other hands, the kitty (unless shown, or the dealer's own burial), and
tribute cards the seat did not give or receive are absent. ``env.state()`` returns the full state
(all hands and the kitty) for centralised critics.

#### Legal Actions Mask

``action_mask[a] == 1`` iff action ``a`` is legal for the agent to act; all zeros for every
other agent. With ``env()``, an illegal action ends the game with -1 for the offender
(PettingZoo's ``TerminateIllegalWrapper``); ``raw_env()`` raises ``IllegalActionError`` (a
``ValueError``) naming the action and the legal ones, and changes nothing.

### Action Space

0 = pass (no declaration / stop burying jokers), 1 = grab the trump with a big joker (a match's
first hand), 2..25 = declare a suit with 1..4 identical level cards or four small / big jokers,
26..79 = bury a card of kind k, 80..133 = take back a card of kind k (扣王), 134..349 = play c
identical cards of kind k (``134 + 4*k + c - 1``), 350..403 = give a card of kind k back to the
tributer (option ``tribute_return="dealer_choice"``). A lead is one play action; a follow of k cards
is built one group of identical cards per step, and the mask at each step allows exactly the
steps that can still end in a legal follow (the choice so far is the ``selection`` piece).
``cardenv.dabang.ACTIONS[a]`` describes action ``a`` (``text`` such as ``"pair ♠9"``).

#### Action Features

What each legal action does in the position, for policies that score moves one by one:
``env.action_features(agent=None)`` is an ``(L, 34)`` float32 array, one row per legal action
of the agent in the order of ``np.flatnonzero(observe(agent)["action_mask"])``;
``cardenv.vector.VectorGame.action_features()`` gives the same rows for a batch. They are a
function of the observation and the action id alone (``cardenv.dabang.action_features``), so
they hold nothing hidden. Mostly in 0..1:

| Index | Feature | Size | Description |
|---|---|---|---|
| 0..8 | `type` | 9 | one-hot: declare_pass, declare, return, bury, koujoker, koujoker_stop, takeback, lead, follow (declare: the grab or a declaration; koujoker_stop: pass while burying jokers; lead / follow: a play before / after the lead, a follow step being one group of identical cards) |
| 9..12 | `declare_suit` | 4 | one-hot suit ♦♣♥♠ a declaration names (zeros for the grab) |
| 13..13 | `declare_cards` | 1 | level cards or jokers a declaration shows / 4 (grab: 1/4) |
| 14..14 | `declare_jokers` | 1 | 1 for the big-joker grab and the four-joker declarations |
| 15..15 | `declare_held` | 1 | cards of the declared suit in hand / 26 |
| 16..20 | `suit_class` | 5 | one-hot suit class of the card kind under the trump and level: side ♦♣♥♠, trump (zeros for actions without a card, or before trump is known) |
| 21..21 | `strength` | 1 | strength rank of the kind within its suit class, 0 (lowest) .. 1 (highest: the side A, the big joker) |
| 22..22 | `count` | 1 | cards the action moves / 4 (a play step's copies; 1 for bury, take back, return) |
| 23..23 | `points` | 1 | points of those cards / 40 |
| 24..24 | `point_card` | 1 | 1 if the kind is a 5, 10 or K |
| 25..25 | `joker` | 1 | 1 if the kind is a joker |
| 26..26 | `held` | 1 | copies of the kind in hand / 4 |
| 27..27 | `breaks_group` | 1 | 1 if the action moves fewer copies than the hand holds (splits a 棒 / 滚子 / 四联) |
| 28..28 | `completes` | 1 | play: 1 if this step ends the play (a lead; a follow step that brings the selection to min(k, cards left)) |
| 29..29 | `wins` | 1 | play: 1 if the completed play would take the trick as it stands (a lead; k identical cards of the led suit class, or trump when void in it, stronger than the winner so far) [A5] |
| 30..30 | `margin` | 1 | play: (strength - the winning play's strength) / 45 for a follow that could win (k identical cards of the led class, or trump when void); else 0 |
| 31..31 | `trick_points` | 1 | play: points in the trick once this step is played (the plays so far, the selection, these cards) / 160 |
| 32..32 | `partner_winning` | 1 | follow: 1 if the partner's play takes the trick so far |
| 33..33 | `top` | 1 | lead: 1 if no stronger kind of its suit class has as many copies unseen (not in hand, played, or known in the kitty): no one can beat it in class |

### Rewards

Team rewards (both partners get the same; zero-sum between the teams), when a hand ends:

* ``episode="hand"``: the levels your team went up minus the other team's, plus ``deal_value``
  (0.5) if your team took the deal from the other (minus it if yours lost it); a hand that ends
  the match counts as the winners reaching level 11 (``11 - their level``, and its negative for
  the losers).
* ``episode="match"``: +1 / -1 when the match ends; 0 for every hand before it, and 0 if
  ``max_hands`` truncates the episode.

On the step that ends a hand, every agent's ``info`` is ``{"hand_over": True, "hand_result":
{...}}`` (score, outcome, levels, blood, next dealer, match end; see ``cardenv.dabang.HandResult``),
in one shape for every hand: ``next_dealer`` and ``match_winner`` are -1 and ``match_end`` is ""
where there is none (``cardenv.envs.aec.result_info``).

### Version History

* v0: initial release (cardenv 0.1.0); later appended pieces (``declared_cards`` ..
  ``taken_back``; the counting pieces ``voids`` .. ``points_out``, issue 35) keep every older
  observation a prefix of the new one
"""

from __future__ import annotations

from cardenv.envs.aec import CardGameEnv, wrap
from cardenv.dabang.game import DabangGame
from cardenv.dabang.presentation import render_text


def env(**kwargs):
    """``raw_env`` in PettingZoo's classic wrappers (illegal move: game over, -1 for the offender)."""
    return wrap(raw_env(**kwargs))


class raw_env(CardGameEnv):
    """The Dabang AEC environment without wrappers; see the module docstring."""

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "dabang_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: str | None = None, lang: str = "zh", **options):
        super().__init__(DabangGame(**options), render_text, render_mode, lang)
