"""Self-play collection for PPO: the learner and its opponents seated on a ``VectorGame``
(``SelfPlay``), the learner's decisions grouped into episodes with their rewards and the
advantages of the episodes that end (``Episodes``, ``gae_batch``), in numpy (the policy is any
callable; no game internals).

``SelfPlay.collect(policy, samples)`` plays the games until ``samples`` learner decisions of
finished episodes are ready and returns them as a ``Batch``. In each game the learner takes one
side's seats (a side drawn at random among the hand's two partnerships as dealt) and an opponent
drawn from the weighted mix takes the others, for the whole game; each opponent acts once per
step on all the rows where it is to move.

With ``pair_bonus`` the games come in deal pairs, as the duplicate evaluation plays them: slots
``2k`` and ``2k + 1`` hold the same deal, the learner on one side in the first and on the other
side in the second, the same opponent in the seats left. A slot whose game ends waits, over,
for its twin (``VectorGame(refill=False)``); when both are over, every learner seat of both games
gets ``pair_bonus * sign(score)`` on its last decision, ``score`` the learner's summed rewards
over the two games (above 0: the pair won, as the evaluation counts it; the luck of the cards
cancels in it), and the pair's episodes close and the two slots take the next deal.

An *episode* is one learner seat's decisions in one game of a slot of a ``VectorGame`` (a hand,
or a whole Dabang match), ending when the game ends. ``Episodes`` records each step's learner
decisions (``record``), adds each step's rewards to the last decision of the seats they go to
(``add_rewards``), and when games end closes their episodes (``close``): in slot order, then seat
order, each episode's decisions in time order, with GAE advantages and returns (no
bootstrapping: the value after the last decision is 0). ``take`` hands the closed decisions
over as a ``Batch`` of named arrays and keeps the open ones.

Everything is arrays indexed by decision id (a growing store) and by ``(slot, seat)``, so a
step costs a handful of numpy calls whatever the batch size; ``gae_batch`` runs GAE over many
episodes at once and gives bit for bit what ``cardagents.ppo.losses.gae`` gives each of them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from cardagents.players.lockstep import LearnerSeats, draw_side, partnership


@dataclass
class Batch:
    """Learner decisions of finished episodes, one row each, ready for the PPO update."""

    obs: np.ndarray  # (n, D) float32 observations
    mask: np.ndarray  # (n, N) bool legal masks
    action: np.ndarray  # (n,) int64 actions taken
    logp: np.ndarray  # (n,) float32 their log-probabilities when taken (the policy's own)
    # (None until ``with_values`` in a batch collected with ``values_later``)
    value: np.ndarray | None = None  # (n,) float64 the value estimates then
    adv: np.ndarray | None = None  # (n,) float64 GAE advantages
    ret: np.ndarray | None = None  # (n,) float64 returns (advantage + value)
    state: np.ndarray | None = None  # (n, S) float32 global states, for a global critic
    # values to come (``values_later``): each decision's reward (shaping included) and the
    # lengths of the episodes the rows hold one after the other; ``with_values`` completes it
    reward: np.ndarray | None = None  # (n,) float64
    lengths: np.ndarray | None = None  # (episodes,) int64

    FIELDS = ("obs", "mask", "action", "logp", "value", "adv", "ret")
    OPTIONAL = ("state", "reward", "lengths")

    def __len__(self) -> int:
        return len(self.action)

    def as_dict(self) -> dict:
        """The fields that are there (``value``, ``adv``, ``ret`` wait for ``with_values``
        in a batch collected with ``values_later``)."""
        return {k: getattr(self, k) for k in (*self.FIELDS, *self.OPTIONAL)
                if getattr(self, k) is not None}

    def to(self, device) -> "Batch":
        """The rows the update reads, as torch tensors on ``device`` (a ``Batch`` still):
        observations, log-probabilities, values, advantages and returns as float32, masks as
        bool, actions and global states as they are; no ``reward`` or ``lengths``."""
        import torch  # the learner's update only: collection stays numpy

        def put(value, cast=None):
            if value is None:
                return None
            tensor = torch.as_tensor(value)
            return (cast(tensor) if cast else tensor).to(device)

        def as_float(tensor):
            return tensor.float()

        def as_bool(tensor):
            return tensor.bool()

        return Batch(obs=put(self.obs, as_float), mask=put(self.mask, as_bool),
                     action=put(self.action), logp=put(self.logp, as_float),
                     value=put(self.value, as_float), adv=put(self.adv, as_float),
                     ret=put(self.ret, as_float), state=put(self.state))

    def with_values(self, values: np.ndarray, gamma: float, lam: float) -> "Batch":
        """This batch of ``values_later`` completed with the critic's ``values`` of its rows:
        the advantages and returns that ``SelfPlay`` would have computed with them."""
        values = np.asarray(values, dtype=np.float64)
        adv, ret = gae_batch(self.reward, values, self.lengths, gamma, lam)
        return Batch(self.obs, self.mask, self.action, self.logp, values, adv, ret, self.state,
                     self.reward, self.lengths)

    @classmethod
    def concat(cls, parts: list["Batch"], obs_size: int, num_actions: int,
               state_size: int = 0) -> "Batch":
        if not parts:
            return cls(np.zeros((0, obs_size), np.float32), np.zeros((0, num_actions), bool),
                       *(np.zeros(0, dtype) for dtype in (np.int64, np.float32,
                                                          *[np.float64] * 3)),
                       np.zeros((0, state_size), np.float32) if state_size else None)

        def join(name):
            arrays = [getattr(p, name) for p in parts]
            return None if any(a is None for a in arrays) else np.concatenate(arrays)

        return cls(*(join(k) for k in cls.FIELDS), *(join(k) for k in cls.OPTIONAL))


def gae_batch(rewards: np.ndarray, values: np.ndarray, lengths: np.ndarray, gamma: float,
              lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE of many finished episodes at once: ``rewards`` and ``values`` are their decisions
    one after the other (episode ``e`` has ``lengths[e]`` of them); returns (advantages,
    returns) in the same order, each equal to ``cardagents.ppo.losses.gae`` of that episode alone.

    The episodes are laid right-aligned in an ``(E, max length)`` table, so that all end in the
    last column, and the backward recursion runs over columns with the same float64 operations
    in the same order as the one-episode loop."""
    rewards = np.asarray(rewards, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.sum() != len(rewards) or len(values) != len(rewards):
        raise ValueError("rewards and values must hold sum(lengths) decisions")
    if len(rewards) == 0:
        return np.zeros(0), np.zeros(0)
    width = int(lengths.max())
    starts = np.cumsum(lengths) - lengths
    row = np.repeat(np.arange(len(lengths)), lengths)
    col = np.arange(len(rewards)) - starts[row] + (width - lengths)[row]
    r = np.zeros((len(lengths), width))
    v = np.zeros((len(lengths), width))
    r[row, col], v[row, col] = rewards, values
    next_v = np.zeros_like(v)
    next_v[:, :-1] = v[:, 1:]  # the value after the last decision is 0
    adv = np.zeros_like(v)
    running = np.zeros(len(lengths))
    for t in range(width - 1, -1, -1):
        delta = r[:, t] + gamma * next_v[:, t] - v[:, t]
        running = delta + gamma * lam * running
        adv[:, t] = running
    out = adv[row, col]
    return out, out + values


class Episodes:
    """The open and closed learner episodes of ``num_slots`` game slots (see the module
    docstring)."""

    def __init__(self, num_slots: int, obs_size: int, num_actions: int,
                 gamma: float, lam: float, state_size: int = 0, values_later: bool = False):
        self.num_slots, self.obs_size, self.num_actions = num_slots, obs_size, num_actions
        self.values_later = values_later  # no values when recorded: GAE waits for them
        self.state_size = state_size  # 0: no global states kept
        self.gamma, self.lam = gamma, lam
        self.size = 0  # decisions in the store, closed ones included until compacted
        self.dead = 0  # closed decisions still in the store
        self._alloc(1024)
        # the episode each (slot, seat) is in, and the id of its last decision (-1: none yet)
        self.episode = np.arange(num_slots * 4).reshape(num_slots, 4)
        self.next_episode = num_slots * 4
        self.last = np.full((num_slots, 4), -1)
        self.closed: list[Batch] = []
        self.closed_count = 0

    def _alloc(self, capacity: int) -> None:
        old = getattr(self, "obs", None)
        self.capacity = capacity
        fields = {"obs": ((capacity, self.obs_size), np.float32),
                  "mask": ((capacity, self.num_actions), bool),
                  "action": (capacity, np.int64), "logp": (capacity, np.float32),
                  "value": (capacity, np.float64), "reward": (capacity, np.float64),
                  "shaped": (capacity, np.float64), "owner": (capacity, np.int64),
                  "state": ((capacity if self.state_size else 0, self.state_size),
                            np.float32)}
        for name, (shape, dtype) in fields.items():
            array = np.zeros(shape, dtype)
            if old is not None:
                array[:self.size] = getattr(self, name)[:self.size]
            setattr(self, name, array)

    @property
    def open_decisions(self) -> int:
        """Decisions recorded in episodes that have not ended."""
        return self.size - self.dead

    def record(self, slots, seats, obs, masks, actions, logp, values, states=None) -> None:
        """One step's learner decisions: row ``k`` is seat ``seats[k]`` of slot ``slots[k]``
        (each slot at most once); ``states``: their global states, when kept."""
        slots = np.asarray(slots, dtype=np.int64)
        n = len(slots)
        if self.size + n > self.capacity:
            self._compact()
            if self.size + n > self.capacity // 2:  # room for a while before the next copy
                self._alloc(max(2 * self.capacity, 2 * (self.size + n)))
        ids = np.arange(self.size, self.size + n)
        self.obs[ids], self.mask[ids] = obs, masks
        self.action[ids], self.logp[ids] = actions, logp
        self.value[ids] = np.nan if values is None else values
        if self.state_size:
            self.state[ids] = states
        self.reward[ids] = self.shaped[ids] = 0.0
        self.owner[ids] = self.episode[slots, seats]
        self.last[slots, seats] = ids
        self.size += n

    def add_rewards(self, rewards: np.ndarray, shaped: np.ndarray) -> None:
        """Add each seat's reward (and shaping reward) of this step to the last decision of
        its open episode; a seat with no decision yet in its episode gets nothing."""
        slots, seats = np.nonzero((rewards != 0) | (shaped != 0))
        ids = self.last[slots, seats]
        keep = ids >= 0
        ids, slots, seats = ids[keep], slots[keep], seats[keep]
        self.reward[ids] += rewards[slots, seats]  # (slot, seat) pairs are distinct: no clash
        self.shaped[ids] += shaped[slots, seats]

    def close(self, slots) -> list[float]:
        """End the episodes of the games in ``slots`` (ascending): their decisions become
        closed samples (slot by slot, seat 0..3, time order) and those seats start new
        episodes. Returns each slot's summed reward over its learner seats' decisions."""
        slots = np.asarray(slots, dtype=np.int64)
        if not len(slots):
            return []
        ending = self.episode[slots].reshape(-1)  # slot-major, seat order: the sample order
        stored = self.owner[:self.size]
        order = np.argsort(ending)
        at = np.minimum(np.searchsorted(ending[order], stored), len(ending) - 1)
        done = ending[order][at] == stored
        rank = order[at[done]]  # the closing decisions' episodes, by place in ``ending``
        # stable: each episode's decisions stay in time order
        sort = np.argsort(rank, kind="stable")
        ids = np.flatnonzero(done)[sort]
        lengths = np.bincount(rank, minlength=len(ending))
        reward = self.reward[ids] + self.shaped[ids]
        if len(ids) and self.values_later:
            self.closed.append(Batch(self.obs[ids], self.mask[ids], self.action[ids],
                                     self.logp[ids], None, None, None,
                                     self.state[ids] if self.state_size else None,
                                     reward, lengths[lengths > 0]))
            self.closed_count += len(ids)
        elif len(ids):
            adv, ret = gae_batch(reward, self.value[ids], lengths[lengths > 0], self.gamma,
                                 self.lam)
            self.closed.append(Batch(self.obs[ids], self.mask[ids], self.action[ids],
                                     self.logp[ids], self.value[ids], adv, ret,
                                     self.state[ids] if self.state_size else None))
            self.closed_count += len(ids)
        # each slot's learner reward: its seats' sums, seat by seat, added up as Python does
        rewards = self.reward[ids].tolist()
        bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
        totals = []
        for k in range(len(slots)):
            total = 0.0
            for e in range(4 * k, 4 * k + 4):
                if bounds[e + 1] > bounds[e]:
                    total += sum(rewards[bounds[e]:bounds[e + 1]])  # left to right
            totals.append(total)
        self.owner[np.flatnonzero(done)] = -1  # closed: compacted away later, in one copy
        self.dead += len(ids)
        self.episode[slots] = self.next_episode + np.arange(len(slots) * 4).reshape(-1, 4)
        self.next_episode += len(slots) * 4
        self.last[slots] = -1
        return totals

    def _compact(self) -> None:
        """Drop the closed decisions (owner -1) from the store, renumbering ``last``."""
        if not self.dead:
            return
        ids = np.flatnonzero(self.owner[:self.size] >= 0)
        new_id = np.full(self.size + 1, -1)
        new_id[ids] = np.arange(len(ids))
        for name in ("obs", "mask", "action", "logp", "value", "reward", "shaped", "owner",
                     *(("state",) if self.state_size else ())):
            array = getattr(self, name)
            array[:len(ids)] = array[ids]
        self.last = new_id[self.last]  # -1 stays -1 (index -1 is the extra entry)
        self.size, self.dead = len(ids), 0

    def take(self) -> Batch:
        """The closed decisions so far, in closing order (they leave the book)."""
        batch = Batch.concat(self.closed, self.obs_size, self.num_actions, self.state_size)
        self.closed, self.closed_count = [], 0
        self._compact()
        return batch


def win_rate(recent, kind: str = "heuristic") -> float | None:
    """Share of the ``recent`` games (``(opponent kind, learner side's reward)`` pairs) against
    ``kind`` that the learner's side won; ``None`` if there are none."""
    scores = [r for k, r in recent if k == kind]
    return float(np.mean([r > 0 for r in scores])) if scores else None


def mean_payoff(recent, kind: str = "heuristic") -> float | None:
    """Mean reward of the learner's side over the ``recent`` games against ``kind``."""
    scores = [r for k, r in recent if k == kind]
    return float(np.mean(scores)) if scores else None


class SelfPlay:
    """The learner against a weighted mix of opponents on ``games`` (a ``VectorGame``).

    Args:
        games: the games, stepped in lockstep.
        rng: numpy generator of the seating and opponent draws.
        opponents: weights of the opponent kinds, e.g. ``{"heuristic": 0.8, "frozen": 0.2}``.
        players: the agent of each other kind (``{"heuristic": ..., "random": ...}``), or
            ``(agent, snapshot)`` for one player of an agent that holds several (a checkpoint
            in a pool, ``cardagents.training.opponents``); a search agent (``needs_state``)
            acts on its rows' states;
            ``frozen`` opponents come from ``self.frozen`` (set it when the pool changes; a kind
            is drawn only once it has an agent): a pool of snapshots acting together
            (``cardagents.ppo.frozen.FrozenPool``: ``len(pool)`` snapshots, ``pool.act_batch(obs,
            masks, which)`` with each row's snapshot), a game seated with one keeping its
            pool and snapshot to its end.
        gamma, lam: GAE parameters.
        shaping: ``f(result, weight) -> (4,)`` extra rewards at each hand's end (see
            ``cardagents.training.rewards``), with ``shaping_weight``; ``None`` for none.
        match_value: an ``cardagents.training.rewards.match_value.MatchValue``: the learner learns
        from the match
            reward (each hand's change in its team's chance to win the match) instead of the
            game's own rewards, which still make the reported returns; ``None``: the game's.
        pair_bonus: play deal pairs and reward each pair's outcome with this weight (see the
            module docstring; ``games`` made with ``refill=False``, an even number of slots;
            0: every slot deals its own games).
        with_states: hand the policy the global states of its rows and keep them in the
            batch (a critic reading the global state).
        values_later: the policy gives no values (``policy(obs, masks) -> (actions, logp,
            None)``, no states handed to it); the batch carries each decision's reward and
            its episodes' lengths instead of values and advantages, and the learner completes
            it (``Batch.with_values``) with its critic's values of the whole batch at once.
            Why: a critic of its own (over the global state) costs collection as much as the
            policy, row by row on small batches; the learner computes the same values in a
            few large batches on all its cores (and its device).
    """

    def __init__(self, games, rng: np.random.Generator, opponents: dict, players: dict,
                 gamma: float, lam: float, shaping=None, shaping_weight: float = 0.0,
                 with_states: bool = False, values_later: bool = False, match_value=None,
                 pair_bonus: float = 0.0):
        self.games, self.rng = games, rng
        self.pair_bonus = float(pair_bonus)
        self.paired = self.pair_bonus > 0
        if self.paired and (games.refill or len(games) % 2):
            raise ValueError("pair_bonus needs games made with refill=False, an even number "
                             f"of slots (got {len(games)}, refill={games.refill})")
        if self.paired and match_value is not None:
            raise ValueError("pair_bonus goes with the game's own rewards, not a match value")
        self.opponents, self.players = dict(opponents), players  # (the caller's: it grows)
        self.frozen: list = []
        self.shaping = shaping if shaping_weight else None
        self.shaping_weight = shaping_weight
        self.recent = deque(maxlen=400)  # (opponent kind, learner team reward) per game
        self.games_done = 0  # games finished so far (``recent`` keeps the last 400)
        n = len(games)
        self.kind: list = [None] * n  # per slot: the opponent kind
        # the learner's seats, the agent in the others (frozen: the pool, and its snapshot)
        self.seating = LearnerSeats(n, 4)
        if self.paired:
            # the learner's summed rewards in each slot's game, and the slots over (waiting)
            self.pair_score = np.zeros(n)
            self.pair_over = np.zeros(n, dtype=bool)
            for k in range(n // 2):
                games.restart(2 * k + 1, games.seeds[2 * k])  # the twin: the same deal
                self.seat_pair(k)
        else:
            for i in range(n):
                self.seat(i)
        self.with_states, self.values_later = with_states, values_later
        self.match_value = None
        self.set_match_value(match_value)
        self.episodes = Episodes(n, games.game.observation_size, games.num_actions, gamma, lam,
                                 games.game.state_size if with_states else 0, values_later)

    def seat(self, slot: int) -> None:
        """Draw who plays slot ``slot``'s game: the opponent kind, then the learner's side."""
        names = [n for n, w in self.opponents.items() if w > 0 and (n != "frozen" or self.frozen)]
        weights = np.array([self.opponents[n] for n in names], dtype=float)
        kind = names[self.rng.choice(len(names), p=weights / weights.sum())]
        if kind == "frozen":  # one of the pool's snapshots
            opponent, snapshot = self.frozen, int(self.rng.integers(len(self.frozen)))
        else:
            player = self.players[kind]
            opponent, snapshot = player if isinstance(player, tuple) else (player, -1)
        side = draw_side(self.games.slots[slot], self.rng)
        self.kind[slot] = kind
        self.seating.seat(slot, side, opponent, snapshot)
        return side

    def seat_pair(self, k: int) -> None:
        """Seat deal pair ``k`` (slots ``2k`` and ``2k + 1``, the same deal): the first as
        ``seat`` draws it, the twin with the same opponent and the learner on the other side."""
        first, twin = 2 * k, 2 * k + 1
        side = self.seat(first)
        sides = partnership(self.games.slots[twin])
        other = sides[1] if list(side) == list(sides[0]) else sides[0]
        self.kind[twin] = self.kind[first]
        self.seating.seat(twin, other, self.seating.opponent[first],
                          int(self.seating.snapshot[first]))
        self.pair_score[[first, twin]] = 0.0
        self.pair_over[[first, twin]] = False

    def _close_pairs(self, ended: np.ndarray) -> None:
        """Note the games that ``ended`` this step; close the deal pairs whose two games are
        over, each learner seat's last decision rewarded with the pair's bonus, and deal the
        next pair into their slots."""
        self.pair_over[ended] = True
        pairs = sorted({i // 2 for i in ended.tolist() if self.pair_over[i ^ 1]})
        if not pairs:
            return
        slots = np.array([[2 * k, 2 * k + 1] for k in pairs]).reshape(-1)
        score = self.pair_score[slots].reshape(-1, 2).sum(axis=1)
        bonus = np.zeros((len(self.games), 4))
        bonus[slots] = np.repeat(self.pair_bonus * np.sign(score), 2)[:, None] \
            * self.seating.learner[slots]
        self.episodes.add_rewards(np.zeros_like(bonus), bonus)
        self._close(slots)
        for k in pairs:
            seed = self.games.next_seed
            self.games.next_seed += 1
            self.games.restart(2 * k, seed)
            self.games.restart(2 * k + 1, seed)
            self.seat_pair(k)

    def _close(self, slots: np.ndarray) -> None:
        """Close the episodes of the games that ended in ``slots`` and note their results."""
        for i, team_return in zip(slots.tolist(), self.episodes.close(slots)):
            self.recent.append((self.kind[i], team_return))
            self.games_done += 1

    def set_match_value(self, match_value) -> None:
        """Learn from ``match_value``'s match reward from now on (``None``: the game's own
        rewards); each slot's hand in progress is valued from the situation it was dealt in."""
        self.match_value = match_value
        # each slot's hand's situation when dealt: a finished hand's reward is the value
        # after it less the value of this
        self.situation = [match_value.before(self.games.slots[i]) for i in
                          range(len(self.games))] if match_value is not None else None

    def win_rate(self, kind: str = "heuristic") -> float | None:
        return win_rate(self.recent, kind)

    def mean_payoff(self, kind: str = "heuristic") -> float | None:
        return mean_payoff(self.recent, kind)

    def _shaped(self, hands: list, rewards: np.ndarray) -> np.ndarray:
        """Per-seat shaping rewards of the hands that ended this step (``hands``: the step's
        ``HandEnd`` list). With a match value, they also swap the game's ``rewards`` of the step
        for the match reward: the learner learns from ``rewards + shaped``, the reported
        returns read ``rewards`` alone."""
        shaped = np.zeros_like(rewards, dtype=float)
        mv = self.match_value
        if mv is not None:
            shaped -= rewards  # Dabang pays only at hands' ends: what is left is the match's
        for i, result in hands:
            if self.shaping is not None:
                shaped[i] += self.shaping(result, self.shaping_weight)
            if mv is not None:
                shaped[i] += mv.hand_reward(self.situation[i], result)
                # the slot now holds the next hand of the match, or a new game
                self.situation[i] = mv.before(self.games.slots[i])
        return shaped

    def collect(self, policy, samples: int) -> Batch:
        """Play until ``samples`` learner decisions of finished episodes are ready.

        ``policy(obs, masks) -> (actions, logp, values)`` (numpy arrays) acts for the learner's
        rows (``policy(obs, masks, states)`` with ``with_states``). Episodes still running stay
        open for the next call."""
        games, book = self.games, self.episodes
        while book.closed_count < samples:
            obs, masks, seats = games.observations(), games.masks(), games.current()
            actions = np.zeros(len(games), dtype=np.int64)
            if self.paired:  # a slot over waits for its twin: nobody acts there
                live = ~self.pair_over
                learner = self.seating.to_act(np.where(live, seats, 0)) & live
                others = np.flatnonzero(~learner & live)
            else:
                learner = self.seating.to_act(seats)
                others = np.flatnonzero(~learner)
            mine = np.flatnonzero(learner)
            if len(mine):
                if self.with_states:
                    states = games.states()[mine]
                    if self.values_later:
                        actions[mine], logp, values = policy(obs[mine], masks[mine])
                    else:
                        actions[mine], logp, values = policy(obs[mine], masks[mine], states)
                else:
                    states = None
                    actions[mine], logp, values = policy(obs[mine], masks[mine])
                book.record(mine, seats[mine], obs[mine], masks[mine], actions[mine], logp,
                            values, states)
            # each opponent acts once on all its rows, in first-row order
            self.seating.opponents_act(actions, others.tolist(), obs, masks,
                                       lambda i: games.slots[i])
            step = games.step(actions)
            rewards, ended = step.rewards, step.ended
            extra = self.shaping is not None or self.match_value is not None
            shaped = self._shaped(step.hands, rewards) if extra else np.zeros_like(rewards)
            book.add_rewards(rewards, shaped)
            closing = np.flatnonzero(ended)
            if self.paired:
                self.pair_score += (rewards * self.seating.learner).sum(axis=1)
                self._close_pairs(closing)
            else:
                self._close(closing)
                for i in closing.tolist():
                    self.seat(i)
        return book.take()
