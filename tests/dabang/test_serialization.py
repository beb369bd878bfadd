"""Dabang clone(), to_dict()/from_dict() through JSON, replays of seeded games, and saved states
checked field by field: each named corruption is a ``StateError`` naming the field, bad options
a ``ConfigError``."""

import json

import numpy as np
import pytest

from cardenv.core.errors import ConfigError, StateError
from cardenv.dabang import DabangGame, DabangState
from cardenv.dabang.declare import shown
from cardenv.dabang.observation import LAYOUT
from tests.dabang.positions import sample_positions


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
    (lambda d: d.pop("buffer"), "lacks"),
    (lambda d: d.update(format="x"), "not a serialized Dabang state"),
    (lambda d: d.update(buffer=d["buffer"][:-1]), "buffer must have shape"),
    (lambda d: d.update(phase="bidding"), "unknown keys \\['phase'\\]"),  # derived: not stored
    (lambda d: d.update(cards_left=[0, 0, 0, 0]), "unknown keys \\['cards_left'\\]"),
    (lambda d: d["deal"].pop("pos"), "deal lacks fields \\['pos'\\]"),
    (lambda d: d["trick"].update(stage="play"), "trick .*unknown ones \\['stage'\\]"),
    (lambda d: d.update(kitty=[1, 2, 3]), "kitty must be a dict of the Kitty fields"),
    (lambda d: d.update(rng={"bit_generator": "nonsense"}), "generator"),
    (lambda d: d.update(options={"episode": "forever"}), "invalid"),
])
def test_malformed_state_is_rejected(damage, message):
    s = DabangGame().new_state(3)
    advance(s, np.random.default_rng(0), 60)
    data = s.to_dict()
    damage(data)
    with pytest.raises(ValueError, match=message):
        DabangState.from_dict(data)


def test_card_conservation_is_checked():
    s = DabangGame().new_state(3)
    advance(s, np.random.default_rng(0), 80)
    data = s.to_dict()
    data["buffer"][0] += 1  # one more copy of ♦3 in seat 0's hand
    data["buffer"][LAYOUT.offsets["cards_left"]] += 1
    with pytest.raises(StateError, match="216 cards"):
        DabangState.from_dict(data)


def test_old_format_is_refused():
    s = DabangGame().new_state(3)
    advance(s, np.random.default_rng(0), 60)
    data = s.to_dict()
    assert data["format"] == "cardenv.dabang.state/3"
    data["format"] = "cardenv.dabang.state/1"
    with pytest.raises(StateError, match="old format 'cardenv.dabang.state/1'.*does not load"):
        DabangState.from_dict(data)


# --- each corruption of a saved state is refused, naming the field --------------------------------
# Format 2 stores only what cannot be derived (start_seat, last_trick_team and the phase parts);
# a corruption of a derived value (points, cards left, phase, current, trump, level, dealer,
# levels, returns, last rewards...) is written as the corruption of what it is derived from.

POSITIONS = {
    **sample_positions({}, range(0, 6)),
    **{f"match_{kind}": s for kind, s in
       sample_positions({"episode": "match", "max_hands": 3}, range(10, 14)).items()},
    **{f"later_{kind}": s for kind, s in
       sample_positions({"dealer": 1, "levels": [5, 7], "blood": 4,
                         "tribute_return": "dealer_choice"}, range(20, 30)).items()},
}


def piece(name, change):
    """A corruption of buffer piece ``name``: ``change(view, state)`` edits it in place."""
    def corrupt(data, state):
        buffer = np.array(data["buffer"], dtype=np.int64)
        change(LAYOUT.views(buffer)[name], state)
        data["buffer"] = buffer.tolist()
    return corrupt


def one_hot(seat_of):
    """Move a one-hot piece to ``seat_of(state)``."""
    def change(view, state):
        view[...] = 0
        view[seat_of(state)] = 1
    return change


def other_seat(state, seat):
    return next(s for s in ((seat + i) % 4 for i in (1, 2, 3)) if state.cards_left[s])


def move_points(view, state):
    """5 points from a seat that won some to the next seat (the other team)."""
    seat = int(np.argmax(view))
    view[seat] -= 5
    view[(seat + 1) % 4] += 5


def set_in(*path_and_value):
    *path, value = path_and_value

    def corrupt(data, state):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value(target[path[-1]]) if callable(value) else value
    return corrupt


