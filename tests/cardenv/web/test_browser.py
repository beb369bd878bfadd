"""The web page in a real browser: headless Chromium driven by Selenium plays a whole Dagong hand
and a whole Dabang hand by clicking (cards then "Play selected cards", or a move of the list),
sees an illegal selection refused with its reason, and steps through game records in the viewer
(buttons and arrow keys; a corrupted upload shows the RecordError message). A Dabang hand is
drawn grouped as players hold it (side suits, the trump apart in strength order), the play
winning the trick is marked, and a refused selection shows the server's own error text. The
card table: the attackers' points against 120 / 160 / 200, the last trick until the next lead,
the tribute and the burial in words, the rules panel, the sign that another player is thinking
while the others' moves come one at a time, and readable player names that never widen the page.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them) and selenium
(``pip install -e ".[browser]"``); skipped, saying so, where they are absent. The page is opened
with ``?pace=0`` (no pause between the other players' moves) but where the pause is what is
checked. Screenshots go to a temporary folder; ``CARDENV_WEB_SCREENSHOTS=1 python -m pytest
tests/cardenv/web/test_browser.py`` also writes the screenshots of docs/web.md and the README
(``docs/web_*.png``; a font with Chinese characters, such as Debian's fonts-wqy-microhei, makes
the Chinese terms readable in them).
"""

import json
import os
import threading

import numpy as np
import pytest

from cardenv import records
from cardenv.games import make_game
from cardenv.moves import move_cards
from cardenv.web import App, make_server
from tests import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
DOCS = ROOT / "docs"
WAIT = 30  # seconds: one request, even on a busy machine

if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
    pytest.skip(f"no browser: {CHROMIUM} and {CHROMEDRIVER} are needed (Debian: apt-get install "
                f"chromium chromium-driver; .ci/run does it)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver",
                                reason="selenium is not installed: pip install -e \".[browser]\"")
from selenium.common.exceptions import ElementClickInterceptedException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


def finished_record(folder, game="dagong", seed=8):
    state = make_game(game).new_state(seed)
    rng = np.random.default_rng(seed)
    while not state.is_over:
        state.apply(int(rng.choice(state.legal_actions())))
    path = folder / f"{game}-{seed}.json"
    records.save(records.record_of(state, ["random"] * 4, meta={"source": "cardenv.play"}), path)
    return path, state


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    finished_record(folder)
    app = App(checkpoint_dir=None, records_dir=str(folder))
    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{server.server_address[1]}/", folder
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1100", "--disable-extensions"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return tmp_path_factory.mktemp("screenshots")


def ready(driver):
    WebDriverWait(driver, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready")


def page_state(driver) -> dict:
    """What the page shows now, read in one script call."""
    return driver.execute_script("""
        const t = document.getElementById('table');
        const err = document.getElementById('error');
        return {
          version: t.dataset.version, over: t.dataset.over === 'true',
          yourTurn: t.dataset.yourTurn === 'true', state: document.body.dataset.state,
          error: err.hidden ? '' : err.textContent,
          choices: !document.getElementById('choices').hidden,
          moves: Array.from(document.querySelectorAll('#moves button.move')).map(
            (b) => ({id: Number(b.dataset.id), cards: JSON.parse(b.dataset.cards)})),
          game: location.hash.replace('#game=', ''),
        };""")


def click(driver, element):
    try:
        element.click()
    except ElementClickInterceptedException:  # a neighbouring card's edge: click it as a person
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
        element.click()


def click_cards(driver, cards):
    """Click the first unselected card of the hand showing each of ``cards``."""
    for card in cards:
        element = driver.find_element(
            By.CSS_SELECTOR, f"#hand .card[data-card='{card}']:not(.selected)")
        click(driver, element)


def wait_change(driver, version):
    WebDriverWait(driver, WAIT).until(lambda d: (lambda s: s["state"] == "ready" and (
        s["version"] != version or s["error"] or s["choices"]))(page_state(d)))
    return page_state(driver)


def start(driver, url, game, seat, opponents, pace="0", options=None):
    driver.get(f"{url}?pace={pace}")
    ready(driver)
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    Select(driver.find_element(By.ID, "seat")).select_by_value(str(seat))
    for i, name in enumerate(opponents):
        Select(driver.find_element(By.ID, f"opp-{i}")).select_by_value(name)
    for name, value in (options or {}).items():
        field = driver.find_element(By.ID, f"opt-{name}")
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.clear()
            field.send_keys(value)
    driver.find_element(By.ID, "seed").send_keys("7")
    click(driver, driver.find_element(By.ID, "start"))
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "table").is_displayed())
    ready(driver)
    return page_state(driver)


