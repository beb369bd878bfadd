"""The batched rollout engine: masks/observations equal the one-state ones, and batched games
equal the same games played one by one through the AEC env."""

import numpy as np
import pytest

from cardagents.players.base import Agent
from cardagents.players.lockstep import play_batched
from cardagents.players.random import RandomAgent
from cardenv.vector import VectorGame


class Lowest(Agent):
    """Deterministic: the lowest legal id (or the highest)."""

    def __init__(self, game, highest=False):
        self.game, self.highest = game, highest

    def act(self, observation):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[-1] if self.highest else legal[0])


CASES = [("dagong", {}), ("dagong", {"hands": 2}), ("dabang", {}),
         ("dabang", {"dealer": "random", "levels": "random", "tribute_return": "dealer_choice"})]


@pytest.mark.parametrize("game, options", CASES)
def test_batched_masks_and_observations_equal_one_state(game, options):
    games = VectorGame(game, 24, seed=3, options=options)
    agent = RandomAgent(game, 0)
    ended = 0
    for _ in range(250):
        # the states' own masks first: masks() hands the batched ones to the states
        expected = [s.legal_mask() for s in games.slots]
        masks, obs = games.masks(), games.observations()
        for i, s in enumerate(games.slots):
            assert np.array_equal(masks[i], expected[i])
            assert np.array_equal(obs[i], s.observation(s.current))
        ended += len(games.step(agent.act_batch(obs, masks)).games)
    assert ended


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_states_still_refuse_illegal_actions_after_batched_masks(game):
    from cardenv.core.errors import IllegalActionError

    # the per-state path: masks() hands each state its row (use_legal)
    games = VectorGame(game, 8, seed=5, batched=False)
    agent, refused = RandomAgent(game, 0), 0
    for _ in range(300):
        masks = games.masks()
        for i, s in enumerate(games.slots):
            illegal = np.flatnonzero(~masks[i])
            if illegal.size and s.phase == "play":
                masks[i, illegal[-1]] = True  # a caller scribbling on its masks changes nothing
                history = list(s.history)
                with pytest.raises(IllegalActionError):
                    s.apply(int(illegal[-1]))
                assert s.history == history
                refused += 1
        masks = games.masks()
        games.step(agent.act_batch(games.observations(), masks))
    assert refused > 100


@pytest.mark.parametrize("game", ["dagong", "dabang"])
@pytest.mark.parametrize("batched", [True, False])
def test_scribbling_on_the_masks_lets_no_illegal_action_through(game, batched):
    games = VectorGame(game, 40, seed=5, batched=batched)  # (40: the batched engines' size)
    agent, refused = RandomAgent(game, 0), 0
    for step in range(300):
        masks = games.masks()
        actions = agent.act_batch(games.observations(), masks)
        if step % 10 == 0:
            slot = step % 8
            illegal = int(np.flatnonzero(~masks[slot])[-1])
            masks[slot, illegal] = True  # the caller's copy: the engine's check is unmoved
            bad = actions.copy()
            bad[slot] = illegal
            with pytest.raises(ValueError, match=f"slot {slot} .*illegal"):
                games.step(bad)
            refused += 1
        games.step(actions)
    assert refused == 30


@pytest.mark.parametrize("game, options", CASES)
def test_batched_games_equal_aec_games(game, options):
    import importlib

    module = importlib.import_module(f"cardenv.{game}_v0")
    low, high = Lowest(game), Lowest(game, highest=True)
    seeds = list(range(12))
    batched = play_batched(game, lambda j: [low, high, high, low], seeds, options, batch=5)
    for seed, done in zip(seeds, batched):
        env = module.raw_env(**options)
        env.reset(seed=seed)
        agents = {"player_0": low, "player_1": high, "player_2": high, "player_3": low}
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[name] += reward
            env.step(None if term or trunc else agents[name].act(obs))
        assert done.seed == seed
        assert [totals[a] for a in env.possible_agents] == list(done.returns)
        assert [r.to_dict() for r in env.game_state.results] == [r.to_dict() for r in done.results]


def test_a_list_of_options_plays_each_in_its_slots():
    mix = [{}, {"dealer": "random", "levels": "random"}]
    games = VectorGame("dabang", 4, seed=0, options=mix)
    assert [s.first_hand for s in games.slots] == [True, False, True, False]
    agent = RandomAgent("dabang", 0)
    for _ in range(400):
        masks = games.masks()
        for i, s in enumerate(games.slots):
            assert np.array_equal(masks[i], s.legal_mask())
        games.step(agent.act_batch(games.observations(), masks))
    assert [s.first_hand for s in games.slots] == [True, False, True, False]
