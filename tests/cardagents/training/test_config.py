"""The training config (``cardagents.training.config``): defaults, YAML files, overrides and clear
errors."""

import pytest

from cardagents.training.config import load_config
from cardenv.core.errors import ConfigError
from tests import ROOT


def test_overrides_are_typed(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("game: dabang\nlr: 0.001\noptions:\n  follow: live\n")
    cfg = load_config(str(path), ["hidden=[64, 32]", "options.dealer=random",
                                        "opponents.random=0.5", "total_samples=100"])
    assert cfg.game == "dabang" and cfg.lr == 0.001 and cfg.hidden == [64, 32]
    assert cfg.options == {"follow": "live", "dealer": "random"}
    assert cfg.opponents["random"] == 0.5 and cfg.total_samples == 100


@pytest.mark.parametrize("overrides, message", [
    (["lrr=0.1"], "unknown field 'lrr' \\(did you mean 'lr'\\?\\)"),
    (["game=poker"], "game must be"),
    (["num_envs=0"], "num_envs must be an int >= 1"),
    (["lr=-1"], "lr must be a finite number >= 0"),
    (["lr=.inf"], "lr must be a finite number >= 0"),
    (["hidden=[64, true]"], "hidden must be a list of ints"),
    (["opponents.human=1"], "unknown opponent 'human'"),
    (["options.follow=maybe"], "follow"),
    (["hidden=[]"], "hidden"),
    (["total_samples"], "key=value"),
    (["score_shaping=-1"], "score_shaping must be a finite number >= 0"),
    (["score_shaping=.nan"], "score_shaping must be a finite number >= 0"),
    (["pair_bonus=-1"], "pair_bonus must be a finite number >= 0"),
    (["pair_bonus=1", "num_envs=7"], "num_envs must be even, got 7"),
    (["game=dabang", "pair_bonus=1", "reward=match"], "pair_bonus goes with reward: hand"),
])
def test_bad_config_is_a_clear_error(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)


def test_missing_or_malformed_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(str(tmp_path / "none.yaml"), [])
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(str(bad), [])


def test_every_config_file_loads():

    for path in sorted((ROOT / "configs").glob("*.yaml")):
        load_config(str(path), [])


def test_a_list_of_options_is_accepted():
    cfg = load_config(None, ["game=dabang", "options=[{}, {dealer: random}]"])
    assert cfg.options == [{}, {"dealer": "random"}]
    with pytest.raises(ConfigError, match="cannot change a list"):
        load_config(None, ["options=[{}]", "options.follow=live"])
    with pytest.raises(ConfigError, match="options must be"):
        load_config(None, ["options=[]"])
