"""A leaf value for depth-limited PIMC: what a heuristic rollout from a global state would return,
fitted to the heuristic's own outcomes, saved as plain numpy weights.

PIMC with ``depth`` (``cardagents.search.pimc``) stops a rollout after ``depth`` steps and values
the global state there. A value fitted to the rollout policy's outcomes estimates what the rest of
the rollout would have returned, as an expected value rather than one noisy rollout. The shipped PPO
global critics were fitted to PPO's own play (and its shaped rewards), and they predict heuristic
rollouts poorly.

- **Data** (``collect``): heuristic self-play in all four seats through
  ``cardenv.vector.VectorGame``, ``batch`` games at once, seeded. Each step is kept with
  probability ``keep``. A kept step records the global state (``games.states()``), and once its
  hand ends, what the hand is worth to each of the four seats. That worth is
  ``game.hand_value(result, seat)``, the score ``cardagents.search.pimc`` gives a rollout. Dabang
  plays three option sets side by side, so the leaf sees the positions PIMC meets: first hands,
  later hands (``dealer``/``levels``/``blood`` random, as configs/dabang.yaml trains), and whole
  match episodes.
- **Model** (``train``): an MLP from the scaled global state to four outputs, the hand's worth
  for each seat (absolute seats). Fitting all four seats uses every recorded hand four times,
  and the net does not have to learn who is to act. The leaf's value is the output of the seat
  to act. The seat to act is read from the state's ``to_play`` piece (the game's declared layout,
  as ``cardagents.players.observation`` reads pieces), whose columns the file stores. The net is
  trained with torch on the CPU, seeded, on one thread (reproducible).
- **File** (``Leaf.save`` / ``Leaf.load``): one ``.npz`` of arrays: the weights, the input
  scaling, the game, the state size, the ``to_play`` columns and the command that built it. It is
  loaded with ``allow_pickle=False``, so loading one runs no code, and evaluated in numpy
  (``Leaf.__call__``), so using a leaf needs no torch. A wrong file, another game's leaf, or
  states of another size are ``ValueError``.

Command line::

    python -m cardagents leaf train dagong --hands 20000 --out checkpoints/dagong_leaf.npz
    python -m cardagents leaf eval dagong checkpoints/dagong_leaf.npz --hands 500 \\
        --critic checkpoints/dagong_ppo.pt

``eval`` plays fresh heuristic hands (seeds apart from training's). On their states it prints
the correlation and MSE of the leaf against the actual outcome for the seat to act, and of the
PPO global critic beside it when ``--critic`` is given. ``train`` prints the same at its end.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from cardagents.players.base import check_game
from cardagents.players.heuristics import heuristic_for
from cardenv.games import make_game
from cardenv.vector import VectorGame

__all__ = ["FORMAT", "Leaf", "collect", "evaluate", "global_critic", "load_leaf", "train"]

FORMAT = "cardenv-leaf-1"
# each game's option sets for the data: the positions PIMC meets (Dabang: first hands, later
# hands as configs/dabang.yaml trains them, whole matches)
OPTIONS = {"dabang": [{}, {"dealer": "random", "levels": "random", "blood": "random"},
                      {"episode": "match"}]}
EVAL_SEED = 1 << 30  # eval's default first seed: far from training's
EVAL_KEEP = 0.2  # the fraction of steps evaluated
VALID_SEED = 1 << 29  # the validation hands' first seed (plus the training seed)


def seat_columns(game: str) -> np.ndarray:
    """The four global-state columns of ``game``'s ``to_play`` piece (one-hot: the seat to
    act); ``ValueError`` if its layout has none."""
    layout = getattr(make_game(game), "layout", None)
    for name, start, stop, _, _ in (layout.state_pieces() if layout is not None else []):
        if name == "to_play" and stop - start == 4:
            return np.arange(start, stop)
    raise ValueError(f"{game}'s global state has no 'to_play' piece of four seats: a leaf "
                     f"value needs to read the seat to act")


# --- data ------------------------------------------------------------------------------------

def collect(game: str, hands: int, seed: int = 0, batch: int = 256, keep: float = 0.2,
            options=None, explore: float = 0.0, progress=None) -> dict:
    """Heuristic self-play until ``hands`` hands have ended (see the module docstring), each
    step played at random (uniform over the legal actions) with probability ``explore``:
    ``{"states": (n, S) float16, "values": (n, 4) float32 hand worth per seat, "seats": (n,)
    seat to act, "hands": (n,) the hand's index}``. Steps of hands still running at the end
    are dropped. Deterministic for ``seed``."""
    game = check_game(game)
    if options is None:
        options = OPTIONS.get(game)
    games = VectorGame(game, num_envs=batch, seed=seed, options=options)
    policy = heuristic_for(game, seed)
    rng = np.random.default_rng([seed, 7])
    pending: list[list[int]] = [[] for _ in range(batch)]  # this hand's kept rows, per slot
    states, seats, values = [], [], []
    done, last = 0, time.monotonic()
    while done < hands:
        kept = np.flatnonzero(rng.random(batch) < keep)
        if kept.size:
            rows = len(seats)
            states.append(games.states()[kept].astype(np.float16))
            seats.extend(games.current()[kept].tolist())
            for j, i in enumerate(kept.tolist()):
                pending[i].append(rows + j)
        masks = games.masks()
        actions = policy.act_batch(games.observations(), masks)
        if explore:
            for i in np.flatnonzero(rng.random(batch) < explore).tolist():
                legal = np.flatnonzero(masks[i])
                actions[i] = legal[rng.integers(legal.size)]
        for i, result in games.step(actions).hands:
            variant = games.variant(i)
            worth = [variant.hand_value(result, s) for s in range(4)]
            for row in pending[i]:
                values.append((row, worth, done))
            pending[i] = []
            done += 1
            if done >= hands:
                break
        if progress and time.monotonic() - last > 10:
            last = time.monotonic()
            progress(f"  {done}/{hands} hands, {len(values)} positions")
    all_states = np.concatenate(states) if states else np.zeros((0, 0), np.float16)
    rows = np.array([r for r, _, _ in values], dtype=np.int64)
    order = np.argsort(rows, kind="stable")
    rows = rows[order]
    return {"states": all_states[rows],
            "values": np.array([values[k][1] for k in order.tolist()], dtype=np.float32)
            .reshape(-1, 4),
            "seats": np.array(seats, dtype=np.int64)[rows],
            "hands": np.array([values[k][2] for k in order.tolist()], dtype=np.int64)}


# --- the model -------------------------------------------------------------------------------

class Leaf:
    """A trained leaf value: ``leaf(states)`` maps ``(k, S)`` global states to ``(k,)`` values
    for the seat to act (numpy only)."""

    def __init__(self, game: str, weights: list, biases: list, scale, value_scale: float,
                 columns, command: str = ""):
        self.game = game
        self.weights = [np.asarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.asarray(b, dtype=np.float32) for b in biases]
        self.scale = np.asarray(scale, dtype=np.float32)
        self.value_scale = float(value_scale)
        self.columns = np.asarray(columns, dtype=np.int64)
        self.command = command
        self.state_size = self.scale.size

    def seat_values(self, states) -> np.ndarray:
        """``(k, 4)``: the hand's worth for each seat."""
        x = np.asarray(states, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] < self.state_size:
            raise ValueError(f"the {self.game} leaf reads (k, {self.state_size}) global states, "
                             f"got shape {x.shape}")
        x = x[:, :self.state_size]  # a later layout's global state: its prefix, as fitted
        x = x * self.scale
        for k, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w + b
            if k < len(self.weights) - 1:
                np.maximum(x, 0, out=x)
        return x.astype(float) * self.value_scale

    def __call__(self, states) -> np.ndarray:
        """``(k,)`` values for the seat to act in each state (its ``to_play`` one-hot)."""
        out = self.seat_values(states)
        seats = np.asarray(states)[:, self.columns]
        return (out * seats).sum(axis=1)

    def save(self, path: str) -> None:
        arrays = {"format": np.array(FORMAT), "game": np.array(self.game),
                  "command": np.array(self.command), "scale": self.scale,
                  "value_scale": np.array(self.value_scale), "columns": self.columns,
                  "layers": np.array(len(self.weights))}
        for k, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"w{k}"], arrays[f"b{k}"] = w, b
        with open(path, "wb") as f:  # a path without .npz keeps its name
            np.savez(f, **arrays)

    @classmethod
    def load(cls, path: str, game: str | None = None) -> "Leaf":
        """The leaf saved at ``path`` (which must value ``game``'s states, if given);
        ``ValueError`` naming the problem for anything else."""
        what = f"{path!r} is not a leaf value file (.npz from python -m cardagents leaf train)"
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError, EOFError) as e:  # missing, not a zip, pickled arrays
            raise ValueError(f"{what}: {e}") from None
        except Exception as e:  # a damaged zip (zipfile.BadZipFile and the like)
            raise ValueError(f"{what}: {type(e).__name__}: {e}") from None
        if not isinstance(arrays, dict) or str(arrays.get("format", "")) != FORMAT:
            raise ValueError(what)
        try:
            layers = int(arrays["layers"])
            leaf = cls(str(arrays["game"]), [arrays[f"w{k}"] for k in range(layers)],
                       [arrays[f"b{k}"] for k in range(layers)], arrays["scale"],
                       float(arrays["value_scale"]), arrays["columns"],
                       str(arrays["command"]))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{what}: {e}") from None
        width = leaf.state_size
        for k, (w, b) in enumerate(zip(leaf.weights, leaf.biases)):
            if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
                raise ValueError(f"{path}: layer {k}'s weights do not fit together")
            width = w.shape[1]
        if width != 4 or leaf.columns.shape != (4,) or not (
                (leaf.columns >= 0) & (leaf.columns < leaf.state_size)).all():
            raise ValueError(f"{path}: a leaf has four outputs and four to_play columns")
        if game is not None and leaf.game != game:
            raise ValueError(f"leaf {path} values {leaf.game} states, not {game}")
        return leaf


