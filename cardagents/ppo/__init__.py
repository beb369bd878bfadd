"""PPO: the policy/value network (``net``), its losses and fitting loop (``losses``), its
checkpoints and the agent that plays from one (``agent``; ``loading`` reads one without
importing torch until asked), the learner's device, precision and threads (``compute``) and the
frozen snapshots self-play seats as opponents (``frozen``). Everything here but ``loading``
needs torch (the ``[train]`` extra)."""
