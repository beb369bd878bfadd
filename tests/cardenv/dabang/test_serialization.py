"""Dabang clone(), saved states as recipes (to_dict()/from_dict() through JSON), replays of
seeded games and of hands dealt from a given deck (``game.replay(seed, actions, deal)``), and
saved states checked through replay: each corruption is a ``StateError`` naming the field, or the
first history step that breaks a rule (``history[k]: illegal action ... : <the rule's words>``);
bad options a ``ConfigError``. Older formats: tests/cardenv/core/test_state_old_formats.py;
mutations of every field: test_state_fuzz.py."""

import json
import re

import numpy as np
import pytest

from cardenv.core.errors import ConfigError, StateError
from cardenv.dabang import DabangGame, DabangState
from cardenv.dabang import catalogue as cat
from cardenv.dabang.game import DECK
from cardenv.dabang.reasons import CLAUSES, refusal
from tests.cardenv.dabang.positions import sample_positions
from tests.state_mutations import rule_breaking_step


def advance(state, rng, steps):
    for _ in range(steps):
        if state.is_over:
            return
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])


def finish(state, rng):
    while not state.is_over:
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("options", [{}, {"episode": "match", "max_hands": 3}])
def test_json_round_trip_and_continuation(options):
    game = DabangGame(**options)
    for seed in range(12):
        s = game.new_state(seed)
        advance(s, np.random.default_rng(seed), 5 + seed * 37)
        restored = DabangState.from_dict(json.loads(json.dumps(s.to_dict())))
        assert restored.to_dict() == s.to_dict()
        assert restored.legal_actions() == s.legal_actions()
        for seat in range(4):
            assert np.array_equal(restored.observation(seat), s.observation(seat))
        finish(s, np.random.default_rng(99))
        finish(restored, np.random.default_rng(99))
        assert restored.to_dict() == s.to_dict()


def test_clone_is_independent():
    s = DabangGame(episode="match", max_hands=2).new_state(7)
    advance(s, np.random.default_rng(0), 120)
    before = s.to_dict()
    c = s.clone()
    assert c.to_dict() == before
    finish(c, np.random.default_rng(1))
    assert s.to_dict() == before
    finish(s, np.random.default_rng(1))
    assert s.to_dict() == c.to_dict()


def test_replay_reproduces_a_seeded_match():
    game = DabangGame(episode="match", max_hands=3)
    s = game.new_state(2024)
    finish(s, np.random.default_rng(5))
    again = game.replay(2024, s.history)
    assert again.to_dict() == s.to_dict()


def test_hands_is_read_only():
    with pytest.raises(ValueError, match="read-only"):
        DabangGame().new_state(0).hands[0, 0] = 3


@pytest.mark.parametrize("damage, message", [
    (lambda d: d.pop("history"), r"lacks \['history'\]"),
    (lambda d: d.update(format="x"), "not a saved Dabang state"),
    # the buffer, the phase parts, the generator are not stored: the replay makes them
    (lambda d: d.update(buffer=[0] * 5), r"unknown keys \['buffer'\]"),
    (lambda d: d.update(phase="bidding"), r"unknown keys \['phase'\]"),
    (lambda d: d.update(cards_left=[0, 0, 0, 0]), r"unknown keys \['cards_left'\]"),
    (lambda d: d.update(trick={"stage": "play"}, kitty=[1, 2, 3]),
     r"unknown keys \['kitty', 'trick'\]"),
    (lambda d: d.update(rng={"bit_generator": "nonsense"}), r"unknown keys \['rng'\]"),
    (lambda d: d.update(options={"episode": "forever"}), "invalid"),
    (lambda d: d.update(seed=d["seed"] + 1), r"history\[\d+\]: illegal|another position"),
])
def test_malformed_state_is_rejected(damage, message):
    s = DabangGame().new_state(3)
    advance(s, np.random.default_rng(0), 60)
    data = s.to_dict()
    damage(data)
    with pytest.raises(ValueError, match=message):
        DabangState.from_dict(data)


