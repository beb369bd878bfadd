"""The learner of a training run (``Learner``): the network PPO trains, the copy collection acts
with, their maker and the optimizer, where and how they compute (``cardagents.ppo.compute``),
the cores the update may take, and the updates themselves: PPO epochs over a collected batch
(with a distillation term where a stage distils), a global critic's values of a batch, and the
greedy policy as it stands for evaluations. ``cardagents.training.trainer.Trainer`` holds one;
the imitation (``cardagents.training.imitation.Imitation``) fits its network too.
"""

from __future__ import annotations

import numpy as np
import torch

from cardagents.ppo import compute
from cardagents.ppo.agent import PPOAgent
from cardagents.ppo.losses import fit, ppo_loss
from cardagents.ppo.net import make_net
from cardagents.training.config import Config
from cardagents.training.selfplay import Batch

__all__ = ["Learner"]


class Learner:
    """The network and optimizer of the run ``cfg`` on ``where`` (a resolved
    ``cardagents.ppo.compute.Compute``). With ``init`` (the config's ``init`` checkpoint,
    ``cardagents.training.initial_weights.InitialWeights``) the network reads the observation
    and global-state sizes that checkpoint was trained on (an earlier layout's prefixes), and
    with ``load`` (a new run) starts from its weights. ``generator`` (the run's torch generator
    of minibatches and sampled actions) is set by the run once it knows where it stands."""

    def __init__(self, cfg: Config, where: compute.Compute, init=None, load: bool = True):
        self.cfg, self.compute = cfg, where
        obs_size, state_size = init.sizes(cfg.observation_size, cfg.critic) if init is not None \
            else (cfg.observation_size, None)
        self.make_net = lambda: make_net(cfg.game, cfg.hidden, cfg.critic, head=cfg.head,
                                         obs_size=obs_size, state_size=state_size)
        self.net = self.make_net().to(where.device)
        # the network collection acts with, on the CPU: the learner itself when it is there too,
        # else a copy refreshed after every update
        self.actor = self.net if where.device.type == "cpu" else self.make_net()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=1e-5)
        if init is not None and load:
            init.load_into(self.net, cfg.hidden, cfg.critic, where.device)
        self.generator: torch.Generator | None = None
        # torch_threads auto in one process: the update takes the cores that stayed free while
        # collecting (none that another process holds); Ray actors idle during the update, so
        # with workers it takes them all
        self.free = compute.FreeCores(where.threads) \
            if cfg.torch_threads == "auto" and not cfg.workers else None
        self.threads = where.threads  # the update's threads (the last count of free cores)

    def sync_actor(self) -> None:
        """Copy the learner's weights to the network collection acts with (nothing to do when
        they are one network, on the CPU)."""
        if self.actor is not self.net:
            self.actor.load_state_dict({k: v.detach().cpu() for k, v in
                                        self.net.state_dict().items()})

    def watch_cores(self) -> None:
        """Collection starts: from now on, see which cores stay free (``compute.FreeCores``)."""
        if self.free is not None:
            self.free.start()

    def claim_cores(self) -> None:
        """Collection is idle: the update takes the cores that stayed free meanwhile."""
        if self.free is not None:
            self.threads = self.free.count()

    def set_lr(self, lr: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def fit(self, optimizer, rows: int, epochs: int, loss) -> dict:
        """``epochs`` over ``rows`` rows in minibatches of the run's size, ``loss(idx)`` each
        (``cardagents.ppo.losses.fit``), on the free cores: the losses by name."""
        with compute.threads(self.threads):
            return fit(self.net, optimizer, rows, epochs=epochs, minibatch=self.cfg.minibatch,
                       generator=self.generator, max_grad_norm=self.cfg.max_grad_norm,
                       loss_fn=loss, precision=self.compute.precision,
                       device_type=self.compute.device.type)

    def complete(self, batch: Batch) -> Batch:
        """A batch collected with its values to come (a global critic, see
        ``cardagents.training.selfplay.SelfPlay``'s ``values_later``) with the critic's values of
        all its rows, and the advantages and returns they give; any other batch as it is."""
        if batch.adv is not None:
            return batch
        dev = self.compute.device
        with compute.threads(self.threads), self.compute.autocast():
            values = self.net.values(torch.as_tensor(batch.state).to(dev)).cpu().numpy()
        return batch.with_values(values, self.cfg.gamma, self.cfg.gae_lambda)

    def update(self, batch: Batch, ent_coef: float, extra=None) -> dict:
        """PPO epochs over a collected batch (completed first, see ``complete``) with entropy
        coefficient ``ent_coef``; the mean losses and statistics. ``extra()``, if given, is a
        term each minibatch's loss adds (a distillation stage's: ``(loss, parts)``)."""
        cfg = self.cfg
        batch = self.complete(batch)
        t = batch.to(self.compute.device)

        def loss(idx):
            adv = t.adv[idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(idx) > 1 else adv
            total, parts = ppo_loss(self.net, t.obs[idx], t.mask[idx], t.action[idx],
                                    t.logp[idx], adv, t.ret[idx], clip=cfg.clip,
                                    vf_coef=cfg.vf_coef, ent_coef=ent_coef,
                                    states=None if t.state is None else t.state[idx])
            if extra is None:
                return total, parts
            more, more_parts = extra()
            return total + more, {**parts, **more_parts}

        stats = self.fit(self.optimizer, len(t.action), cfg.epochs, loss)
        self.sync_actor()
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        ret, val = batch.ret, batch.value
        out["explained_variance"] = float(1 - np.var(ret - val) / np.var(ret)) \
            if np.var(ret) > 0 else 0.0
        return out

    def snapshot(self) -> dict:
        """The network's weights, copied to the CPU (a frozen opponent of the pool)."""
        return {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()}

    def playing_agent(self) -> PPOAgent:
        """The greedy policy as it stands, for evaluations: a CPU network of its own (training
        goes on changing the learner's), acting in the run's precision."""
        net = self.make_net()
        net.load_state_dict({k: v.detach().cpu() for k, v in self.net.state_dict().items()})
        return PPOAgent(self.cfg.game, net, greedy=True, precision=self.compute.precision)