CORRUPTIONS = [
    # (position, corruption, message fragment)
    ("lead", set_in("kitty", "cards", 0, lambda c: (c + 1) % 54),
     "kitty.cards .* disagrees with buffer piece 'kitty'"),
    ("lead", piece("points", lambda v, s: v.__setitem__(0, v[0] + 5)),
     "points \\(buffer piece 'points'\\)"),
    ("lead", piece("cards_left", lambda v, s: v.__setitem__(0, v[0] + 1)),
     "cards_left \\(buffer piece 'cards_left'\\)"),
    ("follow", piece("to_play", one_hot(lambda s: other_seat(s, s.current))),
     "current \\(buffer piece 'to_play'\\) must be seat"),
    ("bury", piece("to_play", one_hot(lambda s: (s.dealer + 1) % 4)),
     "current \\(buffer piece 'to_play'\\) must be the dealer"),
    ("declare", piece("to_play", one_hot(lambda s: (s.current + 1) % 4)),
     "current \\(buffer piece 'to_play'\\) must be seat"),
    ("koujoker", piece("to_play", one_hot(lambda s: s.dealer)),
     "current \\(buffer piece 'to_play'\\) must be seat"),
    ("later_return", piece("to_play", one_hot(lambda s: (s.dealer + 1) % 4)),
     "current \\(buffer piece 'to_play'\\) must be the dealer"),
    ("lead", lambda d, s: [piece(name, lambda v, s: v.fill(0))(d, s)
                           for name in ("phase", "to_play")],
     "shows the episode over, but its 0 results say it goes on"),
    ("lead", piece("phase", lambda v, s: v.fill(0)), "must both be zero"),
    ("lead", piece("phase", one_hot(lambda s: 2)), "kitty.buried: 8 cards buried, in the bury"),
    ("bury", piece("phase", one_hot(lambda s: 5)), "kitty.buried: 1 cards buried, in the play"),
    ("lead", piece("trump", one_hot(lambda s: (s.trump + 1) % 4)), "trump \\(buffer piece"),
    ("lead", piece("level", one_hot(lambda s: s.level - 2)), "level \\(buffer piece 'level'\\)"),
    ("lead", piece("dealer", one_hot(lambda s: (s.dealer + 1) % 4)),
     "dealer \\(buffer piece 'dealer'\\) must be the grabber"),
    ("later_lead", piece("dealer", one_hot(lambda s: (s.dealer + 2) % 4)),
     "dealer \\(buffer piece 'dealer'\\) must be 1"),
    ("later_lead", piece("levels", lambda v, s: v.__setitem__(slice(None), 4)),
     "levels \\(buffer piece 'levels'\\) must be \\[5, 7\\]"),
    ("lead", piece("levels", lambda v, s: v.fill(2)), "levels .* in 3..10"),
    ("lead", piece("levels", lambda v, s: v.__setitem__(0, 4)), "levels .* alike"),
    ("match_between_hands", set_in("results", 0, "levels_after", [10, 10]),
     "levels_after disagrees with the scoring rules"),
    # the trick against its pieces and the hands
    ("follow", set_in("trick", "leader", lambda x: (x + 1) % 4), "in turn from trick.leader"),
    ("follow", set_in("trick", "led_kind", lambda x: (x + 1) % 54), "trick.plays\\[0\\] must be"),
    ("follow", set_in("trick", "k", lambda x: x % 4 + 1), "led_count"),
    ("follow", set_in("trick", "partial", []), "buffer piece 'selection'"),
    ("follow", piece("selection", lambda v, s: v.fill(0)), "buffer piece 'selection'"),
    ("follow", set_in("trick", "to_play", lambda x: x[1:]), "trick.to_play"),
    ("follow", set_in("trick", "plays", 0, 0, lambda x: (x + 1) % 4), "trick.plays"),
    ("follow", piece("trick", lambda v, s: v.fill(0)), "buffer piece 'trick' must hold"),
    ("follow", piece("leader", one_hot(lambda s: (s.trick.leader + 1) % 4)),
     "buffer pieces 'leader' and 'led_count'"),
    ("follow", piece("led_count", lambda v, s: v.__setitem__(0, v[0] % 4 + 1)),
     "buffer pieces 'leader' and 'led_count'"),
    ("lead", set_in("last_trick_team", None), "last_trick_team must name the team"),
    ("first_lead", set_in("last_trick_team", 0), "no trick is won before it"),
    ("over", set_in("last_trick_team", lambda t: 1 - t), "last_trick_team must be"),
    # the deal, the cards and the deck
    ("declare", set_in("deal", "pos", lambda p: p + 1), "deal.pos"),
    ("declare", set_in("deal", "pos", lambda p: p - 1), "deal.pos"),
    ("declare", set_in("deal", "deck", lambda d: [d[1], d[0], *d[2:]]),
     "seat [0-9]'s cards .*deal.deck"),
    ("lead", set_in("deal", "deck", 0, lambda c: (c + 1) % 54), "deal.deck must hold the 216"),
    ("lead", lambda d, s: [piece("hand", lambda v, s: v.__setitem__((0, 53), v[0, 53] + 1))(d, s),
                           piece("cards_left", lambda v, s: v.__setitem__(0, v[0] + 1))(d, s)],
     "cards not conserved"),
    ("lead", set_in("start_seat", lambda x: (x + 1) % 4), "start_seat"),
    ("later_lead", set_in("start_seat", lambda x: (x + 1) % 4), "start_seat must be the dealer"),
    ("declare", set_in("deal", "ask_reason", None), "deal.ask_reason"),
    ("lead", set_in("deal", "decl", 0), "deal.declarer must be None exactly"),
    ("lead", piece("declarer", lambda v, s: v.fill(0)), "buffer piece 'declarer'"),
    ("lead", piece("kitty_revealed", lambda v, s: v.fill(0)), "kitty_revealed"),
    # tribute and the kitty
    ("later_lead", set_in("tribute", "cards", lambda c: c[1:]), "tribute.cards must be"),
    ("later_return", set_in("tribute", "returned", lambda r: r + 1), "tribute.returned"),
    ("later_lead", piece("tribute_known", lambda v, s: v.fill(0)), "'tribute_known'"),
    ("koujoker", set_in("kitty", "kou_cap", lambda c: c - 1), "kitty.kou_cap must be 8"),
    ("koujoker", set_in("kitty", "kou_seats", lambda x: x[1:]), "kitty.kou_seats"),
    ("koujoker", piece("koujoker", lambda v, s: v.__setitem__(s.current, v[s.current] + 1)),
     "'koujoker'"),
    ("bury", set_in("kitty", "buried", lambda b: b[:-1]), "kitty.cards must be the burial"),
    ("lead", piece("gangguo", lambda v, s: v.fill(1)), "gangguo \\(buffer piece 'gangguo'\\)"),
    ("lead", piece("kitty_shown", lambda v, s: v.fill(1 - v[0])), "kitty_shown"),
    ("lead", set_in("kitty", "public", lambda p: not p), "kitty.public"),
    # the match and the results
    ("over", set_in("results", 0, "rewards", [1.0, 1.0, 1.0, 1.0]), "rewards must be"),
    ("over", set_in("results", 0, "rewards", 0, float("nan")), "rewards\\[0\\] must be a finite"),
    ("over", set_in("results", 0, "trick_points", lambda p: [p[0] + 5, p[1]]),
     "must add up to the 400 points"),
    ("over", set_in("results", 0, "dealer", "x"), "results\\[0\\]: dealer must be an int"),
    ("over", set_in("results", 0, "dealer", 4), "results\\[0\\]: dealer must be an int in 0..3"),
    ("over", lambda d, s: d["results"][0].pop("score"), "results\\[0\\]: a hand result lacks"),
    ("over", set_in("results", 0, "koudi", lambda k: not k),
     "outcome disagrees with the scoring rules"),
    ("over", piece("points", move_points), "results\\[-1\\].trick_points disagrees with the hand"),
    ("over", set_in("results", []), "over, but its 0 results"),
    ("lead", set_in("results", lambda r: [POSITIONS["over"].results[0].to_dict()]),
     "going on, but its 1 results say it has ended"),
    ("match_between_hands", set_in("results", 0, "next_dealer", lambda x: (x + 1) % 4),
     "next_dealer disagrees"),
    ("match_between_hands", set_in("history", lambda h: h[:-1]), "history: its last plays"),
    ("lead", lambda d, s: d["buffer"].__setitem__(LAYOUT.offsets["points"], 40000),
     "buffer has entries outside 0..32767"),
    ("lead", lambda d, s: d["buffer"].__setitem__(LAYOUT.offsets["points"], 401),
     "buffer piece 'points' is out of its range"),
    ("lead", lambda d, s: d["buffer"].__setitem__(0, 10 ** 30), "buffer"),
]


