"""Dabang's decision phases, one module each with the phase's legal actions beside its apply
code, and the dispatch table ``RULES`` from each decision ``Phase`` to them.

- ``deal``: the deal and trump declarations (``declare``), then the reveal of dealer and trump.
- ``tribute``: tribute (喝血) and its return (``return``).
- ``burial``: picking up the kitty or 干锅, burying (``bury``), 扣王 (``koujoker``) and taking
  back (``takeback``).
- ``trick``: trick play (``play``).

Each module keeps its part of the hand's state in a small dataclass (``Deal``, ``Tribute``,
``Kitty``, ``Trick``: ``state.deal``, ``state.tribute``, ``state.kitty``, ``state.trick``) and
its forced steps (``deal.run``, ``tribute.pay``, ``burial.take_up``, ``trick.start`` ...), which
``DabangState._advance`` strings together between decisions.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from cardenv.dabang.phase import Phase
from cardenv.dabang.phases import burial, deal, trick, tribute


class PhaseRules(NamedTuple):
    """A decision phase's functions of the state."""

    legal: Callable[..., list[int]]  # legal(state): the legal action ids, ascending
    apply: Callable[..., None]  # apply(state, action): make a legal move (no forced steps)


RULES: dict[Phase, PhaseRules] = {
    Phase.DECLARE: PhaseRules(deal.legal, deal.apply),
    Phase.RETURN: PhaseRules(tribute.legal, tribute.apply),
    Phase.BURY: PhaseRules(burial.legal_bury, burial.apply_bury),
    Phase.KOUJOKER: PhaseRules(burial.legal_koujoker, burial.apply_koujoker),
    Phase.TAKEBACK: PhaseRules(burial.legal_takeback, burial.apply_takeback),
    Phase.PLAY: PhaseRules(trick.legal, trick.apply),
}
