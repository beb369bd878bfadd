"""How far one PPO iteration moves the policy at the end of each stage of the shipped recipes
(issue 20: no stage may end with approx_kl below 1e-4, as the earlier recipes did at lr 0).

From the shipped agent (``checkpoints/<game>_ppo.pt``, the end of a full recipe), each stage's
settings are trained at its final rate (its ``lr_floor``) for ``ITERATIONS`` PPO iterations,
imitation skipped; the approx_kl and clip fraction of the last ``LAST`` iterations are printed
(the first ones carry Adam's fresh state, whose first steps are larger):

    python docs/results/lr_floor_kl.py [dagong|dabang ...]
"""

from __future__ import annotations

import os
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
ITERATIONS, LAST = 8, 4


def main(games) -> None:
    import dataclasses

    import train
    from cardagents.ppo.agent import PPOAgent
    from cardagents.training import schedules
    from cardagents.training.config import stage_config

    for game in games:
        config = os.path.join(ROOT, "configs", f"{game}.yaml")
        base = train.load_config(config, [])
        shipped = PPOAgent.load(os.path.join(ROOT, "checkpoints", f"{game}_ppo.pt"))
        for index in range(len(base.stages)):
            stage = stage_config(base, index)
            floor = schedules.floor_of(stage.lr, stage.lr_floor)
            with tempfile.TemporaryDirectory() as run_dir:
                cfg = train.load_config(config, [
                    f"run_dir={run_dir}", "imitation_samples=0", "eval_deals=0", "curve_every=0",
                    "checkpoint_every=1000", "log_every=1000"])
                cfg = dataclasses.replace(
                    stage_config(cfg, index), lr=floor, lr_schedule="constant",
                    lr_floor=None, total_samples=ITERATIONS * cfg.rollout_samples)
                trainer = train.Trainer(cfg)
                trainer.learner.net.load_state_dict(shipped.net.state_dict())
                trainer.learner.sync_actor()
                kl, clip = [], []
                for _ in range(ITERATIONS):
                    stats = trainer.update(trainer.collect())
                    kl.append(stats["approx_kl"])
                    clip.append(stats["clip_fraction"])
                trainer.runlog.close()
            print(f"{game} stage {index + 1} at its floor lr {floor:g}: approx_kl "
                  f"{np.mean(kl[-LAST:]):.2e} (last {LAST} of {ITERATIONS} iterations: "
                  f"{', '.join(f'{k:.1e}' for k in kl[-LAST:])}), clip fraction "
                  f"{np.mean(clip[-LAST:]):.4f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["dagong", "dabang"])