@pytest.mark.parametrize("position, corrupt, message", CORRUPTIONS,
                         ids=[f"{i}-{row[0]}-{row[2][:30]}" for i, row in enumerate(CORRUPTIONS)])
def test_corruption_is_refused_naming_the_field(position, corrupt, message):
    state = POSITIONS[position]
    data = json.loads(json.dumps(state.to_dict()))
    DabangState.from_dict(json.loads(json.dumps(data)))  # the position itself loads
    corrupt(data, state)
    with pytest.raises(StateError, match=message):
        DabangState.from_dict(data)


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
    from tests.dabang.test_no_leak import choose

    game = DabangGame(**options)
    for seed in range(200):
        state, rng = game.new_state(seed, deck=deck), np.random.default_rng(seed)
        while not state.is_over:
            if wanted(state):
                return state
            state.apply(choose(state, rng, policy))
    raise AssertionError("no such state")


def _bump(name, index, delta):
    def corrupt(data):
        data["buffer"][LAYOUT.offsets[name] + index] += delta
    return corrupt


def _swap_kinds(data):
    start = LAYOUT.offsets["koujoker_kinds"]
    buffer = data["buffer"]
    for seat in range(4):
        i = start + 2 * seat
        buffer[i], buffer[i + 1] = buffer[i + 1], buffer[i]


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
    from tests.dabang.test_no_leak import FLIP_KITTIES, flip_deck
    return flip_deck(0, FLIP_KITTIES[0])


