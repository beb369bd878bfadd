"""PIMC, perfect-information Monte Carlo: a search agent for any game with a sampler of hidden
cards (``game.sample_worlds(state, seat, n, rng) -> list[state]``, the game contract's
public-information sampler).

    PIMCAgent(game, rollout, Budget(worlds=8, depth=8), prior=None, leaf=leaf, seed=0)

takes objects, as OpenSpiel's ``ISMCTSBot(game, evaluator, ...)`` does: the rollout policy (an
agent deciding from observations, ``act_batch``), the ``Budget``
(``cardagents.search.budget``: worlds, rollouts, top k, depth, time limit, batch), a ``prior``
(anything with ``action_probabilities(obs, masks)``, e.g. a ``PPOAgent``) and a ``leaf`` value
(global states ``(k, S)`` -> values ``(k,)``). Text becomes these objects in one place,
``cardagents.search.parse.make_search`` (which ``cardagents.specs.make_agent`` calls for a
``pimc:...`` spec).

For each decision with more than one legal action, ``PIMCAgent``:

1. draws ``worlds`` complete states that agree with everything the acting seat has seen
   (``game.sample_worlds``), from a random generator seeded by the agent's seed and the seat's
   observation and legal mask, so a decision depends only on what the seat knows (the
   hidden-card test in ``tests/cardagents/search/test_pimc.py`` holds it to that); the contract
   promises each world the seat to act and its legal mask: the seat is checked, the mask only
   with ``check_worlds=True`` (once per world, for a new game's sampler);
2. takes as candidates every legal action, or with ``top_k`` the ``top_k`` most likely under a
   policy that offers probabilities (``action_probabilities(obs, masks)``, as ``PPOAgent``
   does): the ``prior`` (e.g. a PPO policy; the rollouts are still the rollout policy's), else
   the rollout policy (a policy without probabilities, such as the heuristic, leaves all legal
   actions); the rollout policy's own choice is always a candidate, and wins ties;
3. applies each candidate in each world (``rollouts`` times per world) and plays every such
   start to the end of the current hand with the rollout policy in all four seats (with
   ``depth`` > 0: for ``depth`` steps, then on until the acting seat is to act again, where
   the ``leaf`` value values the global state: a ``.npz`` fitted to heuristic rollouts'
   outcomes, ``cardagents.search.leaf``, or a PPO checkpoint's global critic), all the starts of all
   the decisions of a call as one batch through ``cardenv.vector.VectorGame``
   (``started=True``: games in progress), the game's batched engine; rollouts that are over
   leave the batch once a quarter of it is idle (``refill=False``: an ended rollout stays
   over in its slot, but its rows still cost in the observations and masks);
4. scores a rollout by what its hand is worth to the acting seat's side (``game.hand_value``,
   the contract's optional member: the hand's reward, or in a Dabang match episode, whose
   hands pay nothing until the match ends, the hand episode's reward, the level change; the
   hand ends when the state's ``results`` grow, whether or not the episode goes on) and plays the
   candidate with the best mean, but only if its mean gain over the rollout policy's own
   choice, paired world by world, exceeds ``margin`` (z, default 1.5) standard errors; else
   the policy's choice. Why: with sampled worlds the hands' outcomes vary much more between
   worlds than between candidates, and the best of a few noisy means is often noise
   (docs/results.md, "Search agent (PIMC)", the margin).
   ``margin=0`` is the plain best mean.

``act_states(states)`` gives the actions; ``search(states)`` the same decisions with what lies
behind them (``SearchResult``: the candidates, each one's mean rollout value and count), which
is what ``cardagents.training.distill`` trains a policy on.

Budget knobs (``Budget``): ``worlds``, ``rollouts`` (per world and candidate), ``top_k`` (0: all
legal actions) with ``prior``, ``depth`` (0: to the end of the hand) with ``leaf``, ``time_limit``
(seconds per searched decision; a call on B positions gets B times it; rollouts still running
at the limit are dropped, the finished ones count, and with none finished the rollout policy's
choice is played; ``clock``, ``time.perf_counter`` by default, is what the limit is read
on), and ``batch`` (rollouts at once, bounding memory). A decision with one
legal action is played at once. With ``time_limit=None`` (the default) the agent is
deterministic for a seed: the same calls give the same actions. Where the sampler gives up
(``StateError``: it ran out of proposals at a rare position where few deals fit), that decision
is the rollout policy's own choice, counted in ``unsampled``; the game goes on.

Named as ``pimc`` or ``pimc:worlds=32,rollout=heuristic,top_k=8,rollouts=1,time=0.1`` (also
``prior=PATH``, ``depth=N``, ``critic=PATH``) wherever a player is named
(``cardagents.evaluation.evaluate``, the ``cardenv.players`` entry point), ``rollout`` being
``heuristic``, ``random`` or a PPO checkpoint path, ``prior`` a PPO checkpoint path, and
``critic`` a leaf value file (``PATH.npz``, e.g. the shipped ``checkpoints/dagong_leaf.npz``;
numpy only, no torch) or a PPO checkpoint with a global critic:
``pimc:depth=8,critic=checkpoints/dagong_leaf.npz`` (``cardagents.search.parse``: ``parse_spec``
with the defaults and bounds, ``make_search`` making the objects; the rollouts are
``cardagents.search.rollouts``).

A Dabang follow of several cards is built card by card, one decision per card: the agent
searches each step, its candidates the cards legal now, each rollout finishing the follow with
the rollout policy. Why each step: the agent knows games only through the public contract and
cannot tell a card-by-card follow from any other sequence of decisions; the steps' masks
already narrow the cards, so each step has few candidates; and searching the whole follow once
would need the game's follow structure (which cards may complete it), which is game internals.
The cost is more searched decisions per hand.

Match episodes: a rollout stops at the end of the hand and is scored by ``game.hand_value``,
so in a Dabang match episode the search plays each hand for its level change, as in a hand
episode (``test_a_match_episode_position_is_searched_for_the_hands_worth``), not for the match
points that only the last hand pays. The levels' worth later in the match (the level reached,
who deals next, the blood owed) is not weighed.

Budgets: the default (``Budget()``, the spec ``pimc`` or ``pimc:default``) is 8 worlds, the top
2 candidates where the prior or the rollout policy gives probabilities (with the default heuristic
rollouts and no prior: all legal actions), rollouts to the end of the hand, torch-free; the named
budgets ``pimc:fast`` and ``pimc:strong`` (``cardagents.search.parse.BUDGETS``) spend less and more,
and take options over them (``pimc:fast,rollout=PATH,prior=PATH``); ``LEAF_BUDGET``
(``cardagents.search.parse``) cuts rollouts at depth 16 with the shipped leaf value (torch-free
too). What the named budgets cost a decision, one at a time and many together, and how
strong they are over the shipped PPO agent: docs/results.md, "Search budgets (issue 45)"; the
older budgets: "Search agent (PIMC)". In short: a decision's time is mostly the rollouts'
lockstep steps (a Dagong hand's rest is ~80 steps, a Dabang hand's ~170, each paying the
rollout policy's, the engine's and the masks' fixed per-call costs whatever the batch) and, in
Dabang, the sampler (its cost is per decision, not shared). Searching many decisions in one
call (an evaluation's games in lockstep) shares the per-step costs among all their rollouts,
which is what brings a decision to hundredths of a second; one decision alone (a person's table)
stays at tenths. Cut-short rollouts (``depth``) save most in Dabang. Their leaf value decides
their strength: the shipped PPO critics predict heuristic rollouts poorly but their own agent's
play well enough (Dabang); the leaves fitted to heuristic rollouts (``cardagents.search.leaf``,
``checkpoints/*_leaf.npz``) keep the default's strength at depth 16 but not, in Dagong, at
depth 8 (docs/results.md, "A leaf value for
depth-limited rollouts").
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass

import numpy as np

from cardagents.players.base import Agent, check_game
from cardagents.search.rollouts import hand_worth, rollout_values
from cardagents.search.budget import MARGIN, Budget, checked
from cardenv.core.errors import StateError
from cardenv.games import make_game

__all__ = ["Budget", "PIMCAgent", "SearchResult", "choose", "sampler_of"]


@dataclass
class SearchResult:
    """What ``PIMCAgent.search`` found at one decision."""

    action: int  # the action it plays (``act_states``'s)
    candidates: np.ndarray  # (k,) int64 actions compared, the rollout policy's choice first
    means: np.ndarray  # (k,) float mean rollout value of each (nan: none finished)
    counts: np.ndarray  # (k,) int64 rollouts finished for each (worlds x rollouts at most)


def sampler_of(game):
    """``game.sample_worlds``, or a ``ValueError`` saying that PIMC needs one."""
    try:
        return game.sample_worlds
    except AttributeError:
        raise ValueError(f"{game.name} has no sampler of hidden cards "
                         f"(game.sample_worlds(state, seat, n, rng)): PIMC needs one") from None


def choose(table: np.ndarray, margin: float = 0.0) -> int:
    """The candidate to play from a ``(samples, candidates)`` table of rollout values (``nan``:
    not finished), candidate 0 being the rollout policy's own choice: the best mean (the first
    of equal ones); with ``margin`` z > 0, only if its gain over candidate 0, paired sample by
    sample, has a mean above z standard errors, else 0. Nothing finished: 0."""
    done = ~np.isnan(table)
    if not done.any():
        return 0
    mean = np.where(done.any(axis=0), np.nansum(table, axis=0)
                    / np.maximum(done.sum(axis=0), 1), -np.inf)
    best = int(np.argmax(mean))
    if best and margin:
        both = done[:, 0] & done[:, best]
        gain = table[both, best] - table[both, 0]
        if gain.size < 2 or gain.mean() <= margin * gain.std(ddof=1) / np.sqrt(gain.size):
            return 0  # not clearly better than the policy's choice: keep that
    return best


class PIMCAgent(Agent):
    """Perfect-information Monte Carlo over sampled worlds (see the module docstring)."""

    name = "pimc"
    needs_state = True

    def __init__(self, game: str, rollout, budget: Budget | None = None, *, prior=None,
                 leaf=None, margin: float = MARGIN, seed: int | None = 0,
                 clock=time.perf_counter, check_worlds: bool = False):
        self.game = check_game(game)
        sampler_of(make_game(self.game))  # a clear error now, not at the first decision
        self.budget = Budget() if budget is None else budget
        if not isinstance(self.budget, Budget):
            raise ValueError(f"budget must be a Budget (cardagents.search.budget), got "
                             f"{budget!r}"[:200])
        self.margin = checked("margin", margin)
        if not callable(clock):
            raise ValueError(f"clock must be a callable giving seconds, got {clock!r}")
        # what time_limit is read on: injectable, so that a test can tell what the limit does
        # from the work done by a clock it controls, not from the machine's speed
        self.clock = clock
        # the objects the search runs on; text is made into them by make_search
        if not callable(getattr(rollout, "act_batch", None)) or isinstance(rollout, str):
            raise ValueError(f"the rollout policy must be an agent (act_batch), got "
                             f"{rollout!r}: make_search makes one from a spec's text"[:300])
        if getattr(rollout, "needs_state", False):
            raise ValueError("the rollout policy must decide from observations (act_batch)")
        self.policy = rollout
        if prior is not None and not callable(getattr(prior, "action_probabilities", None)):
            raise ValueError("the prior must offer action_probabilities(obs, masks)")
        self.prior = prior  # the candidates' probabilities (top_k): e.g. a PPO policy
        if self.budget.depth and leaf is None:
            raise ValueError("depth-limited rollouts (depth > 0) need a leaf value (leaf: "
                             "global states (k, S) -> values (k,))")
        if leaf is not None and not self.budget.depth:
            raise ValueError("a leaf value values depth-limited rollouts: it needs depth > 0")
        if leaf is not None and (isinstance(leaf, str) or not callable(leaf)):
            raise ValueError(f"the leaf value must be a callable (global states (k, S) -> "
                             f"values (k,)), got {leaf!r}: make_search makes one from a "
                             f"spec's text"[:300])
        self.leaf = leaf
        self.seed = 0 if seed is None else int(seed)
        self.spec: str | None = None  # the text the agent was made from (make_search)
        self.searched = 0  # decisions searched (for benchmarks)
        # seconds (on ``clock``) spent searching them: an evaluation's seconds a decision
        self.search_seconds = 0.0
        self.unsampled = 0  # decisions left to the rollout policy: the sampler gave up
        # the contract promises each world the seat's legal mask: check_worlds also checks it
        # (once per world; for a new game's sampler), where otherwise only the seat is
        self.check_worlds = bool(check_worlds)

    def reseed(self, seed: int) -> None:
        self.seed = int(seed)

    def act_batch(self, observations, masks) -> np.ndarray:
        raise ValueError("PIMC searches the position itself: it plays through act_states "
                         "(cardagents.players.lockstep.play_seated passes it the states), not from "
                         "observations")

    def act_states(self, states) -> np.ndarray:
        """One action per state, for the seat to act in each (read, never changed)."""
        return np.array([r.action for r in self.search(states)], dtype=np.int64)

    def search(self, states) -> list["SearchResult"]:
        """What the search found at each state (read, never changed), for the seat to act: the
        action it plays (what ``act_states`` returns), the candidates it compared (the rollout
        policy's own choice first) and each one's mean rollout value and number of finished
        rollouts (``SearchResult``). A state with one legal action is not searched (its one
        candidate has mean ``nan`` and count 0); nor is one whose worlds the sampler could not
        find (``unsampled``: the candidates, every mean ``nan``). What a distillation learns
        from (``cardagents.training.distill``)."""
        states = list(states)
        results: list = [None] * len(states)
        masks = [s.legal_mask() for s in states]
        groups: dict[int, list[int]] = {}  # one batch per game (rules options), in first order
        for i, mask in enumerate(masks):
            legal = np.flatnonzero(mask)
            if legal.size == 0:
                raise ValueError(f"states[{i}] has no legal action (is it over?)")
            if legal.size == 1:  # nothing to choose: no search
                results[i] = SearchResult(int(legal[0]), legal.astype(np.int64),
                                          np.full(1, np.nan), np.zeros(1, dtype=np.int64))
            else:
                groups.setdefault(id(states[i].game), []).append(i)
        # the time limit is per searched decision: each group's deadline counts from its start
        for members in groups.values():
            found = self._search([states[i] for i in members], [masks[i] for i in members])
            for i, result in zip(members, found):
                results[i] = result
        return results

    def _search(self, states, masks) -> list["SearchResult"]:
        """``search`` on decisions of one game (rules options), each with a choice."""
        start = self.clock()
        limit = self.budget.time_limit
        deadline = None if limit is None else start + limit * len(states)
        game = states[0].game
        obs, mask_array = game.observations(states), np.stack(masks)
        keys = [zlib.crc32(o.tobytes() + m.tobytes()) for o, m in zip(obs, mask_array)]
        # the rollout policy's random choices restart from what the seats know, too
        self.policy.reseed(int(np.random.default_rng([self.seed, *keys]).integers(2 ** 62)))
        own = np.asarray(self.policy.act_batch(obs, mask_array), dtype=np.int64)
        candidates = self._candidates(obs, mask_array, own)
        owners, values, starts, seats = self._first_plies(states, masks, keys, candidates,
                                                          deadline)
        values = np.array(values, dtype=float)
        if starts:
            played = rollout_values(starts, seats, self.policy, deadline, self.budget.batch,
                                    self.budget.depth, self.leaf, self.clock)
            index = np.array([j for _, _, j in owners])
            values[index >= 0] = played[index[index >= 0]]
        results = self._results(owners, values, candidates)
        self.searched += len(states)
        self.search_seconds += self.clock() - start
        return results

    def _first_plies(self, states, masks, keys, candidates, deadline) -> tuple:
        """Each decision's worlds with each candidate applied (``rollouts`` times per world):
        ``owners`` (decision, candidate, start index or -1) per sample, ``values`` (the hand's
        worth where the candidate ended it, else nan), the ``starts`` to play out and their
        seats. Worlds are drawn from a generator seeded by the agent's seed and what the seat
        knows (``keys``)."""
        game = states[0].game
        sample, budget = sampler_of(game), self.budget
        owners, values, starts, seats = [], [], [], []
        for d, state in enumerate(states):
            seat = state.current_player
            try:
                worlds = sample(state, seat, budget.worlds, np.random.default_rng([self.seed,
                                                                                 keys[d]]))
            except StateError:
                # the sampler ran out of proposals (a rare position where few deals fit):
                # this decision is the rollout policy's, not a crash hours into a run
                self.unsampled += 1
                continue
            if len(worlds) != budget.worlds:
                raise ValueError(f"{game.name}.sample_worlds returned {len(worlds)} worlds, "
                                 f"not {budget.worlds}")
            for w, world in enumerate(worlds):
                if w and deadline is not None and self.clock() > deadline:
                    break  # out of time: the worlds started so far (at least one) count
                if world.current_player != seat or (self.check_worlds and not np.array_equal(
                        world.legal_mask(), masks[d])):
                    raise ValueError(f"{game.name}.sample_worlds returned a world where seat "
                                     f"{seat} does not have the same legal actions")
                for _ in range(budget.rollouts):
                    for k, action in enumerate(candidates[d]):
                        world_k = world.clone()
                        hands = len(world_k.results)
                        world_k.apply(int(action))
                        if len(world_k.results) > hands or world_k.is_over:
                            values.append(hand_worth(world_k, seat))  # the hand ended
                            owners.append((d, k, -1))
                        else:
                            values.append(np.nan)
                            owners.append((d, k, len(starts)))
                            starts.append(world_k)
                            seats.append(seat)
        return owners, values, starts, seats

    def _results(self, owners, values, candidates) -> list["SearchResult"]:
        """Each decision's ``SearchResult`` from its samples' values: a sample is a world and a
        rollout, every candidate played in it (paired comparisons); nan: not finished in
        time."""
        tables = [[] for _ in candidates]
        for (d, k, _), value in zip(owners, values.tolist()):
            if k == 0:
                tables[d].append(np.full(len(candidates[d]), np.nan))
            tables[d][-1][k] = value
        out = []
        for d, rows in enumerate(tables):
            table = np.array(rows).reshape(len(rows), len(candidates[d]))
            done = ~np.isnan(table)
            counts = done.sum(axis=0)
            means = np.where(counts > 0, np.where(done, table, 0.0).sum(axis=0)
                             / np.maximum(counts, 1), np.nan)
            # no world sampled: the policy's own choice stands
            pick = choose(table, self.margin) if rows else 0
            out.append(SearchResult(int(candidates[d][pick]), candidates[d], means,
                                    counts.astype(np.int64)))
        return out

    def _candidates(self, obs, masks, own) -> list[np.ndarray]:
        """Each decision's candidate actions, the rollout policy's own choice first."""
        probs, top_k = None, self.budget.top_k
        if top_k:
            try:
                probs = (self.prior or self.policy).action_probabilities(obs, masks)
            except AttributeError:  # a policy without probabilities: all legal actions
                probs = None
        out = []
        for d, mask in enumerate(masks):
            legal = np.flatnonzero(mask)
            if probs is not None and top_k < legal.size:
                order = legal[np.argsort(-probs[d][legal], kind="stable")]
                legal = order[:top_k]
            rest = legal[legal != own[d]]
            out.append(np.concatenate([[own[d]], rest]).astype(np.int64))
        return out

    def __repr__(self):
        if self.spec is not None:
            return f"PIMCAgent({self.game}, {self.spec!r})"

        def name(part):
            return None if part is None else getattr(part, "name", type(part).__name__)

        return (f"PIMCAgent({self.game}, rollout={name(self.policy)}, {self.budget}, "
                f"margin={self.margin}, prior={name(self.prior)}, leaf={name(self.leaf)})")