def load_leaf(path: str, game: str) -> Leaf:
    """``Leaf.load(path, game)``, also checking its state size against ``game``'s."""
    leaf = Leaf.load(path, game)
    size = make_game(game).state_size
    if leaf.state_size > size:  # (layouts only grow: a smaller one reads the prefix)
        raise ValueError(f"leaf {path} reads {leaf.state_size} state entries; {game}'s global "
                         f"state has {size}")
    return leaf


def train(data: dict, game: str, hidden=(256, 256), epochs: int = 3, batch: int = 512,
          lr: float = 1e-3, dropout: float = 0.2, seed: int = 0, valid: dict | None = None,
          command: str = "", progress=None) -> Leaf:
    """An MLP fitted to ``data`` (``collect``'s) by mean squared error on the four seats'
    worth, with ``dropout`` after each hidden layer (positions of one hand share most of their
    state: a net overfits them within two epochs); with ``valid`` (more ``collect`` data, of
    other hands), the epoch with the lowest MSE on it for the seat to act. Deterministic for
    ``seed`` (one torch thread)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(seed)
        states = torch.as_tensor(data["states"].astype(np.float32))
        high = states.abs().amax(dim=0) if len(states) else torch.ones(states.shape[1])
        scale = 1.0 / torch.clamp(high, min=1.0)
        states = states * scale
        value_scale = float(max(data["values"].std(), 1e-6))
        targets = torch.as_tensor(data["values"] / value_scale)
        layers, width = [], states.shape[1]
        for size in hidden:
            layers += [torch.nn.Linear(width, size), torch.nn.ReLU(), torch.nn.Dropout(dropout)]
            width = size
        layers.append(torch.nn.Linear(width, 4))
        net = torch.nn.Sequential(*layers)
        optimizer = torch.optim.Adam(net.parameters(), lr=lr)
        generator = torch.Generator().manual_seed(seed)
        steps = epochs * max(1, -(-len(states) // batch))
        schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 - s / (steps + 1))

        def snapshot() -> Leaf:
            linear = [m for m in net if isinstance(m, torch.nn.Linear)]
            return Leaf(game, [m.weight.detach().numpy().T.copy() for m in linear],
                        [m.bias.detach().numpy().copy() for m in linear], scale.numpy(),
                        value_scale, seat_columns(game), command)

        best, best_mse = None, float("inf")
        for epoch in range(epochs):
            net.train()
            order = torch.randperm(len(states), generator=generator)
            total = 0.0
            for first in range(0, len(states), batch):
                rows = order[first:first + batch]
                loss = torch.nn.functional.mse_loss(net(states[rows]), targets[rows])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                schedule.step()
                total += loss.item() * len(rows)
            leaf = snapshot()
            text = f"  epoch {epoch + 1}/{epochs}: loss {total / max(len(states), 1):.4f} " \
                   f"(per seat, in units of {value_scale:.3f})"
            if valid is not None:
                fit = evaluate(valid, leaf)["leaf"]
                text += f"; validation correlation {fit['corr']:.3f}, MSE {fit['mse']:.4f}"
                if fit["mse"] < best_mse:
                    best, best_mse = leaf, fit["mse"]
            if progress:
                progress(text)
        return best if best is not None else leaf
    finally:
        torch.set_num_threads(threads)


# --- evaluation -------------------------------------------------------------------------------

def _fit(pred: np.ndarray, actual: np.ndarray) -> tuple[float, float]:
    corr = float(np.corrcoef(pred, actual)[0, 1]) if pred.std() > 0 else float("nan")
    return corr, float(np.mean((pred - actual) ** 2))


def evaluate(data: dict, leaf: Leaf | None = None, critic=None) -> dict:
    """Correlation and MSE against the actual hand worth for the seat to act, of the leaf and
    of ``critic`` (a leaf function, e.g. ``global_critic(...)``), on ``data``;
    also the outcome's variance (the MSE of predicting its mean)."""
    actual = data["values"][np.arange(len(data["seats"])), data["seats"]].astype(float)
    out = {"positions": len(actual), "hands": int(len(np.unique(data["hands"]))),
           "variance": float(actual.var())}
    states = data["states"].astype(np.float32)
    for name, value in (("leaf", leaf), ("critic", critic)):
        if value is not None:
            pred = np.concatenate([np.asarray(value(states[i:i + 4096]), dtype=float)
                                   for i in range(0, len(states), 4096)])
            out[name] = dict(zip(("corr", "mse"), _fit(pred, actual)))
    return out


