"""A rule-based Huludao Dabang (葫芦岛打棒) player that decides from the observation alone.

``DabangHeuristic`` reads the named pieces of the observation
(``cardagents.players.observation.ObsView`` layout) and the public rule tables
(``cardenv.dabang.strength``, ``KIND_POINTS``); it never looks at the engine state. Every decision
is one pass over the 54 card kinds (well under 1 ms). ``act_batch`` decides the play phase (about
90% of the decisions), burials, tribute returns, 扣王 and take-backs of a whole batch with numpy
array operations (``cardagents.players.heuristics.dabang.batch``), declarations row by row: the same
actions as ``act`` on every row, more than ten times faster at batch 1024.

Strategy, phase by phase:

- **Declaring**: a suit scores its length (every natural card of the suit but the 2, the level
  card counting double) plus a little for high cards and pairs. Declare a suit we can name when
  it is (nearly) our best one, with every level card held; override an opponent only for a
  clearly better suit, reinforce our own, never override the partner. First hand: grab with the
  big joker only when at least 30% of the cards so far are jokers, 2s and 3s (the grabber
  defends under a trump suit left to chance: a loss with an average hand).
- **Burying** (dealer), and giving tribute cards back: low non-point side cards first, from the
  shortest side suits (to void them), keeping pairs, aces, points, trumps and jokers.
- **扣王**: pass; take-back: the first choice.
- **Leading**: a group that no unseen cards can beat (card counting from ``played``,
  ``kitty_known`` and the hand, with a rough void estimate for trumping), side suits and big
  groups first; else a low non-point single from a short side suit; a lone top trump is kept
  as a control (led early only by the dealer's team holding many trumps); low trumps last.
- **Following**: compute the current trick winner (only ``k`` identical cards of the led suit,
  or of trump from a void follower, can win). Partner winning and safe: feed points. Opponent
  winning: take point tricks (or the last trick) with the cheapest winning group, preferring one
  nobody after us can beat; when void, trump in only for points. Otherwise dump the cheapest
  non-point cards. A follow is emitted one group per step: the plan is recomputed from the same
  observation each step and the step is always picked from the legal mask.
"""

from __future__ import annotations

import numpy as np

from cardagents.players.base import Agent
from cardagents.players.heuristics.dabang.batch import discard_batch, play_batch
from cardagents.players.heuristics.dabang.tuning import (BREAK, LAST_TRICK_BONUS, POINT_WEIGHT,
                                                         RANK_A, VOID_RISK)
from cardagents.players.observation import ObsView
from cardenv.core.cards import BIG_JOKER, KIND_POINTS, NUM_KINDS, SMALL_JOKER
from cardenv.dabang import catalogue as cat
from cardenv.dabang.observation import PHASES
from cardenv.dabang.strength import STRENGTH, SUIT_CLASS, TRUMP

_PIECES = {name: (start, stop) for name, (start, stop, _) in ObsView("dabang").pieces.items()}
_STR = STRENGTH.tolist()      # [trump][level - 3][kind]
_CLS = SUIT_CLASS.tolist()    # 0..3 side suit, 4 trump
_PTS = KIND_POINTS.tolist()
_KINDS = range(NUM_KINDS)
_RANK_2 = 12
_PLAY_END = cat.PLAY + 4 * NUM_KINDS
_PLAY_PHASE = PHASES.index("play")
_KOUJOKER = PHASES.index("koujoker")
_TAKEBACK = PHASES.index("takeback")
# the methods ``cardagents.players.heuristics.dabang.batch`` mirrors: a subclass overriding one of
# them gets the row-by-row ``act_batch``
_PLAY_METHODS = ("_decide", "_play", "_lead", "_follow", "_winning_play", "_step",
                 "_discard_cost", "_pick_discard", "_bury", "_return", "_koujoker", "_takeback")


def _seg(o: list, name: str) -> list:
    start, stop = _PIECES[name]
    return o[start:stop]


def _argmax(values: list) -> int:
    best = max(values)
    return values.index(best) if best > 0 else -1


