"""A tiny third game written from scratch against the engine contract (``cardenv.core.protocol``),
to show that the batched engine, the agents and the evaluation need nothing else; its
presentation (``tests/toy_presentation.py``) shows it to people (terminal, web page, record
replays).

"Two cards": each of four seats is dealt two cards from ten (values 0..9, one copy each); in
turn from seat 0, each plays one of its cards (action = the card's value). Seats 0 + 2 play
against 1 + 3; the team with the larger sum of played cards wins (+1 / -1; a tie is 0).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from cardenv.core.errors import ConfigError, IllegalActionError, StateError

CARDS = 10


@dataclass
class ToyResult:
    sums: list
    rewards: list

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ToyAction:
    card: int
    type: str = "play"  # the move type people's lists group by (cardenv.moves)

    @property
    def text(self) -> str:
        return f"play {self.card}"


class ToyGame:
    name = "toy"
    num_players = 4
    num_actions = CARDS
    observation_size = 2 * CARDS + 4 * CARDS  # own hand, cards played by each seat (relative)
    state_size = 4 * CARDS + 4 * CARDS
    action_features = None  # no per-action features (core.action_features): callers say so

    def __init__(self, **options):
        if options:
            raise ConfigError(f"toy: unknown options {sorted(options)}")
        self.options: dict = {}
        self.observation_high = np.ones(self.observation_size, dtype=np.float32)
        self.state_high = np.ones(self.state_size, dtype=np.float32)

    def new_state(self, seed: int | None = None) -> "ToyState":
        return ToyState(self, 0 if seed is None else seed)

    def replay(self, seed: int, actions, deal=None) -> "ToyState":
        if deal is not None:  # the contract's custom deal: the toy game has none
            raise ValueError(f"toy has no custom deals; deal must be None, got {deal!r}")
        state = self.new_state(seed)
        for a in actions:
            state.apply(int(a))
        return state

    def state_from_dict(self, data: dict) -> "ToyState":
        if not isinstance(data, dict) or data.get("format") != "toy/1":
            raise StateError("not a toy state")
        return self.replay(data["seed"], data["history"])

    def action_info(self, action: int) -> ToyAction:
        return ToyAction(int(action))

    def legal_masks(self, states) -> np.ndarray:
        return np.stack([s.legal_mask() for s in states])

    def observations(self, states, seats=None) -> np.ndarray:
        seats = [max(s.current_player, 0) for s in states] if seats is None else seats
        return np.stack([s.observation(int(seat)) for s, seat in zip(states, seats)])

    def global_states(self, states) -> np.ndarray:
        return np.stack([s.global_state() for s in states])

    def sides(self, state) -> tuple[list[int], list[int]]:
        return [0, 2], [1, 3]


class ToyState:
    truncated = False

    def __init__(self, game: ToyGame, seed: int):
        self.game, self.seed = game, seed
        deal = np.random.default_rng(seed).permutation(CARDS)[:8]
        self.hands = [sorted(deal[2 * s:2 * s + 2].tolist()) for s in range(4)]
        self.played: list[int] = []
        self.history: list[int] = []
        self.results: list[ToyResult] = []
        self.returns = [0.0] * 4
        self.last_rewards = [0.0] * 4

    @property
    def current_player(self) -> int:
        return -1 if self.is_over else len(self.played)

    @property
    def is_over(self) -> bool:
        return len(self.played) == 4

    @property
    def phase(self) -> str:  # what people's programs read (cardenv.moves, cardenv.web)
        return "over" if self.is_over else "play"

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(CARDS, dtype=bool)
        if not self.is_over:
            mask[self.hands[self.current_player]] = True
        return mask

    def is_legal(self, action: int) -> bool:
        return bool(self.legal_mask()[action])

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_mask()).tolist()

    def apply(self, action: int) -> None:
        if self.is_over or not self.legal_mask()[action]:
            raise IllegalActionError(f"illegal action {action}")
        seat = self.current_player
        self.hands[seat] = [c for c in self.hands[seat] if c != action]
        self.played.append(int(action))
        self.history.append(int(action))
        self.last_rewards = [0.0] * 4
        if self.is_over:
            sums = [self.played[0] + self.played[2], self.played[1] + self.played[3]]
            win = float(np.sign(sums[0] - sums[1]))
            rewards = [win, -win, win, -win]
            self.results.append(ToyResult(sums, rewards))
            self.last_rewards = rewards
            self.returns = list(rewards)

    def observation(self, seat: int) -> np.ndarray:
        obs = np.zeros(self.game.observation_size, dtype=np.float32)
        obs[self.hands[seat]] = 1
        for i, card in enumerate(self.played):
            obs[2 * CARDS + ((i - seat) % 4) * CARDS + card] = 1
        return obs

    def global_state(self) -> np.ndarray:
        out = np.zeros(self.game.state_size, dtype=np.float32)
        for seat, hand in enumerate(self.hands):
            out[seat * CARDS + np.array(hand, dtype=int)] = 1
        for i, card in enumerate(self.played):
            out[4 * CARDS + i * CARDS + card] = 1
        return out

    def clone(self) -> "ToyState":
        return self.game.replay(self.seed, self.history)

    def to_dict(self) -> dict:
        return {"format": "toy/1", "options": {}, "seed": self.seed, "deal": None,
                "history": list(self.history), "results": [r.to_dict() for r in self.results]}