def report(stats: dict) -> str:
    lines = [f"held-out: {stats['positions']} positions of {stats['hands']} heuristic hands; "
             f"outcome variance {stats['variance']:.4f}"]
    for name, label in (("leaf", "leaf value"), ("critic", "PPO global critic")):
        if name in stats:
            lines.append(f"  {label:18s} correlation {stats[name]['corr']:.3f}  "
                         f"MSE {stats[name]['mse']:.4f}")
    return "\n".join(lines)


def global_critic(agent):
    """The leaf value of depth-limited rollouts: ``states (k, S) -> (k,)`` values for the seat
    to act, from a ``PPOAgent`` with a global critic (``critic="global"``: the value of the
    global state for the seat to act, as training fits it); ``ValueError`` for another agent."""
    net = getattr(agent, "net", None)
    if getattr(net, "critic", "local") == "local":
        raise ValueError("the critic must be a PPO checkpoint with a global critic "
                         "(critic=\"global\"), whose values read global states")
    import torch

    size = net.state_scale.numel()

    def leaf(states: np.ndarray) -> np.ndarray:
        # an earlier layout's prefix, as the policy reads observations
        return net.values(torch.as_tensor(states[:, :size])).numpy().astype(float)

    return leaf


def _critic(path, game):
    if path is None:
        return None
    from cardagents.ppo.loading import checkpoint_agent
    return global_critic(checkpoint_agent(path, game))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m cardagents leaf", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("train", help="collect heuristic hands and fit a leaf value")
    check = commands.add_parser("eval", help="a leaf (and a critic) on fresh heuristic hands")
    for sub in (fit, check):
        sub.add_argument("game")
        sub.add_argument("--critic", help="a PPO checkpoint whose global critic to compare "
                                          "(train: default checkpoints/GAME_ppo.pt if present)")
        sub.add_argument("--batch", type=int, default=256, help="games at once (default 256)")
    fit.add_argument("--hands", type=int, required=True,
                     help="training hands (more hands beat more positions per hand)")
    fit.add_argument("--out", required=True, help="the .npz to write")
    fit.add_argument("--seed", type=int, default=0)
    fit.add_argument("--keep", type=float, default=0.05,
                     help="fraction of steps recorded (default 0.05: a few positions a hand)")
    fit.add_argument("--explore", type=float, default=0.0,
                     help="probability that a training step is played at random (default 0)")
    fit.add_argument("--epochs", type=int, default=3)
    fit.add_argument("--valid-hands", type=int, default=300,
                     help="validation hands (other seeds) that pick the best epoch (default "
                          "300; 0: the last epoch)")
    fit.add_argument("--hidden", default="256,256", help="hidden widths (default 256,256)")
    fit.add_argument("--eval-hands", type=int, default=500,
                     help="held-out hands evaluated at the end (default 500; 0: none)")
    check.add_argument("leaf", help="the .npz")
    check.add_argument("--hands", type=int, default=500)
    check.add_argument("--seed", type=int, default=EVAL_SEED)
    args = parser.parse_args(argv)
    game = check_game(args.game)

    def say(text):
        print(text, file=sys.stderr, flush=True)

    start = time.process_time()
    if args.command == "train":
        hidden = tuple(int(h) for h in args.hidden.split(","))
        command = "python -m cardagents leaf " + " ".join(sys.argv[1:] if argv is None else argv)
        say(f"collecting {args.hands} heuristic {game} hands (seed {args.seed})")
        data = collect(game, args.hands, args.seed, args.batch, args.keep,
                       explore=args.explore, progress=say)
        say(f"  {len(data['seats'])} positions, {time.process_time() - start:.0f} s CPU")
        valid = collect(game, args.valid_hands, VALID_SEED + args.seed, args.batch, EVAL_KEEP) \
            if args.valid_hands else None
        leaf = train(data, game, hidden, args.epochs, seed=args.seed, valid=valid,
                     command=command, progress=say)
        leaf.save(args.out)
        say(f"wrote {args.out} ({time.process_time() - start:.0f} s CPU)")
        critic = args.critic
        if critic is None:
            import os
            default = f"checkpoints/{game}_ppo.pt"
            critic = default if os.path.isfile(default) else None
        hands, seed = args.eval_hands, EVAL_SEED
    else:
        leaf, critic, hands, seed = load_leaf(args.leaf, game), args.critic, args.hands, \
            args.seed
    stats = {}
    if hands:
        data = collect(game, hands, seed, args.batch, EVAL_KEEP)
        stats = evaluate(data, leaf, _critic(critic, game))
        print(report(stats))
    return stats


if __name__ == "__main__":
    main()
