"""``legality.play_mask`` against the slow reference move generator (``reference.py``).

More than 10,000 positions under ``-m slow`` and 2,500 in the default run (the same kinds,
fewer of each), from a fixed seed: positions met in random games (several
hands per episode, so later-hand calls -- jokers, a dealer holding both called cards -- occur),
and synthetic ones: every hand size 1..27, joker-heavy hands, long bombs, long runs and 摇摆
shapes, point-card-rich hands, every catalogue combination as the standing play, leading
positions, and called cards that the hand holds (natural, 5/10/K, joker; one or two copies).

A second test replays, for a sample of positions, every legal action through
``selection.select_cards`` and checks that the cards come from the hand, that the reference
classifier reads them as exactly that action's combination, and that the called flag matches.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from cardenv.core.cards import NUM_KINDS, card_str, counts_of, hand_str, kind_of
from cardenv.dagong import catalogue as cat
from cardenv.dagong.game import DagongGame
from cardenv.dagong.legality import play_mask
from cardenv.dagong.selection import select_cards
from tests.sizes import fast_and_slow, sizes

try:  # tests/dagong as a package or as a plain rootdir-inserted folder
    from . import reference as ref
except ImportError:  # pragma: no cover
    import reference as ref

SEED = 7_404_2024
# the least number of positions -> how they are made: random games, synthetic hands per hand
# size and mode, every how many catalogue actions the standing sweep takes, four-joker hands
# per size (the default run's 2,500 take the kinds of the full 10,000, fewer of each)
RECIPES = {2_500: dict(games=4, per_shape=4, sweep_every=4, joker_hands=1),
           10_000: dict(games=20, per_shape=18, sweep_every=1, joker_hands=4)}
BATCH = 2048
DECK = np.repeat(np.arange(NUM_KINDS), 2)  # two decks
JOKER_COPIES = [52, 52, 53, 53]
PLAY_IDS = np.arange(cat.FIRST_PLAY, cat.NUM_ACTIONS)
COMBOS_BY_TYPE: dict[str, list[int]] = {}
COMBOS_BY_SHAPE: dict[tuple[str, int], list[int]] = {}
for _ci, _c in enumerate(cat.COMBOS):
    COMBOS_BY_TYPE.setdefault(_c.type, []).append(_ci)
    COMBOS_BY_SHAPE.setdefault((_c.type, _c.length), []).append(_ci)


class Position:
    __slots__ = ("hand", "standing", "called", "origin")

    def __init__(self, hand, standing, called, origin):
        self.hand = np.asarray(hand, dtype=np.int64).copy()
        self.standing = int(standing)
        self.called = int(called)
        self.origin = origin

    def describe(self) -> str:
        standing = "leading" if self.standing < 0 else \
            f"{self.standing} ({cat.ACTIONS[self.standing].text})"
        return (f"[{self.origin}] hand ({int(self.hand.sum())} cards): {hand_str(self.hand)}\n"
                f"    standing: {standing}; called card: {card_str(self.called)} "
                f"(held x{int(self.hand[self.called])})")


# --- positions from random games ------------------------------------------------------------------


def game_positions(rng, games: int, errors: list[str]) -> list[Position]:
    out = []
    game = DagongGame(hands=3)
    for g in range(games):
        seed = int(rng.integers(2 ** 31))
        state = game.new_state(seed)
        while not state.is_over:
            legal = np.flatnonzero(state.legal_mask())
            if state.phase == "play":
                seat = state.current
                out.append(Position(state.hands[seat], state.standing, state.called,
                                    f"game seed {seed} move {len(state.history)}"))
                plays = legal[legal != cat.PASS]
                if cat.PASS in legal and (rng.random() < 0.35 or plays.size == 0):
                    action = cat.PASS
                else:
                    action = int(rng.choice(plays))
            else:  # 硬牌 decision: mostly decline, so that find-a-friend games dominate
                action = cat.SOLO_DECLARE if (rng.random() < 0.05 and cat.SOLO_DECLARE in legal) \
                    else int(legal[0])
            try:
                state.apply(int(action))
            except Exception as exc:  # noqa: BLE001 -- reported by test_random_games_run
                errors.append(f"game seed {seed}: applying legal action {action} "
                              f"({cat.ACTIONS[action].text}) raised {exc!r}")
                break
    return out


# --- synthetic positions --------------------------------------------------------------------------


def random_hand(rng, size: int, forced=()) -> np.ndarray:
    """A hand of ``size`` cards from two decks containing the cards ``forced`` (truncated)."""
    forced = list(forced)
    rng.shuffle(forced)
    forced = forced[:size]
    counts = counts_of(forced) if forced else np.zeros(NUM_KINDS, dtype=np.int64)
    assert counts.max() <= 2
    rest = np.repeat(np.arange(NUM_KINDS), 2 - counts)
    extra = rng.choice(rest, size - len(forced), replace=False) if size > len(forced) else []
    counts = counts + counts_of(extra)
    assert counts.sum() == size and counts.max() <= 2
    return counts


def rank_copies(rank: int) -> list[int]:
    return [kind_of(rank, s) for s in range(4) for _ in range(2)]


def forced_cards(rng, mode: str) -> list[int]:
    if mode == "uniform":
        return []
    if mode == "jokers":
        return list(rng.choice(JOKER_COPIES, int(rng.integers(3, 5)), replace=False))
    if mode == "long_bomb":
        rank = int(rng.integers(13))
        out = list(rng.choice(rank_copies(rank), int(rng.integers(6, 9)), replace=False))
        if rng.random() < 0.5:
            out += list(rng.choice(JOKER_COPIES, int(rng.integers(1, 5)), replace=False))
        return out
    if mode == "long_run":
        per = int(rng.choice([2, 3, 4]))
        length = int(rng.integers(2, 13 if per == 2 else 10 if per == 3 else 7))
        start = int(rng.integers(0, 12 - length + 1))
        if rng.random() < 0.15:  # sometimes run into the 2 to test "no 2 in runs"
            start = 12 - length + 1
        out = []
        for r in range(start, start + length):
            out += list(rng.choice(rank_copies(r), per, replace=False))
        holes = int(rng.integers(0, 5)) if rng.random() < 0.6 else 0
        for _ in range(min(holes, len(out))):
            out.pop(int(rng.integers(len(out))))
        out += list(rng.choice(JOKER_COPIES, int(rng.integers(0, 5)), replace=False))
        return out
    if mode == "points":
        points = [kind_of(r, s) for r in (2, 7, 10) for s in range(4) for _ in range(2)]
        out = list(rng.choice(points, int(rng.integers(3, 13)), replace=False))
        return out + list(rng.choice(JOKER_COPIES, int(rng.integers(0, 3)), replace=False))
    raise AssertionError(mode)


MODES = ("uniform", "jokers", "long_bomb", "long_run", "points")


def random_called(rng, hand) -> int:
    """Mostly a kind the hand holds (natural, point card, joker alike), else any kind."""
    held = np.flatnonzero(hand)
    if rng.random() < 0.7 and held.size:
        groups = [
            [k for k in held if k >= 52],
            [k for k in held if k < 52 and k // 4 in (2, 7, 10)],
            [k for k in held if k < 52],
            list(np.flatnonzero(hand == 2)),
        ]
        groups = [g for g in groups if g]
        group = groups[int(rng.integers(len(groups)))]
        return int(rng.choice(group))
    return int(rng.integers(NUM_KINDS))


def random_standing(rng, hand, called) -> int:
    u = rng.random()
    if u < 0.2:
        return -1
    if u < 0.55:  # a combination of a random type
        types = sorted(COMBOS_BY_TYPE)
        combo = int(rng.choice(COMBOS_BY_TYPE[types[int(rng.integers(len(types)))]]))
    else:  # same type and length as something the hand can lead (interesting comparisons)
        leads = sorted(ref.legal_actions(hand, -1, called))
        if not leads:
            return -1
        info = cat.ACTIONS[int(rng.choice(leads))]
        combo = int(rng.choice(COMBOS_BY_SHAPE[(info.type, info.length)]))
    return cat.FIRST_PLAY + combo + (cat.NUM_COMBOS if rng.random() < 0.5 else 0)


def synthetic_positions(rng, per_shape, sweep_every, joker_hands) -> list[Position]:
    out = []

    def add(hand, origin, standing=None):
        called = random_called(rng, hand)
        if standing is None:
            standing = random_standing(rng, hand, called)
        out.append(Position(hand, standing, called, origin))

    # every hand size 1..27 with every mode
    for size in range(1, 28):
        for mode in MODES:
            for _ in range(per_shape):
                add(random_hand(rng, size, forced_cards(rng, mode)), f"size {size} {mode}")
    # every catalogue combination as the standing play, with and without the called flag (every
    # ``sweep_every``-th combination of each type: all of them when it is 1)
    sweep = sorted(cat.FIRST_PLAY + combo + called * cat.NUM_COMBOS for called in (0, 1)
                   for combos in COMBOS_BY_TYPE.values() for combo in combos[::sweep_every])
    for action in sweep:
        mode = MODES[int(rng.integers(len(MODES)))]
        size = int(rng.integers(8, 28))
        add(random_hand(rng, size, forced_cards(rng, mode)), f"standing sweep {mode}",
            standing=int(action))
    # leading with all four jokers / joker-only hands
    for size in range(1, 28):
        for _ in range(joker_hands):
            add(random_hand(rng, size, JOKER_COPIES), f"size {size} four jokers", standing=-1)
    return out


# --- the fixture ----------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=fast_and_slow(2_500, 10_000))
def positions(request):
    """The positions (at least ``request.param``) and the errors the random games met."""
    recipe = dict(RECIPES[request.param])
    rng = np.random.default_rng(SEED)
    errors: list[str] = []
    t0 = time.perf_counter()
    pos = game_positions(rng, recipe.pop("games"), errors) + synthetic_positions(rng, **recipe)
    elapsed = time.perf_counter() - t0
    print(f"\n{len(pos)} positions generated in {elapsed:.1f}s")
    return pos, errors


def test_random_games_run(positions):
    _, errors = positions
    assert not errors, "\n".join(errors[:10])


def test_position_coverage(positions, request):
    pos, _ = positions
    assert len(pos) >= request.node.callspec.params["positions"]
    sizes = {int(p.hand.sum()) for p in pos}
    assert sizes >= set(range(1, 28))
    assert any(p.standing < 0 for p in pos)
    standing_types = {cat.ACTIONS[p.standing].type for p in pos if p.standing >= 0}
    assert standing_types == set(cat.PLAY_TYPES)
    assert any(p.hand[p.called] > 0 and p.called >= 52 for p in pos)
    assert any(p.hand[p.called] > 0 and p.called // 4 in (2, 7, 10) and p.called < 52 for p in pos)
    assert any(p.hand[p.called] == 2 for p in pos)
    assert any(p.hand[52:].sum() == 4 for p in pos)
    longest = [max(int(p.hand[4 * r:4 * r + 4].sum()) for r in range(13)) for p in pos]
    assert {6, 7, 8} <= set(longest)


def test_play_mask_equals_reference(positions):
    pos, _ = positions
    t0 = time.perf_counter()
    masks = []
    for i in range(0, len(pos), BATCH):
        chunk = pos[i:i + BATCH]
        masks.append(play_mask(np.stack([p.hand for p in chunk]),
                               np.array([p.standing for p in chunk]),
                               np.array([p.called for p in chunk])))
    mask = np.concatenate(masks)
    t_mask = time.perf_counter() - t0
    assert mask.shape == (len(pos), cat.NUM_ACTIONS)

    t0 = time.perf_counter()
    failures = []
    for p, row in zip(pos, mask):
        expected = ref.legal_actions(p.hand, p.standing, p.called)
        got = set(np.flatnonzero(row).tolist())
        if got != expected:
            failures.append((p, sorted(expected - got), sorted(got - expected)))
    t_ref = time.perf_counter() - t0
    print(f"\n{len(pos)} positions: play_mask {t_mask:.2f}s, reference {t_ref:.1f}s")

    if failures:
        lines = [f"{len(failures)} of {len(pos)} positions differ from the reference"]
        for p, missing, extra in failures[:15]:
            lines.append(p.describe())
            for a in missing:
                lines.append(f"      legal per reference, missing from mask: {a} "
                             f"({cat.ACTIONS[a].text})")
            for a in extra:
                lines.append(f"      in mask, illegal per reference: {a} ({cat.ACTIONS[a].text})")
        pytest.fail("\n".join(lines))


def test_single_hand_path_equals_the_batched_one(positions):
    """``play_mask`` of one (54,) hand (the env's path: packed per-rank features) gives the row
    the batched path gives, on every position, holders of the called card included."""
    pos, _ = positions
    batched = play_mask(np.stack([p.hand for p in pos]), np.array([p.standing for p in pos]),
                        np.array([p.called for p in pos]))
    held = 0
    for p, row in zip(pos, batched):
        assert np.array_equal(play_mask(p.hand, p.standing, p.called), row), p.describe()
        held += int(p.hand[p.called] > 0)
    assert held > 100


def test_selected_cards_match_action(positions):
    """Each legal action's ``select_cards`` is a sub-multiset of the hand reading as that action."""
    pos, _ = positions
    sample = pos[::6]
    failures = []
    checked = 0
    t0 = time.perf_counter()
    for p in sample:
        hand = p.hand.tolist()
        for a in sorted(ref.legal_actions(p.hand, p.standing, p.called) - {cat.PASS}):
            checked += 1
            info = cat.ACTIONS[a]
            try:
                cards = select_cards(hand, a, p.called)
            except Exception as exc:  # noqa: BLE001
                failures.append(f"{p.describe()}\n      {a} ({info.text}): raised {exc!r}")
                continue
            problem = None
            used = counts_of(cards) if cards else np.zeros(NUM_KINDS, dtype=np.int64)
            if np.any(used > p.hand):
                problem = "cards not in the hand"
            elif ref.combo_of_action(a) not in ref.classify(cards):
                problem = "cards do not form this combination: " + \
                    ", ".join(str(c) for c in ref.classify(cards))
            elif (p.called in cards) != info.called:
                problem = f"called flag {info.called} but called card played: {p.called in cards}"
            if problem:
                failures.append(f"{p.describe()}\n      {a} ({info.text}): selected "
                                f"{' '.join(card_str(k) for k in cards)} -- {problem}")
    print(f"\nselect_cards: {checked} actions in {len(sample)} positions, "
          f"{time.perf_counter() - t0:.1f}s")
    assert not failures, f"{len(failures)} of {checked} selections wrong:\n" + \
        "\n".join(failures[:15])


@sizes("hands", 150, 600)
def test_reference_enumeration_is_exhaustive(hands):
    """The reference's pruned enumeration equals plain enumeration of every sub-multiset.

    For small hands every sub-multiset can be listed; classifying each (``reference.classify``,
    called flag = "holds a card of the called kind") must give exactly ``legal_actions``. This
    checks the family argument of the reference's docstring, not the classifier itself.
    """
    rng = np.random.default_rng(SEED + 1)
    failures = []
    for i in range(hands):
        size = int(rng.integers(1, 15))
        hand = random_hand(rng, size, forced_cards(rng, MODES[i % len(MODES)]))
        called = random_called(rng, hand)
        standing = random_standing(rng, hand, called)
        standing_combo = None if standing < 0 else ref.combo_of_action(standing)
        held = [int(k) for k in np.flatnonzero(hand)]
        brute = set() if standing < 0 else {cat.PASS}
        for copies in itertools.product(*[range(int(hand[k]) + 1) for k in held]):
            kinds = [k for k, c in zip(held, copies) for _ in range(c)]
            for combo in ref.classify(kinds):
                if ref.beats(combo, standing_combo):
                    brute.add(ref.combo_id(combo, called in kinds))
        got = ref.legal_actions(hand, standing, called)
        if got != brute:
            failures.append(Position(hand, standing, called, "exhaustive").describe() +
                            f"\n      missing {[cat.ACTIONS[a].text for a in brute - got]}"
                            f"\n      extra {[cat.ACTIONS[a].text for a in got - brute]}")
    assert not failures, "\n".join(failures[:10])
