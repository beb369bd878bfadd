# noqa: D212, D415
"""
# Xianning Dagong (咸宁打拱)

| Creation           | `cardenv.dagong_v0.env()` or `pettingzoo.make("aec", "cardenv/dagong_v0")` |
|--------------------|------------------------------------------------------------------------------|
| Actions            | Discrete                                                                     |
| Parallel API       | No                                                                           |
| Agents             | `agents = ['player_0', 'player_1', 'player_2', 'player_3']` (play order)     |
| Action Shape       | Discrete(2419)                                                               |
| Action Values      | [0, 2418]                                                                    |
| Observation Shape  | `observation`: (588,) float32, `action_mask`: (2419,) int8                   |
| State Shape        | (981,) float32                                                               |

A 2-deck climbing game for four players: jokers are wildcards, bombs run from 4 to 12 cards,
510K and 摇摆 are bombs too, the dealer calls a card and whoever holds its twin is the hidden
partner (找朋友) -- or a player goes alone (硬牌). The rules, every decision taken where the
sources are silent, and every option: `docs/rules/dagong.md`.

### Arguments

``env(render_mode=None, lang="zh", **options)`` / ``raw_env(...)`` with the rules options of
``cardenv.dagong.DagongGame``: ``hands=1`` (hands per episode; hands after the first use the
later-hand rules), ``solo_multiplier=2``, ``allow_solo=True``, ``xiqian=True``. An unknown
option or a bad value raises ``ConfigError`` (a ``ValueError``).

``lang`` is the language of ``render()`` and ``describe_action()``: ``"zh"`` (default) keeps the
game's Chinese terms (``7喜 7x9``), ``"en"`` gives their English names (``7-joy 7x9``; the
table is ``cardenv.core.lang.TERMS`` and docs/glossary.md). It is not a rules option:
observations, masks, seeds and saved states are the same in both languages, and
``action_info(a).text`` keeps the Chinese terms. Another value raises ``ConfigError``.

### Observation Space

A dict: ``observation`` (what the seat may know, below) and ``action_mask``. Seats in the table
are relative to the observer: 0 = itself, 1 = the next player, 2 = the opposite seat, 3 = the
previous player. Card kinds: ``rank * 4 + suit`` for ranks 3..2 = 0..12 and suits ♦♣♥♠ =
0..3; 52 = small joker, 53 = big joker.

| Index | Piece | Shape | Max | Description |
|---|---|---|---|---|
| 0..53 | `hand` | 54 | 2 | own hand: copies (0..2) of each card kind |
| 54..269 | `played` | 4x54 | 2 | cards each seat has played this hand, per kind |
| 270..323 | `called` | 54 | 1 | one-hot kind of the called card (叫牌) |
| 324..327 | `dealer` | 4 | 1 | one-hot: the dealer (庄家) |
| 328..331 | `partner` | 4 | 1 | one-hot: the dealer's hidden partner, where this seat knows it (the partner itself from the deal -- so a 1 at relative index 0 means 'I am the partner' -- everyone once it is revealed) |
| 332..332 | `revealed` | 1 | 1 | 1 once the partner has played the called card (明鸡) |
| 333..336 | `solo` | 4 | 1 | one-hot: the player going alone (硬牌, or a dealer who holds both called cards) |
| 337..337 | `forced_solo` | 1 | 1 | 1 if the dealer plays alone because it holds both copies of the called card |
| 338..338 | `solo_phase` | 1 | 1 | 1 while players are deciding on 硬牌 |
| 339..342 | `cards_left` | 4 | 27 | cards left in each seat's hand (0..27) |
| 343..396 | `standing_cards` | 54 | 2 | the play to beat, per kind (zeros when leading) |
| 397..400 | `standing_seat` | 4 | 1 | one-hot: who made the play to beat |
| 401..411 | `standing_type` | 11 | 1 | one-hot type of the play to beat: single, pair, triple, pair_run, triple_run, bomb, 510k, tianzha, 7xi, 8xi, yaobai |
| 412..424 | `standing_rank` | 13 | 1 | one-hot key rank of the play to beat (a run's top rank; none for 510K and 天炸) |
| 425..425 | `standing_length` | 1 | 27 | number of cards in the play to beat |
| 426..429 | `passed` | 4 | 1 | 1 for each seat that has passed since the play to beat |
| 430..430 | `trick_points` | 1 | 200 | points in the cards played in the current trick |
| 431..434 | `points` | 4 | 200 | points each seat has won in tricks this hand |
| 435..450 | `place` | 4x4 | 1 | one-hot finishing place per seat (一游..末游) once out |
| 451..454 | `to_play` | 4 | 1 | one-hot: whose turn it is |
| 455..458 | `yaobai` | 4 | 1 | 1 for each seat that has played a 摇摆 this hand |
| 459..459 | `more_hands` | 1 | 1 | 1 if another hand follows this one in the episode |
| 460..513 | `superseded_calls` | 54 | 1 | 1 for each kind called during a later hand's deal and then superseded because the dealer came to hold both copies (the dealer showed them) |
| 514..567 | `unseen` | 54 | 2 | copies of each card kind this seat has not seen played or in its own hand: 2 minus its hand minus every card played this hand (they are in the other hands; a card only shown, the called card or a superseded call, still counts here) |
| 568..581 | `unseen_ranks` | 14 | 8 | unseen natural cards of each rank 3..2 (0..8), then unseen jokers (0..4): the most of each rank the other three hands hold together, wildcards apart |
| 582..582 | `points_out` | 1 | 200 | points not yet played this hand: 200 (two decks) minus the points played |
| 583..583 | `hand_points` | 1 | 200 | points in own hand |
| 584..587 | `twin` | 4 | 1 | 1 for each seat that may still hold the called card's twin (the copy the dealer did not show, held by the hidden partner), as far as this seat can tell: its own row alone when it holds it, the dealer alone when the dealer holds both, else every other seat but the dealer still holding cards (a seat out without playing it never had it); zeros once it is played |

The last pieces, ``unseen`` .. ``twin``, are what a card player counts, kept by the engine
(``cardenv.dagong.counting``) from what the seat has seen. Nothing hidden is in it: other
hands, and who the partner is before 明鸡 (except for the partner itself), are absent.
``env.state()`` returns the full state (all four hands, the same pieces in absolute seat order,
every seat's counts) for centralised critics.

#### Legal Actions Mask

``action_mask[a] == 1`` iff action ``a`` is legal for the agent to act; all zeros for every
other agent. With ``env()``, an illegal action ends the game with -1 for the offender
(PettingZoo's ``TerminateIllegalWrapper``); ``raw_env()`` raises ``IllegalActionError`` (a
``ValueError``) naming the action and the legal ones, and changes nothing.

### Action Space

0 = pass, 1 = decline 硬牌, 2 = declare 硬牌, then 1208 combinations (type, ranks covered, jokers
used, 510K suit) that keep the called card back, then the same 1208 that play one card of the
called kind. ``cardenv.dagong.ACTIONS[a]`` describes action ``a`` (type, length, key rank,
ranks, jokers, suit, ``called``, ``text`` such as ``"bomb 6x9 with 2 jokers"``);
``cardenv.dagong.action_id(...)`` is the inverse. See ``cardenv/dagong/catalogue.py``.

#### Action Features

What each legal action does in the position, for policies that score moves one by one:
``env.action_features(agent=None)`` is an ``(L, 28)`` float32 array, one row per legal action
of the agent in the order of ``np.flatnonzero(observe(agent)["action_mask"])``;
``cardenv.vector.VectorGame.action_features()`` gives the same rows for a batch. They are a
function of the observation and the action id alone (``cardenv.dagong.action_features``), so
they hold nothing hidden. Mostly in 0..1:

| Index | Feature | Size | Description |
|---|---|---|---|
| 0..13 | `type` | 14 | one-hot: pass, solo_decline, solo_declare, single, pair, triple, pair_run, triple_run, bomb, 510k, tianzha, 7xi, 8xi, yaobai [B2] |
| 14..14 | `length` | 1 | cards played / 27 |
| 15..15 | `key_rank` | 1 | key rank (a run's top rank) / 12, 3 = 0 .. 2 = 1 (0 for 510K, 天炸 and non-plays) |
| 16..16 | `jokers` | 1 | jokers (wildcards) it spends / 4 |
| 17..17 | `bomb` | 1 | 1 for a bomb (beats every non-bomb) [B2] |
| 18..18 | `bomb_strength` | 1 | rank of the bomb in the bomb order / the strongest (天炸 = 1; 0 for non-bombs) [D-B2] |
| 19..19 | `zheng` | 1 | 1 for a 正510K (one suit), 0 for a 杂510K and the rest |
| 20..20 | `points` | 1 | points of the natural cards it takes from this hand / 100 |
| 21..21 | `called` | 1 | 1 if it plays a card of the called kind (the partner's play of it reveals the partnership, 明鸡) [B3] |
| 22..22 | `cards_after` | 1 | cards left in hand after it / 27 |
| 23..23 | `empties` | 1 | 1 if it plays the last cards of the hand (goes out) [B3] |
| 24..24 | `lead` | 1 | 1 for a play with nothing standing (a lead) |
| 25..25 | `rank_margin` | 1 | a non-bomb on a standing play of its type and length: (key rank - the standing key rank) / 12; else 0 |
| 26..26 | `bomb_margin` | 1 | a bomb on a standing play: (its bomb rank - the standing one's, 0 for a non-bomb) / the strongest; else 0 |
| 27..27 | `trick_points` | 1 | points of the current trick with this play's / 200 (what its side takes if the play stands) |

### Rewards

When a hand ends, each seat receives its payoff for the hand (B4): ±1 for a find-a-friend win
or loss, ×2 for 绑 and 清, ×4 for 光头, solo ±3×`solo_multiplier` (each opponent ∓
`solo_multiplier`), doubled once when a winner played a 摇摆; plus the 喜钱 balance for the
dealt hands. Rewards sum to zero. Between hand ends every reward is 0. On the step that ends a
hand, every agent's ``info`` is ``{"hand_over": True, "hand_result": {...}}`` (places, points,
winners, reason, multiplier, payoff, 喜钱; see ``cardenv.dagong.HandResult``), in one shape for
every hand: ``partner`` and ``solo`` are -1 where there is none, and ``places`` and ``winners``
are padded with -1 to four entries (``cardenv.envs.aec.result_info``). An illegal move
under ``env()`` gives the offender -1 and the others 0, PettingZoo's convention (not zero-sum).

### Version History

* v0: initial release (cardenv 0.1.0); later appended at the end (an older observation is a
  prefix of the new one, which networks trained on it read): `superseded_calls`, then the
  counting pieces `unseen`, `unseen_ranks`, `points_out`, `hand_points` and `twin` (issue 35;
  observation 514 -> 588, state 688 -> 981)
"""

from __future__ import annotations

from cardenv.envs.aec import CardGameEnv, wrap
from cardenv.dagong.game import DagongGame
from cardenv.dagong.presentation import render_text


def env(**kwargs):
    """``raw_env`` in PettingZoo's classic wrappers (illegal move: game over, -1 for the offender)."""
    return wrap(raw_env(**kwargs))


class raw_env(CardGameEnv):
    """The Dagong AEC environment without wrappers; see the module docstring."""

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "dagong_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: str | None = None, lang: str = "zh", **options):
        super().__init__(DagongGame(**options), render_text, render_mode, lang)