def doc_shot(driver, name):
    if os.environ.get("CARDENV_WEB_SCREENSHOTS"):
        driver.execute_script("window.scrollTo(0, 0)")
        driver.save_screenshot(str(DOCS / name))


def play_turn(driver, move, use_cards, selected=lambda: None):
    """One turn: the cards of ``move`` selected (then ``selected()`` called) and played, or the
    move clicked in the list."""
    before = page_state(driver)["version"]
    if use_cards:
        click_cards(driver, move["cards"])
        selected()
        click(driver, driver.find_element(By.ID, "play-cards"))
        now = wait_change(driver, before)
        if now["choices"]:  # these cards make several moves: take the one meant
            click(driver, driver.find_element(By.CSS_SELECTOR,
                                              f"#choices button.choice[data-id='{move['id']}']"))
            now = wait_change(driver, before)
    else:
        click(driver, driver.find_element(By.CSS_SELECTOR, f"#moves button.move[data-id='"
                                                           f"{move['id']}']"))
        now = wait_change(driver, before)
    assert not now["error"], now["error"]
    assert now["version"] != before
    return now


def test_play_a_whole_dagong_hand_by_clicking(site, browser, shots):
    app, url, folder = site
    now = start(browser, url, "dagong", 0, ["random", "heuristic", "random"])
    browser.save_screenshot(str(shots / "dagong-start.png"))
    session = app.games.get(now["game"])
    refused = turns = shot = 0
    while not now["over"]:
        assert now["yourTurn"]
        with_cards = [m for m in now["moves"] if m["cards"]]
        ranks = {}  # a card of each rank in the hand
        for card in browser.execute_script("return page.game.view.hand"):
            if card not in ("SJ", "BJ"):
                ranks.setdefault(card[1:], card)
        if not refused and with_cards and len(ranks) >= 2:
            # two cards of different ranks are no Dagong move: refused, with the reason shown
            version = now["version"]
            click_cards(browser, list(ranks.values())[:2])
            click(browser, browser.find_element(By.ID, "play-cards"))
            now = wait_change(browser, version)
            assert "not played:" in now["error"] and "not a Dagong combination" in now["error"]
            assert now["version"] == version and session.version == int(version)
            browser.save_screenshot(str(shots / "dagong-refused.png"))
            click(browser, browser.find_element(By.ID, "clear-cards"))
            refused = 1
        move = with_cards[0] if with_cards and turns % 3 != 2 else now["moves"][0]
        shoot = not shot and turns >= 3 and move["cards"] and len(now["moves"]) >= 4
        now = play_turn(browser, move, use_cards=bool(move["cards"]),
                        selected=lambda: doc_shot(browser, "web_dagong.png") if shoot else None)
        shot = shot or shoot
        turns += 1
    assert refused and turns >= 5
    browser.save_screenshot(str(shots / "dagong-end.png"))
    result = browser.find_element(By.CSS_SELECTOR, "#results .result").text
    assert "You won" in result or "You lost" in result
    assert browser.find_element(By.ID, "over").is_displayed()
    assert session.state.is_over
    # the finished game, every hand shown, in the viewer
    click(browser, browser.find_element(By.ID, "watch"))
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.ID, "replay").get_attribute("data-k") == "0")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#replay-seats .seat-column")) == 4
    # opened from the game, the viewer still names the records folder, and shows no "null"
    assert browser.find_element(By.ID, "records-dir").text == str(folder)
    viewer = browser.find_element(By.ID, "viewer").text
    assert "null" not in viewer and "undefined" not in viewer, viewer


