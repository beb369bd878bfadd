"""The web page's server without a browser (``cardenv.web``): whole games through the JSON API with
every message checked against the true state (nothing of another seat's hidden cards, the
extras included: score, notes, last trick), bad requests answered 4xx with the game unchanged,
the record viewer, the HTTP layer, and the card selections of ``cardenv.moves``
(``card_moves``; Dagong's ``actions_for_cards``). The page's extras, its players' labels,
defaults and the others' moves one at a time: ``tests/cardenv/web/test_table.py``. The page in a
real browser: ``tests/cardenv/web/test_browser.py``."""

import json
import os
import re
import shutil
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest

from cardenv import moves, records
from cardenv.core.cards import card_str
from cardenv.dagong.hand_moves import actions_for_cards
from cardenv.core.lang import translate
from cardenv.games import make_game
from cardenv.player_specs import load_player
from cardenv.text import move_label, move_text, phase_label, seat_view, why_illegal
from cardenv.web import App, make_server
from cardenv.web.sessions import translate_all, translator
from tests import ROOT

CARD = re.compile(r"(?:[♦♣♥♠](?:10|[2-9JQKA]))|\b[SB]J\b")
MESSAGE_KEYS = {"id", "game", "seat", "version", "players", "labels", "options", "view",
                "your_turn", "over", "thinking", "moves", "card_select", "log", "log_total",
                "results", "returns", "choices", "record", "score", "notes", "last_trick"}


def call(app, method, path, body=None, raw=None):
    data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
    status, kind, out = app.handle(method, path, data)
    assert kind.startswith("application/json"), (path, kind)
    return status, json.loads(out)


def new_game(app, game="dagong", seat=0, opponents=("random",) * 3, **extra):
    status, message = call(app, "POST", "/api/games",
                           dict(game=game, seat=seat, opponents=list(opponents), **extra))
    assert status == 201, message
    return message


def session_of(app, message):
    return app.games.get(message["id"])


# --- selecting cards (cardenv.moves) --------------------------------------------------------------

def dagong_puzzle(hands, called="♦Q"):
    state = make_game("dagong").state_from_hands(hands, dealer=0, called=called)
    while state.phase == "solo":
        state.apply(1)  # decline 硬牌
    return state


def texts(state, actions):
    return sorted(state.game.action_info(a).text for a in actions)


def test_every_legal_dagong_play_is_found_again_from_its_cards():
    game = make_game("dagong")
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(3):
        state = game.new_state(seed)
        while not state.is_over:
            legal = state.legal_actions()
            if state.phase == "play":
                for action in legal:
                    cards = moves.move_cards(state, action)
                    if cards:
                        assert action in actions_for_cards(state, cards)
                        checked += 1
            state.apply(int(rng.choice(legal)))
    assert checked > 1000


def test_actions_for_cards_compares_ranks_jokers_and_510k_suits():
    state = dagong_puzzle(["♠4 ♥4 SJ BJ ♠5 ♠10 ♠K ♥5 ♦9 ♦Q", "♣3 ♣Q ♦Q", "♥3 ♥Q", "♠3 ♠Q"])
    assert state.current_player == 0
    assert texts(state, actions_for_cards(state, ["♠4", "♥4", "SJ", "BJ"])) == [
        "bomb 4x4 with 2 jokers", "pair run 3-4 (2 pairs) with 2 jokers",
        "pair run 4-5 (2 pairs) with 2 jokers"]
    assert texts(state, actions_for_cards(state, ["♠5", "♠10", "♠K"])) == ["正510K ♠"]
    assert texts(state, actions_for_cards(state, ["♥5", "♠10", "♠K"])) == ["杂510K"]
    assert texts(state, actions_for_cards(state, ["BJ"])) == ["single 3 (1 joker)"]
    assert texts(state, actions_for_cards(state, ["♦Q"])) == ["single Q incl. called card"]
    assert actions_for_cards(state, ["♠4", "♦9"]) == []  # not a combination
    assert actions_for_cards(state, ["♣3"]) == []  # not in the hand
    assert actions_for_cards(state, []) == []
    with pytest.raises(ValueError, match="Dagong"):
        actions_for_cards(make_game("dabang").new_state(0), ["♠4"])


