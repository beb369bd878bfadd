"""The phase vocabulary and its dispatch: one ``Phase`` for the engine and the observation, and
each decision phase's legal actions and apply function side by side in one phase module."""

import numpy as np

from cardenv.dabang import DabangGame
from cardenv.dabang.observation import PHASES
from cardenv.dabang.phase import DECISIONS, Phase
from cardenv.dabang.phases import RULES


def test_every_decision_phase_has_legal_and_apply():
    assert set(RULES) == set(DECISIONS) and Phase.OVER not in RULES
    for phase, rules in RULES.items():
        assert callable(rules.legal) and callable(rules.apply), phase
        assert rules.legal.__module__ == rules.apply.__module__, phase  # side by side


def test_observation_phases_come_from_the_vocabulary():
    assert PHASES == ("declare", "return", "bury", "koujoker", "takeback", "play")
    assert PHASES == tuple(DECISIONS) and set(Phase) == {*DECISIONS, Phase.OVER}


def test_state_phase_is_the_vocabulary_and_compares_as_its_string():
    game = DabangGame(episode="match", max_hands=2, tribute_return="dealer_choice")
    rng = np.random.default_rng(4)
    seen = set()
    for seed in range(6):
        state = game.new_state(seed)
        while True:
            assert isinstance(state.phase, Phase) and state.phase == state.phase.value
            assert f"{state.phase}" == state.phase.value
            seen.add(state.phase.value)
            if state.is_over:
                break
            one_hot = state.v["phase"]
            assert one_hot.sum() == 1 and PHASES[int(np.argmax(one_hot))] == state.phase
            legal = state.legal_actions()
            assert legal == RULES[state.phase].legal(state)
            state.apply(legal[rng.integers(len(legal))])
        assert state.v["phase"].sum() == 0
    assert {"declare", "bury", "play", "over"} <= seen