def whole_turn_cards(session):
    """The cards of a whole legal turn of the person (a Dabang follow of several groups, or a
    burial), found on a copy of the game: the first legal step each time."""
    state, seat = session.state.clone(), session.seat
    phase = str(state.phase)
    cards = []
    while not state.is_over and state.current_player == seat and str(state.phase) == phase:
        action = state.legal_actions()[0]
        cards += move_cards(state, action)
        state.apply(action)
        if phase == "play" and not state.v["selection"][seat].any():
            break
    return cards


def test_play_a_whole_dabang_hand_by_clicking_in_english(site, browser, shots):
    app, url, _ = site
    browser.get(url)
    ready(browser)
    Select(browser.find_element(By.ID, "lang")).select_by_value("en")
    ready(browser)
    now = start(browser, url, "dabang", 2, ["heuristic", "random", "heuristic"])
    session = app.games.get(now["game"])
    turns = whole = 0
    shot = False
    try:
        while not now["over"]:
            assert now["yourTurn"]
            phase = str(session.state.phase)
            building = bool(session.state.v["selection"][session.seat].any())
            if phase in ("play", "bury") and not building and turns % 2 == 0:
                cards = whole_turn_cards(session)  # the whole follow or burial: one selection
                before = now["version"]
                click_cards(browser, cards)
                if turns >= 10 and not shot and len(cards) >= 2:
                    doc_shot(browser, "web_dabang.png")
                    browser.save_screenshot(str(shots / "dabang-middle.png"))
                    shot = True
                click(browser, browser.find_element(By.ID, "play-cards"))
                now = wait_change(browser, before)
                assert not now["error"], now["error"]
                whole += 1
            else:
                now = play_turn(browser, now["moves"][0], use_cards=False)
            turns += 1
        browser.save_screenshot(str(shots / "dabang-end.png"))
        assert whole >= 5 and session.state.is_over
        result = browser.find_element(By.CSS_SELECTOR, "#results .result").text
        assert "Your team" in result and not any("\u4e00" <= ch <= "\u9fff" for ch in result)
    finally:
        Select(browser.find_element(By.ID, "lang")).select_by_value("zh")
        ready(browser)


def contrast(color, background) -> float:
    """WCAG contrast ratio of two CSS ``rgb(...)`` / ``rgba(...)`` colours (opaque)."""
    def luminance(css):
        channels = [int(x) / 255 for x in css[css.index("(") + 1:-1].split(",")[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((luminance(color), luminance(background)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_step_through_records_in_the_viewer(site, browser, shots, tmp_path):
    _, url, folder = site
    browser.get(url)
    ready(browser)
    # a hovered tab stays readable (it was white on pale yellow)
    webdriver.ActionChains(browser).move_to_element(
        browser.find_element(By.ID, "tab-viewer")).perform()
    color, background = browser.execute_script(
        "const s = getComputedStyle(document.getElementById('tab-viewer'));"
        "return [s.color, s.backgroundColor]")
    assert contrast(color, background) >= 4.5, (color, background)
    click(browser, browser.find_element(By.ID, "tab-viewer"))
    ready(browser)
    name = sorted(p.name for p in folder.glob("*.json"))[0]
    click(browser, browser.find_element(By.CSS_SELECTOR, f"button.record-file[data-name='{name}']"))

    def at(k):
        WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay")
                                           .get_attribute("data-k") == str(k))
        ready(browser)

    at(0)
    seats = browser.find_elements(By.CSS_SELECTOR, "#replay-seats .seat-column")
    assert [len(s.find_elements(By.CSS_SELECTOR, ".hand .card")) for s in seats] == [27] * 4
    click(browser, browser.find_element(By.ID, "next"))
    at(1)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    at(2)
    body.send_keys(Keys.ARROW_RIGHT)
    at(3)
    body.send_keys(Keys.ARROW_LEFT)
    at(2)
    assert browser.find_element(By.ID, "step-label").text.startswith("move 2/")
    assert browser.find_element(By.ID, "last-move").text.startswith("Move 2: player_")
    click(browser, browser.find_element(By.ID, "prev"))
    at(1)
    body.send_keys(Keys.END)
    moves = len(json.loads((folder / name).read_text(encoding="utf-8"))["actions"])
    at(moves)
    assert "Returns:" in browser.find_element(By.ID, "replay-results").text
    browser.save_screenshot(str(shots / "viewer.png"))
    # a corrupted upload is refused with the record checker's message
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "cardenv-record", "version": 1, "game": "dagong"', "utf-8")
    browser.find_element(By.ID, "upload").send_keys(str(broken))
    WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "error").is_displayed())
    assert browser.find_element(By.ID, "error").text.startswith("broken.json: not JSON")
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"cards": ["♠3"]}), "utf-8")
    browser.find_element(By.ID, "upload").send_keys(str(foreign))
    WebDriverWait(browser, WAIT).until(
        lambda d: "foreign.json: not a cardenv game record" in d.find_element(By.ID, "error").text)


