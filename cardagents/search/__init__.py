"""Search: PIMC over sampled hidden worlds (``pimc``, ``PIMCAgent``) and the leaf value of its
depth-limited rollouts (``leaf``)."""