class DabangHeuristic(Agent):
    """Heuristic Dabang agent; ``seed`` only feeds a fallback that should never be needed."""

    game = "dabang"
    name = "heuristic"

    # knobs (class attributes so that experiments can subclass)
    grab_share = 0.3          # first hand: grab when jokers + 2s + 3s reach this share
    declare_slack = 1.0       # declare a suit scoring within this of our best suit
    override_margin = 1.5     # override an opponent for a suit scoring this much better
    take_free = True          # last opponent to play: take a zero-point trick with side cards
    trump_lead = 20.0         # lead score of a single trump no unseen card beats
    draw_bonus = 20.0         # ... more for the dealer's team holding many trumps
    short_suit = 0.8          # lead score lost per card held in the suit of a low lead

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    # --- entry point -----------------------------------------------------------------------

    def act(self, observation: dict) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = np.flatnonzero(mask).tolist()
        if not legal:
            raise ValueError("no legal action in the mask: is it this agent's turn?")
        if len(legal) == 1:
            return legal[0]
        action = self._decide(np.asarray(observation["observation"]), legal)
        if action not in legal:  # defensive: a plan the mask refuses
            action = legal[int(self.rng.integers(len(legal)))]
        return int(action)

    def act_batch(self, observations, masks) -> np.ndarray:
        """``[act(row) for row]`` (same actions, same use of ``rng``), with the play phase of
        the whole batch decided in numpy (``cardagents.players.heuristics.dabang.batch``); the rarer
        phases go row by row."""
        obs = np.asarray(observations)
        masks = np.asarray(masks, dtype=bool)
        if any(getattr(type(self), m) is not getattr(DabangHeuristic, m) for m in _PLAY_METHODS):
            return super().act_batch(obs, masks)  # a subclass changed the play rules
        counts = masks.view(np.uint8).sum(axis=1, dtype=np.int16)
        if not counts.all():
            raise ValueError("no legal action in the mask: is it this agent's turn?")
        out = masks.argmax(axis=1).astype(np.int64)  # the first legal action
        start, stop = _PIECES["phase"]
        phase = np.where(obs[:, start:stop].max(axis=1) > 0, obs[:, start:stop].argmax(axis=1),
                         len(PHASES) - 1)  # as _argmax: -1 (the last phase) when all zero
        start, stop = _PIECES["leader"]
        has_leader = obs[:, start:stop].max(axis=1) > 0
        k_led = obs[:, _PIECES["led_count"][0]]
        multi = counts > 1
        batched = ~multi | (phase == _TAKEBACK)  # the first legal action
        play = multi & (phase == _PLAY_PHASE) & ((k_led == 0) | has_leader)
        rows = np.flatnonzero(play)
        if len(rows) == len(out):  # every row (a rollout's usual step): no copies
            out[:] = play_batch(self, obs, masks, _PIECES)
        elif len(rows):
            out[rows] = play_batch(self, obs[rows], masks[rows], _PIECES)
        batched |= play
        for name, base in (("bury", cat.BURY), ("return", cat.RETURN)):
            rows = np.flatnonzero(multi & (phase == PHASES.index(name)))
            rows = rows[np.count_nonzero(masks[rows, base:base + NUM_KINDS], axis=1)
                        == counts[rows]]  # every legal action in the range
            if len(rows):
                out[rows] = discard_batch(obs[rows], masks[rows], _PIECES, base)
                batched[rows] = True
        koujoker = multi & (phase == _KOUJOKER)
        out[koujoker] = cat.PASS
        batched |= koujoker
        rows = np.flatnonzero(~batched)  # declarations (and odd rows): row by row
        for i, o in zip(rows, obs[rows].tolist()):
            out[i] = getattr(self, "_" + PHASES[phase[i]])(o, np.flatnonzero(masks[i]).tolist())
        for i in np.flatnonzero(~masks[np.arange(len(out)), out]):  # row order, as act
            legal = np.flatnonzero(masks[i])
            out[i] = legal[int(self.rng.integers(len(legal)))]
        return out

    def _decide(self, observation: np.ndarray, legal: list) -> int:
        """The phase's rule for one observation (before the defensive fallback)."""
        o = observation.tolist()
        phase = PHASES[_argmax(_seg(o, "phase"))]
        return getattr(self, "_" + phase)(o, legal)

    # --- declaring -----------------------------------------------------------------------------

    def _declare(self, o: list, legal: list) -> int:
        hand = [int(x) for x in _seg(o, "hand")]
        if _seg(o, "first_hand")[0]:
            if cat.GRAB not in legal:
                return cat.PASS
            held = sum(hand)
            rank3, rank2 = 0, _RANK_2
            strong = hand[SMALL_JOKER] + hand[BIG_JOKER] + \
                sum(hand[rank3 * 4 + s] + hand[rank2 * 4 + s] for s in range(4))
            # 40 of the 216 cards (18.5%) are jokers, 2s and 3s; grabbing makes us defend
            # under a trump suit left to chance, a loss with an average hand: ask for more
            return cat.GRAB if strong >= max(3, self.grab_share * held) else cat.PASS
        lr = _argmax(_seg(o, "level"))
        scores = [self._suit_score(hand, s, lr) for s in range(4)]
        options = {}  # suit -> best declaration action naming it
        for a in legal:
            if a == cat.PASS:
                continue
            s = cat.ACTIONS[a].suit
            if s is None:
                continue
            if s not in options or self._prefer(a, options[s]):
                options[s] = a
        if not options:
            return cat.PASS
        best = max(options, key=lambda s: scores[s])
        declarer = _argmax(_seg(o, "declarer"))
        if declarer < 0:  # nothing declared yet
            held = sum(hand)
            if scores[best] >= max(scores) - self.declare_slack or \
                    (held >= 52 and scores[best] >= sum(scores) / 4):
                return options[best]
            return cat.PASS
        declared = _argmax(_seg(o, "declared_suit"))
        if declarer == 2:  # the partner's declaration stands
            return cat.PASS
        if declarer == 0:  # ours: reinforce it, or switch to a clearly better suit
            if declared in options and scores[best] < scores[declared] + 2.0:
                return options[declared]
            if scores[best] >= scores[declared] + 2.0:
                return options[best]
            return cat.PASS
        if declared < 0 or scores[best] >= scores[declared] + self.override_margin:
            return options[best]
        return cat.PASS

    @staticmethod
    def _prefer(a: int, b: int) -> bool:
        """Between two declarations of one suit: level cards (the most held) before the four
        small jokers, before the four big jokers."""
        ia, ib = cat.ACTIONS[a], cat.ACTIONS[b]
        la, lb = ia.with_ == "level", ib.with_ == "level"
        if la != lb:
            return la
        return ia.count > ib.count if la else a < b

    @staticmethod
    def _suit_score(hand: list, s: int, lr: int) -> float:
        score = 0.0
        for r in range(12):  # 3 .. A; the 2 is trump whatever the suit
            c = hand[r * 4 + s]
            if not c:
                continue
            if r == lr:
                score += 2.0 * c
            else:
                score += c * (1.0 + 0.04 * r) + (0.5 if c >= 2 else 0.0)
        return score

    # --- tribute return and burial ---------------------------------------------------------

    def _discard_cost(self, hand: list, k: int, st: list, cls: list) -> float:
        """How much we mind losing one card of kind ``k`` (burial, tribute return)."""
        if k == BIG_JOKER:
            return 1000.0
        if k == SMALL_JOKER:
            return 900.0
        c = cls[k]
        if c == TRUMP:
            return 200.0 + st[k] + 50.0 * (_PTS[k] > 0)
        suit_len = sum(hand[j] for j in range(52) if cls[j] == c)
        cost = st[k] + 1.5 * suit_len + (5.0 if hand[k] >= 2 else 0.0)
        if k // 4 == RANK_A:
            cost += 8.0
        if _PTS[k]:
            cost += 100.0 + 3.0 * _PTS[k]
        return cost

    def _pick_discard(self, o: list, legal: list, base: int) -> int:
        hand = [int(x) for x in _seg(o, "hand")]
        tr, li = self._trump_level(o)
        st, cls = _STR[tr][li], _CLS[tr][li]
        return min(legal, key=lambda a: (self._discard_cost(hand, a - base, st, cls), a))

    def _bury(self, o: list, legal: list) -> int:
        return self._pick_discard(o, legal, cat.BURY)

    def _return(self, o: list, legal: list) -> int:
        return self._pick_discard(o, legal, cat.RETURN)

    def _koujoker(self, o: list, legal: list) -> int:
        return cat.PASS

    def _takeback(self, o: list, legal: list) -> int:
        return legal[0]

    @staticmethod
    def _trump_level(o: list) -> tuple[int, int]:
        return max(_argmax(_seg(o, "trump")), 0), max(_argmax(_seg(o, "level")), 0)

    # --- play ------------------------------------------------------------------------------------

    def _play(self, o: list, legal: list) -> int:
        tr, li = self._trump_level(o)
        st, cls = _STR[tr][li], _CLS[tr][li]
        hand = [int(x) for x in _seg(o, "hand")]
        played = _seg(o, "played")
        kitty = _seg(o, "kitty_known")
        unseen = [max(0, 4 - hand[k] - int(played[k] + played[54 + k] + played[108 + k]
                                           + played[162 + k]) - int(kitty[k]))
                  for k in _KINDS]
        unseen_cls = [0] * 5
        mine_cls = [0] * 5
        for k in _KINDS:
            unseen_cls[cls[k]] += unseen[k]
            mine_cls[cls[k]] += hand[k]
        left = [int(x) for x in _seg(o, "cards_left")]
        ctx = _Ctx(st, cls, hand, unseen, unseen_cls, mine_cls, left)
        k_led = int(_seg(o, "led_count")[0])
        if k_led == 0:
            return self._lead(ctx, o, legal)
        return self._follow(ctx, o, legal, k_led)

    def _lead(self, ctx: "_Ctx", o: list, legal: list) -> int:
        st, cls, hand = ctx.st, ctx.cls, ctx.hand
        defending = _argmax(_seg(o, "dealer")) in (0, 2)
        best, best_score = legal[0], -1e9
        for k in _KINDS:
            c = hand[k]
            if not c:
                continue
            kc = cls[k]
            a = cat.play(k, c)
            winner = not ctx.beatable(st[k], kc, kc, c, (1, 3))
            pts = _PTS[k]
            if winner and kc != TRUMP:
                score = 100.0 + 10.0 * c + pts * c - 0.1 * st[k]
            elif winner and c >= 2:
                score = 80.0 + 10.0 * c + pts * c - 0.1 * st[k]
            elif winner:
                score = self.trump_lead \
                    + (self.draw_bonus if defending and ctx.mine_cls[TRUMP] >= 12 else 0.0) \
                    - 0.1 * st[k]
            else:
                base = st[k] if kc != TRUMP else st[k] + 10.0
                score = 50.0 - base - 2.0 * pts - self.short_suit * ctx.mine_cls[kc] \
                    - (BREAK if c < hand[k] else 0.0)
            if score > best_score and a in legal:
                best, best_score = a, score
        return best

    def _follow(self, ctx: "_Ctx", o: list, legal: list, k_led: int) -> int:
        st, cls, left = ctx.st, ctx.cls, ctx.left
        trick = _seg(o, "trick")
        leader = _argmax(_seg(o, "leader"))
        plays = [[int(trick[s * 54 + k]) for k in _KINDS] for s in range(4)]
        led = plays[leader].index(max(plays[leader]))
        led_cls = cls[led]
        # the current winner, in play order from the leader
        win_seat, win_str, win_cls = leader, st[led], led_cls
        points = 0
        after, done = [], []
        for i in range(4):
            s = (leader + i) % 4
            n = sum(plays[s])
            points += sum(_PTS[k] * plays[s][k] for k in _KINDS if plays[s][k])
            if s == 0:
                continue
            if n == 0:
                if left[s] > 0 and ((s - leader) % 4) > ((0 - leader) % 4):
                    after.append(s)
                continue
            done.append(s)
            if i == 0:
                continue
            kinds = [k for k in _KINDS if plays[s][k]]
            if len(kinds) != 1 or plays[s][kinds[0]] != k_led:
                continue
            y = kinds[0]
            void = not any(cls[k] == led_cls for k in kinds)
            if (cls[y] == led_cls or (void and cls[y] == TRUMP)) and st[y] > win_str:
                win_seat, win_str, win_cls = s, st[y], cls[y]
        opp_after = tuple(s for s in after if s in (1, 3))
        last = all(left[s] == 0 for s in done) and all(left[s] <= k_led for s in after) \
            and left[0] <= k_led
        value = points + (LAST_TRICK_BONUS if last else 0)
        selection = _seg(o, "selection")
        fresh = not any(selection)
        void = ctx.mine_cls[led_cls] == 0

        mode = "dump"
        if win_seat == 2:
            if not ctx.beatable(win_str, win_cls, led_cls, k_led, opp_after):
                mode = "feed"
            elif fresh and value >= 10:
                a = self._winning_play(ctx, legal, k_led, win_str, led_cls, void, opp_after,
                                       safe_only=True)
                if a is not None:
                    return a
        elif fresh:
            safe_only = value < 10
            if value > 0 or (self.take_free and not opp_after):
                a = self._winning_play(ctx, legal, k_led, win_str, led_cls, void, opp_after,
                                       safe_only=safe_only, side_only=value <= 0)
                if a is not None:
                    return a
        return self._step(ctx, legal, mode)

    def _winning_play(self, ctx, legal, k_led, win_str, led_cls, void, opp_after, *,
                      safe_only=False, side_only=False):
        """The cheapest play of ``k_led`` identical cards that beats ``win_str`` (preferring
        one no opponent after us can beat; only such ones with ``safe_only``)."""
        st, cls, hand = ctx.st, ctx.cls, ctx.hand
        safe, unsafe = None, None
        for k in _KINDS:
            if hand[k] < k_led or st[k] <= win_str:
                continue
            kc = cls[k]
            if not (kc == led_cls or (void and kc == TRUMP)):
                continue
            if side_only and kc == TRUMP:
                continue
            a = cat.play(k, k_led)
            if a not in legal:
                continue
            cost = st[k] + (BREAK if hand[k] > k_led else 0.0) - 0.2 * _PTS[k]
            if not ctx.beatable(st[k], kc, led_cls, k_led, opp_after):
                if safe is None or cost < safe[0]:
                    safe = (cost, a)
            elif unsafe is None or cost < unsafe[0]:
                unsafe = (cost, a)
        if safe is not None:
            return safe[1]
        if unsafe is not None and not safe_only:
            return unsafe[1]
        return None

    def _step(self, ctx: "_Ctx", legal: list, mode: str) -> int:
        """The cheapest legal group to add to the follow (``feed``: points are welcome)."""
        st, cls, hand, mine = ctx.st, ctx.cls, ctx.hand, ctx.mine_cls
        sign = -POINT_WEIGHT if mode == "feed" else POINT_WEIGHT
        best, best_key = legal[0], None
        for a in legal:
            if not cat.PLAY <= a < _PLAY_END:
                continue
            k, c = divmod(a - cat.PLAY, 4)
            c += 1
            kc = cls[k]
            if kc == TRUMP:  # trump-suit 3 .. A: 15 .. 37; 2s 55, 57; level cards 59, 61; jokers
                cost = 15.0 + 2.0 * (st[k] - 20) + 0.5 * sign * _PTS[k]
            else:
                cost = st[k] + (4.0 if k // 4 == RANK_A else 0.0) + 0.4 * mine[kc] \
                    + sign * _PTS[k]
            cost += BREAK if c < hand[k] else 0.0
            key = (cost, -c)
            if best_key is None or key < best_key:
                best, best_key = a, key
        return best


class _Ctx:
    """What the play decisions share: strengths, classes, own hand and card counting."""

    __slots__ = ("st", "cls", "hand", "unseen", "unseen_cls", "mine_cls", "left")

    def __init__(self, st, cls, hand, unseen, unseen_cls, mine_cls, left):
        self.st, self.cls, self.hand = st, cls, hand
        self.unseen, self.unseen_cls, self.mine_cls, self.left = unseen, unseen_cls, mine_cls, left

    def void_prob(self, seat: int, suit_cls: int) -> float:
        """Rough chance that ``seat`` holds no card of side suit ``suit_cls``."""
        total = sum(self.unseen_cls)
        if total <= 0 or self.left[seat] <= 0:
            return 0.0
        share = min(1.0, self.left[seat] / total)
        return (1.0 - share) ** self.unseen_cls[suit_cls]

    def beatable(self, strength: int, play_cls: int, led_cls: int, k: int, seats) -> bool:
        """Whether one of ``seats`` might beat a play of ``k`` identical cards of ``strength``
        (class ``play_cls``) in a trick led in ``led_cls``, given the unseen cards."""
        if not seats:
            return False
        st, cls, unseen = self.st, self.cls, self.unseen
        trump_risk = led_cls == TRUMP or \
            max(self.void_prob(s, led_cls) for s in seats) * (1.0 if k == 1 else 0.5) \
            > VOID_RISK
        for y in _KINDS:
            if unseen[y] < k or st[y] <= strength:
                continue
            cy = cls[y]
            if cy == TRUMP:
                if trump_risk:
                    return True
            elif cy == led_cls and play_cls == led_cls:
                return True
        return False
