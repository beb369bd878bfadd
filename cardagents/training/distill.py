"""Distillation from search (expert iteration, DAgger-style): the PPO policy learns the PIMC search
agent's decisions (``cardagents.search.pimc``) at the positions it meets itself, mixed with PPO.

What ``train.py`` does each iteration of a ``kind: distill`` stage (``Config``):

1. **States from the learner's own games** (``Gatherer``): the current policy, sampling as PPO
   collection does, plays one side of each game of a ``VectorGame`` of its own against the
   heuristic; every learner decision with more than one legal action is a candidate, kept with
   its state (a clone of the slot's rules-engine state, ``VectorGame.slots``: what the search's
   sampler of hidden cards needs) and the policy's probabilities there. Why its own games: a
   policy trained on positions the teacher reaches drifts to positions it never learnt (DAgger);
   these are the ones it will face. The games go on from one iteration to the next.
2. **Which to label** (``select``): the search costs ~0.25 s per Dabang decision, so only
   ``labels`` of the ``pool`` x ``labels`` candidates are searched: ``all`` (drawn at random),
   ``uncertain`` (the smallest gap between the policy's two most likely actions) or
   ``entropy`` (the highest entropy of the policy there); ``focus`` first keeps only the
   candidates of some game phases, read from the observation by name
   (``cardagents.players.observation``): ``tribute`` (a hand where tribute was paid: piece
   ``tribute`` > 0), ``bury`` (the dealer's burial: Dabang's ``phase`` piece), ``endgame`` (the seat
   holds at most ``ENDGAME_CARDS`` cards: piece ``cards_left``). A phase the game has no piece for
   matches nothing. And ``max_legal`` keeps only states with few legal actions: the search compares
   every legal action, and at a Dabang burial or declaration (~38 of them) the best of that many
   noisy means clears its margin over the rollout policy's choice by chance most of the time, so
   labels there are mostly noise (docs/results.md, "Issue 24 so far: distillation from search").
3. **Labels** (``label``): ``PIMCAgent.search`` at each chosen state: the action it plays and
   each candidate's mean rollout value. The target (``soft_targets``) is
   ``softmax(means / temperature)`` over the searched candidates (the values say how much
   worse the other actions are, a richer target than one action), or with ``temperature: 0``
   the search's action alone (its choice keeps the policy's own unless another is better by
   the search's margin; the plain softmax does not).
4. **Training** (``distill_loss``): the PPO loss of each minibatch plus ``distill_coef`` times
   the cross-entropy of the policy (over the legal actions) to the targets of a minibatch of
   the most recent ``distill_buffer`` labels, one optimizer, so that the two pull on the same
   weights step by step.

A run holds one ``Distillation``: the ``Distiller`` of the stage it is in (made when a distil
stage is entered, again when a stage changes its games or search), each iteration's labels and
the term they add to the update.

The agent knows the games only through the public API: states from ``VectorGame.slots``,
observations by piece name, the search through ``cardagents.search.pimc``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from cardagents.evaluation.progress import Progress
from cardagents.players.heuristics import heuristic_for
from cardagents.players.lockstep import LearnerSeats, draw_side
from cardagents.players.observation import ObsView
from cardagents.ppo.compute import autocast
from cardagents.search.pimc import SearchResult
from cardagents.search.parse import make_search
from cardagents.training.config import DISTILL_FOCUS as FOCUS, DISTILL_SELECT as SELECT
from cardenv.games import make_game
from cardenv.vector import VectorGame

ENDGAME_CARDS = 6  # a seat with this many cards or fewer is in the hand's last tricks


@dataclass
class Labels:
    """Labelled decisions, one row each: what the distillation loss trains on."""

    obs: np.ndarray  # (n, D) float32 observations
    mask: np.ndarray  # (n, N) bool legal masks
    target: np.ndarray  # (n, N) float32 target distribution (0 off the searched candidates)
    action: np.ndarray  # (n,) int64 the search's action

    def __len__(self) -> int:
        return len(self.action)

    def recent(self, more: "Labels", keep: int) -> "Labels":
        """These labels then ``more``, the last ``keep`` of them."""
        return Labels(*(np.concatenate([a, b])[-keep:] for a, b in zip(
            (self.obs, self.mask, self.target, self.action),
            (more.obs, more.mask, more.target, more.action))))

    def to_saved(self) -> dict:
        """As tensors, for a training checkpoint (``from_saved`` reads it back)."""
        return {"obs": torch.as_tensor(self.obs), "mask": torch.as_tensor(self.mask),
                "target": torch.as_tensor(self.target).half(),
                "action": torch.as_tensor(self.action)}

    @classmethod
    def from_saved(cls, saved: dict) -> "Labels":
        return cls(saved["obs"].numpy().astype(np.float32), saved["mask"].numpy().astype(bool),
                   saved["target"].float().numpy(), saved["action"].numpy().astype(np.int64))

    @classmethod
    def empty(cls, obs_size: int, num_actions: int) -> "Labels":
        return cls(np.zeros((0, obs_size), np.float32), np.zeros((0, num_actions), bool),
                   np.zeros((0, num_actions), np.float32), np.zeros(0, np.int64))


@dataclass
class Candidates:
    """Learner decisions met in play, each with its state (a clone) and the policy there."""

    states: list
    obs: np.ndarray  # (n, D)
    mask: np.ndarray  # (n, N)
    probs: np.ndarray  # (n, N) float32 the policy's probabilities

    def __len__(self) -> int:
        return len(self.states)


def policy_probs(net, obs: np.ndarray, masks: np.ndarray, precision: str = "fp32") -> np.ndarray:
    """``(B, N)`` float32: the policy's probabilities (0 where illegal)."""
    with torch.no_grad(), autocast(precision):
        logits, _ = net(torch.as_tensor(obs), torch.as_tensor(masks))
    return torch.softmax(logits.float(), dim=-1).numpy()