def test_card_moves_say_why_cards_are_refused():
    state = dagong_puzzle(["♠4 ♥4 ♦9 ♠6 ♦Q", "♣3 ♣Q ♦Q", "♥3 ♥Q", "♠3 ♠Q"])
    assert state.current_player == 0
    with pytest.raises(ValueError, match="not a Dagong combination"):
        moves.card_moves(state, ["♠4", "♦9"])
    with pytest.raises(ValueError, match="you do not hold ♣Q"):
        moves.card_moves(state, ["♣Q"])
    with pytest.raises(ValueError, match="you do not hold ♠4 that many times"):
        moves.card_moves(state, ["♠4", "♠4"])
    with pytest.raises(ValueError, match="no card selected"):
        moves.card_moves(state, [])
    state.apply(moves.card_moves(state, ["♠6"])[0][0])  # player_0 leads a single 6
    state.apply(moves.card_moves(state, ["♣Q"])[0][0])  # player_1 beats it with a queen
    state.apply(0)  # player_2 passes
    with pytest.raises(ValueError, match="single 3 is not legal now: it does not beat single Q "
                                         "by player_1"):
        moves.card_moves(state, ["♠3"])


def test_card_moves_plan_a_whole_dabang_follow_or_burial():
    game = make_game("dabang")
    rng = np.random.default_rng(3)
    follows = burials = 0
    for seed in range(2):
        state = game.new_state(seed)
        while not state.is_over:
            seat, phase = state.current_player, str(state.phase)
            if phase in ("play", "bury") and not state.v["selection"][seat].any():
                trial, cards = state.clone(), []  # a random legal turn, played on a copy
                while not trial.is_over and trial.current_player == seat and \
                        str(trial.phase) == phase:
                    action = int(rng.choice(trial.legal_actions()))
                    cards += moves.move_cards(trial, action)
                    trial.apply(action)
                    if phase == "play" and not trial.v["selection"][seat].any():
                        break
                (plan,) = moves.card_moves(state, cards)
                for action in plan:
                    state.apply(action)
                assert state.to_dict() == trial.to_dict() or phase == "play"
                follows += phase == "play"
                burials += phase == "bury"
                continue
            state.apply(int(rng.choice(state.legal_actions())))
    assert follows > 50 and burials >= 2


# --- whole games: what the page is sent --------------------------------------------------------

def hidden_lists(state, seat):
    """The card lists the seat must never be sent: the other hands and the kitty (those of 6
    cards or more: a shorter one may equal a play of the log by chance)."""
    lists = [seat_view(state, s)["hand"] for s in range(4) if s != seat]
    if state.game.name == "dabang":
        kitty = state.v["kitty"]
        lists.append([card_str(k) for k in range(len(kitty)) for _ in range(int(kitty[k]))])
    return [sorted(x) for x in lists if len(x) >= 6]


def walk(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, path + (i,))


def play_random_move(app, message, rng):
    """Check the person's message, play one of its legal moves at random, and return the page's
    answer (which must be 200)."""
    check_message(app, message)
    choices = [m["id"] for g in message["moves"] for m in g["moves"]]
    status, message = call(app, "POST", f"/api/games/{message['id']}/move",
                           {"action": int(rng.choice(choices)), "version": message["version"]})
    assert status == 200, message
    return message


def check_message(app, message, lang="zh"):
    """Everything the page gets is what the seat may know (see cardenv.web.sessions)."""
    session = session_of(app, message)
    state, seat = session.state, message["seat"]
    assert set(message) <= MESSAGE_KEYS
    assert message["view"] == translate_all(seat_view(state, seat), translator(lang))
    # the phase as people read it, the terminal's words (扣王 / joker burial, not koujoker)
    assert message["view"]["phase_label"] == phase_label(state.game, state.phase, lang)
    if message["your_turn"]:
        listed = [m["id"] for g in message["moves"] for m in g["moves"]]
        assert sorted(listed) == state.legal_actions()
        for group in message["moves"]:  # a readable label beside the type id programs use
            assert group["label"] == move_label(state.game, group["type"], lang, state.phase)
    else:
        assert message["moves"] == []
    assert "seed" not in json.dumps(message)
    forbidden = hidden_lists(state, seat)
    for path, value in walk({k: v for k, v in message.items() if k != "view"}):
        if isinstance(value, list) and len(value) >= 2 and all(isinstance(c, str) for c in value):
            assert sorted(value) not in forbidden, f"{path} is another seat's hidden cards"
    for entry in message["log"]:
        if entry["seat"] != seat and entry["text"].startswith(("buries a card",
                                                               "gives a card back")):
            assert entry["cards"] == [] and not CARD.search(entry["text"])
    check_extras(message, session, lang)