def api_get(app, path):
    status, _, body = app.handle("GET", path, b"")
    assert status == 200, body
    return json.loads(body)


def shown_groups(driver):
    """The hand's groups as the page draws them: label, trump or not, cards in order."""
    return driver.execute_script("""
        return Array.from(document.querySelectorAll('#hand .hand-group')).map((g) => ({
          label: g.dataset.label, trump: g.dataset.trump === 'true',
          cards: Array.from(g.querySelectorAll('.card')).map((c) => c.dataset.card)}));""")


def check_groups(driver, app, game_id):
    """The page shows the hand in the groups the server's view gives, and they are as players
    hold them: side suits in ♦♣♥♠ order, then one trump group whose cards are trump by the
    engine's tables, in trump strength order."""
    from cardenv.core.cards import parse_cards
    from cardenv.dabang.strength import STRENGTH, SUIT_CLASS, TRUMP
    view = api_get(app, f"/api/games/{game_id}")["view"]
    groups = shown_groups(driver)
    assert groups == [{"label": g["label"], "trump": g["trump"], "cards": g["cards"]}
                      for g in view["hand_groups"]]
    assert sorted(c for g in groups for c in g["cards"]) == sorted(view["hand"])
    assert [g["trump"] for g in groups].count(True) <= 1 and not any(
        g["trump"] for g in groups[:-1])
    suits = [g["label"] for g in groups if not g["trump"]]
    assert suits == [s for s in "♦♣♥♠" if s in suits]
    state = app.games.get(game_id).state
    level = state.level
    trump_groups = [g for g in groups if g["trump"]]
    for g in groups:
        kinds = parse_cards(" ".join(g["cards"]))
        if state.trump is None:  # trump whatever the suit
            cls = [int(SUIT_CLASS[:, level - 3, k].max() == TRUMP and
                       SUIT_CLASS[:, level - 3, k].min() == TRUMP) for k in kinds]
            assert cls == [int(g["trump"])] * len(kinds)
        else:
            assert all((SUIT_CLASS[state.trump, level - 3, k] == TRUMP) == g["trump"]
                       for k in kinds)
            assert all(c[0] == g["label"] for c in g["cards"]) or g["trump"]
    if trump_groups and state.trump is not None:
        kinds = parse_cards(" ".join(trump_groups[0]["cards"]))
        strength = [int(STRENGTH[state.trump, level - 3, k]) for k in kinds]
        assert strength == sorted(strength) and trump_groups[0]["label"].startswith("trump")
    return groups