class Gatherer:
    """The learner's own games against ``opponent`` (an agent acting from observations) on a
    ``VectorGame`` of ``num_envs`` slots (``games``: made games, as ``VectorGame`` takes them),
    seated as PPO collection seats it: one side of each game's partnerships as dealt, drawn at
    random."""

    def __init__(self, games, num_envs: int, seed: int, opponent, rng: np.random.Generator):
        self.games = VectorGame(games, num_envs, seed=seed)
        self.opponent, self.rng = opponent, rng
        self.seating = LearnerSeats(num_envs, self.games.game.num_players)
        for slot in range(num_envs):
            self._seat(slot)

    def _seat(self, slot: int) -> None:
        self.seating.seat(slot, draw_side(self.games.slots[slot], self.rng), self.opponent)

    def gather(self, net, count: int, precision: str = "fp32") -> Candidates:
        """Play on until ``count`` learner decisions with a choice are met (the policy samples
        its actions); their states (clones), observations, masks and the policy's
        probabilities."""
        games = self.games
        states, obs_rows, mask_rows, prob_rows = [], [], [], []
        while len(states) < count:
            obs, masks, seats = games.observations(), games.masks(), games.current()
            actions = masks.argmax(axis=1)
            mine = self.seating.to_act(seats)
            theirs = np.flatnonzero(~mine)
            if theirs.size:
                self.seating.opponents_act(actions, theirs.tolist(), obs, masks)
            rows = np.flatnonzero(mine)
            if rows.size:
                probs = policy_probs(net, obs[rows], masks[rows], precision)
                # a draw from each row's distribution (inverse CDF; illegal actions have 0)
                cdf = np.cumsum(probs, axis=1)
                u = self.rng.random(rows.size) * cdf[:, -1]
                picks = np.minimum((cdf < u[:, None]).sum(axis=1), probs.shape[1] - 1)
                picks = np.where(masks[rows, picks], picks, probs.argmax(axis=1))
                actions[rows] = picks
                choice = masks[rows].sum(axis=1) > 1
                for k in np.flatnonzero(choice)[:count - len(states)].tolist():
                    states.append(games.slots[int(rows[k])].clone())
                    obs_rows.append(obs[rows[k]])
                    mask_rows.append(masks[rows[k]])
                    prob_rows.append(probs[k])
            for done in games.step(actions).games:
                self._seat(done.index)  # the slot holds its next game
        return Candidates(states, np.array(obs_rows, dtype=np.float32), np.array(mask_rows),
                          np.array(prob_rows, dtype=np.float32))