def check_extras(message, session, lang="zh"):
    """The extras (score, notes, last trick) hold nothing the seat may not know: they are what
    ``cardenv.web.extras`` makes of the seat's own view, observation and log; they name no card
    that the vetted view and log do not show; the last trick is moves of the log; and the
    tribute's cards are named only to the two seats that see them."""
    from cardenv.web import extras
    state, seat = session.state, message["seat"]
    hand = message["view"]["hand_number"]
    moves = [dict(e, phase=entry["phase"], type=entry["type"]) for entry in session.log
             if entry["hand"] == hand and (e := session.public_entry(entry, seat, lambda t: t))]
    made = extras.for_seat(state.game.name, seat_view(state, seat), state.observation(seat), moves)
    said = translator(lang)
    assert message["notes"] == [extras.words(n, said) for n in made["notes"]]
    assert message["score"] == translate_all(made["score"], lambda t: extras.words(t, said))
    shown = set(CARD.findall(json.dumps([message["view"], message["log"]], ensure_ascii=False)))
    named = set(CARD.findall(json.dumps([message["score"], message["notes"],
                                         message["last_trick"]], ensure_ascii=False)))
    assert named <= shown, f"the extras name {named - shown}, shown nowhere else"
    trick = message["last_trick"]
    if trick is not None:
        plays, log = trick["plays"], message["log"]
        assert any(log[i:i + len(plays)] == plays for i in range(len(log) - len(plays) + 1))
    view = message["view"]
    if view.get("dealer") is not None and view.get("tribute"):
        sees = seat in (view["dealer"], (view["dealer"] - 1) % 4)
        for note in message["notes"]:
            if note.startswith("Tribute"):
                assert bool(CARD.search(note)) == sees, note


def check_log_is_public(session):
    """Each move of another seat that the person's log shows by its cards is one that the
    person's observation tells apart from the other legal moves of that seat (so the log adds
    nothing to what the seat knows), or, for a Dabang follow built in steps, cards that the
    trick then shows for that seat."""
    game, seat = session.game, session.seat
    state = game.new_state(session.seed)
    history = session.state.history
    entries = iter(session.log)
    k = 0
    while k < len(history):
        entry = next(entries)
        n = len(entry["actions"])
        assert history[k:k + n] == entry["actions"]
        if entry["seat"] != seat and entry["private"][seat] is None and n == 1:
            after = state.clone()
            after.apply(history[k])
            for other in state.legal_actions()[:12]:
                if other != history[k]:
                    alt = state.clone()
                    alt.apply(other)
                    assert not np.array_equal(alt.observation(seat), after.observation(seat)), \
                        f"move {k} ({game.action_info(history[k]).text}) is shown but hidden"
        for action in history[k:k + n]:
            state.apply(action)
        if entry["seat"] != seat and n > 1:
            trick = seat_view(state, seat)["trick"]
            plays = [sorted(p["cards"]) for p in trick if p["seat"] == entry["seat"]]
            assert sorted(entry["cards"]) in plays or not trick  # a finished trick is cleared
        k += n


def play_whole_game(app, message, rng, use_cards=True, lang="zh"):
    """Play as the person: random legal moves, every other one chosen by its cards."""
    turns = 0
    while not message["over"]:
        check_message(app, message, lang)
        choices = [m for g in message["moves"] for m in g["moves"]]
        move = choices[rng.integers(len(choices))]
        path = f"/api/games/{message['id']}"
        if use_cards and move["cards"] and turns % 2:
            status, answer = call(app, "POST", f"{path}/cards?lang={lang}",
                                  {"cards": move["cards"], "version": message["version"]})
            if status == 200 and "choices" in answer:  # several Dagong moves: pick one
                assert move["id"] in [c["id"] for c in answer["choices"]]
                assert answer["version"] == message["version"]
                status, answer = call(app, "POST", f"{path}/move?lang={lang}",
                                      {"action": move["id"], "version": message["version"]})
            elif status == 400:  # one group of a Dabang follow is not a whole follow
                assert "not finish your follow" in answer["error"], answer
                assert session_of(app, message).version == message["version"]
                status, answer = call(app, "POST", f"{path}/move?lang={lang}",
                                      {"action": move["id"], "version": message["version"]})
        else:
            status, answer = call(app, "POST", f"{path}/move?lang={lang}",
                                  {"action": move["id"], "version": message["version"]})
        assert status == 200, answer
        assert answer["version"] == message["version"] + 1
        message = answer
        turns += 1
    check_message(app, message, lang)
    return message, turns


