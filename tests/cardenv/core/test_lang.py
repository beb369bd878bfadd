"""``lang="en"``: English action texts and renders without a Chinese character, ``lang="zh"``
exactly as before, and nothing but the texts depending on the language (cardenv.core.lang)."""

import re

import numpy as np
import pytest

from cardenv import dabang_v0, dagong_v0
from cardenv.core.errors import ConfigError
from cardenv.core.lang import LANGS, TERMS, check_lang, translate
from cardenv.dabang import catalogue as dabang_actions
from cardenv.dabang.presentation import render_text as dabang_render
from cardenv.dagong import catalogue as dagong_actions
from cardenv.dagong.presentation import render_text as dagong_render

CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")

GAMES = {"dagong": (dagong_v0, dagong_actions, dagong_render),
         "dabang": (dabang_v0, dabang_actions, dabang_render)}


def test_check_lang_names_the_choices():
    assert LANGS == ("zh", "en")
    assert [check_lang(lang) for lang in LANGS] == ["zh", "en"]
    for bad in ("fr", "EN", "", None, 1):
        with pytest.raises(ConfigError, match="'zh', 'en'"):
            check_lang(bad)
    with pytest.raises(ConfigError):
        translate("一游", "english")


@pytest.mark.parametrize("module", [dagong_v0, dabang_v0])
@pytest.mark.parametrize("ctor", ["env", "raw_env"])
def test_a_bad_lang_fails_at_construction(module, ctor):
    with pytest.raises(ConfigError, match="lang must be one of 'zh', 'en', got 'fr'"):
        getattr(module, ctor)(lang="fr")
    assert getattr(module, ctor)(lang="en").unwrapped.lang == "en"
    assert getattr(module, ctor)().unwrapped.lang == "zh"


def test_translate_replaces_terms_longest_first():
    assert translate("declare 硬牌 (go solo)", "en") == "declare solo (one against three)"
    assert translate("decline 硬牌", "en") == "decline solo"
    assert translate("7喜 7x9", "en") == "7-joy 7x9"
    assert translate("正510K ♠ (joker as 5)", "en") == "pure 510K ♠ (joker as 5)"
    assert translate("摇摆 9-A (6x4)", "en") == "swing 9-A (6x4)"
    assert translate("喜钱 +2, 喜 alone", "en") == "joy money +2, joy alone"
    assert translate("partner player_2 (明鸡) | 硬牌: player_0", "en") == \
        "partner player_2 (revealed) | solo: player_0"
    assert translate("逢10必打", "en") == "must play 10"
    for text in TERMS:
        assert translate(text, "zh") == text
        assert not CJK.search(translate(text, "en")), text


def test_a_padded_column_keeps_its_width():
    """A term followed by two or more spaces sits in a table column: its English name takes or
    gives back padding (one space always left), so the columns after it do not move."""
    rows = ["  player_0  D硬        1     60  末游     ♥4", "  player_1  P         1     60  ♥4"]
    assert [translate(row, "en") for row in rows] == \
        ["  player_0  DS        1     60  last   ♥4", rows[1]]
    assert translate("  一游    ", "en") == "  1st out "  # wider than its column: one space left
    assert translate("the 硬牌 player", "en") == "the solo player"  # one space: prose, kept


@pytest.mark.parametrize("game", GAMES)
def test_every_action_text_reads_in_english(game):
    module, actions, _ = GAMES[game]
    english, chinese = module.raw_env(lang="en"), module.raw_env()
    for a in range(actions.NUM_ACTIONS):
        text = actions.ACTIONS[a].text
        assert chinese.describe_action(a) == text == chinese.action_info(a).text
        assert english.describe_action(a) == translate(text, "en")
        assert not CJK.search(english.describe_action(a)), (a, english.describe_action(a))
        assert english.action_info(a).text == text  # the structured info keeps the Chinese
    assert len({english.describe_action(a) for a in range(actions.NUM_ACTIONS)}) == \
        len({a.text for a in actions.ACTIONS})  # no two actions read the same in English


