"""Checkpoints cannot run code as they load (issue 21, item 1): every checkpoint is read with
``torch.load(weights_only=True)``; a pickled payload is refused before it runs (a marker file it
would create stays absent); every malformed checkpoint is a ``CheckpointError`` (a
``ValueError``) naming what is wrong; the shipped checkpoints load through the safe reader."""

import os

import pytest

torch = pytest.importorskip("torch")

from cardagents.ppo.agent import CheckpointError, PPOAgent, read_checkpoint  # noqa: E402
from cardagents.ppo.net import make_net  # noqa: E402
from cardagents.training.checkpoints import read_training  # noqa: E402
from cardenv.core.errors import ConfigError  # noqa: E402
from tests import ROOT  # noqa: E402
from tests.runs import resume_run, smoke_run  # noqa: E402


class Payload:
    """Unpickling it creates the file ``path``: proof that code ran."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def good(game="dagong", hidden=(16,), critic="local") -> dict:
    net = make_net(game, list(hidden), critic)
    return {"game": game, "options": {}, "net": {"hidden": list(hidden), "critic": critic},
            "model": {k: v.clone() for k, v in net.state_dict().items()}}


@pytest.mark.parametrize("where", ["top", "model", "config"])
def test_a_pickled_payload_is_refused_and_never_runs(tmp_path, where):
    marker = tmp_path / "payload-ran"
    data = good()
    if where == "top":
        data["extra"] = Payload(marker)
    elif where == "model":
        data["model"]["trunk.0.weight"] = Payload(marker)
    else:
        data["config"] = {"seed": Payload(marker)}
    path = tmp_path / "evil.pt"
    torch.save(data, path)
    with pytest.raises(CheckpointError, match="refused: it holds Python objects other than "
                                              "tensors and plain data"):
        PPOAgent.load(str(path))
    with pytest.raises(ConfigError):  # train.py --resume reads it the same way
        read_training(str(path))
    assert not marker.exists()
    # the same file read the unsafe way does run it: the test would see a payload that ran
    torch.load(path, weights_only=False)
    assert marker.exists()


def corrupt(data, change):
    change(data)
    return data


def dagong_as_dabang(data):
    data["game"] = "dabang"


def nan_weight(data):
    data["model"]["trunk.0.weight"][0, 0] = float("nan")


def inf_weight(data):
    data["model"]["policy.bias"][3] = float("inf")


def wrong_shape(data):
    data["model"]["trunk.0.weight"] = torch.zeros(16, 7)


def missing(key):
    return lambda data: data.pop(key)


@pytest.mark.parametrize("change, message", [
    (missing("model"), "it has no 'model' entry"),
    (missing("game"), "it has no 'game' entry"),
    (missing("net"), "it has no 'net' entry"),
    (lambda d: d["model"].pop("scale"), "no observation 'scale'"),
    (lambda d: d["model"].pop("policy.weight"), r"missing \['policy.weight'\]"),
    (lambda d: d["net"].update(hidden="64"), "hidden sizes are '64', not a list of ints"),
    (lambda d: d["net"].update(hidden=[16, True]), "not a list of ints"),
    (lambda d: d["net"].update(critic="oracle"), "critic is 'oracle'"),
    (lambda d: d.update(game="poker"), "poker"),
    (lambda d: d.update(game=7), "its game is 7"),
    (dagong_as_dabang, "weight 'policy.weight' has shape \\(2419, 16\\) where a dabang network"),
    (wrong_shape, "weight 'trunk.0.weight' has shape \\(16, 7\\)"),
    (nan_weight, "weight 'trunk.0.weight' holds NaN or infinite values"),
    (inf_weight, "weight 'policy.bias' holds NaN or infinite values"),
    (lambda d: d["model"].update(extra=3), "not a mapping of names to tensors"),
])
def test_a_malformed_checkpoint_is_a_checkpoint_error_naming_what_is_wrong(tmp_path, change,
                                                                         message):
    path = tmp_path / "bad.pt"
    torch.save(corrupt(good(), change), path)
    with pytest.raises(CheckpointError, match=message) as caught:
        PPOAgent.load(str(path))
    assert str(path) in str(caught.value) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("content, message", [
    (lambda p: torch.save(torch.zeros(3), p), "holds a Tensor, not a mapping"),
    (lambda p: p.write_bytes(b"not a checkpoint"), "torch cannot read it"),
])
def test_files_that_are_not_checkpoints(tmp_path, content, message):
    path = tmp_path / "x.pt"
    content(path)
    with pytest.raises(CheckpointError, match=message):
        PPOAgent.load(str(path))
    with pytest.raises(CheckpointError, match="no such file"):
        PPOAgent.load(str(tmp_path / "none.pt"))
    with pytest.raises(CheckpointError, match="is a folder"):
        PPOAgent.load(str(tmp_path))


@pytest.mark.parametrize("name", ["dagong_ppo.pt", "dabang_ppo.pt", "previous/dagong_ppo.pt",
                                  "previous/dabang_ppo.pt", "previous/dagong_ppo_issue10.pt",
                                  "previous/dabang_ppo_issue24.pt"])
def test_the_shipped_checkpoints_load_through_the_safe_reader(name):
    root = str(ROOT)
    path = os.path.join(root, "checkpoints", name)
    assert isinstance(read_checkpoint(path), dict)
    assert PPOAgent.load(path).game == name.rsplit("/", 1)[-1].split("_")[0]


def test_a_training_checkpoint_resumes_through_the_safe_reader(tmp_path):
    result = smoke_run(tmp_path, "r", "eval_deals=0", "imitation_samples=0",
                       "total_samples=1000")
    data = read_checkpoint(str(tmp_path / "r" / "checkpoint.pt"))
    assert data["config"]["game"] == "dagong" and "optimizer" in data
    again = resume_run(tmp_path / "r" / "checkpoint.pt",
                       f"total_samples={result['samples'] + 1000}", "eval_deals=0")
    assert again["samples"] > result["samples"]
    agent = PPOAgent.load(str(tmp_path / "r" / "agent.pt"))
    assert agent.game == "dagong"