@pytest.mark.parametrize("game, seat, options, lang", [
    ("dagong", 0, {}, "zh"), ("dagong", 2, {"hands": 2}, "en"),
    ("dabang", 1, {}, "zh"), ("dabang", 3, {"episode": "match", "max_hands": 2}, "en"),
])
def test_a_whole_game_sends_only_what_the_seat_may_know(game, seat, options, lang):
    app = App(checkpoint_dir=None)
    message = new_game(app, game, seat, ("heuristic", "random", "heuristic"), options=options,
                       seed=11)
    if lang != "zh":
        status, message = call(app, "GET", f"/api/games/{message['id']}?lang={lang}")
        assert status == 200
    final, turns = play_whole_game(app, message, np.random.default_rng(seat), lang=lang)
    session = session_of(app, final)
    assert final["over"] and turns > 5
    assert final["returns"] == [float(r) for r in session.state.returns]
    assert len(final["results"]) == len(session.state.results) >= 1
    assert final["results"][-1]["text"].startswith(("You ", "Your team"))
    assert final["log_total"] == len(session.log) - sum(1 for e in session.log if e.get("open"))
    check_log_is_public(session)


def test_dabang_dealer_burial_and_follows_show_as_the_other_seats_see_them():
    app = App(checkpoint_dir=None)
    for seed in range(8):  # a deal where someone else is the dealer and buries
        message = new_game(app, "dabang", 0, ("heuristic",) * 3, seed=seed)
        final, _ = play_whole_game(app, message, np.random.default_rng(seed))
        session = session_of(app, final)
        if session.state.results[0].to_dict()["dealer"] != 0:
            break
    # the terminal's words (cardenv.dabang.presentation.PRIVATE_MOVES), the 底牌 in Chinese under zh
    shown = [e for e in final["log"] if e["text"] == "buries a card in the 底牌"]
    assert shown and all(e["cards"] == [] and e["seat"] != 0 for e in shown)
    follows = [e for e in final["log"] if " + " in e["text"] and e["seat"] != 0]
    assert follows and all(len(e["cards"]) >= 2 for e in follows)


TRIBUTE_RETURN = {"dealer": 1, "levels": [5, 7], "blood": 3, "tribute_return": "dealer_choice"}


@pytest.mark.parametrize("seat", range(4))
def test_a_card_given_back_shows_to_the_dealer_and_its_receiver_alone(seat):
    """One privacy rule for the tribute's return (docs/rules/dabang.md, section 3: only the giver
    of the tribute and the dealer see which cards change hands): the dealer and its 上家, who
    receives the card, see it in the terminal (``text.move_text``), in the web page's log and in
    their hand view (the receiver holds it); the two other seats see in all three only that a
    card was given back."""
    app = App(checkpoint_dir=None)
    message = new_game(app, "dabang", seat, ("heuristic",) * 3, options=TRIBUTE_RETURN, seed=5)
    session = session_of(app, message)
    rng = np.random.default_rng(seat)
    while session.state.phase in ("declare", "return"):  # the person's moves: random legal ones
        message = play_random_move(app, message, rng)
    check_message(app, message)
    check_log_is_public(session)
    dealer = session.state.dealer
    receiver = (dealer - 1) % 4
    sees = seat in (dealer, receiver)
    # the terminal: the moves replayed, each return as this seat reads it
    state = session.game.new_state(session.seed)
    returned = []
    for action in session.state.history:
        if state.game.action_info(action).type == "return":
            (card,) = moves.move_cards(state, action)
            returned.append(card)
            terminal = move_text(state, action, viewer=seat)
            assert (card in terminal) == sees, terminal
            assert CARD.search(terminal) if sees else terminal == "gives a card back for the 喝血"
        state.apply(action)
        if state.phase != "return" and returned:
            break
    assert len(returned) == TRIBUTE_RETURN["blood"]
    # the hand view right after the return: the receiver holds the cards; both know them
    view = seat_view(state, seat)
    assert (sorted(view["returned_known"]) == sorted(returned)) == sees
    assert view["returned_known"] == [] or sees
    if seat == receiver:
        assert all(view["hand"].count(c) >= returned.count(c) for c in returned)
    assert sorted(message["view"]["returned_known"]) == (sorted(returned) if sees else [])
    # the web page's log: the same rule
    log = [e for e in message["log"] if e["seat"] == dealer
           and (e["text"].startswith("return ") or e["text"] == "gives a card back for the 喝血")]
    assert len(log) == len(returned), message["log"]
    if sees:
        assert [e["cards"] for e in log] == [[c] for c in returned]
        assert [e["text"] for e in log] == [f"return {c}" for c in returned]
    else:
        assert all(e["cards"] == [] and e["text"] == "gives a card back for the 喝血" for e in log)