def test_a_saved_state_is_its_recipe():
    s = DabangGame(episode="match", max_hands=2).new_state(5)
    advance(s, np.random.default_rng(1), 300)
    saved = s.to_dict()
    assert saved == {"format": "cardenv.dabang.state/4", "options": s.game.options_dict(),
                     "seed": 5, "deal": None, "history": s.history,
                     "results": [r.to_dict() for r in s.results], "crc": s.crc()}
    bare = {k: saved[k] for k in ("format", "options", "seed", "history")}
    assert DabangState.from_dict(bare).to_dict() == saved  # deal, results, crc: optional


@pytest.mark.parametrize("options, steps", [({}, 0), ({}, 150), ({"dealer": "random",
                                            "levels": "random", "blood": "random"}, 5),
                                           ({"episode": "match", "max_hands": 3}, 700)])
def test_an_edited_seed_is_refused(options, steps):
    """Issue 22: a saved state whose seed was edited used to load and play on (its record then
    failed to replay); the replay of another seed deals other cards (and, with the random
    options, another dealer, other levels and another blood)."""
    s = DabangGame(**options).new_state(8)
    advance(s, np.random.default_rng(2), steps)
    for seed in (7, 9, 10 ** 12):
        data = dict(s.to_dict(), seed=seed)
        with pytest.raises(StateError, match=r"history\[\d+\]: illegal|replays to another "
                                             r"position|results"):
            DabangState.from_dict(data)


def test_hands_dealt_from_a_given_deck_round_trip_with_their_later_hands():
    game = DabangGame(episode="match", max_hands=3)
    deck = np.random.default_rng(4).permutation(DECK).tolist()
    s = game.new_state(12, deck=deck, first_seat=3)
    assert s.to_dict()["deal"] == {"deck": deck, "first_seat": 3}
    finish(s, np.random.default_rng(3))  # the later hands are dealt from the seed
    assert len(s.results) >= 2 and s.to_dict()["deal"] == {"deck": deck, "first_seat": 3}
    again = DabangState.from_dict(json.loads(json.dumps(s.to_dict())))
    assert again.to_dict() == s.to_dict()
    deal = s.to_dict()["deal"]
    assert game.replay(12, s.history, deal=deal).to_dict() == s.to_dict()
    assert game.replay(12, [], deal=deal).to_dict() == game.new_state(12, deck=deck,
                                                                      first_seat=3).to_dict()
    partway = game.replay(12, s.history[:9], deal=deal)
    assert partway.history == s.history[:9] and partway.given_deal == deal
    only_seat = game.replay(12, [], deal={"deck": None, "first_seat": 1})
    assert only_seat.start_seat == 1 and only_seat.to_dict()["deal"] == {"deck": None,
                                                                          "first_seat": 1}
    with pytest.raises(ValueError, match="deck must hold the 216 cards"):
        game.replay(12, [], deal={"deck": deck[1:] + deck[:1] * 2, "first_seat": 3})
    with pytest.raises(StateError):  # another seed deals other later hands
        DabangState.from_dict(dict(s.to_dict(), seed=13))


def test_old_format_is_refused():
    s = DabangGame().new_state(3)
    advance(s, np.random.default_rng(0), 60)
    data = s.to_dict()
    assert data["format"] == "cardenv.dabang.state/4"
    data["format"] = "cardenv.dabang.state/1"
    with pytest.raises(StateError, match="old format 'cardenv.dabang.state/1'.*does not load"):
        DabangState.from_dict(data)


# --- each corruption of a saved state is refused, through replay ---------------------------------

POSITIONS = {
    **sample_positions({}, range(0, 6)),
    **{f"match_{kind}": s for kind, s in
       sample_positions({"episode": "match", "max_hands": 3}, range(10, 14)).items()},
    **{f"later_{kind}": s for kind, s in
       sample_positions({"dealer": 1, "levels": [5, 7], "blood": 4,
                         "tribute_return": "dealer_choice"}, range(20, 30)).items()},
    # a hand dealt from a given deck and first seat, some way in
    "custom": DabangGame().new_state(3, deck=list(DECK[::-1]), first_seat=2),
}
advance(POSITIONS["custom"], np.random.default_rng(5), 30)


