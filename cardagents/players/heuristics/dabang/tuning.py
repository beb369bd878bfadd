"""The Dabang heuristic's tuning constants, in one copy: ``DabangHeuristic``
(``cardagents.players.heuristics.dabang.player``, the per-row player) and its numpy kernel
(``cardagents.players.heuristics.dabang.batch``) both import them from here. They cannot live in the
per-row module: it imports the kernel, and the modules of ``agents`` import no cycle
(``tests/test_layering.py``)."""

LAST_TRICK_BONUS = 60      # value of winning the hand's last trick (保底 / 抠底)
BREAK = 4.0                # cost per card of breaking a group of identical cards
POINT_WEIGHT = 3.0         # cost (dump) or gain (feed) per point
VOID_RISK = 0.2            # an opponent void with this probability may trump a side lead
RANK_A = 11                # the ace's rank (0 = 3 .. 12 = 2): an ace costs more to give away
