"""Training runs for the tests, as ``train.py`` runs them but without its command line (which
``tests/test_train.py`` tests): ``configs/smoke.yaml`` (or ``config``) with ``key=value``
overrides, run by ``cardagents.training.trainer.Trainer`` (``smoke_run``), and a run resumed
from its checkpoint with overrides over its saved config (``resume_run``). Each returns what
the run returns (what ``train.py`` writes to ``result.json``)."""

from __future__ import annotations

from cardagents.training.checkpoints import read_training
from cardagents.training.config import load_config
from cardagents.training.trainer import Trainer
from tests import ROOT

SMOKE = str(ROOT / "configs" / "smoke.yaml")


def smoke_run(tmp_path, name: str, *overrides: str, config: str | None = SMOKE) -> dict:
    """A new run ``run_dir=tmp_path run_name=name`` of ``config`` with ``overrides``."""
    cfg = load_config(config, [f"run_dir={tmp_path}", f"run_name={name}", *overrides])
    return Trainer(cfg).train()


def resume_run(checkpoint, *overrides: str, config: str | None = None) -> dict:
    """The run of the training checkpoint ``checkpoint`` resumed: its saved config overlaid
    with ``config`` and ``overrides``, as ``train.py --resume`` reads them."""
    saved = read_training(str(checkpoint))
    cfg = load_config(config, list(overrides), base=saved["config"])
    return Trainer(cfg, saved).train()