def test_dabang_hand_grouped_winner_marked_and_refusal_shown(site, browser, shots):
    """A Dabang hand on the page: grouped by suit with the trump apart (before and after the
    trump is known), the play winning the trick marked as the server says, and cards that are
    no legal move refused with the server's own error text shown."""
    from cardenv.moves import card_moves
    app, url, _ = site
    now = start(browser, url, "dabang", 0, ["heuristic", "heuristic", "heuristic"])
    game_id = now["game"]
    session = app.games.get(game_id)
    check_groups(browser, app, game_id)
    checked_after = marked = 0
    refused = False
    while not now["over"] and not (refused and checked_after and marked):
        state = session.state
        if state.trump is not None and not checked_after:
            groups = check_groups(browser, app, game_id)
            checked_after = int(any(g["trump"] for g in groups))
        view = api_get(app, f"/api/games/{game_id}")["view"]
        winning = [p["seat"] for p in view["trick"] if p["winning"]]
        shown = browser.execute_script(
            "return Array.from(document.querySelectorAll('#center .play.winning'))"
            ".map((p) => Number(p.dataset.seat))")
        assert shown == winning
        marked += bool(winning)
        if state.phase == "play" and not state.v["selection"][0].any() and not refused:
            hand = view["hand"]
            candidates = [hand[:2], hand[:state.trick.k + 1]] if state.trick.k else \
                [[a, b] for a, b in zip(hand, hand[1:]) if a != b][:1]
            bad = None
            for cards in candidates:
                try:
                    card_moves(state, cards)
                except ValueError:
                    bad = cards
                    break
            if bad:
                # the page sends the selected cards in the order it shows them
                shown_order = [c for g in view["hand_groups"] for c in g["cards"]]
                bad = sorted(bad, key=shown_order.index)
                lang = browser.execute_script("return page.lang")  # the page's language
                status, _, body = app.handle(
                    "POST", f"/api/games/{game_id}/cards?lang={lang}",
                    json.dumps({"cards": bad, "version": int(now["version"])}).encode())
                error = json.loads(body)["error"]
                assert status == 400 and error
                version = now["version"]
                click_cards(browser, bad)
                click(browser, browser.find_element(By.ID, "play-cards"))
                now = wait_change(browser, version)
                box = browser.find_element(By.ID, "error")
                assert box.is_displayed() and box.text.strip() and now["error"] == error
                assert now["version"] == version
                browser.save_screenshot(str(shots / "dabang-refused.png"))
                click(browser, browser.find_element(By.ID, "clear-cards"))
                refused = True
        now = play_turn(browser, now["moves"][0], use_cards=False)
    assert refused and checked_after and marked


def test_the_league_page_draws_a_league_table(site, browser, tmp_path):
    from cardagents.evaluation import league
    league.main(["dagong", "random", "heuristic", "--pairs", "2", "--quiet", "--bootstrap", "20",
                 "--out", str(tmp_path / "league_small.json")])
    app, url, _ = site
    before, app.league_dir = app.league_dir, str(tmp_path)
    try:
        browser.get(url + "league")
        WebDriverWait(browser, WAIT).until(
            lambda b: len(b.find_elements(By.CSS_SELECTOR, "#matrix tr")) == 3)
        ratings = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#ratings tr")]
        matrix = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#matrix tr")]
        assert browser.find_element(By.ID, "league-title").text.startswith("dagong league")
    finally:
        app.league_dir = before
    assert ratings[0].split() == ["rank", "player", "rating", "95%", "interval", "pairs", "won"]
    assert ratings[1].startswith("1 heuristic +") and ratings[2].startswith("2 random -")
    assert matrix[1].startswith("heuristic — 1.00 (") and matrix[2].startswith("random 0.00 (")
    assert browser.find_element(By.ID, "error").get_attribute("hidden") is not None


# --- the card table: score, last trick, words, rules, thinking, names ---------------------------

