"""The evaluations of a training run (``RunEvaluations``, an object its ``Trainer`` holds):
learning-curve points during training (in this process, or as Ray tasks beside it), the final
duplicate evaluations against the random player and the heuristic, the evaluation of the policy
PPO starts from (``eval_start``), and where the run started against where it ended. What they
evaluate (the learner's greedy policy as it stands), at how many samples and imitated
decisions, comes with each call; the run's log takes their records.
"""

from __future__ import annotations

from cardagents.evaluation.evaluate import duplicate
from cardagents.evaluation.progress import Progress
from cardagents.players.random import RandomAgent
from cardagents.specs import make_agent
from cardagents.training.config import CURVE_SEED_BASE, EVAL_SEED_BASE, Config
from cardagents.training.runlog import curve_line, evaluation_line

__all__ = ["RunEvaluations"]


class RunEvaluations:
    """The evaluations of the run ``cfg`` (its game, seed, deals, curve opponent, workers):

    Args:
        variants: the ``(options, made game)`` of each option set the run trains under.
        heuristic: the run's heuristic (``None`` if it has none).
        log: the run's log, ``log(phase, step=, group=, line=, **values) -> record``
            (``Trainer.log``).
        starts: the ``start_evaluation`` records of a resumed run (``start_to_end`` reads
            them; this process's are added as they are made).

    With Ray workers and curve points, the points are Ray tasks that run beside training
    (``evaluator``, an ``AsyncEvaluator``; ``None``: they are played here).
    """

    def __init__(self, cfg: Config, variants: list, heuristic, log, starts: list | None = None):
        self.cfg, self.variants, self.heuristic, self.log = cfg, variants, heuristic, log
        self.evaluator = None
        if cfg.workers and cfg.curve_every:  # Ray only with workers
            from cardagents.evaluation.remote import AsyncEvaluator
            self.evaluator = AsyncEvaluator()
        self.starts = list(starts or [])
        self._curve_agent = None

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

    def versus(self, agent, opponent, deals: int, seed: int, label: str | None = None,
               clock=None, phase: str | None = None):
        """Duplicate evaluations of ``agent`` (the greedy policy as it stands) against
        ``opponent``, ``deals`` pairs from seed ``seed`` under each option set of the run:
        yields (options, statistics) as each ends. With a ``label``, a progress line (with
        ``phase``, the phase of the run's ``RunClock`` ``clock`` it updates, the option set's
        index appended, and the whole run's time left), and with workers the chunks go to Ray
        (the rollout actors are gone by the final evaluations): the same result."""
        for i, (options, game) in enumerate(self.variants):
            run = {} if phase is None else dict(run=clock, phase=f"{phase} {i}")
            more = {} if label is None else dict(
                progress=Progress(2 * deals, label + (f" {options}" if options else ""),
                                  "games", **run),
                workers=self.cfg.workers, address=self.cfg.ray_address)
            yield options, duplicate(game, agent, opponent, deals, seed=seed, **more)

    def curve_point(self, agent, samples: int) -> None:
        """A learning-curve evaluation of ``agent`` (the greedy policy after ``samples`` PPO
        samples): ``curve_deals`` pairs against ``curve_opponent`` (the heuristic by default)
        under each option set, on seeds apart from the final evaluation's. With Ray workers
        they are Ray tasks that run while training goes on (``curve_results`` logs them when
        they finish); else they are played here."""
        deals, seed = self.cfg.curve_deals, CURVE_SEED_BASE + self.cfg.seed
        if self.evaluator is not None:
            for options, game in self.variants:
                self.evaluator.submit((samples, options), game, agent, self.curve_agent(),
                                      deals, seed=seed)
        else:
            for options, stats in self.versus(agent, self.curve_agent(), deals, seed):
                self._curve_record(samples, options, stats)

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

    def evaluate(self, agent, deals: int, opponent: str = "heuristic", start: bool = False,
                 imitated: int = 0, clock=None) -> dict:
        """The final evaluation of ``agent`` (the greedy policy as it stands) against
        ``opponent`` ("heuristic" or "random") under each set of training options, with a
        progress line (updating the phase of the run's ``RunClock`` ``clock``, if given); as
        Ray tasks with ``workers``. With ``start``, the same evaluation of the policy PPO
        starts from (``eval_start``, after ``imitated`` imitated decisions), logged as phase
        ``start_evaluation``."""
        other = self.heuristic if opponent == "heuristic" else RandomAgent(self.cfg.game,
                                                                           self.cfg.seed)
        label = (f"start evaluation ({imitated:,} imitated decisions, before PPO)"
                 if start else "evaluation") + f": PPO vs {opponent}"
        results = []
        phase = "start evaluation" if start else f"evaluation vs {opponent}"
        for options, stats in self.versus(agent, other, deals, EVAL_SEED_BASE + self.cfg.seed,
                                          label, clock, phase if clock is not None else None):
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