def play_both(game, seed, options):
    """A random game played in lockstep by a zh and an en env: each step's observations, masks,
    states, rewards and infos equal, the zh render exactly the game's render_text, the en render
    free of Chinese. Returns the Chinese terms the zh renders showed."""
    module, _, render_text = GAMES[game]
    envs = [module.env(render_mode="ansi", lang=lang, **options) for lang in LANGS]
    for env in envs:
        env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = set()
    zh, en = envs
    steps = 0
    while zh.agents:
        steps += 1
        assert en.agents == zh.agents and en.agent_selection == zh.agent_selection
        agent = zh.agent_selection
        for piece in ("observation", "action_mask"):
            assert np.array_equal(zh.observe(agent)[piece], en.observe(agent)[piece])
        assert np.array_equal(zh.state(), en.state())
        if zh.infos[agent] or steps % 20 == 0:  # saved states: at hand ends and every 20 steps
            assert zh.unwrapped.game_state.to_dict() == en.unwrapped.game_state.to_dict()
        assert (zh.rewards, zh.infos, zh.terminations, zh.truncations) == \
            (en.rewards, en.infos, en.terminations, en.truncations)
        if zh.terminations[agent] or zh.truncations[agent]:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(zh.observe(agent)["action_mask"])))
        for env in envs:
            env.step(action)
        text = zh.render()
        assert text == render_text(zh.unwrapped.game_state)
        english = en.render()
        assert english == translate(text, "en")
        assert not CJK.search(english), english
        seen |= set(re.findall(r"[\u4e00-\u9fff]+", text))
    assert not en.agents
    return seen


def test_dagong_games_in_both_languages():
    seen = set()
    for seed in range(3):
        seen |= play_both("dagong", seed, {"hands": 3})
        seen |= play_both("dagong", 100 + seed, {"hands": 2, "allow_solo": False})
    # the games showed them
    assert {"硬牌", "硬", "明鸡", "一游", "二游", "三游", "正", "杂"} <= seen


def test_dabang_matches_in_both_languages():
    seen = set()
    for seed in (0, 1, 3):
        seen |= play_both("dabang", seed, {"episode": "match", "max_hands": 6})
    seen |= play_both("dabang", 7, {"tribute_return": "dealer_choice", "blood": 2, "dealer": 1})
    assert "干锅" in seen


@pytest.mark.parametrize("game", GAMES)
def test_english_seat_tables_line_up(game):
    """In English the seat rows' number columns stand under the header's (len counts)."""
    module = GAMES[game][0]
    options = {"hands": 3} if game == "dagong" else {}
    env = module.raw_env(render_mode="ansi", lang="en", **options)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        lines = env.render().split("\n")
        header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("seat"))
        end = lines[header].index("points") + len("points")
        for row in lines[header + 1:header + 5]:
            assert re.fullmatch(r"[> ] player_\d +\S* +\d+ +\d+", row[:end]), (row, lines[header])


@pytest.mark.parametrize("game", GAMES)
def test_every_move_type_has_a_readable_label_in_both_languages(game):
    """The move types people read (terminal list, web groups) are the games' terms or plain
    words, never code identifiers; every English label is free of Chinese and they differ."""
    from cardenv.text import move_label
    actions = GAMES[game][1]
    kinds = {a.type for a in actions.ACTIONS}
    for lang in LANGS:
        labels = {kind: move_label(game, kind, lang) for kind in kinds}
        assert len(set(labels.values())) == len(kinds), labels
        for kind, label in labels.items():
            assert "_" not in label and label != "510k", (kind, label)
            assert lang == "zh" or not CJK.search(label), (kind, label)
    assert move_label("dagong", "pair_run") == "连对"
    assert move_label("dagong", "pair_run", "en") == "pair run"
    assert move_label("dabang", "bury", phase="koujoker") == "扣王"
    assert move_label("dabang", "bury", "en", "koujoker") == "joker burial"