# --- bad requests ------------------------------------------------------------------------------

def unchanged(app, message):
    session = session_of(app, message)
    return json.dumps(session.state.to_dict(), sort_keys=True), session.version


def test_bad_requests_get_a_clear_4xx_and_leave_the_game_unchanged():
    app = App(checkpoint_dir=None)
    message = new_game(app, "dagong", 1, seed=3)
    gid = message["id"]
    before = unchanged(app, message)
    legal = session_of(app, message).state.legal_actions()
    illegal = next(a for a in range(3, 2419) if a not in legal)
    cases = [
        ("POST", "/api/games", {"game": "poker"}, 400, "unknown game 'poker'"),
        ("POST", "/api/games", {"game": "dagong", "seat": 4}, 400, "'seat' must be 0..3"),
        ("POST", "/api/games", {"game": "dagong", "opponents": ["alphazero"] * 3}, 400,
         "unknown player 'alphazero'"),
        ("POST", "/api/games", {"game": "dagong", "opponents": ["random"]}, 400,
         "'opponents' must list 3 players"),
        ("POST", "/api/games", {"game": "dabang", "options": {"episod": "match"}}, 400,
         "bad options for dabang: unknown option 'episod'"),  # the game named once
        ("POST", f"/api/games/{gid}/move", {"action": illegal}, 400, "illegal move"),
        ("POST", f"/api/games/{gid}/move", {"action": 99999}, 400, "not an action id"),
        ("POST", f"/api/games/{gid}/move", {"action": "pass"}, 400, "must be an action id"),
        ("POST", f"/api/games/{gid}/move", {}, 400, "no 'action'"),
        ("POST", f"/api/games/{gid}/move", {"action": legal[0], "version": 7}, 409,
         "not your turn"),
        ("POST", f"/api/games/{gid}/cards", {"cards": "♠3"}, 400, "list of card strings"),
        ("POST", f"/api/games/{gid}/cards", {"cards": ["♠Z"]}, 400, "cannot read card"),
        ("POST", f"/api/games/{gid}/replay", {}, 409, "not over"),
        ("POST", "/api/games/nosuchgame/move", {"action": 0}, 404,
         "unknown or expired game id 'nosuchgame'"),
        ("GET", "/api/games/nosuchgame", None, 404, "unknown or expired game"),
        ("GET", f"/api/games/{gid}?lang=fr", None, 400, "lang must be one of"),
        ("GET", "/api/replays/nosuchreplay/0", None, 404, "unknown or expired replay"),
        ("GET", "/api/nothing", None, 404, "no such API endpoint"),
        ("DELETE", f"/api/games/{gid}", None, 405, "not part of the API"),
    ]
    for method, path, body, status, error in cases:
        got, answer = call(app, method, path, body)
        assert (got, error) == (status, error) and error in answer["error"], (path, answer)
        assert unchanged(app, message) == before
    for raw, error in ((b"{not json", "malformed JSON"), (b"[1, 2]", "must be a JSON object"),
                       (b"\xff\xfe", "malformed JSON")):
        got, answer = call(app, "POST", f"/api/games/{gid}/move", raw=raw)
        assert got == 400 and error in answer["error"]
        assert unchanged(app, message) == before
    # cards that are no legal move: refused with the reason, nothing played
    got, answer = call(app, "POST", f"/api/games/{gid}/cards", {"cards": ["BJ"] * 5})
    assert got == 400 and answer["error"].startswith("not played: you do not hold BJ")
    assert unchanged(app, message) == before
    # an illegal action id: refused with the rule it breaks (cardenv.text.why_illegal)
    state = session_of(app, message).state
    got, answer = call(app, "POST", f"/api/games/{gid}/move", {"action": illegal})
    text = state.game.action_info(illegal).text
    assert got == 400 and answer["error"] == f"illegal move: {text}: {why_illegal(state, illegal)}"
    # in the page's language: lang=en names the terms in English
    got, answer = call(app, "POST", f"/api/games/{gid}/move?lang=en", {"action": illegal})
    zh = f"illegal move: {text}: {why_illegal(state, illegal)}"
    assert got == 400 and answer["error"] == translate(zh, "en")
    assert unchanged(app, message) == before


