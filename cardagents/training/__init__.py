"""A training run (``trainer``, the ``Trainer`` that ``train.py`` starts) and the parts it joins:
the learner (``learner``: network, optimizer, compute, updates), self-play collection
(``selfplay``, ``collector``; ``remote`` in Ray actors), the warm start (``imitation``), the
weights a run starts from (``initial_weights``), distillation from search (``distill``), its
evaluations (``run_evaluations``), periodic work (``hooks``), its config (``config``) and
learning-rate schedules (``schedules``), the rewards (``rewards``: shaping and the Dabang match
value), checkpoints (``checkpoints``), the run's log (``runlog``) and learning curves drawn from
it (``curves``)."""
