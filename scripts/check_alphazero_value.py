"""Check an AlphaZero network's value head: a held-out set of games, and the board's symmetries.

1. **Held-out games**: ``--games`` fresh self-play games (Gumbel search with
   noise, ``--sims`` simulations, a seed the training did not use); the mean
   squared error of the raw value against each position's result from the
   mover's view, next to the error of the best constant (the results' mean).
2. **Symmetry**: the value of every held-out position under the eight
   symmetries of the board: the mean and largest spread (max - min), and the
   mean total-variation distance between the policy of a transformed position
   and the transformed policy. A network that learnt the game's symmetry
   shows small numbers (training augments with all eight).
3. Exact values: for Tic-Tac-Toe, the raw value's class against the exact
   minimax value over all 4,520 live positions; for 5x5 Little-Go, the sign
   of the raw value against the solver's exact value over the endgame
   benchmark (``--endgames``, by default ``tests/data/littlego_endgames.npz``:
   10,000 positions with at most 10 actions to go), over all of them and
   over the decisive ones (where some move throws the value away).

    python scripts/check_alphazero_value.py --model runs/go_az --games 256
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

from tictacgo.baselines.learning.alphazero.network import NetworkEvaluator, load_model
from tictacgo.baselines.learning.alphazero.replay import NUM_SYMMETRIES, transform_boards, transform_policy
from tictacgo.baselines.learning.alphazero.search import softmax
from tictacgo.baselines.learning.alphazero.selfplay import SearchConfig, SelfPlay

ENDGAMES = Path(__file__).resolve().parents[1] / "tests" / "data" / "littlego_endgames.npz"


def held_out(evaluator: NetworkEvaluator, games: int, sims: int, seed: int):
    """The planes and results (mover's view) of the positions of ``games`` self-play games."""
    sp = SelfPlay(evaluator.game, evaluator, min(games, 256), SearchConfig("gumbel", sims),
                  np.random.default_rng(seed))
    planes, values = [], []
    while sp.games_finished < games:
        pos = sp.step()
        if pos is not None:
            planes.append(pos.planes)
            values.append(pos.value)
    return np.concatenate(planes), np.concatenate(values)


def symmetry_spread(evaluator: NetworkEvaluator, planes: np.ndarray) -> dict[str, float]:
    n = planes.shape[-1]
    values, policies = [], []
    for s in range(NUM_SYMMETRIES):
        logits, v = evaluator.evaluate_planes(np.ascontiguousarray(transform_boards(planes, s)))
        # Back to the original orientation: the inverse of s (rotations invert, mirrors are their own).
        inverse = (4 - s) % 4 if s < 4 else s
        policies.append(transform_policy(softmax(logits), inverse, n))
        values.append(v)
    values, policies = np.stack(values), np.stack(policies)
    spread = values.max(0) - values.min(0)
    tv = 0.5 * np.abs(policies - policies.mean(0, keepdims=True)).sum(-1).mean()
    return {"value_spread_mean": float(spread.mean()), "value_spread_max": float(spread.max()),
            "policy_tv_to_mean": float(tv)}


def endgame_values(evaluator: NetworkEvaluator, path: str | Path) -> dict[str, float]:
    """How often the sign of the raw value is the exact value of an endgame benchmark's positions.

    Returns the share over all positions and over the decisive ones, the
    mean squared error against the exact value (+1 or -1, the mover's view)
    and the number of positions.

    Raises:
        ValueError: the benchmark's variant (size, komi, action limit) is not the network's.
    """
    from tictacgo.solver.endgames import load_endgames

    endgames, meta = load_endgames(path)
    game = evaluator.game
    theirs = (int(meta["size"]), float(meta["komi"]), int(meta["max_actions"]))
    ours = (game.spec.board_shape[0], game.spec.komi, game.spec.max_actions)
    if theirs != ours:
        raise ValueError(f"{path} holds (size, komi, limit) {theirs}, the network plays {ours}")
    planes = np.stack([game.encoder.from_state(e.state) for e in endgames])
    _, values = evaluator.evaluate_planes(planes)
    exact = np.array([e.value for e in endgames])
    decisive = np.array([e.decisive for e in endgames])
    right = np.sign(values) == exact
    return {"sign_matches": float(right.mean()), "sign_matches_decisive": float(right[decisive].mean()),
            "mse": float(np.mean((values - exact) ** 2)), "positions": len(endgames)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="model folder")
    p.add_argument("--games", type=int, default=256)
    p.add_argument("--sims", type=int, default=16)
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--endgames", default=None,
                   help="Little-Go endgame benchmark (.npz) of the network's variant (default: the "
                        "package's 5x5 benchmark for a network of the course's game; '' to skip)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    net, variant, _ = load_model(args.model)
    evaluator = NetworkEvaluator(net, variant)
    planes, z = held_out(evaluator, args.games, args.sims, args.seed)
    _, v = evaluator.evaluate_planes(planes)
    print(f"held-out: {args.games} games, {len(z)} positions")
    decided = z != 0
    print(f"  value MSE {np.mean((v - z) ** 2):.4f} (best constant: {np.var(z):.4f})")
    if decided.any():
        print(f"  sign of the value = the result in {np.mean(np.sign(v[decided]) == z[decided]):.1%} "
              f"of the positions of decided games ({decided.mean():.1%} of all)")
    for k, val in symmetry_spread(evaluator, planes).items():
        print(f"  {k} {val:.4f}")
    if variant.spec.solvable:
        from tictacgo.baselines.audit import reachable_positions
        from tictacgo.baselines.minimax import MinimaxAgent

        game = variant
        positions = reachable_positions(game)
        solver = MinimaxAgent(game)
        exact = np.array([np.sign(round(max(solver.action_values(s).values()), 9)) for s in positions])
        _, v = evaluator.evaluate_planes(np.stack([game.encoder.from_state(s) for s in positions]))
        pred = np.where(v > 0.5, 1, np.where(v < -0.5, -1, 0))
        print(f"exact values over {len(positions)} positions: the raw value's class (>0.5 win, <-0.5 loss, "
              f"else draw) matches minimax in {np.mean(pred == exact):.2%}")
    elif args.endgames != "":
        try:
            r = endgame_values(evaluator, args.endgames or ENDGAMES)
        except ValueError:
            if args.endgames is not None:
                raise
            return 0  # the default benchmark is of another game or variant
        print(f"exact values over {r['positions']} endgame positions: the raw value's sign matches the "
              f"solver in {r['sign_matches']:.2%} ({r['sign_matches_decisive']:.2%} of the decisive ones), "
              f"MSE {r['mse']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
