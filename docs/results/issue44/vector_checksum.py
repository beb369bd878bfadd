"""A seeded ``VectorGame`` run's checksum, for issue 44's "the same outputs" check: both games,
one option set and a list of them, random legal actions from a seeded generator; the sha256 of
every step's observations, masks, global states, rewards, ended flags and the records of the
hands and games that ended, printed one line per run.

    PYTHONPATH=CHECKOUT python docs/results/issue44/vector_checksum.py
"""

import hashlib

import numpy as np

from cardenv.vector import VectorGame

RUNS = [("dagong", {}, 64, 400), ("dagong", [{}, {"hands": 2}], 32, 300),
        ("dabang", {}, 64, 600), ("dabang", [{}, {"episode": "match"}], 32, 500)]


def checksum(name: str, options, envs: int, steps: int) -> str:
    games = VectorGame(name, envs, seed=7, options=options)
    rng = np.random.default_rng(11)
    digest = hashlib.sha256()
    for _ in range(steps):
        masks = games.masks()
        for array in (games.observations(), masks, games.states()):
            digest.update(np.ascontiguousarray(array).tobytes())
        choice = rng.random(masks.shape) * masks
        step = games.step(choice.argmax(1))
        digest.update(step.rewards.tobytes() + step.ended.tobytes())
        digest.update(repr([(h.slot, h.result) for h in step.hands]).encode())
        digest.update(repr([(g.index, g.seed, g.returns, g.results) for g in step.games])
                      .encode())
    return digest.hexdigest()


if __name__ == "__main__":
    for run in RUNS:
        print(run[0], run[1], f"{run[2]} games x {run[3]} steps:", checksum(*run), flush=True)