def recipe(position: str) -> dict:
    return json.loads(json.dumps(POSITIONS[position].to_dict()))


# (position, the rule (reasons.CLAUSES), its clause, where: "end" appends the step to the
# position's history, "first" puts it at the first step of the history where it can stand)
STEP_RULES = [
    ("declare", "phase", "the 亮主 takes declarations and passes only (the hand's phases)",
     "end"),
    ("over", "grab", "[D-A2] the big-joker grab: the first grab stands, with a big joker",
     "first"),
    ("later_declare", "grab", "[D-A2] no grab in a match's later hand", "end"),
    ("match_over", "declare_rank", "[D-A4] [DB-3] a declaration overrides only a strictly "
                                   "higher one", "first"),
    ("later_return", "not_held", "[D-A5] option tribute_return: the dealer gives back cards "
                                 "it holds", "end"),
    ("bury", "not_held", "section 3: the dealer buries cards it holds (216 cards conserved)",
     "end"),
    ("over", "joker_order", "section 3: a big joker into the 底牌 before any small joker",
     "first"),
    ("koujoker", "koujoker", "[D-A6] 扣王 buries jokers only", "end"),
    ("takeback", "takeback", "[DB-7] 扣王 takes back the 底牌's smallest non-point cards", "end"),
    ("over", "takeback", "[DB-7] the take-back, at a step inside the history", "first"),
    ("follow", "suit", "section 4: follow suit (trump is one suit)", "end"),
    ("over", "shape", "[D-A7] 死棒: the follow-shape duty", "first"),
    ("follow", "repeat", "[DB-9] a follow is built one group of identical cards per kind",
     "end"),
    ("follow", "count", "section 4: every other player plays exactly k cards", "end"),
    ("lead", "not_held", "section 4: a lead is made of cards the leader holds", "end"),
    ("later_follow", "suit", "section 4: follow suit, in a later hand with tribute", "end"),
    ("custom", "not_held", "a hand dealt from a given deck: its cards", "end"),
    ("over", "over", "option episode='hand': one hand, then no step", "end"),
    ("match_between_hands", "phase", "a match goes on with the next hand's 亮主", "end"),
]


@pytest.mark.parametrize("position, rule, clause, where", STEP_RULES,
                         ids=[f"{p}-{r}-{w}" for p, r, _, w in STEP_RULES])
def test_a_step_that_breaks_a_rule_is_refused_naming_it(position, rule, clause, where):
    data = recipe(position)
    DabangState.from_dict(data)  # the position itself loads
    start = len(data["history"]) if where == "end" else 0
    k, before, action, mutated = rule_breaking_step(DabangState, data, refusal, rule, start)
    assert (k == len(data["history"])) == (where == "end")
    words = refusal(before, action).text
    with pytest.raises(StateError) as info:
        DabangState.from_dict(mutated)
    message = str(info.value)
    if rule == "over":
        expected = rf"history\[{k}\]: the episode is over; no action is legal"
    else:
        expected = (rf"history\[{k}\]: illegal action {action} \(.*\) for player_"
                    rf"{before.current} in the {before.phase} phase: {re.escape(words)}; legal "
                    rf"actions: .*")
    assert re.fullmatch("saved Dabang state: " + expected, message), message
    assert rule in CLAUSES


def set_in(*path_and_value):
    """A corruption setting the item at ``path`` of the saved dict (``value(old)`` if
    callable)."""
    *path, value = path_and_value

    def corrupt(data, state):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value(target[path[-1]]) if callable(value) else value
    return corrupt


def unset(*path):
    def corrupt(data, state):
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return corrupt


def swap_deck(i, j):
    def change(deck):
        deck[i], deck[j] = deck[j], deck[i]
        return deck
    return change


