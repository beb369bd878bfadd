"""Seeded worlds of one checkout, for issue 36's split of the Dabang sampler into a package
(``cardenv/dabang/worlds/``): the same rng must give the same worlds, errors and tries.

Usage: ``PYTHONPATH=CHECKOUT python docs/results/issue36/same_worlds.py OUT [POSITIONS]`` (run
it from outside the checkout, so that ``PYTHONPATH`` decides which ``cardenv`` is imported),
once on the checkout before the change and once after, then ``cmp`` the two OUT files.

Per option set, positions at random steps of random or heuristic play (first hands, later
hands, a match's second hand); at each, a seat and ``n`` (1..8) drawn from a fixed generator,
and ``game.sample_worlds(state, seat, n, rng)`` with a fixed seed: one line per call with the
sha256 of every world's ``to_dict()`` (in order) and the proposals drawn (the sampler's
``last_tries``). Some positions are asked again at once (the sampler's cache of proposals
hit), for another seat and back, or with a small ``max_tries`` (the ``StateError``'s message
is recorded); at the end, the first positions are asked again after more than eight others
(evicted from the cache, built anew).
"""

import hashlib
import json
import sys
import time

import numpy as np

import cardenv
from cardagents.players.heuristics import heuristic_for
from cardenv.core.errors import StateError
from cardenv.dabang import DabangGame
from cardenv.dabang import worlds as dabang_worlds

# (options, games, heuristic play, positions per game, steps to stop in; two more stops per
# game in the first 40 steps)
OPTION_SETS = [
    ({}, 22, False, 5, 260),
    ({}, 6, True, 5, 260),
    ({"dealer": "random", "levels": "random", "blood": "random"}, 22, False, 5, 260),
    ({"dealer": "random", "levels": "random", "blood": "random"}, 5, True, 5, 260),
    ({"episode": "match"}, 12, False, 5, 520),
    ({"episode": "match", "max_hands": 3}, 5, True, 5, 520),
    ({"bidding": "after_deal"}, 14, False, 5, 260),
    ({"bidding": "after_deal"}, 5, True, 5, 260),
    ({"follow": "live"}, 8, False, 5, 260),
    ({"dealer": 0, "blood": 3, "tribute_return": "dealer_choice"}, 6, False, 4, 260),
    ({"episode": "match", "tribute_return": "dealer_choice"}, 2, True, 3, 520),
]


def tries() -> int:
    """The proposals the last call drew: ``SAMPLER.last_tries`` after the split, the function
    attribute ``sample_worlds.last_tries`` before."""
    sampler = getattr(dabang_worlds, "SAMPLER", None)
    return sampler.last_tries if sampler is not None else dabang_worlds.sample_worlds.last_tries


def positions(options, games, heuristic, per_game, steps, seed0):
    game = DabangGame(**options)
    rng = np.random.default_rng(seed0)
    agent = heuristic_for("dabang", seed0) if heuristic else None
    for g in range(games):
        state = game.new_state(seed0 * 1000 + g)
        stops = set(rng.integers(0, steps, size=per_game).tolist())
        stops |= set(rng.integers(0, 40, size=2).tolist())  # (the deal, burial and 扣王 too)
        step = 0
        while not state.is_over and step <= max(stops):
            if step in stops:
                yield game, state.clone()
            if agent is not None:
                action = int(agent.act_batch(game.observations([state]),
                                             state.legal_mask()[None])[0])
            else:
                action = int(rng.choice(state.legal_actions()))
            state.apply(action)
            step += 1


def call(out, label, game, state, seat, n, seed, max_tries=None) -> int:
    """One sampler call, written as a line; the number of worlds it returned."""
    try:
        worlds = game.sample_worlds(state, seat, n, np.random.default_rng(seed),
                                    max_tries=max_tries)
    except StateError as exc:
        out.write(f"{label} StateError {exc}\n")
        return 0
    digest = hashlib.sha256()
    for world in worlds:
        digest.update(json.dumps(world.to_dict(), sort_keys=True, default=repr).encode())
    out.write(f"{label} {len(worlds)} {digest.hexdigest()[:24]} tries={tries()}\n")
    return len(worlds)


def main(path: str, limit: int | None = None) -> None:
    print("cardenv from", cardenv.__file__, file=sys.stderr)
    pick = np.random.default_rng(36)
    count = worlds = calls = 0
    first = []  # positions asked again at the end, after the cache forgot them
    start = time.perf_counter()
    with open(path, "w") as out:
        for i, (options, games, heuristic, per_game, steps) in enumerate(OPTION_SETS):
            for game, state in positions(options, games, heuristic, per_game, steps, 100 + i):
                label = f"{options} h={int(heuristic)} seed={state.seed} " \
                        f"steps={len(state.history)} {state.phase}"
                seat, n = int(pick.integers(4)), int(pick.integers(1, 9))
                seed = int(pick.integers(2 ** 32))
                worlds += call(out, f"{label} seat={seat} n={n}", game, state, seat, n, seed)
                calls += 1
                if pick.random() < 0.3:  # the same position at once: the cache's proposal
                    worlds += call(out, f"{label} again", game, state, seat, n, seed + 1)
                    calls += 1
                if pick.random() < 0.2:  # another seat, then back
                    other = (seat + 1 + int(pick.integers(3))) % 4
                    worlds += call(out, f"{label} seat={other}", game, state, other, 2, seed + 2)
                    worlds += call(out, f"{label} back", game, state, seat, n, seed + 3)
                    calls += 2
                if pick.random() < 0.25:  # few tries: often a StateError
                    few = int(pick.integers(0, 2 * n + 1))
                    worlds += call(out, f"{label} max_tries={few}", game, state, seat, n,
                                   seed + 4, max_tries=few)
                    calls += 1
                if len(first) < 12:
                    first.append((label, game, state, seat, n, seed))
                count += 1
                if limit is not None and count >= limit:
                    break
            out.flush()
            print(f"{options} heuristic={heuristic}: {count} positions, {calls} calls, "
                  f"{worlds} worlds, {time.perf_counter() - start:.0f} s", file=sys.stderr)
            if limit is not None and count >= limit:
                break
        for label, game, state, seat, n, seed in first:  # evicted from the cache by now
            worlds += call(out, f"{label} evicted", game, state, seat, n, seed)
            calls += 1
        out.write(f"positions={count} calls={calls} worlds={worlds}\n")
    print(f"{count} positions, {calls} calls, {worlds} worlds, "
          f"{time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else None)
