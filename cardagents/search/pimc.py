"""PIMC, perfect-information Monte Carlo: a search agent for any game with a sampler of hidden
cards (``game.sample_worlds(state, seat, n, rng) -> list[state]``, the game contract's
public-information sampler).

For each decision with more than one legal action, ``PIMCAgent``:

1. draws ``worlds`` complete states that agree with everything the acting seat has seen
   (``game.sample_worlds``), from a random generator seeded by the agent's seed and the seat's
   observation and legal mask, so a decision depends only on what the seat knows (the
   hidden-card test in ``tests/agents/test_search.py`` holds it to that);
2. takes as candidates every legal action, or with ``top_k`` the ``top_k`` most likely under a
   policy that offers probabilities (``action_probabilities(obs, masks)``, as ``PPOAgent``
   does): the ``prior`` (a PPO checkpoint; the rollouts are still the rollout policy's), else
   the rollout policy (a policy without probabilities, such as the heuristic, leaves all legal
   actions); the rollout policy's own choice is always a candidate, and wins ties;
3. applies each candidate in each world (``rollouts`` times per world) and plays every such
   start to the end of the current hand with the rollout policy in all four seats (with
   ``depth`` > 0: for ``depth`` steps, then on until the acting seat is to act again, where
   the leaf value ``critic`` values the global state: a ``.npz`` fitted to heuristic rollouts'
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

Budget knobs: ``worlds``, ``rollouts`` (per world and candidate), ``top_k`` (0: all legal
actions) with ``prior``, ``depth`` (0: to the end of the hand) with ``critic``, ``time_limit``
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
``heuristic``, ``random`` or a PPO checkpoint path (``parse_spec``), and ``critic`` a leaf value
file (``PATH.npz``, e.g. the shipped ``checkpoints/dagong_leaf.npz``; numpy only, no torch) or a PPO
checkpoint with a global critic (``leaf_value``):
``pimc:depth=8,critic=checkpoints/dagong_leaf.npz``.

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

Budgets: the default (``DEFAULTS``) is 8 worlds, all legal actions, heuristic rollouts to the
end of the hand, torch-free; ``PRIOR_BUDGET`` takes the top 2 of the shipped PPO policy at 16
worlds; ``LEAF_BUDGET`` cuts rollouts at depth 16 with the shipped leaf value (torch-free
too). What the budgets cost and how strong they are (against the heuristic and the shipped
PPO agent, on up to 100 deal pairs) is in docs/results.md, "Search agent (PIMC)". In short: a
decision's time is mostly the rollouts' lockstep steps (a Dagong hand's rest is ~80 steps, a
Dabang hand's ~170, each paying the rollout policy's, the engine's and the masks' fixed
per-call costs whatever the batch) and, in Dabang, the sampler; so fewer worlds or candidates
save less than their share, and only cut-short rollouts (``depth``) approach 0.1 s. Their leaf
value decides their strength: the shipped PPO critics predict heuristic rollouts poorly; the
leaves fitted to them (``cardagents.search.leaf``, ``checkpoints/*_leaf.npz``) keep the default's
strength at depth 16 but not, in Dagong, at depth 8 (docs/results.md, "A leaf value for
depth-limited rollouts").
"""

from __future__ import annotations

import os
import time
import zlib
from dataclasses import dataclass

import numpy as np

from cardagents.players.base import Agent, check_game
from cardagents.ppo.loading import checkpoint_agent
from cardagents.search.leaf import global_critic, load_leaf
from cardenv.core.errors import StateError
from cardenv.games import make_game
from cardenv.vector import VectorGame

__all__ = ["DEFAULTS", "LEAF_BUDGET", "PRIOR_BUDGET", "PIMCAgent", "SearchResult", "choose",
           "global_critic", "leaf_value", "parse_spec", "rollout_values", "sampler_of"]

DEFAULTS = {"worlds": 8, "rollouts": 1, "top_k": 0, "rollout": "heuristic", "time": None,
            "margin": 1.5, "prior": None, "depth": 0, "critic": None}
# the bounds a spec or a constructor argument must fall in
BOUNDS = {"worlds": (1, 4096), "rollouts": (1, 256), "top_k": (0, 1 << 16),
          "depth": (0, 1 << 16)}