def focus_of(game: str, obs: np.ndarray, focus) -> np.ndarray:
    """``(n,)`` bool: the observations of ``obs`` in any of the phases ``focus`` (``FOCUS``);
    all of them for an empty ``focus``."""
    obs = np.asarray(obs)
    if not focus:
        return np.ones(len(obs), dtype=bool)
    view = ObsView(game)
    out = np.zeros(len(obs), dtype=bool)
    for phase in focus:
        if phase not in FOCUS:
            raise ValueError(f"unknown focus {phase!r}; expected some of {', '.join(FOCUS)}")
        if phase == "tribute" and "tribute" in view.pieces:
            out |= view.piece(obs, "tribute")[:, 0] > 0
        elif phase == "bury" and "phase" in view.pieces:
            names = _phase_names(game)
            if "bury" in names:
                out |= view.piece(obs, "phase")[:, names.index("bury")] > 0
        elif phase == "endgame" and "cards_left" in view.pieces:
            out |= view.piece(obs, "cards_left")[:, 0] <= ENDGAME_CARDS  # seat 0: the observer
    return out


def _phase_names(game: str) -> list[str]:
    """The names of the one-hot ``phase`` piece, in order, from its public description
    ("one-hot phase: declare, return, ...")."""
    for name, _, _, _, doc in make_game(game).layout.observation_pieces():
        if name == "phase" and ":" in doc:
            return [word.strip() for word in doc.split(":", 1)[1].split(",")]
    return []


def uncertainty(probs: np.ndarray, how: str) -> np.ndarray:
    """``(n,)``: how unsure the policy is at each row, larger is less sure: ``uncertain``, minus
    the gap between its two most likely actions; ``entropy``, its entropy."""
    if how == "uncertain":
        top = np.sort(probs, axis=1)[:, -2:]
        return -(top[:, 1] - top[:, 0])
    if how == "entropy":
        p = np.clip(probs, 1e-12, 1.0)
        return -(probs * np.log(p)).sum(axis=1)
    raise ValueError(f"no uncertainty measure {how!r}")


def select(candidates: Candidates, count: int, how: str, game: str, focus=(),
           rng: np.random.Generator | None = None, max_legal: int = 0) -> np.ndarray:
    """The indices of the ``count`` candidates to label (fewer if fewer qualify): among those
    in the ``focus`` phases (``focus_of``) with at most ``max_legal`` legal actions (0: any
    number; if none qualifies, those with few legal actions, else all), at random (``all``)
    or the most uncertain (``uncertain``, ``entropy``; see ``uncertainty``)."""
    if how not in SELECT:
        raise ValueError(f"select must be one of {', '.join(SELECT)}, got {how!r}")
    few = candidates.mask.sum(axis=1) <= max_legal if max_legal else \
        np.ones(len(candidates), dtype=bool)
    eligible = np.flatnonzero(focus_of(game, candidates.obs, focus) & few)
    if not eligible.size:  # none of those phases this time (e.g. fresh games' first
        eligible = np.flatnonzero(few)  # decisions): the others with few legal actions serve
    if not eligible.size:
        eligible = np.arange(len(candidates))
    if how == "all":
        rng = rng or np.random.default_rng(0)
        return np.sort(rng.permutation(eligible)[:count])
    score = uncertainty(candidates.probs[eligible], how)
    return np.sort(eligible[np.argsort(-score, kind="stable")[:count]])


def soft_targets(results: list[SearchResult], num_actions: int,
                 temperature: float) -> np.ndarray:
    """``(n, N)`` float32 targets: ``softmax(means / temperature)`` over each result's
    candidates with a finished rollout; the search's action alone where ``temperature`` is 0 or
    no candidate has a value."""
    out = np.zeros((len(results), num_actions), dtype=np.float32)
    for i, r in enumerate(results):
        valued = ~np.isnan(r.means)
        if temperature > 0 and valued.sum() > 1:
            z = r.means[valued] / temperature
            p = np.exp(z - z.max())
            out[i, r.candidates[valued]] = p / p.sum()
        else:
            out[i, r.action] = 1.0
    return out