def table_state(driver) -> dict:
    """The table's extras as the page draws them, read in one script call."""
    return driver.execute_script("""
        const text = (id) => { const n = document.getElementById(id);
                               return n && !n.hidden ? n.innerText : ''; };
        const trick = document.getElementById('last-trick');
        return {
          score: text('score'), notes: text('notes'),
          marks: Array.from(document.querySelectorAll('#score .score-mark')).map(
            (m) => ({at: Number(m.dataset.at), reached: m.classList.contains('reached')})),
          value: (document.querySelector('#score .score-value') || {}).textContent || null,
          trick: trick ? trick.innerText : '',
          trickPlays: trick ? trick.querySelectorAll('.play').length : 0,
          took: trick ? Array.from(trick.querySelectorAll('.play.winning')).map(
            (p) => Number(p.dataset.seat)) : [],
          names: Array.from(document.querySelectorAll('#board .seat .name')).map(
            (n) => n.textContent),
          turn: document.getElementById('turn').textContent,
          wide: document.documentElement.scrollWidth > window.innerWidth,
        };""")


def test_the_dabang_table_shows_the_score_the_last_trick_and_the_words(site, browser, shots):
    """A Dabang hand after a tribute, in English: the attackers' points against 120 / 160 / 200
    as the server counts them, the tribute and the burial in words, and each finished trick
    kept on the table (who took it marked) until the next lead."""
    app, url, _ = site
    browser.get(url)
    ready(browser)
    Select(browser.find_element(By.ID, "lang")).select_by_value("en")
    ready(browser)
    now = start(browser, url, "dabang", 0, ["heuristic", "random", "heuristic"],
                options={"dealer": "1", "blood": "3"})
    session = app.games.get(now["game"])
    seen_trick = shot = 0
    while not now["over"]:
        message = api_get(app, f"/api/games/{now['game']}?lang=en")
        table = table_state(browser)
        score = message["score"]
        assert table["value"] == str(score["value"])
        assert table["marks"] == [{"at": m["at"], "reached": m["reached"]}
                                  for m in score["marks"]]
        assert [m["at"] for m in table["marks"]] == [120, 160, 200]
        assert "Attackers' points" in table["score"] and "attackers: team 0" in table["score"]
        first = table["notes"].splitlines()[0]
        if message["view"]["tribute"]:
            assert first.startswith("Tribute: you, the dealer's previous player, gave 3 cards "
                                    "to the dealer player_1: ")
        else:
            assert first.startswith("Tribute: the dealer player_1 is owed 3 blood")
        if session.state.phase != "bury":
            assert "The dealer player_1 took up the 8 cards of the kitty and buried 8" \
                in table["notes"]
        trick = message["last_trick"]
        assert bool(table["trick"]) == (trick is not None)
        if trick is not None:
            assert table["trickPlays"] == len(trick["plays"]) and "Last trick" in table["trick"]
            if trick["winner"] is not None:
                assert table["took"] == [trick["winner"]]
            seen_trick += 1
            if not shot and seen_trick >= 3 and score["value"] > 0:
                doc_shot(browser, "web_dabang_table.png")
                shot = 1
        assert not table["wide"]
        assert not any(ch for ch in table["notes"] + table["trick"] if "\u4e00" <= ch <= "\u9fff")
        now = play_turn(browser, now["moves"][0], use_cards=False)
    assert seen_trick >= 3 and shot
    browser.save_screenshot(str(shots / "dabang-table-end.png"))


