"""What ``cardagents.evaluation.compare`` knows of each game: how its decisions are labelled
(phases, kinds of hand) and how its hands are told apart (kinds of hand, the role of a team, the
points a team conceded). The one module of ``evaluation`` that names games; a game without an
entry here gets one kind of decision and one kind of hand.
"""

from __future__ import annotations

from cardagents.players.observation import ObsView

TRIBUTE, NO_TRIBUTE = "tribute hand", "no tribute"
FIRST, LATER, TRIBUTE_HAND = "first hand", "later hand, no tribute", "tribute hand"
DEFENDS, ATTACKS, DIFFER = "A defends", "A attacks", "roles differ"
DEALS, AGAINST = "A's team deals", "A's team against the dealer"
SOLO, NO_SOLO = "硬牌 (solo)", "no 硬牌"
BOTH = "both"
KINDS = [FIRST, LATER, TRIBUTE_HAND, NO_SOLO, SOLO]  # kinds of hand, in table order
ROLES = [DEFENDS, ATTACKS, DEALS, AGAINST]  # roles of A's team, in table order


# --- kinds of decision ----------------------------------------------------------------------

class Decisions:
    """How decisions of a game are labelled: ``labels(obs, states)``, one ``(phase, hand)`` per
    row; ``extra(labels, a, b)``, further ``(row, (label, agreed))`` tallies (a coarser choice
    of that row, A's action ``a[row]`` against B's ``b[row]``); ``order``, the labels in table
    order. The generic game has one kind of decision."""

    order: list = [("all", "")]

    def __init__(self, game: str):
        self.view = ObsView(game)

    def labels(self, obs, states) -> list:
        return [("all", "")] * len(obs)

    def extra(self, labels, a, b) -> list:
        return []


class DabangDecisions(Decisions):
    """The observation's phase, play split into leads and follows, each in or out of a tribute
    hand (read from the state's public ``blood_due``: the observation's ``tribute`` piece is
    0 until the tribute is paid, after the declarations)."""

    def __init__(self, game: str):
        super().__init__(game)
        from cardenv.dabang.observation import PHASES  # the phase piece's one-hot order
        self.phases = [("play: lead", "play: follow") if p == "play" else (p,) for p in PHASES]
        self.names = [p for group in self.phases for p in group]
        self.play = PHASES.index("play")
        self.order = [(p, h) for p in self.names for h in (NO_TRIBUTE, TRIBUTE)]

    def labels(self, obs, states) -> list:
        phase = self.view.piece(obs, "phase").argmax(axis=1)
        lead = self.view.piece(obs, "led_count")[:, 0] == 0
        out = []
        for i, state in enumerate(states):
            p = int(phase[i])
            name = self.phases[p][0 if lead[i] else 1] if p == self.play else self.phases[p][0]
            out.append((name, TRIBUTE if state.blood_due > 0 else NO_TRIBUTE))
        return out


class DagongDecisions(Decisions):
    """硬牌 (``solo_phase``), lead (no play to beat), answer; and, for answers, whether B would
    pass where A passed and play where A played."""

    order = [("硬牌 (solo_phase)", ""), ("lead", ""), ("answer", ""),
             ("answer: pass or play", "")]

    def __init__(self, game: str):
        super().__init__(game)
        from cardenv.dagong.catalogue import PASS  # the pass action's public id
        self.pass_id = PASS

    def labels(self, obs, states) -> list:
        solo = self.view.piece(obs, "solo_phase")[:, 0] > 0
        lead = ~self.view.piece(obs, "standing_cards").any(axis=1)
        return [self.order[0] if s else self.order[1] if ld else self.order[2]
                for s, ld in zip(solo, lead)]

    def extra(self, labels, a, b) -> list:
        return [(i, (self.order[3], (a[i] == self.pass_id) == (b[i] == self.pass_id)))
                for i, label in enumerate(labels) if label == self.order[2]]


DECISIONS = {"dabang": DabangDecisions, "dagong": DagongDecisions}


def decisions_for(game: str) -> Decisions:
    """How ``game``'s decisions are labelled."""
    return DECISIONS.get(game, Decisions)(game)


# --- kinds of hand ----------------------------------------------------------------------------

def dabang_kind(dealt, index: int, owed: int) -> str:
    """A Dabang hand's kind: ``owed`` is the blood its dealer was owed."""
    if index == 0 and dealt.first_hand:
        return FIRST
    return TRIBUTE_HAND if owed > 0 else LATER


def hand_role(game: str, result, seats) -> str:
    if game == "dabang":
        return DEFENDS if result.dealer % 2 == seats[0] % 2 else ATTACKS
    return DEALS if result.dealer in seats else AGAINST


def seat_points(game: str, result, seats) -> float | None:
    """The attackers' score from the seats' side: +S when they attacked, -S when they defended
    (Dabang; ``None`` for a game without one)."""
    if game != "dabang":
        return None
    return result.score if result.attackers == seats[0] % 2 else -result.score


def deal_kind(game: str, dealt, games) -> str:
    """The kind of a single-hand deal: Dabang's from the deal (first hand, blood owed), Dagong's
    from its games (a 硬牌 in any of them)."""
    if game == "dabang":
        return dabang_kind(dealt, 0, dealt.blood_due)
    if game == "dagong":
        return SOLO if any(g.results[0].solo is not None for g in games) else NO_SOLO
    return "all hands"


def match_hand_kinds(game: str, dealt, results) -> list:
    """The kind of each hand of a match (``results``, in order) dealt as ``dealt``: Dabang's
    from the blood each hand owes the next dealer, Dagong's from its 硬牌."""
    kinds, owed = [], dealt.blood_due if game == "dabang" else 0
    for i, result in enumerate(results):
        kinds.append(dabang_kind(dealt, i, owed) if game == "dabang" else
                     SOLO if getattr(result, "solo", None) is not None else NO_SOLO)
        owed = getattr(result, "blood", 0)  # what this hand owes the next dealer
    return kinds