LATER = {"dealer": 1, "levels": (5, 7)}
NEW_PIECES = [  # (options, the state wanted, policy, deck, corruption, message)
    (LATER, _overridden, None, None,
     lambda d, s: _bump("declared_cards", 6 * s.deal.declarer + 4, 1)(d), "declared_cards"),
    (LATER, _overridden, None, None,
     lambda d, s: _bump("declared_cards", 6 * s.deal.declarer + shown(s.deal.decl)[0], -1)(d),
     "declared_cards"),
    (LATER, _later_declared, None, None,
     lambda d, s: _bump("declared_cards", 6 * ((s.deal.declarer + 1) % 4) + 5, 4)(d),
     "declared_cards"),
    ({}, _flipped, "silent", _flip_deck(), lambda d, s: _bump("flip_jokers", 0, 1)(d),
     "flip_jokers"),
    ({}, lambda s: s.phase == "bury" and s.deal.decl == 0, "silent", None,
     lambda d, s: _bump("flip_jokers", 1, 1)(d), "flip_jokers"),
    (LATER, _kou_both_kinds, None, None, lambda d, s: _swap_kinds(d), "koujoker_kinds"),
    (LATER, _kou_both_kinds, None, None,
     lambda d, s: _bump("taken_back", int(np.flatnonzero(s.v["taken_back"])[0]), -1)(d),
     "taken_back"),
]


@pytest.mark.parametrize("options, wanted, policy, deck, corrupt, message", NEW_PIECES)
def test_new_public_pieces_are_checked(options, wanted, policy, deck, corrupt, message):
    """The loader checks ``declared_cards`` against the standing declaration and the dealt cards
    [D-A4], ``flip_jokers`` against the kitty flips [D-A3], ``koujoker_kinds`` and
    ``taken_back`` against each seat's cards [D-A6] [DB-7]."""
    state = _find(options, wanted, policy, deck)
    data = json.loads(json.dumps(state.to_dict()))
    DabangState.from_dict(json.loads(json.dumps(data)))
    corrupt(data, state)
    with pytest.raises(StateError, match=message):
        DabangState.from_dict(data)


def test_format_2_states_are_read_by_replaying_them():
    """Format /2 lacked the pieces added at the end of the layout (declared_cards ..
    taken_back): such a state is rebuilt from its seed and history, accepted only if the replay
    gives back what it saved; a hand dealt from a given deck cannot be replayed."""
    for options, steps in [({}, 60), ({"dealer": 1, "blood": 3, "levels": [4, 6]}, 150),
                           ({"episode": "match", "max_hands": 2}, 500)]:
        s = DabangGame(**options).new_state(7)
        advance(s, np.random.default_rng(1), steps)
        old = s.to_dict()
        old["format"], old["buffer"] = "cardenv.dabang.state/2", old["buffer"][:1687]
        assert DabangState.from_dict(old).to_dict() == s.to_dict()
    old["buffer"] = list(old["buffer"])
    old["buffer"][5] += 1
    with pytest.raises(StateError, match="does not give back"):
        DabangState.from_dict(old)
    from cardenv.dabang.game import DECK
    custom = DabangGame().new_state(3, deck=list(DECK[::-1]))  # a deck given, not shuffled
    data = custom.to_dict()
    data["format"], data["buffer"] = "cardenv.dabang.state/2", data["buffer"][:1687]
    with pytest.raises(StateError, match="given deck"):
        DabangState.from_dict(data)