def test_a_finished_game_refuses_moves_and_opens_in_the_viewer():
    app = App(checkpoint_dir=None)
    message, _ = play_whole_game(app, new_game(app, "dagong", 0, seed=5),
                                 np.random.default_rng(0), use_cards=False)
    got, answer = call(app, "POST", f"/api/games/{message['id']}/move", {"action": 0})
    assert got == 409 and "the game is over" in answer["error"]
    got, header = call(app, "POST", f"/api/games/{message['id']}/replay")
    assert got == 201 and header["finished"] and header["seed"] == 5
    got, step = call(app, "GET", f"/api/replays/{header['id']}/{header['moves']}")
    state = session_of(app, message).state
    assert step["views"] == [seat_view(state, s) for s in range(4)]


def test_games_are_kept_up_to_a_cap_and_never_mixed():
    """Once idle (here at once: keep_busy=0), the least recently used game makes room for a new
    one (a busy one is not pushed out: tests/cardenv/web/test_hardening.py)."""
    app = App(checkpoint_dir=None, max_games=2, keep_busy=0)
    first = new_game(app, "dagong", 0, seed=1)
    second = new_game(app, "dagong", 1, seed=1)
    third = new_game(app, "dabang", 2, seed=1)
    assert len({first["id"], second["id"], third["id"]}) == 3
    got, answer = call(app, "GET", f"/api/games/{first['id']}")
    assert got == 404 and "unknown or expired game" in answer["error"]
    assert "keeps the 2 most recent games" in answer["error"]
    for message in (second, third):
        got, again = call(app, "GET", f"/api/games/{message['id']}")
        assert got == 200 and (again["game"], again["seat"]) == (message["game"], message["seat"])


def test_checkpoints_are_offered_and_one_for_the_other_game_is_refused(tmp_path):
    pytest.importorskip("torch", reason="loading a PPO checkpoint needs torch ([train] extra)")
    root = os.path.join(ROOT, "checkpoints")
    if not os.path.exists(os.path.join(root, "dabang_ppo.pt")):
        pytest.skip("checkpoints/dabang_ppo.pt is not in this checkout")
    app = App(checkpoint_dir=root)
    offered = {os.path.basename(c["path"]): c["game"] for c in call(app, "GET", "/api/info")[1]
               ["checkpoints"]}
    assert offered["dabang_ppo.pt"] == "dabang"
    path = os.path.join(root, "dabang_ppo.pt")
    got, answer = call(app, "POST", "/api/games", {"game": "dagong", "seat": 0,
                                                   "opponents": [path, "random", "random"]})
    assert got == 400 and "plays dabang, not dagong" in answer["error"]
    got, answer = call(app, "POST", "/api/games", {"game": "dagong", "seat": 0, "opponents": [
        str(tmp_path / "elsewhere.pt"), "random", "random"]})
    assert got == 400 and "unknown player" in answer["error"]  # only offered checkpoints load


# --- the search player ---------------------------------------------------------------------------

def search_available():
    try:
        load_player("pimc:time=1", "dagong", 0)
    except ValueError as exc:  # the cardagents package (its cardenv.players entry point) is missing
        pytest.skip(f"no search player: {exc}")


def test_each_game_offers_a_search_player_with_its_budget_named(tmp_path):
    """/api/info lists each game's search player (``SEARCH_PLAYERS``) with the budget in its
    menu label; Dabang's stops its rollouts at a leaf value from the checkpoints folder, and
    without one there falls back to full rollouts."""
    search_available()
    root = os.path.join(ROOT, "checkpoints")
    leaf = os.path.join(root, "dabang_leaf.npz")
    if os.path.exists(leaf):
        shutil.copy(leaf, tmp_path / "dabang_leaf.npz")
    for folder in (None, str(tmp_path)):
        info = call(App(checkpoint_dir=folder), "GET", "/api/info")[1]
        search = {entry["game"]: entry for entry in info["search"]}
        assert set(search) == set(info["games"]) == {"dagong", "dabang"}
        for entry in search.values():
            seconds = float(re.search(r"time=([0-9.]+)", entry["spec"]).group(1))
            assert entry["label"] == f"search (PIMC, {seconds:g} s a decision)"
        leafed = folder is not None and os.path.exists(leaf)
        assert ("critic=" in search["dabang"]["spec"]) == leafed
        # the fast named budget (issue 45): what the page asks of a search by default
        assert search["dagong"]["spec"] == "pimc:fast,time=1"
        assert search["dabang"]["spec"].startswith("pimc:fast,")


