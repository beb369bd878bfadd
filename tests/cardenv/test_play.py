"""Terminal play (issue 12): a person plays a seat against agents, or watches four agents.

Whole hands of both games are driven with scripted input, in process and through a real
subprocess's stdin; typed moves, Dabang follows typed as cards, invalid input and the seat view
are checked against the engine."""

import re
import subprocess
import sys

import numpy as np
import pytest

from cardenv import moves, play
from cardenv.games import make_game
from cardenv.text import render
from tests import ROOT


class Script:
    """Answers the prompts from a list, then with ``fallback`` (e.g. '1': the first move)."""

    def __init__(self, lines, fallback="1"):
        self.lines, self.fallback, self.prompts = list(lines), fallback, 0

    def __call__(self, prompt=""):
        self.prompts += 1
        return self.lines.pop(0) if self.lines else self.fallback


def run(argv, lines=(), fallback="1"):
    """Terminal play on scripted input. A deal is drawn at random without --seed
    (tests/test_bad_inputs.py checks that): here seed 0 unless the test names one, so that
    what a test asserts of the hand does not depend on the draw."""
    out = []
    script = Script(lines, fallback)
    if "--seed" not in argv:
        argv = [*argv, "--seed", "0"]
    play.main(argv, read_line=script, write=out.append)
    return "\n".join(out), script


@pytest.mark.parametrize("game, extra", [("dagong", []), ("dabang", [])])
def test_whole_hand_against_agents(game, extra, tmp_path):
    text, script = run([game, "--seat", "1", "--opponents", "heuristic,random,heuristic",
                        "--record", str(tmp_path)] + extra)
    assert script.prompts > 5
    assert "=== Hand 1 over ===" in text and "Your reward" in text and "You " in text
    # the human's seat view, never the spectator table
    assert "you are player_1" in text
    records = list(tmp_path.iterdir())
    assert len(records) == 1
    from cardenv import records as rec
    record = rec.load(str(records[0]))
    assert record.players == ["heuristic", "human", "random", "heuristic"]
    states = list(rec.replay(record))
    assert states[-1].is_over and states[-1].returns == record.returns


def test_typed_moves_and_invalid_input():
    game = make_game("dagong")
    state = game.new_state(0)
    while state.phase == "solo":
        state.apply(state.legal_actions()[0])
    legal = moves.numbered(game, state.legal_actions())
    texts = [game.action_info(a).text for a in legal]
    ident = lambda t: t  # noqa: E731
    # a number, an exact text, a unique beginning
    assert moves.parse_move(state, "1", ident) == [legal[0]]
    assert moves.parse_move(state, str(len(legal)), ident) == [legal[-1]]
    assert moves.parse_move(state, texts[-1].upper(), ident) == [legal[-1]]
    with pytest.raises(ValueError, match="not in the list"):
        moves.parse_move(state, str(len(legal) + 1), ident)
    with pytest.raises(ValueError, match="not a legal move here"):
        moves.parse_move(state, "quintuple 9", ident)
    # an ambiguous beginning lists the candidates
    kinds = [t.split()[0] for t in texts]
    repeated = next(k for k in kinds if kinds.count(k) > 1)
    with pytest.raises(ValueError, match="could be"):
        moves.parse_move(state, repeated, ident)
    # the game loop reports the problem and asks again; the state is unchanged meanwhile
    text, _ = run(["dagong", "--seat", "0", "--opponents", "random", "--no-record"],
                  ["pair 2 3 4", "99999", "1"])
    assert "Not played: 'pair 2 3 4' is not a legal move here" in text
    assert "Not played: 99999 is not in the list" in text