@pytest.fixture(scope="module")
def named_site(tmp_path_factory):
    """The page with the repository's checkpoints folder: the shipped agents (where torch
    loads them) and the search player, by their labels."""
    app = App(checkpoint_dir=str(ROOT / "checkpoints"),
              records_dir=str(tmp_path_factory.mktemp("records")))
    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_the_rules_panel_of_the_game_chosen(named_site, browser):
    _, url = named_site
    browser.get(url + "?pace=0")
    ready(browser)
    Select(browser.find_element(By.ID, "lang")).select_by_value("en")
    ready(browser)
    assert not browser.find_element(By.ID, "help").is_displayed()
    click(browser, browser.find_element(By.ID, "help-toggle"))
    panel = browser.find_element(By.ID, "help")
    for game, words in (("dagong", "called card"), ("dabang", "160 or more")):
        Select(browser.find_element(By.ID, "game")).select_by_value(game)
        WebDriverWait(browser, WAIT).until(lambda d: panel.get_attribute("data-game") == game)
        assert panel.is_displayed() and words in panel.text
        assert len(panel.find_elements(By.CSS_SELECTOR, "#help-lines li")) >= 6
    assert "kitty" in browser.find_element(By.ID, "help-terms").text
    doc_shot(browser, "web_help.png")
    click(browser, browser.find_element(By.ID, "help-toggle"))
    assert not panel.is_displayed()


def test_others_move_one_at_a_time_under_a_thinking_sign(named_site, browser, shots):
    """While the other players move, the page names who is thinking, and their moves come one
    at a time (each drawn before the next is asked for); players are named by readable labels
    (a checkpoint's file name, "search (PIMC)") that never widen the page; the shipped agent
    is the default opponent."""
    app, url = named_site
    info = api_get(app, "/api/info")
    search = [e["spec"] for e in info["search"] if e["game"] == "dagong"]
    shipped = info["defaults"]["dagong"]
    browser.get(f"{url}?pace=1.5")
    ready(browser)
    Select(browser.find_element(By.ID, "game")).select_by_value("dagong")
    chosen = [s.get_attribute("value") for s in browser.find_elements(By.CSS_SELECTOR,
                                                                      "#opponents select")]
    assert chosen == [shipped] * 3  # the shipped agent where it loads, else heuristic
    opponents = [shipped, *(search or ["heuristic"]), "heuristic"]
    now = start(browser, url, "dagong", 0, opponents, pace="1.5")
    # each time the page says whose turn it is: what it says, and the moves drawn by then
    browser.execute_script("""
        window.turns = [];
        new MutationObserver(() => window.turns.push([
            document.getElementById('turn').textContent,
            document.getElementById('turn').classList.contains('thinking'),
            document.querySelectorAll('#log li').length])).observe(
          document.getElementById('turn'), {childList: true, characterData: true,
                                            subtree: true});""")
    labels = {"heuristic": "heuristic", shipped: "dagong_ppo.pt" if shipped != "heuristic"
              else "heuristic", **({search[0]: "search (PIMC)"} if search else {})}
    names = table_state(browser)["names"]
    assert sorted(names) == sorted(["player_0 (you)", *(f"player_{s + 1} · {labels[o]}"
                                                        for s, o in enumerate(opponents))])
    shot = False
    for _ in range(2):
        if now["over"]:
            break
        before = now["version"]
        move = now["moves"][0]["id"]
        click(browser, browser.find_element(By.CSS_SELECTOR,
                                            f"#moves button.move[data-id='{move}']"))
        if not shot:  # while the others move: the sign names who thinks
            WebDriverWait(browser, WAIT).until(
                lambda d: d.find_element(By.ID, "turn").get_attribute("class") == "turn thinking")
            turn = browser.find_element(By.ID, "turn").text
            assert turn.endswith("is thinking…") and " · " in turn
            assert not table_state(browser)["wide"]
            doc_shot(browser, "web_thinking.png")
            browser.save_screenshot(str(shots / "thinking.png"))
            shot = True
        now = wait_change(browser, before)
        assert not now["error"]
    turns = browser.execute_script("return window.turns")
    thinking = [t for t in turns if t[1]]
    assert len(thinking) >= 3 and all(t[0].endswith("is thinking…") for t in thinking)
    counts = [t[2] for t in turns]
    steps = [b - a for a, b in zip(counts, counts[1:])]
    assert steps and all(step in (0, 1) for step in steps), turns  # one move at a time
    assert not any(text.startswith("Your turn") and was for text, was, _ in turns)