def test_a_game_seated_with_the_search_player_plays_legal_moves_through_the_api():
    """The search player is handed the state (``needs_state``), each game gets its own (no
    generator or time limit shared between games), its moves are legal, and a search spec
    that is not the one offered for the game is refused like any unknown player."""
    search_available()
    app = App(checkpoint_dir=None)
    specs = {e["game"]: e["spec"] for e in call(app, "GET", "/api/info")[1]["search"]}
    rng = np.random.default_rng(0)
    for game, seed in (("dagong", 3), ("dabang", 4)):
        message = new_game(app, game, 0, opponents=[specs[game], "random", "random"], seed=seed)
        other = new_game(app, game, 0, opponents=[specs[game], "random", "random"], seed=seed)
        session = session_of(app, message)
        searcher = session.players[1]
        assert message["players"][1] == specs[game] and searcher.needs_state
        assert searcher is not session_of(app, other).players[1]
        while searcher.searched < 2 and not message["over"]:
            message = play_random_move(app, message, rng)
        assert searcher.searched >= 2
        state = session.game.new_state(seed)
        for action in session.state.history:  # each move legal where it was played
            assert action in state.legal_actions()
            state.apply(action)
    for game, spec in (("dagong", "pimc"), ("dagong", "pimc:worlds=4096"),
                       ("dabang", "pimc:time=100")):
        got, answer = call(app, "POST", "/api/games", {"game": game, "seat": 0,
                                                       "opponents": [spec] * 3})
        assert got == 400 and f"unknown player {spec!r}" in answer["error"], answer

# --- the record viewer ---------------------------------------------------------------------------


def write_record(folder, name="dagong-game.json", game="dagong", seed=2):
    state = make_game(game).new_state(seed)
    rng = np.random.default_rng(seed)
    while not state.is_over:
        state.apply(int(rng.choice(state.legal_actions())))
    path = os.path.join(folder, name)
    records.save(records.record_of(state, ["random"] * 4, meta={"source": "test"}), path)
    return path, state


def test_the_viewer_lists_opens_and_steps_through_records(tmp_path):
    path, final = write_record(tmp_path)
    (tmp_path / "sub").mkdir()
    write_record(tmp_path / "sub", "dabang-game.json", "dabang", 4)
    (tmp_path / "broken.json").write_text('{"format": "cardenv-record", "version": 1}')
    app = App(checkpoint_dir=None, records_dir=str(tmp_path))
    got, listing = call(app, "GET", "/api/records")
    assert [f["name"] for f in listing["files"]] == ["broken.json", "dagong-game.json",
                                                     "sub/dabang-game.json"]
    got, header = call(app, "POST", "/api/replays", {"name": "dagong-game.json"})
    assert got == 201 and header["moves"] == len(final.history) and header["game"] == "dagong"
    assert len(header["move_list"]) == header["moves"]
    record = records.load(path)
    states = records.replay(record)
    for k in (0, 1, 37, header["moves"]):
        got, step = call(app, "GET", f"/api/replays/{header['id']}/{k}")
        assert got == 200 and step["k"] == k
        assert step["views"] == [seat_view(states[k], s) for s in range(4)]
    assert step["over"] and step["results"][0]["texts"][0].startswith("You ")
    got, answer = call(app, "GET", f"/api/replays/{header['id']}/{header['moves'] + 1}")
    assert got == 400 and "move must be in 0.." in answer["error"]
    got, header = call(app, "POST", "/api/replays", {"name": "sub/dabang-game.json"})
    assert got == 201 and header["game"] == "dabang"
    got, answer = call(app, "POST", "/api/replays", {"name": "broken.json"})
    assert got == 400 and "broken.json: missing fields" in answer["error"]
    got, answer = call(app, "POST", "/api/replays", {"name": "../secret.json"})
    assert got == 404 and "no record" in answer["error"]


def test_uploaded_records_are_checked_like_files(tmp_path):
    path, _ = write_record(tmp_path)
    app = App(checkpoint_dir=None, records_dir=str(tmp_path / "none"))
    text = open(path, encoding="utf-8").read()
    got, header = call(app, "POST", "/api/replays", {"text": text, "filename": "mine.json"})
    assert got == 201 and header["source"] == "mine.json"
    data = json.loads(text)
    data["actions"][0] = 0  # a pass where the 硬牌 decision is due
    bad = [("not json", "mine.json: not JSON"),
           (json.dumps({"hello": 1}), "mine.json: not a cardenv game record"),
           (json.dumps(data), "mine.json: move 1 (actions[0]): action 0 (pass) is illegal")]
    for body, error in bad:
        got, answer = call(app, "POST", "/api/replays", {"text": body, "filename": "mine.json"})
        assert got == 400 and answer["error"].startswith(error), answer
    got, answer = call(app, "GET", "/api/records")
    assert answer["files"] == [] and not answer["exists"]