# the budget with a PPO prior (see the module docstring's table): format with path=
PRIOR_BUDGET = "pimc:worlds=16,top_k=2,prior={path}"
# the budget with a leaf value (cardagents.search.leaf): format with path= the game's leaf
# (checkpoints/<game>_leaf.npz); what it costs and wins against the default, and why Dabang's
# better budget is depth 8: docs/results.md, "Search agent (PIMC)"
LEAF_BUDGET = "pimc:depth=16,critic={path}"
MAX_BATCH = 1 << 16


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


def parse_spec(spec: str) -> dict:
    """The options of a spec ``pimc`` or ``pimc:key=value,...`` (the keys of ``DEFAULTS``),
    the defaults filled in; ``ValueError`` naming the problem for anything else."""
    if not isinstance(spec, str) or not (spec == "pimc" or spec.startswith("pimc:")):
        raise ValueError(f"a PIMC spec is 'pimc' or 'pimc:key=value,...', got {spec!r}")
    options = dict(DEFAULTS)
    body = spec[len("pimc:"):] if spec != "pimc" else ""
    for part in body.split(",") if body else []:
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not key or not value.strip():
            raise ValueError(f"{spec}: {part!r} is not key=value")
        if key not in DEFAULTS:
            raise ValueError(f"{spec}: unknown option {key!r} (options: "
                             f"{', '.join(DEFAULTS)})")
        value = value.strip()
        if key in BOUNDS:
            low, high = BOUNDS[key]
            if not value.isdigit() or not low <= int(value) <= high:
                raise ValueError(f"{spec}: {key} must be an int in {low}..{high}, got {value!r}")
            options[key] = int(value)
        elif key == "margin":
            try:
                margin = float(value)
            except ValueError:
                margin = float("nan")
            if not 0 <= margin <= 10:
                raise ValueError(f"{spec}: margin must be a number in [0, 10], got {value!r}")
            options[key] = margin
        elif key == "time":
            try:
                seconds = float(value)
            except ValueError:
                seconds = float("nan")
            if not 0 < seconds <= 3600:  # also refuses nan and inf
                raise ValueError(f"{spec}: time must be seconds in (0, 3600], got {value!r}")
            options[key] = seconds
        else:
            if value.startswith("pimc"):
                raise ValueError(f"{spec}: the {key} policy cannot itself search")
            options[key] = value
    return options


def rollout_values(starts: list, seats, policy, deadline: float | None = None,
                   batch: int = 4096, depth: int = 0, leaf=None,
                   clock=time.perf_counter) -> np.ndarray:
    """Play each state of ``starts`` (in progress, of one game; their rules variants may
    differ: a Dabang later hand's worlds are first hands of a game with the hand's situation as
    options, so the worlds of different decisions are states of different variants, each
    variant a batch of its own) to the end of its current hand with ``policy`` (``act_batch``)
    in every seat, ``batch`` at a time through ``VectorGame``;
    ``(n,)`` float: the hand's reward for ``seats[i]``, ``nan`` where ``deadline`` (a reading
    of ``clock``, ``time.perf_counter`` by default; read once before each batched step) came
    first. With ``depth`` > 0 a rollout stops once it has
    played ``depth`` steps and ``seats[i]`` is to act again, valued ``leaf(global_states)``
    (``(k, S)`` global states -> ``(k,)`` values for the seat to act). The states are played
    on (pass clones to keep them). A rollout's game, once over, stays over in its slot
    (``VectorGame(refill=False)``): no new game is dealt or stepped there."""
    if depth and leaf is None:
        raise ValueError("depth-limited rollouts need a leaf value (leaf)")
    values = np.full(len(starts), np.nan)
    variants: dict[int, list[int]] = {}  # a VectorGame plays one variant
    for i, state in enumerate(starts):
        variants.setdefault(id(state.game), []).append(i)
    for members in variants.values():
        for first in range(0, len(members), batch):
            part = members[first:first + batch]
            if not _play_out(starts, seats, policy, part, values, deadline, depth, leaf,
                             clock):
                return values
    return values


