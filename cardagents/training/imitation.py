"""``train.py``'s warm start: the learner imitates a player (the heuristic) before PPO
(``Imitation``, the loop), from demonstrations of that player in self-play on all four seats of
a ``VectorGame``, each of its decisions a row -- observation, legal mask, the action taken, the
global state for a critic that reads it -- in the order played, with the final reward of the
seat that made it once its game has ended (``Demonstrator.chunk`` -> ``Demonstrations``).

Every decision of a chunk is kept, in play order: the policy learns from all of them, the value
only from those whose game ended within the chunk (``has_value``). (This is not
``cardagents.training.selfplay.Episodes``, which hands over closed episodes only, slot by slot: the
same decisions in another order and fewer of them, hence other minibatches and another warm start
for the same seed.) The games go on from chunk to chunk; a chunk's decisions whose game ends after
it keep no value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from cardagents.ppo import compute
from cardagents.ppo.losses import imitation_loss


@dataclass
class Demonstrations:
    """A chunk of decisions, one row each, in the order played."""

    obs: np.ndarray  # (n, D) float32 observations of the seat to act
    mask: np.ndarray  # (n, N) bool legal masks
    action: np.ndarray  # (n,) the actions the player took
    ret: np.ndarray  # (n,) float32 the seat's final reward (0 where has_value is False)
    has_value: np.ndarray  # (n,) bool: the decision's game ended within the chunk
    state: np.ndarray | None = None  # (n, S) float32 global states (``with_states``)

    def __len__(self) -> int:
        return len(self.action)


class Demonstrator:
    """``player`` on every seat of ``games`` (a ``VectorGame``); ``with_states`` keeps the
    global states of its decisions."""

    def __init__(self, games, player, with_states: bool = False):
        self.games, self.player, self.with_states = games, player, with_states
        # each slot's game, numbered: a decision belongs to (slot, number)
        self.number = np.zeros(len(games), dtype=np.int64)

    def chunk(self, size: int) -> Demonstrations:
        """The next ``size`` decisions (the last step's extra rows are dropped)."""
        games, n = self.games, len(self.games)
        steps: dict[str, list] = {k: [] for k in ("obs", "mask", "action", "state", "seat",
                                                  "game")}
        ended: dict[int, list] = {}  # game key -> its seats' returns
        count = 0
        while count < size:
            obs, masks, seats = games.observations(), games.masks(), games.current()
            actions = self.player.act_batch(obs, masks)
            if self.with_states:
                steps["state"].append(games.states())
            for key, value in (("obs", obs), ("mask", masks), ("action", actions),
                               ("seat", seats), ("game", self.number * n + np.arange(n))):
                steps[key].append(value)
            count += n
            for done in games.step(actions).games:
                ended[int(self.number[done.index]) * n + done.index] = done.returns
                self.number[done.index] += 1
        rows = {k: np.concatenate(v)[:size] for k, v in steps.items() if v}
        ret = np.zeros(size, dtype=np.float32)
        has_value = np.zeros(size, dtype=bool)
        for key, returns in ended.items():
            mine = rows["game"] == key
            ret[mine] = np.asarray(returns, dtype=np.float32)[rows["seat"][mine]]
            has_value |= mine
        return Demonstrations(rows["obs"], rows["mask"], rows["action"], ret, has_value,
                              rows.get("state"))


class Imitation:
    """The warm start of a run: chunks of ``player``'s self-play decisions (``Demonstrator``),
    cross-entropy on the chosen actions and value regression on each seat's final reward,
    until ``samples`` decisions are imitated. ``cfg`` gives the sizes and rates (the config's
    ``imitation_*`` fields, ``vf_coef``)."""

    def __init__(self, cfg, player):
        self.cfg, self.player = cfg, player

    def run(self, learner, games, imitated: int, clock):
        """Imitate on ``games`` (a ``VectorGame``) with ``learner`` (a
        ``cardagents.training.learner.Learner``: its network, cores, generator), from
        ``imitated`` decisions already imitated; ``clock``: the run's ``RunClock``. Yields
        after each chunk ``(imitated, line, values)``: the decisions imitated so far, the
        console line and the values of its log record."""
        cfg, net, dev = self.cfg, learner.net, learner.compute.device
        optimizer = torch.optim.Adam(net.parameters(), lr=cfg.imitation_lr)
        demonstrator = Demonstrator(games, self.player, net.critic != "local")
        first = imitated
        clock.start("imitation")
        while imitated < cfg.imitation_samples:
            learner.watch_cores()
            chunk = demonstrator.chunk(cfg.imitation_chunk)
            t_obs, t_mask, t_act, t_ret, t_has = (torch.as_tensor(a).to(dev) for a in (
                chunk.obs, chunk.mask, chunk.action, chunk.ret, chunk.has_value))
            t_state = None if chunk.state is None else torch.as_tensor(chunk.state).to(dev)

            def loss(idx):
                return imitation_loss(net, t_obs[idx], t_mask[idx], t_act[idx], t_ret[idx],
                                      t_has[idx], vf_coef=cfg.vf_coef,
                                      states=None if t_state is None else t_state[idx])

            learner.claim_cores()  # the cores that stayed free while gathering
            with compute.threads(learner.threads):
                losses = learner.fit(optimizer, len(chunk), cfg.imitation_epochs, loss)
                with torch.no_grad(), learner.compute.autocast():
                    logits, _ = net(t_obs[:4096], t_mask[:4096])
                    agreement = (logits.argmax(-1) == t_act[:4096]).float().mean().item()
            learner.sync_actor()
            imitated += len(chunk)
            policy_loss, value_loss = np.mean(losses["policy_loss"]), np.mean(losses["value_loss"])
            clock.update("imitation", imitated - first)
            line = (f"imitation {imitated:,}/{cfg.imitation_samples:,} decisions | policy "
                    f"loss {policy_loss:.3f} | value loss {value_loss:.3f} | agrees with the "
                    f"heuristic on {agreement:.1%} | {clock.text()}")
            yield imitated, line, {"agreement": round(agreement, 4),
                                   "policy_loss": round(float(policy_loss), 4)}
