"""Language of the human-readable texts: ``"zh"`` (the games' Chinese terms) or ``"en"``.

The action texts, renders and hand results are English sentences that keep the games' own
Chinese names for combinations, roles and results (``7喜 7x9``, ``一游``, ``| 干锅``; every term
is explained in docs/glossary.md). ``translate(text, "en")`` replaces each such term by the short
English name of :data:`TERMS` (``7-joy 7x9``, ``1st out``, ``| dry pot``); ``"zh"`` leaves the
text as it is. The envs take the language as ``lang`` (``dagong_v0.env(lang="en")``): it changes
``render()`` and ``describe_action()`` only, never observations, masks or states.

Translation works on finished strings, so any text of the project can go through it. Longer
terms are replaced first, so compounds translate as units (``硬牌`` before ``硬``, ``喜钱`` before
``喜``, ``正510K`` before ``正``). A term padded in a table column (followed by two or more
spaces) keeps the column's width: the English name takes or gives back padding spaces, always
leaving one, so the columns after it stay in place (``len`` counts; in Chinese the double-width
characters already push a row's display by one column per character).
"""

from __future__ import annotations

import re

from cardenv.core.errors import ConfigError

LANGS = ("zh", "en")

#: Every Chinese term of the project (the rows of docs/glossary.md) -> its English name under
#: ``lang="en"``; then a few compounds whose parts would read badly one after the other.
TERMS: dict[str, str] = {
    # both games
    "庄家": "dealer",
    "上家": "previous player",
    "下家": "next player",
    # Dagong
    "咸宁打拱": "Xianning Dagong",
    "争上游": "climbing",
    "找朋友": "find a friend",
    "癞子": "wildcard",
    "叫牌": "called card",
    "硬牌": "solo",
    "硬": "S",  # the render's role column: D (dealer), P (revealed partner), S (solo)
    "三条": "triple",
    "连对": "pair run",
    "飞机": "triple run",
    "三带一": "triple with one",
    "三带二": "triple with two",
    "正": "pure",
    "杂": "mixed",
    "天炸": "sky bomb",
    "喜": "joy",
    "摇摆": "swing",
    "明鸡": "revealed",
    "接风": "lead handover",
    "一游": "1st out",
    "二游": "2nd out",
    "三游": "3rd out",
    "末游": "last",
    "绑": "one-two",
    "清": "clean",
    "光头": "bald head",
    "喜钱": "joy money",
    # Dabang
    "葫芦岛打棒": "Huludao Dabang",
    "升级": "upgrade",
    "底牌": "kitty",
    "混牌": "level card",
    "主牌": "trump",
    "常主": "permanent trump",
    "亮主": "trump declaration",
    "抢亮": "trump race",
    "抢亮大王": "big-joker grab",
    "加固": "reinforce",
    "反": "counter",
    "喝血": "tribute",
    "干锅": "dry pot",
    "扣王": "joker burial",
    "棒": "pair",
    "滚子": "triple",
    "四联": "quad",
    "死棒": "shape duty",
    "抓分方": "attackers",
    "庄家方": "defenders",
    "抠底": "kitty dig",
    "保底": "kitty guard",
    "逢": "at",
    "必打": "must play",
    # phrases quoted from the rules sources (Dabang)
    "先看是否是主牌，然后看点数，最后看花色":
        "first see whether it is trump, then look at the face rank, finally at the suit",
    "先看是否是主牌": "first see whether it is trump",
    "然后看点数": "then look at the face rank",
    "然后看": "then look at",
    "点数": "face rank",
    "最后看花色": "finally look at the suit",
    "自己可以加固自己的亮牌": "a player may reinforce its own declaration",
    "自己和其他人都可以反": "oneself and the others may all counter-declare",
    # compounds: a term glued to a number or repeated by the English around it
    "7喜": "7-joy",
    "8喜": "8-joy",
    "正510K": "pure 510K",
    "杂510K": "mixed 510K",
    "逢10必打": "must play 10",
    "硬牌 (go solo)": "solo (one against three)",
    "末游 (the last place)": "last place",
}

_PATTERN = re.compile("(" + "|".join(re.escape(t) for t in sorted(TERMS, key=len, reverse=True))
                      + ")( {2,})?")


def check_lang(lang) -> str:
    """``lang`` if it is one of :data:`LANGS`, else :class:`ConfigError` naming the choices."""
    if not isinstance(lang, str) or lang not in LANGS:
        raise ConfigError(f"lang must be one of {', '.join(map(repr, LANGS))}, got {lang!r}")
    return lang


def _english(match: re.Match) -> str:
    name, pad = TERMS[match.group(1)], match.group(2)
    if not pad:
        return name
    width = len(match.group(1)) + len(pad)  # the column's width, kept where the pad allows
    return name + " " * max(1, width - len(name))


def translate(text: str, lang: str) -> str:
    """``text`` in ``lang``: as it is for ``"zh"``; each Chinese term of :data:`TERMS` replaced
    by its English name for ``"en"`` (longest first; a padded column keeps its width)."""
    if check_lang(lang) == "zh":
        return text
    return _PATTERN.sub(_english, text)