def _play_out(starts, seats, policy, part, values, deadline, depth=0, leaf=None,
              clock=time.perf_counter) -> bool:
    """``rollout_values`` on the starts ``part``; False when the deadline came."""
    game = starts[part[0]].game
    live = np.array(part)  # the rollout each slot plays
    games = VectorGame(game, states=[starts[i] for i in live], started=True, refill=False)
    hands = games.hands_played()
    seat_of = np.array([seats[i] for i in live], dtype=np.int64)
    running = np.arange(len(live))  # the slots whose rollout goes on
    steps = 0
    while True:
        if deadline is not None and clock() > deadline:
            return False
        obs, masks = games.observations(), games.masks()
        # a slot whose game is over stays so (refill=False: its action is ignored); one whose
        # hand is over in a game that goes on (a match episode) plays on idly (argmax)
        if running.size == len(live):  # every slot runs: no copies
            actions = np.asarray(policy.act_batch(obs, masks), dtype=np.int64)
        else:
            actions = masks.argmax(axis=1)
            actions[running] = policy.act_batch(obs[running], masks[running])
        rewards, ended = games.step(actions)
        steps += 1
        # the hand is over when results grow, or the game ended (its slot stays over)
        grown = ended | (games.hands_played() != hands)
        done = running[grown[running]]
        if done.size:
            _score(games, done, live, seat_of, rewards, values)
            hands[done] = -1
        if depth and steps >= depth:
            # deep enough: a rollout whose seat is to act again takes the leaf value
            cut = np.flatnonzero((hands >= 0) & (games.current() == seat_of))
            if cut.size:
                values[live[cut]] = leaf(games.states()[cut])
                hands[cut] = -1
                done = np.concatenate([done, cut])
        if done.size:
            running = np.flatnonzero(hands >= 0)
            if not running.size:
                return True
            if 4 * (len(live) - running.size) >= len(live):
                # a quarter of the slots are idle: the rest go on in a smaller batch (an ended
                # game costs little to step with refill=False, but its rows are still in the
                # observations and masks, and below the engine's min_batch the smaller batch
                # steps state by state, faster; a new batch costs about one step of each slot
                # it takes; never shrinking measured no faster)
                states = [games.slots[i] for i in running.tolist()]
                live, seat_of = live[running], seat_of[running]
                games = VectorGame(game, states=states, started=True, refill=False)
                hands = games.hands_played()
                running = np.arange(len(live))


def _score(games, done, live, seat_of, rewards, values) -> None:
    """``values`` of the rollouts whose hand ended in the slots ``done`` at the last step: the
    hand's worth for the rollout's seat (``game.hand_value``, where the game has it: in a
    match episode a hand's reward is 0 until the match ends), else the step's reward (the
    hand's, paid as it ends)."""
    value_of = getattr(games.game, "hand_value", None)
    finished = {f.index: f for f in games.finished}  # games ended at this step
    games.finished.clear()
    if value_of is None:
        values[live[done]] = rewards[done, seat_of[done]]
        return
    for i in done.tolist():
        record = finished.get(i)
        result = record.results[-1] if record is not None else games.slots[i].results[-1]
        values[live[i]] = value_of(result, int(seat_of[i]))


def hand_worth(state, seat: int) -> float:
    """What the hand that ``state`` just finished is worth to ``seat`` (``game.hand_value``
    where the game has it, else the reward it paid)."""
    value_of = getattr(state.game, "hand_value", None)
    if value_of is None:
        return float(state.last_rewards[seat])
    return value_of(state.results[-1], seat)


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


def rollout_policy(spec: str, game: str):
    """The rollout policy ``spec`` names: ``heuristic``, ``random`` or a PPO checkpoint path
    (greedy); ``ValueError`` for anything else."""
    if spec.startswith("pimc"):
        raise ValueError("the rollout policy cannot itself search")
    if spec == "random":
        from cardagents.players.random import RandomAgent
        return RandomAgent(game, 0)
    if spec == "heuristic":
        from cardagents.players.heuristics import heuristic_for
        return heuristic_for(game, 0)
    if not os.path.isfile(spec):
        raise ValueError(f"unknown rollout policy {spec!r}: heuristic, random or the path of a "
                         f"PPO checkpoint")
    return checkpoint_agent(spec, game)


def _path(path, key: str) -> str:
    """``path`` if it names a file, else a ``ValueError`` saying what ``key`` wants."""
    if not isinstance(path, str) or not os.path.isfile(path):
        raise ValueError(f"{key} must be the path of a PPO checkpoint, got {path!r}")
    return path


def leaf_value(critic, game: str):
    """The leaf value ``critic`` names for ``game``'s depth-limited rollouts: a path ending in
    ``.npz`` is a leaf value fitted to heuristic rollouts (``cardagents.search.leaf``, numpy only),
    any other path a PPO checkpoint with a global critic (``global_critic``), and a callable is used
    as it is (``states (k, S) -> (k,)``); ``ValueError`` for anything else."""
    if callable(critic) and not isinstance(critic, str):
        return critic
    if not isinstance(critic, str) or not os.path.isfile(critic):
        raise ValueError(f"critic must be the path of a leaf value (.npz, python -m cardagents "
                         f"leaf train) or of a PPO checkpoint with a global critic, got {critic!r}")
    if critic.endswith(".npz"):
        return load_leaf(critic, game)
    return global_critic(checkpoint_agent(critic, game))


