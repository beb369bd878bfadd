"""The evaluations of a training run, beside its ``Trainer`` (a base class of it: they read the
run's config, option sets, learner and log): learning-curve points during training (in this
process, or as Ray tasks beside it), the final duplicate evaluations against the random player
and the heuristic, the evaluation of the policy PPO starts from (``eval_start``), and where the
run started against where it ended.
"""

from __future__ import annotations

import time

from cardagents.evaluation.evaluate import duplicate
from cardagents.evaluation.progress import Progress
from cardagents.players.random import RandomAgent
from cardagents.ppo.agent import PPOAgent
from cardagents.specs import make_agent
from cardagents.training.config import CURVE_SEED_BASE, EVAL_SEED_BASE
from cardagents.training.runlog import curve_line, evaluation_line

__all__ = ["Evaluations"]


class Evaluations:
    """The run's evaluations (a base of ``cardagents.training.trainer.Trainer``, whose
    ``cfg``, ``variants``, ``net``, ``make_net``, ``compute``, ``heuristic``, ``evaluator``,
    ``run``, ``timing``, ``starts``, ``samples``, ``imitated`` and ``log`` they use)."""

    _curve_agent = None

    def curve_agent(self):
        """Whom the learning curve plays: the config's ``curve_opponent`` (the run's heuristic
        for ``heuristic``; any other spec made once, as ``python -m cardagents evaluate``
        makes it)."""
        spec = self.cfg.curve_opponent
        if spec == "heuristic":
            return self.heuristic
        if self._curve_agent is None:
            self._curve_agent = make_agent(spec, self.cfg.game, self.cfg.seed)
        return self._curve_agent

    def playing_agent(self) -> "PPOAgent":
        """The greedy policy as it stands, for evaluations: a CPU network of its own (training
        goes on changing the learner's), acting in the run's precision."""
        net = self.make_net()
        net.load_state_dict({k: v.detach().cpu() for k, v in self.net.state_dict().items()})
        return PPOAgent(self.cfg.game, net, greedy=True, precision=self.compute.precision)

    def versus(self, opponent, deals: int, seed: int, label: str | None = None,
               phase: str | None = None):
        """Duplicate evaluations of the greedy policy as it stands against ``opponent``,
        ``deals`` pairs from seed ``seed`` under each option set of the run: yields (options,
        statistics) as each ends. With a ``label``, a progress line (with ``phase``, the run
        phase it updates, the option set's index appended, and the whole run's time left), and
        with workers the chunks go to Ray (the rollout actors are gone by the final
        evaluations): the same result."""
        agent = self.playing_agent()
        for i, (options, game) in enumerate(self.variants):
            run = {} if phase is None else dict(run=self.run, phase=f"{phase} {i}")
            more = {} if label is None else dict(
                progress=Progress(2 * deals, label + (f" {options}" if options else ""),
                                  "games", **run),
                workers=self.cfg.workers, address=self.cfg.ray_address)
            yield options, duplicate(game, agent, opponent, deals, seed=seed, **more)

    def curve_point(self) -> None:
        """A learning-curve evaluation: ``curve_deals`` pairs against ``curve_opponent`` (the
        heuristic by default) under each
        option set, on seeds apart from the final evaluation's. With Ray workers they are Ray
        tasks that run while training goes on (``curve_results`` logs them when they finish);
        else they are played here, and their seconds count as evaluation."""
        began, deals, seed = time.perf_counter(), self.cfg.curve_deals, \
            CURVE_SEED_BASE + self.cfg.seed
        if self.evaluator is not None:
            agent = self.playing_agent()
            for options, game in self.variants:
                self.evaluator.submit((self.samples, options), game, agent, self.curve_agent(),
                                      deals, seed=seed)
        else:
            for options, stats in self.versus(self.curve_agent(), deals, seed):
                self._curve_record(self.samples, options, stats)
        if self.timing:
            self.timing["eval"] += time.perf_counter() - began

    def curve_results(self, wait: bool = False) -> None:
        """Log the curve evaluations that Ray finished (all of them, waiting, with ``wait``)."""
        for (samples, options), stats in self.evaluator.results(wait) if self.evaluator else ():
            self._curve_record(samples, options, stats)

    def _curve_record(self, samples: int, options: dict, stats: dict) -> None:
        opponent = self.cfg.curve_opponent
        self.log("curve", step=samples, group=self._group(options),
                 line=curve_line(samples, options, self.cfg.curve_deals, stats, opponent),
                 at_samples=samples, options=options, deals=self.cfg.curve_deals,
                 **({} if opponent == "heuristic" else {"opponent": opponent}),
                 **{k: stats[k] for k in ("win_rate", "win_rate_ci95", "mean_payoff_per_game",
                                          "mean_payoff_ci95")})

    def _group(self, options: dict, prefix: str = "") -> str:
        """The TensorBoard group of an evaluation under ``options``: ``prefix``, and the option
        set's index when the run has several."""
        if len(self.variants) == 1:
            return prefix
        index = next(i for i, (o, _) in enumerate(self.variants) if o == options)
        return f"{prefix} options {index}".strip()

    def evaluate(self, deals: int, opponent: str = "heuristic", start: bool = False) -> dict:
        """The final evaluation against ``opponent`` ("heuristic" or "random") under each set
        of training options, with a progress line; as Ray tasks with ``workers``. With
        ``start``, the same evaluation of the policy PPO starts from (``eval_start``), logged
        as phase ``start_evaluation``."""
        other = self.heuristic if opponent == "heuristic" else RandomAgent(self.cfg.game,
                                                                           self.cfg.seed)
        label = (f"start evaluation ({self.imitated:,} imitated decisions, before PPO)"
                 if start else "evaluation") + f": PPO vs {opponent}"
        results = []
        phase = "start evaluation" if start else f"evaluation vs {opponent}"
        for options, stats in self.versus(other, deals, EVAL_SEED_BASE + self.cfg.seed, label,
                                          phase if self.run is not None else None):
            results.append({"options": options, **stats})
            record = self.log("start_evaluation" if start else "evaluation",
                              group=self._group(options, f"vs {opponent}"),
                              line=evaluation_line(label, options, deals, stats),
                              opponent=opponent, options=options, deals=deals,
                              **{k: stats[k] for k in ("win_rate", "win_rate_ci95",
                                                       "mean_payoff_per_game")})
            if start:
                self.starts.append(record)
        return results[0] if len(results) == 1 else {"by_options": results}

    def start_to_end(self, end: dict) -> dict:
        """Where the run started (its ``start_evaluation`` records: this process's or, resumed,
        an earlier one's) against where it ended (``end``, the final evaluation against the
        heuristic), per option set: printed, one line each, and returned for ``result.json``
        (``evaluation_start``, ``start_to_end``); nothing without a start."""
        starts = self.starts
        ends = end.get("by_options", [end])
        if len(starts) != len(ends):
            return {}
        lines = []
        for first, last in zip(starts, ends):
            (a, b), (c, d) = first["win_rate_ci95"], last["win_rate_ci95"]
            verdict = ("better, the intervals apart" if c > b else
                       "worse, the intervals apart" if d < a else "the intervals overlap")
            options = f" {last['options']}" if last["options"] else ""
            print(f"start -> end vs heuristic{options}, {last['pairs']} duplicate deal pairs: "
                  f"win rate {first['win_rate']:.3f} ({a:.3f}..{b:.3f}) -> "
                  f"{last['win_rate']:.3f} ({c:.3f}..{d:.3f}): {verdict}", flush=True)
            lines.append({"options": last["options"], "start": first["win_rate"],
                          "start_ci95": [a, b], "end": last["win_rate"], "end_ci95": [c, d],
                          "apart": c > b or d < a, "verdict": verdict})
        begin = [{k: r[k] for k in ("options", "deals", "win_rate", "win_rate_ci95",
                                    "mean_payoff_per_game", "imitated")} for r in starts]
        return {"evaluation_start": begin[0] if len(begin) == 1 else {"by_options": begin},
                "start_to_end": lines}