def distill_loss(net, obs, masks, targets) -> tuple[torch.Tensor, dict]:
    """The cross-entropy of the policy to ``targets`` (``(B, N)`` distributions over legal
    actions), averaged over the rows, and the policy's agreement with each row's most likely
    target action (its greedy action)."""
    rows, cols, logp, _ = net.legal_log_probs(obs, masks)
    loss = -(targets[rows, cols] * logp).sum() / len(obs)
    with torch.no_grad():
        # each row's greedy action: the legal pair of the largest log-probability
        best = torch.full((len(obs),), float("-inf"), device=logp.device).scatter_reduce(
            0, rows, logp.detach().float(), "amax")
        top = logp.detach() >= best.index_select(0, rows)
        hit = torch.zeros(len(obs), device=logp.device).index_add(
            0, rows[top], (targets[rows, cols][top] == targets.max(-1).values[rows[top]])
            .float())
        agreement = (hit > 0).float().mean()
    return loss, {"distill_loss": loss.item(), "distill_agreement": agreement.item()}


class Distiller:
    """A ``kind: distill`` stage's states, labels and label buffer (``train.py``).

    Args:
        games: the stage's games (made, one per rules variant: ``cardenv.vector.game_variants``
            of its options).
        search: the PIMC spec (``cardagents.search.parse.parse_spec``), e.g.
            ``pimc:depth=8,critic=checkpoints/dabang_leaf.npz``.
        opponent: who the learner plays in its gathering games (the heuristic).
        seed: seeds the gathering games' deals and draws, and the search.
        num_envs: gathering games in lockstep.
    """

    def __init__(self, games, search: str, opponent, seed: int, num_envs: int,
                 saved: dict | None = None):
        made = games[0] if isinstance(games, (list, tuple)) else games
        self.game = game = made.name
        self.searcher = make_search(search, game, seed=seed)
        self.rng = np.random.default_rng([seed, 24])
        self.kept = Labels.empty(made.observation_size, made.num_actions)
        self.labelled, self.seconds = 0, 0.0
        if saved:  # a resumed run: its buffer and draws (``state``)
            self.kept = Labels.from_saved(saved["buffer"])
            self.labelled, self.seconds = int(saved["labelled"]), float(saved["seconds"])
            self.rng.bit_generator.state = saved["rng"]
        # the games in progress are not saved: a resumed run deals new ones, from a seed past
        # the labels so far
        self.gatherer = Gatherer(games, num_envs,
                                 seed * 9_000_011 + 1_000 * self.labelled + 5, opponent, self.rng)

    def label(self, net, count: int, *, select_how: str, pool: int, temperature: float,
              focus=(), max_legal: int = 0, precision: str = "fp32", progress=None,
              chunk: int = 32) -> dict:
        """Gather ``pool * count`` candidates from the learner's games, label ``count`` of them
        with the search (``chunk`` per call, ``progress(done)`` after each), add them to the
        buffer; what it cost and found."""
        began = time.perf_counter()
        found = self.gatherer.gather(net, pool * count if select_how != "all" or focus or
                                     max_legal else count, precision)
        gathered = time.perf_counter() - began
        chosen = select(found, count, select_how, self.game, focus, self.rng, max_legal)
        states = [found.states[i] for i in chosen.tolist()]
        results: list[SearchResult] = []
        for first in range(0, len(states), chunk):
            results += self.searcher.search(states[first:first + chunk])
            if progress is not None:
                progress(len(results))
        target = soft_targets(results, found.mask.shape[1], temperature)
        action = np.array([r.action for r in results], dtype=np.int64)
        greedy = found.probs[chosen].argmax(axis=1)
        new = Labels(found.obs[chosen], found.mask[chosen], target, action)
        seconds = time.perf_counter() - began
        self.labelled += len(new)
        self.seconds += seconds
        return {"new": new, "gather_s": gathered, "label_s": seconds, "labels": len(new),
                # how often the search plays another action than the policy's greedy one, and
                # than its own rollout policy's (candidate 0: with a margin, the search keeps
                # that unless another is clearly better)
                "search_differs": float(np.mean(action != greedy)) if len(new) else 0.0,
                "search_overrides": float(np.mean([r.action != r.candidates[0]
                                                   for r in results])) if results else 0.0}

    def add(self, new: Labels, keep: int) -> None:
        """Keep the most recent ``keep`` labels, ``new`` included."""
        self.kept = self.kept.recent(new, keep)

    def state(self) -> dict:
        """What a training checkpoint keeps of it (``saved`` of a resumed run)."""
        return {"buffer": self.kept.to_saved(), "labelled": self.labelled,
                "seconds": self.seconds, "rng": self.rng.bit_generator.state}


