"""Distillation from search (``cardagents.training.distill``): the search's results API, the choice
of states to label, the targets and the loss, and a ``kind: distill`` stage of a training run end
to end."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

from cardagents.players.heuristics import heuristic_for
from cardagents.players.observation import ObsView
from cardagents.ppo.agent import PPOAgent
from cardagents.ppo.net import make_net
from cardagents.search.parse import make_search
from cardagents.search.pimc import SearchResult, choose
from cardagents.training.config import load_config, stage_config
from cardagents.training.distill import (Candidates, Gatherer, distill_loss, focus_of, select,
                                         soft_targets, uncertainty)
from cardagents.training.trainer import Trainer
from cardenv.core.errors import ConfigError
from cardenv.games import make_game
from tests import ROOT
from tests.cardagents.search.test_pimc import positions
from tests.runs import SMOKE, resume_run, smoke_run

LEAF8 = "pimc:worlds=4,depth=8,critic=checkpoints/dabang_leaf.npz"
# act_states of these searches on positions(make_game(game), 12, seed=3, heuristic) before
# search() existed (cardagents/search/pimc.py at 6864ef6; Dabang's with the sampler of 31b8f5b,
# whose proposal draws other worlds for a seed at some positions): the API must not change a
# decision. Redrawn at issue 35: a search seeds each position's worlds from the crc of its
# observation, and the counting pieces appended to both observations changed those bytes (the worlds
# for a given generator are the same as before; the decisions came out by running act_states then)
BEFORE = {
    ("dagong", "pimc:worlds=4"): [1, 886, 543, 0, 84, 404, 0, 0, 454, 124, 0, 450],
    ("dabang", LEAF8): [0, 67, 67, 0, 190, 194, 170, 242, 306, 144, 242, 246],
}


def heuristic_positions(game, count=12):
    return positions(make_game(game), count, seed=3, policy=heuristic_for(game, 0))


# --- the search's results ------------------------------------------------------------------

@pytest.mark.parametrize("game, spec", list(BEFORE))
def test_search_results_play_what_act_states_played_before(game, spec):
    """The same seeded positions, the same actions as before the results API, through both
    act_states and search; each result's candidates start with the rollout policy's choice and
    hold the action, and every candidate has a mean over the worlds played."""
    cwd = os.getcwd()
    os.chdir(ROOT)  # the leaf file's path is relative to the repository
    try:
        states = heuristic_positions(game)
        acted = make_search(spec, game, seed=5).act_states(states)
        found = make_search(spec, game, seed=5).search(states)
    finally:
        os.chdir(cwd)
    assert acted.tolist() == BEFORE[game, spec]
    assert [r.action for r in found] == BEFORE[game, spec]
    for state, r in zip(states, found):
        assert isinstance(r, SearchResult) and r.action in r.candidates.tolist()
        # every legal action is a candidate (top_k 0), each played in the 4 worlds
        assert sorted(r.candidates.tolist()) == np.flatnonzero(state.legal_mask()).tolist()
        assert len(r.means) == len(r.counts) == len(r.candidates)
        assert (r.counts == 4).all() and np.isfinite(r.means).all()


def test_with_margin_0_the_action_is_the_best_mean():
    states = heuristic_positions("dagong", 6)
    for r in make_search("pimc:worlds=2,margin=0", "dagong", seed=1).search(states):
        assert r.action == r.candidates[int(np.argmax(r.means))]
        # the plain best mean of choose on a table whose rows are these means
        assert r.candidates[choose(r.means[None], 0.0)] == r.action


def test_a_decision_with_one_legal_action_is_not_searched():
    game = make_game("dagong")
    state = game.new_state(0)
    while state.legal_mask().sum() != 1:
        state.apply(int(np.flatnonzero(state.legal_mask())[0]))
    agent = make_search("pimc:worlds=2", "dagong")
    (r,) = agent.search([state])
    assert r.action == np.flatnonzero(state.legal_mask())[0] and r.counts.tolist() == [0]
    assert np.isnan(r.means).all() and agent.searched == 0


# --- which states to label -------------------------------------------------------------------

def candidates_of(probs, obs=None):
    probs = np.asarray(probs, dtype=np.float32)
    obs = np.zeros((len(probs), make_game("dabang").observation_size), np.float32) \
        if obs is None else obs
    return Candidates(list(range(len(probs))), obs, probs > 0, probs)


def test_uncertain_labels_the_smallest_gaps_and_entropy_the_flattest():
    probs = [[0.9, 0.1, 0, 0], [0.5, 0.5, 0, 0], [0.4, 0.3, 0.3, 0], [0.25] * 4,
             [0.6, 0.4, 0, 0]]
    found = candidates_of(probs)
    assert select(found, 2, "uncertain", "dabang").tolist() == [1, 3]  # gaps 0 and 0
    assert select(found, 2, "entropy", "dabang").tolist() == [2, 3]
    assert uncertainty(found.probs, "uncertain")[0] == pytest.approx(-0.8)
    drawn = select(found, 3, "all", "dabang", rng=np.random.default_rng(0))
    assert len(set(drawn.tolist())) == 3
    assert select(found, 10, "uncertain", "dabang").tolist() == [0, 1, 2, 3, 4]
    # at most 3 legal actions: the 4-way tie is left out, the next most uncertain comes in
    assert select(found, 2, "uncertain", "dabang", max_legal=3).tolist() == [1, 2]


def test_focus_keeps_the_phases_read_from_the_observation():
    view = ObsView("dabang")
    obs = np.zeros((4, view.size), np.float32)
    start = view.pieces["tribute"][0]
    obs[1, start] = 2  # a tribute hand
    start = view.pieces["phase"][0]
    obs[2, start + 2] = 1  # declare, return, bury: the burial
    start = view.pieces["cards_left"][0]
    obs[:, start] = 25
    obs[3, start] = 4  # the observer's last cards
    assert focus_of("dabang", obs, ["tribute"]).tolist() == [False, True, False, False]
    assert focus_of("dabang", obs, ["bury"]).tolist() == [False, False, True, False]
    assert focus_of("dabang", obs, ["endgame"]).tolist() == [False, False, False, True]
    assert focus_of("dabang", obs, ["tribute", "bury"]).tolist() == [False, True, True, False]
    assert focus_of("dabang", obs, []).all()
    found = candidates_of([[0.5, 0.5, 0, 0], [0.9, 0.1, 0, 0], [0.8, 0.2, 0, 0],
                           [0.5, 0.5, 0, 0]], obs)
    # the most uncertain of the tribute and burial states, not the flat ones outside them
    assert select(found, 1, "uncertain", "dabang", ["tribute", "bury"]).tolist() == [2]


def test_the_learner_meets_its_own_decisions_with_their_states():
    net = make_net("dagong", [16])
    gatherer = Gatherer(make_game("dagong"), 4, 0, heuristic_for("dagong", 0),
                        np.random.default_rng(0))
    found = gatherer.gather(net, 30)
    assert len(found) == 30 and (found.mask.sum(axis=1) > 1).all()
    game = make_game("dagong")
    for state, obs, mask in zip(found.states, found.obs, found.mask):
        # the state is the position the observation was made at, for the learner's seat
        assert np.array_equal(state.legal_mask(), mask)
        assert np.array_equal(game.observations([state])[0], obs)
        assert gatherer.seating.learner[:, state.current_player].any()
    assert np.allclose(found.probs.sum(axis=1), 1, atol=1e-5)


# --- targets and loss ------------------------------------------------------------------------

def test_targets_are_the_searchs_action_or_a_softmax_of_its_values():
    results = [SearchResult(3, np.array([1, 3, 5]), np.array([0.0, 1.0, np.nan]),
                            np.array([4, 4, 0]))]
    hard = soft_targets(results, 6, 0.0)
    assert hard[0].tolist() == [0, 0, 0, 1, 0, 0]
    soft = soft_targets(results, 6, 0.5)
    assert soft[0, 5] == 0 and soft[0].sum() == pytest.approx(1)
    assert soft[0, 3] / soft[0, 1] == pytest.approx(np.exp(2), rel=1e-5)


def test_the_distill_loss_moves_the_policy_to_the_labels():
    torch.manual_seed(0)
    game = make_game("dagong")
    states = positions(game, 8, seed=3)
    obs = torch.as_tensor(game.observations(states))
    masks = torch.as_tensor(game.legal_masks(states)).bool()
    targets = torch.zeros(masks.shape)
    for i, mask in enumerate(masks):  # the highest legal action of each row
        targets[i, int(torch.nonzero(mask)[-1])] = 1.0
    net = make_net("dagong", [32])
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-2)
    first, parts = distill_loss(net, obs, masks, targets)
    for _ in range(12):
        loss, _ = distill_loss(net, obs, masks, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    last, after = distill_loss(net, obs, masks, targets)
    assert last.item() < 0.5 * first.item()
    assert after["distill_agreement"] > parts["distill_agreement"]
    assert after["distill_agreement"] >= 0.9


# --- the stage in a run ----------------------------------------------------------------------

# the search cut short by the shipped leaf (depth 4): the stage's mechanics are under test, not
# the labels' quality, and full rollouts made most of the test's time
DISTILL_SEARCH = f"pimc:worlds=2,depth=4,critic={os.path.join(ROOT, 'checkpoints/dagong_leaf.npz')}"
DISTILL_STAGE = ('{samples: %d, kind: distill, search: "' + DISTILL_SEARCH.replace('%', '%%')
                 + '", labels: 6, select: uncertain, temperature: 0.5, buffer: 10, '
                 'distill_envs: 4}')


def run(tmp_path, name, *overrides, resume=None):
    more = ("eval_deals=0", "imitation_samples=500", "rollout_samples=600", *overrides)
    if resume:  # the checkpoint's config, smoke.yaml and the overrides over it
        return resume_run(resume, f"run_dir={tmp_path}", f"run_name={name}", *more, config=SMOKE)
    return smoke_run(tmp_path, name, *more)


def test_a_distill_stage_trains_logs_checkpoints_and_resumes(tmp_path, capsys):
    run(tmp_path, "d", f"stages=[{{samples: 600}}, {DISTILL_STAGE % 600}]")
    out = capsys.readouterr()
    assert "distill: 6 states labelled" in out.out and "another than its rollout" in out.out
    assert "distill: labelling states with the search: 6/6 states" in out.err
    folder = tmp_path / "d"
    records = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
    ppo = [r for r in records if r["phase"] == "ppo"]
    assert "label_s" not in ppo[0] and ppo[-1]["label_s"] > 0
    assert ppo[-1]["labels"] == 6 and 0 <= ppo[-1]["distill_agreement"] <= 1
    assert 0 <= ppo[-1]["search_overrides"] <= 1
    saved = torch.load(folder / "checkpoint.pt", weights_only=True)
    assert saved["distill"]["labelled"] == 6 and len(saved["distill"]["buffer"]["action"]) == 6
    # resumed with a longer distill stage: the labels go on from the saved buffer
    run(tmp_path, "d", f"stages=[{{samples: 600}}, {DISTILL_STAGE % 1800}]",
        resume=str(folder / "checkpoint.pt"))
    saved = torch.load(folder / "checkpoint.pt", weights_only=True)
    assert saved["distill"]["labelled"] > 6
    assert len(saved["distill"]["buffer"]["action"]) == 10  # the buffer keeps the last 10
    assert saved["samples"] >= 2400


def test_init_starts_from_a_checkpoints_weights(tmp_path):
    run(tmp_path, "a", "total_samples=600")
    agent = str(tmp_path / "a" / "agent.pt")
    cfg = load_config(os.path.join(ROOT, "configs/smoke.yaml"), [
        f"run_dir={tmp_path}", "run_name=b", f"init={agent}", "imitation_samples=0"])
    trainer = Trainer(cfg)
    weights = PPOAgent.load(agent).net.state_dict()
    for key, value in trainer.learner.net.state_dict().items():
        assert torch.allclose(value, weights[key])
    cfg = load_config(os.path.join(ROOT, "configs/smoke.yaml"), [
        f"run_dir={tmp_path}", "run_name=c", f"init={agent}", "hidden=[32]"])
    with pytest.raises(ConfigError, match="init .*: .* hidden \\[64\\]"):
        Trainer(cfg)


@pytest.mark.parametrize("stage, message", [
    ("{samples: 10, kind: search}", "kind must be one of ppo, distill"),
    ("{samples: 10, kind: distill, labels: 0}", "distill_labels must be an int >= 1"),
    ("{samples: 10, kind: distill, select: best}", "distill_select must be one of all, "
                                                   "uncertain, entropy"),
    ("{samples: 10, kind: distill, focus: [tricks]}", "distill_focus must be a list of"),
    ("{samples: 10, kind: distill, temperature: -1}", "distill_temperature must be a finite"),
    ("{samples: 10, kind: distill, distill_coef: .nan}", "distill_coef must be a finite"),
    ("{samples: 10, kind: distill, search: heuristic}", "distill_search: a PIMC spec is"),
    ("{samples: 10, kind: distill, search: 'pimc:depth=8,critic=nowhere.npz'}",
     "distill_search: critic 'nowhere.npz' is not a file"),
    ("{samples: 10, kind: distill, pool: 0}", "distill_pool must be an int >= 1"),
    ("{samples: 10, kind: distill, max_legal: -1}", "distill_max_legal must be an int >= 0"),
    ("{samples: 10, kind: distill, searches: pimc}", "stages\\[0\\]: unknown field"),
])
def test_bad_distill_stages_are_one_line_errors(stage, message):
    with pytest.raises(ConfigError, match=message) as error:
        load_config(None, [f"stages=[{stage}]"])
    assert "\n" not in str(error.value) and "stages[0]" in str(error.value)


def test_distill_needs_one_process_and_init_a_file():
    with pytest.raises(ConfigError, match="kind: distill labels in this process"):
        load_config(None, ["kind=distill", "workers=2"])
    with pytest.raises(ConfigError, match="init must be the path of a PPO checkpoint"):
        load_config(None, ["init=nowhere.pt"])
    cfg = load_config(None, ["stages=[{samples: 5, kind: distill, search: pimc, "
                                   "labels: 3, select: all, focus: [endgame]}]"])
    active = stage_config(cfg, 0)
    assert (active.kind, active.distill_labels, active.distill_select,
            active.distill_focus) == ("distill", 3, "all", ["endgame"])