# --- HTTP ----------------------------------------------------------------------------------------

def test_the_http_server_serves_the_page_and_the_api():
    server = make_server(App(checkpoint_dir=None), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with urllib.request.urlopen(base + "/") as response:
            assert response.headers["Content-Type"].startswith("text/html")
            assert b'<script src="/static/app.js">' in response.read()
        for name, kind in (("app.js", "javascript"), ("style.css", "text/css")):
            with urllib.request.urlopen(f"{base}/static/{name}") as response:
                assert kind in response.headers["Content-Type"]
        request = urllib.request.Request(base + "/api/games", method="POST",
                                         data=json.dumps({"game": "dabang", "seat": 2}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            assert response.status == 201 and json.load(response)["seat"] == 2
        for path, data, status in (("/static/../server.py", None, 404),
                                   ("/api/games", b"{oops", 400),
                                   ("/api/games/gone", None, 404)):
            request = urllib.request.Request(base + path, data=data,
                                             method="POST" if data else "GET")
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(request)
            assert info.value.code == status
            assert "error" in json.load(info.value)
    finally:
        server.shutdown()
        server.server_close()


def test_the_command_line_checks_its_arguments(capsys):
    from cardenv.web.__main__ import main
    with pytest.raises(SystemExit):
        main(["--port", "70000"])
    assert "--port must be in 0..65535" in capsys.readouterr().err


def test_python_m_cardenv_web_serves_until_stopped(tmp_path):
    import subprocess
    import sys
    root = str(ROOT)  # this checkout's cardenv
    process = subprocess.Popen(
        [sys.executable, "-m", "cardenv.web", "--port", "0", "--records", str(tmp_path),
         "--checkpoints", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=os.path.abspath(root)))
    try:
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line + process.stderr.read()
        with urllib.request.urlopen(url.group(0) + "api/info", timeout=30) as response:
            info = json.load(response)
        assert info["records_dir"] == str(tmp_path) and info["checkpoints"] == []
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stdout.close()
        process.stderr.close()


def test_the_page_ships_with_the_package():
    from importlib.resources import files
    static = files("cardenv.web") / "static"
    for name in ("index.html", "app.js", "style.css"):
        assert (static / name).is_file()
    for name in ("index.html", "app.js", "style.css"):  # nothing fetched from elsewhere
        assert not re.search(r"https?://", (static / name).read_text(encoding="utf-8")), name


def test_finished_games_are_saved_as_records_the_viewer_lists(tmp_path):
    """With save_records (the command line's default), a game that ends is written once into
    the records folder, replays to the same result, and is listed by the viewer."""
    from cardenv import records
    app = App(checkpoint_dir=None, records_dir=str(tmp_path), save_records=True)
    message = new_game(app, "dabang", 2, seed=3)
    assert message["record"] is None and not list(tmp_path.iterdir())
    message, _ = play_whole_game(app, message, np.random.default_rng(1), use_cards=False)
    assert message["record"] and (tmp_path / message["record"]).exists()
    record = records.load(str(tmp_path / message["record"]))
    assert record.players[2] == "human" and record.returns == session_of(app, message).state.returns
    _, listed = call(app, "GET", "/api/records")
    assert [f["name"] for f in listed["files"]] == [message["record"]]
    # without it (the tests' and the API's default), nothing is written
    quiet = App(checkpoint_dir=None, records_dir=str(tmp_path / "quiet"))
    play_whole_game(quiet, new_game(quiet, "dagong", 0, seed=1), np.random.default_rng(2),
                    use_cards=False)
    assert not (tmp_path / "quiet").exists()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_illegal_move_id_is_refused_in_the_page_language(lang):
    """The reason an illegal move id is refused reads in the page's language, as the rest."""
    app = App(checkpoint_dir=None)
    message = new_game(app, "dagong", 0, seed=0)
    game = session_of(app, message).game
    xi = next(a for a in range(game.num_actions) if game.action_info(a).type == "7xi")
    status, answer = call(app, "POST", f"/api/games/{message['id']}/move?lang={lang}",
                          {"action": xi, "version": message["version"]})
    assert status == 400 and answer["error"].startswith("illegal move: ")
    if lang == "en":
        assert "7-joy" in answer["error"] and not re.search(r"[\u4e00-\u9fff]", answer["error"])
    else:
        assert "7喜" in answer["error"]
