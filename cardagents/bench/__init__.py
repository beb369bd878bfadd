"""Benchmarks: the batched engine's speed with each kind of player (``players``,
``python -m cardagents bench``)."""
