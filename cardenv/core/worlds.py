"""What the games' world samplers share: the checks of ``game.sample_worlds(state, seat, n,
rng)``'s arguments, so that both games refuse bad input with the same errors.

A world sampler returns ``n`` complete states that agree with everything ``seat`` has seen (its
own cards, the public actions and what they imply), drawn with ``rng`` only from that
information; each game's own module (``cardenv.dagong.worlds``, ``cardenv.dabang.worlds``)
knows which constraints its rules put on the hidden cards.

``check_consistency`` measures the contract's promise for any game with a sampler: worlds
sampled at many positions of played episodes, each replayed from its own recipe and compared
with what the seat saw (``world_problem``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardenv.core.checks import check_int
from cardenv.core.errors import StateError

# the most worlds one call returns: each is a whole state (a few KB and a replay), so a larger
# n is more likely a mistake (n=10**9) than a wish; call again for more
MAX_WORLDS = 100_000


def check_sample_args(game, state, seat, n, rng) -> tuple[int, int]:
    """``(seat, n)`` as ints once the arguments of ``game.sample_worlds`` are valid.

    Raises ``TypeError`` if ``state`` is not a state of ``game``'s class or ``rng`` is not a
    ``numpy.random.Generator``; ``ValueError`` if ``state`` was made with other options, if
    ``seat`` is not a seat or ``n`` not an int in ``0..MAX_WORLDS``; ``StateError`` (a
    ``ValueError``) if the episode is over (no decision is left to sample worlds for).
    """
    what = f"{game.name}.sample_worlds"
    if not isinstance(state, game.state_class):
        raise TypeError(f"{what}: state must be a {game.state_class.__name__}, got "
                        f"{type(state).__name__}")
    if state.game is not game and state.game.options_dict() != game.options_dict():
        raise ValueError(f"{what}: the state was made with other options "
                         f"({state.game.options_dict()}) than this game "
                         f"({game.options_dict()})"[:400])
    seat = check_int(seat, f"{what}: seat", 0, game.num_players - 1, error=ValueError)
    n = check_int(n, f"{what}: n", 0, MAX_WORLDS, error=ValueError)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{what}: rng must be a numpy.random.Generator "
                        f"(numpy.random.default_rng(seed)), got {type(rng).__name__}")
    if state.is_over:
        raise StateError(f"{what}: the episode is over; there is no position to sample "
                         f"worlds for")
    return seat, n


# --- consistency, measured -----------------------------------------------------------------
# ``check_consistency`` samples worlds at many positions and replays each world from its own
# recipe to check what the contract promises (``python -m cardenv.bench worlds --check N`` and
# the tests run it for every game with a sampler).


def seat_views(state, seat: int) -> list[np.ndarray]:
    """``seat``'s observation at the start of ``state``'s current hand and after each of its
    steps, from a replay of the state's recipe (a hand starts once the results of the hands
    before it are written)."""
    ref = state.game.replay(state.seed, [], state.given_deal)
    views = []
    for action in state.history:
        if len(ref.results) == len(state.results):
            views.append(ref.observation(seat))
        ref.apply(action)
    views.append(ref.observation(seat))
    return views


def world_problem(state, seat: int, world, views: list[np.ndarray]) -> str | None:
    """Why ``world`` is not a world of ``seat`` in ``state`` (``None`` if it is): replayed from
    its own recipe (``world.game.replay(world.seed, ..., deal=world.given_deal)``, every action
    checked legal), it must be ``world`` itself (same buffer), give ``seat`` the observation
    ``views`` recorded at the start of the hand and after each step (``seat_views``), and now
    the same observation, player to act and, when ``seat`` acts, legal mask as ``state``.

    A world may stand a few of the hand's steps short of the position, where those steps
    changed nothing ``seat`` sees (Dabang: another seat's follow built card by card)."""
    steps = len(world.history)
    if steps >= len(views):
        return f"the world's hand has {steps} actions, the position's {len(views) - 1}"
    try:
        replayed = world.game.replay(world.seed, [], world.given_deal)
    except ValueError as exc:
        return f"its deal does not load: {exc}"
    if not np.array_equal(replayed.observation(seat), views[0]):
        return "observation differs at the start of the hand"
    for t, action in enumerate(world.history):
        try:
            replayed.apply(action)
        except ValueError as exc:
            return f"action {action} at step {t} of the hand is illegal: {exc}"
        if not np.array_equal(replayed.observation(seat), views[t + 1]):
            return f"observation differs after step {t} of the hand"
    if replayed.crc() != world.crc():
        return "the world is not the state its recipe replays to"
    if not np.array_equal(world.observation(seat), state.observation(seat)):
        return "observation differs now"
    if world.current_player != state.current_player:
        return f"player to act {world.current_player}, not {state.current_player}"
    if seat == state.current_player and not np.array_equal(world.legal_mask(),
                                                           state.legal_mask()):
        return "legal mask differs now"
    return None


def random_policy(seed: int):
    """A uniformly random legal action (seeded): ``choose(state) -> action``."""
    rng = np.random.default_rng(seed)

    def choose(state) -> int:
        return int(rng.choice(np.flatnonzero(state.legal_mask())))
    return choose


@dataclass
class Failure:
    """A world that failed ``world_problem``, with what rebuilds it."""

    game: str
    options: dict
    seed: int  # of the episode and of its policy
    policy: str
    step: int  # actions played from the start of the episode to the position
    seat: int
    rng: int  # the seed of the generator handed to sample_worlds
    world: int  # which of the worlds returned
    problem: str

    def reproducer(self) -> str:
        return (f"{self.game} options={self.options} seed={self.seed} policy={self.policy} "
                f"step={self.step} seat={self.seat} rng={self.rng} world={self.world}: "
                f"{self.problem}")


@dataclass
class Consistency:
    """What ``check_consistency`` measured for one game."""

    game: str
    positions: int = 0  # positions whose worlds were checked
    skipped: int = 0  # positions the sampler does not cover (NotImplementedError)
    worlds: int = 0
    consistent: int = 0
    seconds: float = 0.0  # how long it took, where the caller timed it
    phases: dict = field(default_factory=dict)  # positions checked per phase
    failures: list = field(default_factory=list)

    @property
    def percent(self) -> float:
        return 100.0 * self.consistent / self.worlds if self.worlds else 100.0


def check_consistency(games: list, positions: int, *, worlds: int = 2, seed: int = 0,
                      policies: dict | None = None, every: int = 11,
                      progress=None) -> Consistency:
    """Sample ``worlds`` worlds at ``positions`` positions and check each (``world_problem``).

    The positions come from episodes of ``games`` (instances of one game with different
    options, taken in turn) played by ``policies`` (name -> ``factory(seed)`` giving
    ``choose(state) -> action``; default uniformly random) from seeds ``seed``, ``seed + 1``,
    ...: every ``every`` steps from a random offset, the viewing seat turning over the four
    (the seat to act or not), until ``positions`` positions were sampled; positions for which
    the sampler raises ``NotImplementedError`` are counted as skipped, and a ``StateError`` (it
    gave up) as a failure (world index -1). ``progress(report)``,
    if given, is called after each position with the figures so far."""
    policies = policies or {"random": random_policy}
    names = list(policies)
    out = Consistency(games[0].name)
    episode = seed
    while out.positions + out.skipped < positions:
        game = games[(episode - seed) % len(games)]
        name = names[(episode - seed) // len(games) % len(names)]
        choose = policies[name](episode)
        state = game.new_state(episode)
        offsets = np.random.default_rng(episode)
        step = int(offsets.integers(every))
        k = 0
        while not state.is_over and out.positions + out.skipped < positions:
            if k == step:
                seat = (episode + k) % game.num_players
                _check_position(out, game, state, seat, worlds, name, episode, k)
                if progress is not None:
                    progress(out)
                step += every
            state.apply(choose(state))
            k += 1
        episode += 1
    return out


def _check_position(out: Consistency, game, state, seat, worlds, policy, episode, k) -> None:
    rng_seed = episode * 1_000_003 + k
    try:
        sampled = game.sample_worlds(state, seat, worlds, np.random.default_rng(rng_seed))
    except NotImplementedError:
        out.skipped += 1
        return
    except StateError as exc:  # it gave up (out of proposals): a failure to report, not a crash
        out.positions += 1
        out.failures.append(Failure(game.name, game.options_dict(), episode, policy, k, seat,
                                    rng_seed, -1, f"no worlds: {exc}"))
        return
    out.positions += 1
    phase = str(getattr(state.phase, "name", state.phase)).lower()
    out.phases[phase] = out.phases.get(phase, 0) + 1
    views = seat_views(state, seat)
    for i, world in enumerate(sampled):
        out.worlds += 1
        problem = world_problem(state, seat, world, views)
        if problem is None:
            out.consistent += 1
        else:
            out.failures.append(Failure(game.name, game.options_dict(), episode, policy, k,
                                        seat, rng_seed, i, problem))
    if len(sampled) != worlds:
        out.worlds += worlds - len(sampled)
        out.failures.append(Failure(game.name, game.options_dict(), episode, policy, k, seat,
                                    rng_seed, -1, f"{len(sampled)} worlds, not {worlds}"))