def differs(key="\\w+", i=0):
    """The refusal of a saved result that the replay does not give (naming the item)."""
    return rf"results\[{i}\]\['{key}'\] is .* in the saved state but .* on replay"


NOT_WHAT_IT_GIVES = differs()
ANOTHER_POSITION = r"its recipe replays to another position \(crc \d+, saved \d+\)"
REPLAY = r"history\[\d+\]: illegal action|results|" + ANOTHER_POSITION

CORRUPTIONS = [
    # (position, what the row checks, corruption, message fragment)
    # format 3's stored parts are not read any more; its deal part is not a recipe's deal
    ("lead", "format 3's fields", lambda d, s: d.update(
        start_seat=0, last_trick_team=None, tribute={}, kitty={}, trick={}),
     r"unknown keys \['kitty', 'last_trick_team', 'start_seat', 'tribute', 'trick'\]"),
    ("lead", "format 3's deal part", set_in("deal", {"deck": list(DECK), "pos": 5}),
     "bad deal: a Dabang deal is a dict with keys 'deck' and 'first_seat'"),
    # the deal: a given deck holds the 216 cards of four decks; the first seat
    ("custom", "216 cards: a fifth copy of a kind", set_in(
        "deal", "deck", lambda d: [d[100]] + d[1:]), "bad deal: deck must hold the 216 cards"),
    ("custom", "216 cards: one missing", set_in("deal", "deck", lambda d: d[1:]),
     "bad deal: deck must hold the 216 cards"),
    ("custom", "the deck's order deals the hands", set_in("deal", "deck", swap_deck(0, 100)),
     REPLAY),
    ("custom", "a deck kind out of range", set_in("deal", "deck", 0, 54),
     "bad deal: deck must hold the 216 cards"),
    ("custom", "a deck card of a wrong type", set_in("deal", "deck", 0, 1.5),
     r"bad deal: deal deck must be null or a list of 216 card kinds"),
    ("custom", "[DB-1] the first hand deals from the first seat", set_in(
        "deal", "first_seat", lambda x: (x + 1) % 4), REPLAY),
    ("custom", "the first seat is a seat", set_in("deal", "first_seat", 4),
     "bad deal: first_seat must be a seat 0..3, got 4"),
    ("later_lead", "[DB-1] a later hand starts at its dealer", set_in(
        "deal", {"deck": None, "first_seat": 2}),
     "bad deal: in a later hand the first seat is the dealer"),
    ("declare", "a seeded game dealt from a deck", set_in(
        "deal", {"deck": list(DECK[::-1]), "first_seat": None}), REPLAY),
    ("custom", "the deal's keys", unset("deal", "first_seat"),
     "bad deal: a Dabang deal is a dict with keys"),
    # the seed deals the cards: an edited seed is refused (issue 22)
    ("declare", "the seed deals the first hand", set_in("seed", lambda x: x + 1),
     ANOTHER_POSITION),
    ("follow", "the seed, mid-hand", set_in("seed", lambda x: x + 1), REPLAY),
    ("match_between_hands", "the seed deals the next hand", set_in("seed", lambda x: x + 1),
     REPLAY),
    ("lead", "seed (nan)", set_in("seed", float("nan")), "seed must be an int"),
    # the options the recipe was played under
    ("later_lead", "[D-A5] option blood: the tribute paid", set_in(
        "options", "blood", 1), REPLAY),
    ("later_lead", "option levels: the level played", set_in("options", "levels", [6, 7]),
     REPLAY),
    ("later_lead", "option dealer", set_in("options", "dealer", 2), REPLAY),
    ("later_takeback", "[D-A5] option tribute_return: nothing is given back", set_in(
        "options", "tribute_return", "none"), REPLAY),
    ("match_between_hands", "option max_hands: the match ends", set_in(
        "options", "max_hands", 1), r"history\[\d+\]: the episode is over|" + ANOTHER_POSITION),
    ("over", "option episode: a match goes on after the hand", set_in(
        "options", "episode", "match"), REPLAY),
    ("over", "[DB-10] option deal_value: the hand's reward", set_in("options", "deal_value", 2),
     NOT_WHAT_IT_GIVES),
    ("lead", "options (an unknown one)", set_in("options", "colour", "red"), None),
    # the results the history gives (section 5, [D-A8] [D-A9])
    ("over", "results (rewards)", set_in("results", 0, "rewards", [1.0, 1.0, 1.0, 1.0]),
     differs("rewards")),
    ("over", "results (nan)", set_in("results", 0, "rewards", 0, float("nan")),
     differs("rewards")),
    ("over", "results (400 points)", set_in("results", 0, "trick_points",
                                            lambda p: [p[0] + 5, p[1]]), differs("trick_points")),
    ("over", "results (dealer)", set_in("results", 0, "dealer", "x"), differs("dealer")),
    ("over", "results (a key missing)", unset("results", 0, "score"),
     r"results\[0\]\['score'\] is absent in the saved state but \d+ on replay"),
    ("over", "results (扣底)", set_in("results", 0, "koudi", lambda k: not k),
     differs("koudi")),
    ("match_between_hands", "[D-A8] results (levels after)", set_in(
        "results", 0, "levels_after", [10, 10]), differs("levels_after")),
    ("match_between_hands", "[D-A9] results (the next dealer)", set_in(
        "results", 0, "next_dealer", lambda x: (x + 1) % 4), differs("next_dealer")),
    ("over", "results of a hand that ended", set_in("results", []),
     r"results holds 0 hand result\(s\) but its history finishes 1"),
    ("lead", "results of a hand going on", set_in(
        "results", lambda r: [POSITIONS["over"].results[0].to_dict()]),
     r"results holds 1 hand result\(s\) but its history finishes 0"),
    ("over", "results (not a list)", set_in("results", {}), "results must be a list"),
    # the history against the results and the crc
    ("match_between_hands", "history (the hand's last play dropped)", set_in(
        "history", lambda h: h[:-1]), r"results holds 1 hand result\(s\) but its history "
                                      r"finishes 0"),
    ("follow", "history (a step dropped)", set_in("history", lambda h: h[:-1]),
     ANOTHER_POSITION),
    ("follow", "history (a legal step added)", lambda d, s: d["history"].append(
        s.legal_actions()[0]), ANOTHER_POSITION),
    ("follow", "history (out of range)", set_in("history", 0, cat.NUM_ACTIONS),
     rf"history\[0\] must be an int in 0..{cat.NUM_ACTIONS - 1}"),
    ("lead", "crc", set_in("crc", lambda c: c ^ 1), ANOTHER_POSITION),
    ("lead", "crc (a float)", set_in("crc", 1.5), "crc must be an int"),
]


