"""The Huludao Dabang heuristic: the per-row player (``player``), its numpy kernel for whole
batches (``batch``) and the tuning constants both read (``tuning``)."""