class Distillation:
    """The distillation stages of a run of ``game`` seeded ``seed``: the current stage's
    ``Distiller`` (``distiller``), the labels of an iteration (``labels``) and the term they
    add to its update (``term``). ``heuristic``: the run's (the learner's opponent in the
    gathering games; made here if the run has none); ``saved``: a resumed run's
    (``state()``), read by the first ``Distiller``."""

    def __init__(self, game: str, seed: int, heuristic=None, saved: dict | None = None):
        self.game, self.seed, self.heuristic = game, seed, heuristic
        self.distiller, self.key, self.saved = None, None, saved

    def labels(self, active, games, actor, precision: str) -> dict:
        """An iteration's labels under the stage config ``active`` (its ``distill_*``
        fields), its games ``games`` (made, one per rules variant), the learner's policy
        ``actor``: ``distill_labels`` states of the learner's own games labelled by the search,
        added to the buffer; what the update's distillation term needs and the run logs."""
        key = (self.game, repr(active.options), active.distill_search, active.distill_envs)
        if self.distiller is None or self.key != key:
            self.distiller = Distiller(
                games, active.distill_search,
                self.heuristic or heuristic_for(self.game, self.seed), self.seed,
                active.distill_envs, saved=self.saved)
            self.key, self.saved = key, None
        count = active.distill_labels
        found = self.distiller.label(
            actor, count, select_how=active.distill_select, pool=active.distill_pool,
            temperature=active.distill_temperature, focus=active.distill_focus,
            max_legal=active.distill_max_legal, precision=precision,
            progress=Progress(count, "distill: labelling states with the search", "states"))
        self.distiller.add(found.pop("new"), active.distill_buffer)
        seconds = found.pop("label_s")
        return {**found, "labels_per_s": found["labels"] / max(seconds, 1e-9),
                "labelled": self.distiller.labelled, "label_seconds": self.distiller.seconds}

    def update(self, learner, batch, active, labels: dict) -> dict:
        """``learner``'s PPO update of ``batch`` under the stage config ``active``, each
        minibatch's loss adding the distillation term of the buffer (``term``); the statistics
        with what the labelling found (``labels``), reported on the console."""
        extra = self.term(active, learner.net, learner.compute.device, learner.generator)
        stats = learner.update(batch, active.ent_coef, extra)
        stats.update(labels)
        self.report(labels, stats)
        return stats

    def term(self, active, net, device, generator):
        """A callable giving the distillation term of one minibatch of ``net``'s update:
        ``distill_coef`` times the cross-entropy to the targets of ``distill_minibatch`` labels
        drawn from the buffer (with ``generator``)."""
        buffer = self.distiller.kept
        obs, mask, target = (torch.as_tensor(a).to(device) for a in (buffer.obs, buffer.mask,
                                                                     buffer.target))
        size = min(active.distill_minibatch, len(buffer))

        def term():
            idx = torch.randint(len(buffer), (size,), generator=generator)
            loss, parts = distill_loss(net, obs[idx], mask[idx], target[idx])
            return active.distill_coef * loss, parts

        return term

    def state(self) -> dict | None:
        """What a training checkpoint keeps (a resumed run's ``saved``, until it is used)."""
        return self.distiller.state() if self.distiller else self.saved

    @staticmethod
    def report(labels: dict, stats: dict) -> None:
        """The console line of an iteration's labels and the update's distillation term."""
        print(f"distill: {labels['labels']} states labelled ({labels['labels_per_s']:.2f}/s; "
              f"{labels['labelled']:,} in all), the search plays another action than the "
              f"policy's on {labels['search_differs']:.0%} (another than its rollout "
              f"policy's on {labels['search_overrides']:.0%}) | distill loss "
              f"{stats['distill_loss']:.3f}, the policy's top action is the labels' on "
              f"{stats['distill_agreement']:.0%}", flush=True)