@pytest.mark.parametrize("position, what, corrupt, message", CORRUPTIONS,
                         ids=[f"{i}-{row[0]}-{row[1][:30]}" for i, row in enumerate(CORRUPTIONS)])
def test_corruption_is_refused_naming_the_field(position, what, corrupt, message):
    state = POSITIONS[position]
    data = recipe(position)
    DabangState.from_dict(recipe(position))  # the position itself loads
    corrupt(data, state)
    error = ConfigError if message is None else StateError
    with pytest.raises(error, match=message or "bad options: .*unknown option") as info:
        DabangState.from_dict(data)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("options, message", [
    ({"deal_value": float("inf")}, "deal_value=inf is invalid"),
    ({"deal_value": float("nan")}, "deal_value=nan is invalid"),
    ({"levels": np.array([3, 5]), "dealer": 0}, "levels=array"),
    ({"dealer": True}, "dealer=True is invalid"),
    ({"blood": True, "dealer": 0}, "blood=True is invalid"),
    ({"max_hands": 0, "episode": "match"}, "max_hands=0 is invalid"),
])
def test_bad_options_are_config_errors(options, message):
    with pytest.raises(ConfigError, match=message):
        DabangGame(**options)


def test_numpy_options_become_python_values():
    game = DabangGame(dealer=np.int64(1), blood=np.int64(2), levels=[np.int64(4), 5])
    assert game.options["blood"] == 2 and type(game.options["blood"]) is int
    assert game.options["levels"] == (4, 5) and type(game.options["levels"][0]) is int
    assert json.loads(json.dumps(game.new_state(0).to_dict()))["options"]["blood"] == 2