def _follow_position(seed):
    """A Dabang state where the seat to act follows a lead of 2+ cards, and the cards of one
    legal follow (found by stepping the engine)."""
    rng = np.random.default_rng(seed)
    state = make_game("dabang").new_state(seed)
    while not state.is_over:
        seat = state.current_player
        if state.phase == "play" and state.trick.plays and state.trick.k >= 2 \
                and not state.v["selection"][seat].any():
            trial, cards = state.clone(), []
            while trial.current_player == seat and trial.phase == "play" and \
                    (not cards or trial.v["selection"][seat].any()):
                action = int(rng.choice(trial.legal_actions()))
                info = state.game.action_info(action)
                cards += [info.kind] * ({"single": 1, "pair": 2, "triple": 3, "quad": 4}
                                        [info.text.split()[0]])
                trial.apply(action)
            return state, cards, trial
        state.apply(int(rng.choice(state.legal_actions())))
    raise AssertionError("no follow of 2+ cards in this hand")


@pytest.mark.parametrize("seed", range(4))
def test_dabang_follow_typed_as_cards(seed):
    from cardenv.core.cards import card_str
    state, cards, expected = _follow_position(seed)
    before = state.to_dict()
    typed = " ".join(card_str(k) for k in reversed(cards))  # any order of the cards
    actions = moves.parse_move(state, typed, lambda t: t)
    assert state.to_dict() == before  # planned on a copy
    trial = state.clone()
    for action in actions:
        trial.apply(action)
    assert not trial.v["selection"][state.current_player].any()
    # the same cards leave the same hand and trick as the engine's own steps
    assert np.array_equal(trial.v["hand"], expected.v["hand"])
    assert np.array_equal(trial.v["played"], expected.v["played"])
    # too few cards, or cards not held, are refused whole
    seat = state.current_player
    if len(cards) > 1:
        with pytest.raises(ValueError, match="cannot play"):
            moves.parse_move(state, card_str(cards[0]), lambda t: t)
    missing = next(k for k in range(52) if state.v["hand"][seat][k] == 0)
    with pytest.raises(ValueError):
        moves.parse_move(state, " ".join([card_str(missing)] * len(cards)), lambda t: t)
    assert state.to_dict() == before


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_seat_view_shows_no_other_hand(game):
    rng = np.random.default_rng(1)
    state = make_game(game).new_state(5)
    for step in range(400):
        if state.is_over:
            break
        if step % 25 == 0:
            for seat in range(4):
                view = render(state, seat=seat)
                assert f"you are player_{seat}" in view
                from cardenv.core.cards import hand_str
                for other in range(4):
                    cards = hand_str(state.v["hand"][other])
                    if other != seat and len(cards.split()) >= 5 and \
                            cards != hand_str(state.v["hand"][seat]):
                        assert cards not in view, (seat, other)
        state.apply(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("game, shows", [("dabang", ["Kitty:", "won the hand.", "Rewards: "]),
                                         ("dagong", [" won: ", "| places: "])])
def test_watch_four_agents(game, shows, tmp_path):
    text, script = run([game, "--agents", "heuristic,random,heuristic,random", "--delay", "0",
                        "--record", str(tmp_path)])
    assert script.prompts == 0  # --delay 0: nothing asked
    assert "=== Hand 1 over ===" in text and all(s in text for s in shows), text[-2000:]
    # the result names who won; nobody watching is "you"
    end = text[text.index("=== Hand 1 over ==="):]
    assert "You " not in end and "Your " not in end and "player_" in end
    assert len(list(tmp_path.iterdir())) == 1


def test_help_is_plain_text():
    text, _ = run(["dabang", "--seat", "0", "--no-record"], ["?", "quit"])
    words = " ".join(text.split())
    assert "the table again" in words and "(--seat)" in words and "``" not in text
    text, _ = run(["dabang", "--seat", "0", "--no-record", "--lang", "en"], ["?", "quit"])
    help_lines = text[text.index("Playing a seat"):text.index('"quit".') + 7].split("\n")
    assert "joker burial and take-back" in " ".join(text.split())
    assert not re.search(r"[\u4e00-\u9fff]", text) and max(map(len, help_lines)) <= 96


def test_bad_arguments():
    for argv, message in [
        (["dagong", "--seat", "4"], "--seat must be 0..3"),
        (["dagong", "--seat", "0", "--opponents", "random,random"], "1 or 3 players"),
        (["dagong", "--agents", "random,random"], "4 players"),
        (["dagong", "--seat", "0", "--opponents", "heuristik"], "did you mean 'heuristic'"),
        (["dagong", "--seat", "0", "--match"], "--match is for dabang"),
        (["dagong", "--seat", "0", "--agents", "random,random,random,random"], "give one"),
    ]:
        proc = subprocess.run([sys.executable, "-m", "cardenv.play", *argv], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and message in proc.stderr, (argv, proc.stderr)
        assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_whole_hand_through_stdin(game, tmp_path):
    """A real process reading a person's lines from its standard input."""
    proc = subprocess.run(
        [sys.executable, "-m", "cardenv.play", game, "--seat", "0", "--opponents", "heuristic",
         "--lang", "en", "--record", str(tmp_path)],
        input="help\nmoves\nnonsense\n" + "1\n" * 400, cwd=ROOT, capture_output=True,
        text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "=== Hand 1 over ===" in proc.stdout and "Your reward" in proc.stdout
    assert "Not played: 'nonsense'" in proc.stdout
    assert "Game record:" in proc.stdout
    assert len(list(tmp_path.iterdir())) == 1


def test_private_moves_of_others_stay_hidden():
    """The dealer's burial and the tribute's return are shown to the others only as such
    (the cards are the dealer's secret): issue 12 "the human sees only what its seat may know"."""
    import re
    seen_hidden = 0
    for seed in range(3):
        text, _ = run(["dabang", "--seat", "0", "--opponents", "heuristic", "--seed", str(seed),
                       "--set", "dealer=random", "--set", "levels=random", "--set", "blood=random",
                       "--set", "tribute_return=dealer_choice", "--no-record"])
        for seat, card in re.findall(r"player_(\d): bury (\S+)", text):
            assert seat == "0" or card in ("SJ", "BJ"), (seat, card)  # 扣王 jokers are public
        # the giver of the tribute (the dealer's 上家) sees the card given back: seat 0 gives
        # when player_1 deals; player_2 and player_3 return only to others
        assert not re.search(r"player_[23]: return ", text)
        seen_hidden += text.count("buries a card")
    assert seen_hidden > 0


def test_move_types_are_listed_by_label_and_more_takes_the_label_or_the_id():
    """The move list names types as people do (连对, not pair_run; pair run in English);
    'more TYPE' takes the label in either language or the type id."""
    from cardenv.core.lang import translate
    game = make_game("dagong")
    state = game.new_state(0)
    while state.phase == "solo":
        state.apply(state.legal_actions()[0])
    legal = state.legal_actions()
    ident = lambda t: t  # noqa: E731
    english = lambda t: translate(t, "en")  # noqa: E731
    zh, en = moves.moves_text(game, legal, ident), moves.moves_text(game, legal, english)
    assert "\n  连对: [" in zh and "\n  pair run: [" in en and "pair_run" not in zh + en
    assert "type 'more 连对'" in zh and "type 'more pair run'" in en
    runs = [a for a in legal if game.action_info(a).type == "pair_run"]
    assert len(runs) > moves.LIST_PER_TYPE
    last = game.action_info(runs[-1]).text
    for typed in ("连对", "pair run", "PAIR_RUN"):
        assert last in moves.moves_text(game, legal, english, expand=typed) or \
            translate(last, "en") in moves.moves_text(game, legal, english, expand=typed)
    assert last not in zh


def test_a_typed_move_that_is_not_legal_says_why():
    """A move of the game typed where it is illegal: the rule it breaks (cardenv.text
    .why_illegal), in the player's language."""
    game = make_game("dagong")
    state = game.new_state(0)
    while state.phase == "solo":
        state.apply(state.legal_actions()[0])
    with pytest.raises(ValueError, match="pass is not legal now: you lead this trick"):
        moves.parse_move(state, "pass", lambda t: t)
    text, _ = run(["dagong", "--seat", "0", "--seed", "0", "--opponents", "random",
                   "--no-record", "--lang", "en"], ["decline solo", "8-joy 8x3"] + ["1"] * 3)
    assert "Not played: 8-joy 8x3 is not legal now: your hand cannot make 8-joy 8x3" in text


def test_a_hand_over_in_a_longer_game_shows_its_result_not_the_next_deal():
    """With more hands to come the state has moved on to the next deal when a hand ends: the
    'Hand N over' block is that hand's result, never the next hand's table."""
    for game, extra in [("dagong", ["--set", "hands=2"]),
                        ("dabang", ["--match", "--set", "max_hands=2"])]:
        text, _ = run([game, "--agents", "random,random,random,random", "--delay", "0",
                       "--seed", "3", "--no-record", *extra])
        block = text.split("=== Hand 1 over ===")[1].split("\n\n")[0]
        assert "hand 2" not in block.lower() and "Rewards: " in block, block
        assert "=== Hand 2 over ===" in text


def test_more_of_a_type_that_is_not_listed_says_so():
    text, _ = run(["dagong", "--seat", "0", "--seed", "0", "--opponents", "random",
                   "--no-record", "--lang", "en"], ["more 扣王", "quit"])
    assert re.search(r"No '扣王' moves now: the types here are '(pass|decline solo)'", text)


def _dabang_phase(phase, options=None):
    """A seeded Dabang state in decision phase ``phase`` (random moves until it comes)."""
    game = make_game("dabang", **(options or {}))
    for seed in range(60):
        state, rng = game.new_state(seed), np.random.default_rng(seed)
        while not state.is_over:
            if str(state.phase) == phase:
                return state
            state.apply(int(rng.choice(state.legal_actions())))
    raise AssertionError(f"no {phase} phase")


@pytest.mark.parametrize("phase, options, move", [
    ("return", {"dealer": 1, "blood": 4, "tribute_return": "dealer_choice"}, "return"),
    ("koujoker", None, "bury"),
    ("takeback", None, "take back"),
])
def test_a_card_typed_alone_in_a_one_card_phase_is_that_move_or_says_why(phase, options, move):
    """Dabang's tribute return, 扣王 and take-back name one card: the card typed alone is that
    move when legal; otherwise the refusal is the rule it breaks, not 'not a legal move here'."""
    state = _dabang_phase(phase, options)
    game = state.game
    legal = state.legal_actions()
    named = [a for a in legal if game.action_info(a).type != "pass"]
    card = game.action_info(named[0]).text.split()[-1]
    assert moves.parse_move(state, card, lambda t: t) == [named[0]]
    for other in ("♠2", "♥4", "♣5", "SJ", "BJ"):
        try:
            actions = moves.parse_move(state, other, lambda t: t)
        except ValueError as exc:
            assert str(exc).startswith(f"{move} {other} is not legal now: "), exc
            assert "not a legal move here" not in str(exc)
        else:
            assert game.action_info(actions[0]).text == f"{move} {other}"


def test_the_log_shows_a_dabang_follow_once_whole_and_a_repeated_move_once():
    """'Since your last move' shows another seat's follow as one entry, its groups in card
    order (as the web page's log: the order of the steps is not shown), and a run of the same
    move (the dealer's eight burials) once with its count."""
    text, _ = run(["dabang", "--seat", "1", "--seed", "7", "--opponents", "heuristic",
                   "--no-record", "--lang", "en"])
    lines = [line.split(": ", 1)[1] for line in text.split("\n")
             if line.startswith(("Since your last move: ", "Last moves: "))]
    entries = [entry for line in lines for entry in line.split("; ")]
    assert any(" + " in entry for entry in entries)
    for before, after in zip(entries, entries[1:]):
        assert before != after, (before, after)
    assert any(entry.endswith("buries a card in the kitty (8 times)") for entry in entries)


@pytest.mark.parametrize("game", ["dagong", "dabang"])
def test_the_random_mode_writes_the_chosen_language(game, capsys):
    """Without --seat or --agents one random game is shown: in English under --lang en."""
    assert play.main([game, "--games", "0", "--seed", "1", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "hand 1" in out.lower() and not re.search(r"[\u4e00-\u9fff]", out)


@pytest.mark.parametrize("typed, says", [
    ("♠5 ♠10 ♠K", ["正510K ♠"]),
    ("4s 4h", ["pair 4"]),
    ("♦Q", ["single Q incl. called card"]),
    ("♠4 ♥4 SJ BJ", "could be 3 moves: [25] bomb 4x4 with 2 jokers, [34] pair run 3-4"),
    ("♠4 ♦9", "♠4 ♦9 is not a Dagong combination"),
    ("♣3", "you do not hold ♣3"),
])
def test_dagong_cards_typed_are_the_play_that_takes_them(typed, says):
    """Dagong cards typed in the terminal mean what the same selection means on the web page
    (cardenv.moves.card_moves): the one play that takes them, the choices, or why not."""
    game = make_game("dagong")
    state = game.state_from_hands(["♠4 ♥4 SJ BJ ♠5 ♠10 ♠K ♥5 ♦9 ♦Q", "♣3 ♣Q ♦Q", "♥3 ♥Q",
                                   "♠3 ♠Q"], dealer=0, called="♦Q")
    while state.phase == "solo":
        state.apply(1)
    if isinstance(says, list):
        assert [game.action_info(a).text
                for a in moves.parse_move(state, typed, lambda t: t)] == says
    else:
        with pytest.raises(ValueError) as refused:
            moves.parse_move(state, typed, lambda t: t)
        assert says in str(refused.value)


def test_cards_typed_where_no_card_is_played_say_so():
    """Cards typed in Dagong's 硬牌 decision or Dabang's declaration: why not, rather than
    'not a legal move here'."""
    from cardenv.core.cards import card_str
    dagong = make_game("dagong").new_state(1)
    assert dagong.phase == "solo"
    held = next(card_str(k) for k in range(54) if dagong.hands[dagong.current_player][k])
    with pytest.raises(ValueError, match="no card is played now"):
        moves.parse_move(dagong, held, lambda t: t)
    dabang = make_game("dabang").new_state(1)
    assert dabang.phase == "declare"
    with pytest.raises(ValueError, match="no card is played in the 亮主: declare with"):
        moves.parse_move(dabang, "♠4", lambda t: t)


def test_step_mode_stops_quietly_when_the_input_ends():
    """Watching with --step, the end of the input stops the game as 'q' does (no traceback)."""
    proc = subprocess.run([sys.executable, "-m", "cardenv.play", "dagong", "--agents",
                           "random,random,random,random", "--step", "--seed", "2", "--no-record"],
                          input="\n\n", cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.rstrip().endswith("Stopped.")


def test_two_levels_can_be_given_on_the_command_line(capsys):
    """Dabang's levels option wants two levels (team 0, team 1): '--set levels=5,7' gives
    them (the refusal asked for two levels, and no --set value could hold two)."""
    assert play.main(["dabang", "--set", "levels=5,7", "--set", "dealer=1", "--games", "0",
                      "--seed", "1"]) == 0
    assert "levels team0 5 : team1 7" in capsys.readouterr().out


def test_a_follow_typed_as_cards_is_echoed_as_the_log_shows_it():
    """'You play:' joins the groups of a Dabang follow with ' + ', as the log of another
    seat's follow (and the web page's) has it."""
    from cardenv.core.cards import card_str
    for seed in range(2, 12):
        state, cards, _ = _follow_position(seed)
        if len(set(cards)) > 1:
            break
    out = []
    table = play.Table(state.game, [None] * 4, 0, state.current_player, "en",
                       read_line=lambda prompt="": " ".join(card_str(k) for k in cards),
                       write=out.append)
    table.state = state
    assert len(table.ask()) > 1
    assert out[-1].startswith("You play: ") and " + " in out[-1] and ";" not in out[-1]
