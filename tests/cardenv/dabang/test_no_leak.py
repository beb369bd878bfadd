"""No hidden information in a Dabang observation: an observer that follows only what every seat
sees happen, plus one seat's own cards, rebuilds that seat's observation exactly.

``Observer`` never reads the engine's buffer (``state.v`` / ``state.buffer``). It is fed, step by
step:

- public events: each decision taken (who acted, in which phase, and the action, except the
  card of a burial or of a tribute card given back, which only the dealer and the tributer see);
  whose decision comes next and of which kind (``state.current``, ``state.phase``); a new shuffle
  with its public set-up (first seat, dealer of a later hand, levels, level, first hand); how
  many cards have been dealt (``deal.pos``); the grab's trump suit when the grabber's suited
  card arrives (``state.trump``); the kitty cards the rules turn face up ([DB-2]: the kitty shown
  after a declaration or a grab, each first-hand flip and the cards turned after it, a later
  hand's draw in the order the seed's generator draws it); the number of tribute cards; the
  kitty once it is shown (after a buried joker or 扣王), and what leaves it;
- private events, to one seat only: the cards dealt to it; the tribute cards, to the dealer who
  receives them (the tributer works its own out from its hand, by the rule [D-A5]); a card
  given back, to the dealer and the tributer; the kitty, to the dealer who picks it up; the
  cards it buries, to the dealer.

Everything else (the dealer of a first hand from the flips, the trump, 干锅, take-backs, tricks,
their winners and points, cards left) the observer works out itself from the rules
(``cardenv.dabang.strength`` tables for the trick winner). The layout gives only the offsets.
The observations are compared for every seat at every step of well over 100 hands, with
coverage asserted: tribute (a given blood, and ``blood="random"``), the tribute given back,
declaration overrides, the grab, the first hand's flips (jokers passed after them, scripted
decks), a later hand's draw, 扣王 and take-backs, 干锅, match episodes, follow dead and live.
(The default run plays the first quarter of each configuration's episodes, 25 hands and more,
the coverage floors a quarter as high; ``-m slow`` plays them all.)
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from cardenv.core.cards import BIG_JOKER, KIND_POINTS, NUM_KINDS, NUM_NATURAL, SMALL_JOKER
from cardenv.core.state import copy_generator
from cardenv.dabang import DabangGame
from cardenv.dabang import catalogue as cat
from cardenv.dabang.game import DECK
from cardenv.dabang.kitty import tribute_cards
from cardenv.dabang.observation import LAYOUT, PHASES
from cardenv.dabang.phase import Phase
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS, TRUMP
from tests.sizes import sizes

DEALT = 208
POINTS = KIND_POINTS.tolist()


def counts(cards) -> np.ndarray:
    return np.bincount(np.asarray(list(cards), dtype=np.int64), minlength=NUM_KINDS)


def flip_order(card: int) -> int:
    """[D-A3] BJ > SJ > 3 > 2 > A > K > ... > 4, suits not compared."""
    if card >= NUM_NATURAL:
        return 100 if card == BIG_JOKER else 99
    rank = card // 4
    return 98 if rank == 0 else 97 if rank == 12 else rank


def declaration_shown(action: int) -> tuple[int, int, int | None]:
    """(rank, column of ``declared_cards``, count shown) and the suit of a declaration."""
    if action == cat.GRAB:
        return 99, 5, 1, None
    if action < cat.DECLARE_SJ4:
        suit, n = divmod(action - cat.DECLARE_LEVEL, 4)
        return n + 1, suit, n + 1, suit
    suit = (action - cat.DECLARE_SJ4) % 4
    big = action >= cat.DECLARE_BJ4
    return (6 if big else 5), (5 if big else 4), 4, suit


def is_gangguo(cards, trump: int, level: int) -> bool:
    """A4: no trump-suit card (level cards not counted) or trump only."""
    lr = level - 3
    suited = [c for c in cards if c < NUM_NATURAL and c % 4 == trump and c // 4 != lr]
    all_trump = all(c >= NUM_NATURAL or c // 4 in (lr, 12) or c % 4 == trump for c in cards)
    return not suited or all_trump


class Observer:
    """The four seats' observations from public events and each seat's private ones (the
    ``pub`` buffer holds public and ``seats`` pieces; ``own[s]`` only seat ``s``'s own rows)."""

    def __init__(self, st):
        self.opts = st.game.options
        self.pub = np.zeros(LAYOUT.size, dtype=np.int64)
        self.own = np.zeros((4, LAYOUT.size), dtype=np.int64)
        self.P = LAYOUT.views(self.pub)
        self.O = [LAYOUT.views(row) for row in self.own]
        self.events = Counter()
        self.new_shuffle(st)

    # --- building the observation -------------------------------------------------------------

    def observation(self, seat: int) -> np.ndarray:
        full = self.pub + self.own[seat]
        self.count(seat, LAYOUT.views(full))
        return full[LAYOUT.observation_index[seat]].astype(np.float32)

    # --- what a card player counts (issue 35), from the seat's own pieces ----------------------

    def unseen(self, seat: int, v) -> list[int]:
        return [4 - v["hand"][seat, c] - sum(v["played"][s, c] for s in range(4))
                - v["kitty_known"][seat, c] for c in range(NUM_KINDS)]

    def count(self, seat: int, v) -> None:
        v["unseen"][seat] = self.unseen(seat, v)
        v["kitty_points"][seat, 0] = sum(POINTS[c] * v["kitty_known"][seat, c]
                                         for c in range(NUM_KINDS))
        points = v["points"]
        v["points_out"][0] = 400 - sum(points)
        if self.dealer is not None:
            attack = points[(self.dealer + 1) % 4] + points[(self.dealer + 3) % 4]
            v["attack_points"][0] = attack
            v["thresholds"][:] = [attack >= 120, attack >= 160, attack >= 200]
        if self.playing and self.plays:
            v["trick_winner"][self.winning()] = 1
            v["trick_points"][0] = sum(POINTS[k] * n for _, p, _, _ in self.plays
                                       for k, n in p.items())
        if self.playing:
            for s in self.to_play:
                v["still_to_play"][s] = 1

    def winning(self) -> int:
        """The seat whose play wins the trick so far (A5; the first of equals)."""
        cls = SUIT_CLASS[self.trump, self.level - 3]
        strength = STRENGTH[self.trump, self.level - 3]
        best, value = 0, -1
        for i, (s, _, kind, v) in enumerate(self.plays):
            if kind >= 0 and (i == 0 or cls[kind] == cls[self.led] or (v and cls[kind] == TRUMP)) \
                    and strength[kind] > value:
                best, value = i, strength[kind]
        return self.plays[best][0]

    def set_all_known(self, cards) -> None:  # every seat knows what lies in the kitty
        for s in range(4):
            self.O[s]["kitty_known"][s] = counts(cards)

    # --- a new shuffle ---------------------------------------------------------------------------

    def new_shuffle(self, st) -> None:
        self.pub[:] = 0
        self.own[:] = 0
        P = self.P
        self.deal_obj, self.deck = st.deal, st.deal.deck  # own cards are read at own positions
        self.start, self.first = st.start_seat, st.first_hand
        self.level, self.levels = st.level, list(st.levels)
        self.dealer = None if self.first else st.dealer
        self.pos = 0
        self.decl, self.declarer = 0, None
        self.trump = None
        self.revealed = self.taken_up = self.playing = False
        self.shown_at_reveal = False
        self.kitty_public: list[int] | None = None  # what lies in the kitty, when public
        self.buried: list[int] = []  # the dealer's, known to the dealer only
        self.left = [0, 0, 0, 0]
        self.hands = np.zeros((4, NUM_KINDS), dtype=np.int64)  # row s: known to seat s only
        P["levels"][:] = [self.levels[s % 2] for s in range(4)]
        P["level"][self.level - 3] = 1
        P["first_hand"][0] = self.first
        if self.dealer is not None:
            P["dealer"][self.dealer] = 1
        # public: the blood the previous hand's result owes this dealer
        P["blood_owed"][0] = st.blood_due
        P["tribute_hand"][0] = st.blood_due > 0
        P["defenders_take_last"][0] = st.blood_due > 0 and self.opts["tribute_return"] == "none"
        self.to_play, self.plays = [], []
        self.events["shuffles"] += 1

    # --- events ----------------------------------------------------------------------------------

    def set_trump(self, suit: int) -> None:
        self.trump = suit
        self.P["trump"][:] = 0
        self.P["trump"][suit] = 1

    def move(self, seat: int, delta: int) -> None:
        self.left[seat] += delta
        self.P["cards_left"][seat] = self.left[seat]

    def own_hand(self, seat: int, card: int, delta: int) -> None:
        self.hands[seat, card] += delta
        self.O[seat]["hand"][seat] = self.hands[seat]

    def declare(self, seat: int, action: int) -> None:
        P = self.P
        rank, column, count, suit = declaration_shown(action)
        if self.decl:
            self.events["override"] += 1
        self.decl, self.declarer = action, seat
        P["declarer"][:] = 0
        P["declarer"][seat] = 1
        P["declaration"][:] = 0
        P["declaration"][0 if action == cat.GRAB else rank] = 1
        P["declared_suit"][:] = 0
        if suit is not None:
            P["declared_suit"][suit] = 1
        P["declared_cards"][seat, column] = max(P["declared_cards"][seat, column], count)
        self.events["grab" if action == cat.GRAB else "declaration"] += 1

    def deal_to(self, pos: int) -> None:
        for i in range(self.pos, pos):
            seat = (self.start + i) % 4
            self.move(seat, 1)
            self.own_hand(seat, self.deck[i], 1)  # private: the card dealt to that seat
        self.pos = pos

    def reveal(self, st, rng) -> None:
        """Declaring is over: the kitty cards the rules turn up, the first hand's dealer, the
        trump; then the tribute."""
        P, kitty = self.P, self.deck[DEALT:]
        if (self.first and self.decl == cat.GRAB) or (not self.first and self.decl):
            if not self.first:
                self.set_trump(declaration_shown(self.decl)[3])
            shown = list(kitty)  # the whole kitty, shown to everyone
            self.kitty_public = list(kitty)
            self.shown_at_reveal = True
            P["kitty_shown"][0] = 1
            self.dealer = self.declarer if self.first else self.dealer
        elif self.first:  # [D-A3] the flips, then after a joker the next suited card
            flips = kitty[:4]
            best = max(range(4), key=lambda i: (flip_order(flips[i]), -i))
            shown, passed = list(flips), []
            index = best
            while kitty[index] >= NUM_NATURAL:
                index = (index + 1) % 8
                if index > 3:
                    (shown if kitty[index] < NUM_NATURAL else passed).append(kitty[index])
            self.dealer = (self.start + best) % 4
            self.set_trump(kitty[index] % 4)
            P["flip_jokers"][:] = [passed.count(SMALL_JOKER), passed.count(BIG_JOKER)]
            self.events["flips"] += 1
            self.events["flip_jokers_passed"] += len(passed)
        else:  # later hand, nobody declared: drawn at random until a suited card [DB-2]
            shown = []
            for i in rng.permutation(8).tolist():
                shown.append(kitty[i])
                if kitty[i] < NUM_NATURAL:
                    self.set_trump(kitty[i] % 4)
                    break
            self.events["draw"] += 1
        P["kitty_revealed"][:] = counts(shown)
        self.set_all_known(shown)
        P["dealer"][:] = 0
        P["dealer"][self.dealer] = 1
        self.revealed = True
        # tribute: the count is public; the cards go to the tributer's and the dealer's eyes
        n = len(st.tribute.cards)
        if n:
            giver, dealer = (self.dealer - 1) % 4, self.dealer
            mine = tribute_cards(self.hands[giver].tolist(), n, self.trump, self.level)
            received = list(st.tribute.cards)  # private event: what the dealer receives
            assert sorted(mine) == sorted(received)
            for card in mine:
                self.own_hand(giver, card, -1)
                self.own_hand(dealer, card, 1)
            self.O[giver]["tribute_known"][giver] = counts(mine)
            self.O[dealer]["tribute_known"][dealer] = counts(received)
            self.move(giver, -n)
            self.move(dealer, n)
            P["tribute"][0] = n
            self.events["tribute"] += 1

    def give_back(self, action: int) -> None:
        card = action - cat.RETURN  # private to the dealer (its action) and the tributer
        dealer, giver = self.dealer, (self.dealer - 1) % 4
        self.own_hand(dealer, card, -1)
        self.own_hand(giver, card, 1)
        for s in (dealer, giver):
            self.O[s]["returned_known"][s, card] += 1
        self.move(dealer, -1)
        self.move(giver, 1)
        self.P["returned"][0] += 1
        self.events["given_back"] += 1

    def take_up(self) -> None:
        """After the tribute (and its return): 干锅, or the dealer picks the kitty up."""
        self.taken_up = True
        if not self.first and self.shown_at_reveal and \
                is_gangguo(self.deck[DEALT:], self.trump, self.level):
            self.P["gangguo"][0] = 1
            self.events["gangguo"] += 1
            return
        for card in self.deck[DEALT:]:  # private: the dealer sees what it picks up
            self.own_hand(self.dealer, card, 1)
        self.move(self.dealer, 8)
        self.kitty_public = None
        for s in range(4):
            self.O[s]["kitty_known"][s] = 0
        self.P["kitty_shown"][0] = 0

    def bury(self, action: int, st) -> None:
        card, dealer = action - cat.BURY, self.dealer
        self.buried.append(card)  # private to the dealer
        self.own_hand(dealer, card, -1)
        self.O[dealer]["kitty_known"][dealer, card] += 1
        self.move(dealer, -1)
        if len(self.buried) == 8 and any(c >= NUM_NATURAL for c in self.buried):
            # public event: a buried joker makes the dealer show the kitty (A4)
            assert sorted(st.kitty.cards) == sorted(self.buried)
            self.show(st.kitty.cards)
            self.events["burial_shown"] += 1

    def show(self, cards) -> None:
        self.kitty_public = list(cards)
        self.P["kitty_shown"][0] = 1
        self.set_all_known(cards)

    def koujoker(self, seat: int, action: int, st, kitty_before: list[int]) -> None:
        if action != cat.PASS:
            joker = action - cat.BURY
            self.own_hand(seat, joker, -1)
            self.move(seat, -1)
            self.P["koujoker"][seat] += 1
            self.P["koujoker_kinds"][seat, joker - SMALL_JOKER] += 1
            if self.kitty_public is None:  # the first 扣王 joker shows the kitty: what lay
                self.show(kitty_before + [joker])  # there (before this step), and the joker
            else:
                self.kitty_public.append(joker)
                self.show(self.kitty_public)
            self.events["koujoker"] += 1
        self.take_backs(seat, st)

    def take_backs(self, seat: int, st) -> None:
        """The cards that left the shown kitty in this step: the seat in turn took them."""
        if self.kitty_public is None:
            return
        gone = counts(self.kitty_public) - counts(st.kitty.cards)
        assert (gone >= 0).all()
        for card in np.repeat(np.arange(NUM_KINDS), gone).tolist():
            assert card < NUM_NATURAL and not POINTS[card]
            self.kitty_public.remove(card)
            self.P["taken_back"][seat, card] += 1
            self.own_hand(seat, card, 1)
            self.move(seat, 1)
            self.events["taken_back"] += 1
        self.set_all_known(self.kitty_public)

    # --- tricks ----------------------------------------------------------------------------------

    def start_trick(self, leader: int) -> None:
        if not self.left[leader]:
            leader = next(s for s in ((leader + i) % 4 for i in range(1, 4)) if self.left[s])
        self.leader, self.led, self.k = leader, -1, 0
        self.partial, self.plays = {}, []
        self.to_play = [s for s in ((leader + i) % 4 for i in range(4)) if self.left[s]]
        P = self.P
        P["trick"][:] = 0
        P["leader"][:] = 0
        P["leader"][leader] = 1
        P["led_count"][0] = 0

    def play(self, seat: int, action: int) -> None:
        assert seat == self.to_play[0]
        kind, count = divmod(action - cat.PLAY, 4)
        count += 1
        if self.led < 0:
            self.led, self.k = kind, count
            self.P["led_count"][0] = count
            self.complete(seat, {kind: count})
            return
        self.partial[kind] = count
        self.O[seat]["selection"][seat, kind] = count
        if sum(self.partial.values()) == min(self.k, self.left[seat]):
            play, self.partial = self.partial, {}
            self.O[seat]["selection"][seat] = 0
            self.complete(seat, play)

    def complete(self, seat: int, play: dict) -> None:
        cls = SUIT_CLASS[self.trump, self.level - 3]
        void = bool(self.plays) and all(cls[k] != cls[self.led] for k in play)
        if self.plays and any(cls[k] != cls[self.led] for k in play):
            # everyone saw the follow hold another suit: it has no more of the led suit
            self.P["voids"][seat, cls[self.led]] = 1
        same = next(iter(play)) if len(play) == 1 and sum(play.values()) == self.k else -1
        for kind, n in play.items():
            self.P["played"][seat, kind] += n
            self.P["trick"][seat, kind] = n
            self.own_hand(seat, kind, -n)
        self.move(seat, -sum(play.values()))
        self.plays.append((seat, play, same, void))
        self.to_play.pop(0)
        if self.to_play:
            return
        strength = STRENGTH[self.trump, self.level - 3]
        best, value = 0, -1
        for i, (s, _, kind, v) in enumerate(self.plays):
            if kind >= 0 and (i == 0 or cls[kind] == cls[self.led] or (v and cls[kind] == TRUMP)) \
                    and strength[kind] > value:
                best, value = i, strength[kind]
        winner = self.plays[best][0]
        self.P["points"][winner] += sum(POINTS[k] * n for _, p, _, _ in self.plays
                                        for k, n in p.items())
        if any(self.left):
            self.start_trick(winner)

    # --- one step ---------------------------------------------------------------------------------

    def step(self, st, seat: int, phase: Phase, action: int, rng, kitty_before) -> None:
        """``seat`` took ``action`` in ``phase``; then the automatic events up to ``st``.
        ``kitty_before``: the kitty before the step, read only when a first 扣王 joker shows it
        (the take-back of the same step may then follow at once)."""
        if phase is Phase.DECLARE:
            if action != cat.PASS:
                self.declare(seat, action)
        elif phase is Phase.RETURN:
            self.give_back(action)
        elif phase is Phase.BURY:
            self.bury(action, st)
        elif phase is Phase.KOUJOKER:
            self.koujoker(seat, action, st, kitty_before)
        elif phase is Phase.TAKEBACK:
            self.take_backs(seat, st)
        else:
            self.play(seat, action)
        if st.deal is not self.deal_obj:  # a new hand, or a redeal: its public set-up
            self.new_shuffle(st)
            if rng is not None:  # the generator shuffled this deck before any draw
                assert rng.permutation(DECK).tolist() == st.deal.deck
        self.sync(st, rng)

    def sync(self, st, rng) -> None:
        self.deal_to(st.deal.pos)
        if self.first and self.decl == cat.GRAB and self.trump is None and st.trump is not None:
            self.set_trump(st.trump)  # public: the grabber's suited card names the trump
            self.events["grab_suit_in_deal"] += 1
        phase = st.phase
        if not self.revealed and phase is not Phase.DECLARE:
            self.reveal(st, rng)
        if self.revealed and not self.taken_up and phase is not Phase.RETURN:
            self.take_up()
        if self.taken_up and not self.playing and phase in (Phase.PLAY, Phase.OVER):
            self.playing = True
            self.start_trick(self.dealer)
        P = self.P
        P["phase"][:] = 0
        P["to_play"][:] = 0
        if phase is not Phase.OVER:  # public: whose decision, and of which kind
            P["phase"][PHASES.index(phase.value)] = 1
            P["to_play"][st.current] = 1


# --- driving episodes ----------------------------------------------------------------------------

def choose(st, rng, policy) -> int:
    legal = st.legal_actions()
    if policy == "silent" and st.phase is Phase.DECLARE and len(legal) > 1:
        return cat.PASS
    if st.phase is Phase.DECLARE and len(legal) > 1 and rng.random() < 0.5:
        return int(legal[rng.integers(1, len(legal))])  # declare often: overrides
    if st.phase is Phase.KOUJOKER and rng.random() < 0.7:
        return int(legal[-1])  # bury jokers often: 扣王 and take-backs
    return int(legal[rng.integers(len(legal))])


def run_episode(game, seed: int, rng, totals: Counter, *, deck=None, policy=None) -> Counter:
    st = game.new_state(seed, deck=deck)
    obs = Observer(st)
    obs.sync(st, None)
    while True:
        for seat in range(4):
            mine, env = obs.observation(seat), st.observation(seat)
            if not np.array_equal(mine, env):  # (the cheap check first: the report on failure)
                np.testing.assert_array_equal(
                    mine, env,
                    err_msg=f"seed {seed}, step {len(st.history)}, seat {seat}, phase {st.phase}")
        totals["steps"] += 1
        if st.is_over:
            break
        action = choose(st, rng, policy)
        seat, phase = st.current, st.phase
        totals[f"phase:{phase.value}"] += 1
        saved = copy_generator(st.rng)  # the seed's draws are public as they happen
        hands, kitty_before = len(st.results), list(st.kitty.cards)
        st.apply(action)
        if phase is Phase.PLAY and len(st.results) > hands:
            totals["hands"] += 1
            if game.options["episode"] == "match" and not st.is_over:
                totals["later_hands_in_match"] += 1
        obs.step(st, seat, phase, action, saved, kitty_before)
    totals.update(obs.events)
    return obs.events


def flip_deck(seed: int, kitty: list[int]) -> list[int]:
    """A shuffled deck whose kitty (the last 8 cards) is ``kitty``."""
    rest = Counter({k: 4 for k in range(NUM_KINDS)})
    rest.subtract(kitty)
    deal = [k for k, n in rest.items() for _ in range(n)]
    np.random.default_rng(seed).shuffle(deal)
    return deal + list(kitty)


SJ, BJ = SMALL_JOKER, BIG_JOKER
CONFIGS = [  # (options, episodes, policy; "silent": nobody declares)
    ({}, 30, None),  # a first hand: grabs and flips
    ({"follow": "live", "bidding": "after_deal"}, 12, None),
    ({"dealer": "random", "levels": "random", "blood": "random"}, 40, None),
    ({"dealer": 1, "levels": (5, 7), "blood": 6, "tribute_return": "dealer_choice"}, 12, None),
    ({"dealer": 2, "levels": (10, 9), "blood": 3, "follow": "live"}, 12, None),
    ({"dealer": 3, "blood": 2}, 6, "silent"),  # a later hand's draw
    ({"episode": "match", "max_hands": 3}, 8, None),
    ({"episode": "match", "max_hands": 2, "follow": "live", "keep_dealer": "same"}, 6, None),
]
FLIP_KITTIES = [  # [D-A3] jokers turned and passed after the flips (the last one wraps round)
    [4, 8, BJ, SJ, SJ, BJ, 30, 9],
    [4, SJ, 9, BJ, BJ, SJ, 13, 30],
    [4, 5, 6, BJ, SJ, SJ, BJ, BJ],
    [BJ, 40, 9, 13, 20, 21, 22, 23],
]


@sizes("one_in", 4, 1)  # the first quarter of each one's episodes by default, all under -m slow
def test_every_seats_observation_rebuilt_from_public_events_and_own_cards(one_in):
    rng = np.random.default_rng(2024)
    totals = Counter()
    seed = 0
    for options, episodes, policy in CONFIGS:
        game = DabangGame(**options)
        for _ in range(math.ceil(episodes / one_in)):
            events = run_episode(game, seed, rng, totals, policy=policy)
            hands = events["shuffles"]  # (no redeal in these seeds: counted below)
            totals[f"follow:{game.options['follow']}"] += hands
            if options.get("blood") == "random":
                totals["random_blood_tribute"] += events["tribute"]
            seed += 1
    game = DabangGame()
    for i, kitty in enumerate(FLIP_KITTIES):
        for j in range(math.ceil(2 / one_in)):
            run_episode(game, seed, rng, totals, deck=flip_deck(seed, kitty), policy="silent")
            seed += 1
    least = {"hands": 100, "override": 20, "flip_jokers_passed": 8}  # (a quarter by default)
    least = {name: math.ceil(floor / one_in) for name, floor in least.items()}
    assert totals["hands"] >= least["hands"] and totals["hands"] == totals["shuffles"], totals
    for event in ("override", "grab", "grab_suit_in_deal", "flips", "draw", "tribute",
                  "given_back", "koujoker", "taken_back", "burial_shown", "gangguo",
                  "later_hands_in_match", "phase:takeback", "phase:return", "follow:dead",
                  "follow:live", "random_blood_tribute"):
        assert totals[event] > 0, (event, totals)
    assert totals["override"] >= least["override"], totals
    assert totals["flip_jokers_passed"] >= least["flip_jokers_passed"], totals