def test_bad_options_in_a_saved_state_are_config_errors():
    data = POSITIONS["lead"].to_dict()
    data["options"]["deal_value"] = float("inf")
    with pytest.raises(ConfigError, match="bad options.*deal_value=inf"):
        DabangState.from_dict(data)


# --- the public facts of issue 10: declarations shown, flips passed, 扣王 kinds, take-backs ---

def _find(options, wanted, policy=None, deck=None):
    """The first state of random games (declaring and burying jokers often) where ``wanted``."""
    from tests.cardenv.dabang.test_no_leak import choose

    game = DabangGame(**options)
    for seed in range(200):
        state, rng = game.new_state(seed, deck=deck), np.random.default_rng(seed)
        while not state.is_over:
            if wanted(state):
                return state
            state.apply(choose(state, rng, policy))
    raise AssertionError("no such state")


def _overridden(state):
    return state.phase == "bury" and (state.v["declared_cards"] > 0).sum() >= 2


def _kou_both_kinds(state):
    kinds = state.v["koujoker_kinds"]
    return state.phase == "play" and (kinds[:, 0] != kinds[:, 1]).any()


def _later_declared(state):
    return state.phase == "bury" and state.deal.decl != 0


def _flipped(state):
    return state.phase == "bury" and state.v["flip_jokers"].any()


def _flip_deck():
    from tests.cardenv.dabang.test_no_leak import FLIP_KITTIES, flip_deck
    return flip_deck(0, FLIP_KITTIES[0])


LATER = {"dealer": 1, "levels": (5, 7)}
PUBLIC_PIECES = [  # (options, the state wanted, policy, deck, buffer piece, its rule)
    (LATER, _overridden, None, None, "declared_cards",
     "[D-A4] overridden declarations stay public (tests/cardenv/dabang/test_declaration.py)"),
    (LATER, _later_declared, None, None, "declared_cards", "[D-A4] a later hand's declaration"),
    ({}, _flipped, "silent", _flip_deck(), "flip_jokers",
     "[D-A3] the jokers flipped past are public (tests/cardenv/dabang/test_declaration.py)"),
    (LATER, _kou_both_kinds, None, None, "koujoker_kinds",
     "[D-A6] the jokers buried by 扣王 are public (tests/cardenv/dabang/test_kitty.py)"),
    (LATER, _kou_both_kinds, None, None, "taken_back",
     "[DB-7] the cards taken back are public (tests/cardenv/dabang/test_kitty.py)"),
]


@pytest.mark.parametrize("options, wanted, policy, deck, piece, rule", PUBLIC_PIECES,
                         ids=[f"{row[4]}-{i}" for i, row in enumerate(PUBLIC_PIECES)])
def test_new_public_pieces_come_back_from_the_replay(options, wanted, policy, deck, piece, rule):
    """The public facts of issue 10 are pieces of the buffer that the engine writes as it plays
    (its rule tests named in each row check them); a saved state replays them, from the custom
    deck too, and an edit of the step that made them is refused."""
    state = _find(options, wanted, policy, deck)
    assert state.v[piece].any()
    data = json.loads(json.dumps(state.to_dict()))
    assert (data["deal"] is None) == (deck is None)
    again = DabangState.from_dict(data)
    assert np.array_equal(again.v[piece], state.v[piece])
    assert np.array_equal(again.buffer, state.buffer)
    data["history"] = data["history"][:-1]
    with pytest.raises(StateError, match="replays to another position|results holds"):
        DabangState.from_dict(data)