class PIMCAgent(Agent):
    """Perfect-information Monte Carlo over sampled worlds (see the module docstring)."""

    name = "pimc"
    needs_state = True

    def __init__(self, game: str, worlds: int = DEFAULTS["worlds"],
                 rollouts: int = DEFAULTS["rollouts"], top_k: int = DEFAULTS["top_k"],
                 rollout="heuristic", time_limit: float | None = None, seed: int | None = 0,
                 batch: int = 4096, margin: float = DEFAULTS["margin"], prior=None,
                 depth: int = DEFAULTS["depth"], critic=None, clock=time.perf_counter):
        self.game = check_game(game)
        sampler_of(make_game(self.game))  # a clear error now, not at the first decision
        for key, value in (("worlds", worlds), ("rollouts", rollouts), ("top_k", top_k),
                           ("depth", depth)):
            low, high = BOUNDS[key]
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
                    not low <= value <= high:
                raise ValueError(f"{key} must be an int in {low}..{high}, got {value!r}")
        if time_limit is not None and not (isinstance(time_limit, (int, float))
                                           and 0 < time_limit <= 3600):
            raise ValueError(f"time_limit must be seconds in (0, 3600] or None, got "
                             f"{time_limit!r}")
        if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
            raise ValueError(f"batch must be an int in 1..{MAX_BATCH}, got {batch!r}")
        self.worlds, self.rollouts, self.top_k = int(worlds), int(rollouts), int(top_k)
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or \
                not 0 <= margin <= 10:
            raise ValueError(f"margin must be a number in [0, 10], got {margin!r}")
        self.time_limit, self.batch, self.margin = time_limit, batch, float(margin)
        if not callable(clock):
            raise ValueError(f"clock must be a callable giving seconds, got {clock!r}")
        # what time_limit is read on: injectable, so that a test can tell what the limit does
        # from the work done by a clock it controls, not from the machine's speed
        self.clock = clock
        self.rollout_spec = rollout if isinstance(rollout, str) else \
            getattr(rollout, "name", type(rollout).__name__)
        if isinstance(rollout, str):
            rollout = rollout_policy(rollout, self.game)
        if getattr(rollout, "needs_state", False):
            raise ValueError("the rollout policy must decide from observations (act_batch)")
        self.policy = rollout
        self.prior_spec, self.prior = None, None
        if prior is not None:  # the candidates' probabilities: a PPO checkpoint's policy
            self.prior_spec = prior if isinstance(prior, str) else \
                getattr(prior, "name", type(prior).__name__)
            self.prior = checkpoint_agent(_path(prior, "prior"), self.game) \
                if isinstance(prior, str) else prior
            if not callable(getattr(self.prior, "action_probabilities", None)):
                raise ValueError("the prior must offer action_probabilities(obs, masks)")
        self.depth = int(depth)
        self.critic_spec = critic if critic is None or isinstance(critic, str) else \
            getattr(critic, "name", type(critic).__name__)
        self.leaf = None
        if self.depth:
            if critic is None:
                raise ValueError("depth-limited rollouts (depth > 0) need critic=<a leaf value "
                                 ".npz (python -m cardagents leaf train) or a PPO checkpoint with "
                                 "a global critic> for the leaf values")
            self.leaf = leaf_value(critic, self.game)
        elif critic is not None:
            raise ValueError("critic values depth-limited rollouts: it needs depth > 0")
        self.seed = 0 if seed is None else int(seed)
        self.searched = 0  # decisions searched (for benchmarks)
        self.unsampled = 0  # decisions left to the rollout policy: the sampler gave up

    @classmethod
    def from_spec(cls, spec: str, game: str, seed: int = 0) -> "PIMCAgent":
        """The agent ``parse_spec(spec)`` describes."""
        options = parse_spec(spec)
        return cls(game, options["worlds"], options["rollouts"], options["top_k"],
                   options["rollout"], options["time"], seed, margin=options["margin"],
                   prior=options["prior"], depth=options["depth"], critic=options["critic"])

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
        search = []
        for i, mask in enumerate(masks):
            legal = np.flatnonzero(mask)
            if legal.size == 0:
                raise ValueError(f"states[{i}] has no legal action (is it over?)")
            if legal.size == 1:  # nothing to choose: no search
                results[i] = SearchResult(int(legal[0]), legal.astype(np.int64),
                                          np.full(1, np.nan), np.zeros(1, dtype=np.int64))
            else:
                search.append(i)
        if search:
            found = self._search([states[i] for i in search], [masks[i] for i in search])
            for i, result in zip(search, found):
                results[i] = result
        return results

    def _search(self, states, masks) -> list["SearchResult"]:
        start = self.clock()
        deadline = None if self.time_limit is None else start + self.time_limit * len(states)
        game = states[0].game
        if any(s.game is not game for s in states):  # one batch per game (rules options)
            out: list = [None] * len(states)
            groups: dict[int, list[int]] = {}
            for i, s in enumerate(states):
                groups.setdefault(id(s.game), []).append(i)
            for members in groups.values():
                found = self._search([states[i] for i in members], [masks[i] for i in members])
                for i, result in zip(members, found):
                    out[i] = result
            return out
        sample = sampler_of(game)
        seats = [s.current_player for s in states]
        obs = game.observations(states)
        mask_array = np.stack(masks)
        keys = [zlib.crc32(o.tobytes() + m.tobytes()) for o, m in zip(obs, mask_array)]
        # the rollout policy's random choices restart from what the seats know, too
        self.policy.reseed(int(np.random.default_rng([self.seed, *keys]).integers(2 ** 62)))
        own = np.asarray(self.policy.act_batch(obs, mask_array), dtype=np.int64)
        candidates = self._candidates(obs, mask_array, own)
        starts, owners, start_seats, values = [], [], [], []
        for d, state in enumerate(states):
            rng = np.random.default_rng([self.seed, keys[d]])
            try:
                worlds = sample(state, seats[d], self.worlds, rng)
            except StateError:
                # the sampler ran out of proposals (a rare position where few deals fit):
                # this decision is the rollout policy's, not a crash hours into a run
                self.unsampled += 1
                continue
            if len(worlds) != self.worlds:
                raise ValueError(f"{game.name}.sample_worlds returned {len(worlds)} worlds, "
                                 f"not {self.worlds}")
            for w, world in enumerate(worlds):
                if w and deadline is not None and self.clock() > deadline:
                    break  # out of time: the worlds started so far (at least one) count
                if world.current_player != seats[d] or not np.array_equal(
                        world.legal_mask(), masks[d]):
                    raise ValueError(f"{game.name}.sample_worlds returned a world where seat "
                                     f"{seats[d]} does not have the same legal actions")
                for _ in range(self.rollouts):
                    for k, action in enumerate(candidates[d]):
                        state_k = world.clone()
                        hands = len(state_k.results)
                        state_k.apply(int(action))
                        if len(state_k.results) > hands or state_k.is_over:
                            values.append(hand_worth(state_k, seats[d]))  # the hand ended
                            owners.append((d, k, -1))
                        else:
                            values.append(np.nan)
                            owners.append((d, k, len(starts)))
                            starts.append(state_k)
                            start_seats.append(seats[d])
        values = np.array(values, dtype=float)
        if starts:
            played = rollout_values(starts, start_seats, self.policy, deadline, self.batch,
                                    self.depth, self.leaf, self.clock)
            index = np.array([j for _, _, j in owners])
            values[index >= 0] = played[index[index >= 0]]
        self.searched += len(states)
        # each decision's (samples, candidates) values: a sample is a world and a rollout,
        # every candidate played in it (paired comparisons); nan: not finished in time
        tables = [[] for _ in states]
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
        probs = None
        if self.top_k:
            try:
                probs = (self.prior or self.policy).action_probabilities(obs, masks)
            except AttributeError:  # a policy without probabilities: all legal actions
                probs = None
        out = []
        for d, mask in enumerate(masks):
            legal = np.flatnonzero(mask)
            if probs is not None and self.top_k < legal.size:
                order = legal[np.argsort(-probs[d][legal], kind="stable")]
                legal = order[:self.top_k]
            rest = legal[legal != own[d]]
            out.append(np.concatenate([[own[d]], rest]).astype(np.int64))
        return out

    def __repr__(self):
        return (f"PIMCAgent({self.game}, worlds={self.worlds}, rollouts={self.rollouts}, "
                f"top_k={self.top_k}, rollout={self.rollout_spec}, time={self.time_limit}, "
                f"prior={self.prior_spec}, depth={self.depth}, critic={self.critic_spec})")
