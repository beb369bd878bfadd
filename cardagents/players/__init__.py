"""Players: the agent interface (``base``), the random player, named views of an observation,
whole games played in lockstep by seated agents (``lockstep``), and each game's heuristic
(``heuristics``). numpy only; the lowest room of the package (it imports no other)."""
