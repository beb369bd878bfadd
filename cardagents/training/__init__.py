"""A training run (``trainer``, the ``Trainer`` that ``train.py`` starts) and what it runs on: its
config (``config``) and learning-rate schedules (``schedules``), self-play collection (``selfplay``,
``collector``; ``remote`` in Ray actors), the warm start's demonstrations (``imitation``),
distillation from search (``distill``), the rewards (``rewards``: shaping and the Dabang match
value), checkpoints (``checkpoints``), the run's log (``runlog``) and learning curves drawn from it
(``curves``)."""
